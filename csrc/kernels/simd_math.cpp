// NOTE [Vector tanh and gelu]
// libm's tanhf and erff cost 10-15 ns an element here: tanh and gelu of 4M floats took
// 40-60x torch's vector kernels. These are written so that the compiler vectorizes them
// in each clone (plain loops of selects and multiply-adds, -fno-trapping-math), in
// blocks of 1024 elements whose exponentials come from the vector exp (simd.h) and stay
// in L1 between the passes. The formulas are written once over a lane type
// (simd_math_lanes.h): one float in those loops, sixteen in AVX-512 intrinsics. gelu and
// its derivative take the latter where the CPU has AVX-512, computing each of their two
// branches only where it is taken (see gelu below), with the exponential inlined
// (simd_exp16.h) and erfc's division done by vrcp14ps and a step. On one thread of a
// Xeon (Emerald Rapids), 64K normal floats: gelu 35-37 us against the blocks' 73 (torch:
// 31-33, with its cheaper, less accurate erf). tanh likewise: 27 us against 37 (torch:
// 17-22).
//
// tanh. |x| < 0.625: x + x s P(s), s = x^2, P a degree-6 fit of (tanh(x)/x - 1)/s
// (weighted to tanh's relative error: 0.001 ulp with the float coefficients).
// Otherwise, with t = exp(-2|x|): (1 - t)/(1 + t). Done plainly, the roundings of
// 1 - t, 1 + t and the quotient cost up to 1.5 ulp; here both sums are kept exactly
// as hi + lo (t < 1), and the quotient is (1 - t) r, r a degree-4 fit of 1/(1 + t)
// (2^-18.9; a division costs more than the whole fit on a 64-byte vector), corrected
// by its remainder times r, which squares r's error. Over every 7th float in [1e-30,
// 20]: at most 0.82 ulp from float64, 0.257 on average (torch's SLEEF tanh: 0.57 and
// 0.250). The sign is put back last, so -0 stays -0.
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

#ifdef GT_HAVE_SIMD_CLONES
#include <immintrin.h>

#include "kernels/simd_exp16.h"
#endif

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
// 1 / (1 + t) for 0 <= t <= exp(-2 kTanhSmall), relative error 2^-18.9: the correction
// by q's remainder squares it.
constexpr float kRecipOnePlusT[] = {0x1.ffffbep-1f, -0x1.ffd2b4p-1f, 0x1.fae8f0p-1f,
                                    -0x1.cae4f6p-1f, 0x1.0b5f48p-1f};
// exp(-s) for 0 <= s <= 1 to 2^-11: it only scales z's rounding error in gelu's near
// branch.
constexpr float kExpNegS[] = {0x1.ffd5c0p-1f, -0x1.fb8c9cp-1f, 0x1.d63e2ep-2f, -0x1.98e8a8p-4f};
constexpr float kTanhSmall = 0.625f;  // below it the polynomial, from it the exponential
constexpr float kTanhOne = 9.5f;      // tanh rounds to 1 from 9.01
constexpr float kErfSmall = 1.0f;
constexpr float kErfcZero = 11.0f;  // erfc(z) is 0 in float from here
constexpr float kSqrt1_2 = 0x1.6a09e6p-1f, kSqrt1_2Lo = 0x1.9fcef4p-27f;  // hi + lo
constexpr float kTwoOverSqrtPi = 0x1.20dd76p+0f;
constexpr float kInvSqrt2Pi = 0.39894228040143268f;  // 1 / sqrt(2 pi)

