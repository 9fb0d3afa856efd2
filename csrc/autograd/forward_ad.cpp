#include "autograd/forward_ad.h"

#include <cctype>
#include <memory>
#include <mutex>

#include "formula_decls.h"
#include "kernels/kernels.h"
#include "ops/ops.h"

namespace gradtrack::autograd::forward_ad {

std::atomic<int64_t> g_level{-1};

namespace {

thread_local bool t_off = false;

// Tensors given a tangent at the open level, to drop them when it closes.
std::mutex g_mutex;
std::vector<std::weak_ptr<TensorImpl>> g_duals;

// "MulBackward0" -> "mul", PyTorch's spelling of the op in its message:
// the overload number dropped ("ProdBackward1" -> "prod"), no underscore
// after a digit ("AvgPool2DBackward0" -> "avg_pool2d", "Log1PBackward0" -> "log1p").
std::string op_name(const FormulaRow& row) {
  if (row.aten_name) return row.aten_name;
  std::string camel = forward_op_name(row.name);
  const size_t bw = std::string(row.name).rfind("Backward");
  if (bw != std::string::npos && bw + 8 < std::string(row.name).size())
    camel = std::string(row.name).substr(0, bw);
  std::string out;
  for (size_t i = 0; i < camel.size(); ++i) {
    const char c = camel[i];
    if (std::isupper(static_cast<unsigned char>(c))) {
      if (i > 0 && !std::isdigit(static_cast<unsigned char>(camel[i - 1]))) out += '_';
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      out += c;
    }
  }
  return out;
}

// The tangent with its primal's shape, dtype and strides (NOTE [Forward-mode AD]).
// A primal with gaps (a narrow written in place) gets a dense tangent in its
// memory order instead: its strides would reach past a numel-sized buffer.
Tensor fit(Tensor t, const Tensor& primal) {
  if (t.sizes() != primal.sizes()) t = ops::expand(t, primal.sizes());
  if (t.dtype() != primal.dtype()) t = ops::to_dtype(t, primal.dtype());
  if (t.strides() == primal.strides()) return t;
  Tensor out = ops::empty_like(primal, primal.dtype());
  if (out.strides() == t.strides()) return t;
  kernels::copy(out, t);
  return out;
}

}  // namespace

bool set_propagation_off(bool off) {
  const bool prev = t_off;
  t_off = off;
  return prev;
}
bool propagation_off() { return t_off; }

NoPropagation::NoPropagation() : prev_(t_off) { t_off = true; }
NoPropagation::~NoPropagation() { t_off = prev_; }

int64_t enter_level() {
  int64_t expected = -1;
  if (!g_level.compare_exchange_strong(expected, 0))
    throw Error("Nested forward mode AD is not supported at the moment");
  return 0;
}

void exit_level(int64_t level) {
  if (level != g_level.load())
    throw Error(
        "Trying to exit a forward AD level that was not the last one that was created. "
        "This is not supported.");
  std::vector<std::weak_ptr<TensorImpl>> duals;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    duals.swap(g_duals);
  }
  for (const auto& w : duals) {
    if (auto impl = w.lock()) {
      if (auto* m = static_cast<AutogradMeta*>(impl->autograd_meta())) m->fw_grad = Tensor();
    }
  }
  g_level.store(-1);
}

namespace {

// NOTE [A view sees its base's tangent]
// An in-place op on one view gives the base a tangent (NOTE [Forward AD through
// in-place ops]); every other view of that base, made before or after, then has
// the same view of the base's tangent as its own, as torch's views read theirs.
// It is made when first asked for and kept until the level closes.
Tensor tangent_through_base(const Tensor& t) {
  if (!active() || !is_view(t)) return Tensor();
  const Tensor base = view_base(t);
  const AutogradMeta* bm = meta(base);
  if (!bm || !bm->fw_grad.defined() || base.dtype() != t.dtype()) return Tensor();
  const Tensor& bt = bm->fw_grad;
  if (bt.strides() != base.strides()) return Tensor();
  Tensor view = alias_with_geometry(bt, t.sizes(), t.strides(),
                                    bt->offset() + (t->offset() - base->offset()));
  materialize_meta(t).fw_grad = view;
  std::lock_guard<std::mutex> lock(g_mutex);
  g_duals.push_back(t.ptr());
  return view;
}

}  // namespace

Tensor tangent(const Tensor& t) {
  const AutogradMeta* m = meta(t);
  if (m && m->fw_grad.defined()) return m->fw_grad;
  return tangent_through_base(t);
}

