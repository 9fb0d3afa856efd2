// NOTE [PyTorch's summation order]
// Float addition does not associate: a sum's last bits depend on the order of
// its additions, and tutorials print losses with every digit. PyTorch's CPU
// sum (a "cascade", measured bit for bit against torch 2.13 here) does this
// for a contiguous run of n elements:
// - items are vectors of W elements (W = 8 floats / 4 doubles: 32-byte
//   vectors, on CPUs with AVX-512 too; measured on a Xeon with AVX-512, where
//   torch reports its CPU capability as AVX512), the last n % W elements are
//   left over; a run shorter than W takes the elements themselves as items;
// - the items are summed four at a time (four running partial sums), in
//   blocks of 2^p consecutive groups of four (p = max(4, ceil(log2 g) / 4),
//   g groups); a finished block's sums move up into a second level, a full
//   second level into a third, and so on (four levels), so that only sums of
//   similar size are added; leftover items go into the first partial sum, and
//   the four partial sums are added in order;
// - with vector items, the leftover elements are summed one by one first,
//   then the vector's lanes are added to that in lane order;
// - the result is added to the output's 0. From 32768 elements on, with more
//   than one thread, the run is cut into equal chunks (one per thread, sizes
//   rounded up), each chunk summed so into 0, and the chunk sums then summed
//   as a short run of their own into 0.
// Vector lanes are separate sums, so the GCC vector types below give the same
// bits whatever instructions the compiler picks for them.
#include "kernels/cascade_sum.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "kernels/parallel.h"

namespace gradtrack::kernels {

namespace {

constexpr int kTorchGrainElems = 32768;

int64_t ceil_log2(int64_t x) { return x <= 2 ? 1 : 64 - __builtin_clzll(uint64_t(x - 1)); }

template <typename A, typename T>
[[gnu::always_inline]] inline A load(const T* p) {
  A a;
  std::memcpy(&a, p, sizeof a);
  return a;
}

// The sum of `count` items A (vectors of W elements, or single elements when
// W == 1) stored one after the other from p. The running sums of the block
// being read live in locals: the first level is always empty when a block
// starts, so starting them at zero adds in the same order.
template <typename A, int W, typename T>
[[gnu::always_inline]] inline A items_sum(const T* p, int64_t count) {
  const int64_t groups = count / 4;
  // With fewer than 16 groups (the short rows of a row sum) no block
  // completes: the upper levels would stay zero, and adding +0 to a sum that
  // began at +0 changes no bit, so they are skipped.
  const bool levels = groups >= 16;
  A up[3][4];  // levels 2, 3 and 4
  int64_t g = 0;
  if (levels) {
    for (auto& level : up)
      for (A& a : level) a = A{};
    const int64_t power = std::max<int64_t>(4, ceil_log2(groups) / 4);
    const int64_t step = int64_t(1) << power, mask = step - 1;
    while (g + step <= groups) {
      A s0{}, s1{}, s2{}, s3{};
      for (const int64_t end = g + step; g < end; ++g) {
        const T* q = p + g * 4 * W;
        s0 += load<A>(q);
        s1 += load<A>(q + W);
        s2 += load<A>(q + 2 * W);
        s3 += load<A>(q + 3 * W);
      }
      up[0][0] += s0, up[0][1] += s1, up[0][2] += s2, up[0][3] += s3;
      for (int level = 1; level < 3 && (g & (mask << (level * power))) == 0; ++level) {
        for (int k = 0; k < 4; ++k) {
          up[level][k] += up[level - 1][k];
          up[level - 1][k] = A{};
        }
      }
    }
  }
  A part[4] = {A{}, A{}, A{}, A{}};
  for (; g < groups; ++g)
    for (int k = 0; k < 4; ++k) part[k] += load<A>(p + (g * 4 + k) * W);
  if (levels)
    for (int k = 0; k < 4; ++k) part[k] = ((part[k] + up[0][k]) + up[1][k]) + up[2][k];
  for (int64_t i = groups * 4; i < count; ++i) part[0] += load<A>(p + i * W);
  return ((part[0] + part[1]) + part[2]) + part[3];
}

template <typename T, int W>
[[gnu::always_inline]] inline T run_sum(const T* p, int64_t n) {
  if (n < W) return items_sum<T, 1>(p, n);
  using V [[gnu::vector_size(W * sizeof(T))]] = T;
  const int64_t vectors = n / W;
  const V lanes = items_sum<V, W>(p, vectors);
  T total = 0;
  for (int64_t k = vectors * W; k < n; ++k) total += p[k];
  T lane[W];
  std::memcpy(lane, &lanes, sizeof lanes);
  for (T x : lane) total += x;
  return total;
}

// Two builds, AVX2 and the baseline: the order, and so the bits, are the same
// in each (vector lanes are separate sums).
template <typename T>
T narrow_generic(const T* p, int64_t n) {
  return run_sum<T, 32 / sizeof(T)>(p, n);
}
#if defined(__x86_64__) && defined(__GNUC__) && !defined(GRADTRACK_NO_SIMD_CLONES)
#define GT_CASCADE_X86 1
template <typename T>
__attribute__((target("arch=x86-64-v3"))) T narrow_avx2(const T* p, int64_t n) {
  return run_sum<T, 32 / sizeof(T)>(p, n);
}
#endif

template <typename T>
T any_width_sum(const T* p, int64_t n) {
#ifdef GT_CASCADE_X86
  static const bool avx2 = __builtin_cpu_supports("x86-64-v3");
  if (avx2) return narrow_avx2(p, n);
#endif
  return narrow_generic(p, n);
}

template <typename T>
T chunked_sum(const T* p, int64_t n, int threads) {
  const int64_t used = std::min<int64_t>(threads, (n + kTorchGrainElems - 1) / kTorchGrainElems);
  if (used <= 1) return T(0) + any_width_sum(p, n);
  const int64_t chunk = (n + used - 1) / used;
  std::vector<T> part(static_cast<size_t>(threads), T(0));
  parallel_for(used, 1, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t lo = t * chunk, len = std::min(n, lo + chunk) - lo;
      if (len > 0) part[static_cast<size_t>(t)] = T(0) + any_width_sum(p + lo, len);
    }
  });
  return T(0) + any_width_sum(part.data(), threads);
}

}  // namespace

float cascade_sum(const float* p, int64_t n, int threads) { return chunked_sum(p, n, threads); }
double cascade_sum(const double* p, int64_t n, int threads) { return chunked_sum(p, n, threads); }

}  // namespace gradtrack::kernels
