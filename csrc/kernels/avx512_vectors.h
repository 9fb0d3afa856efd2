// The vector operations of the AVX-512 GEMM (gemm_avx512.cpp) and of the
// implicit convolution (conv_implicit_avx512.cpp).
//
// NOTE [One spelling per vector operation]
// Each operation has one name for float and double (vload, vfma, ...), so that
// a kernel templated on the element type reads the same for both. Each is
// built for x86-64-v4 (GT_V4) and only reached after the run-time check
// (gemm_avx512_available); no vector value crosses into baseline code.
#pragma once

#include <cstdint>

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define GT_AVX512_VECTORS 1
#include <immintrin.h>

#define GT_V4 __attribute__((target("arch=x86-64-v4")))

namespace gradtrack::kernels::avx512 {

GT_V4 inline __m512 vzero(float) { return _mm512_setzero_ps(); }
GT_V4 inline __m512d vzero(double) { return _mm512_setzero_pd(); }
GT_V4 inline __m512 vset(const float* p) { return _mm512_set1_ps(*p); }
GT_V4 inline __m512d vset(const double* p) { return _mm512_set1_pd(*p); }
GT_V4 inline __m512 vload(const float* p) { return _mm512_load_ps(p); }
GT_V4 inline __m512d vload(const double* p) { return _mm512_load_pd(p); }
GT_V4 inline void vstore(float* p, __m512 v) { _mm512_store_ps(p, v); }
GT_V4 inline void vstore(double* p, __m512d v) { _mm512_store_pd(p, v); }
GT_V4 inline __m512 vload_mask(const float* p, unsigned m) {
  return _mm512_maskz_loadu_ps(__mmask16(m), p);
}
GT_V4 inline __m512d vload_mask(const double* p, unsigned m) {
  return _mm512_maskz_loadu_pd(__mmask8(m), p);
}
GT_V4 inline void vstore_mask(float* p, unsigned m, __m512 v) {
  _mm512_mask_storeu_ps(p, __mmask16(m), v);
}
GT_V4 inline void vstore_mask(double* p, unsigned m, __m512d v) {
  _mm512_mask_storeu_pd(p, __mmask8(m), v);
}
GT_V4 inline __m512 vfma(__m512 a, __m512 b, __m512 c) { return _mm512_fmadd_ps(a, b, c); }
GT_V4 inline __m512d vfma(__m512d a, __m512d b, __m512d c) { return _mm512_fmadd_pd(a, b, c); }
GT_V4 inline __m512 vadd(__m512 a, __m512 b) { return _mm512_add_ps(a, b); }
GT_V4 inline __m512d vadd(__m512d a, __m512d b) { return _mm512_add_pd(a, b); }

// The lanes [0, n) of one vector of W, n clamped to [0, W].
inline unsigned lane_mask(int64_t n, int W) {
  if (n <= 0) return 0;
  return n >= W ? (1u << W) - 1 : (1u << n) - 1;
}

}  // namespace gradtrack::kernels::avx512

#else
#define GT_AVX512_VECTORS 0
#endif
