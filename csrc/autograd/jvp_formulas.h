// Forward-mode (jvp) formulas: the `.jvp(...)` column of the formula table.
#pragma once

#include "autograd/formulas.h"

namespace gradtrack::autograd::jvp {

// clang-format off: one name per op, as the table
#define GT_JVP_FORMULAS(X)                                                                    \
  X(add) X(add_scalar) X(sub) X(rsub) X(rsub_scalar) X(mul) X(mul_scalar) X(div)              \
  X(div_scalar) X(pow_scalar) X(pow_tensor) X(pow_base) X(neg) X(abs) X(exp) X(log) X(sqrt)   \
  X(rsqrt) X(sin) X(cos) X(tanh) X(sigmoid) X(relu) X(reciprocal) X(zero) X(log1p) X(expm1)   \
  X(maximum) X(minimum) X(clamp) X(clamp_min) X(clamp_max) X(where) X(sum_all) X(sum_dim)     \
  X(mean_all) X(mean_dim) X(extreme_all) X(extreme_dim) X(view) X(copy) X(mm) X(mv) X(dot)    \
  X(bmm) X(addmm) X(log_softmax) X(softmax) X(remainder) X(fmod) X(atan2) X(hypot) X(tan)     \
  X(asin) X(acos) X(atan) X(sinh) X(cosh) X(log2) X(log10) X(erf) X(exp2) X(identity)     \
  X(gather) X(masked_fill) X(erfc) X(erfinv) X(asinh) X(acosh) X(atanh) X(sinc) X(deg2rad)  \
  X(rad2deg)
// clang-format on

#define GT_JVP_DECLARE(name) Tensor name##_jvp(const JvpCtx& c);
GT_JVP_FORMULAS(GT_JVP_DECLARE)
#undef GT_JVP_DECLARE

}  // namespace gradtrack::autograd::jvp
