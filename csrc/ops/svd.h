// linalg.svd (thin), for svdvals and the spectral and nuclear matrix norms; its
// backward is in autograd/formulas/linalg.cpp.
#pragma once

#include <tuple>

#include "autograd/formulas.h"
#include "core/tensor.h"

namespace gradtrack::ops {

/// (U, S, Vh) of the batched matrices `a` (full_matrices=False), recorded as
/// LinalgSvdBackward0.
std::tuple<Tensor, Tensor, Tensor> linalg_svd(const Tensor& a);

}  // namespace gradtrack::ops
