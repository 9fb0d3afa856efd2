// Diagonals: diagonal (a view), diag_embed, diagonal's backward, trace.
#include <algorithm>
#include <cstdlib>

#include "autograd/variable.h"
#include "ops/common.h"
#include "ops/extra_ops.h"

namespace gradtrack::ops {

namespace {

struct Geometry {
  DimVector sizes, strides;
  int64_t offset;
};

// The diagonal (offset, d1, d2) of a tensor with this geometry: the other
// dims in order, then the diagonal (PyTorch's layout).
Geometry diagonal_geometry(const DimVector& sizes, const DimVector& strides, int64_t base,
                           int64_t offset, int64_t d1, int64_t d2) {
  const int64_t s1 = sizes[size_t(d1)], s2 = sizes[size_t(d2)];
  int64_t len = offset >= 0 ? std::min(s1, s2 - offset) : std::min(s1 + offset, s2);
  len = std::max<int64_t>(len, 0);
  Geometry g;
  g.offset = base;
  if (len > 0) {
    g.offset += offset >= 0 ? offset * strides[size_t(d2)] : -offset * strides[size_t(d1)];
  }
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (int64_t(d) == d1 || int64_t(d) == d2) continue;
    g.sizes.push_back(sizes[d]);
    g.strides.push_back(strides[d]);
  }
  g.sizes.push_back(len);
  g.strides.push_back(strides[size_t(d1)] + strides[size_t(d2)]);
  return g;
}

std::pair<int64_t, int64_t> diagonal_dims(int64_t dim1, int64_t dim2, int64_t ndim) {
  const int64_t d1 = wrap_dim(dim1, ndim), d2 = wrap_dim(dim2, ndim);
  GT_CHECK(d1 != d2, "diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  return {d1, d2};
}

autograd::CreationMeta creation_meta() {
  if (autograd::InferenceMode::is_enabled()) return autograd::CreationMeta::InferenceMode;
  return autograd::GradMode::is_enabled() ? autograd::CreationMeta::Default
                                          : autograd::CreationMeta::NoGradMode;
}

// Zeros of `sizes` with `values` written on the diagonal (offset, d1, d2).
Tensor embed(const Tensor& values, const DimVector& sizes, int64_t offset, int64_t d1, int64_t d2) {
  Tensor out = zeros(sizes, values.dtype());
  Geometry g = diagonal_geometry(sizes, out.strides(), out->offset(), offset, d1, d2);
  Tensor diag = alias_with_geometry(out, g.sizes, g.strides, g.offset);
  GT_CHECK(diag.sizes() == values.sizes() || is_expandable_to(values.sizes(), diag.sizes()),
           "diagonal_backward: gradient of shape ", shape_str(values.sizes()),
           " does not fit the diagonal of shape ", shape_str(diag.sizes()));
  if (diag.numel() > 0) kernels::copy(diag, values);
  return out;
}

void diag_attrs(autograd::DiagonalAttrs& at, int64_t offset, int64_t d1, int64_t d2) {
  at.offset = offset;
  at.dim1 = d1;
  at.dim2 = d2;
}

}  // namespace

Tensor diagonal(const Tensor& a, int64_t offset, int64_t dim1, int64_t dim2, bool copy) {
  auto [d1, d2] = diagonal_dims(dim1, dim2, a.dim());
  Geometry g = diagonal_geometry(a.sizes(), a.strides(), a->offset(), offset, d1, d2);
  if (copy) {
    Tensor out = empty(g.sizes, a.dtype());
    kernels::copy(out, alias_with_geometry(a, g.sizes, g.strides, g.offset));
    record(OpKind::DiagonalCopy, {&a}, out,
           [&](autograd::DiagonalAttrs& at) { diag_attrs(at, offset, d1, d2); });
    return out;
  }
  Tensor out = alias_with_geometry(a, g.sizes, g.strides, g.offset);
  autograd::make_view(out, a, creation_meta());
  record(OpKind::Diagonal, {&a}, out,
         [&](autograd::DiagonalAttrs& at) { diag_attrs(at, offset, d1, d2); });
  return out;
}

Tensor diagonal_backward(const Tensor& g, const DimVector& sizes, int64_t offset, int64_t dim1,
                         int64_t dim2) {
  Tensor out = embed(g, sizes, offset, dim1, dim2);
  record(OpKind::DiagonalBackward, {&g}, out,
         [&](autograd::DiagonalAttrs& at) { diag_attrs(at, offset, dim1, dim2); });
  return out;
}

Tensor diag_embed(const Tensor& a, int64_t offset, int64_t dim1, int64_t dim2) {
  const int64_t nd = a.dim() + 1;
  auto [d1, d2] = diagonal_dims(dim1, dim2, nd);
  const int64_t n = (a.dim() == 0 ? 1 : a.sizes().back()) + std::abs(offset);
  DimVector sizes;
  for (int64_t i = 0; i + 1 < a.dim(); ++i) sizes.push_back(a.sizes()[size_t(i)]);
  const int64_t lo = std::min(d1, d2), hi = std::max(d1, d2);
  sizes.insert(size_t(lo), n);
  sizes.insert(size_t(hi), n);
  Tensor out = embed(a, sizes, offset, d1, d2);
  record(OpKind::DiagEmbed, {&a}, out,
         [&](autograd::DiagonalAttrs& at) { diag_attrs(at, offset, d1, d2); });
  return out;
}

Tensor trace(const Tensor& a) {
  GT_CHECK(a.dim() == 2, "trace: expected a matrix, but got tensor with dim ", a.dim());
  Tensor out;
  {
    autograd::AutoGradMode off(false);
    out = sum(diagonal(a, 0, 0, 1), {}, false);
  }
  record(OpKind::Trace, {&a}, out);
  return out;
}

}  // namespace gradtrack::ops
