// Layers: softmax, activations, norms, embedding and losses.
// The backward formulas of their nodes and, beside them, the forward-mode
// formulas that are not derived from a backward. The rows naming them are
// python/gradtrack/_declarations/nn.py (NOTE [One declaration per op]).
#include <algorithm>

#include "autograd/profiling.h"
#include "autograd/formulas/common.h"
#include "kernels/nn/norm.h"
#include "kernels/reduced_float.h"
#include "ops/nn/nn.h"

namespace gradtrack::autograd::formulas {

using kernels::nn::Act;
using kernels::nn::ActParams;
TL log_softmax_bw(const C& c, const TL& g) {
  return {log_softmax_backward(g[0], c.result(), c.attrs<DimAttrs>().dim)};
}
TL softmax_bw(const C& c, const TL& g) {
  return {softmax_backward(g[0], c.result(), c.attrs<DimAttrs>().dim)};
}

namespace {
// The backward ops' own gradients (inputs: the incoming gradient go, the
// forward result y), PyTorch's softmax_double_backward and its log form.
Tensor sum_keepdim(const Tensor& t, int64_t dim) { return sum(t, {dim}, true, std::nullopt, true); }

}  // namespace
TL softmax_data_bw(const C& c, const TL& g) {
  const Tensor &go = c.saved_input(0), &y = c.saved_input(1);
  const int64_t d = c.attrs<DimAttrs>().dim;
  TL out(2);
  if (c.needs(0)) out[0] = softmax_backward(g[0], y, d);
  if (c.needs(1)) {
    out[1] = sub(sub(mul(go, g[0]), mul(sum_keepdim(mul(y, go), d), g[0])),
                 mul(go, sum_keepdim(mul(y, g[0]), d)));
  }
  return out;
}
TL log_softmax_data_bw(const C& c, const TL& g) {
  const Tensor &go = c.saved_input(0), &y = c.saved_input(1);
  const int64_t d = c.attrs<DimAttrs>().dim;
  TL out(2);
  if (c.needs(0)) out[0] = sub(g[0], sum_keepdim(mul(g[0], exp(y)), d));
  if (c.needs(1)) out[1] = mul(mul(neg(sum_keepdim(go, d)), exp(y)), g[0]);
  return out;
}

namespace {
// NOTE [nll_loss backward checks what it saved]
// The target and weight are saved as the user's tensors, not copies: a
// numpy label array shared through from_numpy, or `.data` replaced, changes
// them between forward and backward without a version bump. Backward so
// re-checks, as PyTorch's does, everything it indexes with: the target's
// rank, length and dtype, the weight's length and dtype, and each label's
// range (PyTorch leaves the last unchecked for reduction='none' and writes
// out of bounds; here it raises the same IndexError as the other
// reductions).
void check_nll_saved(const GradMeta& in, const Tensor& target, const Tensor* weight) {
  const int64_t nd = static_cast<int64_t>(in.shape.size());
  GT_CHECK(target.dim() <= 1, "0D or 1D target tensor expected, multi-target not supported");
  if (!(nd == 1 && target.dim() == 0)) {
    GT_CHECK_INDEX(target.dim() > 0, "Dimension specified as 0 but tensor has no dimensions");
    GT_CHECK(in.shape[0] == target.sizes()[0], "size mismatch (got input: ", shape_str(in.shape),
             ", target: ", shape_str(target.sizes()), ")");
  }
  GT_CHECK(!weight || weight->numel() == in.shape.back(),
           "weight tensor should be defined either for all or no classes");
  GT_CHECK(target.dtype() == ScalarType::Int64 || target.dtype() == ScalarType::UInt8,
           "expected scalar type Long but found ", scalar_type_name(target.dtype()));
  GT_CHECK(!weight || weight->dtype() == in.dtype, "expected scalar type ",
           scalar_type_name(in.dtype), " but found ", scalar_type_name(weight->dtype()));
}

// The gradient where `at_target` holds and +0 elsewhere. PyTorch writes only the
// target entries into zeros, so an incoming NaN or inf reaches those entries alone;
// coef * g would carry it into every entry (0 * NaN). A `where`, so that the result
// stays differentiable in g.
Tensor only_at_targets(const Tensor& at_target, const Tensor& grad) {
  return where(at_target, grad, scalar_tensor(Scalar(0.0), grad.dtype()));
}

}  // namespace
TL nll_loss_bw(const C& c, const TL& g) {
  // d loss / d logp is -w[t] / denom at each row's target: a constant
  // coefficient tensor, times the incoming gradient (linear, so any order).
  const LossAttrs& at = c.attrs<LossAttrs>();
  const Tensor& target = c.extra(0);
  const Tensor& total_weight = c.extra(1);
  const GradMeta& in = c.input(0);
  profiling::Scope scope("aten::nll_loss_backward", [&] {
    std::vector<std::vector<int64_t>> shapes{{g[0].sizes().begin(), g[0].sizes().end()},
                                             {in.shape.begin(), in.shape.end()},
                                             {target.sizes().begin(), target.sizes().end()}};
    shapes.resize(7);
    return shapes;
  });
  check_nll_saved(in, target, at.has_weight ? &c.extra(2) : nullptr);
  const bool batched = in.shape.size() == 2;
  const int64_t n = batched ? in.shape[0] : 1, cls = in.shape.back();
  // float16 / bfloat16: the coefficients in float, rounded once
  const ScalarType cdt = is_reduced_float(in.dtype) ? ScalarType::Float32 : in.dtype;
  Tensor coef = zeros(in.shape, cdt);
  Tensor at_target = zeros(in.shape, ScalarType::Bool);
  Tensor tg = kernels::aligned(contiguous(to_dtype(target, ScalarType::Int64)));
  Tensor w = at.has_weight ? kernels::aligned(contiguous(kernels::widen(c.extra(2)))) : Tensor();
  const Tensor tw = kernels::widen(total_weight);
  GT_DISPATCH_FLOAT(cdt, "nll_loss_backward", [&] {
    scalar_t* p = coef.data<scalar_t>();
    bool* hit = at_target.data<bool>();
    const int64_t* t = tg.data<int64_t>();
    double denom = at.reduction == 1 ? double(kernels::load<scalar_t>(tw.raw())) : 1.0;
    for (int64_t i = 0; i < n; ++i) {
      if (t[i] == at.ignore_index) continue;
      GT_CHECK_INDEX(t[i] >= 0 && t[i] < cls, "Target ", t[i], " is out of bounds.");
      double wi = at.has_weight ? double(w.data<scalar_t>()[t[i]]) : 1.0;
      p[i * cls + t[i]] = static_cast<scalar_t>(-wi / denom);
      hit[i * cls + t[i]] = true;
    }
  });
  if (cdt != in.dtype) coef = kernels::narrowed(coef, in.dtype);
  Tensor gg = (at.reduction == 0 && batched) ? unsqueeze(g[0], 1) : g[0];
  return {only_at_targets(at_target, mul(coef, gg))};
}
TL nll_loss2d_bw(const C& c, const TL& g) {
  // As nll_loss_bw, over (N, C, H, W): -w[t] / denom at each pixel's target class.
  const LossAttrs& at = c.attrs<LossAttrs>();
  const GradMeta& in = c.input(0);
  const int64_t n = in.shape[0], cls = in.shape[1], plane = in.shape[2] * in.shape[3];
  const ScalarType cdt = is_reduced_float(in.dtype) ? ScalarType::Float32 : in.dtype;
  Tensor coef = zeros(in.shape, cdt);
  Tensor at_target = zeros(in.shape, ScalarType::Bool);
  Tensor tg = kernels::aligned(contiguous(to_dtype(c.extra(0), ScalarType::Int64)));
  GT_CHECK(tg.numel() == n * plane, "size mismatch (got input: ", shape_str(in.shape),
           " , target: ", shape_str(tg.sizes()));
  Tensor w = at.has_weight ? kernels::aligned(contiguous(kernels::widen(c.extra(2)))) : Tensor();
  const Tensor tw = kernels::widen(c.extra(1));
  GT_DISPATCH_FLOAT(cdt, "nll_loss2d_backward", [&] {
    scalar_t* p = coef.data<scalar_t>();
    bool* hit = at_target.data<bool>();
    const int64_t* t = tg.data<int64_t>();
    double denom = at.reduction == 1 ? double(kernels::load<scalar_t>(tw.raw())) : 1.0;
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t s = 0; s < plane; ++s) {
        const int64_t k = t[b * plane + s];
        if (k == at.ignore_index) continue;
        GT_CHECK_INDEX(k >= 0 && k < cls, "Target ", k, " is out of bounds.");
        double wk = at.has_weight ? double(w.data<scalar_t>()[k]) : 1.0;
        p[(b * cls + k) * plane + s] = static_cast<scalar_t>(-wk / denom);
        hit[(b * cls + k) * plane + s] = true;
      }
    }
  });
  if (cdt != in.dtype) coef = kernels::narrowed(coef, in.dtype);
  Tensor gg = at.reduction == 0 ? unsqueeze(g[0], 1) : g[0];
  return {only_at_targets(at_target, mul(coef, gg))};
}
TL mse_loss_bw(const C& c, const TL& g) {
  const LossAttrs& at = c.attrs<LossAttrs>();
  Tensor d = sub(c.saved_input(0), c.saved_input(1));
  double k =
      at.reduction == 1 ? 2.0 / double(std::max<int64_t>(numel_of(c.input(0).shape), 1)) : 2.0;
  Tensor ga = mul(mul(d, Scalar(k)), g[0]);
  return {c.needs(0) ? ga : Tensor(), c.needs(1) ? neg(ga) : Tensor()};
}

