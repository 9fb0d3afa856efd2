// _C._inplace: the raw in-place entries python/gradtrack/_inplace.py calls
// after its rules (NOTE [In-place rules]), and the op list's in-place table.
#include "autograd/forward_ad.h"
#include "autograd/provenance.h"
#include "autograd/variable.h"
#include "ops/as_strided.h"
#include "python/arg_errors.h"
#include "ops/memory_format.h"
#include "python/common.h"

namespace gradtrack::python {

namespace {

namespace ag = autograd;

// The op list's in-place variants for python/gradtrack/_inplace.py, which makes
// one method of each: {name: (id, number of operands besides self)}.
py::dict inplace_ops() {
  py::dict d;
  int id = 0;
#define GT_INPLACE_ENTRY(K, name, ...) d[#name] = py::make_tuple(id++, arity);
  int arity = 0;
  GT_INPLACE_UNARY(GT_INPLACE_ENTRY)
  arity = 1;
  GT_INPLACE_BINARY(GT_INPLACE_ENTRY)
#undef GT_INPLACE_ENTRY
  return d;
}

std::string method_name(int op) {
  return ops::inplace_name(static_cast<ops::InplaceOp>(op)) + std::string("_");
}

// PyTorch's words for an in-place binary op given an operand it does not take.
[[noreturn]] void bad_inplace_operand(int op, py::handle other) {
  std::string name = method_name(op);
  if (name == "pow_") {
    throw InvalidArguments{name,
                           {"Tensor exponent", "Number exponent"},
                           std::vector<py::object>{py::reinterpret_borrow<py::object>(other)}};
  }
  throw TypeError(name + "(): argument 'other' (position 1) must be Tensor, not " +
                  type_name(other));
}

// Whether `item` (a tensor, or a tuple or list of them) shares memory with
// `out`; raises PyTorch's error when it shares some but not all of it.
bool shares_memory(py::handle item, const Tensor& out) {
  if (py::isinstance<TensorImpl>(item)) {
    const Tensor t = item.cast<Tensor>();
    ops::check_no_partial_overlap(out, t);
    return may_overlap(t, out);
  }
  bool any = false;
  if (py::isinstance<py::tuple>(item) || py::isinstance<py::list>(item)) {
    for (py::handle x : item) any = shares_memory(x, out) || any;
  }
  return any;
}

bool has_tangent(py::handle item) {
  if (py::isinstance<TensorImpl>(item))
    return ag::forward_ad::tangent(item.cast<Tensor>()).defined();
  if (py::isinstance<py::tuple>(item) || py::isinstance<py::list>(item)) {
    for (py::handle x : item)
      if (has_tangent(x)) return true;
  }
  return false;
}

// PyTorch's out= functions have no forward derivative: a tangent on any
// argument, or on out, is refused before anything is written.
void check_out_tangents(const std::string& name, py::handle out, const py::tuple& args) {
  if (!ag::forward_ad::active()) return;
  bool any = has_tangent(out);
  for (py::handle a : args) any = any || has_tangent(a);
  if (any)
    throw NotImplementedError("Trying to use forward AD with " + name +
                              "_out that does not support it because it is an out= function");
}

// fn(*args, **kwargs) with `out` armed (NOTE [out= written in place] in
// ops/common.h): (result, True) when the result is `out`, written in place
// and its counter bumped; else (result, False), for the caller to copy.
// PyTorch's overlap errors come first, before anything is computed.
py::tuple call_into(const Tensor& out, py::handle fn, const py::tuple& args,
                    const py::dict& kwargs) {
  ops::check_no_internal_overlap(out);
  bool arm = out.is_contiguous() && out.numel() > 0;
  for (py::handle a : args) arm = !shares_memory(a, out) && arm;
  for (auto kv : kwargs) arm = !shares_memory(kv.second, out) && arm;
  if (!arm) return py::make_tuple(fn(*args, **kwargs), false);
  ops::OutSlot slot(out);
  py::object result = fn(*args, **kwargs);
  if (!slot.release()) return py::make_tuple(result, false);
  if (!py::isinstance<TensorImpl>(result)) return py::make_tuple(result, false);
  const Tensor r = result.cast<Tensor>();
  if (r.is_same(out)) {
    out->bump_version();
    return py::make_tuple(result, true);
  }
  // An intermediate took `out`: copying a result that overlaps it would read
  // what the copy already wrote.
  if (may_overlap(r, out)) return py::make_tuple(ops::clone(r), false);
  return py::make_tuple(result, false);
}

void bind_inplace(py::module_& m) {
  m.def("into", &call_into);
  m.def("check_out_tangents", &check_out_tangents);
  m.attr("ops") = inplace_ops();
  m.def("binary_", [](int op, const Tensor& self, py::handle other, py::handle alpha,
                      bool mode_given, py::handle mode) {
    auto kind = static_cast<ops::InplaceOp>(op);
    auto al_opt = number_param(alpha);
    if (!al_opt) {
      throw TypeError(method_name(op) + "(): argument 'alpha' must be Number, not " +
                      type_name(alpha));
    }
    ops::DivMode dm{mode_given, mode.is_none() ? std::string() : mode.cast<std::string>()};
    if (py::isinstance<TensorImpl>(other))
      return ops::inplace_binary(kind, self, other.cast<Tensor>(), *al_opt, dm);
    if (ops::inplace_takes_number(kind)) {
      if (auto s = to_scalar(other)) return ops::inplace_binary(kind, self, *s, *al_opt, dm);
    }
    bad_inplace_operand(op, other);
  });
  // eq_, ne_, lt_, le_, gt_, ge_ (cmp: ops::Cmp's order).
  m.def("compare_", [](int cmp, const Tensor& self, py::handle other, const char* name) {
    const auto c = static_cast<ops::Cmp>(cmp);
    if (py::isinstance<TensorImpl>(other))
      return ops::inplace_compare(c, self, other.cast<Tensor>());
    if (auto s = to_scalar(other)) return ops::inplace_compare(c, self, *s);
    throw InvalidArguments{name,
                           {"Tensor other", "Number other"},
                           std::vector<py::object>{py::reinterpret_borrow<py::object>(other)}};
  });
  // The in-place forms of the fused and scan ops (NOTE [In-place forms of composed ops]).
  m.def("addcmul_", [](const Tensor& self, const Tensor& t1, const Tensor& t2, py::handle v) {
    return ops::inplace_addcmul(self, t1, t2, *to_scalar(v));
  });
  m.def("addcdiv_", [](const Tensor& self, const Tensor& t1, const Tensor& t2, py::handle v) {
    return ops::inplace_addcdiv(self, t1, t2, *to_scalar(v));
  });
  using Fused = Tensor (*)(const Tensor&, const Tensor&, const Tensor&, Scalar, Scalar);
  for (auto [name, fn] : {std::pair<const char*, Fused>{"addmm_", &ops::inplace_addmm},
                          {"baddbmm_", &ops::inplace_baddbmm},
                          {"addbmm_", &ops::inplace_addbmm},
                          {"addmv_", &ops::inplace_addmv},
                          {"addr_", &ops::inplace_addr}}) {
    m.def(name, [fn = fn](const Tensor& self, const Tensor& a, const Tensor& b, py::handle beta,
                          py::handle alpha) {
      return fn(self, a, b, *to_scalar(beta), *to_scalar(alpha));
    });
  }
  m.def("lerp_", [](const Tensor& self, const Tensor& end, py::handle w) {
    if (py::isinstance<TensorImpl>(w)) return ops::inplace_lerp(self, end, w.cast<Tensor>());
    auto s = to_scalar(w);
    GT_CHECK_TYPE(s.has_value(), "lerp_(): argument 'weight' (position 2) must be Number, not ",
                  type_name(w));
    return ops::inplace_lerp(self, end, *s);
  });
  m.def("logit_", [](const Tensor& self, std::optional<double> eps) {
    return ops::inplace_logit(self, eps);
  });
  m.def("mvlgamma_", [](const Tensor& self, int64_t p) { return ops::inplace_mvlgamma(self, p); });
  m.def("nan_to_num_", [](const Tensor& self, std::optional<double> nan,
                          std::optional<double> posinf, std::optional<double> neginf) {
    return ops::inplace_nan_to_num(self, nan, posinf, neginf);
  });
  m.def("scan_", [](const Tensor& self, int64_t dim, py::handle dtype, bool is_prod) {
    return ops::inplace_scan(self, dim, optional_dtype(dtype), is_prod);
  });
  m.def("scatter_reduce_", &ops::inplace_scatter_reduce);
  // Tensor.resize_ (Python parses the sizes and the memory format).
  m.def("resize_", [](const Tensor& self, const std::vector<int64_t>& sizes, int layout) {
    ops::resize_(self, DimVector(sizes.begin(), sizes.end()),
                 static_cast<ops::ResizeLayout>(layout));
    return self;
  });
  m.def("index_reduce_", &ops::inplace_index_reduce);
  m.def("renorm_", &ops::inplace_renorm);
  m.def("index_add_", [](const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                         py::handle alpha) {
    return ops::inplace_index_add_alpha(self, dim, index, source, *to_scalar(alpha));
  });
  m.def("index_copy_", &ops::inplace_index_copy);
  m.def("index_fill_", [](const Tensor& self, int64_t dim, const Tensor& index, py::handle v) {
    if (py::isinstance<TensorImpl>(v))
      return ops::inplace_index_fill(self, dim, index, v.cast<Tensor>());
    return ops::inplace_index_fill(self, dim, index, *to_scalar(v));
  });
  m.def("put_", &ops::inplace_put);
  m.def("masked_scatter_", &ops::inplace_masked_scatter);
  m.def("unary_", [](int op, const Tensor& self) {
    return ops::inplace_unary(static_cast<ops::InplaceOp>(op), self);
  });
  m.def("clamp_bound_", [](bool is_min, const Tensor& self, py::handle bound) {
    if (py::isinstance<TensorImpl>(bound))
      return ops::inplace_clamp_bound(is_min, self, bound.cast<Tensor>());
    if (auto s = to_scalar(bound)) return ops::inplace_clamp_bound(is_min, self, *s);
    std::string name = is_min ? "clamp_min_" : "clamp_max_";
    std::string arg = is_min ? "min" : "max";
    throw InvalidArguments{name,
                           {"Tensor " + arg, "Number " + arg},
                           std::vector<py::object>{py::reinterpret_borrow<py::object>(bound)}};
  });
  m.def("clamp_", [](const Tensor& self, py::handle lo, py::handle hi) {
    ClampBounds b = clamp_bounds("clamp_", lo, hi, true);
    if (b.tensors) {
      return ops::inplace_clamp(self, b.lo_t.defined() ? &b.lo_t : nullptr,
                                b.hi_t.defined() ? &b.hi_t : nullptr);
    }
    return ops::inplace_clamp(self, b.lo, b.hi);
  });
  m.def(
      "fill_",
      [](const Tensor& self, py::handle value, py::handle label) {
        std::optional<ag::ScopedWriteLabel> scope;
        if (!label.is_none()) scope.emplace(label.cast<std::string>(), true);
        if (py::isinstance<TensorImpl>(value)) return ops::inplace_fill(self, value.cast<Tensor>());
        bool setitem = !label.is_none();
        // x[i] = v unpacks a Python int as int64 (ValueError beyond), fill_ takes any Number.
        if (setitem && PyLong_Check(value.ptr()) && !PyBool_Check(value.ptr())) unpack_long(value);
        auto s = to_scalar(value);
        if (!s && setitem) {
          throw TypeError("can't assign a " + type_name(value) + " to a gradtrack." +
                          scalar_type_name(self.dtype()) + "Tensor");
        }
        if (!s) {
          throw InvalidArguments{
              "fill_",
              {"Tensor value", "Number value"},
              std::vector<py::object>{py::reinterpret_borrow<py::object>(value)}};
        }
        return ops::inplace_fill(self, *s);
      },
      py::arg("self"), py::arg("value"), py::arg("label") = py::none());
  m.def("setitem_", [](const Tensor& target, py::handle indices, const Tensor& value, int kind) {
    setitem_write(target, indices, value, kind);
  });
  m.def("zero_", [](const Tensor& self) { return ops::inplace_zero(self); });
  m.def(
      "copy_",
      [](const Tensor& self, py::handle src, py::handle label) {
        std::optional<ag::ScopedWriteLabel> scope;
        if (!label.is_none()) scope.emplace(label.cast<std::string>(), true);
        if (py::isinstance<TensorImpl>(src)) return ops::inplace_copy(self, src.cast<Tensor>());
        auto s = to_scalar(src);
        GT_CHECK_TYPE(s.has_value(), "copy_(): argument 'other' (position 1) must be Tensor, not ",
                      type_name(src));
        return ops::inplace_copy(self, ops::scalar_tensor(*s, s->default_dtype()));
      },
      py::arg("self"), py::arg("src"), py::arg("label") = py::none());
  m.def("normal_", [](const Tensor& self, double mean, double std) {
    return ops::inplace_normal(self, mean, std);
  });
  m.def("uniform_", [](const Tensor& self, double lo, double hi) {
    return ops::inplace_uniform(self, lo, hi);
  });
  m.def(
      "index_put_",
      [](const Tensor& self, py::list indices, py::handle values, bool acc, py::handle label) {
        std::optional<ag::ScopedWriteLabel> scope;
        if (!label.is_none()) scope.emplace(label.cast<std::string>(), true);
        ops::IndexList idx;
        for (py::handle h : indices) {
          if (h.is_none())
            idx.emplace_back(std::nullopt);
          else
            idx.emplace_back(h.cast<Tensor>());
        }
        return ops::inplace_index_put(self, idx, as_tensor_arg(values, self.dtype()), acc);
      },
      py::arg("self"), py::arg("indices"), py::arg("values"), py::arg("accumulate"),
      py::arg("label") = py::none());
  m.def("masked_fill_", [](const Tensor& self, const Tensor& mask, py::handle value) {
    if (py::isinstance<TensorImpl>(value)) {
      return ops::inplace_masked_fill(self, mask, value.cast<Tensor>());
    }
    auto s = to_scalar(value);
    if (!s) {
      throw InvalidArguments{
          "masked_fill_",
          {"Tensor mask, Tensor value", "Tensor mask, Number value"},
          std::vector<py::object>{py::cast(mask), py::reinterpret_borrow<py::object>(value)}};
    }
    return ops::inplace_masked_fill(self, mask, *s);
  });
  m.def("t_", [](const Tensor& self) { return ops::inplace_t(self); });
  m.def("transpose_", [](const Tensor& self, int64_t dim0, int64_t dim1) {
    return ops::inplace_transpose(self, dim0, dim1);
  });
  m.def("as_strided_", [](const Tensor& self, py::handle size, py::handle stride, py::handle off) {
    std::optional<int64_t> offset;
    if (!off.is_none()) offset = int_arg(off, "as_strided_", "storage_offset", 3);
    return ops::inplace_as_strided(self, int_list(size, "as_strided_", "size", 1),
                                   int_list(stride, "as_strided_", "stride", 2), offset);
  });
  m.def("scatter_add_",
        [](const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
          return ops::inplace_scatter_add(self, dim, index, src);
        });
  m.def("scatter_", [](const Tensor& self, int64_t dim, const Tensor& index, py::handle v) {
    return std::visit([&](const auto& s) { return ops::inplace_scatter(self, dim, index, s); },
                      scatter_source(v, "scatter_"));
  });
  m.def("unsqueeze_",
        [](const Tensor& self, int64_t d) { return ops::inplace_unsqueeze(self, d); });
  m.def("squeeze_", [](const Tensor& self, py::handle d) {
    return ops::inplace_squeeze(
        self,
        d.is_none() ? std::nullopt : std::optional<int64_t>(int_arg(d, "squeeze_", "dim", 1)));
  });
  // `x.data = y`: x now reads y's memory through its own counter, which y's
  // counter does not see (NOTE [Silent writes]).
  m.def("set_data", [](const Tensor& self, const Tensor& other) {
    // `x.data *= 2` sets x.data to the same memory it had: no swap.
    const bool same = self->storage() == other->storage() && self->offset() == other->offset() &&
                      self.sizes() == other.sizes() && self.strides() == other.strides() &&
                      self.dtype() == other.dtype();
    if (!same) {
      // the old memory's log says where it was swapped away, for the error
      static const uint16_t label = ag::intern_label(".data =");
      silent_writes::note_write(*self->storage(), label, ag::current_location(), 0);
    }
    self->set_data(*other.get());
    if (!same) silent_writes::note_alias(other->storage(), silent_writes::kData);
  });
  // out='s resize (as PyTorch's resize_output, then TensorIterator's layout for
  // a resized output): `like`'s shape, and its strides when it is dense (an
  // elementwise result follows its inputs' memory order), else contiguous
  // ones. Kept in out's storage when it holds them past out's offset (a view
  // of a larger tensor then writes into it), else in that storage grown as
  // resize_ grows it, so that views of out made before see the result, as
  // torch's; out keeps its version counter.
  m.def("resize_out", [](const Tensor& out, const Tensor& like) {
    const DimVector& sizes = like.sizes();
    const DimVector strides =
        is_non_overlapping_and_dense(like) ? like.strides() : contiguous_strides(sizes);
    const size_t need = size_t(out->offset() + like.numel()) * itemsize(out.dtype());
    if (need > out->storage()->nbytes()) out->storage()->grow(need);
    out->set_data(*alias_with_geometry(out, sizes, strides, out->offset()).get());
  });
  // A label for the writes of a Python-level operation (SGD.step):
  // `prev = _swap_write_label("SGD.step")` ... `_swap_write_label(prev)`.
  m.def("swap_write_label", [](py::handle label) -> int {
    uint16_t id = label.is_none()                   ? 0
                  : py::isinstance<py::int_>(label) ? label.cast<uint16_t>()
                                                    : ag::intern_label(label.cast<std::string>());
    return ag::swap_write_label(id);
  });
}

}  // namespace

void init_inplace(py::module_& m) {
  py::module_ sub = m.def_submodule("_inplace");
  bind_inplace(sub);
}

}  // namespace gradtrack::python
