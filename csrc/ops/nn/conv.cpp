// Convolution (and its transpose) as one op, as PyTorch's `convolution`:
// PyTorch's checks and words, the kernels of kernels/nn/conv.cpp, and one
// ConvolutionBackward0 node with an edge for input, weight and bias.
#include "ops/nn/conv.h"

#include "kernels/nn/conv.h"
#include "kernels/reduced_float.h"
#include "ops/common.h"

namespace gradtrack::ops {

namespace {

std::string sizes_x(const DimVector& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? " x " : "") + std::to_string(v[i]);
  return s;
}

// PyTorch's expand_param_if_needed: one value per spatial dim of the weight
// (Python has already repeated a single value).
void check_param(const char* name, const DimVector& v, int64_t k) {
  if (static_cast<int64_t>(v.size()) == k) return;
  std::string got;
  for (size_t i = 0; i < v.size(); ++i) got += (i ? ", " : "") + std::to_string(v[i]);
  GT_CHECK(false, "expected ", name, " to be a single integer value or a list of ", k,
           " values to match the convolution dimensions, but got ", name, "=[", got, "]");
}

void check_args(const Tensor& w, const ConvArgs& a) {
  const int64_t k = std::max<int64_t>(w.dim() - 2, 1);
  GT_CHECK(k <= 3, "gradtrack: convolutions of more than 3 spatial dims are not implemented");
  check_param("stride", a.stride, k);
  check_param("padding", a.padding, k);
  check_param("dilation", a.dilation, k);
  check_param("output_padding", a.output_padding, k);
  GT_CHECK(a.pad_extra.size() == a.stride.size(), "pad_extra must have one value per dim");
  for (int64_t p : a.padding) GT_CHECK(p >= 0, "negative padding is not supported");
  for (int64_t s : a.stride) GT_CHECK(s > 0, "non-positive stride is not supported");
  for (int64_t d : a.dilation) GT_CHECK(d > 0, "non-positive dilation is not supported");
  GT_CHECK(a.groups > 0, "non-positive groups is not supported");
}

// PyTorch's check_shape_forward, same order and words.
void check_shapes(const Tensor& x, const Tensor& w, const Tensor* b, const ConvArgs& a) {
  const int64_t nd = static_cast<int64_t>(a.stride.size());
  const int64_t g = a.groups;
  GT_CHECK(w.dim() == nd + 2 && x.dim() == nd + 2, "Expected ", nd + 2, "-dimensional input for ",
           nd + 2, "-dimensional weight ", shape_str(w.sizes()), ", but got ", x.dim(),
           "-dimensional input of size ", shape_str(x.sizes()), " instead");
  GT_CHECK(w.sizes()[0] >= g, "Given groups=", g, ", expected weight to be at least ", g,
           " at dimension 0, but got weight of size ", shape_str(w.sizes()), " instead");
  GT_CHECK(w.sizes()[0] % g == 0, "Given groups=", g, ", expected weight to be divisible by ", g,
           " at dimension 0, but got weight of size [", shape_str(w.sizes()), "] instead");
  bool k_ok = true;
  for (int64_t d = 0; d < nd; ++d) k_ok = k_ok && w.sizes()[2 + d] > 0;
  if (!k_ok) {
    GT_CHECK(nd != 3, "kernel size should be greater than zero, but got: ", w.sizes()[2], " x ",
             w.sizes()[3], " x ", w.sizes()[4], " (TxHxW)");
    GT_CHECK(nd != 2,
             "kernel size should be greater than zero, but got kernel_height: ", w.sizes()[2],
             " kernel_width: ", w.sizes()[3]);
    GT_CHECK(false,
             "kernel size should be greater than zero, but got kernel_width: ", w.sizes()[2]);
  }
  const int64_t in_c = x.sizes()[1];
  if (!a.transposed) {
    GT_CHECK(in_c == w.sizes()[1] * g, "Given groups=", g, ", weight of size ",
             shape_str(w.sizes()), ", expected input", shape_str(x.sizes()), " to have ",
             w.sizes()[1] * g, " channels, but got ", in_c, " channels instead");
    GT_CHECK(!b || (b->dim() == 1 && b->sizes()[0] == w.sizes()[0]), "Given weight of size ",
             shape_str(w.sizes()), ", expected bias to be 1-dimensional with ", w.sizes()[0],
             " elements, but got bias of size ", shape_str(b->sizes()), " instead");
    DimVector padded, kernel;
    bool too_big = false;
    for (int64_t d = 0; d < nd; ++d) {
      padded.push_back(x.sizes()[2 + d] + 2 * a.padding[d] + a.pad_extra[d]);
      kernel.push_back(a.dilation[d] * (w.sizes()[2 + d] - 1) + 1);
      too_big = too_big || padded[d] < kernel[d];
    }
    GT_CHECK(!too_big, "Calculated padded input size per channel: (", sizes_x(padded),
             "). Kernel size: (", sizes_x(kernel),
             "). Kernel size can't be greater than actual input size");
  } else {
    GT_CHECK(in_c == w.sizes()[0], "Given transposed=1, weight of size ", shape_str(w.sizes()),
             ", expected input", shape_str(x.sizes()), " to have ", w.sizes()[0],
             " channels, but got ", in_c, " channels instead");
    GT_CHECK(!b || (b->dim() == 1 && b->sizes()[0] == w.sizes()[1] * g), "Given transposed=1",
             ", weight of size ", shape_str(w.sizes()), ", expected bias to be 1-dimensional with ",
             w.sizes()[1] * g, " elements, but got bias of size ", shape_str(b->sizes()),
             " instead");
    bool bad = false;
    for (int64_t d = 0; d < nd; ++d)
      bad = bad || (a.output_padding[d] >= a.stride[d] && a.output_padding[d] >= a.dilation[d]);
    if (bad) {
      // PyTorch words this for 2-D and 3-D (slow_conv_transpose{2,3}d's shape checks).
      GT_CHECK(nd != 3,
               "output padding must be smaller than either stride or dilation, but got "
               "output_padding_depth: ",
               a.output_padding[0], " output_padding_height: ", a.output_padding[1],
               " output_padding_width: ", a.output_padding[2], " stride_depth: ", a.stride[0],
               " stride_height: ", a.stride[1], " stride_width: ", a.stride[2],
               " dilation_depth: ", a.dilation[0], " dilation_height: ", a.dilation[1],
               " dilation_width: ", a.dilation[2]);
      GT_CHECK(nd != 2,
               "output padding must be smaller than either stride or dilation, but got "
               "output_padding_height: ",
               a.output_padding[0], " output_padding_width: ", a.output_padding[1],
               " stride_height: ", a.stride[0], " stride_width: ", a.stride[1],
               " dilation_height: ", a.dilation[0], " dilation_width: ", a.dilation[1]);
      GT_CHECK(false, "output padding must be smaller than either stride or dilation");
    }
  }
}

void check_dtypes(const Tensor& x, const Tensor& w, const Tensor* b) {
  GT_CHECK(x.dtype() == w.dtype(), "expected scalar type ", scalar_type_name(x.dtype()),
           " but found ", scalar_type_name(w.dtype()));
  GT_CHECK(!b || b->dtype() == x.dtype(), "expected scalar type ", scalar_type_name(x.dtype()),
           " but found ", scalar_type_name(b->dtype()));
  GT_CHECK_IMPL(is_floating(x.dtype()), "\"slow_conv2d_cpu\" not implemented for '",
                scalar_type_name(x.dtype()), "'");
}

// Sizes as [N, C, D, H, W] (depth 1 for 2-D, depth and height 1 for 1-D).
DimVector as_3d(const DimVector& s) {
  DimVector out{s[0], s[1]};
  for (size_t d = s.size(); d < 5; ++d) out.push_back(1);
  for (size_t d = 2; d < s.size(); ++d) out.push_back(s[d]);
  return out;
}
// Spatial argument d of the 3-D view (the missing leading dims are `one`).
int64_t arg3(const DimVector& v, size_t d, int64_t one) {
  const size_t missing = 3 - v.size();
  return d < missing ? one : v[d - missing];
}

kernels::ConvGeom geom_of(const DimVector& image, const DimVector& col, const DimVector& weight,
                          const ConvArgs& a) {
  const DimVector img = as_3d(image), cl = as_3d(col), w = as_3d(weight);
  kernels::ConvGeom g;
  g.n = img[0];
  g.groups = a.groups;
  g.img_c = img[1];
  g.img_d = img[2];
  g.img_h = img[3];
  g.img_w = img[4];
  g.col_c = cl[1];
  g.col_d = cl[2];
  g.col_h = cl[3];
  g.col_w = cl[4];
  g.kd = w[2];
  g.kh = w[3];
  g.kw = w[4];
  g.sd = arg3(a.stride, 0, 1);
  g.sh = arg3(a.stride, 1, 1);
  g.sw = arg3(a.stride, 2, 1);
  g.pd = arg3(a.padding, 0, 0);
  g.ph = arg3(a.padding, 1, 0);
  g.pw = arg3(a.padding, 2, 0);
  g.dd = arg3(a.dilation, 0, 1);
  g.dh = arg3(a.dilation, 1, 1);
  g.dw = arg3(a.dilation, 2, 1);
  return g;
}

DimVector output_shape(const Tensor& x, const Tensor& w, const ConvArgs& a) {
  const size_t nd = a.stride.size();
  DimVector out{x.sizes()[0], a.transposed ? w.sizes()[1] * a.groups : w.sizes()[0]};
  for (size_t d = 0; d < nd; ++d) {
    const int64_t in = x.sizes()[2 + d], k = w.sizes()[2 + d];
    const int64_t span = a.dilation[d] * (k - 1);
    out.push_back(a.transposed
                      ? (in - 1) * a.stride[d] - 2 * a.padding[d] + span + a.output_padding[d] + 1
                      : (in + 2 * a.padding[d] + a.pad_extra[d] - span - 1) / a.stride[d] + 1);
  }
  return out;
}

// out[n, c, ...] += bias[c].
void add_bias(const Tensor& out, const Tensor& bias) {
  const int64_t n = out.sizes()[0], c = out.sizes()[1];
  const int64_t plane = c ? out.numel() / std::max<int64_t>(1, n * c) : 0;
  Tensor b = kernels::aligned(contiguous(bias));
  GT_DISPATCH_FLOAT(out.dtype(), "conv_bias", [&] {
    scalar_t* y = out.data<scalar_t>();
    const scalar_t* bp = b.data<scalar_t>();
    parallel_for(n * c, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, plane)),
                 [&](int64_t lo, int64_t hi) {
                   for (int64_t i = lo; i < hi; ++i) {
                     const scalar_t v = bp[i % c];
                     scalar_t* p = y + i * plane;
                     for (int64_t k = 0; k < plane; ++k) p[k] += v;
                   }
                 });
  });
}

