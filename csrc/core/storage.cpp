#include "core/storage.h"

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

#include "core/error.h"

namespace gradtrack {

// NOTE [Caching allocator]
// Fresh large buffers cost page faults on first touch: a new 64 MiB output took
// torch 4x the time of the arithmetic itself (build_notes §3). Two remedies:
//  * big blocks (>= kHugeThreshold) are 2 MiB aligned and advised as huge pages,
//    which cut the first-touch cost ~3.4x;
//  * freed blocks are kept in per-size free lists and handed out again, so a
//    training loop that allocates the same shapes every step stops faulting.
// Sizes are rounded (powers of two below kHugeThreshold, 2 MiB multiples above)
// so that nearby sizes share a list. The cache is bounded (kMaxCachedBytes);
// beyond it, blocks go straight back to the system.
namespace {

constexpr size_t kMinBlock = 64;
constexpr size_t kHugeThreshold = size_t(4) << 20;
constexpr size_t kHugePage = size_t(2) << 20;
constexpr size_t kMaxCachedBytes = size_t(1) << 30;
constexpr size_t kMaxBlocksPerSmallSize = 256;

size_t round_block(size_t n) {
  if (n >= kHugeThreshold) return (n + kHugePage - 1) / kHugePage * kHugePage;
  size_t b = kMinBlock;
  while (b < n) b <<= 1;
  return b;
}

class CachingAllocator {
 public:
  void* allocate(size_t capacity, size_t requested) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = free_.find(capacity);
      if (it != free_.end() && !it->second.empty()) {
        void* p = it->second.back();
        it->second.pop_back();
        cached_bytes_ -= capacity;
        --cached_blocks_;
        ++hits_;
        return p;
      }
      ++misses_;
    }
    return system_allocate(capacity, requested);
  }

  void release(void* p, size_t capacity) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto& list = free_[capacity];
      bool small_full = capacity < kHugeThreshold && list.size() >= kMaxBlocksPerSmallSize;
      if (!small_full && cached_bytes_ + capacity <= kMaxCachedBytes) {
        list.push_back(p);
        cached_bytes_ += capacity;
        ++cached_blocks_;
        return;
      }
    }
    std::free(p);
  }

  void empty_cache() {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& kv : free_)
      for (void* p : kv.second) std::free(p);
    free_.clear();
    cached_bytes_ = 0;
    cached_blocks_ = 0;
  }

  AllocatorStats stats() {
    std::lock_guard<std::mutex> lock(mu_);
    return {cached_bytes_, cached_blocks_, hits_, misses_};
  }

 private:
  static void* system_allocate(size_t capacity, size_t requested) {
    size_t align = capacity >= kHugeThreshold ? kHugePage : kMinBlock;
    void* p = nullptr;
    if (posix_memalign(&p, align, capacity) != 0 || p == nullptr) {
      throw Error(str_cat("DefaultCPUAllocator: can't allocate memory: you tried to allocate ",
                          requested, " bytes. Error code 12 (Cannot allocate memory)"));
    }
#ifdef MADV_HUGEPAGE
    if (capacity >= kHugeThreshold) madvise(p, capacity, MADV_HUGEPAGE);
#endif
    return p;
  }

  std::mutex mu_;
  std::unordered_map<size_t, std::vector<void*>> free_;
  size_t cached_bytes_ = 0, cached_blocks_ = 0, hits_ = 0, misses_ = 0;
};

CachingAllocator& allocator() {
  // Leaked on purpose: storages may die during interpreter shutdown, after
  // static destructors would have run.
  static auto* a = new CachingAllocator();
  return *a;
}

}  // namespace

Storage::Storage(void* data, size_t nbytes, size_t capacity, std::function<void()> release)
    : data_(data), nbytes_(nbytes), capacity_(capacity), release_(std::move(release)) {}

Storage::~Storage() {
  if (release_) {
    release_();
  } else if (data_ != nullptr) {
    allocator().release(data_, capacity_);
  }
}

std::shared_ptr<Storage> Storage::allocate(size_t nbytes) {
  size_t capacity = round_block(nbytes == 0 ? 1 : nbytes);
  void* p = allocator().allocate(capacity, nbytes);
  return std::make_shared<Storage>(p, nbytes, capacity, nullptr);
}

std::shared_ptr<Storage> Storage::wrap(void* data, size_t nbytes, std::function<void()> release) {
  return std::make_shared<Storage>(data, nbytes, 0, std::move(release));
}

AllocatorStats allocator_stats() { return allocator().stats(); }
void allocator_empty_cache() { allocator().empty_cache(); }

}  // namespace gradtrack
