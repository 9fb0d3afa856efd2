// Backward formulas of padding, interpolation and cdist (see the header),
// written with differentiable ops so double backward works.
#include "autograd/formulas_resample.h"

#include "ops/dist.h"
#include "ops/ops.h"
#include "ops/resample.h"

namespace gradtrack::autograd::resample {

using TL = TensorList;
using C = BackwardCtx;

TL resample_bw(const C& c, const TL& g) {
  return {ops::resample_backward(g[0], c.attrs<ResampleSpec>())};
}

TL resample_backward_bw(const C& c, const TL& g) {
  return {ops::resample(g[0], c.attrs<ResampleSpec>())};
}

// The gradient is the output gradient with the padding cut off (and zeros
// where negative padding cut the input): constant_pad_nd with -pad.
TL constant_pad_bw(const C& c, const TL& g) {
  DimVector neg = c.attrs<PadAttrs>().pad;
  for (int64_t& p : neg) p = -p;
  return {ops::constant_pad_nd(g[0], neg, Scalar(0.0))};
}

TL cdist_bw(const C& c, const TL& g) {
  auto [g1, g2] = ops::cdist_grads(g[0], c.saved_input(0), c.saved_input(1), c.result(),
                                   c.attrs<CdistAttrs>().p);
  return {ops::sum_to(g1, c.input(0).shape), ops::sum_to(g2, c.input(1).shape)};
}

// PyTorch's _euclidean_dist_backward: ratio = g / dist (0 where dist is 0).
TL euclidean_dist_bw(const C& c, const TL& g) {
  const Tensor& x1 = c.saved_input(0);
  const Tensor& x2 = c.saved_input(1);
  Tensor ratio = ops::div(g[0], c.result());
  ratio = ops::masked_fill(ratio, ops::compare(ops::Cmp::Eq, c.result(), Scalar(0.0)),
                           ops::zeros({}, ratio.dtype()));
  TL out(2);
  if (c.needs(0)) {
    out[0] = ops::sub(ops::mul(x1, ops::sum(ratio, {-1}, true)), ops::matmul(ratio, x2));
  }
  if (c.needs(1)) {
    Tensor rt = ops::transpose(ratio, -1, -2);
    out[1] = ops::sub(ops::mul(x2, ops::sum(rt, {-1}, true)), ops::matmul(rt, x1));
  }
  return out;
}

Tensor resample_jvp(const JvpCtx& c) {
  return ops::resample(c.tangents[0], c.attrs<ResampleSpec>());
}

Tensor resample_backward_jvp(const JvpCtx& c) {
  return ops::resample_backward(c.tangents[0], c.attrs<ResampleSpec>());
}

// The padding of a tangent is zero, whatever value pads the primal.
Tensor constant_pad_jvp(const JvpCtx& c) {
  return ops::constant_pad_nd(c.tangents[0], c.attrs<PadAttrs>().pad, Scalar(0.0));
}

}  // namespace gradtrack::autograd::resample
