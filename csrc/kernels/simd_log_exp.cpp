// NOTE [Vector log and expm1]
// libm's logf, log1pf and expm1f cost 3-12 ns an element here: log of 1M floats took 6.5x
// torch's time, log1p and expm1 10-12x, and softplus, log_sigmoid, mish and elu, built on
// them, 6-12x. These are plain loops of selects and multiply-adds that the compiler
// vectorizes in each clone (NOTE [SIMD clones] in simd.h). This file is built with
// -ffp-contract=off: the exact sums below (2Sum, products split by an FMA) hold only if
// the compiler fuses nothing it was not told to; every FMA is written out.
//
// log(u), u > 0. u = 2^k m with m in [sqrt(1/2), sqrt 2) from the bits (subnormals scaled
// by 2^23 first), f = m - 1 (exact), and log(1 + f) = f - f^2/2 + f^3 P(f), P a degree-8
// fit of (log1p(f) - f + f^2/2) / f^3 on [-0.293, 0.415] (relative error of the result
// 8e-10; no division). f - f^2/2 is kept as h + l exactly (f^2/2 split by an FMA, the
// sum a Fast2Sum, its larger operand known), the rest joins l, and each logarithm adds
// its k term to h exactly: log k ln2_hi (15 bits, so the product is exact), log2 k itself
// and h / ln 2 with the product's error from an FMA, log10 k log10(2)_hi (11 bits) and
// h log10(e). One rounding of the low part's size remains. A block of inputs all normal
// and positive (nearly every block) skips the subnormal scaling and the special values.
// Over every float, from float64 (max / mean ulp):
//   log 0.64 / 0.250, log2 0.76 / 0.250, log10 0.67 / 0.250.
// torch's SLEEF kernels: 0.55, 0.53 and 0.52 (mean 0.250); glibc's, which these
// replaced, 0.81, 0.75 and 1.97. The part of l that still costs: f^3 P(f) rounds at 2^-24
// of itself, up to 7% of the result. On Intel's AVX-512, log, log2 and log10 take a
// table instead (NOTE [Logarithm in sixteen lanes]).
//
// log1p(x): u = 1 + x rounded, and the part of x that rounding dropped, c (exact: from
// 1 - (u - x) or x - (u - 1), whichever operand is larger), enters the sum as c / u.
// |x| < 2^-25 gives x itself (-0 stays -0). Over every float: at most 0.66 ulp, 0.119 on
// average (torch 1.0 and 0.124).
//
// expm1(x): n = round(x / ln2), r = x - n ln2 as r + re exactly (ln2 in two parts, the
// first with 15 bits, so x - n ln2_hi is exact), t = 2^n. Then
// expm1(x) = (t - 1) + t r + t r^2/2 + t (r^3 P(r) + re (1 + r)) with P a degree-4 fit
// of (expm1(r) - r - r^2/2) / r^3 (relative error 5e-10 of the result). The first three
// terms are summed exactly (t - 1 is exact for |n| <= 24 and its error is carried past
// that; t r and t r^2/2 are exact products, r^2 split by an FMA), so one rounding
// remains. n > 127 scales by 2^(n - 127) last (t itself would overflow); x is clamped to
// [-30, 90] first, where the result is -1 and inf. |x| < 2^-25 gives x. Over every third
// float: at most 0.71 ulp, 0.041 on average (torch 1.0 and 0.041).
//
// erfinv(x) = x g(w), w = -log(1 - x^2) (nn.init.trunc_normal_ draws through it; the
// Newton steps on libm's erf in double it took were 60x torch's time): 1 - x^2 exact in
// double, w from the log's unrounded parts, g a degree-10 fit in w - 2.5 below w = 5 and
// in sqrt(w) - 3 above, in double and rounded once. Over every 97th float in (0, 1): at
// most 0.54 ulp from float64, 0.251 on average (torch's: 0.54 and 0.250).
//
// The activations compose these with the vector exp (simd.h) and tanh (simd_math.h) in
// torch's order of operations, one block of 1024 elements at a time.
#include "kernels/simd_log_exp.h"

#include <algorithm>
#include <atomic>
#include <cfloat>
#include <cmath>

#include "core/half.h"
#include "kernels/exp_blocks.h"
#include "kernels/simd.h"
#include "kernels/simd_clones.h"
#include "kernels/simd_math.h"
#include "kernels/simd_sixteen_loop.h"

#ifdef GT_HAVE_SIMD_CLONES
#include <immintrin.h>
#endif

#define GT_INLINE __attribute__((always_inline))

