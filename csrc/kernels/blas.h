// The one typed entry to GEMM for the kernels that call it (matmul,
// convolution, the LSTM layer): our AVX-512 kernel where the CPU has it
// (NOTE [AVX-512 GEMM]), OpenBLAS otherwise.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/gemm_avx512.h"

extern "C" {
// The scipy-openblas32 wheel exports prefixed CBLAS symbols (scipy_cblas_sgemm, ...).
void scipy_cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float* a,
                       int lda, const float* b, int ldb, float beta, float* c, int ldc);
void scipy_cblas_dgemm(int order, int ta, int tb, int m, int n, int k, double alpha,
                       const double* a, int lda, const double* b, int ldb, double beta, double* c,
                       int ldc);
}

namespace gradtrack::kernels {

// Row-major c [m, n] = op(a) op(b) + beta * c on OpenBLAS, float or double.
template <typename T>
inline void openblas_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a,
                          int64_t lda, const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112;  // CBLAS's enum values
  const int A = ta ? kTrans : kNoTrans, B = tb ? kTrans : kNoTrans;
  if constexpr (std::is_same_v<T, float>) {
    scipy_cblas_sgemm(kRowMajor, A, B, int(m), int(n), int(k), 1.0f, a, int(lda), b, int(ldb), beta,
                      c, int(ldc));
  } else {
    scipy_cblas_dgemm(kRowMajor, A, B, int(m), int(n), int(k), 1.0, a, int(lda), b, int(ldb), beta,
                      c, int(ldc));
  }
}

/// Row-major c [m, n] = op(a) op(b) + beta * c, float or double, on the
/// calling thread (k == 0 scales c). depth_block as gemm_avx512's, where it runs.
template <typename T>
inline void blas_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
                      const T* b, int64_t ldb, T beta, T* c, int64_t ldc, int64_t depth_block = 0) {
  if (gemm_avx512_wins<T>(m, n, k))
    return gemm_avx512<T>(ta, tb, m, n, k, a, lda, b, ldb, beta, c, ldc, 1, depth_block);
  openblas_gemm<T>(ta, tb, m, n, k, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace gradtrack::kernels
