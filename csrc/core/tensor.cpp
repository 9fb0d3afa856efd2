#include "core/tensor.h"

#include "core/error.h"

#include <algorithm>
#include <cstdlib>

namespace gradtrack {

WarningHandler g_warning_handler = nullptr;

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
  // NOTE [Overflowing numel]: expand refuses sizes whose count overflows
  // int64 (NOTE [Expanded sizes are checked]), but geometry can still come
  // from elsewhere (.data, set_geometry); such a tensor's numel is -1, it
  // is not contiguous, and whatever needs the count fails with PyTorch's
  // "numel: integer multiplication overflow".
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

Tensor alias_with_geometry(const Tensor& base, DimVector sizes, DimVector strides, int64_t offset) {
  return Tensor(std::make_shared<TensorImpl>(base->storage(), std::move(sizes), std::move(strides),
                                             offset, base.dtype(), base->version_counter()));
}

Tensor alias_fresh_counter(const Tensor& t) {
  return Tensor(std::make_shared<TensorImpl>(t->storage(), t.sizes(), t.strides(), t->offset(),
                                             t.dtype(), std::make_shared<VersionCounter>()));
}

// The storage spans every element the strides reach (PyTorch's
// empty_strided), not just numel: a caller that passes a view's gapped
// strides (a narrow's) then writes inside the allocation, not past it.
Tensor empty_strided(const DimVector& sizes, const DimVector& strides, ScalarType dtype) {
  int64_t n = checked_numel(sizes);
  if (n > 0) {
    int64_t extent = 1;
    for (size_t d = 0; d < sizes.size(); ++d) extent += (sizes[d] - 1) * std::abs(strides[d]);
    n = std::max(n, extent);
  }
  size_t item = itemsize(dtype);
  if (n > 0 && static_cast<uint64_t>(n) > UINT64_MAX / 2 / item) {
    throw Error(str_cat("Storage size calculation overflowed with sizes=", shape_str(sizes)));
  }
  auto storage = Storage::allocate(static_cast<size_t>(n) * item);
  return Tensor(std::make_shared<TensorImpl>(std::move(storage), sizes, strides, 0, dtype,
                                             std::make_shared<VersionCounter>()));
}

DimVector dense_strides_following(const DimVector& shape,
                                  std::initializer_list<const Tensor*> inputs) {
  const int64_t nd = static_cast<int64_t>(shape.size());
  // Inputs all of the result's shape and strides, dense: their strides as they
  // are (size-1 dims included), like TensorIterator's fast setup.
  const Tensor& first = **inputs.begin();
  bool same = true;
  for (const Tensor* t : inputs) {
    same = same && t->sizes() == shape && t->strides() == first.strides();
  }
  if (same && is_non_overlapping_and_dense(first)) return first.strides();
  // An input's stride over result dim d; 0 where it is broadcast there.
  auto stride_of = [&](const Tensor& t, int64_t d) -> int64_t {
    int64_t k = d - (nd - t.dim());
    if (k < 0 || (t.sizes()[k] == 1 && shape[d] != 1)) return 0;
    return t.strides()[k];
  };
  // >0: d0 (now placed faster) steps further than d1, so they swap; <0: they
  // are in order; 0: no input can tell (broadcast, or equal steps and sizes).
  auto order = [&](int64_t d0, int64_t d1) -> int {
    for (const Tensor* t : inputs) {
      int64_t s0 = stride_of(*t, d0), s1 = stride_of(*t, d1);
      if (s0 == 0 || s1 == 0) continue;
      if (s0 != s1) return s0 < s1 ? -1 : 1;
      if (shape[d0] > shape[d1]) return 1;
    }
    return 0;
  };
  // perm[0] is the fastest dim; start from row-major and insertion-sort,
  // skipping over pairs no input can order.
  SmallVector<int64_t, 6> perm(static_cast<size_t>(nd));
  for (int64_t i = 0; i < nd; ++i) perm[i] = nd - 1 - i;
  for (int64_t i = 1; i < nd; ++i) {
    int64_t moving = i;
    for (int64_t j = i - 1; j >= 0; --j) {
      int c = order(perm[j], perm[moving]);
      if (c < 0) break;
      if (c > 0) {
        std::swap(perm[j], perm[moving]);
        moving = j;
      }
    }
  }
  DimVector strides(static_cast<size_t>(nd));
  int64_t next = 1;
  for (int64_t i = 0; i < nd; ++i) {
    strides[perm[i]] = next;
    next *= shape[perm[i]];
  }
  return strides;
}

bool is_non_overlapping_and_dense(const Tensor& t) {
  if (t.is_contiguous()) return true;
  const int64_t nd = t.dim();
  const DimVector& sz = t.sizes();
  const DimVector& st = t.strides();
  if (nd == 1) return sz[0] < 2 || st[0] == 1;
  // Dims by increasing stride (size < 2 last): each must step over all the
  // ones before it exactly.
  SmallVector<int64_t, 6> perm(static_cast<size_t>(nd));
  for (int64_t d = 0; d < nd; ++d) perm[d] = d;
  std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
    if (sz[a] < 2) return false;
    if (sz[b] < 2) return true;
    return st[a] < st[b];
  });
  int64_t expected = 1;
  for (int64_t d : perm) {
    if (sz[d] < 2) return true;
    if (st[d] != expected) return false;
    expected *= sz[d];
  }
  return true;
}

bool has_internal_overlap(const Tensor& t) {
  // PyTorch's rule: only a stride-0 dim of size > 1 (an expanded tensor) counts
  // as overlap; other exotic layouts are "too hard" and allowed. An empty
  // tensor is contiguous, so it never overlaps.
  if (t.numel() == 0) return false;
  for (int64_t i = 0; i < t.dim(); ++i) {
    if (t.sizes()[i] > 1 && t.strides()[i] == 0) return true;
  }
  return false;
}

Overlap overlap_status(const Tensor& a, const Tensor& b) {
  if (a.get() == b.get()) return Overlap::Full;
  if (a.numel() == 0 || b.numel() == 0 || a->storage() != b->storage()) return Overlap::No;
  if (!is_non_overlapping_and_dense(a) || !is_non_overlapping_and_dense(b)) return Overlap::TooHard;
  auto begin = [](const Tensor& t) {
    return t->offset() * static_cast<int64_t>(itemsize(t.dtype()));
  };
  auto end = [&](const Tensor& t) {
    return begin(t) + t.numel() * static_cast<int64_t>(itemsize(t.dtype()));
  };
  if (begin(a) == begin(b) && end(a) == end(b)) {
    return a.strides() == b.strides() ? Overlap::Full : Overlap::Partial;
  }
  return begin(a) < end(b) && begin(b) < end(a) ? Overlap::Partial : Overlap::No;
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
