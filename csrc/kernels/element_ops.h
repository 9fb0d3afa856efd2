// One element of the ops whose dense runs go to the SIMD clones (simd.cpp) and whose
// other runs loop here (pointwise.cpp, clamp_where.cpp): written once, so that both
// give the same values. Forced inline: inside a clone they must vectorize with the loop.
#pragma once

#include <cmath>
#include <limits>
#include <type_traits>

namespace gradtrack::kernels {

#define GT_ELEMENT __attribute__((always_inline)) inline

/// torch.maximum / minimum: a NaN on either side gives NaN. Selects without a branch
/// (the bitwise | evaluates both tests), so that the loops vectorize.
template <typename T>
GT_ELEMENT T max_nan(T a, T b) {
  const T m = a > b ? a : b;
  if constexpr (std::is_floating_point_v<T>)
    return (a != a) | (b != b) ? std::numeric_limits<T>::quiet_NaN() : m;
  return m;
}
template <typename T>
GT_ELEMENT T min_nan(T a, T b) {
  const T m = a < b ? a : b;
  if constexpr (std::is_floating_point_v<T>)
    return (a != a) | (b != b) ? std::numeric_limits<T>::quiet_NaN() : m;
  return m;
}

/// torch.lerp as torch's vector loop rounds it: with d = end - start, fma(w, d, start)
/// where |w| < 0.5, else fma(w - 1, d, end), which keeps lerp(a, b, 1) == b. (torch's
/// scalar loop, on the last elements of a run that fill no vector, computes end - d *
/// (1 - w) for |w| >= 0.5, whose zero results can differ in sign: lerp(0.6, -0., 1) is
/// -0. in the vector loop, +0. in the scalar one. This follows the vector loop.)
template <typename T>
GT_ELEMENT T lerp_element(T start, T end, T w) {
  const T d = end - start;
  const T low = std::fma(w, d, start), high = std::fma(w - T(1), d, end);
  return std::fabs(w) < T(0.5) ? low : high;
}

/// torch.addcmul, fma(value * t1, t2, self), and addcdiv, self + value * t1 / t2, in
/// torch's order of rounding.
template <bool kDivide, typename T>
GT_ELEMENT T addcmul_element(T self, T t1, T t2, T value) {
  if constexpr (kDivide)
    return self + value * t1 / t2;
  else
    return std::fma(value * t1, t2, self);
}

/// torch.nan_to_num: NaN, +inf and -inf replaced by with[0..2].
template <typename T>
GT_ELEMENT T nan_to_num_element(T x, const T* with) {
  constexpr T inf = std::numeric_limits<T>::infinity();
  return x != x ? with[0] : x == inf ? with[1] : x == -inf ? with[2] : x;
}

#undef GT_ELEMENT

}  // namespace gradtrack::kernels
