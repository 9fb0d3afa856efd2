// Our own AVX-512 GEMM for float32 and float64.
//
// NOTE [AVX-512 GEMM]
// OpenBLAS 0.3.34's SkylakeX sgemm/dgemm reach 84-107 GFLOP/s per core here,
// MKL (torch) 107-126 of the ~166 an FMA loop reaches. This is a BLIS-style
// GEMM: the loops block k (kc) and the columns of c (nb) so that one packed
// kc x nb block of b stays in L2 and one packed MR x kc micro-panel of a stays
// in L1, while the microkernel keeps an MR x 2-vector tile of c in zmm
// registers (24 of the 32) and streams the b micro-panel. Packing reads any row
// and column stride, so transposed operands need no copy. Edges are zero-padded
// in the packed buffers and masked at the store. Threads share both packed
// buffers (each packs a part, then a barrier) and split the tiles along m, or
// along n when m has few tiles. Built for x86-64-v4 with a target attribute and
// chosen at run time; callers keep OpenBLAS on other CPUs.
#pragma once

#include <cstdint>

namespace gradtrack::kernels {

/// True if this CPU runs gemm_avx512 (AVX-512 F/BW/DQ/VL).
bool gemm_avx512_available();

/// True if blas_gemm and matmul use gemm_avx512: the CPU has it and it was not
/// switched off (set_gemm_avx512(false) selects OpenBLAS, for comparisons).
bool use_gemm_avx512();
void set_gemm_avx512(bool on);

/// Row-major c[m, n] = op(a) op(b) + beta * c with BLAS's transpose flags and
/// leading dimensions; beta == 0 never reads c. Runs on up to `threads` OpenMP
/// threads (1 inside a parallel region). Only call if gemm_avx512_available().
template <typename T>
void gemm_avx512(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
                 const T* b, int64_t ldb, T beta, T* c, int64_t ldc, int threads);

}  // namespace gradtrack::kernels
