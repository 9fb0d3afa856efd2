// The block loop of the kernels built on the vector exp (simd.cpp, simd_math.cpp).
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/simd.h"

namespace gradtrack::kernels::simd {

/// first(i) fills a buffer of 1024 elements, the vector exp runs over it in place, then
/// second(i, e) writes element i's result from its exponential e: the buffer stays in L1
/// between the passes. Inlined into each SIMD clone, with the lambdas (NOTE [Lambdas in
/// clones] in simd.cpp).
template <typename First, typename Second>
__attribute__((always_inline)) inline void exp_blocks(int64_t n, First first, Second second) {
  constexpr int64_t kBlock = 1024;
  alignas(64) float e[kBlock];
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t m = std::min(kBlock, n - b);
    for (int64_t i = 0; i < m; ++i) e[i] = first(b + i);
    exp(e, e, m);
    for (int64_t i = 0; i < m; ++i) second(b + i, e[i]);
  }
}

}  // namespace gradtrack::kernels::simd
