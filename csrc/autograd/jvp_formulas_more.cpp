// Forward-mode derivatives of the indexing, reduction, round-2 tensor ops and
// nn layers (NOTE [Forward-mode AD]); the elementwise and matmul ones are in
// jvp_formulas.cpp. Each is written with ops, as PyTorch's derivatives.yaml
// `result:` line for the op.
#include <cmath>
#include <limits>

#include "autograd/jvp_formulas.h"
#include "ops/extra_ops.h"
#include "ops/nn/conv.h"
#include "ops/nn/nn.h"
#include "ops/ops.h"

namespace gradtrack::autograd::jvp {

namespace {

using namespace ::gradtrack::ops;  // NOLINT: the formulas read as math
using J = JvpCtx;

using namespace args;  // NOLINT: x(c), t(c) as in the other formulas
Tensor zero_scalar(const J& c) { return zeros({}, c.result.dtype()); }
// The index list of an indexing node: IndexAttrs::has_index says which dims
// have an index, the extras are the index tensors.
IndexList saved_indices(const J& c) {
  IndexList idx;
  size_t k = 0;
  for (int64_t present : c.attrs<IndexAttrs>().has_index) {
    if (present)
      idx.emplace_back(*c.extras[k++]);
    else
      idx.emplace_back(std::nullopt);
  }
  return idx;
}
// `r` with the reduced dims (sorted) put back as size-1 dims.
Tensor unsqueeze_dims(Tensor r, const DimVector& dims, bool keepdim) {
  if (keepdim) return r;
  for (int64_t d : dims) r = unsqueeze(r, d);
  return r;
}
// A loss's elementwise tangent reduced as the loss (0 none, 1 mean, 2 sum).
Tensor reduce_loss(const Tensor& l, int64_t reduction) {
  if (reduction == 1) return mean(l, {}, false);
  if (reduction == 2) return sum(l, {}, false);
  return l;
}
// d(loss)/dx * tx + d(loss)/dy * ty for an elementwise loss of (x, y).
Tensor pair_tangent(const J& c, const Tensor& dx, const Tensor& dy) {
  Tensor out;
  if (c.has(0)) out = mul(dx, t(c, 0));
  if (c.has(1)) out = plus(out, mul(dy, t(c, 1)));
  return out;
}
bool is_missing_bound(const J& c, size_t i) {
  const Tensor& b = x(c, i);
  if (c.has(i) || b.dim() != 0) return false;
  Tensor v = contiguous(to_dtype(b, ScalarType::Float64));
  return std::isinf(v.data<double>()[0]);
}

}  // namespace

// prod of everything: sum of t times the product of the other elements
// (exact with zeros).
Tensor prod_all_jvp(const J& c) {
  Tensor flat = reshape(to_dtype(x(c), c.result.dtype()), {x(c).numel()});
  Tensor others = prod_others(flat, 0);
  return sum(mul(others, reshape(t(c), {x(c).numel()})), {}, false);
}
Tensor prod_dim_jvp(const J& c) {
  if (x(c).dim() == 0) return clone(t(c));
  const DimReduceAttrs& at = c.attrs<DimReduceAttrs>();
  Tensor others = prod_others(to_dtype(x(c), c.result.dtype()), at.dim);
  return sum(mul(others, t(c)), {at.dim}, at.keepdim, std::nullopt, true);
}
// amax/amin: the tangent shared evenly by the tied extreme elements.
Tensor amax_jvp(const J& c) {
  const ReduceAttrs& at = c.attrs<ReduceAttrs>();
  const DimVector& dims = at.dim;
  Tensor r = unsqueeze_dims(c.result, dims, at.keepdim || x(c).dim() == 0);
  Tensor hit = to_dtype(compare(Cmp::Eq, x(c), r), c.result.dtype());
  Tensor num = sum(mul(t(c), hit), dims, at.keepdim, std::nullopt, true);
  return div(num, sum(hit, dims, at.keepdim, std::nullopt, true));
}
// clamp(self, min, max) with tensor bounds: the tangent of whichever
// argument the result came from (a missing bound is an infinite constant).
Tensor clamp_tensor_jvp(const J& c) {
  const Tensor& s = x(c, 0);
  const bool no_min = is_missing_bound(c, 1), no_max = is_missing_bound(c, 2);
  Tensor ts = t_or_zero(c, 0), tl = t_or_zero(c, 1), th = t_or_zero(c, 2);
  if (no_max) return where(compare(Cmp::Gt, s, x(c, 1)), ts, tl);
  if (no_min) return where(compare(Cmp::Lt, s, x(c, 2)), ts, th);
  return where(
      compare(Cmp::Gt, x(c, 1), x(c, 2)), th,
      where(compare(Cmp::Lt, s, x(c, 1)), tl, where(compare(Cmp::Gt, s, x(c, 2)), th, ts)));
}
Tensor clamp_min_tensor_jvp(const J& c) {
  return where(compare(Cmp::Ge, x(c, 0), x(c, 1)), t_or_zero(c, 0), t_or_zero(c, 1));
}
Tensor clamp_max_tensor_jvp(const J& c) {
  return where(compare(Cmp::Le, x(c, 0), x(c, 1)), t_or_zero(c, 0), t_or_zero(c, 1));
}
Tensor masked_fill_tensor_jvp(const J& c) {
  return where(*c.extras[0], t_or_zero(c, 1), t_or_zero(c, 0));
}
Tensor index_jvp(const J& c) { return index(t(c), saved_indices(c)); }
// index_put / index_put_ / index_add_: the tangents put the same way.
Tensor index_put_jvp(const J& c) {
  return index_put(t_or_zero(c, 0), saved_indices(c), t_or_zero(c, 1),
                   c.attrs<IndexAttrs>().accumulate);
}
Tensor index_select_jvp(const J& c) {
  if (x(c).dim() == 0) return clone(t(c));
  return index_select(t(c), c.attrs<DimAttrs>().dim, *c.extras[0]);
}
Tensor scatter_jvp(const J& c) {
  return scatter(t_or_zero(c, 0), c.attrs<DimAttrs>().dim, *c.extras[0], t_or_zero(c, 1));
}
Tensor scatter_add_jvp(const J& c) {
  return scatter_add(t_or_zero(c, 0), c.attrs<DimAttrs>().dim, *c.extras[0], t_or_zero(c, 1));
}
Tensor scatter_value_jvp(const J& c) {
  return scatter(t(c), c.attrs<DimAttrs>().dim, *c.extras[0], Scalar(0.0));
}
// copy_ / fill_(tensor): the source's tangent (broadcast by the caller).
Tensor copy_into_jvp(const J& c) { return t_or_zero(c, 1); }
Tensor cumsum_jvp(const J& c) { return cumsum(t(c), c.attrs<DimAttrs>().dim, std::nullopt); }
// cumprod, exact with zeros: out_i = sum_{k<=i} t_k * prod_{j<=i, j!=k} x_j,
// from a cumprod of n copies of x (copy k with x_k set to 1); O(n^2) memory
// along the scanned dim.
Tensor cumprod_jvp(const J& c) {
  if (x(c).dim() == 0) return clone(t(c));
  const int64_t d = c.attrs<DimAttrs>().dim;
  const int64_t n = x(c).sizes()[static_cast<size_t>(d)];
  Tensor xm = transpose(to_dtype(x(c), c.result.dtype()), d, -1);
  Tensor tm = transpose(t(c), d, -1);
  DimVector square;
  for (int64_t j = 0; j + 1 < xm.dim(); ++j) square.push_back(xm.sizes()[static_cast<size_t>(j)]);
  square.push_back(n);
  square.push_back(n);
  Tensor ar = arange(Scalar(int64_t(0)), Scalar(n), Scalar(int64_t(1)), ScalarType::Int64);
  Tensor k = unsqueeze(ar, 1), i = unsqueeze(ar, 0);
  Tensor copies =
      where(compare(Cmp::Eq, k, i), ones({}, xm.dtype()), expand(unsqueeze(xm, -2), square));
  Tensor prods = cumprod(copies, -1, std::nullopt);
  Tensor terms = where(compare(Cmp::Le, k, i), mul(prods, unsqueeze(tm, -1)), zero_scalar(c));
  return transpose(sum(terms, {-2}, false, std::nullopt, true), d, -1);
}
// sort / topk: the tangent at the selected indices (extras[0]).
Tensor value_select_jvp(const J& c) {
  if (x(c).dim() == 0) return clone(t(c));
  return gather(t(c), c.attrs<DimAttrs>().dim, *c.extras[0]);
}
Tensor tril_jvp(const J& c) { return tril(t(c), c.attrs<TriangleAttrs>().diagonal, false); }
Tensor triu_jvp(const J& c) { return tril(t(c), c.attrs<TriangleAttrs>().diagonal, true); }
Tensor flip_jvp(const J& c) { return flip(t(c), c.attrs<DimsAttrs>().dims); }
Tensor roll_jvp(const J& c) {
  const RollAttrs& at = c.attrs<RollAttrs>();
  return roll(t(c), at.shifts, at.dims);
}
Tensor repeat_jvp(const J& c) { return repeat(t(c), c.attrs<RepeatAttrs>().repeats); }
Tensor logsumexp_jvp(const J& c) {
  const ReduceAttrs& at = c.attrs<ReduceAttrs>();
  const DimVector& dims = at.dim;
  Tensor r = unsqueeze_dims(c.result, dims, at.keepdim || x(c).dim() == 0);
  Tensor w = exp(sub(to_dtype(x(c), c.result.dtype()), r));
  return sum(mul(t(c), w), dims, at.keepdim, std::nullopt, true);
}

Tensor diagonal_copy_jvp(const J& c) {
  const DiagonalAttrs& at = c.attrs<DiagonalAttrs>();
  return diagonal(t(c), at.offset, at.dim1, at.dim2, true);
}
Tensor trace_jvp(const J& c) { return sum(diagonal(t(c), 0, 0, 1), {}, false); }
Tensor diag_embed_jvp(const J& c) {
  const DiagonalAttrs& at = c.attrs<DiagonalAttrs>();
  return diag_embed(t(c), at.offset, at.dim1, at.dim2);
}
// nan_to_num: the tangent times isfinite(x) (the replaced values are constants).
Tensor nan_to_num_jvp(const J& c) {
  Tensor finite = compare(Cmp::Lt, abs(x(c)), Scalar(std::numeric_limits<double>::infinity()));
  return mul(t(c), to_dtype(finite, c.result.dtype()));  // a NaN tangent stays NaN, as PyTorch's
}
// lerp(a, end, w) = a + w * (end - a)
Tensor lerp_scalar_jvp(const J& c) {
  Tensor ta = t_or_zero(c, 0);
  return add(ta, mul(sub(t_or_zero(c, 1), ta), c.attrs<LerpAttrs>().weight));
}
Tensor lerp_tensor_jvp(const J& c) {
  Tensor ta = t_or_zero(c, 0);
  Tensor out = add(ta, mul(x(c, 2), sub(t_or_zero(c, 1), ta)));
  if (c.has(2)) out = add(out, mul(t(c, 2), sub(x(c, 1), x(c, 0))));
  return out;
}
// linalg.vector_norm: sum(sign(x) |x|^(p-1) t) / norm^(p-1); inf-norms share
// the tangent evenly among the tied largest (smallest) |x|; a zero norm has a
// zero tangent, as PyTorch's.
Tensor vector_norm_jvp(const J& c) {
  const VectorNormAttrs& at = c.attrs<VectorNormAttrs>();
  const double p = at.ord;
  const DimVector& dims = at.dim;
  const bool keep = at.keepdim;
  if (p == 0) return zeros(c.result.sizes(), c.result.dtype());
  Tensor r = unsqueeze_dims(c.result, dims, keep || x(c).dim() == 0);
  Tensor sx = mul(sign(x(c)), t(c));
  Tensor out;
  if (std::isinf(p)) {
    Tensor hit = to_dtype(compare(Cmp::Eq, abs(x(c)), r), c.result.dtype());
    return div(sum(mul(sx, hit), dims, keep, std::nullopt, true),
               sum(hit, dims, keep, std::nullopt, true));
  }
  if (p == 1) return sum(sx, dims, keep, std::nullopt, true);
  if (p == 2) {
    out = div(sum(mul(x(c), t(c)), dims, keep, std::nullopt, true), c.result);
  } else {
    Tensor w = mul(sx, pow(abs(x(c)), Scalar(p - 1)));
    out = div(sum(w, dims, keep, std::nullopt, true), pow(c.result, Scalar(p - 1)));
  }
  return where(compare(Cmp::Eq, c.result, Scalar(0.0)), zero_scalar(c), out);
}
// addmv(self, mat, vec, beta, alpha) = beta * self + alpha * mat @ vec
Tensor addmv_jvp(const J& c) {
  Tensor prod;
  if (c.has(1)) prod = mv(t(c, 1), x(c, 2));
  if (c.has(2)) prod = plus(prod, mv(x(c, 1), t(c, 2)));
  const BetaAlphaAttrs& at = c.attrs<BetaAlphaAttrs>();
  if (prod.defined()) prod = mul(prod, at.alpha);
  Tensor self_part;
  if (c.has(0) && !at.beta.equals(0)) self_part = mul(t(c, 0), at.beta);
  return plus(self_part, prod);
}
// baddbmm(self, b1, b2, beta, alpha) = beta * self + alpha * b1 @ b2; the
// factors as PyTorch's maybe_multiply (skipped when 1, applied when 0).
Tensor baddbmm_jvp(const J& c) {
  auto scale = [](const Tensor& v, Scalar s) { return s.equals(1) ? v : mul(v, s); };
  Tensor prod;
  if (c.has(1)) prod = bmm(t(c, 1), x(c, 2));
  if (c.has(2)) prod = plus(prod, bmm(x(c, 1), t(c, 2)));
  const BetaAlphaAttrs& at = c.attrs<BetaAlphaAttrs>();
  if (prod.defined()) prod = scale(prod, at.alpha);
  return plus(c.has(0) ? scale(t(c, 0), at.beta) : Tensor(), prod);
}
Tensor cross_jvp(const J& c) {
  Tensor out;
  const int64_t d = c.attrs<DimAttrs>().dim;
  if (c.has(0)) out = cross(t(c, 0), x(c, 1), d);
  if (c.has(1)) out = plus(out, cross(x(c, 0), t(c, 1), d));
  return out;
}

// ---- losses ----------------------------------------------------------------------------------

Tensor mse_loss_jvp(const J& c) {
  Tensor d = mul(sub(x(c, 0), x(c, 1)), Scalar(2.0));
  return reduce_loss(pair_tangent(c, d, neg(d)), c.attrs<LossAttrs>().reduction);
}
// nll_loss: minus the (weighted) tangent at each target; mean divides by the
// total weight (extras: target, total_weight, weight if has_weight).
Tensor nll_loss_jvp(const J& c) {
  const Tensor& logp = x(c);
  const int64_t cdim = logp.dim() >= 2 ? 1 : 0;
  Tensor target = to_dtype(*c.extras[0], ScalarType::Int64);
  const LossAttrs& at = c.attrs<LossAttrs>();
  Tensor ignored = compare(Cmp::Eq, target, Scalar(at.ignore_index));
  Tensor safe = where(ignored, zeros({}, ScalarType::Int64), target);
  Tensor picked = squeeze(gather(t(c), cdim, unsqueeze(safe, cdim)), cdim);
  Tensor w = ones({}, c.result.dtype());
  if (at.has_weight) {
    Tensor flat = reshape(safe, {safe.numel()});
    w = reshape(index_select(to_dtype(*c.extras[2], c.result.dtype()), 0, flat), safe.sizes());
  }
  Tensor li = neg(mul(where(ignored, zero_scalar(c), w), picked));
  if (at.reduction == 0) return li;
  Tensor total = sum(li, {}, false);
  return at.reduction == 1 ? div(total, *c.extras[1]) : total;
}
Tensor bce_jvp(const J& c) {
  const Tensor& p = x(c, 0);
  const Tensor& y = x(c, 1);
  Tensor one_minus = rsub(p, Scalar(1.0));
  Tensor dx = div(sub(p, y), clamp_min(mul(one_minus, p), Scalar(1e-12)));
  Tensor dy = sub(clamp_min(log(one_minus), Scalar(-100.0)), clamp_min(log(p), Scalar(-100.0)));
  const LossAttrs& at = c.attrs<LossAttrs>();
  Tensor l = pair_tangent(c, dx, dy);
  if (at.has_weight) l = mul(l, *c.extras[0]);
  return reduce_loss(l, at.reduction);
}
Tensor bce_logits_jvp(const J& c) {
  const LossAttrs& at = c.attrs<LossAttrs>();
  const Tensor& z = x(c, 0);
  const Tensor& y = x(c, 1);
  const bool has_pw = at.has_pos_weight;
  Tensor s = sigmoid(z);
  Tensor dx = sub(s, y), dy = neg(z);
  if (has_pw) {
    const Tensor& pw = *c.extras[at.has_weight ? 1 : 0];
    Tensor pw1 = sub(pw, Scalar(1.0));
    dx = sub(mul(add(mul(pw1, y), Scalar(1.0)), s), mul(pw, y));
    dy = sub(dy, mul(pw1, activation(kernels::nn::Act::LogSigmoid, z, {})));
  }
  Tensor l = pair_tangent(c, dx, dy);
  if (at.has_weight) l = mul(l, *c.extras[0]);
  return reduce_loss(l, at.reduction);
}
namespace {
Tensor robust_loss_jvp(const J& c, bool huber) {
  const LossAttrs& at = c.attrs<LossAttrs>();
  const double param = huber ? at.delta : at.beta;
  Tensor d = sub(x(c, 0), x(c, 1));
  Tensor gd;
  if (huber) {
    gd = where(compare(Cmp::Le, abs(d), Scalar(param)), d, mul(sign(d), Scalar(param)));
  } else if (param == 0) {
    gd = sign(d);
  } else {
    gd = where(compare(Cmp::Lt, abs(d), Scalar(param)), div(d, Scalar(param)), sign(d));
  }
  return reduce_loss(pair_tangent(c, gd, neg(gd)), at.reduction);
}
}  // namespace
Tensor smooth_l1_jvp(const J& c) { return robust_loss_jvp(c, false); }
Tensor huber_jvp(const J& c) { return robust_loss_jvp(c, true); }

// ---- layers ----------------------------------------------------------------------------------

// layer_norm / group_norm (x read as (n, c, l) in groups: NOTE [One layout
// for three norms]): rstd * (t - mean(t) - xhat * mean(t * xhat)) per row,
// times the weight, plus xhat times the weight's tangent and the bias's.
Tensor norm_jvp(const J& c) {
  const NormAttrs& at = c.attrs<NormAttrs>();
  const int64_t n = at.n, ch = at.c, l = at.l, groups = at.groups;
  const int64_t rows = n * groups, k = groups ? ch / groups * l : 0;
  Tensor xb = reshape(x(c), {rows, k});
  Tensor mu = mean(xb, {1}, true, std::nullopt, true);
  Tensor d = sub(xb, mu);
  Tensor rstd = rsqrt(add(mean(mul(d, d), {1}, true, std::nullopt, true), Scalar(at.eps)));
  Tensor xhat = mul(d, rstd);
  const DimVector wshape{1, ch, 1};
  Tensor out;
  if (c.has(0)) {
    Tensor tb = reshape(t(c), {rows, k});
    Tensor inner = sub(sub(tb, mean(tb, {1}, true, std::nullopt, true)),
                       mul(xhat, mean(mul(tb, xhat), {1}, true, std::nullopt, true)));
    out = reshape(mul(rstd, inner), {n, ch, l});
    if (at.has_weight) out = mul(out, reshape(x(c, 1), wshape));
  }
  if (at.has_weight && c.has(1))
    out = plus(out, mul(reshape(xhat, {n, ch, l}), reshape(t(c, 1), wshape)));
  if (c.has(2) && x(c, 2).dim() > 0) {
    Tensor tb = expand(reshape(t(c, 2), wshape), {n, ch, l});
    out = plus(out, tb);
  }
  return out.defined() ? reshape(out, c.result.sizes()) : Tensor();
}
// batch_norm (x read as (n, c, l)): in training the statistics over (N, L)
// move with x, as layer_norm's over a row; in eval the running statistics
// (extras) are constants.
Tensor batch_norm_jvp(const J& c) {
  const NormAttrs& at = c.attrs<NormAttrs>();
  const int64_t n = at.n, ch = at.c, l = at.l;
  const DimVector wshape{1, ch, 1};
  Tensor xa = reshape(x(c), {n, ch, l});
  Tensor mu, rstd;
  const bool training = at.training || c.extras.size() < 2 || !c.extras[0] || !c.extras[1];
  if (training) {
    mu = mean(xa, {0, 2}, true, std::nullopt, true);
    Tensor d = sub(xa, mu);
    rstd = rsqrt(add(mean(mul(d, d), {0, 2}, true, std::nullopt, true), Scalar(at.eps)));
  } else {
    mu = reshape(to_dtype(*c.extras[0], x(c).dtype()), wshape);
    rstd = reshape(rsqrt(add(to_dtype(*c.extras[1], x(c).dtype()), Scalar(at.eps))), wshape);
  }
  Tensor xhat = mul(sub(xa, mu), rstd);
  Tensor out;
  if (c.has(0)) {
    Tensor ta = reshape(t(c), {n, ch, l});
    if (training) {
      out = mul(rstd, sub(sub(ta, mean(ta, {0, 2}, true, std::nullopt, true)),
                          mul(xhat, mean(mul(ta, xhat), {0, 2}, true, std::nullopt, true))));
    } else {
      out = mul(ta, rstd);
    }
    if (at.has_weight) out = mul(out, reshape(x(c, 1), wshape));
  }
  if (at.has_weight && c.has(1)) out = plus(out, mul(xhat, reshape(t(c, 1), wshape)));
  if (c.has(2) && x(c, 2).dim() > 0) out = plus(out, expand(reshape(t(c, 2), wshape), {n, ch, l}));
  return out.defined() ? reshape(out, c.result.sizes()) : Tensor();
}
// embedding: the tangent's rows at the indices (extras[0]).
Tensor embedding_jvp(const J& c) {
  Tensor idx = to_dtype(*c.extras[0], ScalarType::Int64);
  return reshape(index_select(t(c), 0, reshape(idx, {idx.numel()})), c.result.sizes());
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

}  // namespace gradtrack::autograd::jvp
