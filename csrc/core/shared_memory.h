// The POSIX shared-memory mapping under a shared storage (NOTE [Shared memory]).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace gradtrack {

/// One mapping of a shared block: the header (a count of the processes that
/// map a named block) followed by the storage's bytes.
struct SharedBlock {
  SharedBlock() = default;
  SharedBlock(const SharedBlock&) = delete;
  SharedBlock& operator=(const SharedBlock&) = delete;
  ~SharedBlock();

  void* base = nullptr;           // the mapping, header first
  size_t map_bytes = 0;           // header + data
  int owner = 0;                  // the process that counted itself in (fork children are not)
  int fd = -1;                    // kept open for a block shared by descriptor
  std::string name;               // the /dev/shm file of a block shared by name
  std::string key;                // this process's registry key for the block
  std::function<void()> retired;  // frees the memory the storage had before sharing
  std::atomic<int64_t>* refs() const { return static_cast<std::atomic<int64_t>*>(base); }
};

/// Bytes before the data in every mapping (keeps the data 64-byte aligned).
constexpr size_t kSharedHeader = 64;

/// Counts this process out of every named block it still maps (unlinking the
/// files no process maps any more): run when the process exits.
void release_shared_names();

}  // namespace gradtrack
