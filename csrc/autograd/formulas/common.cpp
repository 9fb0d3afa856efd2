// The helpers the formula files share (common.h).
#include "autograd/formulas/common.h"

#include <cmath>

#include "kernels/kernels.h"
#include "kernels/nn/activation.h"
#include "kernels/nn/norm.h"
#include "kernels/parallel.h"
#include "kernels/reduced_float.h"
#include "ops/nn/nn.h"

namespace gradtrack::autograd::formulas {

Tensor args::t_or_zero(const J& c, size_t i) {
  return c.has(i) ? c.tangents[i] : zeros(x(c, i).sizes(), c.result.dtype());
}
Tensor args::plus(const Tensor& a, const Tensor& b) {
  if (!a.defined()) return b;
  if (!b.defined()) return a;
  return add(a, b);
}

Tensor zero_scalar(const Tensor& like) { return zeros({}, like.dtype()); }
Tensor zero_scalar(const J& c) { return zeros({}, c.result.dtype()); }
Tensor zeros_of(const C& c, size_t i) { return zeros(c.input(i).shape, c.input(i).dtype); }
Tensor written_zeros_of(const C& c, size_t i) {
  Tensor z = zeros_of(c, i);
  z->bump_version();
  return z;
}
Tensor scale(const Tensor& g, Scalar s) { return s.equals(1) ? g : mul_by_scalar(g, s); }
Tensor times(const Tensor& t, double v) { return mul_by_scalar(t, Scalar(v)); }
Tensor plus(const Tensor& t, double v) { return add_by_scalar(t, Scalar(v)); }
Tensor one_minus(const Tensor& t) { return rsub(t, Scalar(1.0)); }
Tensor flat(const Tensor& s, double c) { return plus(times(sign(s), 0.0), c); }
Tensor mask_where(const Tensor& cond, const Tensor& v, const J& c) {
  return where(cond, v, zero_scalar(c));
}

IndexList saved_indices(const C& c) {
  IndexList idx;
  size_t k = 0;
  for (int64_t present : c.attrs<IndexAttrs>().has_index) {
    if (present)
      idx.emplace_back(c.extra(k++));
    else
      idx.emplace_back(std::nullopt);
  }
  return idx;
}
IndexList saved_indices(const J& c) {
  IndexList idx;
  size_t k = 0;
  for (int64_t present : c.attrs<IndexAttrs>().has_index) {
    if (present)
      idx.emplace_back(*c.extras[k++]);
    else
      idx.emplace_back(std::nullopt);
  }
  return idx;
}

}  // namespace gradtrack::autograd::formulas
