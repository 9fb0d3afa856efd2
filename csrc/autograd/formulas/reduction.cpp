// Reductions: sums, means, extremes, products, norms and statistics.
// The backward formulas of their nodes and, beside them, the forward-mode
// formulas that are not derived from a backward. The rows naming them are
// python/gradtrack/_declarations/reduction.py (NOTE [One declaration per op]).
#include <cmath>

#include "autograd/formulas/common.h"

namespace gradtrack::autograd::formulas {

namespace {
// Puts back the reduced dims of a keepdim=False result, then expands.
Tensor unreduce(const Tensor& g, const C& c) {
  const ReduceAttrs& at = c.attrs<ReduceAttrs>();
  Tensor r = g;
  if (!at.keepdim) {
    for (int64_t d : at.dim) r = unsqueeze(r, d);
  }
  return expand(r, c.input(0).shape);
}

}  // namespace
TL sum_all_bw(const C& c, const TL& g) { return {expand(g[0], c.input(0).shape)}; }
TL sum_dim_bw(const C& c, const TL& g) { return {unreduce(g[0], c)}; }
// Divided through div_by_scalar, as PyTorch's formulas: under create_graph the
// gradient's node is DivBackward1.
TL mean_all_bw(const C& c, const TL& g) {
  return {div_by_scalar(expand(g[0], c.input(0).shape), Scalar(numel_of(c.input(0).shape)))};
}
TL mean_dim_bw(const C& c, const TL& g) {
  return {div_by_scalar(unreduce(g[0], c), Scalar(c.attrs<ReduceAttrs>().reduced_numel))};
}
TL extreme_all_bw(const C& c, const TL& g) {
  // The gradient is shared evenly by every element equal to the extreme.
  const Tensor& a = c.saved_input(0);
  const Tensor& r = c.result();
  Tensor mask = logical(Logic::Or, compare(Cmp::Eq, a, r), logical(Logic::And, isnan(a), isnan(r)));
  Tensor count = sum(mask, {}, false);
  // As PyTorch: zeros, then masked_fill_ (so the result is at version 1).
  Tensor out = zeros(a.sizes(), a.dtype());
  return {inplace_masked_fill(out, mask, div(g[0], count))};
}
TL extreme_dim_bw(const C& c, const TL& g) {
  const DimReduceAttrs& at = c.attrs<DimReduceAttrs>();
  if (c.input(0).shape.empty()) return {g[0]};
  Tensor idx = c.extra(0), gg = g[0];
  if (!at.keepdim) {
    idx = unsqueeze(idx, at.dim);
    gg = unsqueeze(gg, at.dim);
  }
  // PyTorch's value_selecting_reduction_backward: at::zeros (version 1), then
  // the gradient scattered in place (version 2).
  return {inplace_scatter(written_zeros_of(c, 0), at.dim, idx, gg)};
}

namespace {
// The product of the other elements along `d`, from differentiable ops so a
// create_graph=True gradient of prod can be differentiated again (its second
// derivative is not zero where there are zeros). Halves recursively: each
// half's own exclusive products times the other half's product; a stretch
// without zeros is prod / x, a length-1 stretch the constant 1.
Tensor exclusive_products(const Tensor& x, int64_t d) {
  const int64_t n = x.sizes()[d];
  if (n <= 1) return ones(x.sizes(), x.dtype());
  if (!kernels::any_zero(x)) return div(prod(x, d, true, std::nullopt), x);
  const int64_t m = n / 2;
  Tensor lo = narrow(x, d, 0, m), hi = narrow(x, d, m, n - m);
  Tensor own = cat({exclusive_products(lo, d), exclusive_products(hi, d)}, d);
  Tensor other = cat({expand(prod(hi, d, true, std::nullopt), lo.sizes()),
                      expand(prod(lo, d, true, std::nullopt), hi.sizes())},
                     d);
  return mul(own, other);
}
int64_t count_zeros(const Tensor& x) {
  Tensor n = to_dtype(sum(compare(Cmp::Eq, x, Scalar(0)), {}, false), ScalarType::Int64);
  return *n.data<int64_t>();
}

}  // namespace
TL prod_bw(const C& c, const TL& g) {
  // d prod / d x_i is the product of the other elements: result / x_i unless
  // there are zeros. A 0-dim input is its own product: the gradient is g.
  const Tensor& x = c.saved_input(0);
  if (x.dim() == 0) return {g[0]};
  const int64_t n_zero = count_zeros(x);
  if (n_zero == 0) return {mul(g[0], div(c.result(), x))};
  if (!GradMode::is_enabled()) {
    if (n_zero > 1) return {zeros_like(x)};
    return {reshape(mul(g[0], prod_others(reshape(x, {-1}), 0)), x.sizes())};
  }
  return {view(mul(g[0], exclusive_products(reshape(contiguous(x), {-1}), 0)), x.sizes())};
}
TL amax_bw(const C& c, const TL& g) {
  // Shared evenly by the elements equal to the maximum of their slice.
  const ReduceAttrs& at = c.attrs<ReduceAttrs>();
  const Tensor& x = c.saved_input(0);
  Tensor r = c.result(), gg = g[0];
  if (!at.keepdim) {
    // PyTorch's restore_reduced_dims: one view to the keepdim shape.
    DimVector kept = x.sizes();
    for (int64_t d : at.dim) kept[static_cast<size_t>(d)] = 1;
    r = view(r, kept);
    gg = view(gg, kept);
  }
  // (g / count) * mask: a NaN maximum matches nothing, so 0 / 0 makes the
  // whole slice's gradient NaN, as in PyTorch.
  Tensor mask = compare(Cmp::Eq, r, x);
  Tensor count = sum(mask, at.dim, true, std::nullopt, true);
  return {mul(div(gg, count), mask)};
}
TL prod_dim_bw(const C& c, const TL& g) {
  // Per slice along dim: the product of the other elements of the slice.
  const Tensor& x = c.saved_input(0);
  if (x.dim() == 0) return {g[0]};
  const DimReduceAttrs& at = c.attrs<DimReduceAttrs>();
  const int64_t d = at.dim;
  Tensor gg = at.keepdim ? g[0] : unsqueeze(g[0], d);
  if (count_zeros(x) == 0) {
    Tensor r = at.keepdim ? c.result() : unsqueeze(c.result(), d);
    return {mul(gg, div(r, x))};
  }
  if (!GradMode::is_enabled()) return {mul(gg, prod_others(x, d))};
  return {mul(gg, exclusive_products(x, d))};
}

namespace {
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
// PyTorch's norm_backward: p = 0 has no gradient; inf shares it among the
// elements of largest magnitude; otherwise sgn(x) |x|^(p-1) / norm^(p-1). gg and
// norm have the reduced dims kept (size 1); dims empty: every dim.
Tensor norm_backward(const Tensor& gg, const Tensor& x, double p, const Tensor& norm,
                     const DimVector& dims) {
  Tensor zero = zeros({}, x.dtype());
  if (p == 0) return Tensor();  // no gradient, as PyTorch's (not even zeros)
  if (p == 1) return mul(sgn(x), gg);
  if (std::isinf(p)) {
    Tensor mask = to_dtype(compare(Cmp::Eq, abs(x), norm), x.dtype());
    Tensor count = sum(mask, dims, true, std::nullopt, true);
    return mul(mul(sgn(x), div(mask, count)), gg);
  }
  Tensor norm_is_zero = compare(Cmp::Eq, norm, Scalar(0.0));
  if (p == 2) return mul(x, where(norm_is_zero, zero, div(gg, norm)));
  Tensor scaled = mul(sgn(x), pow(abs(x), Scalar(p - 1)));
  if (p < 1) scaled = where(compare(Cmp::Eq, x, Scalar(0.0)), zero, scaled);
  return mul(scaled, where(norm_is_zero, zero, div(gg, pow(norm, Scalar(p - 1)))));
}
TL vector_norm_bw(const C& c, const TL& g) {
  const VectorNormAttrs& at = c.attrs<VectorNormAttrs>();
  return {norm_backward(keep_dims(g[0], at), c.saved_input(0), at.ord, keep_dims(c.result(), at),
                        at.dim)};
}
Tensor sum_all_jvp(const J& c) { return sum(t(c), {}, false); }
Tensor sum_dim_jvp(const J& c) {
  const ReduceAttrs& at = c.attrs<ReduceAttrs>();
  return sum(t(c), at.dim, at.keepdim, std::nullopt, true);
}
Tensor mean_all_jvp(const J& c) { return mean(t(c), {}, false); }
Tensor mean_dim_jvp(const J& c) {
  const ReduceAttrs& at = c.attrs<ReduceAttrs>();
  return mean(t(c), at.dim, at.keepdim, std::nullopt, true);
}
// max()/min() of everything: the tangent shared evenly by the tied elements.
Tensor extreme_all_jvp(const J& c) {
  Tensor hit = compare(Cmp::Eq, x(c), c.result);
  Tensor count = sum(to_dtype(hit, c.result.dtype()), {}, false);
  return div(sum(mask_where(hit, t(c), c), {}, false), count);
}
// max(dim)/min(dim): the tangent at the chosen index.
Tensor extreme_dim_jvp(const J& c) {
  if (x(c).dim() == 0) return clone(t(c));
  const DimReduceAttrs& at = c.attrs<DimReduceAttrs>();
  const int64_t d = at.dim;
  Tensor idx = *c.extras[0];
  if (!at.keepdim) idx = unsqueeze(idx, d);
  Tensor out = gather(t(c), d, idx);
  return at.keepdim ? out : squeeze(out, d);
}

namespace {
// `r` with the reduced dims (sorted) put back as size-1 dims.
Tensor unsqueeze_dims(Tensor r, const DimVector& dims, bool keepdim) {
  if (keepdim) return r;
  for (int64_t d : dims) r = unsqueeze(r, d);
  return r;
}

}  // namespace
// prod of everything: sum of t times the product of the other elements
// (exact with zeros).
Tensor prod_all_jvp(const J& c) {
  Tensor flat = reshape(to_dtype(x(c), c.result.dtype()), {x(c).numel()});
  Tensor others = prod_others(flat, 0);
  return sum(mul(others, reshape(t(c), {x(c).numel()})), {}, false);
}
Tensor prod_dim_jvp(const J& c) {
  if (x(c).dim() == 0) return clone(t(c));
  const DimReduceAttrs& at = c.attrs<DimReduceAttrs>();
  Tensor others = prod_others(to_dtype(x(c), c.result.dtype()), at.dim);
  return sum(mul(others, t(c)), {at.dim}, at.keepdim, std::nullopt, true);
}
// amax/amin: the tangent shared evenly by the tied extreme elements.
Tensor amax_jvp(const J& c) {
  const ReduceAttrs& at = c.attrs<ReduceAttrs>();
  const DimVector& dims = at.dim;
  Tensor r = unsqueeze_dims(c.result, dims, at.keepdim || x(c).dim() == 0);
  Tensor hit = to_dtype(compare(Cmp::Eq, x(c), r), c.result.dtype());
  Tensor num = sum(mul(t(c), hit), dims, at.keepdim, std::nullopt, true);
  return div(num, sum(hit, dims, at.keepdim, std::nullopt, true));
}
Tensor logsumexp_jvp(const J& c) {
  const ReduceAttrs& at = c.attrs<ReduceAttrs>();
  const DimVector& dims = at.dim;
  Tensor r = unsqueeze_dims(c.result, dims, at.keepdim || x(c).dim() == 0);
  Tensor w = exp(sub(to_dtype(x(c), c.result.dtype()), r));
  return sum(mul(t(c), w), dims, at.keepdim, std::nullopt, true);
}
// linalg.vector_norm: sum(sign(x) |x|^(p-1) t) / norm^(p-1); inf-norms share
// the tangent evenly among the tied largest (smallest) |x|; a zero norm has a
// zero tangent, as PyTorch's.
Tensor vector_norm_jvp(const J& c) {
  const VectorNormAttrs& at = c.attrs<VectorNormAttrs>();
  const double p = at.ord;
  const DimVector& dims = at.dim;
  const bool keep = at.keepdim;
  if (p == 0) return zeros(c.result.sizes(), c.result.dtype());
  Tensor r = unsqueeze_dims(c.result, dims, keep || x(c).dim() == 0);
  Tensor sx = mul(sign(x(c)), t(c));
  Tensor out;
  if (std::isinf(p)) {
    Tensor hit = to_dtype(compare(Cmp::Eq, abs(x(c)), r), c.result.dtype());
    return div(sum(mul(sx, hit), dims, keep, std::nullopt, true),
               sum(hit, dims, keep, std::nullopt, true));
  }
  if (p == 1) return sum(sx, dims, keep, std::nullopt, true);
  if (p == 2) {
    out = div(sum(mul(x(c), t(c)), dims, keep, std::nullopt, true), c.result);
  } else {
    Tensor w = mul(sx, pow(abs(x(c)), Scalar(p - 1)));
    out = div(sum(w, dims, keep, std::nullopt, true), pow(c.result, Scalar(p - 1)));
  }
  return where(compare(Cmp::Eq, c.result, Scalar(0.0)), zero_scalar(c), out);
}

// ---- nansum, aminmax, dist, renorm ---------------------------------------------------------

// The gradient everywhere but at NaN (times "not NaN", as PyTorch's: a NaN gradient
// stays NaN there too).
TL nansum_bw(const C& c, const TL& g) {
  const ReduceAttrs& at = c.attrs<ReduceAttrs>();
  const Tensor& x = c.saved_input(0);
  return {mul(keep_dims(g[0], at), logical_not(isnan(x)))};
}
Tensor nansum_jvp(const J& c) {
  const ReduceAttrs& at = c.attrs<ReduceAttrs>();
  Tensor masked = where(isnan(x(c)), zeros({}, t(c).dtype()), t(c));
  return sum(masked, at.dim, at.keepdim, std::nullopt, true);
}
// Each of min and max shares its gradient evenly among the elements equal to it.
TL aminmax_bw(const C& c, const TL& g) {
  const ReduceAttrs& at = c.attrs<ReduceAttrs>();
  const Tensor& x = c.saved_input(0);
  Tensor total;
  for (size_t k = 0; k < 2; ++k) {
    if (!g[k].defined()) continue;
    Tensor r = k == 0 ? amin(x, at.dim, true) : amax(x, at.dim, true);
    Tensor mask = compare(Cmp::Eq, r, x);
    Tensor count = sum(mask, at.dim, true, std::nullopt, true);
    Tensor part = mul(div(keep_dims(g[k], at), count), mask);
    total = total.defined() ? add(total, part) : part;
  }
  return {total};
}

namespace {
// PyTorch's norm_jvp: the tangent of |d|_p over dims (kept, size 1) given d's tangent.
Tensor norm_jvp(const Tensor& d, const Tensor& dt, double p, const Tensor& norm,
                const DimVector& dims) {
  Tensor zero = zeros({}, norm.dtype());
  if (p == 0) return zeros(norm.sizes(), norm.dtype());
  if (p == 1) return sum(mul(sgn(d), dt), dims, true, std::nullopt, true);
  if (std::isinf(p)) {
    Tensor hit = to_dtype(compare(Cmp::Eq, abs(d), norm), norm.dtype());
    return div(sum(mul(mul(sgn(d), dt), hit), dims, true, std::nullopt, true),
               sum(hit, dims, true, std::nullopt, true));
  }
  Tensor scaled = mul(sgn(d), pow(abs(d), Scalar(p - 1)));
  if (p < 1) scaled = where(compare(Cmp::Eq, d, Scalar(0.0)), zero, scaled);
  Tensor num = sum(mul(scaled, dt), dims, true, std::nullopt, true);
  Tensor den = p == 2 ? norm : pow(norm, Scalar(p - 1));
  return where(compare(Cmp::Eq, norm, Scalar(0.0)), zero, div(num, den));
}
DimVector dims_but(int64_t ndim, int64_t dim) {
  DimVector out;
  for (int64_t i = 0; i < ndim; ++i)
    if (i != dim) out.push_back(i);
  return out;
}
}  // namespace

TL dist_bw(const C& c, const TL& g) {
  const double p = c.attrs<CdistAttrs>().p;
  Tensor nb = norm_backward(g[0], sub(c.saved_input(0), c.saved_input(1)), p, c.result(), {});
  TL out(2);
  if (!nb.defined()) {
    // p = 0: no gradient for input; torch's formula for other negates that absent
    // gradient, which raises
    GT_CHECK(!c.needs(1),
             "Expected a proper Tensor but got None (or an undefined Tensor in "
             "C++) for argument #0 'self'");
    return out;
  }
  if (c.needs(0)) out[0] = nb;
  if (c.needs(1)) out[1] = neg(nb);
  return out;
}
Tensor dist_jvp(const J& c) {
  const double p = c.attrs<CdistAttrs>().p;
  Tensor dt = c.has(0) && c.has(1) ? sub(t(c, 0), t(c, 1)) : c.has(0) ? t(c, 0) : neg(t(c, 1));
  Tensor out = norm_jvp(sub(x(c, 0), x(c, 1)), dt, p, c.result, {});
  return reshape(out, {});
}
// PyTorch's renorm_backward: where a slice was scaled, the scale's own derivative
// (through the slice's norm) is subtracted.
TL renorm_bw(const C& c, const TL& g) {
  const RenormAttrs& at = c.attrs<RenormAttrs>();
  const Tensor& x = c.saved_input(0);
  const DimVector dims = dims_but(x.dim(), at.dim);
  Tensor norm = vector_norm(x, at.p, dims, true);
  Tensor nb = norm_backward(sum(mul(x, g[0]), dims, true, std::nullopt, true), x, at.p, norm, dims);
  Tensor invnorm = reciprocal(add(norm, Scalar(1e-7)));
  Tensor factor = mul(invnorm, Scalar(at.maxnorm));
  Tensor scaled = sub(mul(factor, g[0]), mul(mul(mul(invnorm, invnorm), Scalar(at.maxnorm)), nb));
  return {where(compare(Cmp::Gt, norm, Scalar(at.maxnorm)), scaled, g[0])};
}
Tensor renorm_jvp(const J& c) {
  const RenormAttrs& at = c.attrs<RenormAttrs>();
  const DimVector dims = dims_but(x(c).dim(), at.dim);
  Tensor norm = vector_norm(x(c), at.p, dims, true);
  Tensor shifted = add(norm, Scalar(1e-7));
  Tensor n_t = norm_jvp(x(c), t(c), at.p, norm, dims);
  Tensor scaled = mul(div(scalar_tensor(Scalar(at.maxnorm), norm.dtype()), shifted),
                      sub(t(c), div(mul(x(c), n_t), shifted)));
  return where(compare(Cmp::Gt, norm, Scalar(at.maxnorm)), scaled, t(c));
}

}  // namespace gradtrack::autograd::formulas
