// The adaptive optimizers' fused steps (Adam, AdamW, RMSprop, Adagrad, Adamax,
// NAdam, RAdam): one call per parameter from python/gradtrack/optim/.
#pragma once

#include <string>

#include "core/tensor.h"

namespace gradtrack::ops {

/// One parameter's update: the parameter, its gradient, the 0-dim `step`
/// tensor of its state and up to three state tensors (in the order each
/// update names; an absent one is undefined). `label` names the writer in
/// provenance notes ("Adam.step").
struct OptimArgs {
  Tensor p, grad, step;
  Tensor s[3];
  std::string label;
};

/// Each update does `step += 1`, the update in one pass, and bumps every
/// tensor's version as many times as PyTorch's single-tensor path does.
/// s = {exp_avg, exp_avg_sq, max_exp_avg_sq (amsgrad)}.
void adam_update(const OptimArgs& a, double lr, double beta1, double beta2, double eps,
                 double weight_decay, bool maximize, bool decoupled);
/// s = {square_avg, momentum_buffer (momentum > 0), grad_avg (centered)}.
void rmsprop_update(const OptimArgs& a, double lr, double alpha, double eps, double weight_decay,
                    double momentum, bool maximize);
/// s = {sum}.
void adagrad_update(const OptimArgs& a, double lr, double lr_decay, double eps, double weight_decay,
                    bool maximize);
/// s = {exp_avg, exp_inf}.
void adamax_update(const OptimArgs& a, double lr, double beta1, double beta2, double eps,
                   double weight_decay, bool maximize);
/// s = {exp_avg, exp_avg_sq}; `mu_product` is the 0-dim state that `*= mu` each step.
void nadam_update(const OptimArgs& a, const Tensor& mu_product, double lr, double beta1,
                  double beta2, double eps, double weight_decay, double momentum_decay,
                  bool maximize, bool decoupled);
/// s = {exp_avg, exp_avg_sq}.
void radam_update(const OptimArgs& a, double lr, double beta1, double beta2, double eps,
                  double weight_decay, bool maximize, bool decoupled);

}  // namespace gradtrack::ops
