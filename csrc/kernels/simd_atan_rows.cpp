// NOTE [atan from rows of polynomials]
// On Intel's AVX-512 the double loop of NOTE [Vector atan] in simd_trig.cpp took 3.3x
// torch's time (its division, and the conversions to double and back). This kernel stays
// in float and divides by nothing:
//
// - a = min(|x|, 2^100), so that inf needs no case of its own. Up to 1, u = a and
//   atan(a) = atan(u); above, u = 1/a and atan(a) = pi/2 - atan(u). There u is vrcp14ps'
//   estimate r0 (within 2^-14) and a low part: with e = 1 - a r0 (one FMA, its rounding
//   at 2^-38), 1/a = r0 (1 + e + e^2) to 2^-42, so u_lo = r0 w, w = e + e^2.
// - u picks one of 16 rows by its exponent and top two fraction bits: [0, 3/32), two
//   sixty-fourths up to 1/8, the quarter octaves from 1/8 to 1, and one row for u = 1 (and
//   r0 a hair past it). Each row holds a centre c, where t = u - c is exact, and a
//   degree-5 polynomial in t fitted to atan's relative error (tools/fit_atan_rows.py).
//   Each c is the float near the row's middle whose atan(c) and 1/(1 + c^2), the constant
//   and linear terms, are both floats to within 2^-9 of an ulp: no low parts to carry.
//   For a > 1 the lane takes the row 16 higher: pi/2 - atan(u), the polynomial negated,
//   with its own centre (there [0, 3/32) is centred too; the result is near pi/2).
// - y = c0 + c1 t + t^2 q(t): c1 t and its sum with c0 are carried exactly one step
//   (s = c0 + c1 t, then (c0 - s) + c1 t by one FMA), c1 u_lo joins the small rest, and
//   q takes t + u_lo rounded, so the result rounds once, in the last addition.
//
// About 31 operations per 16 floats, 7 of them vpermt2ps; the sign goes back last, and a
// NaN passes through with its payload. Over every positive float: at most 0.5158 ulp from
// float64, 0.1862 on average (torch's: 0.5249, 0.1862); the double loop reaches 0.5 and a
// hair. Intel only, as the log and tanh tables: Zen 4 keeps the double loop, this kernel
// unmeasured there (no such machine was at hand). Built without FMA contraction: the
// exact steps need each product and sum rounded as written.
#include "kernels/simd_clones.h"
#include "kernels/simd_sixteen_loop.h"
#include "kernels/simd_trig.h"

#ifdef GT_HAVE_SIMD_CLONES
#include <immintrin.h>