namespace {
constexpr double kSqrt1_2 = 0.70710678118654752440;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;
constexpr double kSqrt2OverPi = 0.79788456080286535588;
constexpr double kKappa = 0.044715;
Tensor cst(double v, const Tensor& like) { return scalar_tensor(Scalar(v), like.dtype()); }
Tensor cmp(Cmp op, const Tensor& t, double v) { return compare(op, t, Scalar(v)); }
Tensor gelu_deriv(const Tensor& x) {
  Tensor cdf = times(plus(erf(times(x, kSqrt1_2)), 1.0), 0.5);
  Tensor pdf = times(exp(times(mul(x, x), -0.5)), kInvSqrt2Pi);
  return add(cdf, mul(x, pdf));
}
Tensor gelu_tanh_deriv(const Tensor& x) {
  Tensor x2 = mul(x, x);
  Tensor t = tanh(times(add(x, times(mul(x2, x), kKappa)), kSqrt2OverPi));
  Tensor inner_d = times(plus(times(x2, 3 * kKappa), 1.0), kSqrt2OverPi);
  return add(times(plus(t, 1.0), 0.5), mul(times(x, 0.5), mul(one_minus(mul(t, t)), inner_d)));
}
// act'(s) from differentiable ops; s is the input, or the result for the
// in-place rows (leaky_relu_, elu_, hardtanh_).
Tensor act_deriv_graph(Act k, const Tensor& s, const ActParams& p, bool from_result) {
  switch (k) {
    case Act::Gelu: return gelu_deriv(s);
    case Act::GeluTanh: return gelu_tanh_deriv(s);
    case Act::Silu: {
      Tensor sg = sigmoid(s);
      return mul(sg, plus(mul(s, one_minus(sg)), 1.0));
    }
    case Act::LeakyRelu: return where(cmp(Cmp::Gt, s, 0), flat(s, 1), cst(p.a, s));
    case Act::Elu:
    case Act::Celu: {
      // NOTE [Where a second derivative stops]
      // torch's first derivatives take a piece's formula on its boundary (ELU's
      // exponential at 0, softplus's sigmoid at the threshold), but its second
      // derivatives mask with a strict inequality: 0 on the boundary. So the
      // boundary value here is the same number without a graph.
      const Tensor negative =
          from_result ? times(plus(s, p.a * p.b), p.c) : times(exp(times(s, p.c)), p.c * p.a * p.b);
      return where(cmp(Cmp::Le, s, 0), where(cmp(Cmp::Lt, s, 0), negative, cst(p.a * p.b * p.c, s)),
                   cst(p.b, s));
    }
    case Act::Softplus: {
      const Tensor scaled = times(s, p.a), sg = sigmoid(scaled);
      return where(cmp(Cmp::Gt, scaled, p.b), cst(1, s),
                   where(cmp(Cmp::Lt, scaled, p.b), sg, detach(sg)));
    }
    case Act::Hardtanh:
      return where(logical(Logic::Or, cmp(Cmp::Le, s, p.a), cmp(Cmp::Ge, s, p.b)), cst(0, s),
                   flat(s, 1));
    case Act::Mish: {
      Tensor t = tanh(activation(Act::Softplus, s, {1.0, 20.0, 0.0}));
      return add(t, mul(mul(s, sigmoid(s)), one_minus(mul(t, t))));
    }
    case Act::Hardswish:
      // torch's pieces: 0 up to -3 included, 1 from 3 on
      return where(cmp(Cmp::Le, s, -3), cst(0, s),
                   where(cmp(Cmp::Lt, s, 3), plus(div_by_scalar(s, Scalar(3.0)), 0.5), cst(1, s)));
    case Act::Hardsigmoid:
      // torch's slope is 1/6 computed in float, for double too
      return where(logical(Logic::And, cmp(Cmp::Gt, s, -3), cmp(Cmp::Lt, s, 3)),
                   cst(static_cast<double>(1.0f / 6.0f), s), cst(0, s));
    case Act::LogSigmoid: return sigmoid(neg(s));
  }
  return s;
}
// The mean gradient spreads g over the n elements.
Tensor loss_grad(const Tensor& g, int64_t reduction, int64_t n) {
  return reduction == 1 ? div_by_scalar(g, Scalar(n)) : g;
}
int64_t numel_of_meta(const GradMeta& m) {
  int64_t n = 1;
  for (int64_t v : m.shape) n *= v;
  return n;
}
Tensor dense(const Tensor& t) { return kernels::aligned(contiguous(t)); }
// layer_norm (one group, L = 1) without a graph: one pass for dx and one for
// dw and db, from the saved statistics (kernels/nn/norm.cpp).
TL layer_norm_fused_bw(const C& c, const Tensor& g, int64_t rows, int64_t cols) {
  const Tensor& x = c.saved_input(0);
  // dw and db in the parameters' dtypes (float32 beside a reduced input: NOTE [Reduced norms])
  Tensor dx = c.needs(0) ? empty(x.sizes(), x.dtype()) : Tensor();
  Tensor dw = c.needs(1) ? empty({cols}, c.input(1).dtype) : Tensor();
  Tensor db = c.needs(2) ? empty({cols}, c.input(2).dtype) : Tensor();
  Tensor w = c.attrs<NormAttrs>().has_weight && c.needs(0) ? dense(c.saved_input(1)) : Tensor();
  // The gradient of y.sum() is one number broadcast: read in place, not copied.
  bool broadcast = g.is_aligned();
  for (int64_t s : g.strides()) broadcast = broadcast && s == 0;
  const Tensor gd = broadcast ? g : dense(g);
  const int64_t g_stride[2] = {broadcast ? 0 : cols, broadcast ? 0 : 1};
  kernels::nn::layer_norm_backward(gd, g_stride, dense(x), c.extra(0), c.extra(1), w, rows, cols,
                                   dx, dw, db);
  return {dx, dw.defined() ? reshape(dw, c.input(1).shape) : Tensor(),
          db.defined() ? reshape(db, c.input(2).shape) : Tensor()};
}
// batch_norm without a graph: per channel, one pass for the sums and one for
// dx, from the saved statistics (kernels/nn/norm.cpp).
TL batch_norm_fused_bw(const C& c, const Tensor& g) {
  const NormAttrs& at = c.attrs<NormAttrs>();
  const int64_t n = at.n, ch = at.c, l = at.l;
  const bool training = at.training;
  const Tensor& x = c.saved_input(0);
  Tensor mean = c.extra(0), rstd = c.extra(1);
  if (!training) {  // the running statistics: rstd from the running variance
    mean = dense(to_dtype(mean, x.dtype()));
    rstd = dense(rsqrt(plus(to_dtype(rstd, x.dtype()), at.eps)));
  }
  Tensor dx = c.needs(0) ? empty(x.sizes(), x.dtype()) : Tensor();
  Tensor dw = c.needs(1) ? empty({ch}, c.input(1).dtype) : Tensor();
  Tensor db = c.needs(2) ? empty({ch}, c.input(2).dtype) : Tensor();
  Tensor w = at.has_weight && c.needs(0) ? dense(c.saved_input(1)) : Tensor();
  kernels::nn::batch_norm_backward(dense(g), dense(x), mean, rstd, w, n, ch, l, training, dx, dw,
                                   db);
  return {dx, dw.defined() ? reshape(dw, c.input(1).shape) : Tensor(),
          db.defined() ? reshape(db, c.input(2).shape) : Tensor()};
}

}  // namespace
TL activation_bw(const C& c, const TL& g) {
  const ActivationAttrs& at = c.attrs<ActivationAttrs>();
  const Act k = at.act;
  const ActParams& p = at.params;
  const Tensor& s = at.from_result ? c.result() : c.saved_input(0);
  // From the result alone the input's sign is lost when the slope flips it.
  GT_CHECK(!(at.from_result && k == Act::LeakyRelu && p.a < 0),
           "In-place leakyReLu backward calculation is triggered with a negative slope which is "
           "not supported. This is caused by calling in-place forward function with a negative "
           "slope, please call out-of-place version instead. File an issue at "
           "https://github.com/pytorch/pytorch if you do require supporting in-place leakRelu "
           "backward calculation with negative slope");
  GT_CHECK(!(at.from_result && (k == Act::Elu || k == Act::Celu) && p.a < 0),
           "In-place elu backward calculation is triggered with a negative slope which is not "
           "supported. This is caused by calling in-place forward function with a negative "
           "slope, please call out-of-place version instead.");
  if (!GradMode::is_enabled()) return {activation_backward_fused(k, g[0], s, p, at.from_result)};
  Tensor d = act_deriv_graph(k, s, p, at.from_result);
  Tensor gx = mul(g[0], d);
  // torch's kernels select a zero (not g * 0, NaN for an infinite g) where the
  // derivative is a zero constant; hardswish's linear piece also crosses zero
  // (at -1.5), where g * 0 and its graph stay.
  if (k == Act::Hardswish)
    gx = where(cmp(Cmp::Le, s, -3), cst(0, gx), gx);
  else if (kernels::nn::selects_zero_gradient(k))
    gx = where(cmp(Cmp::Eq, d, 0), cst(0, gx), gx);
  return {gx};
}
// layer_norm and group_norm (NOTE [One layout for three norms]): stats per
// row of x read as (N * G, C / G * L).
TL group_norm_bw(const C& c, const TL& g) {
  const NormAttrs& at = c.attrs<NormAttrs>();
  const int64_t n = at.n, ch = at.c, l = at.l, groups = at.groups;
  const int64_t rows = n * groups, k = groups ? ch / groups * l : 0;
  const bool x_saved = c.needs(0) || c.needs(1);
  if (x_saved && !GradMode::is_enabled() && groups == 1 && l == 1 &&
      g[0].dtype() == c.input(0).dtype)
    return layer_norm_fused_bw(c, g[0], rows, k);
  TL out(3);
  if (c.needs(2))  // summed in the bias's dtype: float32 beside a reduced g (NOTE [Reduced norms])
    out[2] = reshape(sum(reshape(g[0], {n, ch, l}), {0, 2}, false, c.input(2).dtype, true),
                     c.input(2).shape);
  if (!x_saved) return out;
  Tensor xb = reshape(c.saved_input(0), {rows, k});
  Tensor mu, rstd;
  if (GradMode::is_enabled()) {
    // The statistics again, from ops: their dependence on x is part of the
    // second derivative.
    mu = mean(xb, {1}, true, std::nullopt, true);
    Tensor d = sub(xb, mu);
    rstd = rsqrt(plus(mean(mul(d, d), {1}, true, std::nullopt, true), at.eps));
  } else {
    mu = reshape(c.extra(0), {rows, 1});
    rstd = reshape(c.extra(1), {rows, 1});
  }
  Tensor xhat = mul(sub(xb, mu), rstd);
  Tensor ga = reshape(g[0], {n, ch, l});
  if (c.needs(0)) {
    Tensor gw = at.has_weight ? mul(ga, reshape(c.saved_input(1), {1, ch, 1})) : ga;
    Tensor gb = reshape(gw, {rows, k});
    Tensor inner = sub(sub(gb, mean(gb, {1}, true, std::nullopt, true)),
                       mul(xhat, mean(mul(gb, xhat), {1}, true, std::nullopt, true)));
    out[0] = reshape(mul(rstd, inner), c.input(0).shape);
  }
  if (c.needs(1))
    out[1] = reshape(sum(mul(ga, reshape(xhat, {n, ch, l})), {0, 2}, false, std::nullopt, true),
                     c.input(1).shape);
  return out;
}
TL batch_norm_bw(const C& c, const TL& g) {
  const NormAttrs& at = c.attrs<NormAttrs>();
  const int64_t n = at.n, ch = at.c, l = at.l;
  const bool training = at.training;
  if ((c.needs(0) || c.needs(1)) && !GradMode::is_enabled() && g[0].dtype() == c.input(0).dtype)
    return batch_norm_fused_bw(c, g[0]);
  TL out(3);
  if (c.needs(2))
    out[2] = reshape(sum(reshape(g[0], {n, ch, l}), {0, 2}, false, std::nullopt, true),
                     c.input(2).shape);
  if (!c.needs(0) && !c.needs(1)) return out;  // x was not saved
  const Tensor& x = c.saved_input(0);
  Tensor xa = reshape(x, {n, ch, l});
  Tensor mu, rstd;
  if (training && GradMode::is_enabled()) {
    mu = mean(xa, {0, 2}, true, std::nullopt, true);
    Tensor d = sub(xa, mu);
    rstd = rsqrt(plus(mean(mul(d, d), {0, 2}, true, std::nullopt, true), at.eps));
  } else if (training) {
    mu = reshape(c.extra(0), {1, ch, 1});
    rstd = reshape(c.extra(1), {1, ch, 1});
  } else {
    // The running statistics are constants of the graph.
    mu = reshape(to_dtype(c.extra(0), x.dtype()), {1, ch, 1});
    rstd = reshape(rsqrt(plus(to_dtype(c.extra(1), x.dtype()), at.eps)), {1, ch, 1});
  }
  Tensor xhat = mul(sub(xa, mu), rstd);
  Tensor ga = reshape(g[0], {n, ch, l});
  if (c.needs(0)) {
    Tensor gw = at.has_weight ? mul(ga, reshape(c.saved_input(1), {1, ch, 1})) : ga;
    Tensor dx;
    if (training) {
      dx = mul(rstd, sub(sub(gw, mean(gw, {0, 2}, true, std::nullopt, true)),
                         mul(xhat, mean(mul(gw, xhat), {0, 2}, true, std::nullopt, true))));
    } else {
      dx = mul(gw, rstd);
    }
    out[0] = reshape(dx, c.input(0).shape);
  }
  if (c.needs(1))
    out[1] = reshape(sum(mul(ga, xhat), {0, 2}, false, std::nullopt, true), c.input(1).shape);
  return out;
}
TL embedding_bw(const C& c, const TL& g) {
  const EmbeddingAttrs& at = c.attrs<EmbeddingAttrs>();
  const GradMeta& w = c.input(0);
  Tensor idx = to_dtype(c.extra(0), ScalarType::Int64);
  idx = reshape(idx, {idx.numel()});
  Tensor g2 = reshape(g[0], {idx.numel(), w.shape[1]});
  if (at.padding_idx >= 0) {
    // The padding row gets no gradient.
    Tensor keep = unsqueeze(compare(Cmp::Ne, idx, Scalar(at.padding_idx)), 1);
    g2 = where(keep, g2, zeros({}, g2.dtype()));
  }
  if (at.scale_grad_by_freq) {
    // Each row's gradient divided by the number of times the row was used.
    Tensor counts = zeros({w.shape[0]}, g2.dtype());
    counts = inplace_index_add(counts, 0, idx, ones({idx.numel()}, g2.dtype()));
    g2 = div(g2, unsqueeze(index_select(counts, 0, idx), 1));
  }
  Tensor out = zeros(w.shape, g2.dtype());
  return {inplace_index_add(out, 0, idx, g2)};
}
TL bce_bw(const C& c, const TL& g) {
  const LossAttrs& at = c.attrs<LossAttrs>();
  const Tensor& x = c.saved_input(0);
  const Tensor& y = c.saved_input(1);
  Tensor gg = loss_grad(g[0], at.reduction, numel_of_meta(c.input(0)));
  if (at.has_weight) gg = mul(gg, c.extra(0));
  TL out(2);
  if (c.needs(0)) out[0] = mul(gg, div(sub(x, y), clamp_min(mul(one_minus(x), x), Scalar(1e-12))));
  if (c.needs(1))
    out[1] = mul(
        gg, sub(clamp_min(log(one_minus(x)), Scalar(-100.0)), clamp_min(log(x), Scalar(-100.0))));
  return out;
}
TL bce_logits_bw(const C& c, const TL& g) {
  const LossAttrs& at = c.attrs<LossAttrs>();
  const Tensor& x = c.saved_input(0);
  const Tensor& y = c.saved_input(1);
  Tensor gg = loss_grad(g[0], at.reduction, numel_of_meta(c.input(0)));
  if (at.has_weight) gg = mul(gg, c.extra(0));
  const bool has_pw = at.has_pos_weight;
  const Tensor pw = has_pw ? c.extra(at.has_weight ? 1 : 0) : Tensor();
  TL out(2);
  if (c.needs(0)) {
    Tensor s = sigmoid(x);
    Tensor d =
        has_pw ? sub(mul(plus(mul(sub(pw, Scalar(1.0)), y), 1.0), s), mul(pw, y)) : sub(s, y);
    out[0] = mul(gg, d);
  }
  if (c.needs(1)) {
    Tensor d = neg(x);
    if (has_pw) d = sub(d, mul(sub(pw, Scalar(1.0)), activation(Act::LogSigmoid, x, {})));
    out[1] = mul(gg, d);
  }
  return out;
}

