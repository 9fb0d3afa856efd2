// NOTE [Vector tanh and gelu]
// libm's tanhf and erff cost 10-15 ns an element here: tanh and gelu of 4M floats took
// 40-60x torch's vector kernels. These are written so that the compiler vectorizes them
// in each clone (plain loops of selects and multiply-adds, -fno-trapping-math), in
// blocks of 1024 elements whose exponentials come from the vector exp (simd.h) and stay
// in L1 between the passes.
//
// tanh. |x| < 0.625: x + x s P(s), s = x^2, P a degree-6 fit of (tanh(x)/x - 1)/s
// (weighted to tanh's relative error: 0.001 ulp with the float coefficients).
// Otherwise, with t = exp(-2|x|): (1 - t)/(1 + t). Done plainly, the roundings of
// 1 - t, 1 + t and the quotient cost up to 1.5 ulp; here both sums are kept exactly
// as hi + lo (t < 1), the quotient's remainder comes from an FMA, and the correction
// is scaled by 1/(1 + t) = (1 + q)/2. Over every 7th float in [1e-30, 20]: at most 0.82
// ulp from float64, 0.257 on average (torch's SLEEF tanh: 0.57 and 0.250). The sign
// is put back last, so -0 stays -0.
//
// gelu. torch computes x/2 (1 + erf(z)), z = x / sqrt 2 rounded. For x below about
// -1.4 that sum cancels: torch is 40 ulp off at x = -1.8 and gives -0 from x = -5.6,
// where gelu is -2e-8. And near x = -1.4 z's rounding alone costs 5 ulp. Here:
// - |z| < 1: Q a degree-6 fit of erf(z)/z - 1 (0.02 ulp), and 1 + (z + z Q(z^2)) for
//   z >= 0, (1 + z) + z Q(z^2) for z < 0 (1 + z is exact where 1 + erf(z) cancels);
// - |z| >= 1: erfc(|z|) for z < 0, 2 - erfc(|z|) for z > 0, with erfc(a) = exp(-a^2)
//   R(t), t = 1/(1 + a/2), R a degree-10 fit of erfc(a) exp(a^2) over [1, 11]
//   (0.002 ulp; past 11 erfc is 0 in float). a^2 = x^2/2 is split into h + l exactly
//   ((x/2) x and an FMA) and exp(-a^2) = exp(-h)(1 - l): rounding a^2 first would
//   cost a^2 ulps (16 at a = 4);
// - z's rounding error (and sqrt(1/2)'s, a float pair) is added back times erf'(z).
// Within 2 ulp of float64 for x > -0.5 (torch: 2.1), 3.5 near x = -1.4 (torch: 6), 8.5
// on the negative tail, where torch's error grows without bound. The derivative,
// Phi(x) + x phi(x), takes phi from the same exponential.
//
// Left on libm: torch.erf and torch.erfc of their own. Through this erfc (its float
// Horner sum and the quotient t cost 1.5 ulp before the exponential's) erfc was up to
// 5 ulp off and erf 1.3, where torch's are within 0.9.
#include "kernels/simd_math.h"

#include <algorithm>
#include <cmath>

#include "kernels/exp_blocks.h"
#include "kernels/simd.h"
#include "kernels/simd_clones.h"

#define GT_INLINE __attribute__((always_inline))

