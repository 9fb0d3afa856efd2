// _C._special_functions: the kernels of torch.special's value-only functions
// (kernels/special_functions.h). gradtrack/special.py checks, promotes and
// broadcasts the arguments (PyTorch's rules for these functions) and hands
// over contiguous float32 or float64 tensors of one dtype and shape.
#include <stdexcept>

#include "kernels/special_functions.h"
#include "python/common.h"

namespace gradtrack::python {
namespace {

namespace sp = kernels::special;

void check_operand(const Tensor& t, ScalarType dtype, const DimVector& sizes) {
  if (!t.is_contiguous() || t.dtype() != dtype || t.sizes() != sizes ||
      (dtype != ScalarType::Float32 && dtype != ScalarType::Float64)) {
    throw std::invalid_argument(
        "special function kernels take contiguous float tensors of one shape");
  }
}

Tensor value_unary(int kind, const Tensor& x) {
  if (kind < 0 || kind >= static_cast<int>(sp::ValueUnary::Count))
    throw std::invalid_argument("kind");
  check_operand(x, x.dtype(), x.sizes());
  Tensor out = empty(x.sizes(), x.dtype());
  const auto f = static_cast<sp::ValueUnary>(kind);
  py::gil_scoped_release nogil;
  if (x.dtype() == ScalarType::Float32) {
    sp::value_unary(f, x.data<float>(), out.data<float>(), x.numel());
  } else {
    sp::value_unary(f, x.data<double>(), out.data<double>(), x.numel());
  }
  return out;
}

Tensor polynomial(int kind, const Tensor& x, const Tensor& n) {
  if (kind < 0 || kind >= static_cast<int>(sp::Polynomial::Count))
    throw std::invalid_argument("kind");
  check_operand(x, x.dtype(), x.sizes());
  check_operand(n, x.dtype(), x.sizes());
  Tensor out = empty(x.sizes(), x.dtype());
  const auto p = static_cast<sp::Polynomial>(kind);
  py::gil_scoped_release nogil;
  if (x.dtype() == ScalarType::Float32) {
    sp::polynomial(p, x.data<float>(), n.data<float>(), out.data<float>(), x.numel());
  } else {
    sp::polynomial(p, x.data<double>(), n.data<double>(), out.data<double>(), x.numel());
  }
  return out;
}

}  // namespace

void init_special_functions(py::module_& m) {
  py::module_ s = m.def_submodule("_special_functions", "torch.special's value-only functions");
  s.def("value_unary", &value_unary);
  s.def("polynomial", &polynomial);
}

}  // namespace gradtrack::python
