// The losses with a node of their own in torch: binary_cross_entropy,
// binary_cross_entropy_with_logits, smooth_l1_loss, huber_loss. The forward
// runs existing ops with grad mode off, then records one node, as mse_loss.
#include "ops/nn/loss.h"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <utility>

#include "autograd/profiling.h"
#include "core/half.h"
#include "kernels/reduced_float.h"
#include "ops/common.h"
#include "ops/nn/nn.h"

namespace gradtrack::ops {

namespace {

Tensor reduce(const Tensor& t, int64_t reduction) {
  if (reduction == 1) return mean(t, {}, false);
  if (reduction == 2) return sum(t, {}, false);
  return t;
}

}  // namespace

Tensor binary_cross_entropy(const Tensor& x, const Tensor& y, const Tensor* w, int64_t reduction) {
  Tensor out;
  {
    autograd::AutoGradMode off(false);
    // NaN fails too, as torch's check `0 <= x && x <= 1` does.
    Tensor inside =
        logical(Logic::And, compare(Cmp::Ge, x, Scalar(0.0)), compare(Cmp::Le, x, Scalar(1.0)));
    GT_CHECK(!kernels::any_zero(all(inside, std::nullopt, false)),
             "all elements of input should be between 0 and 1");
    // log is clamped at -100, so a 0 or 1 probability gives a finite loss.
    Tensor lx = clamp_min(log(x), Scalar(-100.0));
    Tensor l1x = clamp_min(log(rsub(x, Scalar(1.0))), Scalar(-100.0));
    Tensor l = neg(add(mul(y, lx), mul(rsub(y, Scalar(1.0)), l1x)));
    if (w) l = mul(l, *w);
    out = reduce(l, reduction);
  }
  std::vector<const Tensor*> extras;
  if (w) extras.push_back(w);
  record(
      OpKind::BinaryCrossEntropy, {&x, &y}, out,
      [&](autograd::LossAttrs& at) {
        at.reduction = reduction;
        at.has_weight = w != nullptr;
      },
      extras);
  return out;
}

Tensor binary_cross_entropy_with_logits(const Tensor& x, const Tensor& y, const Tensor* w,
                                        const Tensor* pos_weight, int64_t reduction) {
  Tensor out;
  {
    autograd::AutoGradMode off(false);
    Tensor ls = activation(kernels::nn::Act::LogSigmoid, x, {});
    Tensor l;
    if (pos_weight) {
      Tensor log_weight = add(mul(sub(*pos_weight, Scalar(1.0)), y), Scalar(1.0));
      l = sub(mul(rsub(y, Scalar(1.0)), x), mul(log_weight, ls));
    } else {
      l = sub(mul(rsub(y, Scalar(1.0)), x), ls);
    }
    if (w) l = mul(l, *w);
    out = reduce(l, reduction);
  }
  std::vector<const Tensor*> extras;
  if (w) extras.push_back(w);
  if (pos_weight) extras.push_back(pos_weight);
  record(
      OpKind::BinaryCrossEntropyWithLogits, {&x, &y}, out,
      [&](autograd::LossAttrs& at) {
        at.reduction = reduction;
        at.has_weight = w != nullptr;
        at.has_pos_weight = pos_weight != nullptr;
      },
      extras);
  return out;
}

Tensor smooth_l1_or_huber(const Tensor& x, const Tensor& y, int64_t reduction, double param,
                          bool huber) {
  Tensor out;
  {
    autograd::AutoGradMode off(false);
    Tensor z = abs(sub(x, y));
    Tensor l;
    if (huber) {
      Tensor quad = mul(mul(z, z), Scalar(0.5));
      Tensor lin = mul(sub(z, Scalar(0.5 * param)), Scalar(param));
      l = where(compare(Cmp::Lt, z, Scalar(param)), quad, lin);
    } else if (param == 0) {
      l = z;
    } else {
      Tensor quad = div(mul(mul(z, z), Scalar(0.5)), Scalar(param));
      l = where(compare(Cmp::Lt, z, Scalar(param)), quad, sub(z, Scalar(0.5 * param)));
    }
    out = reduce(l, reduction);
  }
  record(huber ? OpKind::HuberLoss : OpKind::SmoothL1Loss, {&x, &y}, out,
         [&](autograd::LossAttrs& at) {
           at.reduction = reduction;
           if (huber) {
             at.delta = param;
           } else {
             at.beta = param;
           }
         });
  return out;
}

namespace {

/// nll_loss's and nll_loss2d's end: the result and the total weight in logp's dtype
/// (computed in float for float16 / bfloat16), and the node, which keeps the target,
/// the total weight and the class weights.
Tensor record_nll(OpKind kind, const Tensor& logp, Tensor out, Tensor total_weight,
                  const Tensor& target, const Tensor* weight, int64_t reduction,
                  int64_t ignore_index) {
  if (out.dtype() != logp.dtype()) {
    out = kernels::narrowed(out, logp.dtype());
    total_weight = kernels::narrowed(total_weight, logp.dtype());
  }
  std::vector<const Tensor*> extras{&target, &total_weight};
  if (weight) extras.push_back(weight);
  record(
      kind, {&logp}, out,
      [&](autograd::LossAttrs& at) {
        at.reduction = reduction;
        at.ignore_index = ignore_index;
        at.has_weight = weight != nullptr;
      },
      extras);
  return out;
}

// NOTE [nll_loss sums as torch's]
// torch's CPU nll_loss and nll_loss2d reduce in the input's own type through a
// cascade of eight partial sums: each sample's term joins the first; after
// sample i (ignored ones skipped), for every level j whose 2^p-bit group of i
// (p = max(4, ceil(log2 count) / 8)) is zero, level j is added into level j + 1
// and cleared; the levels are then added in order. In bfloat16 every addition
// rounds to bfloat16. A sum in double rounded once is closer to the exact value
// but not torch's: 72 of 168 float32 and bfloat16 reductions (sizes 1-5000,
// with and without weights and ignored targets) differed in the last bits, and a
// bfloat16 sum over 64 samples by 4 (704 against 708). So the sums are torch's.
template <typename S>
struct NllCascade {
  static constexpr int kLevels = 8;
  S (*narrow)(S);  // rounds to the input's own type (identity for float / double)
  int64_t power, mask;
  S loss[kLevels] = {}, weight[kLevels] = {};
  NllCascade(int64_t count, S (*round)(S)) : narrow(round) {
    const int64_t log2 = count <= 2 ? 1 : 64 - __builtin_clzll(uint64_t(count - 1));
    power = std::max<int64_t>(4, log2 / kLevels);
    mask = (int64_t(1) << power) - 1;
  }
  // Sample `index`'s log-probability x, with its class weight w unless null.
  void add(int64_t index, S x, const S* w) {
    if (w) {
      loss[0] = narrow(loss[0] - narrow(x * *w));
      weight[0] = narrow(weight[0] + *w);
    } else {
      loss[0] = narrow(loss[0] - x);
    }
    for (int j = 0; j + 1 < kLevels; ++j) {
      if (index & (mask << (j * power))) break;
      weight[j + 1] = narrow(weight[j + 1] + weight[j]);
      loss[j + 1] = narrow(loss[j + 1] + loss[j]);
      weight[j] = S(0);
      loss[j] = S(0);
    }
  }
  S total(const S* parts) const {
    S sum = S(0);
    for (int j = 0; j < kLevels; ++j) sum = narrow(sum + parts[j]);
    return sum;
  }
  // The loss (mean: over the total weight) and the total weight, count samples
  // of which `ignored` were ignored.
  std::pair<S, S> result(bool mean, bool weighted, int64_t count, int64_t ignored) const {
    const S tw = weighted ? total(weight) : narrow(S(count - ignored));
    const S out = total(loss);
    return {mean ? narrow(out / tw) : out, tw};
  }
};

template <typename S>
S same_value(S v) {
  return v;
}
float through_bfloat16(float v) { return bfloat16_to_float(float_to_bfloat16(v)); }
float through_half(float v) { return half_to_float(float_to_half(v)); }

// The rounding of the input's own type for sums in S (NOTE [nll_loss sums as torch's]).
template <typename S>
S (*narrowing(ScalarType input))(S) {
  if constexpr (std::is_same_v<S, float>) {
    if (input == ScalarType::BFloat16) return through_bfloat16;
    if (input == ScalarType::Float16) return through_half;
  }
  return same_value<S>;
}

}  // namespace

Tensor nll_loss(const Tensor& logp, const Tensor& target, const Tensor* weight, int64_t reduction,
                int64_t ignore_index) {
  autograd::profiling::Scope scope("aten::nll_loss", {&logp, &target, weight}, 5);
  autograd::profiling::Scope step("aten::nll_loss_forward", {&logp, &target, weight}, 5);
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
    NllCascade<scalar_t> sums(n, narrowing<scalar_t>(logp.dtype()));
    int64_t ignored = 0;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t cls = t[i];
      if (cls == ignore_index) {
        ++ignored;
        if (reduction == 0 && batched) out.data<scalar_t>()[i] = scalar_t(0);
        continue;
      }
      GT_CHECK_INDEX(cls >= 0 && cls < c, "Target ", cls, " is out of bounds.");
      const scalar_t xi = x[i * c + cls];
      if (reduction == 0 && batched) {
        out.data<scalar_t>()[i] = -xi * (wp ? wp[cls] : scalar_t(1));
        continue;
      }
      sums.add(i, xi, wp ? wp + cls : nullptr);
    }
    if (reduction == 0 && batched) {
      *total_weight.data<scalar_t>() = scalar_t(0);  // as torch's: not summed
    } else {
      const auto [loss, tw] = sums.result(reduction == 1, wp != nullptr, n, ignored);
      *out.data<scalar_t>() = loss;
      *total_weight.data<scalar_t>() = tw;
    }
  });
  return record_nll(OpKind::NllLoss, logp, out, total_weight, target, weight, reduction,
                    ignore_index);
}
Tensor nll_loss2d(const Tensor& logp, const Tensor& target, const Tensor* weight, int64_t reduction,
                  int64_t ignore_index) {
  GT_CHECK(logp.dim() == 4, "input tensor should be 4D");
  GT_CHECK(target.dim() == 3,
           "only batches of spatial targets supported (3D tensors) but got targets of "
           "dimension: ",
           target.dim());
  const int64_t n = logp.size(0), c = logp.size(1), h = logp.size(2), w = logp.size(3);
  GT_CHECK(target.size(0) == n && target.size(1) == h && target.size(2) == w,
           "size mismatch (got input: ", shape_str(logp.sizes()),
           " , target: ", shape_str(target.sizes()));
  GT_CHECK(!weight || weight->numel() == c,
           "weight tensor should be defined either for all or no classes");
  // float16 / bfloat16: computed in float, each result rounded once
  const ScalarType cdt = is_reduced_float(logp.dtype()) ? ScalarType::Float32 : logp.dtype();
  Tensor lp = kernels::aligned(contiguous(kernels::widen(logp)));
  Tensor tg = kernels::aligned(contiguous(to_dtype(target, ScalarType::Int64)));
  Tensor wt = weight ? kernels::aligned(contiguous(to_dtype(*weight, cdt))) : Tensor();
  Tensor out = reduction == 0 ? empty({n, h, w}, cdt) : empty({}, cdt);
  Tensor total_weight = empty({}, cdt);
  const int64_t plane = h * w;
  GT_DISPATCH_FLOAT(cdt, "nll_loss2d", [&] {
    const scalar_t* x = lp.data<scalar_t>();
    const int64_t* t = tg.data<int64_t>();
    const scalar_t* wp = weight ? wt.data<scalar_t>() : nullptr;
    NllCascade<scalar_t> sums(n * plane, narrowing<scalar_t>(logp.dtype()));
    int64_t ignored = 0;
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t s = 0; s < plane; ++s) {
        const int64_t i = b * plane + s, cls = t[i];
        if (cls == ignore_index) {
          ++ignored;
          if (reduction == 0) out.data<scalar_t>()[i] = scalar_t(0);
          continue;
        }
        GT_CHECK_INDEX(cls >= 0 && cls < c, "Target ", cls, " is out of bounds.");
        const scalar_t xi = x[(b * c + cls) * plane + s];
        if (reduction == 0) {
          out.data<scalar_t>()[i] = -xi * (wp ? wp[cls] : scalar_t(1));
          continue;
        }
        sums.add(i, xi, wp ? wp + cls : nullptr);
      }
    }
    if (reduction != 0) {
      const auto [loss, tw] = sums.result(reduction == 1, wp != nullptr, n * plane, ignored);
      *out.data<scalar_t>() = loss;
      *total_weight.data<scalar_t>() = tw;
    } else {
      *total_weight.data<scalar_t>() = scalar_t(0);  // as torch's: not summed
    }
  });
  return record_nll(OpKind::NllLoss2d, logp, out, total_weight, target, weight, reduction,
                    ignore_index);
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