namespace gradtrack::kernels::simd {

namespace {

constexpr int64_t kBlock = 1024;

// Q and P's coefficients, lowest degree first (fitted in float64 to the relative error
// of the result, then rounded to float one by one with the rest refitted).
constexpr float kLogP[] = {0x1.555548p-2f,  -0x1.000006p-2f, 0x1.99a476p-3f,
                           -0x1.555c44p-3f, 0x1.233ba2p-3f,  -0x1.fc28c6p-4f,
                           0x1.e6c006p-4f,  -0x1.de021cp-4f, 0x1.1473b8p-4f};
constexpr float kExpm1P[] = {0x1.555554p-3f, 0x1.5554f4p-5f, 0x1.1112cep-7f, 0x1.6d4060p-10f,
                             0x1.9e8f6ap-13f};
constexpr float kLn2Hi = 0x1.62e4p-1f, kLn2Lo = 0x1.7f7d1cp-20f;           // ln 2 = hi + lo
constexpr float kInvLn2 = 0x1.715476p+0f, kInvLn2Lo = 0x1.4ae0c0p-26f;     // 1 / ln 2
constexpr float kLog10E = 0x1.bcb7b2p-2f, kLog10ELo = -0x1.5b235ep-27f;    // 1 / ln 10
constexpr float kLog10TwoHi = 0x1.344p-2f, kLog10TwoLo = 0x1.3509f8p-18f;  // log10(2)
constexpr double kLn2Double = 0x1.62e42fefa39efp-1;
// erfinv(x) / x as a polynomial in w - 2.5 for w = -log(1 - x^2) < 5 (kErfinvC), and in
// sqrt(w) - 3 from there (kErfinvT), lowest degree first: minimax fits of the relative
// error in float64 (2.3e-9 and 1.6e-9).
constexpr double kErfinvC[] = {
    0x1.805c5d0740ff5p+0,  0x1.f91e8b0a33afbp-3,   -0x1.11c42024e2cafp-8,  -0x1.48664576c17aap-10,
    0x1.c9c598fb73c30p-13, -0x1.4cfcf237ee4c1p-18, -0x1.ccfc6a3e6835fp-19, 0x1.f43f3d0698634p-22,
    0x1.35e186e51c195p-26, -0x1.2d6e067e693ffp-27, 0x1.70ea9eec8d257p-32};
constexpr double kErfinvT[] = {
    0x1.6a9efbdcc1c1bp+1,   0x1.006dc9d1f770fp+0,  0x1.3580d3fe94522p-7,  -0x1.f4e0c2cc6ec32p-8,
    0x1.74c2176b791d9p-8,   -0x1.d385434ccdb7ap-9, 0x1.828ff1990fd19p-10, -0x1.f963c0d3313b6p-14,
    -0x1.222f9706e7573p-12, 0x1.5165c834ffee8p-13, -0x1.f65ba420e8b1ap-16};
constexpr int32_t kSqrtHalfBits = 0x3f3504f3;  // the bits of sqrt(1/2) as a float
constexpr float kTiny = 0x1p-25f;              // below it log1p(x) and expm1(x) round to x

// c[0] + c[1] x + ... in float or double, unrolled (a loop left in the element function
// kept the caller's loop from vectorizing).
template <typename T, int N>
GT_INLINE inline T horner(const T (&c)[N], T x) {
  T p = c[N - 1];
#pragma GCC unroll 16
  for (int k = N - 2; k >= 0; --k) p = std::fma(p, x, c[k]);
  return p;
}

// a + b = s + e exactly (Knuth's 2Sum, for either order of magnitude).
GT_INLINE inline float two_sum(float a, float b, float& e) {
  const float s = a + b, bb = s - a;
  e = (a - (s - bb)) + (b - bb);
  return s;
}

// a + b = s + e exactly, for |a| >= |b| or a = 0 (Dekker's Fast2Sum).
GT_INLINE inline float fast_two_sum(float a, float b, float& e) {
  const float s = a + b;
  e = b - (s - a);
  return s;
}

// u 2^k_offset = 2^k (1 + f) for finite normal u > 0, and log(1 + f) = h + l, h the
// leading terms f - f^2/2 rounded and l the rest (with lo, a small correction, added).
struct LogParts {
  float k, h, l;
};

GT_INLINE inline LogParts log_parts(float u, int32_t k_offset, float lo) {
  const int32_t ix = int32_t(float_bits(u)) - kSqrtHalfBits;
  const float k = float((ix >> 23) + k_offset);
  const float f = bits_float(uint32_t((ix & 0x007fffff) + kSqrtHalfBits)) - 1.0f;
  const float hf = 0.5f * f;
  const float hfsq = hf * f, hfsq_lo = std::fma(hf, f, -hfsq);  // f^2/2 = hfsq + hfsq_lo
  float e;
  const float h = fast_two_sum(f, -hfsq, e);  // f^2/2 < |f|
  const float tail = std::fma((2.0f * hfsq) * f, horner(kLogP, f), lo);
  return {k, h, tail + (e - hfsq_lo)};
}

// k ln 2 + h + l: k ln2_hi + h is exact as a Fast2Sum (|h| < ln 2 / 2 < |k ln2_hi|, or
// k = 0), the rest joins the low part.
GT_INLINE inline float log_of(LogParts p) {
  float e;
  const float s = fast_two_sum(p.k * kLn2Hi, p.h, e);
  return s + (e + std::fma(p.k, kLn2Lo, p.l));
}

// log(u 2^k_offset) + lo for finite normal u > 0.
GT_INLINE inline float log_normal(float u, int32_t k_offset, float lo) {
  return log_of(log_parts(u, k_offset, lo));
}

// k + (h + l) / ln 2: (h + l) / ln 2 = h c_hi + (its rounding error, from an FMA) + the
// rest, and k + h c_hi is a Fast2Sum (|h c_hi| < 1/2 <= |k|, or k = 0). Powers of 2 give
// k exactly.
GT_INLINE inline float log2_of(LogParts p) {
  const float q = p.h * kInvLn2, qe = std::fma(p.h, kInvLn2, -q);
  float e;
  const float s = fast_two_sum(p.k, q, e);
  return s + ((e + qe) + std::fma(p.h, kInvLn2Lo, p.l * kInvLn2));
}

// k log10(2) + (h + l) log10(e): k log10(2)_hi is exact (11 bits), its sum with
// h log10(e)_hi a 2Sum, and the rest joins the low part.
GT_INLINE inline float log10_of(LogParts p) {
  const float q = p.h * kLog10E, qe = std::fma(p.h, kLog10E, -q);
  float e;
  const float s = two_sum(p.k * kLog10TwoHi, q, e);
  const float low = std::fma(p.k, kLog10TwoLo, std::fma(p.h, kLog10ELo, p.l * kLog10E));
  return s + ((e + qe) + low);
}

// f(x) for every float, f one of log_of, log2_of and log10_of (subnormals scaled by 2^23
// first).
template <typename Finish>
GT_INLINE inline float log_element(float x, Finish finish) {
  const bool sub = x < FLT_MIN;
  const float v = finish(log_parts(sub ? x * 0x1p23f : x, sub ? -23 : 0, 0.0f));
  return x > 0.0f && x < INFINITY ? v : x == 0.0f ? -INFINITY : x == INFINITY ? x : NAN;
}

// out[i] = f(in[i]) for a logarithm f: blocks of normal positive inputs (nearly all) skip
// the checks and the scaling.
template <typename Finish>
GT_INLINE inline void log_loop(const float* in, float* out, int64_t n, Finish finish) {
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t m = std::min(kBlock, n - b);
    const float* x = in + b;
    float* o = out + b;
    int special = 0;
    for (int64_t i = 0; i < m; ++i) special |= !(x[i] >= FLT_MIN) | !(x[i] < INFINITY);
    if (special) {
      for (int64_t i = 0; i < m; ++i) o[i] = log_element(x[i], finish);
    } else {
      for (int64_t i = 0; i < m; ++i) o[i] = finish(log_parts(x[i], 0, 0.0f));
    }
  }
}

GT_INLINE inline float log1p_element(float x) {
  const float u = 1.0f + x;
  const float c = std::fabs(x) >= 1.0f ? 1.0f - (u - x) : x - (u - 1.0f);  // 1 + x - u
  const float v = log_normal(u, 0, c / u);                                 // u >= 2^-24 for x > -1
  const float special = x == -1.0f ? -INFINITY : x == INFINITY ? x : NAN;
  return std::fabs(x) < kTiny ? x : x > -1.0f && x < INFINITY ? v : special;
}

// erfinv(x) = x g(w), w = -log(1 - x^2) in double: 1 - x^2 is exact there (but for tiny
// x), its float part's logarithm comes as the parts above, unrounded, and the rest as
// dl / dh. g and the product in double, rounded once.
GT_INLINE inline float erfinv_element(float x) {
  const float a = std::fabs(x);
  const double xd = x, dd = 1.0 - xd * xd;
  const float dh = float(dd);
  const double dl = dd - double(dh);
  const LogParts p = log_parts(dh, 0, 0.0f);
  const double w = -(double(p.k) * kLn2Double + (double(p.h) + double(p.l)) + dl / double(dh));
  const double g = w < 5.0 ? horner(kErfinvC, w - 2.5) : horner(kErfinvT, std::sqrt(w) - 3.0);
  const float v = float(xd * g);
  return a < 1.0f ? v : a == 1.0f ? std::copysign(INFINITY, x) : NAN;
}

GT_INLINE inline float expm1_element(float x) {
  const float xc = std::min(std::max(x, -30.0f), 90.0f);  // NaN stays NaN
  const float nf = std::nearbyint(xc * kInvLn2);
  const int32_t n = int32_t(nf);
  const float rh = std::fma(-nf, kLn2Hi, xc);  // exact
  const float rl = -nf * kLn2Lo;
  const float r = rh + rl, re = (rh - r) + rl;  // r + re = rh + rl exactly (|rh| > |rl|)
  const float t = bits_float(uint32_t(std::min(n, 127) + 127) << 23);
  const float tm1 = t - 1.0f, tl = (t - tm1) - 1.0f;  // t - 1 = tm1 + tl
  const float tr = t * r;                             // exact
  const float s = tm1 + tr, e = tr - (s - tm1);       // |tm1| > |tr| when n != 0
  const float r2 = r * r, r2l = std::fma(r, r, -r2);  // r^2 = r2 + r2l
  float e2;
  const float s2 = two_sum(s, (0.5f * t) * r2, e2);
  const float p = std::fma(r2 * r, horner(kExpm1P, r), std::fma(0.5f, r2l, std::fma(r, re, re)));
  const float v =
      (s2 + std::fma(t, p, (e + tl) + e2)) * bits_float(uint32_t(std::max(n - 127, 0) + 127) << 23);
  return (std::fabs(x) < kTiny) | (x != x) ? x : v;
}

#ifdef GT_HAVE_SIMD_CLONES
#pragma GCC push_options
#pragma GCC target("arch=x86-64-v4")
// NOTE [Logarithm in sixteen lanes]
// On Intel's AVX-512 the loop above spends about 40 vector operations on 16 floats, and
// log of 64K floats took 1.6-1.9x torch's time (MKL's), log2 1.75x. This one spends 22, and
// is nearer float64. x = 2^k m with m in [1, 2) from vgetmantps and k from vgetexpps
// (subnormals too); the top five bits of m's fraction pick one of 32 rows, each holding a
// c^-1 of at most 7 bits and log c as hi + lo (hi a multiple of 2^-15). Then r = m c^-1 - 1
// is exact in one FMA (|r| < 2^(1 - bits) over the row), and |r| <= 0.0205 but in the rows
// of c = 1 and c = 2 (x just above 1, r < 1/32, and just below, where k ln 2 cancels log c
// exactly). k ln2_hi + hi is exact (multiples of 2^-15 under 2^7), and adding r to it a
// Fast2Sum (|r| is smaller, or the sum is 0). log(1 + r) - r = r^2 (r Q(r) - 1/2), Q a
// degree-2 fit (7e-7 absolute); that, k ln2_lo + lo and the sum's error form the low part,
// and one rounding remains. log2 and log10 take the same rows with their own log_b c and
// log_b 2, r / ln b split exactly by an FMA into the sum and its low part, and Q scaled by
// 1 / ln b. One vfpclassps per vector finds zeros, negatives, infinities and NaNs; only
// such a vector takes the fix-up (NaN keeps its payload, as torch's). Two vectors per step.
// Over every float, at most (mean 0.250 each): log 0.525 ulp from float64, log2 0.528,
// log10 0.524 (torch's: 0.549, 0.534, 0.532).
// Intel only: Zen 4 keeps the loop, this path unmeasured there (no such machine was at
// hand).
namespace sixteen_lanes {

alignas(64) constexpr float kInvC[32] = {
    0x1p+0f,    0x1.e8p-1f, 0x1.d8p-1f, 0x1.dp-1f,  0x1.cp-1f,  0x1.b4p-1f, 0x1.a8p-1f, 0x1.ap-1f,
    0x1.94p-1f, 0x1.8cp-1f, 0x1.8p-1f,  0x1.78p-1f, 0x1.7p-1f,  0x1.68p-1f, 0x1.6p-1f,  0x1.58p-1f,
    0x1.5p-1f,  0x1.4cp-1f, 0x1.44p-1f, 0x1.4p-1f,  0x1.38p-1f, 0x1.34p-1f, 0x1.2cp-1f, 0x1.28p-1f,
    0x1.2p-1f,  0x1.1cp-1f, 0x1.18p-1f, 0x1.14p-1f, 0x1.1p-1f,  0x1.0cp-1f, 0x1.08p-1f, 0x1p-1f};
alignas(64) constexpr float kLogCHi[32] = {
    0x0p+0f,      0x1.894p-5f,  0x1.4d4p-4f,  0x1.934p-4f,  0x1.118p-3f,  0x1.491p-3f,
    0x1.824p-3f,  0x1.a94p-3f,  0x1.e53p-3f,  0x1.071p-2f,  0x1.2698p-2f, 0x1.3c28p-2f,
    0x1.5228p-2f, 0x1.68bp-2f,  0x1.7fbp-2f,  0x1.9738p-2f, 0x1.af5p-2f,  0x1.bb98p-2f,
    0x1.d49p-2f,  0x1.e148p-2f, 0x1.fb38p-2f, 0x1.0438p-1f, 0x1.11bp-1f,  0x1.189p-1f,
    0x1.2698p-1f, 0x1.2dcp-1f,  0x1.3504p-1f, 0x1.3c6p-1f,  0x1.43d8p-1f, 0x1.4b7p-1f,
    0x1.5324p-1f, 0x1.62e4p-1f};
alignas(64) constexpr float kLogCLo[32] = {
    0x0p+0f,          0x1.54294p-18f,   -0x1.dd45cp-17f,  -0x1.43454ep-17f, -0x1.c5f76p-17f,
    0x1.ec199ep-18f,  -0x1.f4d572p-18f, -0x1.2c3752p-19f, 0x1.dffce2p-20f,  0x1.c3026ap-17f,
    -0x1.deecb2p-18f, -0x1.6c4666p-17f, 0x1.7039c6p-17f,  -0x1.be0b1cp-17f, -0x1.7109fap-20f,
    0x1.1a189ap-17f,  0x1.4a9246p-17f,  -0x1.ee47f2p-18f, 0x1.236f7ep-21f,  0x1.4344e4p-19f,
    -0x1.3a842ep-17f, -0x1.f418ap-17f,  -0x1.f70e2ap-19f, -0x1.1bf0dcp-17f, -0x1.deecb2p-17f,
    -0x1.5509e4p-18f, -0x1.752628p-17f, 0x1.0186d8p-18f,  0x1.ff2f92p-17f,  -0x1.48347ap-20f,
    -0x1.1d9798p-17f, 0x1.7f7d1cp-20f};
alignas(64) constexpr float kLog2CHi[32] = {
    0x0p+0f,      0x1.1bcp-4f,  0x1.e0cp-4f,  0x1.22ep-3f,  0x1.8a9p-3f,  0x1.dacp-3f,
    0x1.16ap-2f,  0x1.32cp-2f,  0x1.5ep-2f,   0x1.7b88p-2f, 0x1.a9p-2f,   0x1.c818p-2f,
    0x1.e7ep-2f,  0x1.042cp-1f, 0x1.14c4p-1f, 0x1.25cp-1f,  0x1.3724p-1f, 0x1.3ffcp-1f,
    0x1.52p-1f,   0x1.5b2cp-1f, 0x1.6dep-1f,  0x1.7768p-1f, 0x1.8ad8p-1f, 0x1.94c4p-1f,
    0x1.a9p-1f,   0x1.b354p-1f, 0x1.bddp-1f,  0x1.c87p-1f,  0x1.d338p-1f, 0x1.de28p-1f,
    0x1.e944p-1f, 0x1p+0f};
alignas(64) constexpr float kLog2CLo[32] = {
    0x0p+0f,          -0x1.9ab4p-17f,   -0x1.ca2e1ap-17f, -0x1.48f554p-17f, -0x1.9fd502p-17f,
    0x1.169f22p-18f,  -0x1.fd64ep-17f,  -0x1.1c8f12p-22f, -0x1.18708ap-17f, 0x1.f02cf2p-18f,
    -0x1.a39fbep-20f, 0x1.dc2d46p-18f,  -0x1.40358ep-19f, -0x1.5a32c2p-20f, 0x1.60fe68p-17f,
    0x1.408c78p-18f,  -0x1.d448f8p-17f, -0x1.2b18bp-17f,  -0x1.a39fbep-18f, 0x1.ed0cbap-20f,
    -0x1.eac382p-20f, -0x1.f6b4c2p-20f, 0x1.1b3cdap-19f,  -0x1.78b6d4p-17f, -0x1.a39fbep-19f,
    0x1.61d876p-19f,  -0x1.62336ap-17f, -0x1.0902b6p-18f, 0x1.20a6dep-21f,  0x1.8ec0bap-17f,
    0x1.2c8a72p-17f,  0x0p+0f};
alignas(64) constexpr float kLog10CHi[32] = {
    0x0p+0f,      0x1.558p-6f, 0x1.218p-5f, 0x1.5e4p-5f, 0x1.dbp-5f,   0x1.1dep-4f,  0x1.4f8p-4f,
    0x1.716p-4f,  0x1.a56p-4f, 0x1.c9p-4f,  0x1.ffcp-4f, 0x1.12ap-3f,  0x1.25cp-3f,  0x1.394p-3f,
    0x1.4d4p-3f,  0x1.61bp-3f, 0x1.76ap-3f, 0x1.815p-3f, 0x1.97p-3f,   0x1.a21p-3f,  0x1.b89p-3f,
    0x1.c41p-3f,  0x1.db7p-3f, 0x1.e76p-3f, 0x1.ffcp-3f, 0x1.0618p-2f, 0x1.0c68p-2f, 0x1.12dp-2f,
    0x1.1948p-2f, 0x1.1fep-2f, 0x1.269p-2f, 0x1.344p-2f};
alignas(64) constexpr float kLog10CLo[32] = {
    0x0p+0f,          0x1.bd2406p-18f,  -0x1.7e4a38p-17f, -0x1.a65206p-19f, 0x1.1ed766p-17f,
    -0x1.573e6ep-17f, -0x1.54991p-18f,  -0x1.798e4cp-19f, 0x1.d064bep-17f,  0x1.50cf32p-19f,
    -0x1.ea21c4p-23f, -0x1.96c13p-17f,  -0x1.5f7a94p-17f, 0x1.c03de6p-17f,  0x1.fc13aep-18f,
    0x1.a4e66p-17f,   0x1.172eep-17f,   -0x1.2db79p-17f,  -0x1.724e3p-18f,  -0x1.95ec1p-17f,
    -0x1.983068p-19f, -0x1.e31ec2p-17f, 0x1.8fd2dcp-20f,  0x1.24046cp-19f,  -0x1.ea21c4p-22f,
    0x1.7427eap-21f,  -0x1.dc52a8p-19f, -0x1.67231cp-17f, 0x1.9def7cp-17f,  0x1.e5af2cp-18f,
    0x1.ecc2ap-18f,   0x1.3509f8p-18f};

// One logarithm's constants: its rows' log_b c (hi + lo), log_b 2 = k_hi + k_lo (k_hi
// with at most 15 fraction bits), 1/ln b = l_hi + l_lo, and Q times 1/ln b. The natural
// logarithm has l = 1: no product to split.
struct LogBase {
  const float* c_hi;
  const float* c_lo;
  float k_hi, k_lo, l_hi, l_lo, half_l, q[3];
};
constexpr LogBase kBaseE{
    kLogCHi, kLogCLo, kLn2Hi, kLn2Lo,
    1.0f,    0.0f,    0.5f,   {0x1.55557p-2f, -0x1.001224p-2f, 0x1.9465cep-3f}};
constexpr LogBase kBase2{kLog2CHi,       kLog2CLo,
                         1.0f,           0.0f,
                         0x1.715476p+0f, 0x1.4ae0cp-26f,
                         0x1.715476p-1f, {0x1.ec70c4p-2f, -0x1.716ea2p-2f, 0x1.23b616p-2f}};
constexpr LogBase kBase10{kLog10CHi,      kLog10CLo,
                          0x1.344p-2f,    0x1.3509f8p-18f,
                          0x1.bcb7b2p-2f, -0x1.5b235ep-27f,
                          0x1.bcb7b2p-3f, {0x1.287a8ep-3f, -0x1.bcd734p-4f, 0x1.5f416p-4f}};

struct LogTables {
  __m512 inv0, inv1, hi0, hi1, lo0, lo1;
};

GT_INLINE inline LogTables log_tables(const LogBase& b) {
  return {_mm512_load_ps(kInvC),       _mm512_load_ps(kInvC + 16), _mm512_load_ps(b.c_hi),
          _mm512_load_ps(b.c_hi + 16), _mm512_load_ps(b.c_lo),     _mm512_load_ps(b.c_lo + 16)};
}

// log_b x: k log_b 2 + log_b c + (r + r^2 (r Q(r) - 1/2)) / ln b, the product r / ln b
// split exactly by an FMA where ln b is not 1.
template <bool kScaled>
GT_INLINE inline __m512 log16(__m512 x, const LogTables& t, const LogBase& b) {
  const __m512 m = _mm512_getmant_ps(x, _MM_MANT_NORM_1_2, _MM_MANT_SIGN_zero);
  const __m512 k = _mm512_getexp_ps(x);
  const __m512i row = _mm512_srli_epi32(_mm512_castps_si512(m), 18);  // low 5 bits used
  const __m512 inv_c = _mm512_permutex2var_ps(t.inv0, row, t.inv1);
  const __m512 hi_c = _mm512_permutex2var_ps(t.hi0, row, t.hi1);
  const __m512 lo_c = _mm512_permutex2var_ps(t.lo0, row, t.lo1);
  const __m512 r = _mm512_fmsub_ps(m, inv_c, _mm512_set1_ps(1.0f));    // exact
  const __m512 t1 = _mm512_fmadd_ps(k, _mm512_set1_ps(b.k_hi), hi_c);  // exact
  __m512 p = r, low = _mm512_fmadd_ps(k, _mm512_set1_ps(b.k_lo), lo_c);
  if constexpr (kScaled) {
    p = _mm512_mul_ps(r, _mm512_set1_ps(b.l_hi));
    const __m512 pe = _mm512_fmsub_ps(r, _mm512_set1_ps(b.l_hi), p);  // r l_hi = p + pe
    low = _mm512_add_ps(low, _mm512_fmadd_ps(r, _mm512_set1_ps(b.l_lo), pe));
  }
  const __m512 s = _mm512_add_ps(t1, p);
  low = _mm512_add_ps(low, _mm512_sub_ps(p, _mm512_sub_ps(s, t1)));
  __m512 q = _mm512_fmadd_ps(_mm512_set1_ps(b.q[2]), r, _mm512_set1_ps(b.q[1]));
  q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(b.q[0]));
  const __m512 tail = _mm512_fmsub_ps(q, r, _mm512_set1_ps(b.half_l));
  const __m512 v = _mm512_add_ps(s, _mm512_fmadd_ps(_mm512_mul_ps(r, r), tail, low));
  // x +-0, negative, inf or NaN (subnormals took the path above): vfixupimmps answers by
  // x's class, lowest first: NaNs give x quieted (2), zeros -inf (4), +inf itself (5), the
  // rest v (0). Negatives, -inf among them, then take the loop's NaN.
  const __mmask16 special = _mm512_fpclass_ps_mask(x, 0xdf);
  if (__builtin_expect(special != 0, 0)) {
    const __m512i fix = _mm512_set1_epi32(0x00500422);
    const __m512 w = _mm512_fixupimm_ps(v, x, fix, 0);
    return _mm512_mask_mov_ps(w, _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ),
                              _mm512_set1_ps(NAN));
  }
  return v;
}

