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
