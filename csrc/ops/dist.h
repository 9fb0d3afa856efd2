// cdist: pairwise p-norm distances between the rows of two batches of
// matrices, and PyTorch's matrix-multiply path for p = 2 (_euclidean_dist).
#pragma once

#include "core/tensor.h"

namespace gradtrack::ops {

/// mode: 0 use_mm_for_euclid_dist_if_necessary, 1 use_mm_for_euclid_dist,
/// 2 donot_use_mm_for_euclid_dist (PyTorch's compute_mode numbering).
Tensor cdist(const Tensor& x1, const Tensor& x2, double p, int64_t mode);
/// sqrt(max(|x1|^2 + |x2|^2 - 2 x1 x2^T, 0)) over [B, R, M] batches.
Tensor euclidean_dist(const Tensor& x1, const Tensor& x2);
/// The two gradients of cdist for output gradient g (differentiable ops).
std::pair<Tensor, Tensor> cdist_grads(const Tensor& g, const Tensor& x1, const Tensor& x2,
                                      const Tensor& dist, double p);

}  // namespace gradtrack::ops

namespace gradtrack::ops {

/// searchsorted's search (arguments already checked and of one dtype):
/// int64 (or int32) positions shaped like `values`; sorter may be undefined.
Tensor searchsorted(const Tensor& boundaries, const Tensor& values, bool out_int32, bool right,
                    const Tensor& sorter);

}  // namespace gradtrack::ops
