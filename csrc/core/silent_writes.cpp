// The silent-write detector's bookkeeping (NOTE [Silent writes]).
#include "core/silent_writes.h"

#include <algorithm>
#include <cstring>

#include "core/tensor.h"

namespace gradtrack::silent_writes {

namespace {

std::atomic<bool> g_enabled{false};
std::atomic<int64_t> g_live{0};

// A 64-bit hash of byte runs: each 8-byte word mixed in with a multiply and a
// rotation (the mixing of wyhash/xxhash, small enough to read here), the run
// lengths folded in so that moving a boundary changes the result.
struct Hasher {
  uint64_t h = 0x9E3779B97F4A7C15ull;
  static uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xFF51AFD7ED558CCDull;
    x ^= x >> 33;
    x *= 0xC4CEB9FE1A85EC53ull;
    x ^= x >> 33;
    return x;
  }
  void add_word(uint64_t w) { h = (h ^ mix(w)) * 0x100000001B3ull + (h >> 29); }
  void add(const char* p, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      uint64_t w;
      std::memcpy(&w, p + i, 8);
      add_word(w);
    }
    uint64_t tail = 0;
    std::memcpy(&tail, p + i, n - i);
    add_word(tail ^ (static_cast<uint64_t>(n) << 56));
  }
};

}  // namespace

bool enabled() { return g_enabled.load(std::memory_order_relaxed); }
void set_enabled(bool on) { g_enabled.store(on, std::memory_order_relaxed); }
int64_t live_watches() { return g_live.load(std::memory_order_relaxed); }

SavedRegion::~SavedRegion() {
  if (StorageLedger* l = storage ? storage->ledger() : nullptr) l->watched.fetch_sub(1);
  g_live.fetch_sub(1, std::memory_order_relaxed);
}

uint64_t fingerprint(const Storage& storage, const DimVector& sizes, const DimVector& strides,
                     int64_t offset, ScalarType dtype) {
  const size_t item = itemsize(dtype);
  const char* base = static_cast<const char*>(storage.data());
  Hasher h;
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  if (numel == 0 || base == nullptr) return h.h;
  // Dense runs along the innermost dims are hashed as one byte run.
  const int64_t nd = static_cast<int64_t>(sizes.size());
  int64_t inner = 1, d = nd;
  int64_t expected = 1;
  while (d > 0 && (sizes[d - 1] == 1 || strides[d - 1] == expected)) {
    inner *= sizes[d - 1];
    expected *= sizes[d - 1];
    --d;
  }
  DimVector index(static_cast<size_t>(d), 0);
  const int64_t outer = numel / inner;
  for (int64_t o = 0; o < outer; ++o) {
    int64_t pos = offset;
    for (int64_t k = 0; k < d; ++k) pos += index[k] * strides[k];
    h.add(base + pos * static_cast<int64_t>(item), static_cast<size_t>(inner) * item);
    for (int64_t k = d - 1; k >= 0; --k) {
      if (++index[k] < sizes[k]) break;
      index[k] = 0;
    }
  }
  return h.h;
}

uint64_t fingerprint(const SavedRegion& r) {
  return fingerprint(*r.storage, r.sizes, r.strides, r.offset, r.dtype);
}

uint64_t fingerprint(const Tensor& t) {
  return fingerprint(*t->storage(), t.sizes(), t.strides(), t->offset(), t.dtype());
}

namespace {
// Takes the fingerprint once; the ledger's mutex orders it with note_alias.
void print_locked(SavedRegion& r) {
  if (r.printed.load(std::memory_order_acquire)) return;
  r.print = fingerprint(r);
  r.printed.store(true, std::memory_order_release);
}
}  // namespace

std::shared_ptr<SavedRegion> watch(const Tensor& t) {
  auto r = std::make_shared<SavedRegion>();
  r->storage = t->storage();
  r->sizes = t.sizes();
  r->strides = t.strides();
  r->offset = t->offset();
  r->dtype = t.dtype();
  g_live.fetch_add(1, std::memory_order_relaxed);
  StorageLedger& l = r->storage->ensure_ledger();
  std::lock_guard<std::mutex> lock(l.mutex);
  l.watched.fetch_add(1);
  r->writes_at_save = l.writes;
  // Memory an alias already reaches may change under it from now on.
  if (l.aliases != 0 || r->storage->is_external()) print_locked(*r);
  // Drop the entries of regions that are gone before adding one.
  if (l.regions.size() >= 16) {
    std::vector<std::weak_ptr<SavedRegion>> live;
    for (auto& w : l.regions)
      if (!w.expired()) live.push_back(std::move(w));
    l.regions = std::move(live);
  }
  l.regions.push_back(r);
  return r;
}

uint64_t saved_fingerprint(SavedRegion& r) {
  StorageLedger& l = r.storage->ensure_ledger();
  std::lock_guard<std::mutex> lock(l.mutex);
  print_locked(r);
  return r.print;
}

void note_alias(const std::shared_ptr<Storage>& storage, AliasWay way) {
  if (!storage) return;
  StorageLedger& l = storage->ensure_ledger();
  std::lock_guard<std::mutex> lock(l.mutex);
  l.aliases |= way;
  for (auto& w : l.regions)
    if (auto r = w.lock()) print_locked(*r);
}

void note_write(Storage& storage, uint16_t label, uint32_t location, uint8_t via) {
  StorageLedger* l = storage.ledger();
  if (!l || l->watched.load(std::memory_order_relaxed) == 0) return;
  std::lock_guard<std::mutex> lock(l->mutex);
  WriteNote& n = l->notes[l->writes % StorageLedger::kNotes];
  n.seq = ++l->writes;
  n.label = label;
  n.location = location;
  n.via = via;
}

uint8_t aliases_of(const Storage& storage) {
  StorageLedger* l = storage.ledger();
  if (!l) return 0;
  std::lock_guard<std::mutex> lock(l->mutex);
  return l->aliases;
}

std::vector<WriteNote> writes_since(const Storage& storage, uint64_t since) {
  std::vector<WriteNote> out;
  StorageLedger* l = storage.ledger();
  if (!l) return out;
  std::lock_guard<std::mutex> lock(l->mutex);
  const uint64_t first = l->writes > StorageLedger::kNotes ? l->writes - StorageLedger::kNotes : 0;
  for (uint64_t seq = std::max(first, since) + 1; seq <= l->writes; ++seq)
    out.push_back(l->notes[(seq - 1) % StorageLedger::kNotes]);
  return out;
}

}  // namespace gradtrack::silent_writes