namespace gradtrack::kernels::simd {

namespace {

constexpr int64_t kBlock = 1024;

// P, Q and R's coefficients, lowest degree first (fitted in float64, then rounded to
// float one by one with the rest refitted).
constexpr float kTanhP[] = {-0x1.555556p-2f, 0x1.11114ep-3f, -0x1.ba29eep-5f, 0x1.670c5ep-6f,
                            -0x1.26c542p-7f, 0x1.e2ff8ep-9f, -0x1.2a1eaep-10f};
constexpr float kErfQ[] = {0x1.06eba8p-3f, -0x1.81273ep-2f,  0x1.ce2ce6p-4f, -0x1.b7f71ap-6f,
                           0x1.53f224p-8f, -0x1.a3515ep-11f, 0x1.4771fcp-14f};
constexpr float kErfcR[] = {0x1.2315fap-21f, 0x1.20d8a8p-2f, 0x1.2123fap-2f, 0x1.f4e85ep-3f,
                            0x1.81137cp-3f,  0x1.70a236p-5f, 0x1.299326p-4f, -0x1.01558ep-3f,
                            -0x1.9a45b0p-4f, 0x1.590efcp-3f, -0x1.d721e6p-5f};
constexpr float kTanhSmall = 0.625f;  // below it the polynomial, from it the exponential
constexpr float kErfSmall = 1.0f;
constexpr float kErfcZero = 11.0f;  // erfc(z) is 0 in float from here
constexpr float kSqrt1_2 = 0x1.6a09e6p-1f, kSqrt1_2Lo = 0x1.9fcef4p-27f;  // hi + lo
constexpr float kTwoOverSqrtPi = 0x1.20dd76p+0f;
constexpr float kInvSqrt2Pi = 0.39894228040143268f;  // 1 / sqrt(2 pi)

template <int N>
GT_INLINE inline float horner(const float (&c)[N], float x) {
  float p = c[N - 1];
  for (int k = N - 2; k >= 0; --k) p = p * x + c[k];
  return p;
}

// tanh(a) for 0 <= a < kTanhSmall.
GT_INLINE inline float tanh_small(float a) {
  const float s = a * a;
  return std::fma(a * s, horner(kTanhP, s), a);
}

// tanh(a) for a >= kTanhSmall from t = exp(-2a): (1 - t) / (1 + t), the sums kept as
// hi + lo (exact: |t| < 1) and the quotient corrected by its remainder.
GT_INLINE inline float tanh_large(float t) {
  const float nh = 1.0f - t, nl = (1.0f - nh) - t;
  const float dh = 1.0f + t, dl = (1.0f - dh) + t;
  const float q = nh / dh;
  const float rem = std::fma(-q, dh, nh);  // exact
  const float corr = std::fma(-q, dl, rem + nl);
  return std::fma(corr, std::fma(0.5f, q, 0.5f), q);  // (1 + q) / 2 = 1 / (1 + t)
}

// erfc(a), 1 <= a <= kErfcZero, with a^2 = h + l exactly and ex = exp(-h).
GT_INLINE inline float erfc_tail(float a, float ex, float l) {
  const float t = 1.0f / std::fma(0.5f, a, 1.0f);
  const float er = ex * horner(kErfcR, t);
  return std::fma(-er, l, er);  // exp(-h - l) = exp(-h) (1 - l), |l| tiny
}

// 1 + erf(z), z = x / sqrt 2, for gelu and its derivative; ex = exp(-h) with
// (x/2) x = h + l (x clamped as in gelu_exponent).
GT_INLINE inline float one_plus_erf(float x, float ex) {
  const float z = x * kSqrt1_2;
  const float a = std::min(std::fabs(z), kErfcZero);
  const float xa = std::min(std::fabs(x), kErfcZero * 1.4142135f);
  const float h = 0.5f * xa * xa, l = std::fma(0.5f * xa, xa, -h);
  const float tail = erfc_tail(std::max(a, kErfSmall), ex, l);
  // z < 0: 1 + z is exact from z = -1 to -0.5, where the sum cancels most
  const float q = horner(kErfQ, z * z);
  const float near0 = z < 0.0f ? std::fma(z, q, 1.0f + z) : 1.0f + std::fma(z, q, z);
  // x / sqrt 2 - z, the part of the product rounded off (with sqrt(1/2)'s own), times
  // erf'(z) = 2/sqrt(pi) exp(-z^2)
  const float zl = std::fma(x, kSqrt1_2, -z) + x * kSqrt1_2Lo;
  const float near = std::fma(kTwoOverSqrtPi * ex, zl, near0);
  const float far = z > 0.0f ? 2.0f - tail : tail;
  return a < kErfSmall ? near : far;
}

// -(x/2) x for |x| clamped where erfc(|x| / sqrt 2) is 0 in float.
GT_INLINE inline float gelu_exponent(float x) {
  const float xa = std::min(std::fabs(x), kErfcZero * 1.4142135f);
  return -(0.5f * xa * xa);
}

}  // namespace

GT_CLONES_V4_V3 void tanh(const float* in, float* out, int64_t n) {
  exp_blocks(
      n, [in](int64_t i) GT_INLINE { return -2.0f * std::fabs(in[i]); },
      [in, out](int64_t i, float t) GT_INLINE {
        const float x = in[i], a = std::fabs(x);
        const float small = tanh_small(a), large = tanh_large(t);
        out[i] = std::copysign(a < kTanhSmall ? small : large, x);  // NaN: large is NaN
      });
}

GT_CLONES_V4_V3 void gelu(const float* in, float* out, int64_t n) {
  exp_blocks(
      n, [in](int64_t i) GT_INLINE { return gelu_exponent(in[i]); },
      [in, out](int64_t i, float ex) GT_INLINE {
        const float x = in[i];
        out[i] = (0.5f * x) * one_plus_erf(x, ex);
      });
}

GT_CLONES_V4_V3 void gelu_tanh(const float* in, float* out, int64_t n) {
  // torch's order: beta * (x + kappa * x^3), then x/2 * (1 + tanh(inner)).
  constexpr float kBeta = 0.79788456080286536f, kKappa = 0.044715f;
  alignas(64) float inner[kBlock];
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t m = std::min(kBlock, n - b);
    for (int64_t i = 0; i < m; ++i) {
      const float x = in[b + i];
      inner[i] = kBeta * (x + kKappa * (x * x * x));
    }
    tanh(inner, inner, m);
    for (int64_t i = 0; i < m; ++i) out[b + i] = (0.5f * in[b + i]) * (1.0f + inner[i]);
  }
}

GT_CLONES_V4_V3 void gelu_backward(const float* g, int64_t g_step, const float* x, float* out,
                                   int64_t n) {
  exp_blocks(
      n, [x](int64_t i) GT_INLINE { return gelu_exponent(x[i]); },
      [g, g_step, x, out](int64_t i, float ex) GT_INLINE {
        const float v = x[i];
        const float xa = std::min(std::fabs(v), kErfcZero * 1.4142135f);
        const float h = 0.5f * xa * xa, l = std::fma(0.5f * xa, xa, -h);
        const float pdf = kInvSqrt2Pi * std::fma(-ex, l, ex);
        const float cdf = 0.5f * one_plus_erf(v, ex);
        out[i] = g[i * g_step] * std::fma(v, pdf, cdf);
      });
}

}  // namespace gradtrack::kernels::simd
