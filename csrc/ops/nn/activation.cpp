// Activations with parameters (gelu, silu, leaky_relu, elu, softplus,
// hardtanh, mish, hardswish, hardsigmoid, log_sigmoid): out of place and in place.
//
// NOTE [Activations are not rows of the op list]
// The op list (python/gradtrack/_declarations) gives every row a Tensor method, a
// gradtrack.<name> function and a `<name>_` method, with no parameters. These
// take parameters (negative_slope, alpha, beta, approximate, ...) and in
// torch live in torch.nn.functional / torch._C._nn, not on Tensor: as rows
// they would add methods torch does not have. So they are one op with a
// kernel enum instead, and the formula row of each keeps the enum and its
// parameters in the node's attrs.
#include <cmath>

#include "autograd/profiling.h"
#include "autograd/provenance.h"
#include "core/half.h"
#include "kernels/reduced_float.h"
#include "kernels/simd.h"
#include "ops/common.h"
#include "ops/nn/nn.h"

namespace gradtrack::ops {

using kernels::nn::Act;
using kernels::nn::ActParams;

namespace {

struct ActInfo {
  OpKind kind;          // out of place (saves the input)
  OpKind inplace_kind;  // in place: kind again, or a row that saves the result
  const char* kernel;   // the name torch's "not implemented" error gives
  const char* label;    // the in-place write's name, for provenance
};

const ActInfo& info(Act k) {
  static const ActInfo table[] = {
      {OpKind::Gelu, OpKind::Gelu, "GeluKernelImpl", "gelu_"},
      {OpKind::Gelu, OpKind::Gelu, "GeluKernelImpl", "gelu_"},
      {OpKind::Silu, OpKind::Silu, "silu_cpu", "silu_"},
      {OpKind::LeakyRelu, OpKind::LeakyReluInplace, "leaky_relu_cpu", "leaky_relu_"},
      {OpKind::Elu, OpKind::EluInplace, "elu_cpu", "elu_"},
      {OpKind::Softplus, OpKind::Softplus, "softplus_cpu", "softplus_"},
      {OpKind::Hardtanh, OpKind::Hardtanh, "clamp_cpu", "hardtanh_"},
      {OpKind::Mish, OpKind::Mish, "mish_cpu", "mish_"},
      {OpKind::Hardswish, OpKind::Hardswish, "hardswish_cpu", "hardswish_"},
      {OpKind::LogSigmoid, OpKind::LogSigmoid, "log_sigmoid_cpu", "log_sigmoid_"},
      {OpKind::Celu, OpKind::CeluInplace, "elu_cpu", "celu_"},
      {OpKind::Hardsigmoid, OpKind::Hardsigmoid, "hardsigmoid_cpu", "hardsigmoid_"},
  };
  return table[static_cast<int>(k)];
}

void check_float(Act k, const Tensor& x) {
  GT_CHECK_IMPL(is_floating(x.dtype()), "\"", info(k).kernel, "\" not implemented for '",
                scalar_type_name(x.dtype()), "'");
}

Tensor dense(const Tensor& t) { return kernels::aligned(contiguous(t)); }

// from_result: an in-place form's node, whose formula reads the result.
autograd::ActivationAttrs activation_attrs(Act k, const ActParams& p, bool from_result) {
  autograd::ActivationAttrs at;
  at.act = k;
  at.params = p;
  at.from_result = from_result;
  return at;
}

// Writes act(self) into self (through a dense copy when self is strided).
void write_activation(Act k, const Tensor& self, const ActParams& p) {
  if (self.is_contiguous() && self.is_aligned()) {
    kernels::nn::act_forward(k, self, self, p);
    return;
  }
  autograd::AutoGradMode off(false);
  Tensor tmp = dense(clone(self));
  kernels::nn::act_forward(k, tmp, tmp, p);
  kernels::copy(self, tmp);
}

}  // namespace

Tensor activation(Act k, const Tensor& x, const ActParams& p) {
  check_float(k, x);
  Tensor out = empty(x.sizes(), x.dtype());
  if (x.numel() != 0) kernels::nn::act_forward(k, out, dense(x), p);
  record(info(k).kind, {&x}, out,
         [&](autograd::ActivationAttrs& at) { at = activation_attrs(k, p, false); });
  return out;
}

Tensor activation_(Act k, const Tensor& self, const ActParams& p) {
  check_float(k, self);
  GT_CHECK(!has_internal_overlap(self),
           "unsupported operation: more than one element of the written-to tensor refers to a "
           "single memory location. Please clone() the tensor before performing the operation.");
  const OpKind kind = info(k).inplace_kind;
  std::shared_ptr<autograd::FormulaNode> node;
  Tensor old_self;
  if (autograd::should_record({&self})) {
    // The old value keeps its history (as inplace.cpp's old_self), so a
    // gradient built from it can be differentiated again.
    if (autograd::inplace_needs_old_self(kind, {&self})) old_self = clone(self);
    node = autograd::new_node(kind, {&self});
    autograd::save_inplace_inputs(node, {&self}, old_self);
  }
  // Forward AD (NOTE [Forward AD through in-place ops]): the jvp from the old value.
  Tensor fw_old;
  if (autograd::forward_ad::any_tangent({&self})) {
    fw_old = empty_like(self, self.dtype());  // dense even when self is a gapped view
    kernels::copy(fw_old, self);
  }
  if (self.numel() != 0) write_activation(k, self, p);
  self->bump_version();
  autograd::note_write(self, info(k).label);
  if (fw_old.defined()) {
    // The jvp reads self's old value (NOTE [Forward AD through in-place ops]).
    autograd::Attrs at;
    at.set<autograd::ActivationAttrs>() = activation_attrs(k, p, false);
    autograd::forward_ad::propagate_inplace(kind, {&self}, self, fw_old, at, {});
  }
  if (node) {
    node->attrs.set<autograd::ActivationAttrs>() = activation_attrs(k, p, kind != info(k).kind);
    autograd::finish_inplace_node(node, self);
  }
  return self;
}

// NOTE [A broadcast gradient stays one value]
// The gradient that sum() or mean() hands back is its one value expanded to the
// input's shape. Made dense here it cost a copy the size of the activation, at
// backward's start when every saved activation is still alive: a deep MLP's peak
// was one activation (4 MiB) above torch's, whose kernels read the expanded view.
// Such a gradient goes to the kernel as it is (act_backward reads its one value).
Tensor activation_backward_fused(Act k, const Tensor& g, const Tensor& s, const ActParams& p,
                                 bool from_result) {
  const bool one_value =
      g.dtype() == s.dtype() && g.sizes() == s.sizes() && kernels::nn::is_one_value(g);
  Tensor gd = one_value ? g : dense(g.dtype() == s.dtype() ? g : to_dtype(g, s.dtype()));
  Tensor out = empty(s.sizes(), s.dtype());
  if (s.numel() != 0) kernels::nn::act_backward(k, out, gd, dense(s), p, from_result);
  return out;
}

namespace {
// Calls f(base pointer offset, stride) for every 1-D lane along `dim`.
struct Lanes {
  int64_t outer, len, inner;
};
Lanes lanes_of(const Tensor& t, int64_t d) {
  Lanes l{1, t.dim() ? t.sizes()[d] : 1, 1};
  for (int64_t k = 0; k < d; ++k) l.outer *= t.sizes()[k];
  for (int64_t k = d + 1; k < t.dim(); ++k) l.inner *= t.sizes()[k];
  return l;
}
// Numerically stable (log-)softmax over `dim` of a dense tensor.
double natural_log(double s) { return std::log(s); }

// NOTE [A reduced float's log-sum is rounded]
// For bfloat16 and float16 over the last dim, torch's log_softmax keeps the sum
// of exponentials and then its log in the tensor's own type (two roundings)
// before x - max - log-sum is computed in float32 and rounded: 6% of the outputs
// of a 64 x 1000 bfloat16 log_softmax were 1 ulp from torch's with the log-sum
// kept in float32. Over any other dim torch keeps it in float32, as here.
template <uint16_t (*Narrow)(float), float (*Widen)(uint16_t)>
double reduced_log(double s) {
  return Widen(Narrow(float(std::log(Widen(Narrow(float(s)))))));
}

// NOTE [Softmax rows in vector loops]
// A float32 softmax over dense rows exponentiates each element once, in the vector exp
// (kernels/simd.h: at most 0.77 ulp on AVX-512, torch's rate of results off the
// correctly rounded one), sums the row's exponentials in double (a float sum's error
// would scale the whole row: torch's is 3x ours), and scales them
// by the sum's inverse in double, rounded once. Exponentiating each element twice in
// double, as the strided loop below does, was 16x torch's time; this is as accurate as
// torch's (tests/kernels/test_float32_error.py).
void softmax_rows(const float* in, float* out, Lanes l, bool log, double (*log_sum)(double)) {
  namespace simd = kernels::simd;
  parallel_for(l.outer, std::max<int64_t>(1, kGrainSize / l.len), [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      const float* x = in + r * l.len;
      float* y = out + r * l.len;
      // A NaN makes the row NaN (through x - max), as in PyTorch.
      float m = -INFINITY;
      if (simd::extreme(x, l.len, true, m)) m = NAN;
      simd::dense_binary(simd::DenseOp::Sub, x, 1, &m, 0, y, l.len);
      simd::exp(y, y, l.len);
      const double s = simd::sum_in_double(y, l.len);
      if (log) {
        // (x - max) - log(sum), PyTorch's order of rounding.
        const float ls = static_cast<float>(log_sum(s));
        simd::dense_binary(simd::DenseOp::Sub, x, 1, &m, 0, y, l.len);
        simd::dense_binary(simd::DenseOp::Sub, y, 1, &ls, 0, y, l.len);
      } else {
        simd::scale_in_double(y, l.len, 1.0 / s);
      }
    }
  });
}

template <typename T>
void softmax_kernel(const T* in, T* out, Lanes l, bool log,
                    double (*log_sum)(double) = natural_log) {
  if constexpr (std::is_same_v<T, float>) {
    if (l.inner == 1 && l.len > 0) return softmax_rows(in, out, l, log, log_sum);
  }
  parallel_for(l.outer * l.inner, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(l.len, 1)),
               [&](int64_t lo, int64_t hi) {
                 for (int64_t w = lo; w < hi; ++w) {
                   int64_t o = w / l.inner, i = w % l.inner;
                   const T* x = in + o * l.len * l.inner + i;
                   T* y = out + o * l.len * l.inner + i;
                   T m = -INFINITY;
                   for (int64_t k = 0; k < l.len; ++k) m = std::max(m, x[k * l.inner]);
                   // An infinite maximum is not special-cased: inf - inf is NaN,
                   // so the whole slice is NaN, as in PyTorch.
                   double s = 0;
                   for (int64_t k = 0; k < l.len; ++k) s += std::exp(double(x[k * l.inner] - m));
                   if (log) {
                     // (x - max) - log(sum), PyTorch's order of rounding.
                     T ls = static_cast<T>(log_sum(s));
                     for (int64_t k = 0; k < l.len; ++k) y[k * l.inner] = (x[k * l.inner] - m) - ls;
                   } else {
                     for (int64_t k = 0; k < l.len; ++k)
                       y[k * l.inner] = static_cast<T>(std::exp(double(x[k * l.inner] - m)) / s);
                   }
                 }
               });
}
Tensor softmax_impl(const Tensor& a, int64_t dim, bool log) {
  autograd::profiling::Scope scope(log ? "aten::_log_softmax" : "aten::_softmax", {&a}, 3);
  int64_t d = wrap_dim(dim, a.dim());
  // PyTorch names the kernel it would dispatch to: the last-dim one when dim
  // is the last (or the tensor is 0-dim). An empty input never reaches it.
  GT_CHECK_IMPL(is_floating(a.dtype()) || a.numel() == 0, "\"", log ? "log_softmax" : "softmax",
                d == std::max<int64_t>(a.dim(), 1) - 1 ? "_lastdim" : "",
                "_kernel_impl\" not implemented for '", scalar_type_name(a.dtype()), "'");
  Tensor out = empty(a.sizes(), a.dtype());
  if (a.numel() != 0 && is_reduced_float(a.dtype())) {
    // NOTE [Reduced floats are stored, not computed]: a float32 softmax, rounded.
    Tensor x = kernels::widen(a), y = empty(a.sizes(), ScalarType::Float32);
    const bool last = d == std::max<int64_t>(a.dim(), 1) - 1;
    double (*log_sum)(double) = natural_log;
    if (last) {
      log_sum = a.dtype() == ScalarType::BFloat16
                    ? reduced_log<float_to_bfloat16, bfloat16_to_float>
                    : reduced_log<float_to_half, half_to_float>;
    }
    softmax_kernel<float>(x.data<float>(), y.data<float>(), lanes_of(a, d), log, log_sum);
    kernels::copy(out, y);
  } else if (a.numel() != 0) {
    Tensor x = kernels::aligned(contiguous(a));
    GT_DISPATCH_FLOAT(a.dtype(), "softmax", [&] {
      softmax_kernel<scalar_t>(x.data<scalar_t>(), out.data<scalar_t>(), lanes_of(a, d), log);
    });
  }
  record(log ? OpKind::LogSoftmax : OpKind::Softmax, {&a}, out,
         [&](autograd::DimAttrs& at) { at.dim = d; });
  return out;
}

}  // namespace
Tensor log_softmax(const Tensor& a, int64_t dim) {
  autograd::profiling::Scope scope("aten::log_softmax", {&a}, 3);
  return softmax_impl(a, dim, true);
}
Tensor softmax(const Tensor& a, int64_t dim) {
  autograd::profiling::Scope scope("aten::softmax", {&a}, 3);
  return softmax_impl(a, dim, false);
}
namespace {
// log_softmax's backward over dense float32 rows: g - exp(y) * sum(g), the sum over 64
// lanes (kernels/simd.h, as torch's vector sum keeps lanes; one running sum was a
// chain of dependent adds) and exp(y) in the vector exp, a block at a time. 3.2x torch's
// time on 1M elements in rows of 1024 before.
template <typename T>
bool log_softmax_backward_rows(const T* gp, const T* yp, T* op, int64_t rows, int64_t len) {
  if constexpr (!std::is_same_v<T, float>) {
    return false;
  } else {
    parallel_for(rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(len, 1)),
                 [&](int64_t lo, int64_t hi) {
                   constexpr int64_t kBlock = 1024;
                   alignas(64) float e[kBlock];
                   for (int64_t r = lo; r < hi; ++r) {
                     const float* g = gp + r * len;
                     const float* y = yp + r * len;
                     float* o = op + r * len;
                     const float s = static_cast<float>(kernels::simd::sum(g, len, 0.0));
                     for (int64_t b = 0; b < len; b += kBlock) {
                       const int64_t m = std::min(kBlock, len - b);
                       kernels::simd::exp(y + b, e, m);
                       for (int64_t k = 0; k < m; ++k) o[b + k] = g[b + k] - e[k] * s;
                     }
                   }
                 });
    return true;
  }
}

