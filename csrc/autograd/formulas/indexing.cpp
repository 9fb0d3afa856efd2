// Indexing: advanced indexing, masks, gather/scatter, index_select.
// The backward formulas of their nodes and, beside them, the forward-mode
// formulas that are not derived from a backward. The rows naming them are
// python/gradtrack/_declarations/indexing.py (NOTE [One declaration per op]).
#include "autograd/formulas/common.h"

namespace gradtrack::autograd::formulas {

TL index_bw(const C& c, const TL& g) {
  // Zeros written in place, as PyTorch's index_backward (IndexPutImplBackward0).
  return {inplace_index_put_impl(zeros_of(c, 0), saved_indices(c), g[0], true)};
}
TL index_put_bw(const C& c, const TL& g) {
  IndexList idx = saved_indices(c);
  TL out(2);
  const bool accumulate = c.attrs<IndexAttrs>().accumulate;
  if (c.needs(0)) out[0] = accumulate ? g[0] : index_put(g[0], idx, zero_scalar(g[0]), false);
  if (c.needs(1)) out[1] = index(g[0], idx);
  return out;
}
// The gradient written at the mask's true places of the broadcast shape, then
// summed back to the input's shape, as PyTorch's masked_select_backward.
TL masked_select_bw(const C& c, const TL& g) {
  Tensor full = zeros(c.attrs<MaskedSelectAttrs>().shape, g[0].dtype());
  Tensor written = index_put(full, IndexList{c.extra(0)}, g[0], false);
  return {sum_to(written, c.input(0).shape)};
}
TL masked_fill_bw(const C& c, const TL& g) {
  const Tensor& mask = c.extra(0);
  Tensor z = zero_scalar(g[0]);
  TL out(c.num_inputs());
  if (c.needs(0)) out[0] = masked_fill(g[0], mask, z);
  if (out.size() > 1 && c.needs(1)) out[1] = sum(where(mask, g[0], z), {}, false);
  return out;
}
TL gather_bw(const C& c, const TL& g) {
  // new_zeros, then scatter_add_ (version 1), as PyTorch's gather_backward.
  return {inplace_scatter_add(zeros_of(c, 0), c.attrs<DimAttrs>().dim, c.extra(0), g[0])};
}
// scatter: self's gradient is zero where src was written, src's is read there.
TL scatter_bw(const C& c, const TL& g) {
  const int64_t d = c.attrs<DimAttrs>().dim;
  TL out(c.num_inputs());
  if (c.needs(0)) out[0] = scatter(g[0], d, c.extra(0), Scalar(int64_t(0)));
  if (out.size() > 1 && c.needs(1)) out[1] = gather(g[0], d, c.extra(0));
  return out;
}
TL scatter_add_bw(const C& c, const TL& g) {
  return {g[0], c.needs(1) ? gather(g[0], c.attrs<DimAttrs>().dim, c.extra(0)) : Tensor()};
}

namespace {
// The saved index may alias a numpy array changed since forward (no version
// bump): index_add would wrap a now negative index silently, where PyTorch's
// index_add refuses it (in its words for a 1-D input, otherwise naming the
// dim; its 3-D dim-1 kernel's IndexError is not reproduced).
void check_saved_select_index(const GradMeta& in, int64_t d, const Tensor& index) {
  Tensor ic = kernels::aligned(contiguous(to_dtype(index, ScalarType::Int64)));
  const int64_t size = in.shape.empty() ? 1 : in.shape[static_cast<size_t>(d)];
  for (int64_t i = 0; i < ic.numel(); ++i) {
    const int64_t v = ic.data<int64_t>()[i];
    if (v >= 0 && v < size) continue;
    GT_CHECK_INDEX(in.shape.size() > 1, "index out of range in self");
    throw Error(str_cat("index ", v, " is out of bounds for dimension ", d, " with size ", size));
  }
}

}  // namespace
TL index_select_bw(const C& c, const TL& g) {
  const int64_t d = c.attrs<DimAttrs>().dim;
  check_saved_select_index(c.input(0), d, c.extra(0));
  // Zeros index_add_ed in place, as PyTorch's index_select_backward; a
  // 0-dim input was selected from as one element, and so is its gradient.
  Tensor z = zeros_of(c, 0);
  if (z.dim() == 0) {
    return {reshape(inplace_index_add(reshape(z, {1}), 0, c.extra(0), reshape(g[0], {1})), {})};
  }
  return {inplace_index_add(z, d, c.extra(0), g[0])};
}
// gather: the tangent gathered at the same index (extras[0]).
Tensor gather_jvp(const J& c) { return gather(t(c), c.attrs<DimAttrs>().dim, *c.extras[0]); }
// masked_fill with a number: filled positions have no tangent (mask: extras[0]).
Tensor masked_fill_jvp(const J& c) { return mask_where(logical_not(*c.extras[0]), t(c), c); }
// masked_select: the tangent selected by the same (broadcast) mask, extras[0].
Tensor masked_select_jvp(const J& c) { return masked_select(t(c), *c.extras[0]); }
Tensor masked_fill_tensor_jvp(const J& c) {
  return where(*c.extras[0], t_or_zero(c, 1), t_or_zero(c, 0));
}
Tensor index_jvp(const J& c) { return index(t(c), saved_indices(c)); }
// index_put / index_put_ / index_add_: the tangents put the same way.
Tensor index_put_jvp(const J& c) {
  return index_put(t_or_zero(c, 0), saved_indices(c), t_or_zero(c, 1),
                   c.attrs<IndexAttrs>().accumulate);
}
Tensor index_select_jvp(const J& c) {
  if (x(c).dim() == 0) return clone(t(c));
  return index_select(t(c), c.attrs<DimAttrs>().dim, *c.extras[0]);
}
Tensor scatter_jvp(const J& c) {
  return scatter(t_or_zero(c, 0), c.attrs<DimAttrs>().dim, *c.extras[0], t_or_zero(c, 1));
}
Tensor scatter_add_jvp(const J& c) {
  return scatter_add(t_or_zero(c, 0), c.attrs<DimAttrs>().dim, *c.extras[0], t_or_zero(c, 1));
}
Tensor scatter_value_jvp(const J& c) {
  return scatter(t(c), c.attrs<DimAttrs>().dim, *c.extras[0], Scalar(0.0));
}

}  // namespace gradtrack::autograd::formulas