template <bool kScaled>
void log_base(const float* in, float* out, int64_t n, const LogBase& b) {
  const LogTables t = log_tables(b);
  by_sixteen(in, out, n, [&](__m512 x) GT_INLINE { return log16<kScaled>(x, t, b); });
}

}  // namespace sixteen_lanes
#pragma GCC pop_options
#endif

std::atomic<bool> g_log_sixteen_lanes{true};

GT_CLONES_V4_V3 void log_in_lanes(const float* in, float* out, int64_t n) {
  log_loop(in, out, n, [](LogParts p) GT_INLINE { return log_of(p); });
}

GT_CLONES_V4_V3 void log2_in_lanes(const float* in, float* out, int64_t n) {
  log_loop(in, out, n, [](LogParts p) GT_INLINE { return log2_of(p); });
}

GT_CLONES_V4_V3 void log10_in_lanes(const float* in, float* out, int64_t n) {
  log_loop(in, out, n, [](LogParts p) GT_INLINE { return log10_of(p); });
}

}  // namespace

bool log_sixteen_lanes() {
  return intel_avx512() && g_log_sixteen_lanes.load(std::memory_order_relaxed);
}

void set_log_sixteen_lanes(bool on) { g_log_sixteen_lanes.store(on, std::memory_order_relaxed); }

