// Scans and sorts along a dim.
// The backward formulas of their nodes and, beside them, the forward-mode
// formulas that are not derived from a backward. The rows naming them are
// python/gradtrack/_declarations/scan_sort.py (NOTE [One declaration per op]).
#include <limits>

#include "autograd/formulas/common.h"

namespace gradtrack::autograd::formulas {

namespace {
// PyTorch's reversed_cumsum: sum over positions >= i along d.
Tensor reversed_cumsum(const Tensor& w, int64_t d) {
  return flip(cumsum(flip(w, {d}), d, std::nullopt), {d});
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
Tensor cumsum_jvp(const J& c) { return cumsum(t(c), c.attrs<DimAttrs>().dim, std::nullopt); }
// cumprod, exact with zeros: out_i = sum_{k<=i} t_k * prod_{j<=i, j!=k} x_j,
// from a cumprod of n copies of x (copy k with x_k set to 1); O(n^2) memory
// along the scanned dim.
Tensor cumprod_jvp(const J& c) {
  if (x(c).dim() == 0) return clone(t(c));
  const int64_t d = c.attrs<DimAttrs>().dim;
  const int64_t n = x(c).sizes()[static_cast<size_t>(d)];
  Tensor xm = transpose(to_dtype(x(c), c.result.dtype()), d, -1);
  Tensor tm = transpose(t(c), d, -1);
  DimVector square;
  for (int64_t j = 0; j + 1 < xm.dim(); ++j) square.push_back(xm.sizes()[static_cast<size_t>(j)]);
  square.push_back(n);
  square.push_back(n);
  Tensor ar = arange(Scalar(int64_t(0)), Scalar(n), Scalar(int64_t(1)), ScalarType::Int64);
  Tensor k = unsqueeze(ar, 1), i = unsqueeze(ar, 0);
  Tensor copies =
      where(compare(Cmp::Eq, k, i), ones({}, xm.dtype()), expand(unsqueeze(xm, -2), square));
  Tensor prods = cumprod(copies, -1, std::nullopt);
  Tensor terms = where(compare(Cmp::Le, k, i), mul(prods, unsqueeze(tm, -1)), zero_scalar(c));
  return transpose(sum(terms, {-2}, false, std::nullopt, true), d, -1);
}
// sort / topk: the tangent at the selected indices (extras[0]).
Tensor value_select_jvp(const J& c) {
  if (x(c).dim() == 0) return clone(t(c));
  return gather(t(c), c.attrs<DimAttrs>().dim, *c.extras[0]);
}

// cummax/cummin: each output's gradient goes back to the position it was taken from
// (PyTorch's cummaxmin_backward: a scatter_add of the gradient at the indices).
TL cummaxmin_bw(const C& c, const TL& g) {
  const Tensor& x = c.saved_input(0);
  if (x.numel() == 0) return {g[0]};
  const int64_t d = c.attrs<DimAttrs>().dim;
  if (x.dim() == 0) return {g[0]};
  return {scatter_add(zeros(x.sizes(), g[0].dtype()), d, c.extra(0), g[0])};
}
Tensor cummaxmin_jvp(const J& c) {
  if (x(c).dim() == 0) return clone(t(c));
  return gather(t(c), c.attrs<DimAttrs>().dim, *c.extras[0]);
}

namespace {
Tensor reverse_logcumsumexp(const Tensor& v, int64_t d) {
  return flip(logcumsumexp(flip(v, {d}), d), {d});
}
}  // namespace

// PyTorch's logcumsumexp_backward: the positive and negative parts of the gradient
// each summed in log space, so that neither exp overflows.
TL logcumsumexp_bw(const C& c, const TL& g) {
  const Tensor& x = c.saved_input(0);
  if (x.numel() == 0) return {g[0]};
  const int64_t d = x.dim() == 0 ? 0 : c.attrs<DimAttrs>().dim;
  if (x.dim() == 0) return {g[0]};
  const Tensor& r = c.result();
  Tensor lowest = full({}, Scalar(-std::numeric_limits<double>::max()), g[0].dtype());
  if (g[0].dtype() == ScalarType::Float32)
    lowest = full({}, Scalar(double(-std::numeric_limits<float>::max())), g[0].dtype());
  Tensor log_abs = log(abs(g[0]));
  Tensor pos = where(compare(Cmp::Gt, g[0], Scalar(0.0)), log_abs, lowest);
  Tensor neg = where(compare(Cmp::Lt, g[0], Scalar(0.0)), log_abs, lowest);
  Tensor out_pos = exp(add(reverse_logcumsumexp(sub(pos, r), d), x));
  Tensor out_neg = exp(add(reverse_logcumsumexp(sub(neg, r), d), x));
  return {sub(out_pos, out_neg)};
}
// cumsum(exp(x - max) * t) / cumsum(exp(x - max)) along the dim, zero where the
// weights so far underflow to zero (as torch's: its tangent is 0 there, not NaN).
Tensor logcumsumexp_jvp(const J& c) {
  if (x(c).dim() == 0 || x(c).numel() == 0) return clone(t(c));
  const int64_t d = c.attrs<DimAttrs>().dim;
  Tensor w = exp(sub(x(c), amax(x(c), {d}, true)));
  Tensor den = cumsum(w, d, std::nullopt);
  return where(compare(Cmp::Eq, den, Scalar(0.0)), zero_scalar(c),
               div(cumsum(mul(w, t(c)), d, std::nullopt), den));
}

}  // namespace gradtrack::autograd::formulas
