// NOTE [Vector sin and cos]
// libm's sinf and cosf cost about 7 ns an element here (Intel Xeon, family 6 model 207):
// 1M floats took 11x torch's SLEEF kernels. These are plain loops of multiply-adds and
// selects that the compiler vectorizes in each clone, on doubles: a float's sin or cos
// worked to double precision and rounded once is within 0.5 ulp plus a hair, where a
// float-only kernel needs double-float steps to stay under 1 ulp.
//
// Reduction: sin takes x = n pi + r, cos x = (n + 1/2) pi - r, n the nearest integer
// (from the shifted sum's low bits, no rounding instruction), so that |r| <= pi/2 and the
// result is (-1)^n sin(r) in both. pi is split into two doubles: x - k pi_hi is exact
// (both are multiples of 2^-52 and the difference is below 2), the second step rounds
// once, relative to r; pi_hi + pi_lo is 2^-108 off pi, far under that rounding even
// where x is closest to a multiple of pi (a third part changed no result). sin(r) =
// r (1 + s P(s)), s = r^2, P of degree 4 fitted to the relative error (minimax, 2^-35;
// degree 3, at 2^-27 about 0.1 ulp more, was 4% faster).
//
// Range: |x| < 2^45. Past 2^46 the error grows (x / pi rounded to double leaves n off by
// one, r past the fitted interval), and from 2^52 the shifted sum no longer holds n.
// From the bound on, and for inf and NaN, libm's value, in a second pass run only for
// the blocks of 1024 that hold such an element (in place, the first pass leaves x there).
//
// Accuracy, over every float with |x| < 2^45 against float64 sin and cos: at most
// 0.5004 ulp (sin) and 0.5006 (cos), 0.084 and 0.085 on average. torch's SLEEF kernels
// over the positive ones: 0.601 and 0.606 at most, 0.0843 and 0.0858 on average.
//
// Time against torch on one thread, in turns in one process (64K, 1M, 4M floats): sin
// 1.00x, 0.99x, 1.00x; cos, whose n + 1/2 costs two more operations per vector, 1.19x,
// 1.10x, 1.09x. In place (with the select that keeps x), 1M: 1.06x and 1.14x.
//
// tan takes the same steps by pi/2: x = n pi/2 + r, |r| <= pi/4, and sin(r)/cos(r) for
// even n, -cos(r)/sin(r) for odd, both as their Taylor series through r^15 and r^16 (the
// rest below 3e-14 of them), one division. Within 0.5 ulp and a hair of float64 over
// every 257th float (glibc's tanf: 1.16; torch's: 0.54), 1.6 ms for 1M floats on one
// thread against torch's 0.6-0.9 and tanf's 9.5-15.8. Past 2^45, libm's double tan.
//
// NOTE [Vector atan]
// glibc's atanf took one element per call (16 ns) and was 0.83 ulp off at most; the
// double atan it gave way to (NOTE [Float32 through double libm] in pointwise.cpp) is
// exact but as slow. Here, in double: a = |x| and, by where a lies, atan(a) = atan(v)
// (a <= tan(pi/8), v = a), pi/4 + atan(v) (a <= tan(3pi/8), v = (a - 1)/(a + 1)) or
// pi/2 + atan(v) (v = -1/a), one division for all three; |v| <= tan(pi/8), and atan(v) =
// v + v s P(s), s = v^2, P a degree-8 fit of its relative error made here (2^-49.8).
// Rounded once to float: within 0.5 ulp and a hair of float64. The sign goes back on
// last; inf gives pi/2 and NaN stays NaN (the third case, -1/NaN). On Intel's AVX-512,
// where this loop took 3.3x torch's time, NOTE [atan from rows of polynomials] takes over.

// NOTE [Vector asin and acos]
// As atan's, in double and rounded once (glibc's asinf and acosf: 0.82 and 0.86 ulp,
// then its double functions at 8x torch's time). a = |x|; up to 1/2, asin(a) = u + u s
// P(s) with u = a, s = a^2; above, asin(a) = pi/2 - 2 asin(u) with s = (1 - a)/2 (exact)
// and u = sqrt(s), so the same polynomial (a degree-10 fit made here, 2^-48.7) serves
// both. acos(x) = pi/2 - asin(x) up to 1/2, 2 asin(u) above and pi - 2 asin(u) below
// -1/2. |x| > 1 gives NaN (the square root of a negative s).

#include "kernels/simd_trig.h"

#include <algorithm>
#include <atomic>
#include <cmath>

#include "core/half.h"
#include "kernels/double_horner.h"
#include "kernels/simd_clones.h"

#define GT_INLINE __attribute__((always_inline))

