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
  X(rad2deg) X(masked_select)
// clang-format on

// forward AD for indexing, reductions, round-2 ops and nn layers (jvp_formulas_more.cpp)
// clang-format off: one name per op, as the table
#define GT_JVP_FORMULAS_MORE(X) \
  X(adaptive_avg_pool) X(amax) X(avg_pool) X(batch_norm) X(bce) X(bce_logits) \
  X(clamp_max_tensor) X(clamp_min_tensor) X(clamp_tensor) X(convolution) X(copy_into) X(embedding) \
  X(cumsum) X(cumprod) X(flip) X(huber) X(index) X(index_put) X(index_select) X(logsumexp) \
  X(masked_fill_tensor) X(max_pool) X(mse_loss) X(nll_loss) X(norm) X(prod_all) X(prod_dim) \
  X(repeat) X(roll) X(scatter) X(scatter_add) X(scatter_value) X(smooth_l1) X(tril) X(triu) \
  X(value_select) X(diagonal_copy) X(diag_embed) X(trace) X(nan_to_num) X(lerp_scalar) X(lerp_tensor) \
  X(vector_norm) X(addmv) X(cross) \
  /* forward AD of the ops merged after the audit */ X(baddbmm)
// clang-format on

// What both formula files read their arguments with (jvp_formulas.cpp and
// jvp_formulas_more.cpp bring these into scope with `using namespace args`).
namespace args {
inline const Tensor& x(const JvpCtx& c, size_t i = 0) { return c.primals[i]; }
inline const Tensor& t(const JvpCtx& c, size_t i = 0) { return c.tangents[i]; }
// Tangent i, zeros where the input has none.
Tensor t_or_zero(const JvpCtx& c, size_t i);
// The sum of two optional terms (undefined: absent).
Tensor plus(const Tensor& a, const Tensor& b);
}  // namespace args

#define GT_JVP_DECLARE(name) Tensor name##_jvp(const JvpCtx& c);
GT_JVP_FORMULAS(GT_JVP_DECLARE)
GT_JVP_FORMULAS_MORE(GT_JVP_DECLARE)
#undef GT_JVP_DECLARE

}  // namespace gradtrack::autograd::jvp