// float16 / bfloat16 operands are widened: the products, the bias and the
// sums run in float32 and each result is rounded once at the end (as torch's
// CPU convolution of reduced floats accumulates in float).
Tensor dense(const Tensor& t) { return kernels::aligned(contiguous(kernels::widen(t))); }

ScalarType compute_dtype(ScalarType dt) { return is_reduced_float(dt) ? ScalarType::Float32 : dt; }

Tensor rounded_to(const Tensor& t, ScalarType dt) {
  return t.defined() && t.dtype() != dt ? kernels::narrowed(t, dt) : t;
}

}  // namespace

Tensor convolution(const Tensor& input, const Tensor& weight, const Tensor* bias,
                   const ConvArgs& args) {
  check_args(weight, args);
  check_shapes(input, weight, bias, args);
  check_dtypes(input, weight, bias);
  const DimVector shape = output_shape(input, weight, args);
  bool positive = true;
  DimVector in_sp, out_sp;
  for (int64_t d = 2; d < static_cast<int64_t>(shape.size()); ++d) {
    positive = positive && shape[d] > 0;
    in_sp.push_back(input.sizes()[d]);
    out_sp.push_back(shape[d]);
  }
  GT_CHECK(positive, "Given input size per channel: (", sizes_x(in_sp),
           "). Calculated output size per channel: (", sizes_x(out_sp),
           "). Output size is too small");
  Tensor x = dense(input), w = dense(weight);
  const ScalarType cdt = compute_dtype(input.dtype());
  Tensor out;
  bool bias_done = false;
  if (!args.transposed) {
    out = empty(shape, cdt);
    if (x.sizes()[1] == 0) {
      kernels::fill(out, Scalar(0));
    } else {
      // The bias is added per sample inside the kernel, while its output is cached.
      const Tensor b = bias ? dense(*bias) : Tensor();
      kernels::conv_down(out, x, w, geom_of(x.sizes(), shape, w.sizes(), args),
                         bias ? &b : nullptr);
      bias_done = true;
    }
  } else {
    out = empty(shape, cdt);
    kernels::conv_up(out, x, w, geom_of(shape, x.sizes(), w.sizes(), args), /*zero=*/true);
  }
  if (bias && !bias_done && out.numel()) add_bias(out, kernels::widen(*bias));
  out = rounded_to(out, input.dtype());
  auto fill = [&](autograd::ConvArgs& at) { at = args; };
  if (bias) {
    record(OpKind::Convolution, {&input, &weight, bias}, out, fill);
  } else {
    record(OpKind::ConvolutionNoBias, {&input, &weight}, out, fill);
  }
  return out;
}

