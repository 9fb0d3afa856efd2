// Fused optimizer updates: one pass over memory per parameter.
#pragma once

#include "core/tensor.h"

namespace gradtrack::kernels {

/// Hyperparameters of one SGD step, as torch.optim.SGD names them.
struct SgdParams {
  double lr, momentum, dampening, weight_decay;
  bool nesterov, maximize;
  bool first_step;  // the momentum buffer starts as the gradient
};

/// Whether sgd_step can run on these tensors: dense, aligned, same shape and
/// floating dtype (the usual case); otherwise ops::sgd_update composes kernels.
bool sgd_fusable(const Tensor& p, const Tensor& grad, const Tensor* buf);
/// p -= lr * (grad [+ wd * p]) with the momentum buffer `buf` (may be null).
void sgd_step(const Tensor& p, const Tensor& grad, const Tensor* buf, const SgdParams& h);

}  // namespace gradtrack::kernels