namespace gradtrack::kernels::simd {

namespace {

constexpr int64_t kBlock = 1024;

// Below it the vector path; from it, and for inf and NaN, libm (as bits of |x|).
constexpr float kFastBound = 0x1p45f;
constexpr uint32_t kFastBoundBits = 0x56000000u;

// pi = kPiHi + kPiLo to 2^-108 (both positive: with n = 0 each step's product is -0,
// and sin(-0) keeps its sign).
constexpr double kPiHi = 0x1.921fb54442d18p+1;
constexpr double kPiLo = 0x1.1a62633145c07p-53;
constexpr double kInvPi = 0x1.45f306dc9c883p-2;
// Adding it leaves a double's integer part in its low mantissa bits.
constexpr double kShift = 0x1.8p52;

// sin(r) = r (1 + s P(s)), s = r^2, |r| <= pi/2: P's coefficients, lowest degree first
// (a minimax fit of the relative error in float64: 2^-35).
constexpr double kSinP[] = {-0x1.55555547695ffp-3, 0x1.11110c49fef20p-7, -0x1.a017d99f880a1p-13,
                            0x1.7170800a8f0cbp-19, -0x1.9a68855768452p-26};

// (atan(v)/v - 1) / v^2 in s = v^2 for |v| <= tan(pi/8), lowest degree first.
constexpr double kAtanP[] = {-0x1.55555555521b7p-2, 0x1.99999993a4949p-3,  -0x1.2492473ea1697p-3,
                             0x1.c71bd97065993p-4,  -0x1.744f8336b3c41p-4, 0x1.3a56f6648618ep-4,
                             -0x1.0aa84658beb8bp-4, 0x1.9ca644657c6ebp-5,  -0x1.a1539bc40e267p-6};
// (asin(u)/u - 1) / u^2 in s = u^2 for u <= 1/2, lowest degree first.
constexpr double kAsinP[] = {0x1.555555554b6c3p-3, 0x1.33333341e67a3p-4, 0x1.6db6d3fa256fap-5,
                             0x1.f1c8f61e78d8dp-6, 0x1.6e6a4a095c5e8p-6, 0x1.1dbb3d704715ap-6,
                             0x1.b65aa22e773b6p-7, 0x1.c8ad5e55ec32ap-7, 0x1.2fef20c82b5b9p-8,
                             0x1.71354192a7e66p-7, 0x1.e4f22fac91207p-7};
constexpr double kPi = 0x1.921fb54442d18p+1;
// sin(r) = r (1 + s S(s)) and cos(r) = 1 + s C(s), s = r^2, |r| <= pi/4: their Taylor
// series through r^15 and r^16 (the rest is below 3e-14 of them), lowest degree first.
constexpr double kTanSinS[] = {
    -0x1.5555555555555p-3,  0x1.1111111111111p-7,  -0x1.a01a01a01a01ap-13, 0x1.71de3a556c734p-19,
    -0x1.ae64567f544e4p-26, 0x1.6124613a86d09p-33, -0x1.ae7f3e733b81fp-41};
constexpr double kTanCosC[] = {
    -0x1.0000000000000p-1,  0x1.5555555555555p-5,  -0x1.6c16c16c16c17p-10, 0x1.a01a01a01a01ap-16,
    -0x1.27e4fb7789f5cp-22, 0x1.1eed8eff8d898p-29, -0x1.93974a8c07c9dp-37, 0x1.ae7f3e733b81fp-45};
constexpr double kPi2Hi = 0x1.921fb54442d18p+0, kPi2Lo = 0x1.1a62633145c07p-54;
constexpr double kTwoOverPi = 0x1.45f306dc9c883p-1;
constexpr double kTanPi8 = 0x1.a827999fcef32p-2, kTan3Pi8 = 0x1.3504f333f9de6p+1;
constexpr double kPi4 = 0x1.921fb54442d18p-1, kPi2 = 0x1.921fb54442d18p+0;

GT_INLINE inline uint32_t abs_bits(float v) { return float_bits(v) & 0x7fffffffu; }

// sin(x) (kCos false) or cos(x) (kCos true) for |x| < kFastBound, to double precision
// before the one rounding to float.
template <bool kCos>
GT_INLINE inline float sin_cos_fast(float x) {
  const double xd = x;
  // sin: x = n pi + r, sin(x) = (-1)^n sin(r).
  // cos: x = (n + 1/2) pi - r, cos(x) = (-1)^n sin(r).
  const double t = (kCos ? std::fma(xd, kInvPi, -0.5) : xd * kInvPi) + kShift;
  const double k = kCos ? (t - kShift) + 0.5 : t - kShift;
  // The first step is exact (x and k kPiHi are multiples of 2^-52, the difference is
  // below 2 in size); the second rounds once, relative to r.
  double r = kCos ? std::fma(k, kPiHi, -xd) : std::fma(-k, kPiHi, xd);
  r = kCos ? std::fma(k, kPiLo, r) : std::fma(-k, kPiLo, r);
  const double s = r * r;
  // r (1 + s P) rather than r + r s P: -0 stays -0
  const double y = r * std::fma(s, horner(kSinP, s), 1.0);
  // n's parity is the low bit of t
  return static_cast<float>(bits_double(double_bits(y) ^ (double_bits(t) << 63)));
}

// tan(x) for |x| < kFastBound to double precision before the one rounding to float:
// x = n pi/2 + r, tan(x) = sin(r)/cos(r) for even n and -cos(r)/sin(r) for odd (one
// division either way).
GT_INLINE inline float tan_fast(float x) {
  const double xd = x;
  const double t = xd * kTwoOverPi + kShift;
  const double k = t - kShift;
  double r = std::fma(-k, kPi2Hi, xd);  // exact, as for sin
  r = std::fma(-k, kPi2Lo, r);
  const double s = r * r;
  const double sn = r * std::fma(s, horner(kTanSinS, s), 1.0);
  const double cs = std::fma(s, horner(kTanCosC, s), 1.0);
  const bool odd = double_bits(t) & 1;
  return static_cast<float>(odd ? -cs / sn : sn / cs);
}

// atan(x) to double precision before the one rounding to float.
GT_INLINE inline float atan_of(float x) {
  const double a = std::fabs(double(x));
  const bool low = a <= kTanPi8, mid = a <= kTan3Pi8;
  const double num = low ? a : mid ? a - 1.0 : -1.0;
  const double den = low ? 1.0 : mid ? a + 1.0 : a;
  const double base = low ? 0.0 : mid ? kPi4 : kPi2;
  const double v = num / den, s = v * v;
  const double y = base + std::fma(v * s, horner(kAtanP, s), v);
  return std::copysign(static_cast<float>(y), x);
}

// asin(x) (kAcos false) or acos(x) (kAcos true) to double precision before the one
// rounding to float.
template <bool kAcos>
GT_INLINE inline float asin_acos_of(float x) {
  const double xd = x, a = std::fabs(xd);
  const bool low = a <= 0.5;
  const double s = low ? a * a : 0.5 - 0.5 * a;
  const double u = low ? a : std::sqrt(s);
  const double q = std::fma(u * s, horner(kAsinP, s), u);  // asin(u)
  if (!kAcos) return std::copysign(static_cast<float>(low ? q : kPi2 - 2.0 * q), x);
  const double y = low ? kPi2 - std::copysign(q, xd) : xd > 0.0 ? 2.0 * q : kPi - 2.0 * q;
  return static_cast<float>(y);
}

// The vector loop over blocks. Elements outside the fast range (|x| >= kFastBound, inf,
// NaN) get libm's value in a second pass, run only for the blocks that hold one: from
// in[] when out is another array, else from out[], where the first pass left x for
// them (no result of the fast path is that large).
template <typename Fast, typename F>
GT_INLINE inline void fast_blocks(const float* in, float* out, int64_t n, const Fast& fast,
                                  const F& libm) {
  const bool keep = in == out;
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t m = std::min(kBlock, n - b);
    const float* x = in + b;
    float* o = out + b;
    uint32_t largest = 0;  // the bits of the largest |x|, NaN above all
    if (keep) {
      for (int64_t i = 0; i < m; ++i) {
        const float v = x[i];
        const uint32_t a = abs_bits(v);
        largest = std::max(largest, a);
        const float y = fast(v);
        o[i] = a < kFastBoundBits ? y : v;
      }
    } else {
      for (int64_t i = 0; i < m; ++i) {
        largest = std::max(largest, abs_bits(x[i]));
        o[i] = fast(x[i]);
      }
    }
    if (largest >= kFastBoundBits)
      for (int64_t i = 0; i < m; ++i) {
        const float v = keep ? o[i] : x[i];
        if (!(std::fabs(v) < kFastBound)) o[i] = libm(v);
      }
  }
}

}  // namespace

