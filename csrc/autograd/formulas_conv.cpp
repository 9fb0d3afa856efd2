// Backward formulas of the convolution and pooling ops.
//
// NOTE [No double backward through conv and pool yet]
// These gradients come from kernels, not from differentiable ops, so a graph
// built through them (create_graph=True) would silently lack the second-order
// terms. Rather than give a wrong second derivative, they refuse when one is
// being recorded. PyTorch supports it; gradtrack does not yet.
#include "autograd/formulas_conv.h"

#include "ops/nn/conv.h"

namespace gradtrack::autograd {

namespace {

void refuse_double_backward(const char* name, std::initializer_list<const Tensor*> ts) {
  if (!GradMode::is_enabled()) return;
  for (const Tensor* t : ts) {
    if (t->defined() && maybe_requires_grad(*t) && requires_grad(*t)) {
      throw NotImplementedError(str_cat("gradtrack: double backward (create_graph=True) through ",
                                        name, " is not implemented yet; PyTorch supports it"));
    }
  }
}

}  // namespace

TensorList convolution_bw(const BackwardCtx& c, const TensorList& g) {
  const Tensor& x = c.saved_input(0);
  const Tensor& w = c.saved_input(1);
  refuse_double_backward("ConvolutionBackward0", {&g[0], &x, &w});
  const ops::ConvArgs args = ops::conv_args_from_attrs(c.attrs());
  auto out = ops::convolution_backward(g[0], x, w, args, {c.needs(0), c.needs(1), c.needs(2)});
  return {out[0], out[1], out[2]};
}

TensorList max_pool2d_bw(const BackwardCtx& c, const TensorList& g) {
  const Tensor& x = c.saved_input(0);
  refuse_double_backward(c.node.name().c_str(), {&g[0], &x});
  return {ops::max_pool_backward(g[0], x, c.extra(0))};
}

TensorList avg_pool2d_bw(const BackwardCtx& c, const TensorList& g) {
  const Tensor& x = c.saved_input(0);
  refuse_double_backward("AvgPool2DBackward0", {&g[0], &x});
  return {ops::avg_pool2d_backward(g[0], x, ops::pool_args_from_attrs(c.attrs()))};
}

TensorList adaptive_avg_pool2d_bw(const BackwardCtx& c, const TensorList& g) {
  const Tensor& x = c.saved_input(0);
  refuse_double_backward("AdaptiveAvgPool2DBackward0", {&g[0], &x});
  return {ops::adaptive_avg_pool2d_backward(g[0], x)};
}

}  // namespace gradtrack::autograd
