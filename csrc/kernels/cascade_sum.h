// Float sums in PyTorch's order, so that a printed loss equals torch's to the
// last bit (NOTE [PyTorch's summation order] in cascade_sum.cpp).
#pragma once

#include <cstdint>

namespace gradtrack::kernels {

/// The sum of the contiguous run p[0..n), every addition in T's precision, in
/// the order PyTorch's CPU sum kernel takes on this machine (the same split
/// across `threads` chunks when n reaches its parallel grain).
/// With `skip_nan`, each NaN counts as 0 (nansum; NOTE [NaN-skipping sums]).
float cascade_sum(const float* p, int64_t n, int threads, bool skip_nan = false);
double cascade_sum(const double* p, int64_t n, int threads, bool skip_nan = false);

/// out[r * out_stride] = the sum of the `len` contiguous elements at
/// in + r * row_stride, for r < rows: each as cascade_sum(row, len, 1) gives it,
/// on the calling thread.
void cascade_row_sums(float* out, int64_t out_stride, const float* in, int64_t row_stride,
                      int64_t rows, int64_t len, bool skip_nan = false);
void cascade_row_sums(double* out, int64_t out_stride, const double* in, int64_t row_stride,
                      int64_t rows, int64_t len, bool skip_nan = false);

/// Sums over `rows` rows (row_stride apart) of `cols` dense columns into
/// out[j * out_stride], in PyTorch's order for such a reduction.
void cascade_column_sums(float* out, int64_t out_stride, const float* in, int64_t row_stride,
                         int64_t rows, int64_t cols, int threads, bool skip_nan = false);
void cascade_column_sums(double* out, int64_t out_stride, const double* in, int64_t row_stride,
                         int64_t rows, int64_t cols, int threads, bool skip_nan = false);

}  // namespace gradtrack::kernels
