// Convolution and pooling.
// The backward formulas of their nodes and, beside them, the forward-mode
// formulas that are not derived from a backward. The rows naming them are
// python/gradtrack/_declarations/conv.py (NOTE [One declaration per op]).
#include <vector>

#include "autograd/formulas/common.h"

namespace gradtrack::autograd::formulas {

namespace {
// d(loss)/d(input) as a (transposed) convolution of the gradient.
Tensor conv_input_grad(const Tensor& g, const Tensor& x, const Tensor& w, ops::ConvArgs a) {
  const size_t nd = a.stride.size();
  const bool transposed = a.transposed;
  a.transposed = !transposed;
  if (!transposed) {
    // Output padding that makes the transposed convolution's size the input's
    // (negative when padding='same' added padding after the input).
    for (size_t d = 0; d < nd; ++d) {
      const int64_t k = w.sizes()[2 + d], out = g.sizes()[2 + d];
      const int64_t full = (out - 1) * a.stride[d] - 2 * a.padding[d] + a.dilation[d] * (k - 1) + 1;
      a.output_padding[d] = x.sizes()[2 + d] - full;
      a.pad_extra[d] = 0;
    }
  }
  Tensor gi = ops::convolution(g, w, nullptr, a);
  GT_CHECK(gi.sizes() == x.sizes(),
           "gradtrack: double backward through this transposed convolution (output_padding "
           ">= stride) is not implemented");
  return gi;
}
// d(loss)/d(weight): per group, a convolution of the image side with the col
// side as the kernel (batch and channels swapped; stride and dilation swapped).
Tensor conv_weight_grad(const Tensor& g, const Tensor& x, const Tensor& w, const ops::ConvArgs& a) {
  const Tensor& image = a.transposed ? g : x;
  const Tensor& col = a.transposed ? x : g;
  const int64_t groups = a.groups;
  const int64_t img_cg = image.sizes()[1] / groups, col_cg = col.sizes()[1] / groups;
  ops::ConvArgs b = a;
  b.transposed = false;
  b.groups = 1;
  b.stride = a.dilation;
  b.dilation = a.stride;
  std::vector<Tensor> parts;
  for (int64_t grp = 0; grp < groups; ++grp) {
    Tensor im = ops::transpose(ops::narrow(image, 1, grp * img_cg, img_cg), 0, 1);
    Tensor cl = ops::transpose(ops::narrow(col, 1, grp * col_cg, col_cg), 0, 1);
    Tensor r = ops::convolution(im, cl, nullptr, b);  // [img_cg, col_cg, k'...]
    for (int64_t d = 2; d < r.dim(); ++d) r = ops::narrow(r, d, 0, w.sizes()[d]);
    parts.push_back(ops::transpose(r, 0, 1));  // [col_cg, img_cg, k...]
  }
  // Rows of a group are col-side channels for a convolution ([O, C/g, k]) and
  // for a transposed one ([C_in, C_out/g, k]) alike.
  return groups == 1 ? parts[0] : ops::cat(parts, 0);
}

}  // namespace
TensorList convolution_bw(const BackwardCtx& c, const TensorList& g) {
  const ops::ConvArgs& args = c.attrs<ConvArgs>();
  auto out = ops::convolution_backward(g[0], c.saved_input(0), c.saved_input(1), args,
                                       {c.needs(0), c.needs(1), c.needs(2)});
  return {out[0], out[1], out[2]};
}
// Gradients of (grad_input, grad_weight, grad_bias) = convolution_backward(g,
// x, w): every term is linear, so each is a (transposed) convolution.
TensorList convolution_backward_bw(const BackwardCtx& c, const TensorList& gg) {
  const Tensor& g = c.saved_input(0);
  const Tensor& x = c.saved_input(1);
  const Tensor& w = c.saved_input(2);
  const ConvBackwardAttrs& at = c.attrs<ConvBackwardAttrs>();
  const ops::ConvArgs& args = at.args;
  Tensor ggx, ggw, ggb;  // the incoming gradients, by which outputs were computed
  size_t k = 0;
  for (size_t i = 0; i < 3; ++i) {
    if (!at.output_mask[i]) continue;
    const Tensor& t = k < gg.size() ? gg[k] : Tensor();
    (i == 0 ? ggx : i == 1 ? ggw : ggb) = t;
    ++k;
  }
  TensorList out(3);
  if (c.needs(0)) {
    Tensor dg;
    if (ggx.defined()) dg = ops::convolution(ggx, w, nullptr, args);
    if (ggw.defined()) {
      Tensor t = ops::convolution(x, ggw, nullptr, args);
      dg = dg.defined() ? ops::add(dg, t) : t;
    }
    if (ggb.defined()) {
      DimVector shape(g.dim(), 1);
      shape[1] = ggb.numel();
      Tensor t = ops::expand(ops::reshape(ggb, shape), g.sizes());
      dg = dg.defined() ? ops::add(dg, t) : t;
    }
    out[0] = dg.defined() ? dg : ops::zeros(g.sizes(), g.dtype());
  }
  if (c.needs(1) && ggw.defined()) out[1] = conv_input_grad(g, x, ggw, args);
  if (c.needs(2) && ggx.defined()) out[2] = conv_weight_grad(g, ggx, w, args);
  return out;
}
TensorList max_pool2d_bw(const BackwardCtx& c, const TensorList& g) {
  const bool adaptive = c.kind == OpKind::AdaptiveMaxPool2D;
  return {ops::max_pool_backward(g[0], c.saved_input(0), c.extra(0), adaptive)};
}
// max_pool's backward scatters the gradient to the argmax positions: its own
// gradient gathers them back; the input only gave the shape.
TensorList max_pool2d_backward_bw(const BackwardCtx& c, const TensorList& g) {
  const Tensor& idx = c.extra(0);
  TensorList out(2);
  if (c.needs(0)) {
    const DimVector& in = c.input(1).shape;
    const int64_t plane = in[in.size() - 2] * in[in.size() - 1];
    int64_t planes = 1;
    for (size_t d = 0; d + 2 < in.size(); ++d) planes *= in[d];
    const Tensor flat_idx = ops::reshape(idx, {planes, -1});
    Tensor picked = ops::gather(ops::reshape(g[0], {planes, plane}), 1, flat_idx);
    out[0] = ops::reshape(picked, c.input(0).shape);
  }
  if (c.needs(1)) out[1] = ops::zeros(c.input(1).shape, c.input(1).dtype);
  return out;
}
TensorList avg_pool2d_bw(const BackwardCtx& c, const TensorList& g) {
  return {ops::avg_pool2d_backward(g[0], c.saved_input(0), c.attrs<PoolArgs>())};
}
TensorList adaptive_avg_pool2d_bw(const BackwardCtx& c, const TensorList& g) {
  return {ops::adaptive_avg_pool2d_backward(g[0], c.saved_input(0))};
}
// The average pools' backward is linear in the gradient: its own gradient is
// the forward pool of the incoming one; the input only gave the shape.
TensorList avg_pool2d_backward_bw(const BackwardCtx& c, const TensorList& g) {
  return {c.needs(0) ? ops::avg_pool2d(g[0], c.attrs<PoolArgs>()) : Tensor(),
          c.needs(1) ? ops::zeros(c.input(1).shape, c.input(1).dtype) : Tensor()};
}
TensorList adaptive_avg_pool2d_backward_bw(const BackwardCtx& c, const TensorList& g) {
  const DimVector& out = c.input(0).shape;
  return {c.needs(0) ? ops::adaptive_avg_pool2d(g[0], {out[out.size() - 2], out[out.size() - 1]})
                     : Tensor(),
          c.needs(1) ? ops::zeros(c.input(1).shape, c.input(1).dtype) : Tensor()};
}
// convolution: linear in input and in weight, plus the bias's tangent.
Tensor convolution_jvp(const J& c) {
  const ConvArgs& args = c.attrs<ConvArgs>();
  Tensor out;
  if (c.has(0)) out = convolution(t(c, 0), x(c, 1), nullptr, args);
  if (c.has(1)) out = plus(out, convolution(x(c, 0), t(c, 1), nullptr, args));
  if (c.primals.size() > 2 && c.has(2)) {
    DimVector shape(static_cast<size_t>(c.result.dim()), 1);
    shape[1] = c.result.sizes()[1];
    out = plus(out, reshape(t(c, 2), shape));
  }
  return out;
}
// max pools: the tangent at the argmax (extras[0], a flat index per plane).
Tensor max_pool_jvp(const J& c) {
  DimVector in_flat(x(c).sizes().begin(), x(c).sizes().end() - 2);
  DimVector out_flat = in_flat;
  in_flat.push_back(x(c).sizes()[x(c).dim() - 2] * x(c).sizes()[x(c).dim() - 1]);
  out_flat.push_back(-1);
  Tensor idx = reshape(*c.extras[0], out_flat);
  return reshape(gather(reshape(t(c), in_flat), -1, idx), c.result.sizes());
}
Tensor avg_pool_jvp(const J& c) { return avg_pool2d(t(c), c.attrs<PoolArgs>()); }
Tensor adaptive_avg_pool_jvp(const J& c) {
  const auto& s = c.result.sizes();
  return adaptive_avg_pool2d(t(c), {s[s.size() - 2], s[s.size() - 1]});
}

}  // namespace gradtrack::autograd::formulas
