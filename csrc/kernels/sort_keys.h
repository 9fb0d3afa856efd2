// Fast paths of sort_lines (sort, topk) for float32: NOTE [Sort keys].
#pragma once

#include <cstdint>

#include "core/tensor.h"

namespace gradtrack::kernels {

/// sort_lines for the inputs the key paths handle (float32 lines of 2^8 to
/// 2^32 elements); false, touching nothing, for any other input.
bool sort_lines_by_keys(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim,
                        bool descending, int64_t k);

/// One float32 line of n (< 2^32) elements sorted as torch's sort without
/// stable=True sorts it, equal values included (NOTE [Ties in torch's order]).
void torch_sort_float_line(const float* src, int64_t stride, int64_t n, bool descending,
                           float* vout, int64_t* iout, int64_t out_stride);

}  // namespace gradtrack::kernels
