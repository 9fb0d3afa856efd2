// LAPACK and triangular BLAS calls for the factorizations of torch.linalg
// (NOTE [Row-major matrices in LAPACK] in lapack.h).
#include "kernels/lapack.h"

#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <vector>

extern "C" {
// Fortran LAPACK, as the scipy-openblas32 wheel exports it: every argument by
// pointer, and each character argument's length after the others.
void scipy_sgetrf_(const int* m, const int* n, float* a, const int* lda, int* ipiv, int* info);
void scipy_dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void scipy_sgetrs_(const char* trans, const int* n, const int* nrhs, const float* a, const int* lda,
                   const int* ipiv, float* b, const int* ldb, int* info, size_t trans_len);
void scipy_dgetrs_(const char* trans, const int* n, const int* nrhs, const double* a,
                   const int* lda, const int* ipiv, double* b, const int* ldb, int* info,
                   size_t trans_len);
void scipy_sgetri_(const int* n, float* a, const int* lda, const int* ipiv, float* work,
                   const int* lwork, int* info);
void scipy_dgetri_(const int* n, double* a, const int* lda, const int* ipiv, double* work,
                   const int* lwork, int* info);
void scipy_spotrf_(const char* uplo, const int* n, float* a, const int* lda, int* info,
                   size_t uplo_len);
void scipy_dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info,
                   size_t uplo_len);
// CBLAS (row-major capable).
void scipy_cblas_strsm(int order, int side, int uplo, int trans, int diag, int m, int n,
                       float alpha, const float* a, int lda, float* b, int ldb);
void scipy_cblas_dtrsm(int order, int side, int uplo, int trans, int diag, int m, int n,
                       double alpha, const double* a, int lda, double* b, int ldb);
}

namespace gradtrack::kernels {

template <typename T>
int lu_factor(T* a, int n, int* piv) {
  int info = 0;
  const int ld = std::max(n, 1);
  if constexpr (std::is_same_v<T, float>) {
    scipy_sgetrf_(&n, &n, a, &ld, piv, &info);
  } else {
    scipy_dgetrf_(&n, &n, a, &ld, piv, &info);
  }
  return info;
}

template <typename T>
void lu_solve(const T* lu, const int* piv, int n, T* b, int nrhs, bool transposed) {
  int info = 0;
  const int ld = std::max(n, 1);
  const char trans = transposed ? 'T' : 'N';
  if constexpr (std::is_same_v<T, float>) {
    scipy_sgetrs_(&trans, &n, &nrhs, lu, &ld, piv, b, &ld, &info, 1);
  } else {
    scipy_dgetrs_(&trans, &n, &nrhs, lu, &ld, piv, b, &ld, &info, 1);
  }
}

template <typename T>
void lu_inverse(T* lu, const int* piv, int n) {
  int info = 0;
  const int ld = std::max(n, 1);
  int lwork = -1;
  T query = 0;
  if constexpr (std::is_same_v<T, float>) {
    scipy_sgetri_(&n, lu, &ld, piv, &query, &lwork, &info);
  } else {
    scipy_dgetri_(&n, lu, &ld, piv, &query, &lwork, &info);
  }
  lwork = std::max(int(query), std::max(n, 1));
  std::vector<T> work(static_cast<size_t>(lwork));
  if constexpr (std::is_same_v<T, float>) {
    scipy_sgetri_(&n, lu, &ld, piv, work.data(), &lwork, &info);
  } else {
    scipy_dgetri_(&n, lu, &ld, piv, work.data(), &lwork, &info);
  }
}

template <typename T>
int cholesky(T* a, int n, bool upper) {
  int info = 0;
  const int ld = std::max(n, 1);
  const char uplo = upper ? 'U' : 'L';
  if constexpr (std::is_same_v<T, float>) {
    scipy_spotrf_(&uplo, &n, a, &ld, &info, 1);
  } else {
    scipy_dpotrf_(&uplo, &n, a, &ld, &info, 1);
  }
  return info;
}

template <typename T>
void triangular_solve(const T* a, T* b, int m, int k, bool left, bool upper, bool transposed,
                      bool unit_diagonal) {
  if (m == 0 || k == 0) return;
  // CBLAS's enum values.
  constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112, kUpper = 121, kLower = 122,
                kNonUnit = 131, kUnit = 132, kLeft = 141, kRight = 142;
  const int n = left ? m : k;
  const int side = left ? kLeft : kRight, uplo = upper ? kUpper : kLower,
            trans = transposed ? kTrans : kNoTrans, diag = unit_diagonal ? kUnit : kNonUnit;
  if constexpr (std::is_same_v<T, float>) {
    scipy_cblas_strsm(kRowMajor, side, uplo, trans, diag, m, k, 1.0f, a, n, b, k);
  } else {
    scipy_cblas_dtrsm(kRowMajor, side, uplo, trans, diag, m, k, 1.0, a, n, b, k);
  }
}

#define GT_LAPACK_INSTANTIATE(T)                                       \
  template int lu_factor<T>(T*, int, int*);                            \
  template void lu_solve<T>(const T*, const int*, int, T*, int, bool); \
  template void lu_inverse<T>(T*, const int*, int);                    \
  template int cholesky<T>(T*, int, bool);                             \
  template void triangular_solve<T>(const T*, T*, int, int, bool, bool, bool, bool);
GT_LAPACK_INSTANTIATE(float)
GT_LAPACK_INSTANTIATE(double)
#undef GT_LAPACK_INSTANTIATE

}  // namespace gradtrack::kernels
