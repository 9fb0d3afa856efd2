// Double sums over eight independent lanes, shared by the moment kernels.
#pragma once

#include <cstdint>

// Loops over lane sums are compiled for AVX-512, AVX2 and the baseline
// (NOTE [SIMD clones] in simd.h).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__) && \
    !defined(GRADTRACK_NO_SIMD_CLONES)
#define GT_LANE_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define GT_LANE_CLONES
#endif

namespace gradtrack::kernels {

// NOTE [Lane sums]: f(0) + ... + f(n-1) in double over 8 independent partial
// sums. One running double sum is a chain of dependent adds (4 cycles each);
// eight chains let the compiler vectorize and measured LayerNorm's forward
// and backward at 4M elements 2-3x faster. The order of the adds changes,
// not the precision (double for float data).
template <typename F>
[[gnu::always_inline]] inline double lane_sum(int64_t n, const F& f) {
  constexpr int kLanes = 8;
  double acc[kLanes] = {};
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes)
    for (int t = 0; t < kLanes; ++t) acc[t] += f(j + t);
  double tail = 0;
  for (; j < n; ++j) tail += f(j);
  return ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7])) + tail;
}

}  // namespace gradtrack::kernels
