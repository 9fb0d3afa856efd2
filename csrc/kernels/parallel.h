// One thread pool for everything: OpenMP.
//
// NOTE [One thread pool]
// OpenBLAS's pthreads and OpenMP's workers both busy-wait after their work;
// interleaving the two on 2 cores was measured 24-36x slower.
// So OpenBLAS is pinned to one thread at import and every parallel region,
// GEMM included, is an OpenMP region over chunks of at least kGrainSize
// elements. Below that, threads cost more than they save.
#pragma once

#include <atomic>
#include <cstdint>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace gradtrack {

constexpr int64_t kGrainSize = 32768;
/// Work of at least this many elements runs without Python's interpreter lock.
constexpr int64_t kReleaseGilAbove = int64_t(1) << 18;

/// NOTE [Releasing the GIL]
/// Set by the Python layer: long kernels release the interpreter lock, so
/// other Python threads run meanwhile (PyTorch does the same). Kernels touch
/// only memory their callers keep alive, never Python objects.
struct GilHooks {
  void* (*release)() = nullptr;  // null if this thread does not hold the lock
  void (*restore)(void*) = nullptr;
};
extern GilHooks g_gil;

class ScopedGilRelease {
 public:
  explicit ScopedGilRelease(bool wanted)
      : state_(wanted && g_gil.release ? g_gil.release() : nullptr) {}
  ~ScopedGilRelease() {
    if (state_) g_gil.restore(state_);
  }
  ScopedGilRelease(const ScopedGilRelease&) = delete;
  ScopedGilRelease& operator=(const ScopedGilRelease&) = delete;

 private:
  void* state_;
};

int get_num_threads();
void set_num_threads(int n);
/// True inside a parallel region (nested regions run serially).
bool in_parallel_region();

/// Calls f(begin, end) over [0, n) split across threads in chunks of >= grain.
template <typename F>
void parallel_for(int64_t n, int64_t grain, const F& f) {
  if (n <= 0) return;
  if (grain < 1) grain = 1;
  ScopedGilRelease gil(n >= kReleaseGilAbove && !in_parallel_region());
#ifdef _OPENMP
  int threads = get_num_threads();
  if (n > grain && threads > 1 && !in_parallel_region()) {
    int64_t chunks = (n + grain - 1) / grain;
    int use = static_cast<int>(chunks < threads ? chunks : threads);
#pragma omp parallel num_threads(use)
    {
      int tid = omp_get_thread_num();
      int64_t per = (n + use - 1) / use;
      int64_t b = tid * per;
      int64_t e = b + per < n ? b + per : n;
      if (b < e) f(b, e);
    }
    return;
  }
#endif
  f(0, n);
}

// NOTE [Items taken in turn]
// parallel_for gives each thread an equal share up front. On a host whose
// other tenants take one core for a while, the thread there finishes its
// share late and the other waits. For a few large, independent items (the
// (sample, group) products of a convolution) each thread instead takes the
// next item when done with its last. The benchmark layer's forward plus
// backward (64->64 3x3 on 32x32, batch 16, Zen 4) measured 0.93-1.0x the
// time of the equal shares, in turns in one process over four runs: the
// noisier the host, the larger the gain. Not for items that add into one
// buffer per thread: which items a thread adds would change the sum's order.

/// Calls f(i) for every i in [0, n), each thread taking the next item when it
/// is done with its last (NOTE [Items taken in turn]). The caller releases the
/// interpreter lock if the work is long.
template <typename F>
void parallel_items(int64_t n, const F& f) {
  if (n <= 0) return;
#ifdef _OPENMP
  const int threads = get_num_threads();
  if (n > 1 && threads > 1 && !in_parallel_region()) {
    std::atomic<int64_t> next{0};
#pragma omp parallel num_threads(static_cast<int>(n < threads ? n : threads))
    for (int64_t i = next++; i < n; i = next++) f(i);
    return;
  }
#endif
  for (int64_t i = 0; i < n; ++i) f(i);
}

}  // namespace gradtrack
