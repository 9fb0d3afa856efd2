// Triangular solves and the LU and Cholesky factorizations on our GEMM.
//
// NOTE [LU solves on our GEMM]
// OpenBLAS's getrs (and the trsm under it) reached ~20 GFLOP/s on one core of
// a Xeon with AVX-512 for 256 right-hand sides of a 256 x 256 system, about a
// fifth of its GEMM, so linalg.solve took 2x torch's (MKL) time on one thread,
// 3x on two (OpenBLAS is pinned to one thread: NOTE [One thread pool]). Here
// each triangular solve is split in halves recursively down to 16 rows: the
// two halves are solved one after the other and the product that joins them
// is one GEMM (blas_gemm: ours where it wins), so nearly all the work runs at
// GEMM speed. The right-hand sides are split in column slices over the
// threads, each slice solved whole on its thread (no synchronization). The
// factorization stays LAPACK's (getrf); the rows of B are solved in place in
// their own row-major layout, so no transposed copies are made.
#pragma once

#include <cstdint>
#include <functional>

namespace gradtrack::kernels {

// NOTE [LU on our GEMM]
// OpenBLAS's getrf took 0.49 ms for 256 x 256 on one core (torch's MKL 0.28 ms)
// and runs on one thread here. Past 64 columns the factorization is LAPACK's
// recursive one (getrf2) with the work moved onto our GEMM: the left half of
// the columns is factored (recursively), its row interchanges applied to the
// right half, the top right block solved against the unit lower factor (the
// recursive triangular solve, columns over the threads), the bottom right block
// updated by one GEMM (rows over the threads) and factored, and its interchanges
// applied back to the left half. Panels of up to 64 columns are LAPACK's. The
// pivots and factors are getrf's (the same algorithm, so the same choice of
// pivots up to rounding); only the order of the sums in the update differs.

/// lu_factor on our GEMM (NOTE [LU on our GEMM]): LU with partial pivoting of the
/// n x n buffer `a` as LAPACK sees it (column-major), n 1-based pivots in piv.
/// Returns LAPACK's info: 0, or i > 0 when U(i, i) is zero.
template <typename T>
int lu_factor_rows(T* a, int64_t n, int* piv);

/// Solves A X = B in place in the row-major n x k buffer `b` (leading dimension
/// k), where `lu` and `piv` are lu_factor's factorization of A's row-major
/// buffer (NOTE [Row-major matrices in LAPACK]): with A^T = P L U, A = U^T L^T
/// P^T, so X = P L^-T U^-T B. Runs on the calling thread's pool.
template <typename T>
void lu_solve_rows(const T* lu, const int* piv, int64_t n, T* b, int64_t k);

/// lu_factor_rows of the row-major n x n buffer `a`, then lu_solve_rows of the n x k
/// rows of `b` with it (singular or not). `prepare`, if any, runs first on the calling
/// thread. From 2^23 multiply-adds the pool wakes while A is factored (NOTE [Waking
/// the pool behind the factorization] in triangular_blocks.cpp). Returns the info.
template <typename T>
int lu_factor_and_solve_rows(T* a, int* piv, int64_t n, T* b, int64_t k,
                             const std::function<void()>& prepare = {});

/// lu_factor_rows of the row-major n x n buffer `a` and, when A is nonsingular (the
/// returned info is 0), its inverse into the row-major n x n buffer `b`: lu_solve_rows
/// with B = I, less the work on the zeros it keeps (the first solve's result is lower
/// triangular). `prepare`, if any, runs first on the calling thread: it fills `a`.
/// From n = 204 the pool wakes while A is factored (NOTE [Waking the pool behind the
/// factorization] in triangular_blocks.cpp).
template <typename T>
int lu_factor_and_inverse_rows(T* a, int* piv, int64_t n, T* b,
                               const std::function<void()>& prepare = {});

// NOTE [Cholesky on our GEMM]
// OpenBLAS's potrf is as fast as torch's (MKL) on one core, but it runs on one
// thread here (NOTE [One thread pool]) where MKL's uses both. Past 128 rows the
// factorization splits in halves: the leading half is factored, the block
// under it solved against it (the recursive triangular solve above, its
// columns over the threads), the trailing half updated by GEMMs over blocks of
// 64 rows, each only as far as the lower triangle (1.41 -> 1.19 ms at 512 on one
// core), and then factored; blocks of up to 128 rows are LAPACK's.

/// The Cholesky factor of the symmetric positive-definite row-major n x n
/// buffer `a`, in place: L with A = L L^T in its lower triangle (read from A's
/// lower triangle), or with `upper` U = L^T in its upper one (read from A's
/// upper triangle). The other triangle is left in an unspecified state. Returns
/// LAPACK's info: 0, or the order of the leading minor that is not
/// positive-definite.
template <typename T>
int cholesky_rows(T* a, int64_t n, bool upper);

}  // namespace gradtrack::kernels
