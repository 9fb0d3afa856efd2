// a + alpha * b, the add and sub kernels' rule for alpha.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "core/dtype.h"
#include "core/error.h"
#include "core/scalar.h"
#include "kernels/pointwise.h"

namespace gradtrack::kernels {

// NOTE [add and sub with alpha round once]
// PyTorch computes a + alpha * b as one fused multiply-add, every element (vector loop,
// strided runs, a number b): the product is not rounded before the sum. A separate
// product and sum differed from it in the last bit for about a quarter of random float32
// inputs, and gave NaN for inf + 3 * -3.4e38 where the fused result is inf. sub passes
// -alpha, which is exact. One rule for every dtype and form (tensor or number b, in place,
// out=; measured on torch 2.13): b and alpha are converted to the dtype, then
// - float32, float64: fma(alpha, b, a), rounded once;
// - float16, bfloat16: the same fma in float32, rounded once to the dtype (alpha rounded
//   to the dtype first, a number b too), never alpha * b folded in double first;
// - integers: a + alpha * b wrapping around; bool: a || (alpha && b).
// torch's scalar loop over the last elements of a row (those after its last step of two
// vectors) rounds alpha * b first; gradtrack fuses those too, so they can differ from
// torch's by a bit.

// a + alpha * b (a - alpha * b with Sub) for an integer type, wrapping around as torch's
// does: computed in unsigned arithmetic at least 32 bits wide, where overflow is defined
// (an int16 product would be promoted to int and could overflow it).
template <bool Sub, typename T>
T add_scaled_int(T a, T alpha, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;
    const U ab = static_cast<U>(alpha) * static_cast<U>(b);
    return static_cast<T>(Sub ? static_cast<U>(a) - ab : static_cast<U>(a) + ab);
  } else {
    return Sub ? a - alpha * b : a + alpha * b;
  }
}

// torch's add kernel converts alpha to the dtype it computes in with an overflow check, and
// its sub is that add with -alpha, so an alpha whose negation overflows is refused there.
inline void check_alpha_fits(BinaryOp op, Scalar alpha, ScalarType dtype) {
  if ((op != BinaryOp::Add && op != BinaryOp::Sub) || alpha.equals(1) || alpha.is_bool()) return;
  if (op == BinaryOp::Sub) {
    alpha = alpha.is_float()
                ? Scalar(-alpha.to_double())
                : Scalar(static_cast<int64_t>(0 - static_cast<uint64_t>(alpha.to_int())));
  }
  if (!is_reduced_float(dtype)) return check_fits(alpha, dtype);
  const double max = dtype == ScalarType::Float16 ? 65504.0 : 3.3895313892515355e38;
  const double v = alpha.to_double();
  GT_CHECK(!std::isfinite(v) || std::fabs(v) <= max, "value cannot be converted to type ",
           cpp_type_name(dtype), " without overflow");
}

}  // namespace gradtrack::kernels
