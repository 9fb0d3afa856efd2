// cdist and _euclidean_dist (see dist.h). Values come from existing ops with
// grad mode off over the [..., R1, R2, M] differences; the node is the op's row.
#include "ops/dist.h"

#include <cmath>

#include "kernels/search.h"
#include "ops/common.h"

namespace gradtrack::ops {

namespace {

// x1[..., i, None, :] - x2[..., None, j, :].
Tensor pair_diff(const Tensor& x1, const Tensor& x2) {
  return sub(unsqueeze(x1, -2), unsqueeze(x2, -3));
}

Tensor pnorm_dist(const Tensor& x1, const Tensor& x2, double p) {
  Tensor diff = pair_diff(x1, x2);
  if (p == 0) return to_dtype(sum(compare(Cmp::Ne, diff, Scalar(0.0)), {-1}, false), x1.dtype());
  Tensor a = abs(diff);
  if (p == 1) return sum(a, {-1}, false);
  if (p == 2) return sqrt(sum(mul(diff, diff), {-1}, false));
  if (std::isinf(p)) return amax(a, {-1}, false);
  return pow(sum(pow(a, Scalar(p)), {-1}, false), Scalar(1.0 / p));
}

DimVector batch_of(const Tensor& t) { return DimVector(t.sizes().begin(), t.sizes().end() - 2); }

}  // namespace

Tensor euclidean_dist(const Tensor& x1, const Tensor& x2) {
  Tensor out;
  {
    autograd::AutoGradMode off(false);
    Tensor n1 = sum(mul(x1, x1), {-1}, true);
    Tensor n2 = transpose(sum(mul(x2, x2), {-1}, true), -1, -2);
    Tensor prod = matmul(x1, transpose(x2, -1, -2));
    out = sqrt(clamp_min(sub(add(n1, n2), mul_by_scalar(prod, Scalar(2.0))), Scalar(0.0)));
  }
  record(OpKind::EuclideanDist, {&x1, &x2}, out);
  return out;
}

Tensor cdist(const Tensor& x1, const Tensor& x2, double p, int64_t mode) {
  GT_CHECK(x1.dim() >= 2, "cdist only supports at least 2D tensors, X1 got: ", x1.dim(), "D");
  GT_CHECK(x2.dim() >= 2, "cdist only supports at least 2D tensors, X2 got: ", x2.dim(), "D");
  GT_CHECK(x1.size(-1) == x2.size(-1),
           "X1 and X2 must have the same number of columns. X1: ", x1.size(-1),
           " X2: ", x2.size(-1));
  GT_CHECK(is_floating(x1.dtype()),
           "cdist only supports floating-point dtypes, X1 got: ", scalar_type_name(x1.dtype()));
  GT_CHECK(is_floating(x2.dtype()),
           "cdist only supports floating-point dtypes, X2 got: ", scalar_type_name(x2.dtype()));
  GT_CHECK(p >= 0, "cdist only supports non-negative p values");
  GT_CHECK(mode >= 0 && mode <= 2, mode, " is not a valid value for compute_mode");
  const int64_t r1 = x1.size(-2), r2 = x2.size(-2), m = x1.size(-1);
  DimVector batch = broadcast_shapes(batch_of(x1), batch_of(x2));
  DimVector out_shape = batch;
  out_shape.push_back(r1);
  out_shape.push_back(r2);
  const bool use_mm = p == 2 && (mode == 1 || (mode == 0 && (r1 > 25 || r2 > 25)));
  if (use_mm && r1 > 0 && r2 > 0 && m > 0) {
    // PyTorch flattens the batch, runs _euclidean_dist and views the result.
    int64_t b = 1;
    for (int64_t s : batch) b *= s;
    DimVector s1 = batch, s2 = batch;
    s1.push_back(r1);
    s1.push_back(m);
    s2.push_back(r2);
    s2.push_back(m);
    Tensor a = reshape(expand(x1, s1), {b, r1, m});
    Tensor c = reshape(expand(x2, s2), {b, r2, m});
    return view(euclidean_dist(a, c), out_shape);
  }
  Tensor out;
  {
    autograd::AutoGradMode off(false);
    if (r1 == 0 || r2 == 0 || m == 0) {
      out = zeros(out_shape, x1.dtype());
    } else {
      out = contiguous(pnorm_dist(x1, x2, p));
    }
  }
  record(OpKind::Cdist, {&x1, &x2}, out, [&](autograd::CdistAttrs& at) { at.p = p; });
  return out;
}

std::pair<Tensor, Tensor> cdist_grads(const Tensor& g, const Tensor& x1, const Tensor& x2,
                                      const Tensor& dist, double p) {
  Tensor diff = pair_diff(x1, x2);
  Tensor zero = zeros({}, g.dtype());
  Tensor d = unsqueeze(dist, -1), gg = unsqueeze(g, -1);
  Tensor is_zero = compare(Cmp::Eq, d, Scalar(0.0));
  Tensor dd;  // d dist / d x1 per pair, as PyTorch's cdist backward kernels
  if (p == 0) {
    dd = zeros_like(diff);
  } else if (p == 1) {
    dd = sign(diff);
  } else if (p == 2) {
    dd = where(is_zero, zero, div(diff, d));
  } else if (std::isinf(p)) {
    dd = mul(sign(diff), compare(Cmp::Eq, abs(diff), d));
  } else {
    Tensor a = abs(diff);
    Tensor num = p < 2 ? where(compare(Cmp::Eq, diff, Scalar(0.0)), zero,
                               mul(sign(diff), pow(a, Scalar(p - 1))))
                       : mul(diff, pow(a, Scalar(p - 2)));
    dd = where(is_zero, zero, div(num, pow(d, Scalar(p - 1))));
  }
  Tensor gd = mul(gg, dd);
  return {sum(gd, {-2}, false), neg(sum(gd, {-3}, false))};
}

Tensor searchsorted(const Tensor& boundaries, const Tensor& values, bool out_int32, bool right,
                    const Tensor& sorter) {
  autograd::AutoGradMode off(false);
  auto dense = [](const Tensor& t) {
    Tensor c = contiguous(t);
    return c.is_aligned() ? c : clone(c);
  };
  Tensor out = empty(values.sizes(), out_int32 ? ScalarType::Int32 : ScalarType::Int64);
  kernels::search_sorted(out, dense(values), dense(boundaries),
                         sorter.defined() ? dense(sorter) : Tensor(), right);
  return out;
}

}  // namespace gradtrack::ops
