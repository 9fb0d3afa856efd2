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
void scipy_slaswp_(const int* n, float* a, const int* lda, const int* k1, const int* k2,
                   const int* ipiv, const int* incx);
void scipy_dlaswp_(const int* n, double* a, const int* lda, const int* k1, const int* k2,
                   const int* ipiv, const int* incx);
void scipy_sgetrs_(const char* trans, const int* n, const int* nrhs, const float* a, const int* lda,
                   const int* ipiv, float* b, const int* ldb, int* info, size_t trans_len);
void scipy_dgetrs_(const char* trans, const int* n, const int* nrhs, const double* a,
                   const int* lda, const int* ipiv, double* b, const int* ldb, int* info,
                   size_t trans_len);
void scipy_spotrf_(const char* uplo, const int* n, float* a, const int* lda, int* info,
                   size_t uplo_len);
void scipy_dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info,
                   size_t uplo_len);
void scipy_sgesdd_(const char* jobz, const int* m, const int* n, float* a, const int* lda, float* s,
                   float* u, const int* ldu, float* vt, const int* ldvt, float* work,
                   const int* lwork, int* iwork, int* info, size_t jobz_len);
void scipy_dgesdd_(const char* jobz, const int* m, const int* n, double* a, const int* lda,
                   double* s, double* u, const int* ldu, double* vt, const int* ldvt, double* work,
                   const int* lwork, int* iwork, int* info, size_t jobz_len);
void scipy_sgeqrf_(const int* m, const int* n, float* a, const int* lda, float* tau, float* work,
                   const int* lwork, int* info);
void scipy_dgeqrf_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work,
                   const int* lwork, int* info);
void scipy_sorgqr_(const int* m, const int* n, const int* k, float* a, const int* lda,
                   const float* tau, float* work, const int* lwork, int* info);
void scipy_dorgqr_(const int* m, const int* n, const int* k, double* a, const int* lda,
                   const double* tau, double* work, const int* lwork, int* info);
void scipy_ssyevd_(const char* jobz, const char* uplo, const int* n, float* a, const int* lda,
                   float* w, float* work, const int* lwork, int* iwork, const int* liwork,
                   int* info, size_t jobz_len, size_t uplo_len);
void scipy_dsyevd_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda,
                   double* w, double* work, const int* lwork, int* iwork, const int* liwork,
                   int* info, size_t jobz_len, size_t uplo_len);
void scipy_sgels_(const char* trans, const int* m, const int* n, const int* nrhs, float* a,
                  const int* lda, float* b, const int* ldb, float* work, const int* lwork,
                  int* info, size_t trans_len);
void scipy_dgels_(const char* trans, const int* m, const int* n, const int* nrhs, double* a,
                  const int* lda, double* b, const int* ldb, double* work, const int* lwork,
                  int* info, size_t trans_len);
void scipy_sgelsy_(const int* m, const int* n, const int* nrhs, float* a, const int* lda, float* b,
                   const int* ldb, int* jpvt, const float* rcond, int* rank, float* work,
                   const int* lwork, int* info);
void scipy_dgelsy_(const int* m, const int* n, const int* nrhs, double* a, const int* lda,
                   double* b, const int* ldb, int* jpvt, const double* rcond, int* rank,
                   double* work, const int* lwork, int* info);
void scipy_sgelsd_(const int* m, const int* n, const int* nrhs, float* a, const int* lda, float* b,
                   const int* ldb, float* s, const float* rcond, int* rank, float* work,
                   const int* lwork, int* iwork, int* info);
void scipy_dgelsd_(const int* m, const int* n, const int* nrhs, double* a, const int* lda,
                   double* b, const int* ldb, double* s, const double* rcond, int* rank,
                   double* work, const int* lwork, int* iwork, int* info);
void scipy_sgelss_(const int* m, const int* n, const int* nrhs, float* a, const int* lda, float* b,
                   const int* ldb, float* s, const float* rcond, int* rank, float* work,
                   const int* lwork, int* info);
void scipy_dgelss_(const int* m, const int* n, const int* nrhs, double* a, const int* lda,
                   double* b, const int* ldb, double* s, const double* rcond, int* rank,
                   double* work, const int* lwork, int* info);
// CBLAS (row-major capable).
void scipy_cblas_strsm(int order, int side, int uplo, int trans, int diag, int m, int n,
                       float alpha, const float* a, int lda, float* b, int ldb);
void scipy_cblas_dtrsm(int order, int side, int uplo, int trans, int diag, int m, int n,
                       double alpha, const double* a, int lda, double* b, int ldb);
void scipy_cblas_strsv(int order, int uplo, int trans, int diag, int n, const float* a, int lda,
                       float* x, int incx);
