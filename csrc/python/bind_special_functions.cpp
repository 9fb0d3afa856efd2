// _C._special_functions: the kernels of torch.special's value-only functions
// (kernels/special_functions.h). gradtrack/special.py checks, promotes and
// broadcasts the arguments (PyTorch's rules for these functions) and hands
// over float32 or float64 tensors of one dtype and shape.
#include <stdexcept>

#include "core/shape.h"
#include "kernels/copy.h"
#include "kernels/special_functions.h"
#include "python/common.h"

namespace gradtrack::python {
namespace {

namespace sp = kernels::special;

void check_float(const Tensor& t, ScalarType dtype, const DimVector& sizes) {
  if (t.dtype() != dtype || t.sizes() != sizes ||
      (dtype != ScalarType::Float32 && dtype != ScalarType::Float64)) {
    throw std::invalid_argument(
        "special function kernels take float tensors of one dtype and shape");
  }
}

// `t` with the given dense strides (itself when it has them), so the kernels walk the
// operands and the result in one memory order: NOTE [Elementwise output layout].
Tensor laid_out(const Tensor& t, const DimVector& strides) {
  if (t.strides() == strides && is_non_overlapping_and_dense(t) && t.is_aligned()) return t;
  Tensor c = empty_strided(t.sizes(), strides, t.dtype());
  kernels::copy(c, t);
  return c;
}

Tensor value_unary(int kind, const Tensor& x) {
  if (kind < 0 || kind >= static_cast<int>(sp::ValueUnary::Count))
    throw std::invalid_argument("kind");
  check_float(x, x.dtype(), x.sizes());
  const DimVector strides =
      x.is_contiguous() ? contiguous_strides(x.sizes()) : dense_strides_following(x.sizes(), {&x});
  const Tensor in = laid_out(x, strides);
  Tensor out = empty_strided(x.sizes(), strides, x.dtype());
  const auto f = static_cast<sp::ValueUnary>(kind);
  py::gil_scoped_release nogil;
  if (x.dtype() == ScalarType::Float32) {
    sp::value_unary(f, in.data<float>(), out.data<float>(), x.numel());
  } else {
    sp::value_unary(f, in.data<double>(), out.data<double>(), x.numel());
  }
  return out;
}

// x and n: broadcast to one shape and converted to the result's dtype (views allowed).
Tensor polynomial(int kind, const Tensor& x, const Tensor& n) {
  if (kind < 0 || kind >= static_cast<int>(sp::Polynomial::Count))
    throw std::invalid_argument("kind");
  check_float(x, x.dtype(), x.sizes());
  check_float(n, x.dtype(), x.sizes());
  const DimVector strides = x.is_contiguous() && n.is_contiguous()
                                ? contiguous_strides(x.sizes())
                                : dense_strides_following(x.sizes(), {&x, &n});
  const Tensor a = laid_out(x, strides), b = laid_out(n, strides);
  Tensor out = empty_strided(x.sizes(), strides, x.dtype());
  const auto p = static_cast<sp::Polynomial>(kind);
  py::gil_scoped_release nogil;
  if (x.dtype() == ScalarType::Float32) {
    sp::polynomial(p, a.data<float>(), b.data<float>(), out.data<float>(), x.numel());
  } else {
    sp::polynomial(p, a.data<double>(), b.data<double>(), out.data<double>(), x.numel());
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
