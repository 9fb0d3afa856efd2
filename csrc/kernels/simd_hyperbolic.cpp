// NOTE [Vector sinh and cosh]
// glibc's sinhf and coshf take one element per call (12-25 ns here: 6-12x torch's time
// over 1M floats) and are up to 1.7 ulp off. These work in double, in plain loops that
// each clone vectorizes, and round once to float:
// - a = |x|, clamped to 100 (float's results overflow from 89.42; NaN passes), and
//   a = n ln2 + r, |r| <= ln2/2 (ln2 in two parts);
// - e^r = C + S with C = cosh r and S = sinh r their Taylor series through r^10 and
//   r^11 (the rest is below 7e-15 of them), so e^-r = C - S costs nothing more;
// - cosh a = 2^(n-1) (C + S) + 2^(-n-1) (C - S), and sinh a the difference, except for
//   n = 0, where the difference would cancel and sinh a is S itself.
// The double result is within 1e-14 (relative) of the exact value, so its rounding to
// float lands within 0.5 ulp (and a hair) of float64. The sign goes back on last: sinh(-0) is -0.
//
// NOTE [Vector atanh]
// atanh likewise, for float32 in double (glibc's atanhf: 1.63 ulp; its double atanh,
// rounded, was within 0.5 but 16x torch's time). a = |x|; below 1/2, atanh(a) = a +
// a s P(s), s = a^2, P a degree-11 fit made here (2^-50). From 1/2, atanh(a) = log(w)/2
// with w = (1 + a)/(1 - a) (1 - a and 1 + a exact), w = 2^k m from its bits, m in
// [sqrt(1/2), sqrt 2), and log(m) = 2 atanh(z), z = (m - 1)/(m + 1), |z| < 0.172: the
// same polynomial. a = 1 gives inf, a > 1 and NaN give NaN, and the sign goes back on
// last.
#include "kernels/simd_hyperbolic.h"

#include <algorithm>
#include <cmath>

#include "core/half.h"
#include "kernels/double_horner.h"
#include "kernels/simd_clones.h"

#define GT_INLINE __attribute__((always_inline))

namespace gradtrack::kernels::simd {

namespace {

constexpr double kLn2Hi = 0x1.62e42fefa39efp-1, kLn2Lo = 0x1.abc9e3b39803fp-56;
constexpr double kInvLn2 = 0x1.71547652b82fep+0;
constexpr double kShift = 0x1.8p52;  // adding it leaves the integer part in the low bits
constexpr double kClamp = 100.0;
// (C - 1) / r^2 and (S / r - 1) / r^2 in s = r^2, lowest degree first: 1/(2k)! and
// 1/(2k+1)!.
constexpr double kCoshC[] = {0x1.0000000000000p-1, 0x1.5555555555555p-5, 0x1.6c16c16c16c17p-10,
                             0x1.a01a01a01a01ap-16, 0x1.27e4fb7789f5cp-22};
constexpr double kSinhS[] = {0x1.5555555555555p-3, 0x1.1111111111111p-7, 0x1.a01a01a01a01ap-13,
                             0x1.71de3a556c734p-19, 0x1.ae64567f544e4p-26};

// (atanh(a)/a - 1) / a^2 in s = a^2 for a <= 1/2, lowest degree first.
constexpr double kAtanhP[] = {0x1.5555555557ebcp-2, 0x1.99999995147e8p-3, 0x1.24924a82b61b9p-3,
                              0x1.c71c08b25f88cp-4, 0x1.74662c69452b5p-4, 0x1.3a96fd14a1bd9p-4,
                              0x1.155b1a46206dbp-4, 0x1.b177f3b064ee5p-5, 0x1.2b4b3066e6d77p-4,
                              0x1.57402afb45c5fp-7, 0x1.cc47900b2d57bp-5, 0x1.8b165ed4c821cp-4};
constexpr uint64_t kSqrtHalfBits = 0x3fe6a09e667f3bcdull;  // sqrt(1/2) as a double

// sinh(|x|) (kCosh false) or cosh(x) (kCosh true), rounded once.
template <bool kCosh>
GT_INLINE inline float hyperbolic(float x) {
  const double a = std::min(std::fabs(double(x)), kClamp);
  const double t = a * kInvLn2 + kShift;
  const double k = t - kShift;
  double r = std::fma(-k, kLn2Hi, a);
  r = std::fma(-k, kLn2Lo, r);
  const double s = r * r;
  const double c = std::fma(s, horner(kCoshC, s), 1.0);
  const double sh = std::fma(r * s, horner(kSinhS, s), r);
  const uint64_t n = double_bits(t) - 0x4338000000000000ull;     // k as an integer, 0 <= k <= 145
  const double up = bits_double((n + 1022) << 52) * (c + sh);    // e^a / 2
  const double down = bits_double((1022 - n) << 52) * (c - sh);  // e^-a / 2
  if (kCosh) return static_cast<float>(up + down);
  return static_cast<float>(n == 0 ? sh : up - down);
}

// atanh(u) for |u| <= 1/2.
GT_INLINE inline double atanh_small(double u) {
  const double s = u * u;
  return std::fma(u * s, horner(kAtanhP, s), u);
}

// atanh(|x|) to double precision, rounded once.
GT_INLINE inline float atanh_abs(float x) {
  const double a = std::fabs(double(x));
  const double w = (1.0 + a) / (1.0 - a);
  const int64_t ix = int64_t(double_bits(w) - kSqrtHalfBits);
  const double k = double(ix >> 52);
  const double m = bits_double((uint64_t(ix) & 0x000fffffffffffffull) + kSqrtHalfBits);
  const double big =
      0.5 * std::fma(k, kLn2Hi, std::fma(k, kLn2Lo, 2.0 * atanh_small((m - 1.0) / (m + 1.0))));
  const double v = a < 0.5 ? atanh_small(a) : big;
  return a < 1.0 ? static_cast<float>(v) : a == 1.0 ? INFINITY : NAN;
}

}  // namespace

GT_CLONES_V4_V3 void atanh(const float* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = std::copysign(atanh_abs(in[i]), in[i]);
}

GT_CLONES_V4_V3 void sinh(const float* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = std::copysign(hyperbolic<false>(in[i]), in[i]);
}

GT_CLONES_V4_V3 void cosh(const float* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = hyperbolic<true>(in[i]);
}

}  // namespace gradtrack::kernels::simd