namespace {
TL robust_loss_bw(const C& c, const TL& g, bool huber) {
  const LossAttrs& at = c.attrs<LossAttrs>();
  const double param = huber ? at.delta : at.beta;
  Tensor d = sub(c.saved_input(0), c.saved_input(1));
  Tensor gd;
  if (huber) {
    // |d| == delta takes the linear piece, the same number (NOTE [Where a second
    // derivative stops])
    gd = where(cmp(Cmp::Lt, abs(d), param), d, times(sign(d), param));
  } else if (param == 0) {
    gd = sign(d);
  } else {
    gd = where(cmp(Cmp::Lt, abs(d), param), div_by_scalar(d, Scalar(param)), sign(d));
  }
  Tensor gx = mul(loss_grad(g[0], at.reduction, numel_of_meta(c.input(0))), gd);
  return {c.needs(0) ? gx : Tensor(), c.needs(1) ? neg(gx) : Tensor()};
}

}  // namespace
TL smooth_l1_bw(const C& c, const TL& g) { return robust_loss_bw(c, g, false); }
TL huber_bw(const C& c, const TL& g) { return robust_loss_bw(c, g, true); }
// Forward mode: t * act'(x); the in-place rows read the result, as their
// backward does.
Tensor activation_jvp(const JvpCtx& c) {
  const ActivationAttrs& at = c.attrs<ActivationAttrs>();
  const Tensor& s = at.from_result ? c.result : c.primals[0];
  return mul(c.tangents[0], act_deriv_graph(at.act, s, at.params, at.from_result));
}
Tensor softmax_jvp(const J& c) {
  Tensor rt = mul(c.result, t(c));
  return sub(rt, mul(c.result, sum(rt, {c.attrs<DimAttrs>().dim}, true, std::nullopt, true)));
}
Tensor log_softmax_jvp(const J& c) {
  Tensor p = exp(c.result);
  return sub(t(c), sum(mul(p, t(c)), {c.attrs<DimAttrs>().dim}, true, std::nullopt, true));
}

namespace {
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

}  // namespace
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

}  // namespace gradtrack::autograd::formulas
