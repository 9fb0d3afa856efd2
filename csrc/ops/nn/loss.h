// Losses with a node of their own (ops/nn/loss.cpp).
#pragma once

#include "core/tensor.h"

namespace gradtrack::ops {

/// reduction: 0 none, 1 mean, 2 sum (as nll_loss / mse_loss).
Tensor binary_cross_entropy(const Tensor& x, const Tensor& y, const Tensor* w, int64_t reduction);
Tensor binary_cross_entropy_with_logits(const Tensor& x, const Tensor& y, const Tensor* w,
                                        const Tensor* pos_weight, int64_t reduction);
/// smooth_l1_loss (param = beta) or, with huber, huber_loss (param = delta).
Tensor smooth_l1_or_huber(const Tensor& x, const Tensor& y, int64_t reduction, double param,
                          bool huber);

}  // namespace gradtrack::ops
