// One thread pool for everything: OpenMP.
//
// NOTE [One thread pool]
// OpenBLAS's pthreads and OpenMP's workers both busy-wait after their work;
// interleaving the two on 2 cores was measured 24-36x slower.
// So OpenBLAS is pinned to one thread at import and every parallel region,
// GEMM included, is an OpenMP region over chunks of at least kGrainSize
// elements. Below that, threads cost more than they save.
#pragma once

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

}  // namespace gradtrack
