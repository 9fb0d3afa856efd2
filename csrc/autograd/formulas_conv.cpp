// Backward formulas of the convolution and pooling ops.
//
// NOTE [Double backward through convolution]
// Without a graph being built, the three gradients come straight from the
// kernels. With create_graph=True they are written with the differentiable
// convolution op itself (the input gradient is the transposed convolution of
// the gradient, the weight gradient a convolution of input and gradient with
// stride and dilation swapped), so second derivatives are exact; their nodes
// are ConvolutionBackward0 where PyTorch's are ConvolutionBackwardBackward0.
// The max pools scatter the gradient with a differentiable op then; the
// average pools' backward ops record nodes of their own (PyTorch's names).
#include "autograd/formulas_conv.h"

#include <algorithm>

#include "ops/nn/conv.h"
#include "ops/ops.h"

namespace gradtrack::autograd {

namespace {

bool any_requires_grad(std::initializer_list<const Tensor*> ts) {
  for (const Tensor* t : ts)
    if (t->defined() && maybe_requires_grad(*t) && requires_grad(*t)) return true;
  return false;
}

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
  const Tensor& x = c.saved_input(0);
  const Tensor& w = c.saved_input(1);
  const ops::ConvArgs args = ops::conv_args_from_attrs(c.attrs());
  if (GradMode::is_enabled() && any_requires_grad({&g[0], &x, &w})) {
    TensorList out(3);
    if (c.needs(0)) out[0] = conv_input_grad(g[0], x, w, args);
    if (c.needs(1)) out[1] = conv_weight_grad(g[0], x, w, args);
    if (c.needs(2)) {
      DimVector dims{0};
      for (int64_t d = 2; d < g[0].dim(); ++d) dims.push_back(d);
      out[2] = ops::sum(g[0], dims, false);
    }
    return out;
  }
  auto out = ops::convolution_backward(g[0], x, w, args, {c.needs(0), c.needs(1), c.needs(2)});
  return {out[0], out[1], out[2]};
}

TensorList max_pool2d_bw(const BackwardCtx& c, const TensorList& g) {
  const Tensor& x = c.saved_input(0);
  const Tensor& idx = c.extra(0);
  if (GradMode::is_enabled() && any_requires_grad({&g[0], &x})) {
    // The gradient scattered to the argmax positions with a differentiable op
    // (its own gradient gathers them back).
    const int64_t h = x.sizes()[x.dim() - 2], w = x.sizes()[x.dim() - 1];
    const int64_t planes = x.numel() / std::max<int64_t>(1, h * w);
    Tensor flat = ops::zeros({planes, h * w}, x.dtype());
    Tensor gi = ops::scatter_add(flat, 1, ops::reshape(idx, {planes, -1}),
                                 ops::reshape(g[0], {planes, -1}));
    return {ops::reshape(gi, x.sizes())};
  }
  return {ops::max_pool_backward(g[0], x, idx)};
}

TensorList avg_pool2d_bw(const BackwardCtx& c, const TensorList& g) {
  return {ops::avg_pool2d_backward(g[0], c.saved_input(0), ops::pool_args_from_attrs(c.attrs()))};
}

TensorList adaptive_avg_pool2d_bw(const BackwardCtx& c, const TensorList& g) {
  return {ops::adaptive_avg_pool2d_backward(g[0], c.saved_input(0))};
}

// The average pools' backward is linear in the gradient: its own gradient is
// the forward pool of the incoming one; the input only gave the shape.
TensorList avg_pool2d_backward_bw(const BackwardCtx& c, const TensorList& g) {
  return {c.needs(0) ? ops::avg_pool2d(g[0], ops::pool_args_from_attrs(c.attrs())) : Tensor(),
          c.needs(1) ? ops::zeros(c.input(1).shape, c.input(1).dtype) : Tensor()};
}

TensorList adaptive_avg_pool2d_backward_bw(const BackwardCtx& c, const TensorList& g) {
  const DimVector& out = c.input(0).shape;
  return {c.needs(0) ? ops::adaptive_avg_pool2d(g[0], {out[out.size() - 2], out[out.size() - 1]})
                     : Tensor(),
          c.needs(1) ? ops::zeros(c.input(1).shape, c.input(1).dtype) : Tensor()};
}

}  // namespace gradtrack::autograd
