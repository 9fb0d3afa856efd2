// Shared by the binding files: the Tensor <-> Python caster and argument
// helpers. The only folder that includes pybind11.
#pragma once

#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <variant>

#include "core/silent_writes.h"
#include "core/tensor.h"
#include "ops/ops.h"

namespace py = pybind11;

namespace gradtrack::python {

/// The bound Tensor type and its pybind11 record, set once by init_tensor.
inline PyTypeObject* tensor_type = nullptr;
inline const py::detail::type_info* tensor_type_info = nullptr;

/// NOTE [Tensor fast paths]
/// pybind11's generic loading and casting look the type up in its registry
/// (hash maps behind thread-local internals) on every call: about a third of
/// a 1-element `a + b`. A Tensor (or a Python subclass of it) has pybind11's
/// simple layout, [value pointer][shared_ptr holder], so its holder is read in
/// place; anything else (no holder yet, another layout) takes the generic path.
inline const std::shared_ptr<TensorImpl>* tensor_holder(PyObject* o) {
  PyTypeObject* t = Py_TYPE(o);
  if (tensor_type == nullptr || (t != tensor_type && !PyType_IsSubtype(t, tensor_type)))
    return nullptr;
  auto* inst = reinterpret_cast<py::detail::instance*>(o);
  if (!inst->simple_layout || !inst->simple_holder_constructed) return nullptr;
  return reinterpret_cast<const std::shared_ptr<TensorImpl>*>(&inst->simple_value_holder[1]);
}

/// The Python object for `t` (a new reference; None for an undefined tensor):
/// the live one if there is one (NOTE [Tensor identity]), else a new Tensor.
PyObject* wrap_tensor(const Tensor& t);

}  // namespace gradtrack::python

namespace pybind11::detail {

/// NOTE [Tensor identity]
/// Python's Tensor is the bound TensorImpl with a shared_ptr holder. Casting
/// a C++ Tensor back finds the live Python object for the same TensorImpl,
/// so `t.grad is t.grad` and a Parameter comes back as that Parameter.
template <>
struct type_caster<gradtrack::Tensor> {
  using Holder = std::shared_ptr<gradtrack::TensorImpl>;
  PYBIND11_TYPE_CASTER(gradtrack::Tensor, const_name("Tensor"));
  // None is not a Tensor: an op given None fails to bind (and PyTorch's
  // "must be Tensor, not NoneType" is raised, see arg_errors.h); a binding
  // that accepts None takes a py::handle and checks for it.
  bool load(handle src, bool convert) {
    if (const Holder* h = gradtrack::python::tensor_holder(src.ptr())) {
      value = gradtrack::Tensor(*h);
      return true;
    }
    make_caster<Holder> inner;
    if (!inner.load(src, convert)) return false;
    value = gradtrack::Tensor(cast_op<Holder>(inner));
    return true;
  }
  static handle cast(const gradtrack::Tensor& t, return_value_policy policy, handle parent) {
    // A holder is always shared: the policy and parent change nothing.
    return gradtrack::python::wrap_tensor(t);
  }
};

}  // namespace pybind11::detail

