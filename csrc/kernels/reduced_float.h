// float16 / bfloat16 around the float32 kernels (NOTE [Reduced floats are
// stored, not computed]): widen the operands, run float32, round back.
#pragma once

#include <initializer_list>

#include "core/scalar.h"
#include "core/tensor.h"

namespace gradtrack::kernels {

/// True when any of `ts` is float16 or bfloat16.
bool any_reduced(std::initializer_list<const Tensor*> ts);
/// `t` itself, or a float32 copy of a float16/bfloat16 tensor.
Tensor widen(const Tensor& t);
/// `v` as the reduced dtype `t` stores it, back as a number (PyTorch casts a
/// Python number to a reduced common dtype before most kernels).
Scalar round_scalar(Scalar v, ScalarType t);

/// A new tensor of the reduced dtype `t` holding `wide` rounded.
Tensor narrowed(const Tensor& wide, ScalarType t);

/// The float32 output a widened kernel writes; commit() rounds it into the
/// real output. For an output that is not reduced, `t` is the output itself.
class WideOut {
 public:
  explicit WideOut(const Tensor& out, bool read_old = false);
  void commit() const;
  Tensor t;

 private:
  const Tensor& out_;
};

/// copy() and fill() when either side is float16/bfloat16; false otherwise.
bool copy_reduced(const Tensor& out, const Tensor& src);
bool fill_reduced(const Tensor& out, Scalar value);

}  // namespace gradtrack::kernels
