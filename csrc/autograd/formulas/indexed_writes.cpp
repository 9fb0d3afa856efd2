// The indexed writes (ops/indexed_writes.cpp): index_add, index_copy, index_fill,
// take, put, masked_scatter and the scatters into a view. Backward formulas built
// from the same differentiable ops (double backward works), PyTorch's formulas of its
// derivatives table; the forward-mode formulas beside them put the tangents the way
// the op put the values. The index (or mask) is each node's extra 0. The rows naming
// them are in python/gradtrack/_declarations/indexing.py.
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
    // the gradient over the unique indices.
    Tensor filled = index_fill(zeros(g[0].sizes(), g[0].dtype()), d, c.extra(0), Scalar(1));
    out[1] = sum(mul(g[0], filled), {}, false);
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

}  // namespace gradtrack::autograd::formulas