namespace gradtrack::python {

bool is_tensor(py::handle h);
/// Whether the innermost Python frame is gradtrack's own code (bind_autograd.cpp):
/// warnings meant for the user's calls (torch's, from C++) skip the package's.
bool called_from_package();
/// scatter's (and scatter_'s) third argument: a tensor src or a number value;
/// anything else is PyTorch's "invalid combination of arguments" TypeError for `fn`.
std::variant<Tensor, Scalar> scatter_source(py::handle v, const char* fn);
/// Python number -> Scalar (bool before int: bool is an int subclass).
std::optional<Scalar> to_scalar(py::handle h);
/// What PyTorch's parser takes for a Number parameter (alpha=, beta=, value=): a
/// number, or a 0-dim tensor that does not require grad (its value).
std::optional<Scalar> number_param(py::handle h);
/// A Python object (Tensor, number, nested sequence, numpy array) as a Tensor.
Tensor as_tensor_arg(py::handle h, std::optional<ScalarType> dtype = std::nullopt);
/// PyTorch's THPUtils_unpackLong: an int (or an object with __index__) as
/// int64; ValueError "Overflow when unpacking long long" beyond its range.
int64_t unpack_long(py::handle h);
/// An `int` argument of `fn` (TypeError in PyTorch's words otherwise).
int64_t int_arg(py::handle h, const char* fn, const char* name, int position);
/// A `tuple of ints` argument of `fn` (an int alone counts as a list of one).
DimVector int_list(py::handle h, const char* fn, const char* name, int position);
/// Sizes from `f(2, 3)`, `f((2, 3))`, `f([2, 3])` or `f(Size)`; `name` is
/// PyTorch's name of the argument ("size", "shape", "dims").
DimVector parse_sizes(const py::args& args, const char* fn, const char* name = "size");
DimVector to_dims(py::handle h);
/// A `tuple of Tensors` argument (cat, stack): PyTorch's TypeErrors for
/// anything else, "expected Tensor as element 1 in argument 0, but got str".
std::vector<Tensor> tensor_list(py::handle h, const char* fn, const char* name, int position);
/// clamp's bounds: PyTorch has a (Tensor min, Tensor max) and a (Number min,
/// Number max) signature, None fitting both; InvalidArguments for anything
/// else. `args` (when set) are the arguments as the user gave them.
struct ClampBounds {
  bool tensors = false;
  Tensor lo_t, hi_t;
  std::optional<Scalar> lo, hi;
};
ClampBounds clamp_bounds(const char* fn, py::handle lo, py::handle hi, bool explicit_args);
/// The dtype singleton for a ScalarType and back.
py::object dtype_object(ScalarType t);
ScalarType to_scalar_type(py::handle h);
/// A gradtrack.dtype, or one of the Python types float/int/bool (which stand for one).
bool is_dtype_object(py::handle h);
std::optional<ScalarType> optional_dtype(py::handle h);
/// A gradtrack.Size for `sizes`.
py::object make_size(const DimVector& sizes);
/// torch.tensor(data, dtype=...) semantics.
Tensor tensor_from_data(py::handle data, std::optional<ScalarType> dtype);
py::object tensor_tolist(const Tensor& t);
/// The value of a one-element tensor (bool, double or int64 by dtype), as .item() gives it.
Scalar item_of(const Tensor& t);
py::object tensor_numpy(py::handle self, bool force);
/// `shares`: the tensor aliases the array (from_numpy), rather than being copied from it at once.
// warn_read_only=false: DLPack imports share read-only memory silently, as torch's.
Tensor tensor_from_numpy(py::handle array, bool shares = true, bool warn_read_only = true);
/// Parses a __getitem__ index and applies it (views, then advanced indexing).
Tensor getitem(const Tensor& self, py::handle index);
/// How __setitem__ writes (NOTE [setitem] in indexing.cpp).
enum class SetitemKind { None = 0, Copy = 1, Fill = 2, IndexPut = 3 };
/// For __setitem__: (target, indices or None, value tensor, SetitemKind).
py::tuple setitem_target(const Tensor& self, py::handle index, py::handle value);
/// The write itself, after the in-place rules passed on the target.
void setitem_write(const Tensor& target, py::handle indices, const Tensor& value, int kind);
/// A factory's or .to()'s `device=`: None and "cpu" pass; "cuda" raises
/// PyTorch's CPU-build AssertionError, anything else a RuntimeError.
void check_device(py::handle device);
/// A Python exception for a hook / callback error is kept as is.
[[noreturn]] void rethrow_python();

void init_dtype(py::module_& m);
void init_tensor(py::module_& m);
void init_factories(py::module_& m);
void init_inplace(py::module_& m);  // _C._inplace
void init_nn(py::module_& m);       // _C._nn and _C._optim
void init_runtime(py::module_& m);
void init_autograd(py::module_& m);
void init_function(py::module_& m);
void init_random(py::module_& m);       // _C._random
void init_conv(py::module_& m);         // _C._conv: convolution and pooling
void init_saved_hooks(py::module_& m);  // _C._saved_hooks (saved-tensor hooks)
void init_forward_ad(py::module_& m);   // _C._forward_ad (forward-mode AD)

}  // namespace gradtrack::python
