// The bytes of tensor memory allocated less the bytes freed, counted only while a
// profile with profile_memory=True is open (one relaxed load per allocation and free
// otherwise): what torch's profiler reports as each op's "CPU Mem".
#pragma once

#include <atomic>
#include <cstdint>

namespace gradtrack::allocation_count {

extern std::atomic<bool> g_counting;
extern std::atomic<int64_t> g_bytes;

inline void on_allocate(size_t nbytes) {
  if (g_counting.load(std::memory_order_relaxed))
    g_bytes.fetch_add(static_cast<int64_t>(nbytes), std::memory_order_relaxed);
}
inline void on_free(size_t nbytes) {
  if (g_counting.load(std::memory_order_relaxed))
    g_bytes.fetch_sub(static_cast<int64_t>(nbytes), std::memory_order_relaxed);
}
inline int64_t bytes() { return g_bytes.load(std::memory_order_relaxed); }
inline void set_counting(bool on) { g_counting.store(on); }

}  // namespace gradtrack::allocation_count