void scipy_cblas_dtrsv(int order, int uplo, int trans, int diag, int n, const double* a, int lda,
                       double* x, int incx);
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
int lu_factor_panel(T* a, int m, int n, int ld, int* piv) {
  int info = 0;
  if constexpr (std::is_same_v<T, float>) {
    scipy_sgetrf_(&m, &n, a, &ld, piv, &info);
  } else {
    scipy_dgetrf_(&m, &n, a, &ld, piv, &info);
  }
  return info;
}

template <typename T>
void row_swaps(T* a, int cols, int ld, int first, int last, const int* piv) {
  const int one = 1;
  if constexpr (std::is_same_v<T, float>) {
    scipy_slaswp_(&cols, a, &ld, &first, &last, piv, &one);
  } else {
    scipy_dlaswp_(&cols, a, &ld, &first, &last, piv, &one);
  }
}

template <typename T>
int lu_factor_rect(T* a, int m, int n, int* piv) {
  return lu_factor_panel(a, m, n, std::max(m, 1), piv);
}

template <typename T>
int lstsq(T* a, int m, int n, T* b, int nrhs, int driver, T rcond, int* rank, T* s) {
  const int lda = std::max(m, 1), ldb = std::max({m, n, 1});
  int info = 0, lwork = -1, iquery = 0;
  const char trans = 'N';
  std::vector<int> jpvt(static_cast<size_t>(std::max(n, 1)), 0);
  constexpr bool single = std::is_same_v<T, float>;
  auto call = [&](T* work, int* iwork) {
    if (driver == 0) {
      if constexpr (single) {
        scipy_sgels_(&trans, &m, &n, &nrhs, a, &lda, b, &ldb, work, &lwork, &info, 1);
      } else {
        scipy_dgels_(&trans, &m, &n, &nrhs, a, &lda, b, &ldb, work, &lwork, &info, 1);
      }
    } else if (driver == 1) {
      if constexpr (single) {
        scipy_sgelsy_(&m, &n, &nrhs, a, &lda, b, &ldb, jpvt.data(), &rcond, rank, work, &lwork,
                      &info);
      } else {
        scipy_dgelsy_(&m, &n, &nrhs, a, &lda, b, &ldb, jpvt.data(), &rcond, rank, work, &lwork,
                      &info);
      }
    } else if (driver == 2) {
      if constexpr (single) {
        scipy_sgelsd_(&m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, rank, work, &lwork, iwork, &info);
      } else {
        scipy_dgelsd_(&m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, rank, work, &lwork, iwork, &info);
      }
    } else {
      if constexpr (single) {
        scipy_sgelss_(&m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, rank, work, &lwork, &info);
      } else {
        scipy_dgelss_(&m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, rank, work, &lwork, &info);
      }
    }
  };
  T query = 0;
  call(&query, &iquery);
  lwork = std::max(int(query), 1);
  std::vector<T> work(static_cast<size_t>(lwork));
  std::vector<int> iwork(static_cast<size_t>(std::max(iquery, 1)));
  call(work.data(), iwork.data());
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
int cholesky(T* a, int n, bool upper, int ld) {
  int info = 0;
  if (ld == 0) ld = std::max(n, 1);
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
  // NOTE [Few right-hand sides by trsv]
  // OpenBLAS's trsm is slow for a few right-hand sides; its trsv is not. Up to
  // kTrsvColumns columns (or rows, on the right) are solved one at a time: on the left,
  // column j of b (stride k) with op(A); on the right, row i of b (X op(A) = B is
  // op(A)^T x = b). solve_triangular of a 256 x 256 triangle, Xeon family 6 model 207
  // (with its operand no longer copied): one column 51 -> 9.7 us (torch 8.9 us), four
  // 55 -> 28 us (torch 15 us).
  constexpr int kTrsvColumns = 4;
  if ((left ? k : m) <= kTrsvColumns) {
    const int vectors = left ? k : m, step = left ? 1 : k, inc = left ? k : 1;
    const int vtrans = left ? trans : transposed ? kNoTrans : kTrans;
    for (int v = 0; v < vectors; ++v) {
      if constexpr (std::is_same_v<T, float>) {
        scipy_cblas_strsv(kRowMajor, uplo, vtrans, diag, n, a, n, b + v * step, inc);
      } else {
        scipy_cblas_dtrsv(kRowMajor, uplo, vtrans, diag, n, a, n, b + v * step, inc);
      }
    }
    return;
  }
  if constexpr (std::is_same_v<T, float>) {
    scipy_cblas_strsm(kRowMajor, side, uplo, trans, diag, m, k, 1.0f, a, n, b, k);
  } else {
    scipy_cblas_dtrsm(kRowMajor, side, uplo, trans, diag, m, k, 1.0, a, n, b, k);
  }
}

template <typename T>
int svd(T* a, int m, int n, T* s, T* u, T* vt, bool full, bool vectors) {
  const int k = std::min(m, n);
  if (k == 0) return 0;
  const char jobz = !vectors ? 'N' : full ? 'A' : 'S';
  const int lda = std::max(m, 1), ldu = std::max(m, 1);
  const int ldvt = std::max(full ? n : k, 1);
  T dummy = 0;
  if (!vectors) u = vt = &dummy;
  std::vector<int> iwork(size_t(8) * size_t(k));
  int info = 0, lwork = -1;
  T query = 0;
  auto call = [&](T* work) {
    if constexpr (std::is_same_v<T, float>) {
      scipy_sgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork.data(),
                    &info, 1);
    } else {
      scipy_dgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork.data(),
                    &info, 1);
    }
  };
  call(&query);
  lwork = std::max(int(query), 1);
  std::vector<T> work(static_cast<size_t>(lwork));
  call(work.data());
  return info;
}

