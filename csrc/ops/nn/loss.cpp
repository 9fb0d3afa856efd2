// The losses with a node of their own in torch: binary_cross_entropy,
// binary_cross_entropy_with_logits, smooth_l1_loss, huber_loss. The forward
// runs existing ops with grad mode off, then records one node, as mse_loss.
#include "ops/common.h"
#include "ops/nn/loss.h"
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

}  // namespace gradtrack::ops
