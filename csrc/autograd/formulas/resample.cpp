// Padding and interpolation.
// The backward formulas of their nodes and, beside them, the forward-mode
// formulas that are not derived from a backward. The rows naming them are
// python/gradtrack/_declarations/resample.py (NOTE [One declaration per op]).
#include "autograd/formulas/common.h"

namespace gradtrack::autograd::formulas {

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

}  // namespace gradtrack::autograd::formulas
