// The factorizations and triangular solves of torch.linalg (inv, det, slogdet,
// solve, solve_triangular, cholesky, cholesky_solve) and its decompositions
// (svd, qr, eigh) on the LAPACK that the scipy-openblas32 wheel carries (its
// symbols are prefixed scipy_).
//
// NOTE [Row-major matrices in LAPACK]
// LAPACK reads column-major matrices; our matrices are row-major, so LAPACK
// sees the transpose of each buffer. The callers use that instead of copying:
// an LU factorization of A's buffer factors A^T (same determinant); solving
// with the transposed system ('T') of that factorization solves A X = B for a
// column-major B; a Cholesky factor asked as 'U' of the buffer is the
// row-major lower factor L (A is symmetric). Every matrix here is one
// contiguous n x n (or n x k) block.
#pragma once

#include <cstdint>

namespace gradtrack::kernels {

/// LU with partial pivoting of the n x n buffer `a` in place (getrf); piv gets
/// n 1-based pivots. Returns LAPACK's info: 0, or i > 0 when U(i, i) is zero.
template <typename T>
int lu_factor(T* a, int n, int* piv);

/// lu_factor of the column-major m x n panel at `a` (leading dimension ld): min(m, n)
/// pivots. Returns LAPACK's info.
template <typename T>
int lu_factor_panel(T* a, int m, int n, int ld, int* piv);

/// LAPACK's row interchanges (laswp) of pivots first..last (1-based, as getrf's)
/// applied in order to the `cols` columns of the column-major buffer `a`.
template <typename T>
void row_swaps(T* a, int cols, int ld, int first, int last, const int* piv);
/// LU with partial pivoting of the column-major m x n buffer `a` in place
/// (getrf); piv gets min(m, n) 1-based pivots. Returns LAPACK's info.
template <typename T>
int lu_factor_rect(T* a, int m, int n, int* piv);

/// Least squares min ||A X - B|| of the column-major m x n `a` (overwritten) and
/// the column-major B in `b` (ldb = max(m, n, 1) rows, nrhs columns; X comes back
/// in its first n rows) with the driver 0 gels, 1 gelsy, 2 gelsd, 3 gelss.
/// `rank` (gelsy, gelsd, gelss) and `s` (min(m, n) singular values: gelsd, gelss)
/// are written where the driver gives them. Returns LAPACK's info.
template <typename T>
int lstsq(T* a, int m, int n, T* b, int nrhs, int driver, T rcond, int* rank, T* s);

/// Solves with the factorization of lu_factor: for the buffer's matrix M
/// (column-major) and transposed = true, M^T X = B, with B column-major n x nrhs
/// in place (getrs).
template <typename T>
void lu_solve(const T* lu, const int* piv, int n, T* b, int nrhs, bool transposed);

/// Cholesky of the column-major buffer in place (potrf), reading and writing the
/// triangle `upper` names. Returns info: 0, or the order of the leading minor
/// that is not positive-definite.
/// `ld` is the buffer's leading dimension (n if 0): a diagonal block of a larger matrix.
template <typename T>
int cholesky(T* a, int n, bool upper, int ld = 0);

/// Row-major triangular solve in place (trsm): left: op(A) X = B, else X op(A) = B,
/// with A n x n (lower or upper, unit diagonal or not, transposed or not) and
/// B m x k (n = m if left, else n = k).
template <typename T>
void triangular_solve(const T* a, T* b, int m, int k, bool left, bool upper, bool transposed,
                      bool unit_diagonal);

/// The SVD of the column-major m x n buffer `a` (destroyed) by divide and conquer
/// (gesdd): s gets min(m, n) values, descending; u (m x ucols, column-major) and
/// vt (vtrows x n) the singular vectors, ucols = vtrows = min(m, n) unless `full`
/// (then m and n); with `vectors` false, u and vt are not touched (may be null).
/// Returns LAPACK's info: 0, or > 0 when the iteration did not converge.
template <typename T>
int svd(T* a, int m, int n, T* s, T* u, T* vt, bool full, bool vectors);

/// Householder QR of the column-major m x n buffer `a` in place (geqrf): R in its
/// upper triangle, the reflectors below it and in tau (min(m, n) values).
template <typename T>
void qr_factor(T* a, int m, int n, T* tau);

/// The first `cols` columns of the Q of qr_factor (orgqr), in place in `a`, a
/// column-major m x cols buffer whose first k = min(m, n) columns hold the reflectors.
template <typename T>
void qr_q(T* a, int m, int cols, int k, const T* tau);

/// The eigenvalues (ascending, into w) of the symmetric column-major n x n buffer
/// `a`, reading the triangle `upper` names, and with `vectors` its orthonormal
/// eigenvectors as the columns of `a` (syevd). Returns LAPACK's info.
template <typename T>
int eigh(T* a, int n, T* w, bool upper, bool vectors);

}  // namespace gradtrack::kernels