void log(const float* in, float* out, int64_t n) {
#ifdef GT_HAVE_SIMD_CLONES
  if (log_sixteen_lanes()) return sixteen_lanes::log_base<false>(in, out, n, sixteen_lanes::kBaseE);
#endif
  log_in_lanes(in, out, n);
}

void log2(const float* in, float* out, int64_t n) {
#ifdef GT_HAVE_SIMD_CLONES
  if (log_sixteen_lanes()) return sixteen_lanes::log_base<true>(in, out, n, sixteen_lanes::kBase2);
#endif
  log2_in_lanes(in, out, n);
}

void log10(const float* in, float* out, int64_t n) {
#ifdef GT_HAVE_SIMD_CLONES
  if (log_sixteen_lanes()) {
    return sixteen_lanes::log_base<true>(in, out, n, sixteen_lanes::kBase10);
  }
#endif
  log10_in_lanes(in, out, n);
}

GT_CLONES_V4_V3 void log1p(const float* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = log1p_element(in[i]);
}

GT_CLONES_V4_V3 void erfinv(const float* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = erfinv_element(in[i]);
}

GT_CLONES_V4_V3 void expm1(const float* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = expm1_element(in[i]);
}

GT_CLONES_V4_V3 void softplus(const float* in, float* out, int64_t n, float beta, float threshold) {
  exp_blocks(
      n, [in, beta](int64_t i) GT_INLINE { return in[i] * beta; },
      [in, out, beta, threshold](int64_t i, float z) GT_INLINE {
        const float x = in[i];
        const float v = log1p_element(z) / beta;
        out[i] = x * beta > threshold ? x : v;
      });
}