// One float per lane: the loops of the AVX2 and baseline clones, which vectorize them.
namespace one_lane {
using V = float;
GT_INLINE inline V splat_(float c) { return c; }
GT_INLINE inline V fma_(V a, V b, V c) { return std::fma(a, b, c); }
GT_INLINE inline V min_(V a, V b) { return std::min(a, b); }
GT_INLINE inline V max_(V a, V b) { return std::max(a, b); }
GT_INLINE inline V abs_(V a) { return std::fabs(a); }
GT_INLINE inline bool less_(V a, V b) { return a < b; }
GT_INLINE inline V select_(bool m, V a, V b) { return m ? a : b; }
GT_INLINE inline V copysign_(V a, V s) { return std::copysign(a, s); }
GT_INLINE inline V recip_(V d) { return 1.0f / d; }
#include "kernels/simd_math_lanes.h"
}  // namespace one_lane

#ifdef GT_HAVE_SIMD_CLONES
#pragma GCC push_options
#pragma GCC target("arch=x86-64-v4")
// Sixteen floats per lane: the AVX-512 kernels, with the exponential inlined and the one
// division replaced by vrcp14ps and a step that leaves it within 2^-40 before rounding. The
// operations behave as one_lane's: min_ and max_ return their first operand when either is NaN, as
// std::min and std::max.
namespace sixteen_lanes {
using V = __m512;
GT_INLINE inline V splat_(float c) { return _mm512_set1_ps(c); }
GT_INLINE inline V splat_(V v) { return v; }
template <typename A, typename B, typename C>
GT_INLINE inline V fma_(A a, B b, C c) {
  return _mm512_fmadd_ps(splat_(a), splat_(b), splat_(c));
}
template <typename A, typename B>
GT_INLINE inline V min_(A a, B b) {
  return _mm512_min_ps(splat_(b), splat_(a));  // b < a ? b : a
}
template <typename A, typename B>
GT_INLINE inline V max_(A a, B b) {
  return _mm512_max_ps(splat_(b), splat_(a));  // b > a ? b : a
}
GT_INLINE inline V abs_(V a) { return _mm512_abs_ps(a); }
template <typename A, typename B>
GT_INLINE inline __mmask16 less_(A a, B b) {
  return _mm512_cmp_ps_mask(splat_(a), splat_(b), _CMP_LT_OQ);
}
GT_INLINE inline V select_(__mmask16 m, V a, V b) { return _mm512_mask_blend_ps(m, b, a); }
GT_INLINE inline V copysign_(V a, V s) {
  const __m512i sign = _mm512_set1_epi32(INT32_MIN);
  return _mm512_castsi512_ps(_mm512_ternarylogic_epi32(
      sign, _mm512_castps_si512(s), _mm512_castps_si512(a), 0xCA));  // sign ? s : a
}
GT_INLINE inline V recip_(V d) {
  const V r = _mm512_rcp14_ps(d);  // within 2^-14
  const V e = _mm512_fnmadd_ps(d, r, _mm512_set1_ps(1.0f));
  return _mm512_fmadd_ps(_mm512_fmadd_ps(e, e, e), r, r);  // r (1 + e + e^2)
}
#include "kernels/simd_math_lanes.h"

// out[i] = f(i, live) for each sixteen lanes i..i+15, the last ones masked to n.
template <typename F>
GT_INLINE inline void each16(int64_t n, F f) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) f(i, __mmask16(0xFFFF));
  if (i < n) f(i, static_cast<__mmask16>((1u << (n - i)) - 1));
}

// value(v) for each lane of x[0, m) where far(v) holds, packed into buf in order (buf
// holds m + 16 floats); returns how many.
template <typename Far, typename Value>
GT_INLINE inline int64_t pack_lanes(const float* x, int64_t m, float* buf, Far far, Value value) {
  int64_t packed = 0;
  each16(m, [&](int64_t i, __mmask16 live) GT_INLINE {
    const V v = _mm512_maskz_loadu_ps(live, x + i);
    const __mmask16 f = live & far(v);
    _mm512_storeu_ps(buf + packed, _mm512_maskz_compress_ps(f, value(v)));
    packed += __builtin_popcount(f);
  });
  return packed;
}

