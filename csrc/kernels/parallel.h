// One thread pool for everything: OpenMP.
//
// NOTE [One thread pool]
// OpenBLAS's pthreads and OpenMP's workers both busy-wait after their work;
// interleaving the two on 2 cores was measured 24-36x slower (build_notes §3).
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

int get_num_threads();
void set_num_threads(int n);
/// True inside a parallel region (nested regions run serially).
bool in_parallel_region();

/// Calls f(begin, end) over [0, n) split across threads in chunks of >= grain.
template <typename F>
void parallel_for(int64_t n, int64_t grain, const F& f) {
  if (n <= 0) return;
  if (grain < 1) grain = 1;
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