// softmax's backward over dense float32 rows: y (g - s), s = sum(g y), torch's order,
// with s summed in double (torch's float sum over lanes loses more). It was four
// composed ops, 1.5x torch's time with the forward on 1M elements.
void softmax_backward_rows(const float* gp, const float* yp, float* op, Lanes l) {
  namespace simd = kernels::simd;
  parallel_for(l.outer, std::max<int64_t>(1, kGrainSize / l.len), [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      const float* g = gp + r * l.len;
      const float* y = yp + r * l.len;
      float* o = op + r * l.len;
      const float s = static_cast<float>(simd::dot_in_double(g, y, l.len));
      simd::dense_binary(simd::DenseOp::Sub, g, 1, &s, 0, o, l.len);
      simd::dense_binary(simd::DenseOp::Mul, o, 1, y, 1, o, l.len);
    }
  });
}
}  // namespace

// Both backward ops are differentiable ops of their own (double backward):
// PyTorch's _softmax_backward_data / _log_softmax_backward_data nodes.
Tensor log_softmax_backward(const Tensor& g, const Tensor& result, int64_t dim) {
  autograd::profiling::Scope scope("aten::_log_softmax_backward_data", {&g, &result}, 4);
  dim = wrap_dim(dim, result.dim());
  if (is_reduced_float(result.dtype())) {
    Tensor out;
    {
      autograd::AutoGradMode off(false);
      out = kernels::narrowed(log_softmax_backward(kernels::widen(g), kernels::widen(result), dim),
                              result.dtype());
    }
    record(OpKind::LogSoftmaxBackwardData, {&g, &result}, out,
           [&](autograd::DimAttrs& at) { at.dim = dim; });
    return out;
  }
  Tensor gc = kernels::aligned(contiguous(g)), yc = kernels::aligned(contiguous(result));
  Tensor out = empty(result.sizes(), result.dtype());
  Lanes l = lanes_of(result, dim);
  GT_DISPATCH_FLOAT(result.dtype(), "log_softmax_backward", [&] {
    const scalar_t* gp = gc.data<scalar_t>();
    const scalar_t* yp = yc.data<scalar_t>();
    scalar_t* op = out.data<scalar_t>();
    if (l.inner == 1 && log_softmax_backward_rows(gp, yp, op, l.outer, l.len)) return;
    parallel_for(l.outer * l.inner, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(l.len, 1)),
                 [&](int64_t lo, int64_t hi) {
                   for (int64_t w = lo; w < hi; ++w) {
                     int64_t base = (w / l.inner) * l.len * l.inner + w % l.inner;
                     scalar_t s = 0;
                     for (int64_t k = 0; k < l.len; ++k) s += gp[base + k * l.inner];
                     for (int64_t k = 0; k < l.len; ++k) {
                       int64_t q = base + k * l.inner;
                       op[q] = gp[q] - std::exp(yp[q]) * s;
                     }
                   }
                 });
  });
  record(OpKind::LogSoftmaxBackwardData, {&g, &result}, out,
         [&](autograd::DimAttrs& at) { at.dim = dim; });
  return out;
}
Tensor softmax_backward(const Tensor& g, const Tensor& result, int64_t dim) {
  autograd::profiling::Scope scope("aten::_softmax_backward_data", {&g, &result}, 4);
  dim = wrap_dim(dim, result.dim());
  Tensor out;
  {
    autograd::AutoGradMode off(false);
    if (is_reduced_float(result.dtype())) {
      // computed in float32 and rounded once, as torch's kernels for these types
      out = kernels::narrowed(softmax_backward(kernels::widen(g), kernels::widen(result), dim),
                              result.dtype());
    } else if (const Lanes l = lanes_of(result, dim);
               result.dtype() == ScalarType::Float32 && result.numel() > 0 && l.inner == 1) {
      Tensor gc = kernels::aligned(contiguous(g)), yc = kernels::aligned(contiguous(result));
      out = empty(result.sizes(), result.dtype());
      softmax_backward_rows(gc.data<float>(), yc.data<float>(), out.data<float>(), l);
    } else {
      // y (g - sum(g y)), torch's order
      Tensor s = sum(mul(g, result), {dim}, true, std::nullopt, true);
      out = mul(sub(g, s), result);
    }
  }
  record(OpKind::SoftmaxBackwardData, {&g, &result}, out,
         [&](autograd::DimAttrs& at) { at.dim = dim; });
  return out;
}

}  // namespace gradtrack::ops
