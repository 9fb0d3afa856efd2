// Copies and rearrangements: clone, copies, fills, cat/stack, triangles, flips, rolls, repeats.
// The backward formulas of their nodes and, beside them, the forward-mode
// formulas that are not derived from a backward. The rows naming them are
// python/gradtrack/_declarations/shape.py (NOTE [One declaration per op]).
#include "autograd/formulas/common.h"

namespace gradtrack::autograd::formulas {

TL copy_into_bw(const C& c, const TL& g) {
  return {c.needs(0) ? zeros_like(g[0]) : Tensor(), g[0]};
}
TL fill_bw(const C& c, const TL& g) {
  TL out(c.num_inputs());
  out[0] = zeros_like(g[0]);
  if (out.size() > 1 && c.needs(1)) out[1] = sum(g[0], {}, false);
  return out;
}
TL cat_bw(const C& c, const TL& g) {
  TL out;
  int64_t offset = 0;
  const CatAttrs& at = c.attrs<CatAttrs>();
  const int64_t d = at.dim;
  for (size_t i = 0; i < c.num_inputs(); ++i) {
    int64_t n = at.sizes[i];
    const DimVector& shape = c.input(i).shape;
    if (shape.size() == 1 && shape[0] == 0) {  // at::zeros({0}) in PyTorch's formula
      out.push_back(c.needs(i) ? written_zeros_of(c, i) : Tensor());
      continue;
    }
    out.push_back(c.needs(i) ? narrow(g[0], d, offset, n) : Tensor());
    offset += n;
  }
  return out;
}
TL stack_bw(const C& c, const TL& g) {
  const int64_t d = c.attrs<DimAttrs>().dim;
  TL out;
  for (size_t i = 0; i < c.num_inputs(); ++i)
    out.push_back(c.needs(i) ? select(g[0], d, static_cast<int64_t>(i)) : Tensor());
  return out;
}
TL tril_bw(const C& c, const TL& g) {
  return {tril(g[0], c.attrs<TriangleAttrs>().diagonal, false)};
}
TL triu_bw(const C& c, const TL& g) {
  return {tril(g[0], c.attrs<TriangleAttrs>().diagonal, true)};
}
TL flip_bw(const C& c, const TL& g) { return {flip(g[0], c.attrs<DimsAttrs>().dims)}; }
TL roll_bw(const C& c, const TL& g) {
  const RollAttrs& at = c.attrs<RollAttrs>();
  DimVector back;
  for (int64_t s : at.shifts) back.push_back(-s);
  return {roll(g[0], back, at.dims)};
}
// The gradient seen as [r0, s0, r1, s1, ...], summed over the repeats.
TL repeat_bw(const C& c, const TL& g) {
  const DimVector& reps = c.attrs<RepeatAttrs>().repeats;
  const DimVector& in = c.input(0).shape;
  const size_t nd = reps.size(), lead = nd - in.size();
  DimVector split, rdims;
  for (size_t i = 0; i < nd; ++i) {
    split.push_back(reps[i]);
    split.push_back(i < lead ? 1 : in[i - lead]);
    rdims.push_back(static_cast<int64_t>(2 * i));
  }
  if (numel_of(split) == 0) return {zeros(in, g[0].dtype())};
  return {reshape(sum(reshape(g[0], split), rdims, false, std::nullopt, true), in)};
}
// Piecewise-constant ops (floor, sign, rounding with a mode, ...).
Tensor zero_jvp(const J& c) { return zeros(c.result.sizes(), c.result.dtype()); }
Tensor copy_jvp(const J& c) { return clone(t(c)); }
// copy_ / fill_(tensor): the source's tangent (broadcast by the caller).
Tensor copy_into_jvp(const J& c) { return t_or_zero(c, 1); }
Tensor tril_jvp(const J& c) { return tril(t(c), c.attrs<TriangleAttrs>().diagonal, false); }
Tensor triu_jvp(const J& c) { return tril(t(c), c.attrs<TriangleAttrs>().diagonal, true); }
Tensor flip_jvp(const J& c) { return flip(t(c), c.attrs<DimsAttrs>().dims); }
Tensor roll_jvp(const J& c) {
  const RollAttrs& at = c.attrs<RollAttrs>();
  return roll(t(c), at.shifts, at.dims);
}
Tensor repeat_jvp(const J& c) { return repeat(t(c), c.attrs<RepeatAttrs>().repeats); }
Tensor diag_embed_jvp(const J& c) {
  const DiagonalAttrs& at = c.attrs<DiagonalAttrs>();
  return diag_embed(t(c), at.offset, at.dim1, at.dim2);
}

}  // namespace gradtrack::autograd::formulas
