// Backward formulas of the round-2 tensor ops, written with differentiable
// ops (double backward works), as PyTorch's derivatives of the same ops.
#include "autograd/formulas_extra.h"

#include <algorithm>
#include <cmath>

#include "ops/extra_ops.h"
#include "ops/ops.h"

namespace gradtrack::autograd::extra {

namespace {

using namespace ::gradtrack::ops;  // NOLINT: the formulas read as math
using TL = TensorList;
using C = BackwardCtx;

// PyTorch's reversed_cumsum: sum over positions >= i along d.
Tensor reversed_cumsum(const Tensor& w, int64_t d) {
  return flip(cumsum(flip(w, {d}), d, std::nullopt), {d});
}

// A reduction's gradient with the reduced dims put back (size 1), so it
// broadcasts against the input.
Tensor keep_dims(const Tensor& g, const ReduceAttrs& at) {
  Tensor r = g;
  if (!at.keepdim) {
    for (int64_t d : at.dim) r = unsqueeze(r, d);
  }
  return r;
}

Tensor var_grad(const Tensor& g, const C& c) {
  const VarAttrs& at = c.attrs<VarAttrs>();
  const Tensor& x = c.saved_input(0);
  const double dof = double(at.reduced_numel) - at.correction;
  Tensor centered = sub(x, mean(x, at.dim, true, std::nullopt, true));
  return mul(mul_by_scalar(keep_dims(g, at), Scalar(2.0 / dof)), centered);
}

// d std = d var / (2 std), 0 where std is 0 (as PyTorch's masked_fill_).
Tensor std_to_var_grad(const Tensor& g, const Tensor& result) {
  Tensor gv = div(g, mul_by_scalar(result, Scalar(2.0)));
  return masked_fill(gv, compare(Cmp::Eq, result, Scalar(0.0)), zeros({}, gv.dtype()));
}

Tensor mean_grad(const Tensor& g, const C& c) {
  const VarAttrs& at = c.attrs<VarAttrs>();
  return div_by_scalar(expand(keep_dims(g, at), c.input(0).shape), Scalar(at.reduced_numel));
}

}  // namespace

TL cumsum_bw(const C& c, const TL& g) {
  const int64_t d = c.attrs<DimAttrs>().dim;
  if (numel_of(c.input(0).shape) <= 1 || c.input(0).shape[size_t(d)] == 1) return {g[0]};
  return {reversed_cumsum(g[0], d)};
}

// The gradient as the polynomial it is, without dividing: for each i,
// prod_{j<i} x_j * sum_{k>=i} g_k prod_{i<j<=k} x_j, built from an n x n
// expansion of each line (O(n^2)). Used only to differentiate again
// (create_graph) through a line with zeros, where the other form's second
// derivative would miss the terms of the elements after the first zero.
Tensor cumprod_grad_exact(const Tensor& x, const Tensor& g, int64_t d) {
  Tensor xl = transpose(x, d, -1), gl = transpose(g, d, -1);
  const int64_t n = xl.sizes().back();
  DimVector square(xl.sizes());
  square.insert(square.size() - 1, n);
  Tensor xk = expand(unsqueeze(xl, -2), square);  // [..., i, k] = x_k
  Tensor pos = arange(Scalar(int64_t(0)), Scalar(n), Scalar(int64_t(1)), ScalarType::Int64);
  Tensor row = unsqueeze(pos, 1);
  Tensor one = ones({}, x.dtype()), zero = zeros({}, x.dtype());
  Tensor after = cumprod(where(compare(Cmp::Gt, pos, row), xk, one), -1, std::nullopt);
  Tensor terms = where(compare(Cmp::Ge, pos, row), mul(unsqueeze(gl, -2), after), zero);
  Tensor prefix =
      select(cumprod(where(compare(Cmp::Lt, pos, row), xk, one), -1, std::nullopt), -1, n - 1);
  return transpose(mul(prefix, sum(terms, {-1}, false, std::nullopt, true)), d, -1);
}

// Without zeros: reversed_cumsum(g * y) / x. Along a line with zeros, only
// the elements before the first zero and the first zero itself have a
// gradient; the first zero's sums g_k times the products that skip it, which
// is the cumprod of the line with that zero replaced by 1.
TL cumprod_bw(const C& c, const TL& g) {
  const Tensor& x = c.saved_input(0);
  const int64_t d = c.attrs<DimAttrs>().dim;
  if (x.numel() <= 1 || x.sizes()[size_t(d)] == 1) return {g[0]};
  Tensor is_zero = compare(Cmp::Eq, x, Scalar(0.0));
  if (!*ops::any(is_zero, std::nullopt, false).data<bool>()) {
    return {div(reversed_cumsum(mul(g[0], c.result()), d), x)};
  }
  if (GradMode::is_enabled()) return {cumprod_grad_exact(x, g[0], d)};
  Tensor zeros_so_far = cumsum(is_zero, d, std::nullopt);
  Tensor before = compare(Cmp::Eq, zeros_so_far, Scalar(int64_t(0)));
  Tensor first = logical(Logic::And, is_zero, compare(Cmp::Eq, zeros_so_far, Scalar(int64_t(1))));
  Tensor one = ones({}, x.dtype()), zero = zeros({}, g[0].dtype());
  Tensor head = div(reversed_cumsum(mul(g[0], c.result()), d), where(before, x, one));
  Tensor skipped = cumprod(where(first, one, x), d, std::nullopt);
  Tensor at_zero = reversed_cumsum(mul(g[0], skipped), d);
  return {where(before, head, where(first, at_zero, zero))};
}

TL value_select_bw(const C& c, const TL& g) {
  if (c.input(0).shape.empty()) return {g[0]};
  Tensor z = zeros(c.input(0).shape, g[0].dtype());
  return {inplace_scatter(z, c.attrs<DimAttrs>().dim, c.extra(0), g[0])};
}

TL var_bw(const C& c, const TL& g) { return {var_grad(g[0], c)}; }

TL std_bw(const C& c, const TL& g) { return {var_grad(std_to_var_grad(g[0], c.result()), c)}; }

// The engine passes an output nothing used as absent (PyTorch's undefined gradient): with
// dof <= 0 the var term is 0 * inf = NaN, which must not reach the mean's gradient.
Tensor sum_defined(const Tensor& a, const Tensor& b) {
  return !a.defined() ? b : !b.defined() ? a : add(a, b);
}

TL var_mean_bw(const C& c, const TL& g) {
  return {sum_defined(g[0].defined() ? var_grad(g[0], c) : Tensor(),
                      g[1].defined() ? mean_grad(g[1], c) : Tensor())};
}

TL std_mean_bw(const C& c, const TL& g) {
  return {sum_defined(g[0].defined() ? var_grad(std_to_var_grad(g[0], c.result()), c) : Tensor(),
                      g[1].defined() ? mean_grad(g[1], c) : Tensor())};
}

// g * exp(x - result), the result's reduced dims put back.
TL logsumexp_bw(const C& c, const TL& g) {
  const ReduceAttrs& at = c.attrs<ReduceAttrs>();
  const Tensor& x = c.saved_input(0);
  return {mul(keep_dims(g[0], at), exp(sub(x, keep_dims(c.result(), at))))};
}

TL tril_bw(const C& c, const TL& g) {
  return {tril(g[0], c.attrs<TriangleAttrs>().diagonal, false)};
}
TL triu_bw(const C& c, const TL& g) {
  return {tril(g[0], c.attrs<TriangleAttrs>().diagonal, true)};
}
TL flip_bw(const C& c, const TL& g) { return {flip(g[0], c.attrs<DimsAttrs>().dims)}; }

TL roll_bw(const C& c, const TL& g) {
  const RollAttrs& at = c.attrs<RollAttrs>();
  DimVector back;
  for (int64_t s : at.shifts) back.push_back(-s);
  return {roll(g[0], back, at.dims)};
}

// The gradient seen as [r0, s0, r1, s1, ...], summed over the repeats.
TL repeat_bw(const C& c, const TL& g) {
  const DimVector& reps = c.attrs<RepeatAttrs>().repeats;
  const DimVector& in = c.input(0).shape;
  const size_t nd = reps.size(), lead = nd - in.size();
  DimVector split, rdims;
  for (size_t i = 0; i < nd; ++i) {
    split.push_back(reps[i]);
    split.push_back(i < lead ? 1 : in[i - lead]);
    rdims.push_back(static_cast<int64_t>(2 * i));
  }
  if (numel_of(split) == 0) return {zeros(in, g[0].dtype())};
  return {reshape(sum(reshape(g[0], split), rdims, false, std::nullopt, true), in)};
}

TL value_reduce_bw(const C& c, const TL& g) {
  const DimReduceAttrs& at = c.attrs<DimReduceAttrs>();
  if (c.input(0).shape.empty()) return {g[0]};
  Tensor idx = c.extra(0), gg = g[0];
  if (!at.keepdim) {
    idx = unsqueeze(idx, at.dim);
    gg = unsqueeze(gg, at.dim);
  }
  Tensor z = zeros(c.input(0).shape, g[0].dtype());
  return {inplace_scatter(z, at.dim, idx, gg)};
}

TL median_all_bw(const C& c, const TL& g) {
  const Tensor& x = c.saved_input(0);
  const Tensor& r = c.result();
  Tensor mask = logical(Logic::Or, compare(Cmp::Eq, x, r), logical(Logic::And, isnan(x), isnan(r)));
  Tensor count = sum(mask, {}, false);
  // PyTorch's CPU evenly_distribute_backward fills the share into the matching elements
  // (masked_fill), so a NaN gradient stays there instead of 0 * NaN spreading to all.
  return {where(mask, div(g[0], count), zeros({}, g[0].dtype()))};
}

TL diagonal_bw(const C& c, const TL& g) {
  const DiagonalAttrs& at = c.attrs<DiagonalAttrs>();
  return {diagonal_backward(g[0], c.input(0).shape, at.offset, at.dim1, at.dim2)};
}

TL diagonal_backward_bw(const C& c, const TL& g) {
  const DiagonalAttrs& at = c.attrs<DiagonalAttrs>();
  return {diagonal(g[0], at.offset, at.dim1, at.dim2)};
}

// The gradient on the main diagonal of the matrix.
TL trace_bw(const C& c, const TL& g) {
  const DimVector& s = c.input(0).shape;
  const int64_t len = std::min(s[0], s[1]);
  return {diagonal_backward(expand(g[0], {len}), s, 0, 0, 1)};
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

// PyTorch's norm_backward: p = 0 has no gradient; inf shares it among the
// elements of largest magnitude; otherwise sgn(x) |x|^(p-1) / norm^(p-1).
TL vector_norm_bw(const C& c, const TL& g) {
  const VectorNormAttrs& at = c.attrs<VectorNormAttrs>();
  const Tensor& x = c.saved_input(0);
  const double p = at.ord;
  Tensor gg = keep_dims(g[0], at), norm = keep_dims(c.result(), at);
  Tensor zero = zeros({}, x.dtype());
  if (p == 0) return {Tensor()};  // no gradient, as PyTorch's (not even zeros)
  if (p == 1) return {mul(sgn(x), gg)};
  if (std::isinf(p)) {
    Tensor mask = to_dtype(compare(Cmp::Eq, abs(x), norm), x.dtype());
    Tensor count = sum(mask, at.dim, true, std::nullopt, true);
    return {mul(mul(sgn(x), div(mask, count)), gg)};
  }
  Tensor norm_is_zero = compare(Cmp::Eq, norm, Scalar(0.0));
  if (p == 2) return {mul(x, where(norm_is_zero, zero, div(gg, norm)))};
  Tensor scaled = mul(sgn(x), pow(abs(x), Scalar(p - 1)));
  if (p < 1) scaled = where(compare(Cmp::Eq, x, Scalar(0.0)), zero, scaled);
  return {mul(scaled, where(norm_is_zero, zero, div(gg, pow(norm, Scalar(p - 1)))))};
}

TL baddbmm_bw(const C& c, const TL& g) {
  const BetaAlphaAttrs& at = c.attrs<BetaAlphaAttrs>();
  auto scale = [](const Tensor& t, Scalar s) { return s.equals(1) ? t : mul_by_scalar(t, s); };
  return {c.needs(0) ? scale(g[0], at.beta) : Tensor(),
          c.needs(1) ? scale(bmm(g[0], transpose(c.saved_input(2), 1, 2)), at.alpha) : Tensor(),
          c.needs(2) ? scale(bmm(transpose(c.saved_input(1), 1, 2), g[0]), at.alpha) : Tensor()};
}

TL addmv_bw(const C& c, const TL& g) {
  const BetaAlphaAttrs& at = c.attrs<BetaAlphaAttrs>();
  auto scale = [](const Tensor& t, Scalar s) { return s.equals(1) ? t : mul_by_scalar(t, s); };
  return {c.needs(0) ? scale(g[0], at.beta) : Tensor(),
          c.needs(1) ? scale(outer(g[0], c.saved_input(2)), at.alpha) : Tensor(),
          c.needs(2) ? scale(mv(t(c.saved_input(1)), g[0]), at.alpha) : Tensor()};
}

TL cross_bw(const C& c, const TL& g) {
  const int64_t d = c.attrs<DimAttrs>().dim;
  return {c.needs(0) ? cross(c.saved_input(1), g[0], d) : Tensor(),
          c.needs(1) ? cross(g[0], c.saved_input(0), d) : Tensor()};
}

}  // namespace gradtrack::autograd::extra