void check_convolution_backward(const Tensor& grad, const Tensor& input, const Tensor& weight,
                                const ConvArgs& args) {
  check_args(weight, args);
  check_shapes(input, weight, nullptr, args);
  check_dtypes(input, weight, nullptr);
  GT_CHECK(grad.dtype() == input.dtype(), "expected scalar type ", scalar_type_name(input.dtype()),
           " but found ", scalar_type_name(grad.dtype()));
  const DimVector shape = output_shape(input, weight, args);
  // torch's words come from the oneDNN library it calls; what is wrong follows them.
  GT_CHECK(grad.sizes() == shape,
           "could not create a primitive descriptor for the convolution forward propagation "
           "primitive. Run workload with environment variable ONEDNN_VERBOSE=all to get "
           "additional diagnostic information. (gradtrack: grad_output has size ",
           shape_str(grad.sizes()), ", and the convolution's output would have size ",
           shape_str(shape), ")");
}

std::array<Tensor, 3> convolution_backward(const Tensor& grad, const Tensor& input,
                                           const Tensor& weight, const ConvArgs& args,
                                           const std::array<bool, 3>& need) {
  std::array<Tensor, 3> out;
  Tensor g = dense(grad), x = dense(input), w = dense(weight);
  const ScalarType cdt = compute_dtype(input.dtype());
  if (!args.transposed) {
    const kernels::ConvGeom geo = geom_of(x.sizes(), g.sizes(), w.sizes(), args);
    if (need[0]) {
      out[0] = empty(input.sizes(), cdt);
      kernels::conv_up(out[0], g, w, geo, /*zero=*/true);
    }
    if (need[1]) {
      out[1] = empty(weight.sizes(), cdt);
      kernels::conv_wgrad(out[1], g, x, geo);
    }
  } else {
    const kernels::ConvGeom geo = geom_of(g.sizes(), x.sizes(), w.sizes(), args);
    if (need[0]) {
      out[0] = empty(input.sizes(), cdt);
      if (out[0].numel()) kernels::conv_down(out[0], g, w, geo);
    }
    if (need[1]) {
      out[1] = empty(weight.sizes(), cdt);
      kernels::conv_wgrad(out[1], x, g, geo);
    }
  }
  if (need[2]) {
    DimVector dims{0};
    for (int64_t d = 2; d < grad.dim(); ++d) dims.push_back(d);
    autograd::AutoGradMode off(false);
    out[2] = sum(g, dims, false);
  }
  out[0] = rounded_to(out[0], input.dtype());
  out[1] = rounded_to(out[1], weight.dtype());
  out[2] = rounded_to(out[2], grad.dtype());
  if (autograd::should_record({&grad, &input, &weight})) {
    // One node for the computed gradients, in order, as PyTorch's: all of
    // them require grad when any of grad, input and weight does.
    auto node = autograd::new_node(OpKind::ConvolutionBackward, {&grad, &input, &weight});
    node->attrs.set<autograd::ConvBackwardAttrs>() = {args, need};
    std::vector<const Tensor*> outs;
    for (const Tensor& t : out)
      if (t.defined()) outs.push_back(&t);
    if (outs.size() == 1) autograd::finish_node(node, {&grad, &input, &weight}, {outs[0]});
    if (outs.size() == 2) autograd::finish_node(node, {&grad, &input, &weight}, {outs[0], outs[1]});
    if (outs.size() == 3)
      autograd::finish_node(node, {&grad, &input, &weight}, {outs[0], outs[1], outs[2]});
  }
  return out;
}

}  // namespace gradtrack::ops
