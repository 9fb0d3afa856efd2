// The QR factorization and its Q with their updates over two threads.
//
// NOTE [Blocked Householder QR over two threads]
// LAPACK's geqrf and orgqr (OpenBLAS ships the reference ones) work in blocks of 32
// reflectors, but only while more than 128 columns remain: the rest is unblocked,
// matrix-vector code, all of a 128 x 128 factorization and half of a 256 x 256 one.
// And they run on one thread here (NOTE [One thread pool]), where torch's MKL uses
// two. From two blocks, the factorization is LAPACK's algorithm with blocks to the
// end: each panel of 32 columns factored by geqr2, its block reflector formed (larft)
// and the columns right of it updated by larfb. From 2^24 multiply-adds on two
// threads the updates are split by columns, in one region with a barrier a step; the
// first thread factors the next panel, so it takes fewer columns, and it may start
// while the second still updates (the triangles alternate between two buffers).
// Q is built column slice by column slice: a column of Q is H1 ... Hk applied to a
// column of the identity, independent of the others, so each thread applies every
// block reflector, last first, to its own columns, with no barrier. Reflector j
// leaves the columns before j untouched, so the left columns cost less and the first
// thread takes ~65% of them. R and Q equal LAPACK's up to rounding (the same
// reflectors, summed in another order).
// linalg.qr, float32, Xeon family 6 model 207, in one process with torch (ms):
// | n | threads | before | blocks | torch |
// | 128 | 1 | 0.36 | 0.23-0.24 | 0.33-0.35 |
// | 256 | 1 | 1.60 | 1.11-1.15 | 1.24-1.51 |
// | 256 | 2 | 1.51 | 0.88-1.01 | 1.08-1.24 |
// | 512 | 2 | 6.46 | 4.16-4.23 | 4.73-4.95 |
#pragma once

#include <cstdint>

namespace gradtrack::kernels {

/// Whether qr_factor_blocks and qr_q_blocks beat LAPACK's geqrf and orgqr for an
/// m x n factorization with k reflectors: from two blocks.
bool qr_blocks_pay(int64_t m, int64_t n, int64_t k);

/// geqrf of the column-major m x n matrix a (leading dimension m) in blocks over two
/// threads: R on and above the diagonal, the reflectors below, their scales in tau.
template <typename T>
void qr_factor_blocks(T* a, int m, int n, T* tau);

/// The first `cols` columns of the Q of qr_factor_blocks' (or geqrf's) k reflectors
/// in `a` into the column-major m x cols buffer q, over two threads; a is only read.
template <typename T>
void qr_q_blocks(const T* a, int m, int cols, int k, const T* tau, T* q);

}  // namespace gradtrack::kernels
