// Ops that copy or rearrange elements: contiguous, clone, dtype conversion,
// cat/stack, tril/triu, flip, roll, repeat. The composite ones take their
// values from the existing ops with grad mode off (they never alias the
// input); the node is the op's own row.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <vector>

#include "autograd/variable.h"
#include "ops/common.h"

namespace gradtrack::ops {

namespace {

// A result that is certainly a new tensor (an op given nothing to do may
// return its input).
Tensor fresh(const Tensor& r, const Tensor& a) {
  // A view of an internal temporary (roll of the flattened tensor) is not a view in
  // torch's result either: _is_view() and in-place writes must see a plain tensor.
  return (r.is_same(a) || r->storage() == a->storage() || autograd::is_view(r)) ? clone(r) : r;
}

}  // namespace

Tensor tril(const Tensor& a, int64_t diagonal, bool upper) {
  GT_CHECK(a.dim() >= 2, upper ? "triu" : "tril", ": input tensor must have at least 2 dimensions");
  Tensor out;
  {
    autograd::AutoGradMode off(false);
    const int64_t rows = a.sizes()[size_t(a.dim() - 2)], cols = a.sizes()[size_t(a.dim() - 1)];
    Tensor r = unsqueeze(
        arange(Scalar(int64_t(0)), Scalar(rows), Scalar(int64_t(1)), ScalarType::Int64), 1);
    Tensor c = arange(Scalar(int64_t(0)), Scalar(cols), Scalar(int64_t(1)), ScalarType::Int64);
    // Element (i, j) is kept when j - i <= diagonal (tril) or >= diagonal (triu).
    Tensor keep = compare(upper ? Cmp::Ge : Cmp::Le, sub(c, r), Scalar(diagonal));
    out = fresh(where(keep, a, zeros({}, a.dtype())), a);
  }
  record(upper ? OpKind::Triu : OpKind::Tril, {&a}, out,
         [&](autograd::TriangleAttrs& at) { at.diagonal = diagonal; });
  return out;
}

Tensor flip(const Tensor& a, const DimVector& dims) {
  const uint64_t mask = dims_mask(dims, a.dim(), false);
  Tensor out;
  {
    autograd::AutoGradMode off(false);
    Tensor r = a;
    for (int64_t d = 0; d < a.dim(); ++d) {
      if (!(mask >> d & 1)) continue;
      const int64_t n = a.sizes()[size_t(d)];
      Tensor idx =
          arange(Scalar(n - 1), Scalar(int64_t(-1)), Scalar(int64_t(-1)), ScalarType::Int64);
      r = index_select(r, d, idx);
    }
    out = fresh(contiguous(r), a);
  }
  DimVector wrapped;
  for (int64_t d = 0; d < a.dim(); ++d)
    if (mask >> d & 1) wrapped.push_back(d);
  record(OpKind::Flip, {&a}, out, [&](autograd::DimsAttrs& at) { at.dims = wrapped; });
  return out;
}

namespace {

Tensor roll_one(const Tensor& a, int64_t shift, int64_t d) {
  const int64_t n = a.sizes()[size_t(d)];
  if (n == 0) return a;
  const int64_t s = ((shift % n) + n) % n;
  if (s == 0) return a;
  return cat({narrow(a, d, n - s, s), narrow(a, d, 0, n - s)}, d);
}

}  // namespace

Tensor roll(const Tensor& a, const DimVector& shifts, const DimVector& dims) {
  GT_CHECK(!shifts.empty(), "`shifts` required");
  GT_CHECK(dims.empty() || shifts.size() == dims.size(),
           "shifts and dimensions must align. shifts: ", shifts.size(), ", dims:", dims.size());
  GT_CHECK(!dims.empty() || shifts.size() == 1,
           "shifts and dimensions must align. shifts: ", shifts.size(), ", dims:", dims.size());
  DimVector wrapped;
  for (int64_t d : dims) wrapped.push_back(wrap_dim(d, a.dim()));
  Tensor out;
  {
    autograd::AutoGradMode off(false);
    if (dims.empty()) {
      out = view(roll_one(flatten(contiguous(a), 0, -1), shifts[0], 0), a.sizes());
    } else {
      out = a;
      for (size_t i = 0; i < shifts.size(); ++i) out = roll_one(out, shifts[i], wrapped[i]);
    }
    out = fresh(contiguous(out), a);
  }
  record(OpKind::Roll, {&a}, out, [&](autograd::RollAttrs& at) {
    at.shifts = shifts;
    at.dims = wrapped;
  });
  return out;
}

Tensor repeat(const Tensor& a, const DimVector& repeats) {
  GT_CHECK(static_cast<int64_t>(repeats.size()) >= a.dim(),
           "Number of dimensions of repeat dims can not be smaller than number of dimensions of "
           "tensor");
  const size_t nd = repeats.size(), lead = nd - static_cast<size_t>(a.dim());
  DimVector padded(nd, 1), target;
  for (size_t i = 0; i < static_cast<size_t>(a.dim()); ++i) padded[lead + i] = a.sizes()[i];
  for (size_t i = 0; i < nd; ++i) target.push_back(padded[i] * repeats[i]);
  for (size_t i = 0; i < nd; ++i) {
    GT_CHECK(target[i] >= 0, "Trying to create tensor with negative dimension ", target[i], ": ",
             shape_str(target));
  }
  Tensor out;
  {
    autograd::AutoGradMode off(false);
    // [1, s0, 1, s1, ...] expanded to [r0, s0, r1, s1, ...], then merged pairwise.
    DimVector split, expanded;
    for (size_t i = 0; i < nd; ++i) {
      split.push_back(1);
      split.push_back(padded[i]);
      expanded.push_back(repeats[i]);
      expanded.push_back(padded[i]);
    }
    out = empty(target, a.dtype());
    if (out.numel() > 0) {
      Tensor src = expand(reshape(a, split), expanded);
      kernels::copy(view(out, expanded), src);
    }
  }
  record(OpKind::Repeat, {&a}, out, [&](autograd::RepeatAttrs& at) { at.repeats = repeats; });
  return out;
}

Tensor empty_like(const Tensor& a, ScalarType dtype) {
  // memory_format=preserve: a dense `a`'s strides as they are (size-1 dims
  // included), else `a`'s memory order, as an elementwise result gets.
  if (is_non_overlapping_and_dense(a)) return empty_strided(a.sizes(), a.strides(), dtype);
  return empty_strided(a.sizes(), dense_strides_following(a.sizes(), {&a}), dtype);
}
Tensor clone(const Tensor& a) {
  Tensor out = empty_like(a, a.dtype());
  kernels::copy(out, a);
  record(OpKind::Clone, {&a}, out);
  return out;
}
Tensor restride(const Tensor& a, ScalarType dtype, const DimVector& strides, bool to_copy) {
  GT_CHECK(a.numel() >= 0, "numel: integer multiplication overflow");  // NOTE [Overflowing numel]
  Tensor out = empty_strided(a.sizes(), strides, dtype);
  kernels::copy(out, a);
  if (!to_copy)
    record(OpKind::Clone, {&a}, out);
  else if (is_floating(dtype))
    record(OpKind::ToCopy, {&a}, out);
  return out;
}
Tensor contiguous(const Tensor& a) {
  if (a.is_contiguous()) return a;
  GT_CHECK(a.numel() >= 0, "numel: integer multiplication overflow");  // NOTE [Overflowing numel]
  Tensor out = empty(a.sizes(), a.dtype());
  kernels::copy(out, a);
  record(OpKind::Clone, {&a}, out);
  return out;
}
Tensor to_dtype(const Tensor& a, ScalarType dtype, bool copy) {
  if (a.dtype() == dtype && !copy) return a;
  GT_CHECK(a.numel() >= 0, "numel: integer multiplication overflow");  // NOTE [Overflowing numel]
  Tensor out = empty_like(a, dtype);
  kernels::copy(out, a);
  if (is_floating(dtype)) record(OpKind::ToCopy, {&a}, out);
  return out;
}
Tensor cat(const std::vector<Tensor>& ts, int64_t dim) {
  GT_CHECK_VALUE(!ts.empty(), "gradtrack.cat(): expected a non-empty list of Tensors");
  // Legacy rule: 1-D empty tensors are skipped when deciding shapes.
  const Tensor* ref = nullptr;
  for (const Tensor& t : ts)
    if (!(t.dim() == 1 && t.numel() == 0)) {
      ref = &t;
      break;
    }
  if (!ref) ref = &ts[0];
  int64_t d = wrap_dim(dim, ref->dim());
  GT_CHECK(ref->dim() > 0, "zero-dimensional tensor (at position 0) cannot be concatenated");
  ResultTypeState rts;
  for (const Tensor& t : ts) rts.add_tensor(t.dtype(), t.dim() == 0);
  ScalarType dt = rts.result();
  int64_t total = 0;
  for (size_t i = 0; i < ts.size(); ++i) {
    const Tensor& t = ts[i];
    if (t.dim() == 1 && t.numel() == 0 && ref->dim() != 1) continue;
    GT_CHECK(t.dim() == ref->dim(), "Tensors must have same number of dimensions: got ", ref->dim(),
             " and ", t.dim());
    for (int64_t k = 0; k < t.dim(); ++k) {
      GT_CHECK(k == d || t.sizes()[k] == ref->sizes()[k],
               "Sizes of tensors must match except in "
               "dimension ",
               d, ". Expected size ", ref->sizes()[k], " but got size ", t.sizes()[k],
               " for tensor number ", i, " in the list.");
    }
    total += t.sizes()[d];
  }
  DimVector shape(ref->sizes());
  shape[d] = total;
  Tensor out = empty(shape, dt);
  int64_t offset = 0;
  DimVector parts;
  for (const Tensor& t : ts) {
    if (t.dim() == 1 && t.numel() == 0 && ref->dim() != 1) {
      parts.push_back(-1);
      continue;
    }
    int64_t n = t.sizes()[d];
    parts.push_back(n);
    DimVector s(shape);
    s[d] = n;
    Tensor dst = alias_with_geometry(out, s, out.strides(), offset * out.strides()[d]);
    kernels::copy(dst, t);
    offset += n;
  }
  if (autograd::GradMode::is_enabled()) {
    bool any = false;
    for (const Tensor& t : ts) any = any || autograd::requires_grad(t);
    if (any) {
      auto node = std::make_shared<autograd::FormulaNode>(autograd::formula_row(OpKind::Cat));
      for (const Tensor& t : ts) {
        node->add_next_edge(autograd::gradient_edge(t));
        node->inputs.push_back({t.sizes(), t.dtype()});
      }
      autograd::CatAttrs& at = node->attrs.set<autograd::CatAttrs>();
      at.dim = d;
      at.sizes = parts;
      autograd::set_history(out, node);
    }
  }
  if (autograd::forward_ad::any_tangent(ts)) autograd::forward_ad::propagate_cat(ts, d, out);
  return out;
}
Tensor stack(const std::vector<Tensor>& ts, int64_t dim) {
  GT_CHECK(!ts.empty(), "stack expects a non-empty TensorList");
  for (size_t i = 1; i < ts.size(); ++i) {
    GT_CHECK(ts[i].sizes() == ts[0].sizes(), "stack expects each tensor to be equal size, but got ",
             shape_str(ts[0].sizes()), " at entry 0 and ", shape_str(ts[i].sizes()), " at entry ",
             i);
  }
  int64_t d = wrap_dim(dim, ts[0].dim() + 1);
  std::vector<Tensor> parts;
  {
    autograd::AutoGradMode off(false);
    for (const Tensor& t : ts) parts.push_back(unsqueeze(t, d));
  }
  Tensor out;
  {
    autograd::AutoGradMode off(false);
    out = cat(parts, d);
  }
  if (autograd::GradMode::is_enabled()) {
    bool any = false;
    for (const Tensor& t : ts) any = any || autograd::requires_grad(t);
    if (any) {
      auto node = std::make_shared<autograd::FormulaNode>(autograd::formula_row(OpKind::Stack));
      for (const Tensor& t : ts) {
        node->add_next_edge(autograd::gradient_edge(t));
        node->inputs.push_back({t.sizes(), t.dtype()});
      }
      node->attrs.set<autograd::DimAttrs>().dim = d;
      autograd::set_history(out, node);
    }
  }
  return out;
}

}  // namespace gradtrack::ops
