// The AVX-512 exp of sixteen floats, inlined into the AVX-512 kernels that need
// exponentials (simd.cpp's exp loop, simd_math.cpp's tanh and gelu). Only reached after a
// run-time check for x86-64-v4 (NOTE [SIMD clones] in simd.h).
#pragma once

#include "kernels/simd_clones.h"

#ifdef GT_HAVE_SIMD_CLONES
#include <immintrin.h>

namespace gradtrack::kernels::simd {

// NOTE [Table-driven AVX-512 exp]
// The polynomial above ran at 1.4-1.7x torch's time on a Xeon with AVX-512:
// torch calls MKL's vsExp there, and our degree-7 chain plus the clamp, the
// range sum and the block buffer's copy cost 24 us per 64K floats on one
// thread against MKL's 13. So the AVX-512 build is Tang's table method:
// x = (16m + j) ln2/16 + r, |r| <= ln2/32, e^x = 2^m * 2^(j/16) * e^r.
// 2^(j/16) is kept as hi + lo (16 floats each: one zmm register, one vpermps
// lookup each, indexed by the low 4 bits of t's pattern, which hold j), so
// the result hi + (hi (e^r - 1) + lo) is rounded once at the end: at most
// 0.77 ulp over all floats, 1.1% of results in [0.5, 8) off the correctly
// rounded one (torch/MKL: 1.1%; with hi alone it was 1.07 ulp and 20%, and
// results that tests compare with torch's moved). e^r - 1 on |r| <= 0.0217:
// r + r^2 (c2 + r/6) + c0, the Taylor quartic economized (Chebyshev) to error
// 1.2e-9; c0 is folded into lo (lo = 2^(j/16) (1 + c0) - hi), and r^2 splits
// the chain. vscalefps multiplies by 2^floor(k/16) with IEEE rounding:
// overflow to inf, gradual underflow and 0 come out right. Only |x| > 104
// (e^x is 0 or inf) and NaN take a second pass, with x clamped to [-104, 104]
// so that no huge |x| loses r; the check is off the critical path, where a
// clamp would lengthen it (vrangeps, one op for both sides, turned NaN into
// 104). Every float was checked against double exp. 64K floats, one thread:
// 12.5 us vs MKL's 12.5-13.0, with two vectors per iteration (the next pair's
// loads start earlier; one per iteration was 15% slower). 1M floats are
// memory bound (both ~365 us).
template <bool kClamp>
__attribute__((target("arch=x86-64-v4"), always_inline)) inline __m512 exp16_pass(__m512 x) {
  const __m512 hi = _mm512_setr_ps(0x1.000000p+0f, 0x1.0b5586p+0f, 0x1.172b84p+0f, 0x1.2387a6p+0f,
                                   0x1.306fe0p+0f, 0x1.3dea64p+0f, 0x1.4bfdaep+0f, 0x1.5ab07ep+0f,
                                   0x1.6a09e6p+0f, 0x1.7a1148p+0f, 0x1.8ace54p+0f, 0x1.9c4918p+0f,
                                   0x1.ae89fap+0f, 0x1.c199bep+0f, 0x1.d5818ep+0f, 0x1.ea4afap+0f);
  const __m512 lo =
      _mm512_setr_ps(-0x1.3b4afep-30f, 0x1.94e71ep-25f, -0x1.ec51ccp-27f, 0x1.c373dcp-25f,
                     0x1.3a7f4cp-25f, 0x1.760a20p-25f, -0x1.6601cep-25f, -0x1.913582p-27f,
                     0x1.83f0b0p-26f, -0x1.912ce0p-25f, 0x1.b110f8p-28f, 0x1.127f72p-27f,
                     -0x1.ca6f34p-26f, -0x1.828e2ep-27f, -0x1.ca75bap-27f, 0x1.06cd30p-27f);
  // max/min return their second operand when either is NaN: NaN passes.
  if (kClamp) x = _mm512_min_ps(_mm512_set1_ps(104.0f), _mm512_max_ps(_mm512_set1_ps(-104.0f), x));
  const __m512 shift = _mm512_set1_ps(12582912.0f);  // 1.5 * 2^23: rounds to an integer
  const __m512 t = _mm512_fmadd_ps(x, _mm512_set1_ps(0x1.715476p+4f), shift);  // 16 / ln2
  const __m512 k = _mm512_sub_ps(t, shift);                                    // 16m + j
  const __m512 m = _mm512_fmadd_ps(t, _mm512_set1_ps(0.0625f), _mm512_set1_ps(-786432.0f));
  // ln2/16 in two parts: k * hi is exact inside the multiply-add.
  __m512 r = _mm512_fnmadd_ps(k, _mm512_set1_ps(0x1.62e430p-5f), x);
  r = _mm512_fnmadd_ps(k, _mm512_set1_ps(-0x1.05c610p-33f), r);
  const __m512i j = _mm512_castps_si512(t);
  const __m512 two_hi = _mm512_permutexvar_ps(j, hi), two_lo = _mm512_permutexvar_ps(j, lo);
  const __m512 p =
      _mm512_fmadd_ps(r, _mm512_set1_ps(0x1.555556p-3f), _mm512_set1_ps(0x1.000290p-1f));
  const __m512 q = _mm512_fmadd_ps(_mm512_mul_ps(r, r), p, r);  // e^r - 1 - c0
  // vscalefps scales by 2^floor(m) and m = k/16 exactly.
  const __m512 y = _mm512_add_ps(two_hi, _mm512_fmadd_ps(two_hi, q, two_lo));
  return _mm512_scalef_ps(y, m);
}

__attribute__((target("arch=x86-64-v4"), always_inline)) inline __m512 exp16(__m512 x) {
  const __mmask16 redo =
      _mm512_cmp_ps_mask(_mm512_abs_ps(x), _mm512_set1_ps(104.0f), _CMP_NLE_UQ);  // or NaN
  const __m512 y = exp16_pass<false>(x);
  return __builtin_expect(redo != 0, 0) ? exp16_pass<true>(x) : y;
}

}  // namespace gradtrack::kernels::simd
#endif
