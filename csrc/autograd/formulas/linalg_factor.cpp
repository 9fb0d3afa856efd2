// The backward formulas of the factorizations (inv_ex, det, slogdet, solve_ex,
// solve_triangular, cholesky_ex, cholesky_solve) and their forward-mode formulas
// beside them: PyTorch's derivatives table for real input, written with
// differentiable ops (the solves record their own nodes) so double backward works.
// The rows naming them are python/gradtrack/_declarations/linalg_factor.py.
#include "autograd/formulas/common.h"

namespace gradtrack::autograd::formulas {

namespace {
Tensor mT(const Tensor& x) { return transpose(x, -2, -1); }
/// g (a batch of numbers) times the identity of order n: diag_embed of g repeated.
Tensor times_eye(const Tensor& g, int64_t n) {
  DimVector sizes = g.sizes();
  sizes.push_back(n);
  return diag_embed(expand(unsqueeze(g, -1), sizes), 0, -2, -1);
}
Tensor trace_of(const Tensor& m) { return sum(diagonal(m, 0, -2, -1), {-1}, false); }
/// The triangle of a triangular solve's matrix (its diagonal left out when unit).
Tensor triangle(const Tensor& m, const LinalgAttrs& at) {
  return at.upper ? tril(m, at.unitriangular ? 1 : 0, true)
                  : tril(m, at.unitriangular ? -1 : 0, false);
}
/// linalg.solve's vector case, from the inputs' shapes (ops/linalg_factor.cpp).
bool vector_case(const DimVector& a, const DimVector& b) {
  if (b.size() == 1) return true;
  if (b.size() + 1 != a.size()) return false;
  for (size_t d = 0; d < b.size(); ++d)
    if (a[d] != b[d]) return false;
  return true;
}
}  // namespace

// inverse: -A^-T g A^-T (the saved result is A^-1).
TL linalg_inv_ex_bw(const C& c, const TL& g) {
  const Tensor& inv = c.result();
  return {neg(matmul(mT(inv), matmul(g[0], mT(inv))))};
}
Tensor linalg_inv_ex_jvp(const J& c) { return neg(matmul(matmul(c.result, t(c, 0)), c.result)); }

// det: g det A^-T. At a singular A, PyTorch's backward solves with the zero pivots
// of A's LU nudged by epsilon: g det is 0 there, and so is the gradient, which a solve
// with the identity in A's place gives too. (With create_graph, PyTorch takes it from
// the SVD instead: not followed, it raises.)
TL linalg_det_bw(const C& c, const TL& g) {
  const Tensor &a = c.saved_input(0), &det = c.result();
  const int64_t n = a.size(-1);
  Tensor singular;
  bool any_singular = false;
  {
    AutoGradMode off(false);
    singular = compare(Cmp::Eq, det, Scalar(0.0));
    Tensor values = contiguous(to_dtype(singular, ScalarType::Float64));
    for (int64_t i = 0; i < values.numel() && n > 0; ++i)
      any_singular |= values.data<double>()[i] != 0;
  }
  if (!any_singular) return {linalg_solve(mT(a), times_eye(mul(g[0], det), n), true)};
  if (GradMode::is_enabled()) {
    throw NotImplementedError(
        "gradtrack: double backward of linalg.det at a singular matrix is not implemented");
  }
  Tensor safe = where(unsqueeze(unsqueeze(singular, -1), -1), eye(n, n, a.dtype()), a);
  return {linalg_solve(mT(safe), times_eye(mul(g[0], det), n), true)};
}
Tensor linalg_det_jvp(const J& c) {
  return mul(c.result, trace_of(linalg_solve(x(c, 0), t(c, 0), true)));
}

// slogdet: only logabsdet has a gradient, g A^-T.
TL linalg_slogdet_bw(const C& c, const TL& g) {
  if (!g[1].defined()) return {Tensor()};
  const Tensor& a = c.saved_input(0);
  return {linalg_solve(mT(a), times_eye(g[1], a.size(-1)), true)};
}
Tensor linalg_slogdet_jvp(const J& c) { return trace_of(linalg_solve(x(c, 0), t(c, 0), true)); }

// solve: gB = A^-T g (g A^-T for X A = B), gA = -gB X^T (-X^T gB).
TL linalg_solve_ex_bw(const C& c, const TL& g) {
  const bool left = c.attrs<LinalgAttrs>().left;
  const Tensor &a = c.saved_input(0), &x = c.result();
  const bool vec = vector_case(c.input(0).shape, c.input(1).shape);
  const int64_t at = -1;  // a vector B is a column
  Tensor gx = vec ? unsqueeze(g[0], at) : g[0], xm = vec ? unsqueeze(x, at) : x;
  Tensor gb = linalg_solve(mT(a), gx, left);
  Tensor ga;
  if (c.needs(0)) ga = neg(left ? matmul(gb, mT(xm)) : matmul(mT(xm), gb));
  return {ga, c.needs(1) ? (vec ? squeeze(gb, at) : gb) : Tensor()};
}
Tensor linalg_solve_ex_jvp(const J& c) {
  const bool left = c.attrs<LinalgAttrs>().left;
  const Tensor &a = x(c, 0), &x_ = c.result;
  const bool vec = vector_case(a.sizes(), x(c, 1).sizes());
  const int64_t at = -1;  // a vector B is a column
  Tensor xm = vec ? unsqueeze(x_, at) : x_;
  Tensor rhs;
  if (c.has(1)) rhs = vec ? unsqueeze(t(c, 1), at) : t(c, 1);
  if (c.has(0)) {
    Tensor da_x = left ? matmul(t(c, 0), xm) : matmul(xm, t(c, 0));
    rhs = rhs.defined() ? sub(rhs, da_x) : neg(da_x);
  }
  Tensor dx = linalg_solve(a, rhs, left);
  return vec ? squeeze(dx, at) : dx;
}

// solve_triangular: gB = A^-T g with the other triangle, gA = -gB X^T
// (-X^T gB) cut to A's triangle.
TL linalg_solve_triangular_bw(const C& c, const TL& g) {
  const LinalgAttrs& at = c.attrs<LinalgAttrs>();
  const Tensor &a = c.saved_input(0), &x = c.result();
  Tensor gb = linalg_solve_triangular(mT(a), g[0], !at.upper, at.left, at.unitriangular);
  Tensor ga;
  if (c.needs(0)) ga = triangle(neg(at.left ? matmul(gb, mT(x)) : matmul(mT(x), gb)), at);
  return {ga, c.needs(1) ? gb : Tensor()};
}
Tensor linalg_solve_triangular_jvp(const J& c) {
  const LinalgAttrs& at = c.attrs<LinalgAttrs>();
  Tensor rhs = c.has(1) ? t(c, 1) : Tensor();
  if (c.has(0)) {
    Tensor da = triangle(t(c, 0), at);
    Tensor da_x = at.left ? matmul(da, c.result) : matmul(c.result, da);
    rhs = rhs.defined() ? sub(rhs, da_x) : neg(da_x);
  }
  return linalg_solve_triangular(x(c, 0), rhs, at.upper, at.left, at.unitriangular);
}

namespace {
/// The lower triangle of m with its diagonal halved (PyTorch's phi).
Tensor lower_half_diagonal(const Tensor& m) {
  return add(tril(m, -1, false), times(diag_embed(diagonal(m, 0, -2, -1), 0, -2, -1), 0.5));
}
}  // namespace

// cholesky: for A = L L^T, gA = sym(L^-T phi(L^T gL) L^-1), sym(M) = (M + M^T) / 2.
TL linalg_cholesky_ex_bw(const C& c, const TL& g) {
  const bool upper = c.attrs<LinalgAttrs>().upper;
  const Tensor l = upper ? mT(c.result()) : c.result();
  const Tensor gl = upper ? mT(g[0]) : g[0];
  Tensor phi = lower_half_diagonal(matmul(mT(l), gl));
  Tensor left_solved = linalg_solve_triangular(mT(l), phi, true, true, false);
  Tensor ga = linalg_solve_triangular(l, left_solved, false, false, false);
  return {times(add(ga, mT(ga)), 0.5)};
}
// dL = L phi(L^-1 dA L^-T).
Tensor linalg_cholesky_ex_jvp(const J& c) {
  const bool upper = c.attrs<LinalgAttrs>().upper;
  const Tensor l = upper ? mT(c.result) : c.result;
  Tensor y = linalg_solve_triangular(l, t(c, 0), false, true, false);
  Tensor m = linalg_solve_triangular(mT(l), y, true, false, false);
  Tensor dl = matmul(l, lower_half_diagonal(m));
  return upper ? mT(dl) : dl;
}
// torch.cholesky: the same formula (torch has no forward-mode derivative for it).
TL cholesky_bw(const C& c, const TL& g) { return linalg_cholesky_ex_bw(c, g); }

// cholesky_solve: X = (L L^T)^-1 B; gB = cholesky_solve(g), and with
// S = -(gB X^T + X gB^T), gL = S L (U S for A = U^T U).
TL cholesky_solve_bw(const C& c, const TL& g) {
  const bool upper = c.attrs<LinalgAttrs>().upper;
  const Tensor &l = c.saved_input(1), &x = c.result();
  Tensor gb = cholesky_solve(g[0], l, upper);
  Tensor gl;
  if (c.needs(1)) {
    Tensor common = neg(matmul(gb, mT(x)));
    common = add(common, mT(common));
    gl = upper ? matmul(l, common) : matmul(common, l);
  }
  return {c.needs(0) ? gb : Tensor(), gl};
}
// dX = cholesky_solve(dB - dA X), dA = dL L^T + L dL^T (dU^T U + U^T dU).
Tensor cholesky_solve_jvp(const J& c) {
  const bool upper = c.attrs<LinalgAttrs>().upper;
  const Tensor& l = x(c, 1);
  Tensor rhs = c.has(0) ? t(c, 0) : Tensor();
  if (c.has(1)) {
    Tensor half = upper ? matmul(mT(t(c, 1)), l) : matmul(t(c, 1), mT(l));
    Tensor da_x = matmul(add(half, mT(half)), c.result);
    rhs = rhs.defined() ? sub(rhs, da_x) : neg(da_x);
  }
  return cholesky_solve(rhs, l, upper);
}

}  // namespace gradtrack::autograd::formulas
