// The backward formulas of the decompositions (svd, qr, eigh) and their
// forward-mode tangents: PyTorch's derivatives for real input. The rows naming
// them are python/gradtrack/_declarations/linalg_decompose.py.
// Each node saves its outputs as outputs (finish_node_saving_outputs), so these
// formulas, written with differentiable ops, give double backward too.
#include "autograd/formulas/linalg_decompose.h"

#include <algorithm>

#include "autograd/formulas/common.h"

namespace gradtrack::autograd::formulas {

namespace {
Tensor mT(const Tensor& x) { return transpose(x, -2, -1); }
Tensor triu(const Tensor& x, int64_t k = 0) { return tril(x, k, true); }
Tensor strict_tril(const Tensor& x) { return tril(x, -1, false); }
/// Ones off the diagonal, zeros on it, for k x k matrices of `like`'s dtype.
Tensor off_diagonal(int64_t k, ScalarType dtype) {
  return sub(ones({k, k}, dtype), eye(k, k, dtype));
}
/// rows[..., None, :] - rows[..., :, None] with ones on the diagonal: the
/// denominators of the off-diagonal terms (their diagonal is masked away).
Tensor gaps(const Tensor& v) {
  const int64_t k = v.size(-1);
  return add(sub(unsqueeze(v, -2), unsqueeze(v, -1)), eye(k, k, v.dtype()));
}
}  // namespace

// ---- svd ------------------------------------------------------------------------------------

// PyTorch's svd_backward (real input); with full_matrices, U, Vh and their
// gradients narrowed to the k = min(m, n) singular vectors first, as torch's.
TensorList linalg_svd_bw(const BackwardCtx& c, const TensorList& g) {
  const Tensor& s = c.extra(1);
  const int64_t k = s.size(-1);
  const bool full = c.attrs<LinalgAttrs>().full_matrices;
  auto narrow_u = [&](const Tensor& x) { return full && x.defined() ? narrow(x, -1, 0, k) : x; };
  auto narrow_v = [&](const Tensor& x) { return full && x.defined() ? narrow(x, -2, 0, k) : x; };
  const Tensor u = narrow_u(c.extra(0)), vh = narrow_v(c.extra(2));
  const Tensor gu = narrow_u(g[0]), gs = g[1], gvh = narrow_v(g[2]);
  const int64_t m = u.size(-2), n = vh.size(-1);
  if (!gu.defined() && !gvh.defined()) {
    if (!gs.defined()) return {Tensor()};
    return {matmul(u, mul(unsqueeze(gs, -1), vh))};
  }
  auto skew = [](const Tensor& x) { return sub(x, mT(x)); };
  Tensor e = gaps(mul(s, s));  // s_j^2 - s_i^2, 1 on the diagonal (where skew(.) is 0)
  Tensor ga;
  Tensor ss_row = unsqueeze(s, -2), ss_col = unsqueeze(s, -1);
  if (gu.defined() && gvh.defined()) {
    ga = div(add(mul(skew(matmul(mT(u), gu)), ss_row), mul(ss_col, skew(matmul(vh, mT(gvh))))), e);
  } else if (gu.defined()) {
    ga = mul(div(skew(matmul(mT(u), gu)), e), ss_row);
  } else {
    ga = mul(ss_col, div(skew(matmul(vh, mT(gvh))), e));
  }
  if (gs.defined()) ga = add(ga, diag_embed(gs, 0, -2, -1));
  if (m > n && gu.defined()) {
    ga = matmul(u, ga);
    Tensor gu_sinv = div(gu, ss_row);
    ga = add(ga, sub(gu_sinv, matmul(u, matmul(mT(u), gu_sinv))));
    return {matmul(ga, vh)};
  }
  if (m < n && gvh.defined()) {
    ga = matmul(ga, vh);
    Tensor gv_sinv = div(mT(gvh), ss_row);
    ga = add(ga, sub(mT(gv_sinv), matmul(matmul(mT(gv_sinv), mT(vh)), vh)));
    return {matmul(u, ga)};
  }
  return {matmul(u, matmul(ga, vh))};
}

// With P = U^T dA V: dS = diag(P), U^T dU = F o (P S + S P^T), V^T dV = F o (S P +
// P^T S) with F_ij = 1 / (s_j^2 - s_i^2) off the diagonal, plus the parts outside
// the spans of U (m > k) and V (n > k).
std::tuple<Tensor, Tensor, Tensor> linalg_svd_tangents(const Tensor& da, const Tensor& u,
                                                       const Tensor& s, const Tensor& vh) {
  const int64_t m = u.size(-2), n = vh.size(-1), k = s.size(-1);
  Tensor v = mT(vh);
  Tensor p = matmul(mT(u), matmul(da, v));
  Tensor ds = diagonal(p, 0, -2, -1, true);
  Tensor f = div(off_diagonal(k, s.dtype()), gaps(mul(s, s)));
  Tensor srow = unsqueeze(s, -2), scol = unsqueeze(s, -1);
  Tensor du = matmul(u, mul(f, add(mul(p, srow), mul(scol, mT(p)))));
  Tensor dv = matmul(v, mul(f, add(mul(scol, p), mul(mT(p), srow))));
  if (m > k) {
    Tensor w = div(matmul(da, v), srow);
    du = add(du, sub(w, matmul(u, matmul(mT(u), w))));
  }
  if (n > k) {
    Tensor w = div(matmul(mT(da), u), srow);
    dv = add(dv, sub(w, matmul(v, matmul(vh, w))));
  }
  return {du, ds, mT(dv)};
}

// ---- qr -------------------------------------------------------------------------------------

namespace {
/// A = Q R with R square (m >= n): gA = [gQ + Q copyutl(M)] R^-T, M = gR R^T - Q^T gQ
/// and copyutl(M) = triu(M) + triu(M, 1)^T.
Tensor qr_square_bw(const Tensor& gq, const Tensor& gr, const Tensor& q, const Tensor& r) {
  Tensor m;
  if (gr.defined()) m = matmul(gr, mT(r));
  if (gq.defined()) m = m.defined() ? sub(m, matmul(mT(q), gq)) : neg(matmul(mT(q), gq));
  Tensor b = matmul(q, add(triu(m), mT(triu(m, 1))));
  if (gq.defined()) b = add(b, gq);
  return linalg_solve_triangular(mT(r), b, false, false, false);
}
}  // namespace

TensorList linalg_qr_bw(const BackwardCtx& c, const TensorList& g) {
  const int mode = c.attrs<LinalgAttrs>().mode;
  const Tensor &q = c.extra(0), &r = c.extra(1);
  if (mode == 2) {
    throw Error(
        "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please "
        "use linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.");
  }
  const int64_t m = q.size(-2), n = r.size(-1);
  if (mode == 1 && m > n) {
    throw Error(
        "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.");
  }
  const Tensor &gq = g[0], &gr = g[1];
  if (!gq.defined() && !gr.defined()) return {Tensor()};
  if (m >= n) return {qr_square_bw(gq, gr, q, r)};
  // A = Q [R1 R2] = [X Y]: R2 = Q^T Y, so Y's gradient is Q gR2 and Q's gains Y gR2^T.
  Tensor gx, gy;
  Tensor r1 = narrow(r, -1, 0, m), y;
  Tensor gr1 = gr.defined() ? narrow(gr, -1, 0, m) : Tensor();
  Tensor gq1 = gq;
  if (gr.defined()) {
    Tensor gr2 = narrow(gr, -1, m, n - m);
    y = matmul(q, narrow(r, -1, m, n - m));
    gq1 = gq.defined() ? add(gq, matmul(y, mT(gr2))) : matmul(y, mT(gr2));
    gy = matmul(q, gr2);
  } else {
    gy = zeros_like(narrow(r, -1, m, n - m));
    gy = matmul(q, gy);
  }
  gx = qr_square_bw(gq1, gr1, q, r1);
  return {cat({gx, gy}, -1)};
}

namespace {
/// The square case (m >= n): X = Q^T dA R^-1, C = tril(X, -1) - tril(X, -1)^T,
/// dR = (X - C) R, dQ = dA R^-1 - Q (X - C).
std::pair<Tensor, Tensor> qr_square_tangents(const Tensor& da, const Tensor& q, const Tensor& r) {
  Tensor da_rinv = linalg_solve_triangular(r, da, true, false, false);
  Tensor x = matmul(mT(q), da_rinv);
  Tensor lower = strict_tril(x);
  Tensor x_minus_c = add(triu(x), mT(lower));
  return {sub(da_rinv, matmul(q, x_minus_c)), matmul(x_minus_c, r)};
}
}  // namespace

std::pair<Tensor, Tensor> linalg_qr_tangents(const Tensor& da, const Tensor& q, const Tensor& r) {
  const int64_t m = q.size(-2), n = r.size(-1);
  if (m >= n) return qr_square_tangents(da, q, r);
  Tensor y = matmul(q, narrow(r, -1, m, n - m));
  auto [dq, dr1] = qr_square_tangents(narrow(da, -1, 0, m), q, narrow(r, -1, 0, m));
  Tensor dr2 = add(matmul(mT(dq), y), matmul(mT(q), narrow(da, -1, m, n - m)));
  return {dq, cat({dr1, dr2}, -1)};
}

// ---- eigh -----------------------------------------------------------------------------------

// gA = V (diag(gL) + skew(V^T gV) / (2 E)) V^T with E_ij = L_j - L_i: V^T gV
// projected onto the skew-symmetric matrices (the tangents of V), as PyTorch's.
TensorList linalg_eigh_bw(const BackwardCtx& c, const TensorList& g) {
  const Tensor &l = c.extra(0), &v = c.extra(1);
  const Tensor &gl = g[0], &gv = g[1];
  if (!gl.defined() && !gv.defined()) return {Tensor()};
  Tensor inner;
  if (gv.defined()) {
    Tensor vg = matmul(mT(v), gv);
    inner = div(mul(sub(vg, mT(vg)), Scalar(0.5)), gaps(l));
    inner = mul(inner, off_diagonal(l.size(-1), l.dtype()));
  }
  if (gl.defined()) {
    Tensor d = diag_embed(gl, 0, -2, -1);
    inner = inner.defined() ? add(inner, d) : d;
  }
  return {matmul(v, matmul(inner, mT(v)))};
}

// S = V^T dA V: dL = diag(S), dV = V (S o F), F_ij = 1 / (L_j - L_i) off the diagonal.
std::pair<Tensor, Tensor> linalg_eigh_tangents(const Tensor& da, const Tensor& l, const Tensor& v) {
  Tensor s = matmul(mT(v), matmul(da, v));
  Tensor f = div(off_diagonal(l.size(-1), l.dtype()), gaps(l));
  return {diagonal(s, 0, -2, -1, true), matmul(v, mul(s, f))};
}

}  // namespace gradtrack::autograd::formulas
