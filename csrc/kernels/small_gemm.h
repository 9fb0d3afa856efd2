// A matrix product for small row counts, without packing.
//
// NOTE [Small GEMM]
// The LSTM layer's per-step products are [rows, H] @ [H, 4H] and
// [rows, 4H] @ [4H, H] with a handful of rows per thread. OpenBLAS packs both
// operands on every call; at 10-20 rows the copy of the whole right-hand
// matrix costs about as much as the product itself (13% of the layer's time
// in a profile). This kernel reads both operands in place: a tile of up to 6
// rows by 2 vectors of columns is kept in registers while k runs, the right
// operand's 2-vector column panel stays in L1/L2 across the row tiles. AVX2 +
// FMA is chosen at run time (as the SIMD clones are, NOTE [SIMD clones]), with
// portable loops otherwise. Summation runs in k order per element, so results
// differ from BLAS's only by rounding.
#pragma once

#include <cstdint>

namespace gradtrack::kernels {

/// Row-major c[m, n] = beta * c + a[m, k] @ b[k, n] with leading dimensions
/// lda, ldb, ldc, on the calling thread. beta == 0 never reads c.
template <typename T>
void small_gemm(int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb,
                T beta, T* c, int64_t ldc);

/// The same product through the portable loops only (tests compare the paths).
template <typename T>
void small_gemm_generic(int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b,
                        int64_t ldb, T beta, T* c, int64_t ldc);

/// True if small_gemm runs the AVX2 + FMA kernel on this CPU.
bool small_gemm_vectorised();

}  // namespace gradtrack::kernels
