// Losses with a node of their own (ops/nn/loss.cpp).
#pragma once

#include "core/tensor.h"

namespace gradtrack::ops {

/// reduction: 0 none, 1 mean, 2 sum (as nll_loss / mse_loss).
Tensor binary_cross_entropy(const Tensor& x, const Tensor& y, const Tensor* w, int64_t reduction);
Tensor binary_cross_entropy_with_logits(const Tensor& x, const Tensor& y, const Tensor* w,
                                        const Tensor* pos_weight, int64_t reduction);
/// nll_loss of (N, C, H, W) log-probabilities and (N, H, W) class indices, torch's
/// NllLoss2DBackward0 node; reduction none gives (N, H, W).
Tensor nll_loss2d(const Tensor& logp, const Tensor& target, const Tensor* weight, int64_t reduction,
                  int64_t ignore_index);
/// smooth_l1_loss (param = beta) or, with huber, huber_loss (param = delta).
Tensor smooth_l1_or_huber(const Tensor& x, const Tensor& y, int64_t reduction, double param,
                          bool huber);

}  // namespace gradtrack::ops