template <typename T>
void qr_factor(T* a, int m, int n, T* tau) {
  if (std::min(m, n) == 0) return;
  const int lda = std::max(m, 1);
  int info = 0, lwork = -1;
  T query = 0;
  auto call = [&](T* work) {
    if constexpr (std::is_same_v<T, float>) {
      scipy_sgeqrf_(&m, &n, a, &lda, tau, work, &lwork, &info);
    } else {
      scipy_dgeqrf_(&m, &n, a, &lda, tau, work, &lwork, &info);
    }
  };
  call(&query);
  lwork = std::max(int(query), 1);
  std::vector<T> work(static_cast<size_t>(lwork));
  call(work.data());
}

template <typename T>
void qr_q(T* a, int m, int cols, int k, const T* tau) {
  if (m == 0 || cols == 0) return;
  const int lda = std::max(m, 1);
  int info = 0, lwork = -1;
  T query = 0;
  auto call = [&](T* work) {
    if constexpr (std::is_same_v<T, float>) {
      scipy_sorgqr_(&m, &cols, &k, a, &lda, tau, work, &lwork, &info);
    } else {
      scipy_dorgqr_(&m, &cols, &k, a, &lda, tau, work, &lwork, &info);
    }
  };
  call(&query);
  lwork = std::max(int(query), 1);
  std::vector<T> work(static_cast<size_t>(lwork));
  call(work.data());
}

template <typename T>
int eigh(T* a, int n, T* w, bool upper, bool vectors) {
  if (n == 0) return 0;
  const char jobz = vectors ? 'V' : 'N', uplo = upper ? 'U' : 'L';
  const int lda = std::max(n, 1);
  int info = 0, lwork = -1, liwork = -1, iquery = 0;
  T query = 0;
  auto call = [&](T* work, int* iwork) {
    if constexpr (std::is_same_v<T, float>) {
      scipy_ssyevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, &info, 1, 1);
    } else {
      scipy_dsyevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, &info, 1, 1);
    }
  };
  call(&query, &iquery);
  lwork = std::max(int(query), 1);
  liwork = std::max(iquery, 1);
  std::vector<T> work(static_cast<size_t>(lwork));
  std::vector<int> iwork(static_cast<size_t>(liwork));
  call(work.data(), iwork.data());
  return info;
}

#define GT_LAPACK_INSTANTIATE(T)                                                     \
  template int lu_factor<T>(T*, int, int*);                                          \
  template int lu_factor_rect<T>(T*, int, int, int*);                                \
  template int lstsq<T>(T*, int, int, T*, int, int, T, int*, T*);                    \
  template void lu_solve<T>(const T*, const int*, int, T*, int, bool);               \
  template int lu_factor_panel<T>(T*, int, int, int, int*);                          \
  template void row_swaps<T>(T*, int, int, int, int, const int*);                    \
  template int cholesky<T>(T*, int, bool, int);                                      \
  template void triangular_solve<T>(const T*, T*, int, int, bool, bool, bool, bool); \
  template int svd<T>(T*, int, int, T*, T*, T*, bool, bool);                         \
  template void qr_factor<T>(T*, int, int, T*);                                      \
  template void qr_q<T>(T*, int, int, int, const T*);                                \
  template int eigh<T>(T*, int, T*, bool, bool);
GT_LAPACK_INSTANTIATE(float)
GT_LAPACK_INSTANTIATE(double)
#undef GT_LAPACK_INSTANTIATE

}  // namespace gradtrack::kernels
