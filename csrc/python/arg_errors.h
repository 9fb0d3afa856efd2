// PyTorch's argument errors for arguments that fit no signature.
#pragma once

#include <string>
#include <vector>

#include "python/common.h"

namespace gradtrack::python {

/// NOTE [Argument errors speak PyTorch]
/// pybind11 answers a call whose arguments fit no overload with its own
/// "incompatible function arguments" TypeError; PyTorch's parser names the
/// argument at fault ("transpose(): argument 'dim1' (position 2) must be int,
/// not float"), the missing one, the extra ones, or lists its signatures
/// ("received an invalid combination of arguments - got (str), ...").
/// install_argument_errors() puts one C function between Python and
/// pybind11's dispatcher on every bound function: a successful call costs one
/// extra indirect call, and only a failed one is looked at. The signature is
/// read from pybind11's own record (names, defaults, and the C++ types: Tensor,
/// int, float, bool, str, list of Tensors); arguments taken as `object` are
/// checked by the binding itself, which throws InvalidArguments with
/// PyTorch's signatures when they fit none of them. A Tensor method that takes
/// no arguments is a METH_NOARGS method in torch: CPython's words then, on
/// torch's class ("TensorBase.exp() takes no arguments (1 given)"). Where
/// gradtrack binds one signature and torch's parser has several (sum, max,
/// clamp, the comparisons), the error lists torch's: gradtrack/_parser_overloads.py,
/// written by tools/gen_parser_overloads.py and read on the first failed call.
struct InvalidArguments {
  std::string fn;
  /// PyTorch's signatures in the method form, e.g. "Tensor min = None, Tensor max = None".
  std::vector<std::string> options;
  /// The arguments as the user passed them; when unset, the call's own.
  std::optional<std::vector<py::object>> args;
};

/// Python's name of h's type as PyTorch prints it ("str", "numpy.float64").
std::string type_name(py::handle h);

/// The message (and Python exception type) for a call of `fn` whose
/// arguments fit none of `options`, given positionally in `args`.
void set_invalid_arguments(const InvalidArguments& e);

/// Routes every pybind11 function in `m` (and the methods of its classes)
/// through the argument-error rewriter.
void install_argument_errors(py::module_& m);

}  // namespace gradtrack::python
