// linalg.svd forward (kernels/svd.cpp per matrix, in double) and PyTorch's
// svd_backward for full_matrices=False.
#include "ops/svd.h"

#include "kernels/svd.h"
#include "ops/common.h"
#include "ops/extra_ops.h"

namespace gradtrack::ops {

std::tuple<Tensor, Tensor, Tensor> linalg_svd(const Tensor& a) {
  GT_CHECK(a.dim() >= 2, "linalg.svd: The input tensor A must have at least 2 dimensions.");
  GT_CHECK(is_floating(a.dtype()), "linalg.svd: Expected a floating point or complex tensor as ",
           "input. Got ", scalar_type_name(a.dtype()));
  const int64_t m = a.size(-2), n = a.size(-1), k = std::min(m, n);
  DimVector batch(a.sizes().begin(), a.sizes().end() - 2);
  int64_t count = 1;
  for (int64_t b : batch) count *= b;
  DimVector us = batch, ss = batch, vs = batch;
  us.push_back(m);
  us.push_back(k);
  ss.push_back(k);
  vs.push_back(k);
  vs.push_back(n);
  Tensor u = empty(us, ScalarType::Float64), s = empty(ss, ScalarType::Float64),
         vh = empty(vs, ScalarType::Float64);
  {
    autograd::AutoGradMode off(false);
    Tensor a64 = contiguous(to_dtype(a, ScalarType::Float64, true));
    const double* src = a64.data<double>();
    double *pu = u.data<double>(), *ps = s.data<double>(), *pv = vh.data<double>();
    for (int64_t b = 0; b < count; ++b)
      kernels::jacobi_svd(src + b * m * n, m, n, pu + b * m * k, ps + b * k, pv + b * k * n);
    if (a.dtype() != ScalarType::Float64) {
      u = to_dtype(u, a.dtype());
      s = to_dtype(s, a.dtype());
      vh = to_dtype(vh, a.dtype());
    }
  }
  if (autograd::should_record({&a})) {
    auto node = autograd::new_node(OpKind::LinalgSvd, {&a});
    // The node keeps aliases of its outputs without their history: saving the
    // outputs themselves would make a cycle (output -> node -> output).
    auto bare = [](const Tensor& t) {
      return alias_with_geometry(t, t.sizes(), t.strides(), t->offset());
    };
    Tensor bu = bare(u), bs = bare(s), bv = bare(vh);
    autograd::finish_node(node, {&a}, {&u, &s, &vh}, {&bu, &bs, &bv});
  }
  return {u, s, vh};
}

}  // namespace gradtrack::ops

namespace gradtrack::autograd::svd {

using namespace ::gradtrack::ops;  // NOLINT: the formula reads as math

namespace {

Tensor mT(const Tensor& x) { return transpose(x, -2, -1); }

}  // namespace

// PyTorch's svd_backward (full_matrices=False, real input).
TensorList linalg_svd_bw(const BackwardCtx& c, const TensorList& g) {
  if (GradMode::is_enabled()) {
    throw NotImplementedError(
        "gradtrack: double backward through linalg_svd (matrix norms 2, -2, 'nuc') is not "
        "implemented");
  }
  const Tensor &u = c.extra(0), &s = c.extra(1), &vh = c.extra(2);
  const Tensor &gu = g[0], &gs = g[1], &gvh = g[2];
  const int64_t m = u.size(-2), n = vh.size(-1);
  if (!gu.defined() && !gvh.defined()) {
    if (!gs.defined()) return {Tensor()};
    return {matmul(u, mul(unsqueeze(gs, -1), vh))};
  }
  auto skew = [](const Tensor& x) { return sub(x, mT(x)); };
  Tensor s2 = mul(s, s);
  Tensor e = sub(unsqueeze(s2, -2), unsqueeze(s2, -1));
  Tensor eye_k = diag_embed(ones(s.sizes(), s.dtype()), 0, -2, -1);
  e = add(e, eye_k);  // the diagonal of e is 0; it becomes 1
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

}  // namespace gradtrack::autograd::svd
