#include "core/tensor.h"

#include <algorithm>

namespace gradtrack {

TensorImpl::TensorImpl(std::shared_ptr<Storage> storage, DimVector sizes, DimVector strides,
                       int64_t offset, ScalarType dtype, std::shared_ptr<VersionCounter> version)
    : storage_(std::move(storage)),
      sizes_(std::move(sizes)),
      strides_(std::move(strides)),
      offset_(offset),
      dtype_(dtype),
      version_(std::move(version)) {
  refresh();
}

void TensorImpl::refresh() {
  // NOTE [Overflowing numel]: a view may have more elements than int64 holds
  // (expand(2**40, 2**40)), as in PyTorch; its numel is then -1, it is not
  // contiguous, and whatever needs the count fails with PyTorch's
  // "numel: integer multiplication overflow" (see ops::check_numel).
  int64_t n = 1;
  bool overflow = false;
  for (int64_t s : sizes_) overflow |= __builtin_mul_overflow(n, s, &n);
  numel_ = overflow ? -1 : n;
  // Contiguous means row-major order; dims of size 1 may have any stride.
  contiguous_ = true;
  int64_t expected = 1;
  for (size_t i = sizes_.size(); i-- > 0;) {
    if (sizes_[i] == 1) continue;
    if (strides_[i] != expected) {
      contiguous_ = false;
      break;
    }
    expected *= sizes_[i];
  }
  if (numel_ == 0) contiguous_ = true;
  if (overflow) contiguous_ = false;
}

void TensorImpl::set_geometry(DimVector sizes, DimVector strides, int64_t offset) {
  sizes_ = std::move(sizes);
  strides_ = std::move(strides);
  offset_ = offset;
  refresh();
}

void TensorImpl::set_data(const TensorImpl& other) {
  storage_ = other.storage_;
  dtype_ = other.dtype_;
  set_geometry(other.sizes_, other.strides_, other.offset_);
}

Tensor empty(const DimVector& sizes, ScalarType dtype) {
  int64_t n = checked_numel(sizes);
  size_t item = itemsize(dtype);
  if (n > 0 && static_cast<uint64_t>(n) > UINT64_MAX / 2 / item) {
    throw Error(str_cat("Storage size calculation overflowed with sizes=", shape_str(sizes)));
  }
  auto storage = Storage::allocate(static_cast<size_t>(n) * item);
  return Tensor(std::make_shared<TensorImpl>(std::move(storage), sizes, contiguous_strides(sizes),
                                             0, dtype, std::make_shared<VersionCounter>()));
}

Tensor alias_with_geometry(const Tensor& base, DimVector sizes, DimVector strides,
                           int64_t offset) {
  return Tensor(std::make_shared<TensorImpl>(base->storage(), std::move(sizes),
                                             std::move(strides), offset, base.dtype(),
                                             base->version_counter()));
}

Tensor alias_fresh_counter(const Tensor& t) {
  return Tensor(std::make_shared<TensorImpl>(t->storage(), t.sizes(), t.strides(), t->offset(),
                                             t.dtype(), std::make_shared<VersionCounter>()));
}

bool has_internal_overlap(const Tensor& t) {
  // PyTorch's rule: only a stride-0 dim of size > 1 (an expanded tensor) counts
  // as overlap; other exotic layouts are "too hard" and allowed.
  for (int64_t i = 0; i < t.dim(); ++i) {
    if (t.sizes()[i] > 1 && t.strides()[i] == 0) return true;
  }
  return false;
}

bool may_overlap(const Tensor& a, const Tensor& b) {
  if (a->storage() != b->storage() || a.numel() == 0 || b.numel() == 0) return false;
  auto extent = [](const Tensor& t, int64_t& lo, int64_t& hi) {
    int64_t item = static_cast<int64_t>(itemsize(t.dtype()));
    lo = hi = t->offset() * item;
    for (int64_t i = 0; i < t.dim(); ++i) {
      int64_t span = (t.sizes()[i] - 1) * t.strides()[i] * item;
      (span < 0 ? lo : hi) += span;
    }
    hi += item;
  };
  int64_t alo, ahi, blo, bhi;
  extent(a, alo, ahi);
  extent(b, blo, bhi);
  return alo < bhi && blo < ahi;
}

}  // namespace gradtrack
