// 2-D pooling ops over [N, C, H, W] or [C, H, W] (the 1-D forms are these
// with height 1, wrapped by unsqueeze/squeeze in Python as PyTorch does).
#include "kernels/nn/pool.h"

#include "ops/common.h"
#include "ops/nn/conv.h"

namespace gradtrack::ops {

namespace {

int64_t div_floor(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

int64_t pooled_size(int64_t in, int64_t k, int64_t pad, int64_t s, int64_t d, bool ceil) {
  int64_t out = div_floor(in + 2 * pad - d * (k - 1) - 1 + (ceil ? s - 1 : 0), s) + 1;
  if (ceil && (out - 1) * s >= in + pad) --out;
  return out;
}

int64_t planes_of(const Tensor& x) {
  return x.dim() == 4 ? x.sizes()[0] * x.sizes()[1] : x.sizes()[0];
}

void check_pool_input(const Tensor& x) {
  GT_CHECK(x.dim() == 3 || x.dim() == 4,
           "non-empty 3D or 4D (batch mode) tensor expected for input");
  bool ok = true;
  for (int64_t d = x.dim() - 3; d < x.dim(); ++d) ok = ok && x.sizes()[d] != 0;
  GT_CHECK(ok,
           "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, "
           "but got:",
           shape_str(x.sizes()));
}

// PyTorch's pool2d_shape_check, then the geometry.
kernels::PoolGeom pool_geom(const Tensor& x, const PoolArgs& a) {
  GT_CHECK(a.stride[0] != 0 && a.stride[1] != 0, "stride should not be zero");
  GT_CHECK(a.kernel[0] > 0 && a.kernel[1] > 0, "kernel size should be greater than zero, but got ",
           "kH: ", a.kernel[0], " kW: ", a.kernel[1]);
  GT_CHECK(a.stride[0] > 0 && a.stride[1] > 0,
           "stride should be greater than zero, but got dH: ", a.stride[0], " dW: ", a.stride[1]);
  GT_CHECK(a.dilation[0] > 0 && a.dilation[1] > 0,
           "dilation should be greater than zero, but got dilationH: ", a.dilation[0],
           " dilationW: ", a.dilation[1]);
  check_pool_input(x);
  for (int d = 0; d < 2; ++d) {
    GT_CHECK(a.padding[d] >= 0, "pad must be non-negative, but got pad: ", a.padding[d]);
    GT_CHECK(a.padding[d] <= ((a.kernel[d] - 1) * a.dilation[d] + 1) / 2,
             "pad should be at most half of effective kernel size, but got pad=", a.padding[d],
             ", kernel_size=", a.kernel[d], " and dilation=", a.dilation[d]);
  }
  kernels::PoolGeom g;
  g.planes = planes_of(x);
  g.ih = x.sizes()[x.dim() - 2];
  g.iw = x.sizes()[x.dim() - 1];
  g.kh = a.kernel[0];
  g.kw = a.kernel[1];
  g.sh = a.stride[0];
  g.sw = a.stride[1];
  g.ph = a.padding[0];
  g.pw = a.padding[1];
  g.dh = a.dilation[0];
  g.dw = a.dilation[1];
  g.oh = pooled_size(g.ih, g.kh, g.ph, g.sh, g.dh, a.ceil_mode);
  g.ow = pooled_size(g.iw, g.kw, g.pw, g.sw, g.dw, a.ceil_mode);
  const int64_t c = x.sizes()[x.dim() - 3];
  GT_CHECK(g.oh >= 1 && g.ow >= 1, "Given input size: (", c, "x", g.ih, "x", g.iw,
           "). Calculated output size: (", c, "x", g.oh, "x", g.ow, "). Output size is too small");
  return g;
}

DimVector out_sizes(const Tensor& x, int64_t oh, int64_t ow) {
  DimVector s(x.sizes().begin(), x.sizes().end() - 2);
  s.push_back(oh);
  s.push_back(ow);
  return s;
}

void check_adaptive(const Tensor& x, const DimVector& size, const char* name, const char* sep) {
  GT_CHECK(x.dim() == 3 || x.dim() == 4, name, "(): Expected 3D or 4D tensor, but got", sep,
           shape_str(x.sizes()));
  for (int64_t d = 1; d < x.dim(); ++d)
    GT_CHECK(x.sizes()[d] != 0, name,
             "(): Expected input to have non-zero size for non-batch dimensions, but input has "
             "sizes ",
             shape_str(x.sizes()), " with dimension ", d, " being empty");
  GT_CHECK(size[0] >= 0 && size[1] >= 0, name,
           ": elements of output_size must be greater than or equal to 0 but received {", size[0],
           ", ", size[1], "}");
}

kernels::PoolGeom adaptive_geom(const Tensor& x, const DimVector& size) {
  kernels::PoolGeom g;
  g.planes = planes_of(x);
  g.ih = x.sizes()[x.dim() - 2];
  g.iw = x.sizes()[x.dim() - 1];
  g.oh = size[0];
  g.ow = size[1];
  return g;
}

Tensor dense(const Tensor& t) { return kernels::aligned(contiguous(t)); }

}  // namespace

std::pair<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, const PoolArgs& args) {
  const kernels::PoolGeom g = pool_geom(input, args);
  Tensor x = dense(input);
  DimVector shape = out_sizes(input, g.oh, g.ow);
  Tensor out = empty(shape, input.dtype()), idx = empty(shape, ScalarType::Int64);
  kernels::max_pool_forward(out, idx, x, g);
  record(OpKind::MaxPool2DWithIndices, {&input}, out, [&](autograd::PoolArgs& at) { at = args; },
         {&idx});
  return {out, idx};
}

Tensor avg_pool2d(const Tensor& input, const PoolArgs& args) {
  const kernels::PoolGeom g = pool_geom(input, args);
  Tensor x = dense(input);
  Tensor out = empty(out_sizes(input, g.oh, g.ow), input.dtype());
  kernels::avg_pool_forward(out, x, g, args.count_include_pad, args.divisor);
  record(OpKind::AvgPool2D, {&input}, out, [&](autograd::PoolArgs& at) { at = args; });
  return out;
}

Tensor adaptive_avg_pool2d(const Tensor& input, const DimVector& size) {
  check_adaptive(input, size, "adaptive_avg_pool2d", " ");
  const kernels::PoolGeom g = adaptive_geom(input, size);
  Tensor x = dense(input);
  Tensor out = empty(out_sizes(input, g.oh, g.ow), input.dtype());
  kernels::adaptive_avg_pool_forward(out, x, g);
  record(OpKind::AdaptiveAvgPool2D, {&input}, out);
  return out;
}

std::pair<Tensor, Tensor> adaptive_max_pool2d(const Tensor& input, const DimVector& size) {
  check_adaptive(input, size, "adaptive_max_pool2d", ": ");
  const kernels::PoolGeom g = adaptive_geom(input, size);
  Tensor x = dense(input);
  DimVector shape = out_sizes(input, g.oh, g.ow);
  Tensor out = empty(shape, input.dtype()), idx = empty(shape, ScalarType::Int64);
  kernels::adaptive_max_pool_forward(out, idx, x, g);
  record(OpKind::AdaptiveMaxPool2D, {&input}, out, no_attrs, {&idx});
  return {out, idx};
}

Tensor max_pool_backward(const Tensor& grad, const Tensor& input, const Tensor& indices,
                         bool adaptive) {
  kernels::PoolGeom g;
  g.planes = planes_of(input);
  g.ih = input.sizes()[input.dim() - 2];
  g.iw = input.sizes()[input.dim() - 1];
  g.oh = grad.sizes()[grad.dim() - 2];
  g.ow = grad.sizes()[grad.dim() - 1];
  Tensor out = empty(input.sizes(), input.dtype());
  kernels::max_pool_backward(out, dense(grad), dense(indices), g);
  record(adaptive ? OpKind::AdaptiveMaxPool2DBackward : OpKind::MaxPool2DWithIndicesBackward,
         {&grad, &input}, out, no_attrs, {&indices});
  return out;
}

Tensor avg_pool2d_backward(const Tensor& grad, const Tensor& input, const PoolArgs& args) {
  const kernels::PoolGeom g = pool_geom(input, args);
  Tensor out = empty(input.sizes(), input.dtype());
  kernels::avg_pool_backward(out, dense(grad), g, args.count_include_pad, args.divisor);
  record(OpKind::AvgPool2DBackward, {&grad, &input}, out,
         [&](autograd::PoolArgs& at) { at = args; });
  return out;
}

Tensor adaptive_avg_pool2d_backward(const Tensor& grad, const Tensor& input) {
  const kernels::PoolGeom g =
      adaptive_geom(input, {grad.sizes()[grad.dim() - 2], grad.sizes()[grad.dim() - 1]});
  Tensor out = empty(input.sizes(), input.dtype());
  kernels::adaptive_avg_pool_backward(out, dense(grad), g);
  record(OpKind::AdaptiveAvgPool2DBackward, {&grad, &input}, out);
  return out;
}

}  // namespace gradtrack::ops
