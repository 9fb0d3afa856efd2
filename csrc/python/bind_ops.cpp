// Module-level functions: factories, the raw in-place entries used by
// python/gradtrack/_inplace.py, nn.functional kernels, runtime settings.
#include <pybind11/numpy.h>

#include <climits>

#include "autograd/grad_mode.h"
#include "autograd/provenance.h"
#include "autograd/variable.h"
#include "kernels/kernels.h"
#include "kernels/parallel.h"
#include "kernels/simd.h"
#include "python/arg_errors.h"
#include "python/common.h"

namespace gradtrack::python {

namespace {

namespace ag = autograd;

// torch.zeros(..., requires_grad=True) and friends.
Tensor finish_factory(Tensor t, bool requires_grad) {
  if (requires_grad) {
    GT_CHECK(is_floating(t.dtype()),
             "Only Tensors of floating point and complex dtype can require gradients");
    ag::set_requires_grad(t, true);
  }
  return t;
}

// full_like's value: a number that `dtype` can hold.
Scalar fill_value(py::handle value, ScalarType dtype) {
  auto v = to_scalar(value);
  GT_CHECK_TYPE(v.has_value(), "full_like(): argument 'fill_value' (position 2) must be Number, not ",
                type_name(value));
  check_fits(*v, dtype);
  return *v;
}

ScalarType dtype_or(py::handle dt, ScalarType fallback) {
  auto d = optional_dtype(dt);
  return d ? *d : fallback;
}

template <typename F>
void factory(py::module_& m, const char* name, F make) {
  m.def(name, [make, name](const py::args& size, py::handle dtype, bool rg, py::handle, py::handle) {
    GT_CHECK_TYPE(size.size() > 0, name, "() missing 1 required positional arguments: \"size\"");
    DimVector sizes = parse_sizes(size, name);
    ScalarType dt;
    try {
      dt = dtype_or(dtype, ScalarType::Float32);
    } catch (const TypeError& e) {
      throw TypeError(std::string(name) + "(): " + e.what());
    }
    return finish_factory(make(sizes, dt), rg);
  }, py::kw_only(), py::arg("dtype") = py::none(), py::arg("requires_grad") = false,
     py::arg("device") = py::none(), py::arg("out") = py::none());
}

void bind_factories(py::module_& m) {
  factory(m, "zeros", [](const DimVector& s, ScalarType dt) {
    for (int64_t d : s) GT_CHECK(d >= 0, "zeros: Dimension size must be non-negative.");
    return ops::zeros(s, dt);
  });
  factory(m, "ones", [](const DimVector& s, ScalarType dt) { return ops::ones(s, dt); });
  factory(m, "empty", [](const DimVector& s, ScalarType dt) { return empty(s, dt); });
  factory(m, "rand", [](const DimVector& s, ScalarType dt) { return ops::rand(s, dt); });
  factory(m, "randn", [](const DimVector& s, ScalarType dt) { return ops::randn(s, dt); });
  m.def("full", [](py::handle size, py::handle value, py::handle dtype, bool rg) {
    DimVector sizes = int_list(size, "full", "size", 1);
    auto v = to_scalar(value);
    GT_CHECK_TYPE(v.has_value(), "full(): argument 'fill_value' (position 2) must be Number, not ",
                  type_name(value));
    ScalarType dt = dtype_or(dtype, v->default_dtype());
    check_fits(*v, dt);
    return finish_factory(ops::full(sizes, *v, dt), rg);
  }, py::arg("size"), py::arg("fill_value"), py::kw_only(), py::arg("dtype") = py::none(),
     py::arg("requires_grad") = false);
  m.def("tensor", [](py::handle data, py::handle dtype, bool rg, py::handle) {
    return finish_factory(tensor_from_data(data, optional_dtype(dtype)), rg);
  }, py::arg("data"), py::kw_only(), py::arg("dtype") = py::none(),
     py::arg("requires_grad") = false, py::arg("device") = py::none());
  m.def("from_numpy", [](py::handle a) { return tensor_from_numpy(a); }, py::arg("ndarray"));
  m.def("arange", [](const py::args& args, py::handle dtype, bool rg) {
    GT_CHECK_TYPE(args.size() >= 1 && args.size() <= 3, "arange() received an invalid combination of arguments");
    std::vector<Scalar> v;
    for (py::handle h : args) {
      auto s = to_scalar(h);
      if (!s && py::isinstance<TensorImpl>(h)) {
        Tensor t = h.cast<Tensor>();
        s = is_floating(t.dtype()) ? Scalar(kernels::load<double>(ops::to_dtype(t, ScalarType::Float64).raw()))
                                   : Scalar(kernels::load<int64_t>(ops::to_dtype(t, ScalarType::Int64).raw()));
      }
      GT_CHECK_TYPE(s.has_value(), "arange(): argument 'end' must be Number");
      v.push_back(*s);
    }
    Scalar start = v.size() > 1 ? v[0] : Scalar(int64_t(0));
    Scalar end = v.size() > 1 ? v[1] : v[0];
    Scalar step = v.size() > 2 ? v[2] : Scalar(int64_t(1));
    return finish_factory(ops::arange(start, end, step, optional_dtype(dtype)), rg);
  }, py::kw_only(), py::arg("dtype") = py::none(), py::arg("requires_grad") = false);
  m.def("linspace", [](double start, double end, int64_t steps, py::handle dtype, bool rg) {
    return finish_factory(ops::linspace(start, end, steps, dtype_or(dtype, ScalarType::Float32)), rg);
  }, py::arg("start"), py::arg("end"), py::arg("steps"), py::kw_only(), py::arg("dtype") = py::none(),
     py::arg("requires_grad") = false);
  m.def("eye", [](int64_t n, py::handle mm, py::handle dtype, bool rg) {
    int64_t cols = mm.is_none() ? n : int_arg(mm, "eye", "m", 2);
    return finish_factory(ops::eye(n, cols, dtype_or(dtype, ScalarType::Float32)), rg);
  }, py::arg("n"), py::arg("m") = py::none(), py::kw_only(), py::arg("dtype") = py::none(),
     py::arg("requires_grad") = false);
  m.def("randint", [](const py::args& args, py::handle dtype, bool rg) {
    GT_CHECK_TYPE(args.size() == 2 || args.size() == 3,
                  "randint() received an invalid combination of arguments");
    int n = static_cast<int>(args.size());
    int64_t low = n == 3 ? int_arg(args[0], "randint", "low", 1) : 0;
    int64_t high = int_arg(args[n - 2], "randint", "high", n - 1);
    DimVector size = int_list(args[n - 1], "randint", "size", n);
    return finish_factory(ops::randint(low, high, size, dtype_or(dtype, ScalarType::Int64)), rg);
  }, py::kw_only(), py::arg("dtype") = py::none(), py::arg("requires_grad") = false);
  m.def("randperm", [](int64_t n, py::handle dtype) {
    return ops::randperm(n, dtype_or(dtype, ScalarType::Int64));
  }, py::arg("n"), py::kw_only(), py::arg("dtype") = py::none());
  m.def("_like", [](const std::string& kind, const Tensor& a, py::handle dtype, bool rg, py::handle fill) {
    ScalarType dt = dtype_or(dtype, a.dtype());
    // The new tensor keeps `a`'s memory layout (memory_format=preserve).
    Tensor t = ops::empty_like(a, dt);
    if (kind == "zeros") kernels::fill(t, Scalar(0));
    else if (kind == "ones") kernels::fill(t, Scalar(1));
    else if (kind == "full") kernels::fill(t, fill_value(fill, dt));
    else if (kind == "rand") ops::inplace_uniform(t, 0, 1);
    else if (kind == "randn") ops::inplace_normal(t, 0, 1);
    else if (kind != "empty") throw ValueError("unknown factory " + kind);
    if (kind == "rand" || kind == "randn") t->set_version_counter(std::make_shared<VersionCounter>());
    return finish_factory(t, rg);
  });
  m.def("manual_seed", [](int64_t seed) { default_generator().manual_seed(uint64_t(seed)); });
  m.def("initial_seed", [] { return default_generator().initial_seed(); });
  // torch.broadcast_tensors' shape rule (infer_size), for the Python layer.
  m.def("_broadcast_shape", [](const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
    DimVector out = broadcast_shapes(DimVector(a.begin(), a.end()), DimVector(b.begin(), b.end()));
    return std::vector<int64_t>(out.begin(), out.end());
  });
  m.def("_get_rng_state", [] {
    auto& g = default_generator();
    return py::make_tuple(g.seed(), g.offset());
  });
  m.def("_set_rng_state", [](uint64_t seed, uint64_t offset) {
    default_generator().set_state(seed, offset);
  });
}

// The op list's in-place variants for python/gradtrack/_inplace.py, which makes
// one method of each: {name: (id, number of operands besides self)}.
py::dict inplace_ops() {
  py::dict d;
  int id = 0;
#define GT_INPLACE_ENTRY(K, name, ...) d[#name] = py::make_tuple(id++, arity);
  int arity = 0;
  GT_UNARY_OPS(GT_INPLACE_ENTRY)
  arity = 1;
  GT_BINARY_OPS(GT_INPLACE_ENTRY)
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
    throw InvalidArguments{name, {"Tensor exponent", "Number exponent"},
                           std::vector<py::object>{py::reinterpret_borrow<py::object>(other)}};
  }
  throw TypeError(name + "(): argument 'other' (position 1) must be Tensor, not " + type_name(other));
}

void bind_inplace(py::module_& m) {
  m.attr("_inplace_ops") = inplace_ops();
  m.def("_binary_", [](int op, const Tensor& self, py::handle other, py::handle alpha,
                       bool mode_given, py::handle mode) {
    auto kind = static_cast<ops::InplaceOp>(op);
    auto al_opt = to_scalar(alpha);
    if (!al_opt) {
      throw TypeError(method_name(op) + "(): argument 'alpha' must be Number, not " + type_name(alpha));
    }
    ops::DivMode dm{mode_given, mode.is_none() ? std::string() : mode.cast<std::string>()};
    if (py::isinstance<TensorImpl>(other)) return ops::inplace_binary(kind, self, other.cast<Tensor>(), *al_opt, dm);
    if (ops::inplace_takes_number(kind)) {
      if (auto s = to_scalar(other)) return ops::inplace_binary(kind, self, *s, *al_opt, dm);
    }
    bad_inplace_operand(op, other);
  });
  m.def("_unary_", [](int op, const Tensor& self) {
    return ops::inplace_unary(static_cast<ops::InplaceOp>(op), self);
  });
  m.def("_clamp_bound_", [](bool is_min, const Tensor& self, py::handle bound) {
    if (py::isinstance<TensorImpl>(bound)) return ops::inplace_clamp_bound(is_min, self, bound.cast<Tensor>());
    if (auto s = to_scalar(bound)) return ops::inplace_clamp_bound(is_min, self, *s);
    std::string name = is_min ? "clamp_min_" : "clamp_max_";
    std::string arg = is_min ? "min" : "max";
    throw InvalidArguments{name, {"Tensor " + arg, "Number " + arg},
                           std::vector<py::object>{py::reinterpret_borrow<py::object>(bound)}};
  });
  m.def("_clamp_", [](const Tensor& self, py::handle lo, py::handle hi) {
    ClampBounds b = clamp_bounds("clamp_", lo, hi, true);
    if (b.tensors) {
      return ops::inplace_clamp(self, b.lo_t.defined() ? &b.lo_t : nullptr, b.hi_t.defined() ? &b.hi_t : nullptr);
    }
    return ops::inplace_clamp(self, b.lo, b.hi);
  });
  m.def("_fill_", [](const Tensor& self, py::handle value, py::handle label) {
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
      throw InvalidArguments{"fill_", {"Tensor value", "Number value"},
                             std::vector<py::object>{py::reinterpret_borrow<py::object>(value)}};
    }
    return ops::inplace_fill(self, *s);
  }, py::arg("self"), py::arg("value"), py::arg("label") = py::none());
  m.def("_setitem_", [](const Tensor& target, py::handle indices, const Tensor& value, int kind) {
    setitem_write(target, indices, value, kind);
  });
  m.def("_zero_", [](const Tensor& self) { return ops::inplace_zero(self); });
  m.def("_copy_", [](const Tensor& self, py::handle src, py::handle label) {
    std::optional<ag::ScopedWriteLabel> scope;
    if (!label.is_none()) scope.emplace(label.cast<std::string>(), true);
    if (py::isinstance<TensorImpl>(src)) return ops::inplace_copy(self, src.cast<Tensor>());
    auto s = to_scalar(src);
    GT_CHECK_TYPE(s.has_value(), "copy_(): argument 'other' (position 1) must be Tensor, not ", type_name(src));
    return ops::inplace_copy(self, ops::scalar_tensor(*s, s->default_dtype()));
  }, py::arg("self"), py::arg("src"), py::arg("label") = py::none());
  m.def("_normal_", [](const Tensor& self, double mean, double std) {
    return ops::inplace_normal(self, mean, std);
  });
  m.def("_uniform_", [](const Tensor& self, double lo, double hi) {
    return ops::inplace_uniform(self, lo, hi);
  });
  m.def("_index_put_", [](const Tensor& self, py::list indices, py::handle values, bool acc,
                          py::handle label) {
    std::optional<ag::ScopedWriteLabel> scope;
    if (!label.is_none()) scope.emplace(label.cast<std::string>(), true);
    ops::IndexList idx;
    for (py::handle h : indices) {
      if (h.is_none()) idx.emplace_back(std::nullopt);
      else idx.emplace_back(h.cast<Tensor>());
    }
    return ops::inplace_index_put(self, idx, as_tensor_arg(values, self.dtype()), acc);
  }, py::arg("self"), py::arg("indices"), py::arg("values"), py::arg("accumulate"),
     py::arg("label") = py::none());
  m.def("_masked_fill_", [](const Tensor& self, const Tensor& mask, py::handle value) {
    if (py::isinstance<TensorImpl>(value)) {
      return ops::inplace_masked_fill(self, mask, value.cast<Tensor>());
    }
    auto s = to_scalar(value);
    if (!s) {
      throw InvalidArguments{"masked_fill_", {"Tensor mask, Tensor value", "Tensor mask, Number value"},
                             std::vector<py::object>{py::cast(mask), py::reinterpret_borrow<py::object>(value)}};
    }
    return ops::inplace_masked_fill(self, mask, *s);
  });
  m.def("_t_", [](const Tensor& self) { return ops::inplace_t(self); });
  m.def("_scatter_add_", [](const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
    return ops::inplace_scatter_add(self, dim, index, src);
  });
  m.def("_scatter_", [](const Tensor& self, int64_t dim, const Tensor& index, py::handle v) {
    return std::visit([&](const auto& s) { return ops::inplace_scatter(self, dim, index, s); },
                      scatter_source(v, "scatter_"));
  });
  m.def("_unsqueeze_", [](const Tensor& self, int64_t d) { return ops::inplace_unsqueeze(self, d); });
  m.def("_squeeze_", [](const Tensor& self, py::handle d) {
    return ops::inplace_squeeze(self, d.is_none() ? std::nullopt : std::optional<int64_t>(int_arg(d, "squeeze_", "dim", 1)));
  });
  m.def("_set_data", [](const Tensor& self, const Tensor& other) { self->set_data(*other.get()); });
  // A label for the writes of a Python-level operation (SGD.step):
  // `prev = _swap_write_label("SGD.step")` ... `_swap_write_label(prev)`.
  m.def("_swap_write_label", [](py::handle label) -> int {
    uint16_t id = label.is_none() ? 0
                  : py::isinstance<py::int_>(label) ? label.cast<uint16_t>()
                                                    : ag::intern_label(label.cast<std::string>());
    return ag::swap_write_label(id);
  });
}