void set_tangent(const Tensor& t, const Tensor& tangent) {
  if (!tangent.defined()) {
    if (AutogradMeta* m = meta(t)) m->fw_grad = Tensor();
    return;
  }
  materialize_meta(t).fw_grad = fit(tangent, t);
  std::lock_guard<std::mutex> lock(g_mutex);
  g_duals.push_back(t.ptr());
}

bool any_tangent(std::initializer_list<const Tensor*> inputs) {
  if (!active() || t_off) return false;
  for (const Tensor* t : inputs)
    if (tangent(*t).defined()) return true;
  return false;
}

bool any_tangent(const std::vector<Tensor>& inputs) {
  if (!active() || t_off) return false;
  for (const Tensor& t : inputs)
    if (tangent(t).defined()) return true;
  return false;
}

void not_implemented(const std::string& name) {
  throw NotImplementedError(str_cat(
      "Trying to use forward AD with ", name,
      " that does not support it because it has not been implemented yet.\nPlease file an issue "
      "to PyTorch at https://github.com/pytorch/pytorch/issues/new?template=feature-request.yml "
      "so that we can prioritize its implementation or submit a PR adding the implementation to "
      "derivatives.yaml"));
}

// Ops whose node is torch's NotImplemented (floor_divide) get its shorter
// message, naming the aten op.
[[noreturn]] static void not_implemented_aten(const std::string& name) {
  throw NotImplementedError(
      str_cat("Trying to use forward AD with aten::", name, " that does not support it."));
}

}  // namespace gradtrack::autograd::forward_ad

namespace gradtrack::autograd {

// NOTE [Forward-mode derivatives from the backward]
// An elementwise op's Jacobian is diagonal, so its forward-mode derivative is
// its backward formula with each input's tangent in place of the gradient,
// summed over the inputs: the rule torch's derivatives.yaml calls
// auto_element_wise (and auto_linear). A row that says so (jvp_from_backward)
// has no jvp of its own: its backward runs on a context made from the primals
// (every input and the result count as saved), asked for one input's gradient
// at a time. A term that is the tangent itself (pass_bw) is cloned: the output
// must get a tangent of its own.
Tensor run_jvp(const FormulaRow& row, const JvpCtx& c) {
  if (!row.jvp_from_backward) return row.jvp(c);
  GradMetaList metas;
  for (const Tensor& p : c.primals) metas.push_back(GradMeta{p.sizes(), p.dtype()});
  TensorList saved(c.primals.begin(), c.primals.end());
  saved.push_back(c.result);
  for (const Tensor* e : c.extras) saved.push_back(e ? *e : Tensor());
  Tensor sum;
  for (size_t i = 0; i < c.tangents.size(); ++i) {
    if (!c.has(i)) continue;
    const BackwardCtx ctx{row.kind,        c.attrs_, metas,           saved,
                          c.extras.size(), nullptr,  uint64_t(1) << i};
    const TensorList grads = row.fn(ctx, TensorList{c.tangents[i]});
    if (i >= grads.size() || !grads[i].defined()) continue;
    Tensor term = grads[i].ptr() == c.tangents[i].ptr() ? ops::clone(grads[i]) : grads[i];
    sum = sum.defined() ? ops::add(sum, term) : term;
  }
  return sum;
}

}  // namespace gradtrack::autograd