GT_CLONES_V4_V3 void sin(const float* in, float* out, int64_t n) {
  fast_blocks(
      in, out, n, [](float v) GT_INLINE { return sin_cos_fast<false>(v); },
      [](float v) { return std::sin(v); });
}

GT_CLONES_V4_V3 void cos(const float* in, float* out, int64_t n) {
  fast_blocks(
      in, out, n, [](float v) GT_INLINE { return sin_cos_fast<true>(v); },
      [](float v) { return std::cos(v); });
}

namespace {

std::atomic<bool> g_atan_rows{true};

GT_CLONES_V4_V3 void atan_in_lanes(const float* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = atan_of(in[i]);
}

}  // namespace

bool atan_rows() { return intel_avx512() && g_atan_rows.load(std::memory_order_relaxed); }

void set_atan_rows(bool on) { g_atan_rows.store(on, std::memory_order_relaxed); }

void atan(const float* in, float* out, int64_t n) {
#ifdef GT_HAVE_SIMD_CLONES
  if (atan_rows()) return atan_by_rows(in, out, n);
#endif
  atan_in_lanes(in, out, n);
}

GT_CLONES_V4_V3 void asin(const float* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = asin_acos_of<false>(in[i]);
}

GT_CLONES_V4_V3 void acos(const float* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = asin_acos_of<true>(in[i]);
}

GT_CLONES_V4_V3 void tan(const float* in, float* out, int64_t n) {
  fast_blocks(
      in, out, n, [](float v) GT_INLINE { return tan_fast(v); },
      [](float v) { return static_cast<float>(std::tan(double(v))); });
}

}  // namespace gradtrack::kernels::simd
