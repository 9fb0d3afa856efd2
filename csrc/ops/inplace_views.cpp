// The in-place ops that change only a tensor's geometry: t_, transpose_, squeeze_,
// unsqueeze_, as_strided_. Each bumps the version and takes a new node directly (no
// CopySlices: the data did not move).
#include "autograd/provenance.h"
#include "ops/as_strided.h"
#include "ops/common.h"

namespace gradtrack::ops {

namespace {

// Metadata-only in-place ops change geometry, bump, and take a new node
// directly (no CopySlices: the data did not move).
template <typename Fill>
Tensor metadata_inplace(const char* label, const Tensor& self, OpKind kind, DimVector sizes,
                        DimVector strides, const Fill& fill,
                        std::optional<int64_t> offset = std::nullopt) {
  const int64_t off = offset ? *offset : self->offset();
  // Forward AD: the tangent (same strides as self) takes the same geometry.
  Tensor new_tangent;
  if (autograd::forward_ad::any_tangent({&self})) {
    Tensor tan = autograd::forward_ad::tangent(self);
    new_tangent = alias_with_geometry(tan, sizes, strides, tan->offset() + off - self->offset());
  }
  bool rec = autograd::should_record({&self});
  std::shared_ptr<autograd::FormulaNode> node;
  if (rec) node = autograd::new_node(kind, {&self});
  self->set_geometry(std::move(sizes), std::move(strides), off);
  if (new_tangent.defined()) autograd::forward_ad::set_tangent(self, new_tangent);
  self->bump_version();
  autograd::note_write(self, label);
  if (node) {
    fill_attrs(node->attrs, fill);
    autograd::set_history(self, node);
  }
  return self;
}

}  // namespace

Tensor inplace_t(const Tensor& self) {
  GT_CHECK(self.dim() <= 2, "t_() expects a tensor with <= 2 dimensions, but self is ", self.dim(),
           "D");
  DimVector s(self.sizes()), st(self.strides());
  if (self.dim() == 2) {
    std::swap(s[0], s[1]);
    std::swap(st[0], st[1]);
  }
  return metadata_inplace("t_", self, OpKind::TInplace, s, st, no_attrs);
}

Tensor inplace_unsqueeze(const Tensor& self, int64_t dim) {
  int64_t d = wrap_dim(dim, self.dim() + 1);
  DimVector s(self.sizes()), st(self.strides());
  int64_t stride = d < self.dim() ? self.sizes()[d] * self.strides()[d] : 1;
  s.insert(static_cast<size_t>(d), 1);
  st.insert(static_cast<size_t>(d), stride);
  return metadata_inplace("unsqueeze_", self, OpKind::UnsqueezeInplace, s, st,
                          [&](autograd::DimAttrs& at) { at.dim = d; });
}

Tensor inplace_squeeze(const Tensor& self, std::optional<int64_t> dim) {
  DimVector s, st;
  int64_t d = dim ? wrap_dim(*dim, self.dim()) : -1;
  for (int64_t k = 0; k < self.dim(); ++k) {
    bool drop = self.sizes()[k] == 1 && (d < 0 || k == d);
    if (!drop) {
      s.push_back(self.sizes()[k]);
      st.push_back(self.strides()[k]);
    }
  }
  return metadata_inplace(
      "squeeze_", self, dim ? OpKind::SqueezeDimInplace : OpKind::SqueezeInplace, s, st, no_attrs);
}

// recurrent layers: torch's RNN and GRU transpose a batch_first
// output in place (TransposeBackward1)
Tensor inplace_transpose(const Tensor& self, int64_t d0, int64_t d1) {
  const int64_t x = wrap_dim(d0, self.dim()), y = wrap_dim(d1, self.dim());
  DimVector s(self.sizes()), st(self.strides());
  if (self.dim() > 0) {
    std::swap(s[x], s[y]);
    std::swap(st[x], st[y]);
  }
  return metadata_inplace("transpose_", self, OpKind::TransposeInplace, s, st,
                          [&](autograd::TransposeAttrs& at) {
                            at.dim0 = x;
                            at.dim1 = y;
                          });
}

Tensor inplace_as_strided(const Tensor& self, const DimVector& sizes, const DimVector& strides,
                          std::optional<int64_t> offset) {
  const int64_t off = offset ? *offset : self->offset();
  check_as_strided(self, sizes, strides, off);
  const DimVector base_stride = self.strides();
  const int64_t base_offset = self->offset();
  return metadata_inplace(
      "as_strided_", self, OpKind::AsStridedInplace, sizes, strides,
      [&](autograd::AsStridedAttrs& at) {
        at.size = sizes;
        at.stride = strides;
        at.storage_offset = off;
        at.base_stride = base_stride;
        at.base_offset = base_offset;
      },
      off);
}

}  // namespace gradtrack::ops
