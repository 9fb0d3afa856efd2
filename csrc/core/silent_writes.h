// What the silent-write detector knows of memory: saved regions, aliases made
// outside a tensor's version counter, and the writes through them.
//
// NOTE [Silent writes]
// A version counter sees every write made through the tensors that share it
// (views, detach()), and nothing else. `.data` is a tensor with a fresh
// counter over the same memory, `x.data = y` swaps the memory under x, and a
// NumPy array or DLPack consumer writes the memory directly: backward then
// computes with the new values and no error (torch's silent wrong gradient).
// With the detector on (gradtrack.autograd.detect_silent_writes), every
// tensor a node saves is *watched*: its region (storage, geometry, dtype) is
// kept, and the memory it reads gets a fingerprint (a 64-bit hash of its
// bytes) as soon as anything but its own counter can reach it: at the save
// when the storage already has such an alias, else when the first one is made
// (the `.data` getter and setter, numpy(), from_numpy, DLPack). A memory no
// alias reaches can only change through its counter, which the version check
// sees, so most saves cost a small record and no pass over the data. Before
// backward runs, every watched tensor of the graph is compared with what was
// saved (the same storage and geometry, the same fingerprint); a difference
// with no version bump refuses the backward before any gradient is
// accumulated. Writes gradtrack makes to watched memory are logged on the
// storage (op, line, the alias they went through), so the error names them;
// bytes that a write leaves unchanged are no change.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "core/dtype.h"
#include "core/small_vector.h"
#include "core/storage.h"

namespace gradtrack {

class Tensor;

namespace silent_writes {

/// The mode (off by default): watches what nodes save from now on.
bool enabled();
void set_enabled(bool on);
/// How many watched saved tensors are alive (0: backward skips the check).
int64_t live_watches();

/// The ways memory is reached outside a tensor's version counter.
enum AliasWay : uint8_t {
  kData = 1,       // the .data getter, or x.data = y
  kNumpy = 2,      // Tensor.numpy() / __array__
  kFromNumpy = 4,  // from_numpy / as_tensor of an array
  kDlpack = 8,     // __dlpack__ / from_dlpack
};

/// One write gradtrack made to watched memory.
struct WriteNote {
  uint64_t seq = 0;       // the storage's write number
  uint16_t label = 0;     // interned op name (autograd/provenance)
  uint32_t location = 0;  // interned source line
  uint8_t via = 0;        // TensorImpl::AliasKind of the writer, +1 when it was a view
};

struct SavedRegion;

/// Per-storage bookkeeping, made on the first watch or alias.
struct StorageLedger {
  static constexpr int kNotes = 8;
  std::mutex mutex;
  uint8_t aliases = 0;  // AliasWay bits seen so far
  std::vector<std::weak_ptr<SavedRegion>> regions;
  std::atomic<int> watched{0};  // live regions on this storage
  WriteNote notes[kNotes];
  uint64_t writes = 0;
};

/// The memory a watched saved tensor reads, as it was saved.
struct SavedRegion {
  std::shared_ptr<Storage> storage;  // kept alive: `x.data = y` may drop x's
  DimVector sizes, strides;
  int64_t offset = 0;
  ScalarType dtype = ScalarType::Float32;
  uint64_t writes_at_save = 0;  // the storage's write number when saved
  std::atomic<bool> printed{false};
  uint64_t print = 0;  // the fingerprint, once `printed`
  ~SavedRegion();
};

/// Starts watching what `t` holds now (the caller checks enabled()).
std::shared_ptr<SavedRegion> watch(const Tensor& t);
/// The region's bytes hashed (64 bits).
uint64_t fingerprint(const Storage& storage, const DimVector& sizes, const DimVector& strides,
                     int64_t offset, ScalarType dtype);
uint64_t fingerprint(const SavedRegion& region);
uint64_t fingerprint(const Tensor& t);
/// The fingerprint of the region as saved (taken now if it was not yet).
uint64_t saved_fingerprint(SavedRegion& region);
/// An alias outside the version counter now reaches `storage`: its watched
/// regions get their fingerprints while they still hold what was saved.
void note_alias(const std::shared_ptr<Storage>& storage, AliasWay way);
/// A write gradtrack made to `storage` (after it), for the error to name.
void note_write(Storage& storage, uint16_t label, uint32_t location, uint8_t via);
/// The ways `storage` has been reached outside a counter (AliasWay bits).
uint8_t aliases_of(const Storage& storage);
/// The writes logged on `storage` after write number `since` (oldest first;
/// the log keeps the last StorageLedger::kNotes).
std::vector<WriteNote> writes_since(const Storage& storage, uint64_t since);

}  // namespace silent_writes
}  // namespace gradtrack
