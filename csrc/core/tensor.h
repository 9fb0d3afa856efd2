// TensorImpl (the shared state of one tensor object) and Tensor (a handle).
#pragma once

#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <memory>

#include "core/dtype.h"
#include "core/shape.h"
#include "core/storage.h"

namespace gradtrack {

/// NOTE [Version counter sharing]
/// Every in-place write bumps the counter of the tensor it writes, once, after
/// the kernel succeeded. Views and detach() share their base's counter object,
/// so a write through any of them invalidates tensors saved from any other.
/// `.data`, clone() and copies get a fresh counter: that is exactly why writes
/// through `.data` go undetected (as in PyTorch 2.13).
/// One recorded in-place write (NOTE [Write provenance] in autograd/provenance.h).
struct WriteRecord {
  uint32_t version = 0;          // the counter's value after the write
  uint32_t location = 0;         // interned user source location (0: unknown)
  const void* writer = nullptr;  // the TensorImpl written through (identity only)
  uint16_t label = 0;            // interned op name ("add_", "__setitem__", ...)
  uint8_t via = 0;  // 0: the tensor itself, 1: a detach() alias, 2: a view, 3: a view(dtype)
};

/// The last few writes through any alias sharing a counter.
struct WriteLog {
  static constexpr int kSize = 4;
  WriteRecord ring[kSize];
  uint32_t total = 0;
};

struct VersionCounter {
  std::atomic<uint32_t> value{0};
  std::unique_ptr<WriteLog> log;  // allocated on the first recorded write
};

/// Base of the autograd metadata a tensor may carry (defined in autograd/).
struct AutogradMetaInterface {
  virtual ~AutogradMetaInterface() = default;
};

/// Storage, geometry, dtype and version counter of one tensor.
class TensorImpl {
 public:
  TensorImpl(std::shared_ptr<Storage> storage, DimVector sizes, DimVector strides, int64_t offset,
             ScalarType dtype, std::shared_ptr<VersionCounter> version);

  const DimVector& sizes() const { return sizes_; }
  const DimVector& strides() const { return strides_; }
  int64_t offset() const { return offset_; }
  int64_t dim() const { return static_cast<int64_t>(sizes_.size()); }
  int64_t numel() const { return numel_; }
  ScalarType dtype() const { return dtype_; }
  bool is_contiguous() const { return contiguous_; }
  const std::shared_ptr<Storage>& storage() const { return storage_; }
  char* data() const {
    return static_cast<char*>(storage_->data()) + offset_ * static_cast<int64_t>(itemsize(dtype_));
  }
  const std::shared_ptr<VersionCounter>& version_counter() const { return version_; }
  uint32_t version() const { return version_->value.load(std::memory_order_relaxed); }
  void bump_version() { version_->value.fetch_add(1, std::memory_order_relaxed); }

  /// In-place metadata change (t_, unsqueeze_, squeeze_, `.data =`).
  void set_geometry(DimVector sizes, DimVector strides, int64_t offset);
  /// `.data = other`: take other's storage, geometry and dtype, keep our counter.
  void set_data(const TensorImpl& other);
  void set_version_counter(std::shared_ptr<VersionCounter> v) { version_ = std::move(v); }

  /// What an alias with no history is (detach(), view(dtype)): writes through
  /// it are reported as such.
  /// How this tensor was made from another without a copy: what provenance
  /// says a write went through. Data: the `.data` getter (a fresh counter).
  enum class AliasKind : uint8_t { None, Detach, ViewDtype, Data };
  AliasKind alias_kind() const { return alias_kind_; }
  void set_alias_kind(AliasKind k) { alias_kind_ = k; }

  AutogradMetaInterface* autograd_meta() const { return autograd_.get(); }
  void set_autograd_meta(std::unique_ptr<AutogradMetaInterface> m) { autograd_ = std::move(m); }

 private:
  void refresh();

