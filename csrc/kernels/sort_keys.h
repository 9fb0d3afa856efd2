// Fast paths of sort_lines (sort, topk) for float32: NOTE [Sort keys].
#pragma once

#include <cstdint>

#include "core/tensor.h"

namespace gradtrack::kernels {

/// sort_lines for the inputs the key paths handle (float32 lines of 2^8 to
/// 2^32 elements); false, touching nothing, for any other input.
bool sort_lines_by_keys(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim,
                        bool descending, int64_t k);

}  // namespace gradtrack::kernels
