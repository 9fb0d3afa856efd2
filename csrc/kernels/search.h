// searchsorted / bucketize: binary search of each value in its row of sorted
// boundaries.
#pragma once

#include "core/tensor.h"

namespace gradtrack::kernels {

/// values: contiguous [rows * nv] (or one row shared when rows_b == 1),
/// boundaries: contiguous [rows_b, nb] of values' dtype, sorter: undefined or
/// int64 like boundaries (boundaries[sorter[i]] ascending). out: int64 or
/// int32, shaped like values. right: the first position whose boundary is
/// greater than the value, else the first not less than it (PyTorch's loops).
void search_sorted(const Tensor& out, const Tensor& values, const Tensor& boundaries,
                   const Tensor& sorter, bool right);

}  // namespace gradtrack::kernels
