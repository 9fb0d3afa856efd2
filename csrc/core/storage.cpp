#include "core/storage.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <sys/mman.h>
#include <unordered_map>
#include <vector>

#include "core/allocation_count.h"
#include "core/error.h"
#include "core/shared_memory.h"
#include "core/silent_writes.h"

namespace gradtrack {

// NOTE [Caching allocator]
// Fresh large buffers cost page faults on first touch: a new 64 MiB output took
// torch 4x the time of the arithmetic itself (measured on the 2-core
// development machine). Two remedies:
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

// NOTE [Thread-local small blocks]
// Tiny tensors are allocated and freed once per op; a per-thread stash of
// small blocks keeps the mutex and the map out of that path.
constexpr size_t kLocalMaxBlock = 4096;
constexpr int kLocalClasses = 7;  // 64 B .. 4 KiB
constexpr size_t kLocalPerClass = 32;

int local_class(size_t capacity) {
  int c = 0;
  for (size_t b = kMinBlock; b < capacity; b <<= 1) ++c;
  return c;
}

struct LocalCache {
  std::vector<void*> lists[kLocalClasses];
  ~LocalCache();
};

CachingAllocator& allocator() {
  // Leaked on purpose: storages may die during interpreter shutdown, after
  // static destructors would have run.
  static auto* a = new CachingAllocator();
  return *a;
}

// Initial-exec TLS: a plain %fs-relative access instead of a __tls_get_addr
// call per use (four per tensor allocated and freed). The module is
// small enough for the static TLS space the loader keeps for dlopen'ed libraries.
#define GT_TLS_FAST __attribute__((tls_model("initial-exec")))

GT_TLS_FAST thread_local bool t_cache_alive = false;

LocalCache::~LocalCache() {
  t_cache_alive = false;
  for (auto& list : lists)
    for (void* p : list) allocator().release(p, kMinBlock << (&list - lists));
}

GT_TLS_FAST thread_local LocalCache t_cache;

// Touching t_cache constructs it; storages freed after it died (thread exit)
// go straight to the shared allocator.
LocalCache& local_cache() {
  t_cache_alive = true;
  return t_cache;
}

void* allocate_block(size_t capacity, size_t requested) {
  if (capacity <= kLocalMaxBlock) {
    auto& list = local_cache().lists[local_class(capacity)];
    if (!list.empty()) {
      void* p = list.back();
      list.pop_back();
      return p;
    }
  }
  return allocator().allocate(capacity, requested);
}

void release_block(void* p, size_t capacity) {
  if (capacity <= kLocalMaxBlock && t_cache_alive) {
    auto& list = t_cache.lists[local_class(capacity)];
    if (list.size() < kLocalPerClass) {
      list.push_back(p);
      return;
    }
  }
  allocator().release(p, capacity);
}

}  // namespace

Storage::Storage(void* data, size_t nbytes, size_t capacity, std::function<void()> release)
    : data_(data), nbytes_(nbytes), capacity_(capacity), release_(std::move(release)) {}

std::atomic<bool> allocation_count::g_counting{false};
std::atomic<int64_t> allocation_count::g_bytes{0};

Storage::~Storage() {
  if (capacity_ != 0) allocation_count::on_free(nbytes_);
  delete ledger_.load(std::memory_order_acquire);
  shared_.reset();
  if (release_) {
    release_();
  } else if (data_ != nullptr) {
    release_block(data_, capacity_);
  }
}

std::function<void()> Storage::detach_memory() {
  std::function<void()> free_it;
  if (release_) {
    free_it = std::move(release_);
  } else if (data_ != nullptr) {
    free_it = [p = data_, c = capacity_] { release_block(p, c); };
  }
  release_ = [] {};
  data_ = nullptr;
  capacity_ = 0;
  return free_it;
}

void Storage::grow(size_t nbytes) {
  if (nbytes <= nbytes_) return;
  GT_CHECK(!release_ && !shared_, "Trying to resize storage that is not resizable");
  if (nbytes > capacity_) {
    const size_t capacity = round_block(nbytes);
    void* p = allocate_block(capacity, nbytes);
    if (nbytes_ != 0) std::memcpy(p, data_, nbytes_);
    if (data_ != nullptr) release_block(data_, capacity_);
    data_ = p;
    capacity_ = capacity;
  }
  allocation_count::on_free(nbytes_);
  allocation_count::on_allocate(nbytes);
  nbytes_ = nbytes;
}

silent_writes::StorageLedger& Storage::ensure_ledger() {
  silent_writes::StorageLedger* l = ledger_.load(std::memory_order_acquire);
  if (l) return *l;
  auto* fresh = new silent_writes::StorageLedger();
  if (ledger_.compare_exchange_strong(l, fresh, std::memory_order_acq_rel)) return *fresh;
  delete fresh;  // another thread made it first
  return *l;
}

std::shared_ptr<Storage> Storage::allocate(size_t nbytes) {
  size_t capacity = round_block(nbytes == 0 ? 1 : nbytes);
  void* p = allocate_block(capacity, nbytes);
  allocation_count::on_allocate(nbytes);
  return std::make_shared<Storage>(p, nbytes, capacity, nullptr);
}

std::shared_ptr<Storage> Storage::wrap(void* data, size_t nbytes, std::function<void()> release) {
  return std::make_shared<Storage>(data, nbytes, 0, std::move(release));
}

AllocatorStats allocator_stats() { return allocator().stats(); }
void allocator_empty_cache() { allocator().empty_cache(); }

}  // namespace gradtrack
