// Tensor math: methods, the same functions on the module, and operators.
#include <pybind11/numpy.h>

#include <algorithm>

#include "autograd/grad_mode.h"
#include "autograd/variable.h"
#include "python/arg_errors.h"
#include "python/common.h"

namespace gradtrack::python {

namespace {

using Cls = py::class_<TensorImpl, std::shared_ptr<TensorImpl>>;
using ops::Cmp;
using ops::Logic;

py::object not_implemented() { return py::reinterpret_borrow<py::object>(Py_NotImplemented); }

bool is_array_like(py::handle h) { return py::hasattr(h, "__array_interface__"); }

// Dispatches `a op b` on b's type; NotImplemented lets Python try b's side.
template <typename TT, typename TS>
py::object binop(const Tensor& a, py::handle b, const TT& tt, const TS& ts) {
  if (is_tensor(b)) return py::cast(tt(a, b.cast<Tensor>()));
  if (auto s = to_scalar(b)) return py::cast(ts(a, *s));
  if (is_array_like(b)) return py::cast(tt(a, tensor_from_data(b, std::nullopt)));
  return not_implemented();
}

// Module functions take `input` first, so their `other` is argument 2 where
// the method's is argument 1 (PyTorch's messages number them that way).
thread_local int t_arg_offset = 0;
struct ArgOffset {
  ArgOffset() { t_arg_offset = 1; }
  ~ArgOffset() { t_arg_offset = 0; }
};

// Like binop, but for named methods: anything but a tensor or a number is a
// TypeError (PyTorch's methods take no lists or arrays, operators do).
// `number_form` names the argument of PyTorch's (Number ...) overload, for
// the ops that have one (pow, eq, ...); the others wrap numbers as tensors.
template <typename TT, typename TS>
Tensor method_binop(const char* name, const Tensor& a, py::handle b, const TT& tt, const TS& ts,
                    const char* number_form = nullptr) {
  if (is_tensor(b)) return tt(a, b.cast<Tensor>());
  if (auto s = to_scalar(b)) return ts(a, *s);
  if (number_form) {
    throw InvalidArguments{
        name,
        {std::string("Tensor ") + number_form, std::string("Number ") + number_form},
        std::nullopt};
  }
  throw TypeError(str_cat(name, "(): argument 'other' (position ", 1 + t_arg_offset,
                          ") must be Tensor, not ", type_name(b)));
}

// Wraps a lambda so that, as a module function, it numbers arguments from `input`.
template <typename T>
struct FunctionForm : FunctionForm<decltype(&T::operator())> {};
template <typename C, typename R, typename... A>
struct FunctionForm<R (C::*)(A...) const> {
  template <typename F>
  static auto wrap(F f) {
    return [f](A... args) -> R {
      ArgOffset offset;
      return f(std::forward<A>(args)...);
    };
  }
};

// A keyword-only `Number` argument (alpha, beta) of `fn`.
Scalar number_arg(py::handle h, const char* fn, const char* what) {
  auto s = to_scalar(h);
  GT_CHECK_TYPE(s.has_value(), fn, "(): argument '", what, "' must be Number, not ", type_name(h));
  return *s;
}

Scalar scalar_arg(py::handle h, const char* what) {
  auto s = to_scalar(h);
  GT_CHECK_TYPE(s.has_value(), what, " must be a number");
  return *s;
}

std::string rounding(py::handle h) { return h.is_none() ? std::string() : h.cast<std::string>(); }

// A default that tells "argument not given" from an explicit None.
py::handle unset_marker() {
  static py::handle marker = py::object(py::module_::import("builtins").attr("object")()).release();
  return marker;
}

// gradtrack.return_types.<name>((values, indices)), as max(dim) returns it.
py::object named_pair(const char* name, const Tensor& values, const Tensor& indices) {
  py::object types = py::module_::import("gradtrack.return_types");
  return types.attr(name)(py::make_tuple(values, indices));
}

py::tuple as_tuple(const std::vector<Tensor>& ts) {
  py::tuple t(ts.size());
  for (size_t i = 0; i < ts.size(); ++i) t[i] = py::cast(ts[i]);
  return t;
}

DimVector dims_arg(py::handle dim, const char* fn) {
  if (dim.is_none()) return {};
  return int_list(dim, fn, "dim", 1);
}

// sum() and mean(): PyTorch's (*, dtype) and (tuple of ints dim, ...) signatures.
DimVector reduce_dims(py::handle dim, const char* fn) {
  try {
    return dims_arg(dim, fn);
  } catch (const TypeError&) {
    throw InvalidArguments{
        fn,
        {"*, gradtrack.dtype dtype = None",
         "tuple of ints dim, bool keepdim = False, *, gradtrack.dtype dtype = None"},
        std::nullopt};
  }
}

// Registers `fn` as a method and as a module function taking `input`.
template <typename F, typename... Extra>
void both(Cls& cls, py::module_& m, const char* name, F&& fn, const Extra&... extra) {
  cls.def(name, fn, extra...);
  m.def(name, FunctionForm<std::decay_t<F>>::wrap(fn), py::arg("input"), extra...);
}

void bind_arith(Cls& cls, py::module_& m) {
  both(
      cls, m, "add",
      [](const Tensor& a, py::handle b, py::handle alpha) {
        Scalar al = number_arg(alpha, "add", "alpha");
        return method_binop(
            "add", a, b, [&](const Tensor& x, const Tensor& y) { return ops::add(x, y, al); },
            [&](const Tensor& x, Scalar y) { return ops::add(x, y, al); });
      },
      py::arg("other"), py::kw_only(), py::arg("alpha") = 1);
  both(
      cls, m, "sub",
      [](const Tensor& a, py::handle b, py::handle alpha) {
        Scalar al = number_arg(alpha, "sub", "alpha");
        return method_binop(
            "sub", a, b, [&](const Tensor& x, const Tensor& y) { return ops::sub(x, y, al); },
            [&](const Tensor& x, Scalar y) { return ops::sub(x, y, al); });
      },
      py::arg("other"), py::kw_only(), py::arg("alpha") = 1);
  m.def(
      "rsub",
      [](const Tensor& a, py::handle b, py::handle alpha) {
        Scalar al = number_arg(alpha, "rsub", "alpha");
        return method_binop(
            "rsub", a, b, [&](const Tensor& x, const Tensor& y) { return ops::rsub(x, y, al); },
            [&](const Tensor& x, Scalar y) { return ops::rsub(x, y, al); });
      },
      py::arg("input"), py::arg("other"), py::kw_only(), py::arg("alpha") = 1);
  both(
      cls, m, "mul",
      [](const Tensor& a, py::handle b) {
        return method_binop(
            "mul", a, b, [](const Tensor& x, const Tensor& y) { return ops::mul(x, y); },
            [](const Tensor& x, Scalar y) { return ops::mul(x, y); });
      },
      py::arg("other"));
  // An explicit rounding_mode (None included) selects PyTorch's *_mode overload.
  both(
      cls, m, "div",
      [](const Tensor& a, py::handle b, py::handle mode) {
        bool given = !mode.is(unset_marker());
        std::string r = given ? rounding(mode) : std::string();
        return method_binop(
            "div", a, b,
            [&](const Tensor& x, const Tensor& y) {
              return given ? ops::div_mode(x, y, r) : ops::div(x, y, r);
            },
            [&](const Tensor& x, Scalar y) {
              return given ? ops::div_mode(x, y, r) : ops::div(x, y, r);
            });
      },
      py::arg("other"), py::kw_only(), py::arg("rounding_mode") = unset_marker());
  both(
      cls, m, "floor_divide",
      [](const Tensor& a, py::handle b) {
        return method_binop(
            "floor_divide", a, b,
            [](const Tensor& x, const Tensor& y) { return ops::floor_divide(x, y); },
            [](const Tensor& x, Scalar y) { return ops::floor_divide(x, y); });
      },
      py::arg("other"));
  both(
      cls, m, "remainder",
      [](const Tensor& a, py::handle b) {
        return method_binop(
            "remainder", a, b,
            [](const Tensor& x, const Tensor& y) { return ops::remainder(x, y); },
            [](const Tensor& x, Scalar y) { return ops::remainder(x, y); });
      },
      py::arg("other"));
  both(
      cls, m, "pow",
      [](const Tensor& a, py::handle b) {
        return method_binop(
            "pow", a, b, [](const Tensor& x, const Tensor& y) { return ops::pow(x, y); },
            [](const Tensor& x, Scalar y) { return ops::pow(x, y); }, "exponent");
      },
      py::arg("exponent"));
  both(
      cls, m, "fmod",
      [](const Tensor& a, py::handle b) {
        return method_binop(
            "fmod", a, b, [](const Tensor& x, const Tensor& y) { return ops::fmod(x, y); },
            [](const Tensor& x, Scalar y) { return ops::fmod(x, y); });
      },
      py::arg("other"));
  both(
      cls, m, "clamp_min",
      [](const Tensor& a, py::handle b) {
        return method_binop(
            "clamp_min", a, b,
            [](const Tensor& x, const Tensor& y) { return ops::clamp_min(x, y); },
            [](const Tensor& x, Scalar y) { return ops::clamp_min(x, y); }, "min");
      },
      py::arg("min"));
  both(
      cls, m, "clamp_max",
      [](const Tensor& a, py::handle b) {
        return method_binop(
            "clamp_max", a, b,
            [](const Tensor& x, const Tensor& y) { return ops::clamp_max(x, y); },
            [](const Tensor& x, Scalar y) { return ops::clamp_max(x, y); }, "max");
      },
      py::arg("max"));

  // The op list's binary rows whose function is generated (NOTE [One declaration per op]).
#define GT_BIND_BINARY(K, name, ...)                                                   \
  both(                                                                                \
      cls, m, #name, [](const Tensor& a, const Tensor& b) { return ops::name(a, b); }, \
      py::arg("other"));
  GT_BINARY_OPS(GT_BIND_BINARY)
#undef GT_BIND_BINARY
  both(
      cls, m, "clamp",
      [](const Tensor& a, py::handle lo, py::handle hi) -> Tensor {
        ClampBounds b = clamp_bounds("clamp", lo, hi, false);
        if (b.tensors) {
          return ops::clamp(a, b.lo_t.defined() ? &b.lo_t : nullptr,
                            b.hi_t.defined() ? &b.hi_t : nullptr);
        }
        return ops::clamp(a, b.lo, b.hi);
      },
      py::arg("min") = py::none(), py::arg("max") = py::none());
  m.def(
      "pow", [](py::handle base, const Tensor& e) { return ops::pow(scalar_arg(base, "base"), e); },
      py::arg("self"), py::arg("exponent"));
  m.def(
      "where",
      [](const Tensor& cond, py::handle a, py::handle b) {
        Tensor x = is_tensor(a) ? a.cast<Tensor>() : Tensor(),
               y = is_tensor(b) ? b.cast<Tensor>() : Tensor();
        // A Python number takes the other operand's dtype class, as a wrapped number does.
        if (!x.defined() && !y.defined()) {
          x = tensor_from_data(a, std::nullopt);
          y = tensor_from_data(b, std::nullopt);
        } else if (!x.defined()) {
          Scalar s = scalar_arg(a, "input");
          x = ops::scalar_tensor(s, ops::result_type(y, s));
        } else if (!y.defined()) {
          Scalar s = scalar_arg(b, "other");
          y = ops::scalar_tensor(s, ops::result_type(x, s));
        }
        return ops::where(cond, x, y);
      },
      py::arg("condition"), py::arg("input"), py::arg("other"));
}

#define GT_UNARY(name) both(cls, m, #name, [](const Tensor& a) { return ops::name(a); })

void bind_unary(Cls& cls, py::module_& m) {
  // The op list's unary ops (NOTE [One declaration per op]), then the other unary ones.
#define GT_BIND_UNARY(K, name, ...) GT_UNARY(name);
  GT_UNARY_OPS(GT_BIND_UNARY)
#undef GT_BIND_UNARY
  both(
      cls, m, "masked_select",
      [](const Tensor& a, const Tensor& mask) { return ops::masked_select(a, mask); },
      py::arg("mask"));
  both(
      cls, m, "amin",
      [](const Tensor& a, py::handle dim, bool keepdim) {
        return ops::amin(a, dims_arg(dim, "amin"), keepdim);
      },
      py::arg("dim") = py::tuple(), py::arg("keepdim") = false);
  GT_UNARY(t);
  GT_UNARY(clone);
}

void bind_compare(Cls& cls, py::module_& m) {
  auto cmp = [&](const char* name, Cmp op) {
    both(
        cls, m, name,
        [op, name](const Tensor& a, py::handle b) {
          return method_binop(
              name, a, b, [op](const Tensor& x, const Tensor& y) { return ops::compare(op, x, y); },
              [op](const Tensor& x, Scalar y) { return ops::compare(op, x, y); }, "other");
        },
        py::arg("other"));
  };
  cmp("eq", Cmp::Eq);
  cmp("ne", Cmp::Ne);
  cmp("lt", Cmp::Lt);
  cmp("le", Cmp::Le);
  cmp("gt", Cmp::Gt);
  cmp("ge", Cmp::Ge);
  auto logic = [&](const char* name, Logic op) {
    both(
        cls, m, name, [op](const Tensor& a, const Tensor& b) { return ops::logical(op, a, b); },
        py::arg("other"));
  };
  auto bitwise = [&](const char* name, Logic op) {
    both(
        cls, m, name,
        [op, name](const Tensor& a, py::handle b) {
          return method_binop(
              name, a, b, [op](const Tensor& x, const Tensor& y) { return ops::bitwise(op, x, y); },
              [op](const Tensor& x, Scalar y) { return ops::bitwise(op, x, y); });
        },
        py::arg("other"));
  };
  bitwise("bitwise_and", Logic::And);
  bitwise("bitwise_or", Logic::Or);
  bitwise("bitwise_xor", Logic::Xor);
  logic("logical_and", Logic::And);
  logic("logical_or", Logic::Or);
  logic("logical_xor", Logic::Xor);
  m.def(
      "equal",
      [](const Tensor& a, const Tensor& b) {
        if (a.sizes() != b.sizes()) return false;
        Tensor eq = ops::all(ops::compare(Cmp::Eq, a, b), std::nullopt, false);
        return *eq.data<bool>();
      },
      py::arg("input"), py::arg("other"));
}

std::optional<int64_t> opt_dim(py::handle h, const char* fn, const char* name = "dim",
                               int position = 1) {
  if (h.is_none()) return std::nullopt;
  return int_arg(h, fn, name, position);
}

void bind_reductions(Cls& cls, py::module_& m) {
  both(
      cls, m, "sum",
      [](const Tensor& a, py::handle dim, bool keepdim, py::handle dtype) {
        return ops::sum(a, reduce_dims(dim, "sum"), keepdim, optional_dtype(dtype), !dim.is_none());
      },
      py::arg("dim") = py::none(), py::arg("keepdim") = false, py::kw_only(),
      py::arg("dtype") = py::none());
  both(
      cls, m, "mean",
      [](const Tensor& a, py::handle dim, bool keepdim, py::handle dtype) {
        return ops::mean(a, reduce_dims(dim, "mean"), keepdim, optional_dtype(dtype),
                         !dim.is_none());
      },
      py::arg("dim") = py::none(), py::arg("keepdim") = false, py::kw_only(),
      py::arg("dtype") = py::none());
  auto extreme = [](bool is_max) {
    return [is_max](const Tensor& a, py::handle dim, bool keepdim) -> py::object {
      if (dim.is_none()) return py::cast(is_max ? ops::max(a) : ops::min(a));
      if (is_tensor(dim))
        return py::cast(is_max ? ops::maximum(a, dim.cast<Tensor>())
                               : ops::minimum(a, dim.cast<Tensor>()));
      int64_t d = int_arg(dim, is_max ? "max" : "min", "dim", 1);
      auto r = is_max ? ops::max(a, d, keepdim) : ops::min(a, d, keepdim);
      return named_pair(is_max ? "max" : "min", r.first, r.second);
    };
  };
  // Bound as the methods themselves: a Python wrapper costed a.max() a third
  // of its time at 1K elements (issue 21).
  cls.def("max", extreme(true), py::arg("dim") = py::none(), py::arg("keepdim") = false);
  cls.def("min", extreme(false), py::arg("dim") = py::none(), py::arg("keepdim") = false);
  both(
      cls, m, "argmax",
      [](const Tensor& a, py::handle dim, bool keepdim) {
        return ops::argmax(a, opt_dim(dim, "argmax"), keepdim);
      },
      py::arg("dim") = py::none(), py::arg("keepdim") = false);
  both(
      cls, m, "argmin",
      [](const Tensor& a, py::handle dim, bool keepdim) {
        return ops::argmin(a, opt_dim(dim, "argmin"), keepdim);
      },
      py::arg("dim") = py::none(), py::arg("keepdim") = false);
  both(
      cls, m, "amax",
      [](const Tensor& a, py::handle dim, bool keepdim) {
        return ops::amax(a, dims_arg(dim, "amax"), keepdim);
      },
      py::arg("dim") = py::tuple(), py::arg("keepdim") = false);
  both(
      cls, m, "any",
      [](const Tensor& a, py::handle dim, bool keepdim) {
        return ops::any(a, opt_dim(dim, "any"), keepdim);
      },
      py::arg("dim") = py::none(), py::arg("keepdim") = false);
  both(
      cls, m, "all",
      [](const Tensor& a, py::handle dim, bool keepdim) {
        return ops::all(a, opt_dim(dim, "all"), keepdim);
      },
      py::arg("dim") = py::none(), py::arg("keepdim") = false);
  both(
      cls, m, "prod",
      [](const Tensor& a, py::handle dim, bool keepdim, py::handle dtype) {
        if (dim.is_none()) {
          auto dt = optional_dtype(dtype);
          return ops::prod_all(dt ? ops::to_dtype(a, *dt) : a);
        }
        return ops::prod(a, int_arg(dim, "prod", "dim", 1), keepdim, optional_dtype(dtype));
      },
      py::arg("dim") = py::none(), py::arg("keepdim") = false, py::kw_only(),
      py::arg("dtype") = py::none());
}

// view(), reshape(), permute(), expand(): the sizes are required.
DimVector shape_args(const py::args& args, const char* fn, const char* name) {
  GT_CHECK_TYPE(args.size() > 0, fn, "() missing 1 required positional arguments: \"", name, "\"");
  return parse_sizes(args, fn, name);
}

void bind_shape(Cls& cls, py::module_& m) {
  cls.def("view",
          [](const Tensor& a, const py::args& args, const py::kwargs& kwargs) {
            // PyTorch's view has a (dtype) and a (tuple of ints size) signature,
            // each also by keyword.
            py::tuple shape = args;
            if (args.size() == 0 && kwargs.size() == 1) {
              if (kwargs.contains("dtype") && is_dtype_object(kwargs["dtype"]))
                return autograd::view_dtype(a, to_scalar_type(kwargs["dtype"]));
              if (kwargs.contains("size")) shape = py::make_tuple(kwargs["size"]);
            } else if (kwargs.size() > 0) {
              shape = py::tuple();
            }
            if (shape.size() == 1 && is_dtype_object(shape[0]))
              return autograd::view_dtype(a, to_scalar_type(shape[0]));
            if (shape.size() == 0 ||
                (shape.size() == 1 && !PyLong_Check(shape[0].ptr()) &&
                 !PyTuple_Check(shape[0].ptr()) && !PyList_Check(shape[0].ptr()) &&
                 !py::isinstance<TensorImpl>(shape[0]))) {
              throw InvalidArguments{
                  "view", {"gradtrack.dtype dtype", "tuple of ints size"}, std::nullopt};
            }
            return ops::view(a, parse_sizes(shape, "view"));
          })
      .def(
          "view_as", [](const Tensor& a, const Tensor& o) { return ops::view(a, o.sizes()); },
          py::arg("other"))
      .def("reshape",
           [](const Tensor& a, const py::args& shape) {
             return ops::reshape(a, shape_args(shape, "reshape", "shape"));
           })
      .def(
          "reshape_as", [](const Tensor& a, const Tensor& o) { return ops::reshape(a, o.sizes()); },
          py::arg("other"))
      .def("expand",
           [](const Tensor& a, const py::args& sizes) {
             return ops::expand(a, shape_args(sizes, "expand", "size"));
           })
      .def(
          "expand_as", [](const Tensor& a, const Tensor& o) { return ops::expand(a, o.sizes()); },
          py::arg("other"))
      .def("permute",
           [](const Tensor& a, const py::args& dims) {
             return ops::permute(a, shape_args(dims, "permute", "dims"));
           })
      .def("contiguous", [](const Tensor& a) { return ops::contiguous(a); })
      .def_property_readonly("T",
                             [](const Tensor& a) {
                               DimVector dims;
                               for (int64_t d = a.dim() - 1; d >= 0; --d) dims.push_back(d);
                               return ops::permute(a, dims);
                             })
      .def_property_readonly("mT", [](const Tensor& a) { return ops::transpose(a, -2, -1); });
  m.def(
      "reshape",
      [](const Tensor& a, py::handle shape) {
        return ops::reshape(a, int_list(shape, "reshape", "shape", 2));
      },
      py::arg("input"), py::arg("shape"));
  m.def(
      "permute",
      [](const Tensor& a, py::handle dims) {
        return ops::permute(a, int_list(dims, "permute", "dims", 2));
      },
      py::arg("input"), py::arg("dims"));
  both(
      cls, m, "as_strided",
      [](const Tensor& a, py::handle size, py::handle stride, py::handle off) {
        return ops::as_strided(a, int_list(size, "as_strided", "size", 1),
                               int_list(stride, "as_strided", "stride", 2),
                               opt_dim(off, "as_strided", "storage_offset", 3));
      },
      py::arg("size"), py::arg("stride"), py::arg("storage_offset") = py::none());
  both(
      cls, m, "transpose",
      [](const Tensor& a, int64_t d0, int64_t d1) { return ops::transpose(a, d0, d1); },
      py::arg("dim0"), py::arg("dim1"));
  both(
      cls, m, "swapaxes",
      [](const Tensor& a, int64_t d0, int64_t d1) { return ops::transpose(a, d0, d1); },
      py::arg("axis0"), py::arg("axis1"));
  both(
      cls, m, "unsqueeze", [](const Tensor& a, int64_t d) { return ops::unsqueeze(a, d); },
      py::arg("dim"));
  both(
      cls, m, "squeeze",
      [](const Tensor& a, py::handle d) {
        if (d.is_none()) return ops::squeeze(a);
        if (PyLong_Check(d.ptr())) return ops::squeeze(a, unpack_long(d));
        return ops::squeeze(a, int_list(d, "squeeze", "dim", 1));
      },
      py::arg("dim") = py::none());
  both(
      cls, m, "flatten",
      [](const Tensor& a, int64_t s, int64_t e) { return ops::flatten(a, s, e); },
      py::arg("start_dim") = 0, py::arg("end_dim") = -1);
  both(
      cls, m, "select", [](const Tensor& a, int64_t d, int64_t i) { return ops::select(a, d, i); },
      py::arg("dim"), py::arg("index"));
  both(
      cls, m, "narrow",
      [](const Tensor& a, int64_t d, int64_t s, int64_t l) { return ops::narrow(a, d, s, l); },
      py::arg("dim"), py::arg("start"), py::arg("length"));
  both(
      cls, m, "split",
      [](const Tensor& a, py::handle s, int64_t d) {
        if (PyLong_Check(s.ptr())) return as_tuple(ops::split(a, unpack_long(s), d));
        return as_tuple(
            ops::split_with_sizes(a, int_list(s, "split_with_sizes", "split_sizes", 2), d));
      },
      py::arg("split_size_or_sections"), py::arg("dim") = 0);
  both(
      cls, m, "chunk",
      [](const Tensor& a, int64_t c, int64_t d) { return as_tuple(ops::chunk(a, c, d)); },
      py::arg("chunks"), py::arg("dim") = 0);
  both(
      cls, m, "unbind", [](const Tensor& a, int64_t d) { return as_tuple(ops::unbind(a, d)); },
      py::arg("dim") = 0);
  m.def(
      "cat",
      [](py::handle tensors, int64_t d) {
        return ops::cat(tensor_list(tensors, "cat", "tensors", 1), d);
      },
      py::arg("tensors"), py::arg("dim") = 0);
  m.def(
      "concat",
      [](py::handle tensors, int64_t d) {
        return ops::cat(tensor_list(tensors, "concat", "tensors", 1), d);
      },
      py::arg("tensors"), py::arg("dim") = 0);
  m.def(
      "stack",
      [](py::handle tensors, int64_t d) {
        return ops::stack(tensor_list(tensors, "stack", "tensors", 1), d);
      },
      py::arg("tensors"), py::arg("dim") = 0);
}

void bind_types(Cls& cls) {
  cls.def(
      "_to_dtype",
      [](const Tensor& a, py::handle dt, bool copy) {
        return ops::to_dtype(a, to_scalar_type(dt), copy);
      },
      py::arg("dtype"), py::arg("copy") = false);
  auto conv = [&](const char* name, ScalarType st) {
    cls.def(name, [st](const Tensor& a) { return ops::to_dtype(a, st); });
  };
  conv("float", ScalarType::Float32);
  conv("double", ScalarType::Float64);
  conv("long", ScalarType::Int64);
  conv("int", ScalarType::Int32);
  conv("bool", ScalarType::Bool);
  conv("byte", ScalarType::UInt8);
  // the round-2 storage dtypes (issue 19)
  conv("char", ScalarType::Int8);
  conv("short", ScalarType::Int16);
  conv("half", ScalarType::Float16);
  conv("bfloat16", ScalarType::BFloat16);
  cls.def(
      "type_as", [](const Tensor& a, const Tensor& o) { return ops::to_dtype(a, o.dtype()); },
      py::arg("other"));
}

void bind_linalg_nn(Cls& cls, py::module_& m) {
  both(
      cls, m, "matmul", [](const Tensor& a, const Tensor& b) { return ops::matmul(a, b); },
      py::arg("other"));
  both(
      cls, m, "mm", [](const Tensor& a, const Tensor& b) { return ops::mm(a, b); },
      py::arg("mat2"));
  both(
      cls, m, "bmm", [](const Tensor& a, const Tensor& b) { return ops::bmm(a, b); },
      py::arg("mat2"));
  both(
      cls, m, "mv", [](const Tensor& a, const Tensor& b) { return ops::mv(a, b); }, py::arg("vec"));
  both(
      cls, m, "dot", [](const Tensor& a, const Tensor& b) { return ops::dot(a, b); },
      py::arg("tensor"));
  both(
      cls, m, "outer", [](const Tensor& a, const Tensor& b) { return ops::outer(a, b); },
      py::arg("vec2"));
  m.def(
      "addmm",
      [](const Tensor& bias, const Tensor& a, const Tensor& b, py::handle beta, py::handle alpha) {
        return ops::addmm(bias, a, b, number_arg(beta, "addmm", "beta"),
                          number_arg(alpha, "addmm", "alpha"));
      },
      py::arg("input"), py::arg("mat1"), py::arg("mat2"), py::kw_only(), py::arg("beta") = 1,
      py::arg("alpha") = 1);
  both(
      cls, m, "softmax",
      [](const Tensor& a, int64_t d, py::handle dtype) {
        auto dt = optional_dtype(dtype);
        return ops::softmax(dt ? ops::to_dtype(a, *dt) : a, d);
      },
      py::arg("dim"), py::kw_only(), py::arg("dtype") = py::none());
  both(
      cls, m, "log_softmax",
      [](const Tensor& a, int64_t d, py::handle dtype) {
        auto dt = optional_dtype(dtype);
        return ops::log_softmax(dt ? ops::to_dtype(a, *dt) : a, d);
      },
      py::arg("dim"), py::kw_only(), py::arg("dtype") = py::none());
  both(
      cls, m, "gather",
      [](const Tensor& a, int64_t d, const Tensor& i) { return ops::gather(a, d, i); },
      py::arg("dim"), py::arg("index"));
  both(
      cls, m, "scatter_add",
      [](const Tensor& a, int64_t d, const Tensor& i, const Tensor& s) {
        return ops::scatter_add(a, d, i, s);
      },
      py::arg("dim"), py::arg("index"), py::arg("src"));
  both(
      cls, m, "scatter",
      [](const Tensor& a, int64_t d, const Tensor& i, py::handle src, py::handle value,
         py::handle reduce) {
        GT_CHECK_IMPL(reduce.is_none(), "gradtrack: scatter with reduce= is not implemented");
        return std::visit([&](const auto& v) { return ops::scatter(a, d, i, v); },
                          scatter_source(src.is_none() ? value : src, "scatter"));
      },
      // value is keyword-only: torch's overloads take src or value third.
      py::arg("dim"), py::arg("index"), py::arg("src") = py::none(), py::kw_only(),
      py::arg("value") = py::none(), py::arg("reduce") = py::none());
  both(
      cls, m, "index_select",
      [](const Tensor& a, int64_t d, const Tensor& i) { return ops::index_select(a, d, i); },
      py::arg("dim"), py::arg("index"));
  both(
      cls, m, "masked_fill",
      [](const Tensor& a, const Tensor& mask, py::handle value) {
        bool tensor_value = is_tensor(value);
        auto number = tensor_value ? std::nullopt : to_scalar(value);
        if (!tensor_value && !number) {
          throw InvalidArguments{"masked_fill",
                                 {"Tensor mask, Tensor value", "Tensor mask, Number value"},
                                 std::nullopt};
        }
        if (number) check_fits(*number, a.dtype());
        Tensor v = tensor_value ? value.cast<Tensor>() : ops::scalar_tensor(*number, a.dtype());
        return ops::masked_fill(a, mask, v, tensor_value);
      },
      py::arg("mask"), py::arg("value"));
}

void bind_operators(Cls& cls) {
  using ops::add;
#define GT_BINOP(py_name, tensor_expr, scalar_expr)                             \
  cls.def(                                                                      \
      py_name,                                                                  \
      [](const Tensor& a, py::handle b) {                                       \
        return binop(                                                           \
            a, b, [](const Tensor& x, const Tensor& y) { return tensor_expr; }, \
            [](const Tensor& x, Scalar y) { return scalar_expr; });             \
      },                                                                        \
      py::is_operator())
  GT_BINOP("__add__", ops::add(x, y), ops::add(x, y));
  GT_BINOP("__radd__", ops::add(y, x), ops::add(x, y));
  GT_BINOP("__sub__", ops::sub(x, y), ops::sub(x, y));
  GT_BINOP("__rsub__", ops::sub(y, x), ops::rsub(x, y));
  GT_BINOP("__mul__", ops::mul(x, y), ops::mul(x, y));
  GT_BINOP("__rmul__", ops::mul(y, x), ops::mul(x, y));
  GT_BINOP("__truediv__", ops::div(x, y), ops::div(x, y));
  GT_BINOP("__rtruediv__", ops::div(y, x), ops::rdiv(x, y));
  GT_BINOP("__floordiv__", ops::floor_divide(x, y), ops::floor_divide(x, y));
  GT_BINOP("__rfloordiv__", ops::floor_divide(y, x), ops::rfloor_divide(x, y));
  GT_BINOP("__mod__", ops::remainder(x, y), ops::remainder(x, y));
  GT_BINOP("__rmod__", ops::remainder(y, x), ops::rremainder(x, y));
  GT_BINOP("__pow__", ops::pow(x, y), ops::pow(x, y));
  GT_BINOP("__rpow__", ops::pow(y, x), ops::pow(y, x));
  GT_BINOP("__eq__", ops::compare(Cmp::Eq, x, y), ops::compare(Cmp::Eq, x, y));
  GT_BINOP("__ne__", ops::compare(Cmp::Ne, x, y), ops::compare(Cmp::Ne, x, y));
  GT_BINOP("__lt__", ops::compare(Cmp::Lt, x, y), ops::compare(Cmp::Lt, x, y));
  GT_BINOP("__le__", ops::compare(Cmp::Le, x, y), ops::compare(Cmp::Le, x, y));
  GT_BINOP("__gt__", ops::compare(Cmp::Gt, x, y), ops::compare(Cmp::Gt, x, y));
  GT_BINOP("__ge__", ops::compare(Cmp::Ge, x, y), ops::compare(Cmp::Ge, x, y));
  GT_BINOP("__and__", ops::bitwise(Logic::And, x, y), ops::bitwise(Logic::And, x, y));
  GT_BINOP("__rand__", ops::bitwise(Logic::And, y, x), ops::bitwise(Logic::And, x, y));
  GT_BINOP("__or__", ops::bitwise(Logic::Or, x, y), ops::bitwise(Logic::Or, x, y));
  GT_BINOP("__ror__", ops::bitwise(Logic::Or, y, x), ops::bitwise(Logic::Or, x, y));
  GT_BINOP("__xor__", ops::bitwise(Logic::Xor, x, y), ops::bitwise(Logic::Xor, x, y));
  GT_BINOP("__rxor__", ops::bitwise(Logic::Xor, y, x), ops::bitwise(Logic::Xor, x, y));
#undef GT_BINOP
  cls.def(
      "__matmul__",
      [](const Tensor& a, py::handle b) -> py::object {
        if (!is_tensor(b)) return not_implemented();
        return py::cast(ops::matmul(a, b.cast<Tensor>()));
      },
      py::is_operator());
  cls.def(
      "__rmatmul__",
      [](const Tensor& a, py::handle b) -> py::object {
        if (!is_tensor(b)) return not_implemented();
        return py::cast(ops::matmul(b.cast<Tensor>(), a));
      },
      py::is_operator());
  cls.def("__neg__", [](const Tensor& a) { return ops::neg(a); });
  cls.def("__pos__", [](const Tensor& a) { return a; });
  cls.def("__abs__", [](const Tensor& a) { return ops::abs(a); });
  cls.def("__invert__", [](const Tensor& a) {
    GT_CHECK_TYPE(!is_floating(a.dtype()),
                  "~ (operator.invert) is only implemented on integer and Boolean-type tensors");
    return ops::bitwise_not(a);
  });
}

}  // namespace

void init_tensor_ops(Cls& cls, py::module_& m) {
  bind_arith(cls, m);
  bind_unary(cls, m);
  bind_compare(cls, m);
  bind_reductions(cls, m);
  bind_shape(cls, m);
  bind_types(cls);
  bind_linalg_nn(cls, m);
  bind_operators(cls);
}

}  // namespace gradtrack::python
