// Double sums over eight independent lanes, shared by the moment kernels.
#pragma once

#include <cstdint>

#include "kernels/simd_clones.h"  // loops over lane sums: GT_CLONES_V4_AVX2

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