GT_CLONES_V4_V3 void log_sigmoid(const float* in, float* out, int64_t n) {
  exp_blocks(
      n, [in](int64_t i) GT_INLINE { return -std::fabs(in[i]); },
      [in, out](int64_t i, float z)
          GT_INLINE { out[i] = std::min(in[i], 0.0f) - log1p_element(z); });
}

GT_CLONES_V4_V3 void elu(const float* in, float* out, int64_t n, float scale, float input_scale,
                         float neg_scale) {
  for (int64_t i = 0; i < n; ++i) {
    const float x = in[i];
    const float negative = expm1_element(x * input_scale) * neg_scale;
    out[i] = x > 0.0f ? x * scale : negative;
  }
}

namespace {

// t[i] = tanh(log1p(exp(x[i]))) for i < m (mish's factor).
GT_INLINE inline void tanh_softplus(const float* x, float* t, int64_t m) {
  exp(x, t, m);
  for (int64_t i = 0; i < m; ++i) t[i] = log1p_element(t[i]);
  tanh(t, t, m);
}

}  // namespace

GT_CLONES_V4_V3 void mish(const float* in, float* out, int64_t n) {
  alignas(64) float t[kBlock];
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t m = std::min(kBlock, n - b);
    tanh_softplus(in + b, t, m);
    for (int64_t i = 0; i < m; ++i) out[b + i] = in[b + i] * t[i];
  }
}

