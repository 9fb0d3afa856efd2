// Matrix products, the cross product, the trace and pairwise distances.
// The backward formulas of their nodes and, beside them, the forward-mode
// formulas that are not derived from a backward. The rows naming them are
// python/gradtrack/_declarations/linalg.py (NOTE [One declaration per op]).
#include <algorithm>

#include "autograd/formulas/common.h"

namespace gradtrack::autograd::formulas {

namespace {
// PyTorch's mm_mat1_backward / mm_mat2_backward: an input that was column-major
// when the product was taken (strides (1, rows)) gets its gradient column-major
// too, as the transpose of a product.
bool column_major(const GradMeta& input, const DimVector& strides) {
  return strides.size() == 2 && strides[0] == 1 && strides[1] == input.shape[0];
}
Tensor mm_mat1_bw(const Tensor& g, const Tensor& mat2, bool col) {
  return col ? t(mm(mat2, t(g))) : mm(g, t(mat2));
}
Tensor mm_mat2_bw(const Tensor& g, const Tensor& mat1, bool col) {
  return col ? t(mm(t(g), mat1)) : mm(t(mat1), g);
}

}  // namespace
TL mm_bw(const C& c, const TL& g) {
  const MmAttrs& at = c.attrs<MmAttrs>();
  return {c.needs(0) ? mm_mat1_bw(g[0], c.saved_input(1), column_major(c.input(0), at.mat1_strides))
                     : Tensor(),
          c.needs(1) ? mm_mat2_bw(g[0], c.saved_input(0), column_major(c.input(1), at.mat2_strides))
                     : Tensor()};
}
TL mv_bw(const C& c, const TL& g) {
  return {c.needs(0) ? outer(g[0], c.saved_input(1)) : Tensor(),
          c.needs(1) ? mv(t(c.saved_input(0)), g[0]) : Tensor()};
}
TL dot_bw(const C& c, const TL& g) {
  // grad * other, in PyTorch's operand order (create_graph shows it).
  return {c.needs(0) ? mul(g[0], c.saved_input(1)) : Tensor(),
          c.needs(1) ? mul(g[0], c.saved_input(0)) : Tensor()};
}
TL bmm_bw(const C& c, const TL& g) {
  return {c.needs(0) ? bmm(g[0], transpose(c.saved_input(1), 1, 2)) : Tensor(),
          c.needs(1) ? bmm(transpose(c.saved_input(0), 1, 2), g[0]) : Tensor()};
}
TL addmm_bw(const C& c, const TL& g) {
  const AddmmAttrs& at = c.attrs<AddmmAttrs>();
  const bool col1 = column_major(c.input(1), at.mat1_strides);
  const bool col2 = column_major(c.input(2), at.mat2_strides);
  return {c.needs(0) ? scale(g[0], at.beta) : Tensor(),
          c.needs(1) ? scale(mm_mat1_bw(g[0], c.saved_input(2), col1), at.alpha) : Tensor(),
          c.needs(2) ? scale(mm_mat2_bw(g[0], c.saved_input(1), col2), at.alpha) : Tensor()};
}
// The gradient on the main diagonal of the matrix.
TL trace_bw(const C& c, const TL& g) {
  const DimVector& s = c.input(0).shape;
  const int64_t len = std::min(s[0], s[1]);
  return {diagonal_backward(expand(g[0], {len}), s, 0, 0, 1)};
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
// cdist's gradients are torch's _cdist_backward, which has no derivative of its
// own: computed without a graph, each is one CdistBackwardBackward0 node (edges to
// the gradient, its x, the other x and the distances) whose backward raises.
TL cdist_bw(const C& c, const TL& g) {
  const Tensor &x1 = c.saved_input(0), &x2 = c.saved_input(1);
  const Tensor dist = c.result();
  Tensor g1, g2;
  {
    AutoGradMode off(false);
    auto [a, b] = ops::cdist_grads(g[0], x1, x2, dist, c.attrs<CdistAttrs>().p);
    g1 = ops::sum_to(a, c.input(0).shape);
    g2 = ops::sum_to(b, c.input(1).shape);
  }
  if (GradMode::is_enabled()) {
    ops::record(OpKind::CdistBackward, {&g[0], &x1, &x2, &dist}, g1);
    ops::record(OpKind::CdistBackward, {&g[0], &x2, &x1, &dist}, g2);
  }
  return {g1, g2};
}
TL cdist_backward_bw(const C&, const TL&) {
  throw NotImplementedError("the derivative for '_cdist_backward' is not implemented.");
}
// PyTorch's _euclidean_dist_backward: ratio = g / dist (0 where dist is 0).
TL euclidean_dist_bw(const C& c, const TL& g) {
  const Tensor& x1 = c.saved_input(0);
  const Tensor& x2 = c.saved_input(1);
  Tensor ratio = ops::div(g[0], c.result());
  ratio = ops::masked_fill(ratio, ops::compare(ops::Cmp::Eq, c.result(), Scalar(0.0)),
                           ops::zeros({}, ratio.dtype()));
  TL out(2);
  if (c.needs(0)) {
    out[0] = ops::sub(ops::mul(x1, ops::sum(ratio, {-1}, true)), ops::matmul(ratio, x2));
  }
  if (c.needs(1)) {
    Tensor rt = ops::transpose(ratio, -1, -2);
    out[1] = ops::sub(ops::mul(x2, ops::sum(rt, {-1}, true)), ops::matmul(rt, x1));
  }
  return out;
}

namespace {
// NOLINT: x(c), t(c) as in the other formulas
// Tangent i times `f`, when input i has a tangent.
template <typename F>
Tensor term(const J& c, size_t i, const F& f) {
  return c.has(i) ? f(t(c, i)) : Tensor();
}

}  // namespace
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
Tensor trace_jvp(const J& c) { return sum(diagonal(t(c), 0, 0, 1), {}, false); }
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

}  // namespace gradtrack::autograd::formulas
