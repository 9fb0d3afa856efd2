// Solving with an LU factorization, on our GEMM, for many right-hand sides.
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

namespace gradtrack::kernels {

/// Solves A X = B in place in the row-major n x k buffer `b` (leading dimension
/// k), where `lu` and `piv` are lu_factor's factorization of A's row-major
/// buffer (NOTE [Row-major matrices in LAPACK]): with A^T = P L U, A = U^T L^T
/// P^T, so X = P L^-T U^-T B. Runs on the calling thread's pool.
template <typename T>
void lu_solve_rows(const T* lu, const int* piv, int64_t n, T* b, int64_t k);

}  // namespace gradtrack::kernels
