// Fused updates of the adaptive optimizers (Adam, AdamW, RMSprop, Adagrad,
// Adamax, NAdam, RAdam): one pass over memory per parameter.
//
// NOTE [Adaptive optimizer arithmetic]
// PyTorch's single-tensor path (foreach=False) computes each step as a chain
// of tensor ops: the per-step numbers (bias corrections, step sizes) in Python
// doubles, then every elementwise op rounds to the parameter's dtype, with
// each Python number converted to that dtype first. These kernels do the same
// operations in the same order on each element (lerp's two branches, addcmul
// as `self + value * t1 * t2`, addcdiv as `self + value * t1 / t2`,
// `x.reciprocal() * s` for `s / x`), so results agree with torch's to
// rounding. The doubles are computed by the caller (ops/optim_adaptive.cpp).
// Not bitwise: measured on torch 2.13's AVX2 kernels, its float32 sqrt is off
// by one ulp for ~18% of inputs (float64: ~1%), and its lerp and add-with-alpha
// use fused multiply-adds; these loops use IEEE sqrt and separate roundings.
#pragma once

#include "core/tensor.h"

namespace gradtrack::kernels {

/// The dense operands of one update: the parameter, its gradient and up to
/// three state tensors, all contiguous, aligned, of the parameter's shape and
/// floating dtype (ops/optim_adaptive.cpp makes them so).
struct OptimOperands {
  Tensor p, grad;
  Tensor s[3];  // per optimizer, see each step function
};

/// Adam and AdamW. s = {exp_avg, exp_avg_sq, max_exp_avg_sq (amsgrad, else undefined)}.
struct AdamScalars {
  double beta1, beta2, eps, weight_decay;
  double decay_factor;  // 1 - lr * weight_decay (decoupled decay)
  double step_size, bias_correction2_sqrt;
  bool maximize, decoupled;
};
void adam_step(const OptimOperands& o, const AdamScalars& h);

/// RMSprop. s = {square_avg, momentum_buffer (momentum > 0), grad_avg (centered)}.
struct RmspropScalars {
  double lr, alpha, eps, weight_decay, momentum;
  bool maximize;
};
void rmsprop_step(const OptimOperands& o, const RmspropScalars& h);

/// Adagrad. s = {sum}.
struct AdagradScalars {
  double clr, eps, weight_decay;
  bool maximize;
};
void adagrad_step(const OptimOperands& o, const AdagradScalars& h);

/// Adamax. s = {exp_avg, exp_inf}.
struct AdamaxScalars {
  double beta1, beta2, eps, weight_decay, clr;
  bool maximize;
};
void adamax_step(const OptimOperands& o, const AdamaxScalars& h);

/// NAdam. s = {exp_avg, exp_avg_sq}.
struct NadamScalars {
  double beta1, beta2, eps, weight_decay, decay_factor;
  double bias_correction2, grad_coef, avg_coef;  // addcdiv values of the two updates
  bool maximize, decoupled;
};
void nadam_step(const OptimOperands& o, const NadamScalars& h);

/// RAdam. s = {exp_avg, exp_avg_sq}.
struct RadamScalars {
  double beta1, beta2, eps, weight_decay, decay_factor, lr;
  double bias_correction1, bias_correction2_sqrt, rect;
  bool maximize, decoupled, rectified;  // rectified: rho_t > 5
};
void radam_step(const OptimOperands& o, const RadamScalars& h);

}  // namespace gradtrack::kernels