  std::shared_ptr<Storage> storage_;
  DimVector sizes_, strides_;
  int64_t offset_;
  int64_t numel_ = 1;
  ScalarType dtype_;
  bool contiguous_ = true;
  AliasKind alias_kind_ = AliasKind::None;
  std::shared_ptr<VersionCounter> version_;
  std::unique_ptr<AutogradMetaInterface> autograd_;
};

/// A cheap handle to a TensorImpl; the C++ API passes these by value.
class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const { return static_cast<bool>(impl_); }
  TensorImpl* get() const { return impl_.get(); }
  TensorImpl* operator->() const { return impl_.get(); }
  const std::shared_ptr<TensorImpl>& ptr() const { return impl_; }
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }

  const DimVector& sizes() const { return impl_->sizes(); }
  const DimVector& strides() const { return impl_->strides(); }
  int64_t size(int64_t d) const { return impl_->sizes()[wrap_dim(d, dim())]; }
  int64_t dim() const { return impl_->dim(); }
  int64_t numel() const { return impl_->numel(); }
  ScalarType dtype() const { return impl_->dtype(); }
  bool is_contiguous() const { return impl_->is_contiguous(); }
  char* raw() const { return impl_->data(); }
  /// False only for memory aliased from an unaligned NumPy array
  /// (NOTE [Unaligned memory] in kernels/kernels.h).
  bool is_aligned() const { return reinterpret_cast<uintptr_t>(raw()) % itemsize(dtype()) == 0; }
  template <typename T>
  T* data() const {
    return reinterpret_cast<T*>(impl_->data());
  }

 private:
  std::shared_ptr<TensorImpl> impl_;
};

using TensorList = std::vector<Tensor>;

/// A new contiguous tensor with uninitialised memory and a fresh counter.
Tensor empty(const DimVector& sizes, ScalarType dtype);
/// A new tensor with uninitialised memory, the given (dense) strides and a fresh counter.
Tensor empty_strided(const DimVector& sizes, const DimVector& strides, ScalarType dtype);

/// NOTE [Elementwise output layout]
/// An elementwise result is laid out in its inputs' memory order, as PyTorch's
/// TensorIterator does: the dims are ordered by the strides of the first input
/// that can tell them apart (broadcast dims can't), ties keep row-major order.
/// So x.t().exp() is transposed like x.t(), and .view(-1) of it fails as in
/// PyTorch. Dense inputs that all have the result's shape and strides give
/// exactly those strides. Contiguous inputs give a contiguous result; callers
/// check that first and skip this (the hot path).
DimVector dense_strides_following(const DimVector& shape,
                                  std::initializer_list<const Tensor*> inputs);
/// A tensor over `base`'s storage with new geometry, sharing its counter.
Tensor alias_with_geometry(const Tensor& base, DimVector sizes, DimVector strides, int64_t offset);
/// Same storage and geometry, a fresh version counter (what `.data` returns).
Tensor alias_fresh_counter(const Tensor& t);
/// Every element has its own memory and together they fill one block
/// (PyTorch's is_non_overlapping_and_dense: contiguous up to a permutation).
bool is_non_overlapping_and_dense(const Tensor& t);
/// True if two distinct index tuples of `t` address the same memory
/// (an expanded dim; empty tensors never overlap).
bool has_internal_overlap(const Tensor& t);

/// NOTE [Memory overlap]
/// PyTorch's verdict on two tensors an op reads and writes (get_overlap_status):
/// Full when they are the same elements in the same order, Partial when they
/// share some memory otherwise, TooHard when either is not dense (slices with
/// steps, expanded): those are never refused, even when they do overlap.
enum class Overlap { No, Full, Partial, TooHard };
Overlap overlap_status(const Tensor& a, const Tensor& b);
/// True if `a` and `b` address overlapping bytes of the same storage.
bool may_overlap(const Tensor& a, const Tensor& b);

}  // namespace gradtrack
