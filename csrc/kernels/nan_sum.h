// nansum's kernel: a header of its own, so that reduce.h's includers do not
// rebuild for it.
#pragma once

#include <cstdint>

#include "core/tensor.h"

namespace gradtrack::kernels {

/// out (keepdim shape) = the sum of the float tensor `in` over the dims set in
/// `mask`, each NaN counted as 0, in one pass: the sum's paths and order
/// (NOTE [NaN-skipping sums] in cascade_sum.cpp).
void nan_sum(const Tensor& out, const Tensor& in, uint64_t mask);

}  // namespace gradtrack::kernels
