// Refcounted byte buffers and the caching allocator behind them.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

namespace gradtrack {

namespace silent_writes {
struct StorageLedger;
}
struct SharedBlock;

/// A block of memory shared by a tensor and its views.
///
/// Owned blocks come from the caching allocator and return to it on
/// destruction. External blocks (numpy arrays) keep their owner alive through
/// `release`, which runs once when the last view of the block is gone.
class Storage {
 public:
  /// A fresh, uninitialised block of at least `nbytes` (64-byte aligned).
  static std::shared_ptr<Storage> allocate(size_t nbytes);
  /// Memory owned elsewhere; `release` runs when the storage dies.
  static std::shared_ptr<Storage> wrap(void* data, size_t nbytes, std::function<void()> release);

  Storage(void* data, size_t nbytes, size_t capacity, std::function<void()> release);
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
  ~Storage();

  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  /// Makes the storage hold at least `nbytes`, keeping its bytes (Tensor.resize_):
  /// every tensor on it sees the new memory. Memory owned elsewhere (from_numpy,
  /// shared mappings) cannot grow: torch's "not resizable" error.
  void grow(size_t nbytes);
  bool is_external() const { return static_cast<bool>(release_); }
  /// What the silent-write detector knows of this memory (NOTE [Silent
  /// writes]); null until it first watches or sees an alias of it.
  silent_writes::StorageLedger* ledger() const { return ledger_.load(std::memory_order_acquire); }
  silent_writes::StorageLedger& ensure_ledger();

  /// NOTE [Shared memory] (shared_memory.cpp): whether the bytes live in a
  /// POSIX shared-memory mapping other processes can map too.
  bool is_shared() const { return shared_ != nullptr; }
  /// The open descriptor of a block shared by descriptor, else -1.
  int shared_fd() const;
  /// The /dev/shm name of a block shared by name, else "".
  std::string shared_name() const;
  /// Counts one more process that will map a block shared by name (a
  /// reference in flight: the receiver adopts it instead of adding its own).
  void add_shared_reference();

 private:
  /// Hands over the current memory: the returned function frees it, and the
  /// storage owns nothing until it is given new memory.
  std::function<void()> detach_memory();

  friend void share_storage(const std::shared_ptr<Storage>& storage, bool by_name);
  friend std::shared_ptr<Storage> open_shared_storage(int fd, const std::string& name,
                                                      size_t nbytes);

  void* data_;
  size_t nbytes_;
  size_t capacity_;  // the allocator's block size; 0 for external memory
  std::function<void()> release_;
  std::atomic<silent_writes::StorageLedger*> ledger_{nullptr};
  std::unique_ptr<SharedBlock> shared_;
};

/// Moves `storage`'s bytes into a fresh shared-memory mapping (a memfd, or a
/// named file in /dev/shm when `by_name`); every tensor on the storage sees
/// the move. A no-op on a storage already shared.
void share_storage(const std::shared_ptr<Storage>& storage, bool by_name);
/// The storage of a block another process shared: by descriptor (`fd`, which
/// stays the caller's) or else by `name`. A block this process already maps
/// comes back as the same storage.
std::shared_ptr<Storage> open_shared_storage(int fd, const std::string& name, size_t nbytes);

/// Allocator statistics and knobs (exposed for tests and benchmarks).
struct AllocatorStats {
  size_t cached_bytes;
  size_t cached_blocks;
  size_t hits;
  size_t misses;
};
AllocatorStats allocator_stats();
/// Frees every cached block back to the system.
void allocator_empty_cache();

}  // namespace gradtrack
