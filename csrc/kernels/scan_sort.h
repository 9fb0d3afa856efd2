// Kernels that work line by line along one dim: scans (cumsum, cumprod),
// sorting (sort, topk) and order statistics (kthvalue, median, mode). Inputs
// are contiguous and aligned (callers make them so); outputs are new
// contiguous tensors.
#pragma once

#include <cstdint>

#include "core/tensor.h"

namespace gradtrack::kernels {

/// out[..., j, ...] = in[..., 0, ...] (+ or *) ... in[..., j, ...] along `dim`;
/// `in` already has out's dtype.
void cumulative(bool is_prod, const Tensor& out, const Tensor& in, int64_t dim);

/// How sort_lines orders equal values (NOTE [Ties in torch's order] in scan_sort.cpp):
/// by position (sort's stable=True), as torch's sort does without it, or as torch's
/// topk does, its k sorted or not.
enum class SortOrder { Stable, Sort, TopkSorted, TopkUnsorted };

/// The first `k` elements of each line along `dim` in sorted order (NaN is
/// larger than every number, as PyTorch's), with their positions in the line,
/// equal values in `order`. values/indices have size k along dim.
void sort_lines(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim,
                bool descending, int64_t k, SortOrder order);
/// sort_lines with equal values in position order (float32, reduced floats widened).
void stable_sort_lines(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim,
                       bool descending, int64_t k);

/// Per line along `dim`: the k-th smallest element (k counted from 0; NaN is
/// the largest) and its position; with nan_wins, a line holding NaN gives NaN
/// at its first NaN (median); with nan_skips, k is each line's lower median of its
/// numbers (nanmedian). values/indices are the keepdim shape.
void kth_lines(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim,
               int64_t k, bool nan_wins, bool nan_skips = false);
/// cummax (is_max) / cummin along `dim`: the running extreme and the position it was
/// last taken from (ties and NaN move it on, as PyTorch's).
void cumulative_extreme(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim,
                        bool is_max);
/// logcumsumexp along `dim` (floating `in`, out's dtype), accumulated in double.
void log_cumulative_sum_exp(const Tensor& out, const Tensor& in, int64_t dim);
/// Per line: the most frequent value (the smallest of equally frequent ones)
/// and one position holding it, the one PyTorch's CPU mode gives (NOTE [Ties
/// in torch's order] in scan_sort.cpp).
void mode_lines(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim);

}  // namespace gradtrack::kernels
