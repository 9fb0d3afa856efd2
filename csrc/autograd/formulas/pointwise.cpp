// Elementwise ops.
// The backward formulas of their nodes and, beside them, the forward-mode
// formulas that are not derived from a backward. The rows naming them are
// python/gradtrack/_declarations/pointwise.py (NOTE [One declaration per op]).
#include <cmath>
#include <functional>
#include <limits>

#include "autograd/formulas/common.h"

namespace gradtrack::autograd::formulas {

TL add_bw(const C& c, const TL& g) {
  return {g[0], c.needs(1) ? scale(g[0], c.attrs<AlphaAttrs>().alpha) : Tensor()};
}
TL pass_bw(const C&, const TL& g) { return {g[0]}; }
// The negated side is neg(g) times alpha, as PyTorch's maybe_multiply(-grad, alpha):
// under create_graph its node is NegBackward0 (then MulBackward0 when alpha != 1).
TL sub_bw(const C& c, const TL& g) {
  return {g[0], c.needs(1) ? scale(neg(g[0]), c.attrs<AlphaAttrs>().alpha) : Tensor()};
}
TL rsub_bw(const C& c, const TL& g) {
  return {scale(neg(g[0]), c.attrs<AlphaAttrs>().alpha), g[0]};
}
TL rsub_scalar_bw(const C& c, const TL& g) {
  return {scale(neg(g[0]), c.attrs<AlphaAttrs>().alpha)};
}

namespace {
// The gradient of a full reduction (`(a * b).sum()`) reaches the product as
// one value expanded to its shape (every stride 0). Small products then take
// both gradients in one loop: the same float products as two mul() calls
// (g * b[i], g * a[i]), without their broadcasting set-up. Large ones keep the
// threaded kernels.
bool mul_bw_broadcast(const Tensor& g, const Tensor& a, const Tensor& b, Tensor& ga, Tensor& gb) {
  const ScalarType dt = a.dtype();
  if ((dt != ScalarType::Float32 && dt != ScalarType::Float64) || g.dtype() != dt ||
      b.dtype() != dt || g.sizes() != a.sizes() || a.sizes() != b.sizes() || g.numel() == 0 ||
      g.numel() > kGrainSize || !a.is_contiguous() || !b.is_contiguous() || !a.is_aligned() ||
      !b.is_aligned() || !g.is_aligned())
    return false;
  for (int64_t st : g.strides())
    if (st != 0) return false;
  ga = empty(a.sizes(), dt);
  gb = empty(a.sizes(), dt);
  const int64_t n = g.numel();
  auto run = [&](auto zero) {
    using T = decltype(zero);
    const T gv = *g.data<T>();
    const T* xa = a.data<T>();
    const T* xb = b.data<T>();
    T* pa = ga.data<T>();
    T* pb = gb.data<T>();
    for (int64_t i = 0; i < n; ++i) {
      pa[i] = gv * xb[i];
      pb[i] = gv * xa[i];
    }
  };
  dt == ScalarType::Float32 ? run(float(0)) : run(double(0));
  return true;
}

}  // namespace
TL mul_bw(const C& c, const TL& g) {
  const Tensor& a = c.saved_input(0);
  const Tensor& b = c.saved_input(1);
  Tensor ga, gb;
  if (c.needs(0) && c.needs(1) && !GradMode::is_enabled() && mul_bw_broadcast(g[0], a, b, ga, gb))
    return {ga, gb};
  // Both gradients of a large product in one pass: 5 memory streams, not 6.
  if (c.needs(0) && c.needs(1) && !GradMode::is_enabled() && g[0].sizes() == a.sizes() &&
      a.sizes() == b.sizes() && g[0].dtype() == a.dtype() && a.dtype() == b.dtype() &&
      is_floating(a.dtype()) && g[0].is_contiguous() && a.is_contiguous() && b.is_contiguous() &&
      g[0].is_aligned() && a.is_aligned() && b.is_aligned()) {
    Tensor ga = empty(a.sizes(), a.dtype()), gb = empty(a.sizes(), a.dtype());
    kernels::mul_backward(ga, gb, g[0], a, b);
    return {ga, gb};
  }
  return {c.needs(0) ? mul(g[0], b) : Tensor(), c.needs(1) ? mul(g[0], a) : Tensor()};
}
TL mul_scalar_bw(const C& c, const TL& g) {
  return {mul(g[0], c.attrs<ScalarOperandAttrs>().other)};
}
TL mul_by_scalar_bw(const C& c, const TL& g) {
  return {mul_by_scalar(g[0], c.attrs<ScalarOperandAttrs>().other)};
}
TL div_bw(const C& c, const TL& g) {
  const Tensor& a = c.saved_input(0);
  const Tensor& b = c.saved_input(1);
  return {c.needs(0) ? div(g[0], b) : Tensor(),
          // -g * ((a / b) / b), as PyTorch computes (and graphs) it.
          c.needs(1) ? mul(neg(g[0]), div(div(a, b), b)) : Tensor()};
}
TL div_scalar_bw(const C& c, const TL& g) {
  return {div(g[0], c.attrs<ScalarOperandAttrs>().other)};
}
TL div_by_scalar_bw(const C& c, const TL& g) {
  return {div_by_scalar(g[0], c.attrs<ScalarOperandAttrs>().other)};
}
// NOTE [Formulas shaped like PyTorch's]
// With create_graph=True the ops a formula calls become the gradient's graph,
// and users (and the differential tests) see its node names. The formulas
// below that matter for that are written with the ops, operand order and
// overloads PyTorch's derivatives use: a number multiplies through
// mul_by_scalar (MulBackward1), not the wrapped-number mul (MulBackward0).
// Without a graph being built only the values count, and a cheaper form with
// the same values may be used.
TL pow_scalar_bw(const C& c, const TL& g) {
  // g * (e * x^(e-1)), the exponent as a double; exponent 0 gives zeros.
  const Scalar e = c.attrs<PowAttrs>().exponent;
  const Tensor& a = c.saved_input(0);
  if (e.equals(0)) return {zeros_like(a)};
  // x ** 1 still computes a new tensor: passing g through would hand out a view
  // (an expanded gradient) where PyTorch's gradient is fresh.
  if (!GradMode::is_enabled() && e.equals(2)) return {mul(g[0], mul(a, Scalar(int64_t(2))))};
  const double ed = e.to_double();
  return {mul(g[0], mul_by_scalar(pow(a, Scalar(ed - 1)), Scalar(ed)))};
}
TL pow_tensor_bw(const C& c, const TL& g) {
  const Tensor& a = c.saved_input(0);
  const Tensor& b = c.saved_input(1);
  TL out(2);
  if (c.needs(0)) {
    // Zero where the exponent is 0 (0 ** 0 has gradient 0, not 0 * inf).
    Tensor d = mul(g[0], mul(b, pow(a, sub_by_scalar(b, Scalar(int64_t(1))))));
    out[0] = where(compare(Cmp::Eq, b, Scalar(0.0)), zero_scalar(g[0]), d);
  }
  if (c.needs(1)) {
    // x^y * log(x), but 0 where x == 0 and y >= 0 (log(0) would give NaN).
    Tensor mask =
        logical(Logic::And, compare(Cmp::Eq, a, Scalar(0.0)), compare(Cmp::Ge, b, Scalar(0.0)));
    const Tensor& r = c.result();
    Tensor d = mul(r, log(to_dtype(a, r.dtype())));
    out[1] = mul(g[0], where(mask, zero_scalar(g[0]), d));
  }
  return out;
}
TL pow_base_bw(const C& c, const TL& g) {
  const double base = c.attrs<PowBaseAttrs>().base.to_double();
  Tensor d = mul_by_scalar(c.result(), Scalar(std::log(base)));
  if (base == 0) d = where(compare(Cmp::Ge, c.saved_input(0), Scalar(0.0)), zero_scalar(g[0]), d);
  return {mul(g[0], d)};
}
TL neg_bw(const C&, const TL& g) { return {neg(g[0])}; }
TL abs_bw(const C& c, const TL& g) { return {mul(g[0], sgn(c.saved_input(0)))}; }
TL exp_bw(const C& c, const TL& g) { return {mul(g[0], c.result())}; }
TL log_bw(const C& c, const TL& g) { return {div(g[0], c.saved_input(0))}; }
TL sqrt_bw(const C& c, const TL& g) { return {div(g[0], mul_by_scalar(c.result(), Scalar(2.0)))}; }
// -0.5 * grad * result.pow(3), grouped as PyTorch's (MulBackward1 on grad).
TL rsqrt_bw(const C& c, const TL& g) {
  return {mul(mul_by_scalar(g[0], Scalar(-0.5)), pow(c.result(), Scalar(int64_t(3))))};
}
TL sin_bw(const C& c, const TL& g) { return {mul(g[0], cos(c.saved_input(0)))}; }
TL cos_bw(const C& c, const TL& g) { return {mul(g[0], neg(sin(c.saved_input(0))))}; }
TL tanh_bw(const C& c, const TL& g) { return {tanh_backward(g[0], c.result())}; }
TL sigmoid_bw(const C& c, const TL& g) { return {sigmoid_backward(g[0], c.result())}; }
TL sigmoid_backward_bw(const C& c, const TL& g) {
  const Tensor& gy = c.saved_input(0);
  const Tensor& y = c.saved_input(1);
  return {c.needs(0) ? sigmoid_backward(g[0], y) : Tensor(),
          c.needs(1) ? mul(mul(g[0], gy), rsub(mul(y, Scalar(int64_t(2))), Scalar(int64_t(1))))
                     : Tensor()};
}
TL tanh_backward_bw(const C& c, const TL& g) {
  const Tensor& gy = c.saved_input(0);
  const Tensor& y = c.saved_input(1);
  return {c.needs(0) ? tanh_backward(g[0], y) : Tensor(),
          c.needs(1) ? mul(mul(g[0], gy), mul(y, Scalar(int64_t(-2)))) : Tensor()};
}
TL relu_bw(const C& c, const TL& g) { return {threshold_backward(g[0], c.result())}; }
TL reciprocal_bw(const C& c, const TL& g) {
  const Tensor& y = c.result();
  return {mul(neg(g[0]), mul(y, y))};
}
TL zero_bw(const C& c, const TL& g) {
  TL out(c.num_inputs());
  out[0] = zeros_like(g[0]).sizes() == c.input(0).shape ? zeros_like(g[0]) : zeros_of(c, 0);
  return out;
}
// `x + 1` in PyTorch's formulas is the wrapped-number overload (AddBackward1).
TL log1p_bw(const C& c, const TL& g) {
  return {div(g[0], add_by_scalar(c.saved_input(0), Scalar(int64_t(1))))};
}
TL expm1_bw(const C& c, const TL& g) {
  return {mul(g[0], add_by_scalar(c.result(), Scalar(int64_t(1))))};
}

namespace {
TL extreme_pair_bw(const C& c, const TL& g, Cmp loses) {
  // Ties share the gradient; only a strictly losing operand gets zero, so a
  // NaN (which compares false with everything) takes the whole gradient.
  const Tensor& a = c.saved_input(0);
  const Tensor& b = c.saved_input(1);
  // Each side is where(...) then masked_fill_ in place (version 1), as PyTorch's.
  auto side = [&](const Tensor& self, const Tensor& other) {
    Tensor shared = where(compare(Cmp::Eq, a, b), div_by_scalar(g[0], Scalar(int64_t(2))), g[0]);
    return inplace_masked_fill(shared, compare(loses, self, other), Scalar(int64_t(0)));
  };
  TL out(2);
  if (c.needs(0)) out[0] = side(a, b);
  if (c.needs(1)) out[1] = side(b, a);
  return out;
}

}  // namespace
TL maximum_bw(const C& c, const TL& g) { return extreme_pair_bw(c, g, Cmp::Lt); }
TL minimum_bw(const C& c, const TL& g) { return extreme_pair_bw(c, g, Cmp::Gt); }
TL clamp_bw(const C& c, const TL& g) {
  const Tensor& a = c.saved_input(0);
  const ClampAttrs& at = c.attrs<ClampAttrs>();
  Tensor keep;
  if (at.min) keep = compare(Cmp::Ge, a, *at.min);
  if (at.max) {
    Tensor le = compare(Cmp::Le, a, *at.max);
    keep = keep.defined() ? logical(Logic::And, keep, le) : le;
  }
  return {where(keep, g[0], zero_scalar(g[0]))};
}
TL clamp_tensor_bw(const C& c, const TL& g) {
  const Tensor& a = c.saved_input(0);
  const Tensor& lo = c.saved_input(1);
  const Tensor& hi = c.saved_input(2);
  Tensor z = zero_scalar(g[0]);
  // PyTorch's clamp_backward / clamp_backward_min_max, comparison for comparison: a NaN
  // (in the input or a bound) passes no gradient, and lo == hi passes none to lo.
  Tensor lo_wins = logical(Logic::And, compare(Cmp::Lt, a, lo), compare(Cmp::Lt, lo, hi));
  Tensor hi_wins = logical(Logic::Or, compare(Cmp::Gt, a, hi), compare(Cmp::Lt, hi, lo));
  Tensor self_ok = logical(Logic::And, compare(Cmp::Ge, a, lo), compare(Cmp::Le, a, hi));
  return {c.needs(0) ? where(self_ok, g[0], z) : Tensor(),
          c.needs(1) ? where(lo_wins, g[0], z) : Tensor(),
          c.needs(2) ? where(hi_wins, g[0], z) : Tensor()};
}
TL where_bw(const C& c, const TL& g) {
  const Tensor& cond = c.extra(0);
  Tensor z = zero_scalar(g[0]);
  return {c.needs(0) ? where(cond, g[0], z) : Tensor(),
          c.needs(1) ? where(cond, z, g[0]) : Tensor()};
}
TL threshold_backward_bw(const C& c, const TL& g) {
  return {c.needs(0) ? threshold_backward(g[0], c.saved_input(1)) : Tensor(),
          c.needs(1) ? zeros_of(c, 1) : Tensor()};
}
TL remainder_bw(const C& c, const TL& g) {
  return {g[0], c.needs(1) ? mul(neg(g[0]), div_mode(c.saved_input(0), c.saved_input(1), "floor"))
                           : Tensor()};
}
TL not_implemented_bw(const C&, const TL&) {
  throw Error("derivative for aten::floor_divide is not implemented");
}
// PyTorch's not-implemented node names the in-place overload that made it.
TL not_implemented_inplace_bw(const C&, const TL&) {
  throw Error("derivative for aten::floor_divide_ is not implemented");
}
// torch has no formula for the in-place inverse hyperbolics: their nodes raise.
namespace {
[[noreturn]] void inplace_version_missing(const char* name) {
  throw NotImplementedError(
      str_cat("the derivative for 'inplace version of ", name, "' is not implemented."));
}
}  // namespace
TL asinh_inplace_bw(const C&, const TL&) { inplace_version_missing("asinh"); }
TL acosh_inplace_bw(const C&, const TL&) { inplace_version_missing("acosh"); }
TL atanh_inplace_bw(const C&, const TL&) { inplace_version_missing("atanh"); }
TL fmod_bw(const C& c, const TL& g) {
  return {g[0], c.needs(1) ? mul(neg(g[0]), div_mode(c.saved_input(0), c.saved_input(1), "trunc"))
                           : Tensor()};
}

namespace {
// ---- the op list's newer unary and binary ops ----
Tensor one_minus_square(const Tensor& x) {
  return add_by_scalar(neg(mul(x, x)), Scalar(int64_t(1)));
}

}  // namespace
TL tan_bw(const C& c, const TL& g) {
  return {mul(g[0], add_by_scalar(pow(c.result(), Scalar(int64_t(2))), Scalar(int64_t(1))))};
}
TL asin_bw(const C& c, const TL& g) {
  return {mul(g[0], rsqrt(one_minus_square(c.saved_input(0))))};
}
TL acos_bw(const C& c, const TL& g) {
  return {mul(g[0], neg(rsqrt(one_minus_square(c.saved_input(0)))))};
}
TL atan_bw(const C& c, const TL& g) {
  const Tensor& x = c.saved_input(0);
  return {div(g[0], add_by_scalar(mul(x, x), Scalar(int64_t(1))))};
}
TL sinh_bw(const C& c, const TL& g) { return {mul(g[0], cosh(c.saved_input(0)))}; }
TL cosh_bw(const C& c, const TL& g) { return {mul(g[0], sinh(c.saved_input(0)))}; }
TL log2_bw(const C& c, const TL& g) {
  return {div(g[0], mul_by_scalar(c.saved_input(0), Scalar(std::log(2.0))))};
}
TL log10_bw(const C& c, const TL& g) {
  return {div(g[0], mul_by_scalar(c.saved_input(0), Scalar(std::log(10.0))))};
}
// 2 / sqrt(pi) * exp(-x^2) * g.
TL erf_bw(const C& c, const TL& g) {
  Tensor e = exp(neg(pow(c.saved_input(0), Scalar(int64_t(2)))));
  return {mul(mul_by_scalar(e, Scalar(2.0 / std::sqrt(M_PI))), g[0])};
}
// -2 / sqrt(pi) * exp(-x^2) * g.
TL erfc_bw(const C& c, const TL& g) {
  Tensor e = exp(neg(pow(c.saved_input(0), Scalar(int64_t(2)))));
  return {mul(mul_by_scalar(e, Scalar(-2.0 / std::sqrt(M_PI))), g[0])};
}
// sqrt(pi) / 2 * exp(erfinv(x)^2) * g, from the saved result erfinv(x).
// erfinv: g * sqrt(pi) / 2 * exp(erfinv(x)^2), from the saved input as torch's (which
// input or result a node keeps decides which in-place write makes backward raise).
TL erfinv_bw(const C& c, const TL& g) {
  Tensor e = exp(pow(erfinv(c.saved_input(0)), Scalar(int64_t(2))));
  return {mul(mul_by_scalar(e, Scalar(0.5 * std::sqrt(M_PI))), g[0])};
}
TL asinh_bw(const C& c, const TL& g) {
  const Tensor& x = c.saved_input(0);
  return {mul(g[0], rsqrt(add_by_scalar(pow(x, Scalar(int64_t(2))), Scalar(int64_t(1)))))};
}
TL acosh_bw(const C& c, const TL& g) {
  const Tensor& x = c.saved_input(0);
  return {mul(g[0], rsqrt(sub_by_scalar(pow(x, Scalar(int64_t(2))), Scalar(int64_t(1)))))};
}
TL atanh_bw(const C& c, const TL& g) {
  const Tensor& x = c.saved_input(0);
  return {div(g[0], rsub(pow(x, Scalar(int64_t(2))), Scalar(int64_t(1))))};
}
// (pi x cos(pi x) - sin(pi x)) / (pi x^2) * g, and 0 at x == 0 (sinc is flat there).
// sinc: g (pi x cos(pi x) - sin(pi x)) / (pi x^2), and 0 where pi x^2 is 0: at
// x = 0 and wherever x^2 underflows (|x| < 1e-19 in float32), as torch's; the
// whole product is replaced there, so a NaN or inf g does not come through.
TL sinc_bw(const C& c, const TL& g) {
  const Tensor& x = c.saved_input(0);
  Tensor px = mul_by_scalar(x, Scalar(M_PI));
  Tensor num = sub(mul(px, cos(px)), sin(px));
  Tensor pi_x2 = mul_by_scalar(mul(x, x), Scalar(M_PI));
  Tensor d = div(mul(g[0], num), pi_x2);
  return {where(compare(Cmp::Eq, pi_x2, Scalar(0.0)), zero_scalar(d), d)};
}
TL deg2rad_bw(const C&, const TL& g) { return {mul_by_scalar(g[0], Scalar(M_PI / 180.0))}; }
TL rad2deg_bw(const C&, const TL& g) { return {mul_by_scalar(g[0], Scalar(180.0 / M_PI))}; }
TL exp2_bw(const C& c, const TL& g) {
  return {mul_by_scalar(mul(g[0], c.result()), Scalar(std::log(2.0)))};
}
// d/da atan2(a, b) = b / (a^2 + b^2), d/db = -a / (a^2 + b^2).
TL atan2_bw(const C& c, const TL& g) {
  const Tensor& a = c.saved_input(0);
  const Tensor& b = c.saved_input(1);
  Tensor recip = reciprocal(add(mul(a, a), mul(b, b)));
  return {c.needs(0) ? mul(mul(g[0], b), recip) : Tensor(),
          c.needs(1) ? mul(mul(g[0], neg(a)), recip) : Tensor()};
}
TL hypot_bw(const C& c, const TL& g) {
  return {c.needs(0) ? div(mul(g[0], c.saved_input(0)), c.result()) : Tensor(),
          c.needs(1) ? div(mul(g[0], c.saved_input(1)), c.result()) : Tensor()};
}
// One bound: the gradient passes where the input is inside it; with a tensor
// bound, the rest goes to the bound.
TL clamp_min_bw(const C& c, const TL& g) {
  const Scalar min = c.attrs<ClampAttrs>().min.value();
  return {where(compare(Cmp::Ge, c.saved_input(0), min), g[0], zero_scalar(g[0]))};
}
TL clamp_max_bw(const C& c, const TL& g) {
  const Scalar max = c.attrs<ClampAttrs>().max.value();
  return {where(compare(Cmp::Le, c.saved_input(0), max), g[0], zero_scalar(g[0]))};
}

namespace {
TL clamp_bound_tensor_bw(const C& c, const TL& g, Cmp keep) {
  Tensor inside = compare(keep, c.saved_input(0), c.saved_input(1));
  Tensor z = zero_scalar(g[0]);
  return {c.needs(0) ? where(inside, g[0], z) : Tensor(),
          c.needs(1) ? where(inside, z, g[0]) : Tensor()};
}

}  // namespace
TL clamp_min_tensor_bw(const C& c, const TL& g) { return clamp_bound_tensor_bw(c, g, Cmp::Ge); }
TL clamp_max_tensor_bw(const C& c, const TL& g) { return clamp_bound_tensor_bw(c, g, Cmp::Le); }
TL zeros_bw(const C& c, const TL& g) {
  TL out(c.num_inputs());
  for (size_t i = 0; i < out.size(); ++i)
    if (c.needs(i)) out[i] = zeros_of(c, i);
  return out;
}
// g where the input was finite, 0 where nan_to_num replaced it.
TL nan_to_num_bw(const C& c, const TL& g) {
  const Tensor& x = c.saved_input(0);
  Tensor finite =
      logical_not(logical(Logic::Or, isnan(x), compare(Cmp::Eq, abs(x), Scalar(HUGE_VAL))));
  return {mul(g[0], finite)};
}
TL lerp_scalar_bw(const C& c, const TL& g) {
  const double w = c.attrs<LerpAttrs>().weight.to_double();
  return {c.needs(0) ? mul_by_scalar(g[0], Scalar(1.0 - w)) : Tensor(),
          c.needs(1) ? mul_by_scalar(g[0], Scalar(w)) : Tensor()};
}
TL lerp_tensor_bw(const C& c, const TL& g) {
  const Tensor &a = c.saved_input(0), &end = c.saved_input(1), &w = c.saved_input(2);
  return {c.needs(0) ? mul(g[0], rsub(w, Scalar(1.0))) : Tensor(),
          c.needs(1) ? mul(g[0], w) : Tensor(), c.needs(2) ? mul(g[0], sub(end, a)) : Tensor()};
}

// ---- the gamma and Bessel families, logaddexp, fmax/fmin ----
TL lgamma_bw(const C& c, const TL& g) { return {mul(g[0], digamma(c.saved_input(0)))}; }
TL digamma_bw(const C& c, const TL& g) { return {mul(g[0], polygamma(1, c.saved_input(0)))}; }
TL polygamma_bw(const C& c, const TL& g) {
  return {mul(g[0], polygamma(c.attrs<PolygammaAttrs>().n + 1, c.saved_input(0)))};
}
TL i0_bw(const C& c, const TL& g) { return {mul(g[0], special_i1(c.saved_input(0)))}; }
TL special_i0e_bw(const C& c, const TL& g) {
  const Tensor& x = c.saved_input(0);
  return {mul(g[0], sub(special_i1e(x), mul(sgn(x), c.result())))};
}

namespace {
// NOTE [Bessel gradients at zero]
// i1'(x) = i0(x) - i1(x) / x is 0 / 0 at x = 0, where the limit is 1/2. As
// PyTorch's i1_backward, inputs within machine epsilon of 0 take 1/2, and the
// formula reads a safe input there so that its own gradient stays finite.
Tensor bessel_grad_at_zero(const Tensor& x, const std::function<Tensor(const Tensor&)>& formula) {
  const double eps = x.dtype() == ScalarType::Float64 ? std::numeric_limits<double>::epsilon()
                                                      : std::numeric_limits<float>::epsilon();
  Tensor not_tiny = compare(Cmp::Gt, abs(x), Scalar(eps));
  Tensor safe = where(not_tiny, x, scalar_tensor(Scalar(eps), x.dtype()));
  return where(not_tiny, formula(safe), scalar_tensor(Scalar(0.5), x.dtype()));
}
}  // namespace
TL special_i1_bw(const C& c, const TL& g) {
  const Tensor& r = c.result();
  return {mul(g[0], bessel_grad_at_zero(c.saved_input(0), [&](const Tensor& x) {
                return sub(i0(x), mul(r, reciprocal(x)));
              }))};
}
TL special_i1e_bw(const C& c, const TL& g) {
  const Tensor& r = c.result();
  return {mul(g[0], bessel_grad_at_zero(c.saved_input(0), [&](const Tensor& x) {
                return sub(special_i0e(x), mul(r, add(sgn(x), reciprocal(x))));
              }))};
}
// sqrt(2 pi) * exp(ndtri(x)^2 / 2) * g.
TL special_ndtri_bw(const C& c, const TL& g) {
  Tensor e = exp(div_by_scalar(pow(c.result(), Scalar(int64_t(2))), Scalar(int64_t(2))));
  return {mul(mul_by_scalar(g[0], Scalar(std::sqrt(2 * M_PI))), e)};
}
// g / sqrt(2 pi) * exp(-(log_ndtr(x) + x^2 / 2)): the normal density over ndtr.
TL special_log_ndtr_bw(const C& c, const TL& g) {
  Tensor half_sq = div_by_scalar(pow(c.saved_input(0), Scalar(int64_t(2))), Scalar(int64_t(2)));
  Tensor e = exp(neg(add(c.result(), half_sq)));
  return {mul(div_by_scalar(g[0], Scalar(std::sqrt(2 * M_PI))), e)};
}
// (2 x erfcx(x) - 2 / sqrt(pi)) * g.
TL special_erfcx_bw(const C& c, const TL& g) {
  Tensor two_x_r = mul(mul_by_scalar(c.saved_input(0), Scalar(2.0)), c.result());
  return {mul(sub_by_scalar(two_x_r, Scalar(2.0 / std::sqrt(M_PI))), g[0])};
}
// -(1 + log x) * g.
TL special_entr_bw(const C& c, const TL& g) {
  return {mul(g[0], neg(add_by_scalar(log(c.saved_input(0)), Scalar(int64_t(1)))))};
}

namespace {
// fmax/fmin: the gradient goes to self where self wins or other is NaN, to
// other elsewhere (PyTorch's masked_fill formulas).
TL nan_ignoring_extreme_bw(const C& c, const TL& g, Cmp wins) {
  const Tensor& a = c.saved_input(0);
  const Tensor& b = c.saved_input(1);
  Tensor self_takes = logical(Logic::Or, compare(wins, a, b), isnan(b));
  Tensor z = zero_scalar(g[0]);
  return {c.needs(0) ? where(self_takes, g[0], z) : Tensor(),
          c.needs(1) ? where(self_takes, z, g[0]) : Tensor()};
}
// logaddexp: g / (1 + e(other - self)) and g / (1 + e(self - other)), e = exp or 2**.
TL log_add_bw(const C& c, const TL& g, bool base2) {
  const Tensor& a = c.saved_input(0);
  const Tensor& b = c.saved_input(1);
  auto share = [&](const Tensor& x, const Tensor& y) {
    Tensor e = base2 ? pow(Scalar(int64_t(2)), sub(y, x)) : exp(sub(y, x));
    return div(g[0], add_by_scalar(e, Scalar(int64_t(1))));
  };
  return {c.needs(0) ? share(a, b) : Tensor(), c.needs(1) ? share(b, a) : Tensor()};
}
}  // namespace
TL fmax_bw(const C& c, const TL& g) { return nan_ignoring_extreme_bw(c, g, Cmp::Ge); }
TL fmin_bw(const C& c, const TL& g) { return nan_ignoring_extreme_bw(c, g, Cmp::Le); }
TL logaddexp_bw(const C& c, const TL& g) { return log_add_bw(c, g, false); }
TL logaddexp2_bw(const C& c, const TL& g) { return log_add_bw(c, g, true); }

// ---- xlogy, xlog1py, copysign, ldexp, nextafter, heaviside (torch's formulas) ----
namespace {
// self's gradient is xlogy(g, other) (xlog1py(g, other)), 0 where self is 0 and
// other is at or below the log's zero (0, or -1 for log1p): torch's masked_fill.
Tensor masked_log_grad(const Tensor& log_g, const Tensor& self, const Tensor& below_zero) {
  Tensor mask = logical(Logic::And, compare(Cmp::Eq, self, Scalar(int64_t(0))), below_zero);
  return where(mask, zero_scalar(log_g), log_g);
}
Tensor masked_log_grad(const Tensor& log_g, const Tensor& self, bool below_zero) {
  if (!below_zero) return log_g;
  return where(compare(Cmp::Eq, self, Scalar(int64_t(0))), zero_scalar(log_g), log_g);
}
Tensor log1p_denominator(const Tensor& y) { return add_by_scalar(y, Scalar(int64_t(1))); }
Scalar scalar_operand(const C& c) { return c.attrs<ScalarOperandAttrs>().other; }
}  // namespace
TL xlogy_bw(const C& c, const TL& g) {
  const Tensor &a = c.saved_input(0), &b = c.saved_input(1);
  return {c.needs(0) ? masked_log_grad(xlogy(g[0], b), a, compare(Cmp::Le, b, Scalar(int64_t(0))))
                     : Tensor(),
          c.needs(1) ? div(mul(g[0], a), b) : Tensor()};
}
TL xlogy_scalar_other_bw(const C& c, const TL& g) {
  const Scalar b = scalar_operand(c);
  return {masked_log_grad(xlogy(g[0], b), c.saved_input(0), b.to_double() <= 0)};
}
TL xlogy_scalar_self_bw(const C& c, const TL& g) {
  return {div(mul(g[0], scalar_operand(c)), c.saved_input(0))};
}
TL special_xlog1py_bw(const C& c, const TL& g) {
  const Tensor &a = c.saved_input(0), &b = c.saved_input(1);
  return {c.needs(0) ? masked_log_grad(special_xlog1py(g[0], b), a,
                                       compare(Cmp::Le, b, Scalar(int64_t(-1))))
                     : Tensor(),
          c.needs(1) ? div(mul(g[0], a), log1p_denominator(b)) : Tensor()};
}
TL special_xlog1py_scalar_other_bw(const C& c, const TL& g) {
  const Scalar b = scalar_operand(c);
  return {masked_log_grad(special_xlog1py(g[0], b), c.saved_input(0), b.to_double() <= -1)};
}
TL special_xlog1py_scalar_self_bw(const C& c, const TL& g) {
  return {div(mul(g[0], scalar_operand(c)), log1p_denominator(c.saved_input(0)))};
}
// copysign: g * result / self, 0 where self is 0; other gets zeros.
namespace {
Tensor copysign_self_grad(const C& c, const Tensor& g) {
  const Tensor& a = c.saved_input(0);
  Tensor ratio = div(c.result(), a);
  return mul(g, where(compare(Cmp::Eq, a, Scalar(int64_t(0))), zero_scalar(ratio), ratio));
}
}  // namespace
TL copysign_bw(const C& c, const TL& g) {
  return {c.needs(0) ? copysign_self_grad(c, g[0]) : Tensor(),
          c.needs(1) ? zeros_of(c, 1) : Tensor()};
}
TL copysign_scalar_bw(const C& c, const TL& g) { return {copysign_self_grad(c, g[0])}; }
// ldexp: g * 2 ** other and g * self * log(2) * 2 ** other (2 ** other in other's
// dtype, as torch's pow(2, other): an integer exponent below 0 gives 0).
TL ldexp_bw(const C& c, const TL& g) {
  // other's from the result (input * 2 ** other), which torch's node keeps instead of input
  return {c.needs(0) ? mul(g[0], pow(Scalar(int64_t(2)), c.saved_input(1))) : Tensor(),
          c.needs(1) ? mul_by_scalar(mul(g[0], c.result()), Scalar(M_LN2)) : Tensor()};
}
// nextafter: g where self != other (NaN included), 0 where they are equal (the
// result is then other); other gets zeros.
TL nextafter_bw(const C& c, const TL& g) {
  Tensor self_grad;
  if (c.needs(0)) {
    Tensor equal = compare(Cmp::Eq, c.saved_input(0), c.saved_input(1));
    self_grad = where(equal, zero_scalar(g[0]), g[0]);
  }
  return {self_grad, c.needs(1) ? zeros_of(c, 1) : Tensor()};
}
TL heaviside_not_implemented_bw(const C&, const TL&) {
  throw Error("derivative for aten::heaviside is not implemented");
}
TL heaviside_not_implemented_inplace_bw(const C&, const TL&) {
  throw Error("derivative for aten::heaviside_ is not implemented");
}
// zeta: torch has no gradient for x; q's is -x * zeta(x + 1, q) * g.
namespace {
[[noreturn]] void derivative_missing(const char* what) {
  throw NotImplementedError(str_cat("the derivative for '", what, "' is not implemented."));
}
}  // namespace
TL special_zeta_bw(const C& c, const TL& g) {
  if (c.needs(0)) derivative_missing("zeta");
  const Tensor &x = c.saved_input(0), &q = c.saved_input(1);
  return {Tensor(), mul(g[0], mul(neg(x), special_zeta(add_by_scalar(x, Scalar(1.0)), q)))};
}
TL special_zeta_scalar_other_bw(const C&, const TL&) { derivative_missing("zeta"); }
TL special_zeta_scalar_self_bw(const C& c, const TL& g) {
  const Scalar x = scalar_operand(c);
  Tensor z = special_zeta(Scalar(x.to_double() + 1.0), c.saved_input(0));
  return {mul(g[0], mul_by_scalar(z, Scalar(-x.to_double())))};
}
// igamma and igammac: torch has no gradient for input; other's is
// +-exp((a - 1) log(x) - x - lgamma(a)) * g.
namespace {
TL incomplete_gamma_bw(const C& c, const TL& g, bool upper) {
  if (c.needs(0)) derivative_missing(upper ? "igammac: input" : "igamma: input");
  const Tensor &a = c.saved_input(0), &x = c.saved_input(1);
  Tensor e = exp(sub(sub(mul(add_by_scalar(a, Scalar(int64_t(-1))), log(x)), x), lgamma(a)));
  return {Tensor(), mul(g[0], upper ? neg(e) : e)};
}
}  // namespace
TL igamma_bw(const C& c, const TL& g) { return incomplete_gamma_bw(c, g, false); }
TL igammac_bw(const C& c, const TL& g) { return incomplete_gamma_bw(c, g, true); }
// logit: g / (x (1 - x)) inside [eps, 1 - eps] and 0 outside; without eps, NaN
// outside [0, 1] (torch's logit_backward).
TL logit_bw(const C& c, const TL& g) {
  const Tensor& x = c.saved_input(0);
  const double eps = c.attrs<LogitAttrs>().eps;
  const bool clamped = eps >= 0;
  const double lo = clamped ? eps : 0.0, hi = clamped ? 1.0 - eps : 1.0;
  // outside, not "not inside": a NaN x takes the formula (NaN), as torch's
  Tensor outside_mask =
      logical(Logic::Or, compare(Cmp::Lt, x, Scalar(lo)), compare(Cmp::Gt, x, Scalar(hi)));
  // at 0 and 1 (-0 included) g / +0, as torch's kernel (x (1 - x) is -0 at -0); a
  // constant there, not g * inf, which double backward would turn into 0 * inf
  Tensor at_pole =
      logical(Logic::Or, compare(Cmp::Eq, x, Scalar(0.0)), compare(Cmp::Eq, x, Scalar(1.0)));
  Tensor d = div(g[0], where(at_pole, zero_scalar(x), mul(x, rsub(x, Scalar(int64_t(1))))));
  Tensor outside =
      scalar_tensor(Scalar(clamped ? 0.0 : std::numeric_limits<double>::quiet_NaN()), d.dtype());
  return {where(outside_mask, outside, d)};
}
// mvlgamma: g * sum over j < p of digamma(x - j / 2), summed from the largest j.
TL mvlgamma_bw(const C& c, const TL& g) {
  const Tensor& x = c.saved_input(0);
  const int64_t p = c.attrs<MvlgammaAttrs>().p;
  Tensor s;
  for (int64_t j = p - 1; j >= 0; --j) {
    Tensor d = digamma(add_by_scalar(x, Scalar(-0.5 * static_cast<double>(j))));
    s = s.defined() ? add(s, d) : d;
  }
  return {mul(g[0], s)};
}

}  // namespace gradtrack::autograd::formulas
