// What the bindings of Tensor methods and gradtrack.* functions share: the
// dispatch of `other` on its type with PyTorch's messages, functions that
// number their arguments from `input`, and `both`, which binds a lambda as a
// method and as a module function (bind_pointwise.cpp, bind_reduction.cpp,
// bind_shape.cpp, bind_linalg.cpp, bind_indexing.cpp).
#pragma once

#include <string>
#include <vector>

#include "autograd/grad_mode.h"
#include "autograd/variable.h"
#include "python/arg_errors.h"
#include "python/common.h"

namespace gradtrack::python {

using Cls = py::class_<TensorImpl, std::shared_ptr<TensorImpl>>;

namespace methods {

inline py::object not_implemented() {
  return py::reinterpret_borrow<py::object>(Py_NotImplemented);
}

inline bool is_array_like(py::handle h) { return py::hasattr(h, "__array_interface__"); }

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
inline thread_local int t_arg_offset = 0;
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
inline Scalar number_arg(py::handle h, const char* fn, const char* what) {
  auto s = number_param(h);
  GT_CHECK_TYPE(s.has_value(), fn, "(): argument '", what, "' must be Number, not ", type_name(h));
  return *s;
}

inline Scalar scalar_arg(py::handle h, const char* what) {
  auto s = to_scalar(h);
  GT_CHECK_TYPE(s.has_value(), what, " must be a number");
  return *s;
}

inline std::string rounding(py::handle h) {
  return h.is_none() ? std::string() : h.cast<std::string>();
}

// A default that tells "argument not given" from an explicit None.
inline py::handle unset_marker() {
  static py::handle marker = py::object(py::module_::import("builtins").attr("object")()).release();
  return marker;
}

// gradtrack.return_types.<name>((values, indices)), as max(dim) returns it.
inline py::object named_pair(const char* name, const Tensor& values, const Tensor& indices) {
  py::object types = py::module_::import("gradtrack.return_types");
  return types.attr(name)(py::make_tuple(values, indices));
}

inline py::tuple as_tuple(const std::vector<Tensor>& ts) {
  py::tuple t(ts.size());
  for (size_t i = 0; i < ts.size(); ++i) t[i] = py::cast(ts[i]);
  return t;
}

inline DimVector dims_arg(py::handle dim, const char* fn) {
  if (dim.is_none()) return {};
  return int_list(dim, fn, "dim", 1);
}

// sum() and mean(): PyTorch's (*, dtype) and (tuple of ints dim, ...) signatures.
inline DimVector reduce_dims(py::handle dim, const char* fn) {
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

// An optional int argument (None: absent), with PyTorch's type error.
inline std::optional<int64_t> opt_dim(py::handle h, const char* fn, const char* name = "dim",
                                      int position = 1) {
  if (h.is_none()) return std::nullopt;
  return int_arg(h, fn, name, position);
}

}  // namespace methods

}  // namespace gradtrack::python
