// The fused updates (ops/fused.cpp): addcmul, addcdiv, addr, addbmm. Backward
// formulas written with differentiable ops (double backward works), and their
// forward-mode formulas beside them, as PyTorch's derivatives table has them. The
// rows naming them are in python/gradtrack/_declarations/linalg.py.
#include "autograd/formulas/common.h"

namespace gradtrack::autograd::formulas {

namespace {
// PyTorch's maybe_multiply: the factor is skipped when it is 1.
Tensor times_bw(const Tensor& g, Scalar s) { return s.equals(1) ? g : mul_by_scalar(g, s); }
Tensor times_fw(const Tensor& v, Scalar s) { return s.equals(1) ? v : mul(v, s); }
}  // namespace

// addcmul(self, t1, t2, value) = self + value * t1 * t2
TL addcmul_bw(const C& c, const TL& g) {
  const Scalar v = c.attrs<ValueAttrs>().value;
  return {c.needs(0) ? g[0] : Tensor(),
          c.needs(1) ? mul(g[0], times_fw(c.saved_input(2), v)) : Tensor(),
          c.needs(2) ? mul(g[0], times_fw(c.saved_input(1), v)) : Tensor()};
}
Tensor addcmul_jvp(const J& c) {
  const Scalar v = c.attrs<ValueAttrs>().value;
  Tensor prod;
  if (c.has(1)) prod = mul(t(c, 1), x(c, 2));
  if (c.has(2)) prod = plus(prod, mul(t(c, 2), x(c, 1)));
  if (prod.defined()) prod = times_fw(prod, v);
  return plus(c.has(0) ? t(c, 0) : Tensor(), prod);
}

// addcdiv(self, t1, t2, value) = self + value * t1 / t2
TL addcdiv_bw(const C& c, const TL& g) {
  const Scalar v = c.attrs<ValueAttrs>().value;
  TL out(3);
  if (c.needs(0)) out[0] = g[0];
  if (c.needs(1)) out[1] = div(times_bw(g[0], v), c.saved_input(2));
  if (c.needs(2)) {
    const Tensor& t1 = c.saved_input(1);
    const Tensor& t2 = c.saved_input(2);
    out[2] = neg(mul(times_bw(g[0], v), div(t1, mul(t2, t2))));
  }
  return out;
}
Tensor addcdiv_jvp(const J& c) {
  const Scalar v = c.attrs<ValueAttrs>().value;
  Tensor q;
  if (c.has(1)) q = div(t(c, 1), x(c, 2));
  if (c.has(2)) q = plus(q, neg(div(mul(x(c, 1), t(c, 2)), mul(x(c, 2), x(c, 2)))));
  if (q.defined()) q = times_fw(q, v);
  return plus(c.has(0) ? t(c, 0) : Tensor(), q);
}

// addr(self, vec1, vec2, beta, alpha) = beta * self + alpha * outer(vec1, vec2)
TL addr_bw(const C& c, const TL& g) {
  const BetaAlphaAttrs& at = c.attrs<BetaAlphaAttrs>();
  return {c.needs(0) ? times_bw(g[0], at.beta) : Tensor(),
          c.needs(1) ? times_bw(mv(g[0], c.saved_input(2)), at.alpha) : Tensor(),
          c.needs(2) ? times_bw(mv(ops::t(g[0]), c.saved_input(1)), at.alpha) : Tensor()};
}
Tensor addr_jvp(const J& c) {
  const BetaAlphaAttrs& at = c.attrs<BetaAlphaAttrs>();
  Tensor prod;
  if (c.has(1)) prod = outer(t(c, 1), x(c, 2));
  if (c.has(2)) prod = plus(prod, outer(x(c, 1), t(c, 2)));
  if (prod.defined()) prod = times_fw(prod, at.alpha);
  return plus(c.has(0) && !at.beta.equals(0) ? times_fw(t(c, 0), at.beta) : Tensor(), prod);
}

// addbmm(self, b1, b2, beta, alpha) = beta * self + alpha * sum_b b1[b] @ b2[b]
TL addbmm_bw(const C& c, const TL& g) {
  const BetaAlphaAttrs& at = c.attrs<BetaAlphaAttrs>();
  TL out(3);
  if (c.needs(0)) out[0] = times_bw(g[0], at.beta);
  if (c.needs(1) || c.needs(2)) {
    const DimVector& s1 = c.input(1).shape;
    const DimVector& s2 = c.input(2).shape;
    Tensor ge = expand(unsqueeze(g[0], 0), {s1[0], s1[1], s2[2]});
    if (c.needs(1)) out[1] = times_bw(bmm(ge, transpose(c.saved_input(2), 1, 2)), at.alpha);
    if (c.needs(2)) out[2] = times_bw(bmm(transpose(c.saved_input(1), 1, 2), ge), at.alpha);
  }
  return out;
}
Tensor addbmm_jvp(const J& c) {
  const BetaAlphaAttrs& at = c.attrs<BetaAlphaAttrs>();
  Tensor prod;
  if (c.has(1)) prod = sum(bmm(t(c, 1), x(c, 2)), {0}, false);
  if (c.has(2)) prod = plus(prod, sum(bmm(x(c, 1), t(c, 2)), {0}, false));
  if (prod.defined()) prod = times_fw(prod, at.alpha);
  return plus(c.has(0) && !at.beta.equals(0) ? times_fw(t(c, 0), at.beta) : Tensor(), prod);
}

}  // namespace gradtrack::autograd::formulas