GT_CLONES_V4_V3 void softplus_backward(const float* g, int64_t g_step, const float* x, float* out,
                                       int64_t n, float beta, float threshold) {
  exp_blocks(
      n, [x, beta](int64_t i) GT_INLINE { return x[i] * beta; },
      [g, g_step, x, out, beta, threshold](int64_t i, float z) GT_INLINE {
        const float d = x[i] * beta > threshold ? 1.0f : z / (z + 1.0f);
        out[i] = g[i * g_step] * d;
      });
}

GT_CLONES_V4_V3 void log_sigmoid_backward(const float* g, int64_t g_step, const float* x,
                                          float* out, int64_t n) {
  exp_blocks(
      n, [x](int64_t i) GT_INLINE { return -std::fabs(x[i]); },
      [g, g_step, x, out](int64_t i, float z) GT_INLINE {
        const float below = 1.0f / (1.0f + z), above = z / (1.0f + z);
        out[i] = g[i * g_step] * (x[i] < 0.0f ? below : above);
      });
}

GT_CLONES_V4_V3 void mish_backward(const float* g, int64_t g_step, const float* x, float* out,
                                   int64_t n) {
  alignas(64) float t[kBlock];
  alignas(64) float s[kBlock];
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t m = std::min(kBlock, n - b);
    tanh_softplus(x + b, t, m);
    for (int64_t i = 0; i < m; ++i) s[i] = -x[b + i];
    exp(s, s, m);
    for (int64_t i = 0; i < m; ++i) {
      const float v = x[b + i], sigmoid = 1.0f / (1.0f + s[i]);
      out[b + i] = g[(b + i) * g_step] * (t[i] + v * sigmoid * (1.0f - t[i] * t[i]));
    }
  }
}

GT_CLONES_V4_V3 void elu_backward(const float* g, int64_t g_step, const float* x, float* out,
                                  int64_t n, float scale, float input_scale, float neg_coef) {
  exp_blocks(
      n, [x, input_scale](int64_t i) GT_INLINE { return x[i] * input_scale; },
      [g, g_step, x, out, scale, neg_coef](int64_t i, float z)
          GT_INLINE { out[i] = g[i * g_step] * (x[i] > 0.0f ? scale : neg_coef * z); });
}

}  // namespace gradtrack::kernels::simd