namespace gradtrack::kernels::simd {

#pragma GCC push_options
#pragma GCC target("arch=x86-64-v4")

namespace {

// per row: centre, c0, c1 ... c5; rows 16-31 are those of pi/2 - atan(u)
alignas(64) constexpr float kAtanRows[7][32] = {
    {0x0p+0f,        0x1.a05558p-4f, 0x1.d94cbcp-4f, 0x1.25529ap-3f, 0x1.5f3886p-3f, 0x1.9978aep-3f,
     0x1.e08eacp-3f, 0x1.185ffap-2f, 0x1.5f63aep-2f, 0x1.a6ab88p-2f, 0x1.df0facp-2f, 0x1.262ep-1f,
     0x1.618c24p-1f, 0x1.9d8778p-1f, 0x1.e0d4fep-1f, 0x1.e0d4fep-1f, 0x1.7999c8p-5f, 0x1.9b3e34p-4f,
     0x1.e2023cp-4f, 0x1.2688a4p-3f, 0x1.5fa5c2p-3f, 0x1.9b6f6ap-3f, 0x1.e54ab4p-3f, 0x1.1b8814p-2f,
     0x1.5d9524p-2f, 0x1.9cb4f4p-2f, 0x1.e0f23ep-2f, 0x1.27aceep-1f, 0x1.618268p-1f, 0x1.a46f4ep-1f,
     0x1.e29b68p-1f, 0x1.e29b68p-1f},
    {0x0p+0f,        0x1.9ee88ep-4f, 0x1.d735bep-4f, 0x1.235762p-3f, 0x1.5bd64ep-3f, 0x1.942478p-3f,
     0x1.d8049ap-3f, 0x1.11aaeep-2f, 0x1.527f06p-2f, 0x1.90db22p-2f, 0x1.c01632p-2f, 0x1.0b0378p-1f,
     0x1.356bap-1f,  0x1.5bdabp-1f,  0x1.820e5p-1f,  0x1.820e5p-1f,  0x1.86550ap+0f, 0x1.7881ccp+0f,
     0x1.7422ep+0f,  0x1.6d8edp+0f,  0x1.6697a8p+0f, 0x1.5f5ebcp+0f, 0x1.568f9cp+0f, 0x1.4cf93p+0f,
     0x1.3de776p+0f, 0x1.300b9cp+0f, 0x1.21b74p+0f,  0x1.0c0e36p+0f, 0x1.eeda62p-1f, 0x1.c43ddcp-1f,
     0x1.a1401p-1f,  0x1.a1401p-1f},
    {0x1p+0f,         0x1.fac3aep-1f,  0x1.f940f6p-1f,  0x1.f5b55ap-1f,  0x1.f15f42p-1f,
     0x1.ec51dp-1f,   0x1.e547e2p-1f,  0x1.dc4b06p-1f,  0x1.ca0faep-1f,  0x1.b5779p-1f,
     0x1.a40fdap-1f,  0x1.80ecb8p-1f,  0x1.5ab0ccp-1f,  0x1.35dd32p-1f,  0x1.100eb2p-1f,
     0x1.100eb2p-1f,  -0x1.feea1cp-1f, -0x1.fae3eep-1f, -0x1.f901b2p-1f, -0x1.f59ffep-1f,
     -0x1.f1566ap-1f, -0x1.ec234p-1f,  -0x1.e4c7a4p-1f, -0x1.db8ac6p-1f, -0x1.ca8e88p-1f,
     -0x1.b87446p-1f, -0x1.a377cep-1f, -0x1.7ff4p-1f,   -0x1.5ab6f6p-1f, -0x1.31cc5ap-1f,
     -0x1.0f1e1ap-1f, -0x1.0f1e1ap-1f},
    {0x1.b135bap-23f, -0x1.97dbfap-4f, -0x1.ccea36p-4f, -0x1.19a652p-3f, -0x1.4b708cp-3f,
     -0x1.7a98cep-3f, -0x1.afb594p-3f, -0x1.e5437cp-3f, -0x1.194088p-2f, -0x1.3491aap-2f,
     -0x1.42761cp-2f, -0x1.4c8c4cp-2f, -0x1.4434f2p-2f, -0x1.2eed76p-2f, -0x1.0f8598p-2f,
     -0x1.0f8598p-2f, 0x1.780022p-5f,  0x1.9318e8p-4f,  0x1.d4eb6ap-4f,  0x1.1ab6ecp-3f,
     0x1.4bcd7p-3f,   0x1.7c2004p-3f,  0x1.b30da2p-3f,  0x1.e92df4p-3f,  0x1.186984p-2f,
     0x1.316c44p-2f,  0x1.42d0c8p-2f,  0x1.4c8dc2p-2f,  0x1.44378cp-2f,  0x1.2bf4f8p-2f,
     0x1.0ea51p-2f,   0x1.0ea51p-2f},
    {-0x1.555a5cp-2f, -0x1.40b5bp-2f,   -0x1.3ad8d2p-2f,  -0x1.2d65f6p-2f, -0x1.1d4c9cp-2f,
     -0x1.0b1352p-2f, -0x1.e541ccp-3f,  -0x1.a9f638p-3f,  -0x1.3c270ep-3f, -0x1.a05cf2p-4f,
     -0x1.02eb68p-4f, -0x1.64eef6p-10f, 0x1.6cf232p-5f,   0x1.21a24cp-4f,  0x1.5123bp-4f,
     0x1.5123a6p-4f,  0x1.510114p-2f,   0x1.4160e2p-2f,   0x1.39f7f8p-2f,  0x1.2d10ep-2f,
     0x1.1d2ccep-2f,  0x1.0a5e76p-2f,   0x1.e2021p-3f,    0x1.a5298ep-3f,  0x1.3ef5ep-3f,
     0x1.bd9dbep-4f,  0x1.fbde5ap-5f,   -0x1.1ccc26p-14f, -0x1.6cc2acp-5f, -0x1.2991e4p-4f,
     -0x1.519eacp-4f, -0x1.519eaap-4f},
    {0x1.1a9ff6p-11f, 0x1.590b2ap-4f,  0x1.1c5b8p-3f,   0x1.0bc24ap-3f,  0x1.33c2b8p-3f,
     0x1.4bfef2p-3f,  0x1.6e1372p-3f,  0x1.84528ep-3f,  0x1.8ce9fep-3f,  0x1.75d19cp-3f,
     0x1.52f32p-3f,   0x1.f7bfep-4f,   0x1.379e28p-4f,  0x1.35cc4p-5f,   0x1.25d70cp-7f,
     0x1.25d916p-7f,  -0x1.748022p-5f, -0x1.b18162p-3f, -0x1.e4c8d8p-5f, -0x1.eceaa6p-4f,
     -0x1.4f0258p-3f, -0x1.2997bp-3f,  -0x1.392f18p-3f, -0x1.83bdd4p-3f, -0x1.8e61bcp-3f,
     -0x1.77b698p-3f, -0x1.51f3dap-3f, -0x1.f29cf2p-4f, -0x1.37bb1ep-4f, -0x1.17c02ap-5f,
     -0x1.14c7d4p-7f, -0x1.14c772p-7f},
    {0x1.8f3ef2p-3f,  0x1.e4774ep-4f,  -0x1.a72d68p+0f, 0x1.6cdf9ap-3f,  0x1.ff12dp-4f,
     0x1.354e1ep-3f,  0x1.2076bap-4f,  0x1.1363acp-5f,  -0x1.9a0d54p-7f, -0x1.83d6c6p-5f,
     -0x1.2089aep-4f, -0x1.57293ap-4f, -0x1.33bfdap-4f, -0x1.be7a58p-5f, -0x1.132bfep-5f,
     -0x1.130eb8p-5f, -0x1.8b2988p-3f, 0x1.9aef16p+0f,  0x1.bc832ep-6f,  0x1.0b5486p-3f,
     -0x1.dab928p-4f, -0x1.dfbe8ep-3f, 0x1.b6a454p-3f,  -0x1.3b5ae8p-5f, 0x1.a6fd6ap-7f,
     0x1.6984a2p-5f,  0x1.22356cp-4f,  0x1.57a8b6p-4f,  0x1.33b638p-4f,  0x1.b933fep-5f,
     0x1.0bd44p-5f,   0x1.0bd77ap-5f},
};

// atan of one vector
inline __m512 atan16(__m512 x, const __m512 (&lo)[7], const __m512 (&hi)[7]) {
  const __m512 one = _mm512_set1_ps(1.0f);
  // min(2^100, |x|): minps gives its second operand where either is NaN
  const __m512 a = _mm512_min_ps(_mm512_set1_ps(0x1p100f), _mm512_abs_ps(x));
  const __mmask16 above = _mm512_cmp_ps_mask(a, one, _CMP_GT_OQ);
  const __m512 r0 = _mm512_rcp14_ps(a);
  const __m512 e0 = _mm512_fnmadd_ps(a, r0, one);
  const __m512 w = _mm512_maskz_fmadd_ps(above, e0, e0, e0);  // 1/a = r0 (1 + w)
  const __m512 u = _mm512_mask_blend_ps(above, a, r0);
  // (exponent, two fraction bits) - 493: 0 below 3/32, 1-2 to 1/8, 3-14 to 1, 15 at 1
  __m512i row = _mm512_srli_epi32(_mm512_castps_si512(u), 21);
  row = _mm512_subs_epu16(row, _mm512_set1_epi32(493));  // the high halves are zero
  row = _mm512_mask_add_epi32(row, above, row, _mm512_set1_epi32(16));
  const auto pick = [&](int c) { return _mm512_permutex2var_ps(lo[c], row, hi[c]); };
  const __m512 t_hi = _mm512_sub_ps(u, pick(0));  // exact
  const __m512 u_lo = _mm512_mul_ps(u, w);
  const __m512 t = _mm512_add_ps(t_hi, u_lo);
  __m512 q = _mm512_fmadd_ps(pick(6), t, pick(5));
  q = _mm512_fmadd_ps(q, t, pick(4));
  q = _mm512_fmadd_ps(q, t, pick(3));
  const __m512 c0 = pick(1), c1 = pick(2);
  const __m512 s = _mm512_fmadd_ps(c1, t_hi, c0);
  const __m512 s_lo = _mm512_fmadd_ps(c1, t_hi, _mm512_sub_ps(c0, s));
  const __m512 rest = _mm512_fmadd_ps(q, _mm512_mul_ps(t, t), s_lo);
  const __m512 y = _mm512_add_ps(s, _mm512_fmadd_ps(c1, u_lo, rest));
  // x's sign bit, y's other bits
  const __m512i sign = _mm512_set1_epi32(int32_t(0x80000000u));
  return _mm512_castsi512_ps(
      _mm512_ternarylogic_epi32(sign, _mm512_castps_si512(x), _mm512_castps_si512(y), 0xCA));
}

}  // namespace

void atan_by_rows(const float* in, float* out, int64_t n) {
  __m512 lo[7], hi[7];
  for (int c = 0; c < 7; ++c) {
    lo[c] = _mm512_load_ps(kAtanRows[c]);
    hi[c] = _mm512_load_ps(kAtanRows[c] + 16);
  }
  // 2 KB ahead: 10% less time at 1M floats on two threads, level at 64K (NOTE
  // [Streaming prefetch])
  by_sixteen(
      in, out, n, [&](__m512 x) __attribute__((always_inline)) { return atan16(x, lo, hi); }, 2048);
}

#pragma GCC pop_options

}  // namespace gradtrack::kernels::simd

#endif
