// NOTE [Small GEMM] in small_gemm.h.
#include "kernels/small_gemm.h"

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define GT_SMALL_GEMM_AVX2 1
#include <immintrin.h>
#else
#define GT_SMALL_GEMM_AVX2 0
#endif

namespace gradtrack::kernels {

template <typename T>
void small_gemm_generic(int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b,
                        int64_t ldb, T beta, T* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    T* ci = c + i * ldc;
    for (int64_t j = 0; j < n; ++j) ci[j] = beta == T(0) ? T(0) : ci[j] * beta;
    for (int64_t p = 0; p < k; ++p) {
      const T aip = a[i * lda + p];
      const T* bp = b + p * ldb;
      for (int64_t j = 0; j < n; ++j) ci[j] += aip * bp[j];
    }
  }
}

#if GT_SMALL_GEMM_AVX2
namespace {

// Every function here is built for AVX2 + FMA and only called after the
// run-time check in small_gemm; they never cross into baseline code with a
// vector argument.
#define GT_AVX2 __attribute__((target("avx2,fma")))

template <typename T>
struct Vec;
template <>
struct Vec<float> {
  using type = __m256;
  static constexpr int width = 8;
};
template <>
struct Vec<double> {
  using type = __m256d;
  static constexpr int width = 4;
};

GT_AVX2 inline __m256 vzero(float) { return _mm256_setzero_ps(); }
GT_AVX2 inline __m256d vzero(double) { return _mm256_setzero_pd(); }
GT_AVX2 inline __m256 vload(const float* p) { return _mm256_loadu_ps(p); }
GT_AVX2 inline __m256d vload(const double* p) { return _mm256_loadu_pd(p); }
GT_AVX2 inline void vstore(float* p, __m256 v) { _mm256_storeu_ps(p, v); }
GT_AVX2 inline void vstore(double* p, __m256d v) { _mm256_storeu_pd(p, v); }
GT_AVX2 inline __m256 vset(const float* p) { return _mm256_broadcast_ss(p); }
GT_AVX2 inline __m256d vset(const double* p) { return _mm256_broadcast_sd(p); }
GT_AVX2 inline __m256 vfma(__m256 a, __m256 b, __m256 c) { return _mm256_fmadd_ps(a, b, c); }
GT_AVX2 inline __m256d vfma(__m256d a, __m256d b, __m256d c) { return _mm256_fmadd_pd(a, b, c); }
GT_AVX2 inline __m256 vadd(__m256 a, __m256 b) { return _mm256_add_ps(a, b); }
GT_AVX2 inline __m256d vadd(__m256d a, __m256d b) { return _mm256_add_pd(a, b); }

// c[MR, NV * width] (op)= a[MR, k] @ b[k, NV * width]: the accumulators live
// in registers (at most 12 of the 16 ymm) for the whole k loop.
template <typename T, int MR, int NV>
GT_AVX2 void tile(int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb, T beta, T* c,
                  int64_t ldc) {
  using V = typename Vec<T>::type;
  constexpr int W = Vec<T>::width;
  V acc[MR][NV];
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) acc[r][v] = vzero(T{});
  for (int64_t p = 0; p < k; ++p) {
    V bv[NV];
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) bv[v] = vload(b + p * ldb + v * W);
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      const V av = vset(a + r * lda + p);
#pragma GCC unroll 2
      for (int v = 0; v < NV; ++v) acc[r][v] = vfma(av, bv[v], acc[r][v]);
    }
  }
  const V vb = vset(&beta);
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) {
      T* cp = c + r * ldc + v * W;
      if (beta == T(0))
        vstore(cp, acc[r][v]);
      else if (beta == T(1))
        vstore(cp, vadd(acc[r][v], vload(cp)));
      else
        vstore(cp, vfma(vb, vload(cp), acc[r][v]));
    }
}

// One tile of `rows` (1..6) rows.
template <typename T, int NV>
GT_AVX2 void tile_rows(int64_t rows, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb,
                       T beta, T* c, int64_t ldc) {
  switch (rows) {
    case 6: return tile<T, 6, NV>(k, a, lda, b, ldb, beta, c, ldc);
    case 5: return tile<T, 5, NV>(k, a, lda, b, ldb, beta, c, ldc);
    case 4: return tile<T, 4, NV>(k, a, lda, b, ldb, beta, c, ldc);
    case 3: return tile<T, 3, NV>(k, a, lda, b, ldb, beta, c, ldc);
    case 2: return tile<T, 2, NV>(k, a, lda, b, ldb, beta, c, ldc);
    default: return tile<T, 1, NV>(k, a, lda, b, ldb, beta, c, ldc);
  }
}

// All rows of one column panel, in the fewest tiles of at most 6 rows, their
// sizes as even as possible (20 rows: 5+5+5+5, not 6+6+6+2, whose last tile
// would do 4 multiply-adds per 2 loads).
template <typename T, int NV>
GT_AVX2 void panel(int64_t m, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb, T beta,
                   T* c, int64_t ldc) {
  const int64_t tiles = (m + 5) / 6, base = m / tiles, extra = m % tiles;
  int64_t i = 0;
  for (int64_t t = 0; t < tiles; ++t) {
    const int64_t rows = base + (t < extra ? 1 : 0);
    tile_rows<T, NV>(rows, k, a + i * lda, lda, b, ldb, beta, c + i * ldc, ldc);
    i += rows;
  }
}

// Panels of 2 vectors, one of 1 vector, then the last columns (fewer than a
// vector) through the portable loops.
template <typename T>
GT_AVX2 void gemm_avx2(int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b,
                       int64_t ldb, T beta, T* c, int64_t ldc) {
  constexpr int W = Vec<T>::width;
  int64_t j = 0;
  for (; j + 2 * W <= n; j += 2 * W) panel<T, 2>(m, k, a, lda, b + j, ldb, beta, c + j, ldc);
  for (; j + W <= n; j += W) panel<T, 1>(m, k, a, lda, b + j, ldb, beta, c + j, ldc);
  if (j < n) small_gemm_generic<T>(m, n - j, k, a, lda, b + j, ldb, beta, c + j, ldc);
}

#undef GT_AVX2

}  // namespace
#endif

bool small_gemm_vectorised() {
#if GT_SMALL_GEMM_AVX2
  static const bool ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return ok;
#else
  return false;
#endif
}

template <typename T>
void small_gemm(int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb,
                T beta, T* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return;
#if GT_SMALL_GEMM_AVX2
  if (small_gemm_vectorised()) return gemm_avx2<T>(m, n, k, a, lda, b, ldb, beta, c, ldc);
#endif
  small_gemm_generic<T>(m, n, k, a, lda, b, ldb, beta, c, ldc);
}

#define GT_SMALL_GEMM_INSTANTIATE(T)                                                              \
  template void small_gemm<T>(int64_t, int64_t, int64_t, const T*, int64_t, const T*, int64_t, T, \
                              T*, int64_t);                                                       \
  template void small_gemm_generic<T>(int64_t, int64_t, int64_t, const T*, int64_t, const T*,     \
                                      int64_t, T, T*, int64_t);
GT_SMALL_GEMM_INSTANTIATE(float)
GT_SMALL_GEMM_INSTANTIATE(double)
#undef GT_SMALL_GEMM_INSTANTIATE

}  // namespace gradtrack::kernels
