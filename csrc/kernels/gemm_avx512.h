// Our own AVX-512 GEMM for float32 and float64.
//
// NOTE [AVX-512 GEMM]
// OpenBLAS 0.3.34's SkylakeX sgemm/dgemm reach 84-107 GFLOP/s per core here,
// MKL (torch) 107-126 of the ~166 an FMA loop reaches. This is a BLIS-style
// GEMM: the loops block k (kc) and the columns of c (nb) so that one packed
// kc x nb block of b stays in L2 and one packed MR x kc micro-panel of a stays
// in L1, while the microkernel keeps an MR x 2-vector tile of c in zmm
// registers (28 of the 32: 14 rows by 32 float or 16 double columns) and streams the
// b micro-panel. Packing reads any row and column stride (a transposed
// operand is packed through 16x16 / 8x8 register transposes), so transposed
// operands need no copy. For narrow products (NOTE [AVX-512 GEMM: b in place]
// and the rule for a next to it) the kernel reads b or a where they lie.
// Edges are zero-padded in the packed buffers and masked at the store.
// Threads: NOTE [AVX-512 GEMM threads]. Built for x86-64-v4 with a target
// attribute and chosen at run time; other CPUs keep OpenBLAS. A few choices
// differ between Intel and AMD (NOTE [Tuned per vendor] in gemm_avx512.cpp).
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

namespace gradtrack::kernels {

/// True if this CPU runs gemm_avx512 (AVX-512 F/BW/DQ/VL).
bool gemm_avx512_available();

/// True if blas_gemm and matmul use gemm_avx512: the CPU has it and it was not
/// switched off (set_gemm_avx512(false) selects OpenBLAS, for comparisons).
bool use_gemm_avx512();
void set_gemm_avx512(bool on);

/// The most depths of k one block of gemm_avx512 sums before adding into c on
/// this CPU, for float32 and float64 (NOTE [Tuned per vendor]; 0 without it).
std::pair<int64_t, int64_t> gemm_avx512_depth_caps();

/// True if c[m, n] = a[m, k] @ b[k, n] should run on gemm_avx512: it is in use
/// and the product is one where it was measured faster than OpenBLAS (NOTE
/// [AVX-512 GEMM sizes]).
template <typename T>
inline bool gemm_avx512_wins(int64_t m, int64_t n, int64_t k) {
  // NOTE [AVX-512 GEMM sizes]
  // Paired timings on one core (each repetition ours then OpenBLAS, median
  // of the ratios; a second tenant made absolute numbers noisy): below 128^3
  // multiply-adds OpenBLAS's unpacked small-matrix kernel wins (64^3: 0.76x,
  // 96^3: 0.93x); float32 is then 1.21x faster at 128^3, 1.14x at 256^3,
  // 1.15x at 512^3, 1.05-1.1x at 1024^3 (also transposed) and level at 2048^3.
  // float64 is 1.1-1.27x faster from 128^3 to 512^3 and, with 14-row tiles,
  // 1.07x at 1024^3 (matmul against torch at 2 threads: 1.07-1.11x on it,
  // 1.15x on OpenBLAS), but 0.98x at 2048^3, so it stops at 2^30.
  const double madds = double(m) * double(n) * double(k);
  if (madds < double(int64_t(1) << 21) || !use_gemm_avx512()) return false;
  return std::is_same_v<T, float> || madds <= double(int64_t(1) << 30);
}

/// Row-major c[m, n] = op(a) op(b) + beta * c with BLAS's transpose flags and
/// leading dimensions; beta == 0 never reads c. Runs on up to `threads` OpenMP
/// threads (1 inside a parallel region). Only call if gemm_avx512_available().
/// depth_block > 0 sums runs of that many depths in registers and adds each
/// into c (NOTE [Depth blocks] in
/// conv_implicit_avx512.cpp); 0 sums a whole packed block.
template <typename T>
void gemm_avx512(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
                 const T* b, int64_t ldb, T beta, T* c, int64_t ldc, int threads,
                 int64_t depth_block = 0);

}  // namespace gradtrack::kernels
