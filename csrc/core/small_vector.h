// A vector with inline room for a few elements: shapes and strides live here.
//
// NOTE [Small shapes stay off the heap]
// A 1-element op builds a TensorImpl with a shape and strides. Two std::vector
// allocations per tensor were a measurable share of the ~0.3 us budget of a tiny
// op, so shapes of up to kInline dims are stored inline; larger ones spill.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <vector>

namespace gradtrack {

template <typename T, int kInline>
class SmallVector {
 public:
  SmallVector() = default;
  explicit SmallVector(size_t n, T value = T()) { resize(n, value); }
  SmallVector(std::initializer_list<T> init) { assign(init.begin(), init.end()); }
  template <typename It, typename = decltype(*std::declval<It>())>
  SmallVector(It first, It last) {
    assign(first, last);
  }
  SmallVector(const std::vector<T>& v) { assign(v.begin(), v.end()); }  // NOLINT
  SmallVector(const SmallVector& o) { assign(o.begin(), o.end()); }
  SmallVector(SmallVector&& o) noexcept { steal(std::move(o)); }
  SmallVector& operator=(const SmallVector& o) {
    if (this != &o) assign(o.begin(), o.end());
    return *this;
  }
  SmallVector& operator=(SmallVector&& o) noexcept {
    if (this != &o) {
      release();
      steal(std::move(o));
    }
    return *this;
  }
  ~SmallVector() { release(); }

  template <typename It>
  void assign(It first, It last) {
    size_t n = static_cast<size_t>(std::distance(first, last));
    reserve(n);
    std::copy(first, last, data_);
    for (size_t i = n; i < size_; ++i) data_[i] = T();
    size_ = n;
  }
  void reserve(size_t n) {
    if (n <= cap_) return;
    T* fresh = new T[n];
    std::copy(data_, data_ + size_, fresh);
    const size_t keep = size_;
    release();
    data_ = fresh;
    cap_ = n;
    size_ = keep;
  }
  void resize(size_t n, T value = T()) {
    reserve(n);
    for (size_t i = size_; i < n; ++i) data_[i] = value;
    for (size_t i = n; i < size_; ++i) data_[i] = T();
    size_ = n;
  }
  void push_back(T v) {
    if (size_ == cap_) reserve(cap_ * 2);
    data_[size_++] = v;
  }
  void insert(size_t pos, T v) {
    push_back(v);
    for (size_t i = size_ - 1; i > pos; --i) data_[i] = data_[i - 1];
    data_[pos] = v;
  }
  void erase(size_t pos) {
    for (size_t i = pos; i + 1 < size_; ++i) data_[i] = data_[i + 1];
    data_[--size_] = T();
  }
  void pop_back() { data_[--size_] = T(); }
  void clear() {
    // Reset the elements too: a list of shared_ptrs must let go of them now.
    for (size_t i = 0; i < size_; ++i) data_[i] = T();
    size_ = 0;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T& back() { return data_[size_ - 1]; }
  const T& back() const { return data_[size_ - 1]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  std::vector<T> vec() const { return std::vector<T>(begin(), end()); }

  bool operator==(const SmallVector& o) const {
    return size_ == o.size_ && std::equal(begin(), end(), o.begin());
  }
  bool operator!=(const SmallVector& o) const { return !(*this == o); }

 private:
  bool on_heap() const { return data_ != inline_; }
  void release() {
    if (on_heap()) delete[] data_;
    data_ = inline_;
    cap_ = kInline;
    size_ = 0;
  }
  void steal(SmallVector&& o) {
    if (o.on_heap()) {
      data_ = o.data_;
      cap_ = o.cap_;
      size_ = o.size_;
      o.data_ = o.inline_;
      o.cap_ = kInline;
      o.size_ = 0;
    } else {
      std::copy(o.begin(), o.end(), inline_);
      size_ = o.size_;
      o.clear();
    }
  }

  T inline_[kInline];
  T* data_ = inline_;
  size_t size_ = 0;
  size_t cap_ = kInline;
};

/// Sizes or strides of a tensor, in elements.
using DimVector = SmallVector<int64_t, 6>;

}  // namespace gradtrack
