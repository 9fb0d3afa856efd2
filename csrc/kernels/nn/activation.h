// Activation kernels: the forward and the derivative of each activation
// function that takes parameters (so it is not a row of the op list).
#pragma once

#include "core/tensor.h"

namespace gradtrack::kernels::nn {

// Which activation; the int value is kept in a node's attrs.
enum class Act : int {
  Gelu,         // exact: x * Phi(x)
  GeluTanh,     // approximate='tanh'
  Silu,         // x * sigmoid(x)
  LeakyRelu,    // a = negative_slope
  Elu,          // a = alpha, b = scale, c = input_scale (elu, selu, celu)
  Softplus,     // a = beta, b = threshold
  Hardtanh,     // a = min_val, b = max_val (relu6 too)
  Mish,         // x * tanh(softplus(x))
  Hardswish,    // x * relu6(x + 3) / 6
  LogSigmoid,   // log(sigmoid(x))
  Celu,         // elu with a = alpha, b = 1, c = 1 / alpha (its own grad_fn)
  Hardsigmoid,  // relu6(x + 3) / 6
};

struct ActParams {
  double a = 0, b = 0, c = 0;
};

/// torch's hard activations select 0 outside their linear piece rather than multiply the
/// gradient by 0: a negative gradient gives +0 there, not -0 (both backward paths apply it).
inline bool selects_zero_gradient(Act k) {
  return k == Act::Hardtanh || k == Act::Hardswish || k == Act::Hardsigmoid;
}

/// out = act(x). `out` and `x` are dense (contiguous, aligned) of one float dtype
/// and may be the same tensor (the in-place forms).
void act_forward(Act k, const Tensor& out, const Tensor& x, const ActParams& p);
/// True if t is one value expanded: more than one element, every stride 0.
inline bool is_one_value(const Tensor& t) {
  bool one = t.numel() > 1;
  for (int64_t st : t.strides()) one = one && st == 0;
  return one;
}
/// out = g * act'(s), where s is the input x or, with from_result, the output y
/// (the in-place forms save only y). All dense, one float dtype, one shape, except
/// that g may be one value expanded (is_one_value).
void act_backward(Act k, const Tensor& out, const Tensor& g, const Tensor& s, const ActParams& p,
                  bool from_result);

}  // namespace gradtrack::kernels::nn