namespace gradtrack::autograd::forward_ad {

void propagate(OpKind kind, std::initializer_list<const Tensor*> inputs, const Tensor& out,
               const Attrs& attrs, const std::vector<const Tensor*>& extras) {
  const FormulaRow& row = formula_row(kind);
  if (row.not_implemented) not_implemented_aten(row.aten_name);
  if (!row.has_jvp()) not_implemented(op_name(row));
  if (!is_floating(out.dtype())) return;
  TensorList primals, tangents;
  for (const Tensor* t : inputs) {
    primals.push_back(*t);
    tangents.push_back(tangent(*t));
  }
  Tensor result;
  {
    NoPropagation off;
    result = run_jvp(row, JvpCtx{primals, tangents, out, attrs, extras});
    if (result.defined()) result = fit(result, out);
    // A formula may hand back an input's tangent itself (x + c): the output
    // gets its own, or an in-place op on it would change the input's too.
    for (const Tensor& tan : tangents)
      if (result.defined() && tan.defined() && result.ptr() == tan.ptr())
        result = ops::clone(result);
  }
  if (result.defined()) set_tangent(out, result);
}

void check_inplace(OpKind kind, const char* label) {
  const FormulaRow& row = formula_row(kind);
  if (row.not_implemented) not_implemented_aten(label);
  if (!row.has_jvp()) not_implemented(label);
}

// NOTE [Forward AD through in-place ops]
// As PyTorch's generated in-place code: the jvp is computed from self's old
// value and the result, then copied into self's tangent in place (the user's
// tangent object changes, its _version bumps), so views sharing that tangent
// see it. Self without a tangent gets one; when self is a view, its base gets
// a zero tangent first and self's tangent is the same view of it.
void propagate_inplace(OpKind kind, std::initializer_list<const Tensor*> inputs, const Tensor& self,
                       const Tensor& old_self, const Attrs& attrs,
                       const std::vector<const Tensor*>& extras) {
  const FormulaRow& row = formula_row(kind);
  if (!is_floating(self.dtype())) return;
  TensorList primals, tangents;
  bool first = true;
  for (const Tensor* t : inputs) {
    primals.push_back(first ? old_self : *t);
    tangents.push_back(tangent(*t));
    first = false;
  }
  NoPropagation off;
  Tensor result = run_jvp(row, JvpCtx{primals, tangents, self, attrs, extras});
  result = result.defined() ? fit(result, self) : ops::zeros(self.sizes(), self.dtype());
  Tensor current = tangent(self);
  if (!current.defined() && is_view(self)) {
    const Tensor base = view_base(self);
    if (is_floating(base.dtype()) && !tangent(base).defined())
      set_tangent(base, ops::zeros(base.sizes(), base.dtype()));
    Tensor bt = tangent(base);
    if (bt.defined() && bt.strides() == base.strides()) {
      current = alias_with_geometry(bt, self.sizes(), self.strides(),
                                    bt->offset() + (self->offset() - base->offset()));
      materialize_meta(self).fw_grad = current;
      std::lock_guard<std::mutex> lock(g_mutex);
      g_duals.push_back(self.ptr());
    }
  }
  if (!current.defined()) return set_tangent(self, result);
  kernels::copy(current, result);
  current->bump_version();
}

void propagate_views(const Tensor& a, const std::vector<Tensor>& outs) {
  NoPropagation off;
  const TensorList primals{a}, tangents{tangent(a)};
  const Attrs attrs{};
  const std::vector<const Tensor*> extras;
  for (const Tensor& o : outs) {
    if (!is_floating(o.dtype())) continue;
    Tensor t = formulas::view_jvp(JvpCtx{primals, tangents, o, attrs, extras});
    materialize_meta(o).fw_grad = fit(t, o);
    std::lock_guard<std::mutex> lock(g_mutex);
    g_duals.push_back(o.ptr());
  }
}

void propagate_cat(const std::vector<Tensor>& inputs, int64_t dim, const Tensor& out) {
  if (!is_floating(out.dtype())) return;
  Tensor result;
  {
    NoPropagation off;
    std::vector<Tensor> parts;
    for (const Tensor& t : inputs) {
      Tensor tan = tangent(t);
      parts.push_back(tan.defined() ? ops::to_dtype(tan, out.dtype())
                                    : ops::zeros(t.sizes(), out.dtype()));
    }
    result = fit(ops::cat(parts, dim), out);
  }
  set_tangent(out, result);
}

Tensor make_dual(const Tensor& primal, const Tensor& tangent, int64_t level) {
  GT_CHECK(primal.sizes() == tangent.sizes(),
           "Trying to set a forward gradient that has a different size than that of the original "
           "Tensor, this is not supported. Tensor is of size ",
           shape_str(primal.sizes()), " while the given forward gradient is of size ",
           shape_str(tangent.sizes()), ".");
  Tensor dual;
  {
    NoPropagation off;  // the primal's own tangent (if any) is replaced
    dual = ops::view(primal, primal.sizes());
  }
  // As PyTorch: the tangent object itself when its layout fits.
  materialize_meta(dual).fw_grad =
      tangent.strides() == dual.strides() ? tangent : fit(tangent, dual);
  std::lock_guard<std::mutex> lock(g_mutex);
  g_duals.push_back(dual.ptr());
  return dual;
}

Tensor primal_view(const Tensor& t) {
  NoPropagation off;
  return ops::view(t, t.sizes());
}

}  // namespace gradtrack::autograd::forward_ad
