// linalg.svd (thin) and its backward, for svdvals and the spectral and
// nuclear matrix norms.
#pragma once

#include <tuple>

#include "autograd/formulas.h"
#include "core/tensor.h"

namespace gradtrack::ops {

/// (U, S, Vh) of the batched matrices `a` (full_matrices=False), recorded as
/// LinalgSvdBackward0.
std::tuple<Tensor, Tensor, Tensor> linalg_svd(const Tensor& a);

}  // namespace gradtrack::ops

namespace gradtrack::autograd::svd {

TensorList linalg_svd_bw(const BackwardCtx& c, const TensorList& g);

}  // namespace gradtrack::autograd::svd