void bind_nn(py::module_& m) {
  m.def("_nll_loss", [](const Tensor& x, const Tensor& t, py::handle w, int64_t red, int64_t ignore) {
    Tensor wt = w.is_none() ? Tensor() : w.cast<Tensor>();
    return ops::nll_loss(x, t, wt.defined() ? &wt : nullptr, red, ignore);
  });
  m.def("_mse_loss", [](const Tensor& a, const Tensor& t, int64_t red) { return ops::mse_loss(a, t, red); });
  m.def("_linear", [](const Tensor& x, const Tensor& w, py::handle b) {
    if (b.is_none()) return ops::linear(x, w, nullptr);
    Tensor bias = b.cast<Tensor>();
    return ops::linear(x, w, &bias);
  });
  m.def("_sgd_update", [](const Tensor& p, const Tensor& g, py::handle buf, double lr, double momentum,
                          double dampening, double wd, bool nesterov, bool maximize, bool first) {
    Tensor b = buf.is_none() ? Tensor() : buf.cast<Tensor>();
    ops::sgd_update(p, g, b.defined() ? &b : nullptr, lr, momentum, dampening, wd, nesterov,
                    maximize, first);
  });
}

void bind_runtime(py::module_& m) {
  m.def("get_num_threads", [] { return get_num_threads(); });
  m.def("set_num_threads", [](py::handle h) {
    // PyTorch's own checks and words: an int (not a bool) that fits in a C
    // int and is positive; 0 or -1 used to be taken as 1 silently.
    PyObject* o = h.ptr();
    if (!PyLong_Check(o) || PyBool_Check(o)) {
      throw Error("set_num_threads expects an int, but got " + type_name(h));
    }
    int overflow = 0;
    const long v = PyLong_AsLongAndOverflow(o, &overflow);
    if (overflow != 0 || v > INT_MAX || v < INT_MIN) throw ValueError("Overflow when unpacking long");
    GT_CHECK(v > 0, "set_num_threads expects a positive integer");
    set_num_threads(static_cast<int>(v));
  });
  m.def("_blas_core", [] { return std::string(kernels::blas_init()); });
  m.def("_simd_level", [] { return std::string(kernels::simd::level()); });
  m.def("_allocator_stats", [] {
    AllocatorStats s = allocator_stats();
    py::dict d;
    d["cached_bytes"] = s.cached_bytes;
    d["cached_blocks"] = s.cached_blocks;
    d["hits"] = s.hits;
    d["misses"] = s.misses;
    return d;
  });
  m.def("_empty_cache", [] { allocator_empty_cache(); });
}

}  // namespace

void init_ops(py::module_& m) {
  bind_factories(m);
  bind_inplace(m);
  bind_nn(m);
  bind_runtime(m);
}

}  // namespace gradtrack::python