// tanh the same way: the lanes with |x| >= kTanhSmall packed for the exponential and
// the quotient (about half of normal inputs), the polynomial on the others.
void tanh(const float* in, float* out, int64_t n) {
  alignas(64) float big[kBlock + 16];
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t m = std::min(kBlock, n - b);
    const float* x = in + b;
    float* o = out + b;
    int64_t packed = pack_lanes(
        x, m, big, [](V v) GT_INLINE { return __mmask16(~less_(abs_(v), kTanhSmall)); },
        [](V v) GT_INLINE { return abs_(v); });
    each16(packed, [&](int64_t i, __mmask16 live) GT_INLINE {
      // tanh is 1 in float from 9.01: clamped, the exponential needs no check for huge
      // or NaN arguments (min_ passes NaN on)
      const V a = min_(_mm512_maskz_loadu_ps(live, big + i), kTanhOne);
      _mm512_mask_storeu_ps(big + i, live, tanh_large(exp16_pass<false>(-2.0f * a)));
    });
    packed = 0;
    each16(m, [&](int64_t i, __mmask16 live) GT_INLINE {
      const V v = _mm512_maskz_loadu_ps(live, x + i), a = abs_(v);
      const __mmask16 f = live & ~less_(a, kTanhSmall);
      const V r = _mm512_mask_expand_ps(tanh_small(a), f, _mm512_loadu_ps(big + packed));
      packed += __builtin_popcount(f);
      _mm512_mask_storeu_ps(o + i, live, copysign_(r, v));
    });
  }
}

// gelu over blocks, each branch only where it is taken: the lanes with |z| >= 1 are
// packed (vcompressps), their erfc and exponential computed densely, and put back
// (vexpandps) over the others' near branch. For normal inputs one lane in six is far.
void gelu(const float* in, float* out, int64_t n) {
  alignas(64) float far[kBlock + 16];
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t m = std::min(kBlock, n - b);
    const float* x = in + b;
    float* o = out + b;
    int64_t packed = pack_lanes(
        x, m, far, [](V v) GT_INLINE { return __mmask16(~less_(abs_(v * kSqrt1_2), kErfSmall)); },
        [](V v) GT_INLINE { return v; });
    each16(packed, [&](int64_t i, __mmask16 live) GT_INLINE {
      const V v = _mm512_maskz_loadu_ps(live, far + i);
      const V z = v * kSqrt1_2;
      const V e = exp16(gelu_exponent(v));
      _mm512_mask_storeu_ps(far + i, live,
                            (0.5f * v) * one_plus_erf_far(v, z, min_(abs_(z), kErfcZero), e));
    });
    packed = 0;
    each16(m, [&](int64_t i, __mmask16 live) GT_INLINE {
      const V v = _mm512_maskz_loadu_ps(live, x + i);
      const V z = v * kSqrt1_2, s = z * z;
      const __mmask16 f = live & ~less_(abs_(z), kErfSmall);
      const V near = (0.5f * v) * one_plus_erf_near(v, z, s, horner(kExpNegS, s));
      _mm512_mask_storeu_ps(o + i, live,
                            _mm512_mask_expand_ps(near, f, _mm512_loadu_ps(far + packed)));
      packed += __builtin_popcount(f);
    });
  }
}

