// The forward-mode derivatives (NOTE [Forward-mode AD]): each returns the
// result's tangent from the inputs' tangents, written with ops so that a
// tangent that requires grad stays differentiable. forward_ad::propagate fits
// the returned tangent to the result's shape, dtype and strides.
#include "autograd/jvp_formulas.h"

#include <cmath>

#include "kernels/kernels.h"
#include "ops/ops.h"

namespace gradtrack::autograd::jvp {

Tensor args::t_or_zero(const JvpCtx& c, size_t i) {
  return c.has(i) ? c.tangents[i] : ops::zeros(x(c, i).sizes(), c.result.dtype());
}
Tensor args::plus(const Tensor& a, const Tensor& b) {
  if (!a.defined()) return b;
  if (!b.defined()) return a;
  return ops::add(a, b);
}

namespace {

using namespace ::gradtrack::ops;  // NOLINT: the formulas read as math
using J = JvpCtx;

using namespace args;  // NOLINT: x(c), t(c) as in the other formulas
// Tangent i times `f`, when input i has a tangent.
template <typename F>
Tensor term(const J& c, size_t i, const F& f) {
  return c.has(i) ? f(t(c, i)) : Tensor();
}
Tensor zero_scalar(const J& c) { return zeros({}, c.result.dtype()); }
Tensor mask_where(const Tensor& cond, const Tensor& v, const J& c) {
  return where(cond, v, zero_scalar(c));
}

}  // namespace

Tensor identity_jvp(const J& c) { return clone(t(c)); }
Tensor add_jvp(const J& c) {
  return plus(term(c, 0, [](const Tensor& a) { return a; }),
              term(c, 1, [&](const Tensor& b) { return mul(b, c.attrs<AlphaAttrs>().alpha); }));
}
Tensor add_scalar_jvp(const J& c) { return clone(t(c)); }
Tensor sub_jvp(const J& c) {
  return plus(term(c, 0, [](const Tensor& a) { return a; }), term(c, 1, [&](const Tensor& b) {
                return mul(neg(b), c.attrs<AlphaAttrs>().alpha);
              }));
}
// rsub(a, b, alpha) = b - alpha * a
Tensor rsub_jvp(const J& c) {
  return plus(term(c, 0, [&](const Tensor& a) { return mul(neg(a), c.attrs<AlphaAttrs>().alpha); }),
              term(c, 1, [](const Tensor& b) { return b; }));
}
Tensor rsub_scalar_jvp(const J& c) { return mul(neg(t(c)), c.attrs<AlphaAttrs>().alpha); }
Tensor mul_jvp(const J& c) {
  return plus(term(c, 0, [&](const Tensor& a) { return mul(a, x(c, 1)); }),
              term(c, 1, [&](const Tensor& b) { return mul(x(c, 0), b); }));
}
Tensor mul_scalar_jvp(const J& c) { return mul(t(c), c.attrs<ScalarOperandAttrs>().other); }
Tensor div_jvp(const J& c) {
  // (ta - tb * result) / b
  Tensor num = plus(term(c, 0, [](const Tensor& a) { return a; }),
                    term(c, 1, [&](const Tensor& b) { return neg(mul(b, c.result)); }));
  return div(num, x(c, 1));
}
Tensor div_scalar_jvp(const J& c) { return div(t(c), c.attrs<ScalarOperandAttrs>().other); }
Tensor pow_scalar_jvp(const J& c) {
  const Scalar e = c.attrs<PowAttrs>().exponent;
  if (e.equals(0)) return zeros(c.result.sizes(), c.result.dtype());  // PyTorch: zeros
  const double ed = e.to_double();
  return mul(t(c), mul(pow(x(c), Scalar(ed - 1)), Scalar(ed)));
}
Tensor pow_tensor_jvp(const J& c) {
  const Tensor& a = x(c, 0);
  const Tensor& b = x(c, 1);
  Tensor ta = term(c, 0, [&](const Tensor& ta) {
    Tensor d = mul(ta, mul(b, pow(a, sub(b, Scalar(int64_t(1))))));
    return mask_where(logical_not(compare(Cmp::Eq, b, Scalar(0.0))), d, c);
  });
  Tensor tb = term(c, 1, [&](const Tensor& tb) {
    Tensor zero_base =
        logical(Logic::And, compare(Cmp::Eq, a, Scalar(0.0)), compare(Cmp::Ge, b, Scalar(0.0)));
    Tensor d = mul(c.result, log(to_dtype(a, c.result.dtype())));
    return mul(tb, where(zero_base, zero_scalar(c), d));
  });
  return plus(ta, tb);
}
Tensor pow_base_jvp(const J& c) {
  return mul(t(c), mul(c.result, Scalar(std::log(c.attrs<PowBaseAttrs>().base.to_double()))));
}
Tensor neg_jvp(const J& c) { return neg(t(c)); }
Tensor abs_jvp(const J& c) { return mul(t(c), sgn(x(c))); }
Tensor exp_jvp(const J& c) { return mul(t(c), c.result); }
Tensor log_jvp(const J& c) { return div(t(c), x(c)); }
Tensor sqrt_jvp(const J& c) { return div(t(c), mul(c.result, Scalar(2.0))); }
Tensor rsqrt_jvp(const J& c) {
  return mul(mul(t(c), Scalar(-0.5)), pow(c.result, Scalar(int64_t(3))));
}
Tensor sin_jvp(const J& c) { return mul(t(c), cos(x(c))); }
Tensor cos_jvp(const J& c) { return mul(t(c), neg(sin(x(c)))); }
Tensor tanh_jvp(const J& c) { return mul(t(c), rsub(mul(c.result, c.result), Scalar(1.0))); }
Tensor sigmoid_jvp(const J& c) { return mul(t(c), mul(c.result, rsub(c.result, Scalar(1.0)))); }
Tensor relu_jvp(const J& c) { return mask_where(compare(Cmp::Gt, c.result, Scalar(0.0)), t(c), c); }
Tensor reciprocal_jvp(const J& c) { return mul(neg(t(c)), mul(c.result, c.result)); }
// Piecewise-constant ops (floor, sign, rounding with a mode, ...).
Tensor zero_jvp(const J& c) { return zeros(c.result.sizes(), c.result.dtype()); }
Tensor log1p_jvp(const J& c) { return div(t(c), add(x(c), Scalar(1.0))); }
Tensor expm1_jvp(const J& c) { return mul(t(c), add(c.result, Scalar(1.0))); }

namespace {
// maximum/minimum: the tangent of the chosen side, the mean of both at ties.
Tensor extreme2(const J& c, Cmp pick) {
  const Tensor& a = x(c, 0);
  const Tensor& b = x(c, 1);
  Tensor ta = t_or_zero(c, 0), tb = t_or_zero(c, 1);
  Tensor w = where(compare(Cmp::Eq, a, b), full({}, Scalar(0.5), c.result.dtype()),
                   to_dtype(compare(pick, a, b), c.result.dtype()));
  return add(tb, mul(w, sub(ta, tb)));
}
}  // namespace

Tensor maximum_jvp(const J& c) { return extreme2(c, Cmp::Gt); }
Tensor minimum_jvp(const J& c) { return extreme2(c, Cmp::Lt); }
Tensor clamp_jvp(const J& c) {
  Tensor keep = compare(Cmp::Eq, x(c), x(c));  // all true (NaN: the NaN passes through)
  const ClampAttrs& at = c.attrs<ClampAttrs>();
  if (at.min) keep = logical(Logic::And, keep, compare(Cmp::Ge, x(c), *at.min));
  if (at.max) keep = logical(Logic::And, keep, compare(Cmp::Le, x(c), *at.max));
  return mask_where(keep, t(c), c);
}
Tensor clamp_min_jvp(const J& c) {
  return mask_where(compare(Cmp::Ge, x(c), c.attrs<ClampAttrs>().min.value()), t(c), c);
}
Tensor clamp_max_jvp(const J& c) {
  return mask_where(compare(Cmp::Le, x(c), c.attrs<ClampAttrs>().max.value()), t(c), c);
}
Tensor where_jvp(const J& c) { return where(*c.extras[0], t_or_zero(c, 0), t_or_zero(c, 1)); }
Tensor sum_all_jvp(const J& c) { return sum(t(c), {}, false); }
Tensor sum_dim_jvp(const J& c) {
  const ReduceAttrs& at = c.attrs<ReduceAttrs>();
  return sum(t(c), at.dim, at.keepdim, std::nullopt, true);
}
Tensor mean_all_jvp(const J& c) { return mean(t(c), {}, false); }
Tensor mean_dim_jvp(const J& c) {
  const ReduceAttrs& at = c.attrs<ReduceAttrs>();
  return mean(t(c), at.dim, at.keepdim, std::nullopt, true);
}
// max()/min() of everything: the tangent shared evenly by the tied elements.
Tensor extreme_all_jvp(const J& c) {
  Tensor hit = compare(Cmp::Eq, x(c), c.result);
  Tensor count = sum(to_dtype(hit, c.result.dtype()), {}, false);
  return div(sum(mask_where(hit, t(c), c), {}, false), count);
}
// max(dim)/min(dim): the tangent at the chosen index.
Tensor extreme_dim_jvp(const J& c) {
  if (x(c).dim() == 0) return clone(t(c));
  const DimReduceAttrs& at = c.attrs<DimReduceAttrs>();
  const int64_t d = at.dim;
  Tensor idx = *c.extras[0];
  if (!at.keepdim) idx = unsqueeze(idx, d);
  Tensor out = gather(t(c), d, idx);
  return at.keepdim ? out : squeeze(out, d);
}
namespace {
// The largest storage step a geometry reaches, plus one.
int64_t extent(const Tensor& a) {
  int64_t e = 1;
  for (size_t d = 0; d < a.sizes().size(); ++d) e += (a.sizes()[d] - 1) * a.strides()[d];
  return a.numel() == 0 ? 0 : e;
}
// A view of a primal whose tangent has another layout (a dense tangent of a
// gapped narrow): which of x's elements the view reads is found through an
// index buffer laid out as x, and those are gathered from the tangent. The
// result's geometry must not be applied to the tangent's own memory.
Tensor relaid_view(const J& c) {
  const Tensor& tan = t(c);
  const int64_t diff = c.result->offset() - x(c)->offset();
  if (diff < 0 || diff + extent(c.result) > extent(x(c)))  // as_strided beyond x
    return contiguous(as_strided(contiguous(tan), c.result.sizes(), c.result.strides(), diff));
  Tensor pos = empty_strided(x(c).sizes(), x(c).strides(), ScalarType::Int64);
  kernels::copy(pos, reshape(arange(Scalar(int64_t(0)), Scalar(x(c).numel()), Scalar(int64_t(1)),
                                    ScalarType::Int64),
                             x(c).sizes()));
  Tensor idx = contiguous(alias_with_geometry(pos, c.result.sizes(), c.result.strides(), diff));
  Tensor flat = index_select(reshape(contiguous(tan), {-1}), 0, reshape(idx, {-1}));
  return reshape(flat, c.result.sizes());
}
}  // namespace

// Every view op: the same view of the tangent, which shares the primal's
// strides (NOTE [Forward-mode AD]).
Tensor view_jvp(const J& c) {
  const Tensor& tan = t(c);
  const int64_t offset = tan->offset() + (c.result->offset() - x(c)->offset());
  if (offset < 0 || tan.strides() != x(c).strides()) return relaid_view(c);
  // A view of the input's tangent (its _base), as PyTorch's.
  Tensor v = alias_with_geometry(tan, c.result.sizes(), c.result.strides(), offset);
  make_view(v, tan, CreationMeta::Default);
  return v;
}
Tensor copy_jvp(const J& c) { return clone(t(c)); }
Tensor mm_jvp(const J& c) {
  return plus(term(c, 0, [&](const Tensor& a) { return mm(a, x(c, 1)); }),
              term(c, 1, [&](const Tensor& b) { return mm(x(c, 0), b); }));
}
Tensor mv_jvp(const J& c) {
  return plus(term(c, 0, [&](const Tensor& a) { return mv(a, x(c, 1)); }),
              term(c, 1, [&](const Tensor& b) { return mv(x(c, 0), b); }));
}
Tensor dot_jvp(const J& c) {
  return plus(term(c, 0, [&](const Tensor& a) { return dot(a, x(c, 1)); }),
              term(c, 1, [&](const Tensor& b) { return dot(x(c, 0), b); }));
}
Tensor bmm_jvp(const J& c) {
  return plus(term(c, 0, [&](const Tensor& a) { return bmm(a, x(c, 1)); }),
              term(c, 1, [&](const Tensor& b) { return bmm(x(c, 0), b); }));
}
// addmm(bias, a, b, beta, alpha) = beta * bias + alpha * a @ b
Tensor addmm_jvp(const J& c) {
  Tensor prod = plus(term(c, 1, [&](const Tensor& a) { return mm(a, x(c, 2)); }),
                     term(c, 2, [&](const Tensor& b) { return mm(x(c, 1), b); }));
  const AddmmAttrs& at = c.attrs<AddmmAttrs>();
  if (prod.defined() && !at.alpha.equals(1)) prod = mul(prod, at.alpha);
  Tensor bias;
  if (c.has(0) && !at.beta.equals(0)) bias = mul(t(c, 0), at.beta);
  return plus(bias, prod);
}
Tensor softmax_jvp(const J& c) {
  Tensor rt = mul(c.result, t(c));
  return sub(rt, mul(c.result, sum(rt, {c.attrs<DimAttrs>().dim}, true, std::nullopt, true)));
}
Tensor log_softmax_jvp(const J& c) {
  Tensor p = exp(c.result);
  return sub(t(c), sum(mul(p, t(c)), {c.attrs<DimAttrs>().dim}, true, std::nullopt, true));
}
// a - b * floor(a / b) (remainder), a - b * trunc(a / b) (fmod)
Tensor remainder_jvp(const J& c) {
  return plus(term(c, 0, [](const Tensor& a) { return a; }), term(c, 1, [&](const Tensor& b) {
                return neg(mul(b, floor(div(x(c, 0), x(c, 1)))));
              }));
}
Tensor fmod_jvp(const J& c) {
  return plus(term(c, 0, [](const Tensor& a) { return a; }), term(c, 1, [&](const Tensor& b) {
                return neg(mul(b, trunc(div(x(c, 0), x(c, 1)))));
              }));
}
Tensor atan2_jvp(const J& c) {
  const Tensor& y = x(c, 0);
  const Tensor& z = x(c, 1);
  Tensor num = plus(term(c, 0, [&](const Tensor& ty) { return mul(ty, z); }),
                    term(c, 1, [&](const Tensor& tz) { return neg(mul(tz, y)); }));
  return div(num, add(mul(y, y), mul(z, z)));
}
Tensor hypot_jvp(const J& c) {
  Tensor num = plus(term(c, 0, [&](const Tensor& a) { return mul(a, x(c, 0)); }),
                    term(c, 1, [&](const Tensor& b) { return mul(b, x(c, 1)); }));
  return div(num, c.result);
}
Tensor tan_jvp(const J& c) { return mul(t(c), add(mul(c.result, c.result), Scalar(1.0))); }
Tensor asin_jvp(const J& c) { return div(t(c), sqrt(rsub(mul(x(c), x(c)), Scalar(1.0)))); }
Tensor acos_jvp(const J& c) { return neg(asin_jvp(c)); }
Tensor atan_jvp(const J& c) { return div(t(c), add(mul(x(c), x(c)), Scalar(1.0))); }
Tensor sinh_jvp(const J& c) { return mul(t(c), cosh(x(c))); }
Tensor cosh_jvp(const J& c) { return mul(t(c), sinh(x(c))); }
Tensor log2_jvp(const J& c) { return div(t(c), mul(x(c), Scalar(std::log(2.0)))); }
Tensor log10_jvp(const J& c) { return div(t(c), mul(x(c), Scalar(std::log(10.0)))); }
Tensor erf_jvp(const J& c) {
  const double k = 1.1283791670955126;  // 2 / sqrt(pi)
  return mul(t(c), mul(exp(neg(mul(x(c), x(c)))), Scalar(k)));
}
Tensor erfc_jvp(const J& c) { return neg(erf_jvp(c)); }
Tensor erfinv_jvp(const J& c) {
  return mul(t(c), mul(exp(mul(c.result, c.result)), Scalar(0.5 * std::sqrt(M_PI))));
}
Tensor asinh_jvp(const J& c) { return mul(t(c), rsqrt(add(mul(x(c), x(c)), Scalar(1.0)))); }
Tensor acosh_jvp(const J& c) { return mul(t(c), rsqrt(sub(mul(x(c), x(c)), Scalar(1.0)))); }
Tensor atanh_jvp(const J& c) { return div(t(c), rsub(mul(x(c), x(c)), Scalar(1.0))); }
Tensor sinc_jvp(const J& c) {
  Tensor px = mul(x(c), Scalar(M_PI));
  Tensor d = div(sub(mul(px, cos(px)), sin(px)), mul(px, x(c)));
  return mul(t(c), where(compare(Cmp::Eq, x(c), Scalar(0.0)), zeros_like(d), d));
}
Tensor deg2rad_jvp(const J& c) { return mul(t(c), Scalar(M_PI / 180.0)); }
Tensor rad2deg_jvp(const J& c) { return mul(t(c), Scalar(180.0 / M_PI)); }
Tensor exp2_jvp(const J& c) { return mul(t(c), mul(c.result, Scalar(std::log(2.0)))); }

// gather: the tangent gathered at the same index (extras[0]).
Tensor gather_jvp(const J& c) { return gather(t(c), c.attrs<DimAttrs>().dim, *c.extras[0]); }
// masked_fill with a number: filled positions have no tangent (mask: extras[0]).
Tensor masked_fill_jvp(const J& c) { return mask_where(logical_not(*c.extras[0]), t(c), c); }
// masked_select: the tangent selected by the same (broadcast) mask, extras[0].
Tensor masked_select_jvp(const J& c) { return masked_select(t(c), *c.extras[0]); }

}  // namespace gradtrack::autograd::jvp
