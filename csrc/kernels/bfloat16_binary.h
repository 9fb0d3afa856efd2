// bfloat16 arithmetic in one pass (NOTE [bfloat16 arithmetic in one pass] in
// reduced_float.cpp).
#pragma once

#include "core/tensor.h"
#include "kernels/pointwise.h"

namespace gradtrack::kernels {

/// out = a op b for Add/Sub/Mul/Div (alpha 1) when out, a and b are all
/// bfloat16, widening, computing and rounding each element in one loop; false
/// (nothing done) for any other op or dtype.
bool binary_bfloat16(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b);

}  // namespace gradtrack::kernels
