// The layer ops of nn: activations with parameters, normalizations,
// embedding, dropout and the losses beyond MSE/NLL. Each validates, runs a
// kernel of kernels/nn/ and records its formula row.
#pragma once

#include <vector>

#include "core/tensor.h"
#include "kernels/nn/activation.h"

namespace gradtrack::ops {

// ---- activations (ops/nn/activation.cpp) ----
Tensor activation(kernels::nn::Act k, const Tensor& x, const kernels::nn::ActParams& p);
/// The in-place form: writes self, records the in-place row (which saves the
/// result for leaky_relu_, elu_ and hardtanh_, the input's old value otherwise).
Tensor activation_(kernels::nn::Act k, const Tensor& self, const kernels::nn::ActParams& p);
/// g * act'(s) in one fused pass, without recording (the backward when no
/// graph of the gradient is built).
Tensor activation_backward_fused(kernels::nn::Act k, const Tensor& g, const Tensor& s,
                                 const kernels::nn::ActParams& p, bool from_result);

// ---- normalization (ops/nn/norm.cpp) ----
/// {output, mean, rstd}: the statistics are what the backward reuses.
std::vector<Tensor> native_layer_norm(const Tensor& x, const DimVector& normalized_shape,
                                      const Tensor* w, const Tensor* b, double eps);
std::vector<Tensor> native_group_norm(const Tensor& x, const Tensor* w, const Tensor* b,
                                      int64_t groups, double eps);
/// {output, save_mean, save_invstd}; in training, updates the running
/// statistics in place (unbiased variance) when they are given.
std::vector<Tensor> native_batch_norm(const Tensor& x, const Tensor* w, const Tensor* b,
                                      const Tensor* running_mean, const Tensor* running_var,
                                      bool training, double momentum, double eps);

// ---- embedding and dropout (ops/nn/embedding.cpp) ----
/// scale_grad_by_freq divides each row's gradient by how often the row was looked up.
Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx,
                 bool scale_grad_by_freq);
/// Rescales, in place and unrecorded, the rows of `weight` named in `indices`
/// whose norm exceeds max_norm (torch.embedding_renorm_).
void embedding_renorm_(const Tensor& weight, const Tensor& indices, double max_norm,
                       double norm_type);
/// A Bernoulli(1 - p) mask scaled by 1 / (1 - p), shaped like x, as a new tensor.
Tensor dropout_noise(const Tensor& x, double p);

}  // namespace gradtrack::ops

namespace gradtrack::ops {

// ---- recurrent layers (ops/nn/rnn.cpp) ----
/// One direction of one LSTM layer over x [T, B, I] from (h0, c0) [B, H]:
/// {output [T, B, H], h_n, c_n}, one MkldnnRnnLayerBackward0 node.
std::vector<Tensor> lstm_layer(const Tensor& x, const Tensor& h0, const Tensor& c0,
                               const Tensor& w_ih, const Tensor& w_hh, const Tensor* b_ih,
                               const Tensor* b_hh, bool reverse);

}  // namespace gradtrack::ops
