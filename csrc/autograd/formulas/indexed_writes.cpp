// The indexed writes (ops/indexed_writes.cpp): index_add, index_copy, index_fill,
// scatter_reduce, index_reduce, take, put, masked_scatter and the scatters into a view. Backward
// formulas built from the same differentiable ops (double backward works), PyTorch's formulas of
// its derivatives table; the forward-mode formulas beside them put the tangents the way the op put
// the values. The index (or mask) is each node's extra 0. The rows naming them are in
// python/gradtrack/_declarations/indexing.py.
#include "autograd/formulas/common.h"

namespace gradtrack::autograd::formulas {

namespace {
Tensor times_bw(const Tensor& g, Scalar s) { return s.equals(1) ? g : mul_by_scalar(g, s); }
// A gradient for an input of `shape` read from a 0-dim or 1-element selection.
Tensor shaped(const Tensor& g, const DimVector& shape) {
  return g.sizes() == shape ? g : reshape(g, shape);
}
}  // namespace

TL index_add_bw(const C& c, const TL& g) {
  const DimAlphaAttrs& at = c.attrs<DimAlphaAttrs>();
  TL out(2);
  if (c.needs(0)) out[0] = g[0];
  if (c.needs(1)) {
    Tensor gs = g[0].dim() == 0 ? reshape(g[0], {1}) : g[0];
    out[1] = shaped(times_bw(index_select(gs, at.dim, c.extra(0)), at.alpha), c.input(1).shape);
  }
  return out;
}
Tensor index_add_jvp(const J& c) {
  const DimAlphaAttrs& at = c.attrs<DimAlphaAttrs>();
  return index_add(t_or_zero(c, 0), at.dim, *c.extras[0], t_or_zero(c, 1), at.alpha);
}

TL index_copy_bw(const C& c, const TL& g) {
  const int64_t d = c.attrs<DimAttrs>().dim;
  TL out(2);
  if (c.needs(0)) out[0] = index_fill(g[0], d, c.extra(0), Scalar(0));
  if (c.needs(1)) {
    Tensor gs = g[0].dim() == 0 ? reshape(g[0], {1}) : g[0];
    out[1] = shaped(index_select(gs, d, c.extra(0)), c.input(1).shape);
  }
  return out;
}
Tensor index_copy_jvp(const J& c) {
  return index_copy(t_or_zero(c, 0), c.attrs<DimAttrs>().dim, *c.extras[0], t_or_zero(c, 1));
}

TL index_fill_bw(const C& c, const TL& g) {
  const int64_t d = c.attrs<DimAttrs>().dim;
  TL out(c.num_inputs());
  if (c.needs(0)) out[0] = index_fill(g[0], d, c.extra(0), Scalar(0));
  if (out.size() > 1 && c.needs(1)) {
    // The filled positions, each once (a repeated index fills one place): PyTorch sums
    // the gradient over the unique indices. Selected by a where, not multiplied by a
    // mask, so that a NaN or inf elsewhere in g stays out of the sum, as in PyTorch.
    Tensor filled = index_fill(zeros(g[0].sizes(), g[0].dtype()), d, c.extra(0), Scalar(1));
    Tensor kept = where(compare(Cmp::Ne, filled, Scalar(0)), g[0], zero_scalar(g[0]));
    out[1] = sum(kept, {}, false);
  }
  return out;
}
Tensor index_fill_jvp(const J& c) {
  return index_fill(t(c, 0), c.attrs<DimAttrs>().dim, *c.extras[0], Scalar(0));
}
Tensor index_fill_tensor_jvp(const J& c) {
  return index_fill(t_or_zero(c, 0), c.attrs<DimAttrs>().dim, *c.extras[0], t_or_zero(c, 1));
}

// take: the gradient put back where it was read, accumulating repeated indices.
TL take_bw(const C& c, const TL& g) { return {put(zeros_of(c, 0), c.extra(0), g[0], true)}; }
Tensor take_jvp(const J& c) { return take(t(c, 0), *c.extras[0]); }

TL put_bw(const C& c, const TL& g) {
  const bool accumulate = c.attrs<IndexAttrs>().accumulate;
  TL out(2);
  if (c.needs(0)) out[0] = accumulate ? g[0] : put(g[0], c.extra(0), zeros_of(c, 1), false);
  if (c.needs(1)) out[1] = shaped(take(g[0], c.extra(0)), c.input(1).shape);
  return out;
}
Tensor put_jvp(const J& c) {
  return put(t_or_zero(c, 0), *c.extras[0], t_or_zero(c, 1), c.attrs<IndexAttrs>().accumulate);
}

// masked_scatter: self's gradient where the mask is false; source's is the masked
// gradient in order, zero for the source elements left unread.
TL masked_scatter_bw(const C& c, const TL& g) {
  const Tensor& mask = c.extra(0);
  TL out(2);
  if (c.needs(0)) out[0] = masked_fill(g[0], mask, zero_scalar(g[0]));
  if (c.needs(1)) {
    const DimVector& shape = c.input(1).shape;
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    Tensor picked = masked_select(g[0], mask);
    const int64_t rest = n - picked.numel();
    if (rest > 0) picked = cat({picked, zeros({rest}, picked.dtype())}, 0);
    out[1] = reshape(picked, shape);
  }
  return out;
}
Tensor masked_scatter_jvp(const J& c) {
  return masked_scatter(t_or_zero(c, 0), *c.extras[0], t_or_zero(c, 1));
}

TL select_scatter_bw(const C& c, const TL& g) {
  const SelectAttrs& at = c.attrs<SelectAttrs>();
  TL out(2);
  if (c.needs(0)) out[0] = select_scatter(g[0], zeros_of(c, 1), at.dim, at.index);
  if (c.needs(1)) out[1] = select(g[0], at.dim, at.index);
  return out;
}
Tensor select_scatter_jvp(const J& c) {
  const SelectAttrs& at = c.attrs<SelectAttrs>();
  return select_scatter(t_or_zero(c, 0), t_or_zero(c, 1), at.dim, at.index);
}

TL slice_scatter_bw(const C& c, const TL& g) {
  const SliceAttrs& at = c.attrs<SliceAttrs>();
  TL out(2);
  if (c.needs(0)) {
    out[0] = slice_scatter(g[0], zeros_of(c, 1), at.dim, at.start, at.end, at.step);
  }
  if (c.needs(1)) out[1] = slice(g[0], at.dim, at.start, at.end, at.step);
  return out;
}
Tensor slice_scatter_jvp(const J& c) {
  const SliceAttrs& at = c.attrs<SliceAttrs>();
  return slice_scatter(t_or_zero(c, 0), t_or_zero(c, 1), at.dim, at.start, at.end, at.step);
}

TL diagonal_scatter_bw(const C& c, const TL& g) {
  const DiagonalAttrs& at = c.attrs<DiagonalAttrs>();
  TL out(2);
  if (c.needs(0)) {
    out[0] = diagonal_scatter(g[0], zeros_of(c, 1), at.offset, at.dim1, at.dim2);
  }
  if (c.needs(1)) out[1] = diagonal(g[0], at.offset, at.dim1, at.dim2);
  return out;
}
Tensor diagonal_scatter_jvp(const J& c) {
  const DiagonalAttrs& at = c.attrs<DiagonalAttrs>();
  return diagonal_scatter(t_or_zero(c, 0), t_or_zero(c, 1), at.offset, at.dim1, at.dim2);
}

// ---- scatter_reduce, index_reduce --------------------------------------------------------

namespace {
constexpr const char* kReduceNames[] = {"sum", "prod", "mean", "amax", "amin"};

// PyTorch's scatter_reduce_backward, with the index as a scatter index (index_reduce
// passes its index repeated across source's shape): sum passes the gradient; prod
// divides the result by each factor, a factor that is zero taking the product of the
// others (more than one zero at a place: zero); mean divides by each place's count;
// amax/amin share each place's gradient evenly among the values equal to the result
// (self included). Without include_self, self's gradient is zero where values landed.
TL scatter_reduce_grads(const C& c, const Tensor& g, const Tensor& self, const Tensor& src,
                        const Tensor& index, const Tensor& result) {
  const ScatterReduceAttrs& at = c.attrs<ScatterReduceAttrs>();
  const int64_t d = at.dim;
  const ScalarType dt = self.dtype();
  GT_CHECK(at.reduce <= 4,
           "Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', 'amin' but got ",
           at.reduce == 5 ? "max" : "min", ".");
  Tensor grad_self, grad_src;
  switch (at.reduce) {
    case 0:
      grad_self = g;
      grad_src = gather(g, d, index);
      break;
    case 1: {
      Tensor one = ones({}, dt);
      Tensor masked_self = where(compare(Cmp::Eq, self, Scalar(0.0)), one, self);
      Tensor masked_self_result =
          scatter_reduce(masked_self, d, index, src, "prod", at.include_self);
      grad_self = div(mul(g, masked_self_result), masked_self);
      Tensor src_zero = compare(Cmp::Eq, src, Scalar(0.0));
      Tensor zeros_at =
          gather(scatter_add(zeros(self.sizes(), dt), d, index, to_dtype(src_zero, dt)), d, index);
      Tensor single_zero = logical(Logic::And, src_zero, compare(Cmp::Eq, zeros_at, Scalar(1.0)));
      Tensor masked_src = where(single_zero, one, src);
      Tensor masked_src_result =
          scatter_reduce(self, d, index, masked_src, "prod", at.include_self);
      grad_src = where(single_zero, gather(mul(g, masked_src_result), d, index),
                       div(gather(mul(g, result), d, index), where(src_zero, one, src)));
      break;
    }
    case 2: {
      Tensor n = at.include_self ? ones(g.sizes(), g.dtype()) : zeros(g.sizes(), g.dtype());
      n = scatter_add(n, d, index, ones(index.sizes(), g.dtype()));
      n = where(compare(Cmp::Eq, n, Scalar(0.0)), ones({}, g.dtype()), n);
      grad_self = div(g, n);
      grad_src = gather(grad_self, d, index);
      break;
    }
    default: {
      Tensor value = gather(result, d, index);
      Tensor self_is = to_dtype(compare(Cmp::Eq, self, result), g.dtype());
      Tensor src_is = to_dtype(compare(Cmp::Eq, src, value), g.dtype());
      Tensor shared = div(g, scatter_add(self_is, d, index, src_is));
      grad_self = mul(self_is, shared);
      grad_src = mul(src_is, gather(shared, d, index));
      break;
    }
  }
  if (!at.include_self) grad_self = scatter(grad_self, d, index, Scalar(0.0));
  TL out(2);
  if (c.needs(0)) out[0] = grad_self;
  if (c.needs(1)) out[1] = grad_src;
  return out;
}

// index_reduce's index in scatter form: each value repeated across source's shape.
Tensor scatter_index(const Tensor& index, const Tensor& source, int64_t d) {
  DimVector shape(size_t(source.dim()), 1);
  shape[size_t(d)] = index.numel();
  return expand(reshape(index, shape), source.sizes());
}
}  // namespace

TL scatter_reduce_bw(const C& c, const TL& g) {
  // src may be larger than index: the formula reads the part index covers.
  const Tensor& src = c.saved_input(1);
  const Tensor& index = c.extra(0);
  Tensor part = src;
  if (src.sizes() != index.sizes() && index.dim() == src.dim()) {
    for (int64_t k = 0; k < src.dim(); ++k) part = narrow(part, k, 0, index.sizes()[size_t(k)]);
  }
  return scatter_reduce_grads(c, g[0], c.saved_input(0), part, index, c.result());
}
TL index_reduce_bw(const C& c, const TL& g) {
  const int64_t d = c.attrs<ScatterReduceAttrs>().dim;
  Tensor self = c.saved_input(0), src = c.saved_input(1), gg = g[0], result = c.result();
  const DimVector self_shape = self.sizes(), src_shape = src.sizes();
  if (self.dim() == 0) {
    self = reshape(self, {1});
    gg = reshape(gg, {1});
    result = reshape(result, {1});
  }
  if (src.dim() == 0) src = reshape(src, {1});
  Tensor index = scatter_index(to_dtype(c.extra(0), ScalarType::Int64), src, d);
  TL out = scatter_reduce_grads(c, gg, self, src, index, result);
  if (out[0].defined() && out[0].sizes() != self_shape) out[0] = reshape(out[0], self_shape);
  if (out[1].defined() && out[1].sizes() != src_shape) out[1] = reshape(out[1], src_shape);
  return out;
}
// sum and mean are linear: the tangents reduced as the values were; amax/amin: the
// mean of the tangents of the values equal to each place's result (also for the old
// names max and min). prod has none
// (PyTorch's gives no tangent).
Tensor scatter_reduce_jvp(const J& c) {
  const ScatterReduceAttrs& at = c.attrs<ScatterReduceAttrs>();
  const int64_t d = at.dim;
  const Tensor& index = *c.extras[0];
  Tensor ts = t_or_zero(c, 0), tsrc = t_or_zero(c, 1);
  if (at.reduce == 0 || at.reduce == 2)
    return scatter_reduce(ts, d, index, tsrc, kReduceNames[at.reduce], at.include_self);
  if (at.reduce == 1) return Tensor();
  Tensor self_is = to_dtype(compare(Cmp::Eq, x(c, 0), c.result), ts.dtype());
  if (!at.include_self) self_is = scatter(self_is, d, index, Scalar(0.0));
  Tensor src_is = to_dtype(compare(Cmp::Eq, x(c, 1), gather(c.result, d, index)), ts.dtype());
  Tensor count = scatter_add(self_is, d, index, src_is);
  Tensor summed = scatter_add(mul(self_is, ts), d, index, mul(src_is, tsrc));
  return div(summed, count);
}

}  // namespace gradtrack::autograd::formulas
