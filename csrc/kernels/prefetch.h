// Software prefetch for loops that stream through memory once.
//
// NOTE [Streaming prefetch]
// A 64 MiB float32 tensor read from DRAM (or from an L3 that another tensor
// just filled): the bare read loop (four 64-byte sums per step, few
// instructions per byte) reached 2.0-2.4 ms over two threads on the Intel
// test machine, while max (four 32-byte maxima plus the NaN test) took
// 2.9-3.4 ms and the row sums of a.sum(dim=1) ~3.5 ms: their loops issue more
// instructions per cache line, so fewer loads are in flight and the hardware
// prefetchers fall behind. A prefetch 4 KiB ahead, one per cache line,
// brought max to 2.3-2.5 ms first call and to the read loop's steady speed
// (1.8 vs 1.7 ms); 1 KiB ahead helped half as much, 8 KiB no more. Loops that
// re-read data in cache lose nothing measurable: a prefetch of a line already
// there is one load-port slot.
#pragma once

#include <cstdint>

namespace gradtrack::kernels {

inline constexpr int64_t kPrefetchAheadBytes = 4096;

/// Ask for the cache line kPrefetchAheadBytes past p. Never faults, also past
/// the end of an allocation (the address is computed as an integer).
[[gnu::always_inline]] inline void prefetch_ahead(const void* p) {
  __builtin_prefetch(
      reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(p) + kPrefetchAheadBytes));
}

}  // namespace gradtrack::kernels
