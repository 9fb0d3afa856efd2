// Software prefetch for loops that stream through memory once.
//
// NOTE [Streaming prefetch]
// A 64 MiB float32 tensor read from DRAM (or from an L3 that another tensor
// just filled): on the Intel test machine (a Xeon with AVX-512) the bare read
// loop (four 64-byte sums per step, few instructions per byte) reached
// 2.0-2.4 ms over two threads, while max (four 32-byte maxima plus the NaN
// test) took 2.9-3.4 ms and the row sums of a.sum(dim=1) ~3.5 ms: their loops
// issue more instructions per cache line, so fewer loads are in flight and
// the hardware prefetchers fall behind. A prefetch 4 KiB ahead, one per cache
// line, brought max to 2.3-2.5 ms first call and to the read loop's steady
// speed (1.8 vs 1.7 ms); 1 KiB ahead helped half as much, 8 KiB no more.
// On an AMD EPYC (Zen 3, AVX2) the same prefetches cost time instead: sum and
// sum(dim=1) ran 1.07-1.2x the read loop with them and 1.0-1.06x without,
// timed in turns in one process. Max still gains there, from a shorter
// distance: 1 KiB ahead 1.04-1.10x the read loop, none 1.10-1.19x, 4 KiB
// 1.2x. On an AMD EPYC Zen 4 (AVX-512) that 1 KiB made max 1.13-1.29x the
// read loop, against 1.04-1.14x with none, 256 B, 512 B or 4 KiB ahead (in
// turns, three runs), and the sums again did best without. So the distances
// are chosen once per CPU: Intel, AMD without AVX-512 (Zen 3 and older), AMD
// with it (Zen 4 and later; Zen 5 unmeasured); a loop whose distance is 0 runs
// a build without prefetch instructions.
#pragma once

#include <cstdint>

namespace gradtrack::kernels {

/// Prefetch distances in bytes for the streaming loops (0: none).
struct StreamPrefetch {
  int64_t sum;      ///< cascade sums over contiguous vectors
  int64_t extreme;  ///< max/min over a contiguous run
};

/// The distances for this CPU (NOTE [Streaming prefetch]).
const StreamPrefetch& stream_prefetch();
/// Test hook: run the loops with other distances (the bits must not change).
void set_stream_prefetch(const StreamPrefetch& distances);

/// Ask for the cache line `ahead` bytes past p. Never faults, also past the
/// end of an allocation (the address is computed as an integer).
[[gnu::always_inline]] inline void prefetch_ahead(const void* p, int64_t ahead) {
  __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(p) +
                                                   static_cast<uintptr_t>(ahead)));
}

}  // namespace gradtrack::kernels
