// Reduction kernels over strided memory.
#pragma once

#include <cstdint>

#include "core/tensor.h"

namespace gradtrack::kernels {

enum class ReduceOp { Sum, Prod, Max, Min, Any, All };

/// out (keepdim shape) = reduction of `in` over the dims set in `mask`.
/// Sum/Prod of integers must arrive as int64; Any/All read any dtype.
void reduce(ReduceOp op, const Tensor& out, const Tensor& in, uint64_t mask);
/// Max or min over the dims in `mask` (one dim, or all) with the flat index of
/// the first extreme element (NaN counts as the extreme, as in PyTorch).
/// `values` may be null (argmax/argmin).
void reduce_arg(bool is_max, const Tensor* values, const Tensor& indices, const Tensor& in,
                uint64_t mask);

}  // namespace gradtrack::kernels