// gelu' the same way: the exponential of every lane (phi needs it) kept in a block, the
// far lanes' Phi packed.
void gelu_backward(const float* g, int64_t g_step, const float* x, float* out, int64_t n) {
  alignas(64) float ex[kBlock], far_x[kBlock + 16], far_e[kBlock + 16];
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t m = std::min(kBlock, n - b);
    const float* xb = x + b;
    const float* gb = g + b * g_step;
    float* o = out + b;
    int64_t packed = 0;
    each16(m, [&](int64_t i, __mmask16 live) GT_INLINE {
      const V v = _mm512_maskz_loadu_ps(live, xb + i);
      const V e = exp16(gelu_exponent(v));
      _mm512_store_ps(ex + i, e);
      const __mmask16 f = live & ~less_(abs_(v * kSqrt1_2), kErfSmall);
      _mm512_storeu_ps(far_x + packed, _mm512_maskz_compress_ps(f, v));
      _mm512_storeu_ps(far_e + packed, _mm512_maskz_compress_ps(f, e));
      packed += __builtin_popcount(f);
    });
    each16(packed, [&](int64_t i, __mmask16 live) GT_INLINE {
      const V v = _mm512_maskz_loadu_ps(live, far_x + i);
      const V e = _mm512_maskz_loadu_ps(live, far_e + i);
      const V z = v * kSqrt1_2;
      _mm512_mask_storeu_ps(far_x + i, live,
                            0.5f * one_plus_erf_far(v, z, min_(abs_(z), kErfcZero), e));
    });
    packed = 0;
    each16(m, [&](int64_t i, __mmask16 live) GT_INLINE {
      const V v = _mm512_maskz_loadu_ps(live, xb + i);
      const V e = _mm512_load_ps(ex + i);
      const V z = v * kSqrt1_2;
      const __mmask16 f = live & ~less_(abs_(z), kErfSmall);
      const V near = 0.5f * one_plus_erf_near(v, z, z * z, e);
      const V cdf = _mm512_mask_expand_ps(near, f, _mm512_loadu_ps(far_x + packed));
      packed += __builtin_popcount(f);
      const V gv = g_step ? _mm512_maskz_loadu_ps(live, gb + i) : _mm512_set1_ps(*g);
      _mm512_mask_storeu_ps(o + i, live, gv * fma_(v, gelu_pdf(v, e), cdf));
    });
  }
}
}  // namespace sixteen_lanes
#pragma GCC pop_options

bool has_avx512() {
  static const bool ok = __builtin_cpu_supports("x86-64-v4");
  return ok;
}
#endif

GT_CLONES_V3 void tanh_in_blocks(const float* in, float* out, int64_t n) {
  exp_blocks(
      n, [in](int64_t i) GT_INLINE { return -2.0f * std::fabs(in[i]); },
      [in, out](int64_t i, float t) GT_INLINE { out[i] = one_lane::tanh_of(in[i], t); });
}

GT_CLONES_V3 void gelu_in_blocks(const float* in, float* out, int64_t n) {
  exp_blocks(
      n, [in](int64_t i) GT_INLINE { return one_lane::gelu_exponent(in[i]); },
      [in, out](int64_t i, float ex) GT_INLINE { out[i] = one_lane::gelu_of(in[i], ex); });
}

GT_CLONES_V3 void gelu_backward_in_blocks(const float* g, int64_t g_step, const float* x,
                                          float* out, int64_t n) {
  exp_blocks(
      n, [x](int64_t i) GT_INLINE { return one_lane::gelu_exponent(x[i]); },
      [g, g_step, x, out](int64_t i, float ex)
          GT_INLINE { out[i] = g[i * g_step] * one_lane::gelu_slope(x[i], ex); });
}

}  // namespace

void tanh(const float* in, float* out, int64_t n) {
#ifdef GT_HAVE_SIMD_CLONES
  if (has_avx512()) return sixteen_lanes::tanh(in, out, n);
#endif
  tanh_in_blocks(in, out, n);
}

void gelu(const float* in, float* out, int64_t n) {
#ifdef GT_HAVE_SIMD_CLONES
  if (has_avx512()) return sixteen_lanes::gelu(in, out, n);
#endif
  gelu_in_blocks(in, out, n);
}

void gelu_backward(const float* g, int64_t g_step, const float* x, float* out, int64_t n) {
#ifdef GT_HAVE_SIMD_CLONES
  if (has_avx512()) return sixteen_lanes::gelu_backward(g, g_step, x, out, n);
#endif
  gelu_backward_in_blocks(g, g_step, x, out, n);
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

}  // namespace gradtrack::kernels::simd
