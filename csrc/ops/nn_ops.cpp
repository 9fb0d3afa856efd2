// Fused neural-network ops: (log-)softmax, NLL and MSE losses.
#include <cmath>

#include "kernels/reduced_float.h"
#include "ops/common.h"

namespace gradtrack::ops {

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
template <typename T>
void softmax_kernel(const T* in, T* out, Lanes l, bool log) {
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
                     T ls = static_cast<T>(std::log(s));
                     for (int64_t k = 0; k < l.len; ++k) y[k * l.inner] = (x[k * l.inner] - m) - ls;
                   } else {
                     for (int64_t k = 0; k < l.len; ++k)
                       y[k * l.inner] = static_cast<T>(std::exp(double(x[k * l.inner] - m)) / s);
                   }
                 }
               });
}

Tensor softmax_impl(const Tensor& a, int64_t dim, bool log) {
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
    softmax_kernel<float>(x.data<float>(), y.data<float>(), lanes_of(a, d), log);
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

Tensor log_softmax(const Tensor& a, int64_t dim) { return softmax_impl(a, dim, true); }
Tensor softmax(const Tensor& a, int64_t dim) { return softmax_impl(a, dim, false); }

// Both backward ops are differentiable ops of their own (double backward):
// PyTorch's _softmax_backward_data / _log_softmax_backward_data nodes.
Tensor log_softmax_backward(const Tensor& g, const Tensor& result, int64_t dim) {
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
  dim = wrap_dim(dim, result.dim());
  Tensor out;
  {
    autograd::AutoGradMode off(false);
    Tensor gy = mul(g, result);
    out = sub(gy, mul(result, sum(gy, {dim}, true, std::nullopt, true)));
  }
  record(OpKind::SoftmaxBackwardData, {&g, &result}, out,
         [&](autograd::DimAttrs& at) { at.dim = dim; });
  return out;
}

Tensor nll_loss(const Tensor& logp, const Tensor& target, const Tensor* weight, int64_t reduction,
                int64_t ignore_index) {
  GT_CHECK(logp.dim() >= 1 && logp.dim() <= 2, "input tensor should be 1D or 2D");
  GT_CHECK(target.dtype() == ScalarType::Int64 || target.dtype() == ScalarType::UInt8,
           "expected target dtype to be Long or Byte, but got ", scalar_type_name(target.dtype()));
  GT_CHECK(target.dim() <= 1, "0D or 1D target tensor expected, multi-target not supported");
  const bool batched = logp.dim() == 2;
  const int64_t n = batched ? logp.sizes()[0] : 1;
  const int64_t c = logp.sizes()[logp.dim() - 1];
  GT_CHECK_VALUE(!batched || target.sizes()[0] == n, "Expected input batch_size (", n,
                 ") to match target batch_size (", target.dim() ? target.sizes()[0] : 1, ").");
  GT_CHECK(!weight || (weight->dim() == 1 && weight->numel() == c),
           "weight tensor should be defined either for all ", c,
           " classes or no classes but got weight tensor of shape: ",
           weight ? shape_str(weight->sizes()) : "[]");
  // float16 / bfloat16: computed in float, each result rounded once
  const ScalarType cdt = is_reduced_float(logp.dtype()) ? ScalarType::Float32 : logp.dtype();
  Tensor lp = kernels::aligned(contiguous(kernels::widen(logp)));
  Tensor tg = kernels::aligned(contiguous(to_dtype(target, ScalarType::Int64)));
  Tensor w = weight ? kernels::aligned(contiguous(to_dtype(*weight, cdt))) : Tensor();
  Tensor out = reduction == 0 && batched ? empty({n}, cdt) : empty({}, cdt);
  Tensor total_weight = empty({}, cdt);
  GT_DISPATCH_FLOAT(cdt, "nll_loss", [&] {
    const scalar_t* x = lp.data<scalar_t>();
    const int64_t* t = tg.data<int64_t>();
    const scalar_t* wp = weight ? w.data<scalar_t>() : nullptr;
    double total = 0, wsum = 0;
    for (int64_t i = 0; i < n; ++i) {
      int64_t cls = t[i];
      double li = 0, wi = 0;
      if (cls != ignore_index) {
        GT_CHECK_INDEX(cls >= 0 && cls < c, "Target ", cls, " is out of bounds.");
        wi = wp ? wp[cls] : 1.0;
        li = -wi * x[i * c + cls];
      }
      if (reduction == 0 && batched) out.data<scalar_t>()[i] = static_cast<scalar_t>(li);
      total += li;
      wsum += wi;
    }
    if (reduction != 0 || !batched) {
      *out.data<scalar_t>() = static_cast<scalar_t>(reduction == 1 ? total / wsum : total);
    }
    *total_weight.data<scalar_t>() = static_cast<scalar_t>(wsum);
  });
  if (cdt != logp.dtype()) {
    out = kernels::narrowed(out, logp.dtype());
    total_weight = kernels::narrowed(total_weight, logp.dtype());
  }
  std::vector<const Tensor*> extras{&target, &total_weight};
  if (weight) extras.push_back(weight);
  record(
      OpKind::NllLoss, {&logp}, out,
      [&](autograd::LossAttrs& at) {
        at.reduction = reduction;
        at.ignore_index = ignore_index;
        at.has_weight = weight != nullptr;
      },
      extras);
  return out;
}

Tensor mse_loss(const Tensor& a, const Tensor& target, int64_t reduction) {
  Tensor d;
  Tensor out;
  {
    autograd::AutoGradMode off(false);
    d = sub(a, target);
    Tensor sq = mul(d, d);
    out = reduction == 0 ? sq : reduction == 1 ? mean(sq, {}, false) : sum(sq, {}, false);
  }
  record(OpKind::MseLoss, {&a, &target}, out,
         [&](autograd::LossAttrs& at) { at.reduction = reduction; });
  return out;
}

}  // namespace gradtrack::ops
