// Views: reshapes, transposes, selections, splits, diagonals.
// The backward formulas of their nodes and, beside them, the forward-mode
// formulas that are not derived from a backward. The rows naming them are
// python/gradtrack/_declarations/views.py (NOTE [One declaration per op]).
#include "autograd/formulas/common.h"

namespace gradtrack::autograd::formulas {

TL reshape_bw(const C& c, const TL& g) { return {reshape(g[0], c.input(0).shape)}; }
// squeeze's gradient puts the dropped size-1 dims back one unsqueeze at a time
// (nothing when none was dropped), as PyTorch's unsqueeze_to: the
// create_graph=True graph shows UnsqueezeBackward0 nodes, not a view.
TL squeeze_bw(const C& c, const TL& g) {
  const DimVector& in = c.input(0).shape;
  Tensor r = g[0];
  for (int64_t i = 0; r.dim() < static_cast<int64_t>(in.size()); ++i)
    if (i >= r.dim() || r.sizes()[i] != in[i]) r = unsqueeze(r, i);
  return {r};
}
TL as_strided_bw(const C& c, const TL& g) {
  const AsStridedAttrs& at = c.attrs<AsStridedAttrs>();
  return {as_strided_backward(g[0], c.input(0).shape, at.base_stride, at.base_offset, at.size,
                              at.stride, at.storage_offset)};
}
TL t_bw(const C&, const TL& g) { return {t(g[0])}; }
TL transpose_bw(const C& c, const TL& g) {
  const TransposeAttrs& at = c.attrs<TransposeAttrs>();
  return {transpose(g[0], at.dim0, at.dim1)};
}
TL permute_bw(const C& c, const TL& g) {
  const DimVector& p = c.attrs<DimsAttrs>().dims;
  DimVector inv(p.size());
  for (size_t i = 0; i < p.size(); ++i) inv[static_cast<size_t>(p[i])] = static_cast<int64_t>(i);
  return {permute(g[0], inv)};
}
TL unsqueeze_bw(const C& c, const TL& g) { return {squeeze(g[0], c.attrs<DimAttrs>().dim)}; }
TL select_bw(const C& c, const TL& g) {
  const SelectAttrs& at = c.attrs<SelectAttrs>();
  return {select_backward(g[0], at.input_sizes, at.dim, at.index)};
}
TL slice_bw(const C& c, const TL& g) {
  const SliceAttrs& at = c.attrs<SliceAttrs>();
  return {slice_backward(g[0], at.input_sizes, at.dim, at.start, at.end, at.step)};
}
TL select_backward_bw(const C& c, const TL& g) {
  const SelectAttrs& at = c.attrs<SelectAttrs>();
  return {select(g[0], at.dim, at.index)};
}
TL slice_backward_bw(const C& c, const TL& g) {
  const SliceAttrs& at = c.attrs<SliceAttrs>();
  return {slice(g[0], at.dim, at.start, at.end, at.step)};
}
TL split_bw(const C& c, const TL& g) { return {cat(g, c.attrs<CatAttrs>().dim)}; }
TL unbind_bw(const C& c, const TL& g) { return {stack(g, c.attrs<DimAttrs>().dim)}; }
TL diagonal_bw(const C& c, const TL& g) {
  const DiagonalAttrs& at = c.attrs<DiagonalAttrs>();
  return {diagonal_backward(g[0], c.input(0).shape, at.offset, at.dim1, at.dim2)};
}
TL diagonal_backward_bw(const C& c, const TL& g) {
  const DiagonalAttrs& at = c.attrs<DiagonalAttrs>();
  return {diagonal(g[0], at.offset, at.dim1, at.dim2)};
}
TL unfold_bw(const C& c, const TL& g) {
  const UnfoldAttrs& at = c.attrs<UnfoldAttrs>();
  return {unfold_backward(g[0], at.self_sizes, at.dimension, at.size, at.step)};
}
TL unfold_backward_bw(const C& c, const TL& g) {
  const UnfoldAttrs& at = c.attrs<UnfoldAttrs>();
  return {unfold(g[0], at.dimension, at.size, at.step)};
}

namespace {
// The largest storage step a geometry reaches, plus one.
int64_t extent(const Tensor& a) {
  int64_t e = 1;
  for (size_t d = 0; d < a.sizes().size(); ++d) e += (a.sizes()[d] - 1) * a.strides()[d];
  return a.numel() == 0 ? 0 : e;
}
// A view of a primal whose tangent has another layout (a dense tangent of a
// gapped narrow): which of x's elements the view reads is found through an
// index buffer laid out as x, and those are gathered from the tangent. The
// result's geometry must not be applied to the tangent's own memory.
Tensor relaid_view(const J& c) {
  const Tensor& tan = t(c);
  const int64_t diff = c.result->offset() - x(c)->offset();
  if (diff < 0 || diff + extent(c.result) > extent(x(c)))  // as_strided beyond x
    return contiguous(as_strided(contiguous(tan), c.result.sizes(), c.result.strides(), diff));
  Tensor pos = empty_strided(x(c).sizes(), x(c).strides(), ScalarType::Int64);
  kernels::copy(pos, reshape(arange(Scalar(int64_t(0)), Scalar(x(c).numel()), Scalar(int64_t(1)),
                                    ScalarType::Int64),
                             x(c).sizes()));
  Tensor idx = contiguous(alias_with_geometry(pos, c.result.sizes(), c.result.strides(), diff));
  Tensor flat = index_select(reshape(contiguous(tan), {-1}), 0, reshape(idx, {-1}));
  return reshape(flat, c.result.sizes());
}

}  // namespace
// Every view op: the same view of the tangent, which shares the primal's
// strides (NOTE [Forward-mode AD]).
Tensor view_jvp(const J& c) {
  const Tensor& tan = t(c);
  const int64_t offset = tan->offset() + (c.result->offset() - x(c)->offset());
  if (offset < 0 || tan.strides() != x(c).strides()) return relaid_view(c);
  // A view of the input's tangent (its _base), as PyTorch's.
  Tensor v = alias_with_geometry(tan, c.result.sizes(), c.result.strides(), offset);
  make_view(v, tan, CreationMeta::Default);
  return v;
}
Tensor diagonal_copy_jvp(const J& c) {
  const DiagonalAttrs& at = c.attrs<DiagonalAttrs>();
  return diagonal(t(c), at.offset, at.dim1, at.dim2, true);
}

}  // namespace gradtrack::autograd::formulas
