// NOTE [PyTorch's summation order]
// Float addition does not associate: a sum's last bits depend on the order of
// its additions, and tutorials print losses with every digit. PyTorch's CPU
// sum (a "cascade", measured bit for bit against torch 2.13 here) does this
// for a contiguous run of n elements:
// - items are vectors of W elements (W = 8 floats / 4 doubles when the CPU has
//   no AVX-512, 16 / 8 with it: its kernels are built per instruction set),
//   the last n % W elements are left over; a run shorter than W takes the
//   elements themselves as items;
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

constexpr int kLevels = 4;
constexpr int kGroup = 4;
constexpr int64_t kTorchGrain = 32768;

int64_t ceil_log2(int64_t x) { return x <= 2 ? 1 : 64 - __builtin_clzll(uint64_t(x - 1)); }

// The four partial sums of `groups` groups of kGroup items, item(i) for
// i < groups * kGroup, through the levels.
template <typename A, typename Item>
std::array<A, kGroup> level_sums(int64_t groups, const Item& item) {
  const int64_t power = std::max<int64_t>(4, ceil_log2(groups) / kLevels);
  const int64_t step = int64_t(1) << power, mask = step - 1;
  A acc[kLevels][kGroup];
  for (auto& level : acc)
    for (A& a : level) a = A{};
  int64_t g = 0;
  while (g + step <= groups) {
    for (int64_t j = 0; j < step; ++j, ++g)
      for (int k = 0; k < kGroup; ++k) acc[0][k] += item(g * kGroup + k);
    for (int level = 1; level < kLevels; ++level) {
      for (int k = 0; k < kGroup; ++k) {
        acc[level][k] += acc[level - 1][k];
        acc[level - 1][k] = A{};
      }
      if ((g & (mask << (level * power))) != 0) break;
    }
  }
  for (; g < groups; ++g)
    for (int k = 0; k < kGroup; ++k) acc[0][k] += item(g * kGroup + k);
  for (int level = 1; level < kLevels; ++level)
    for (int k = 0; k < kGroup; ++k) acc[0][k] += acc[level][k];
  return {acc[0][0], acc[0][1], acc[0][2], acc[0][3]};
}

// The sum of `count` items.
template <typename A, typename Item>
A items_sum(int64_t count, const Item& item) {
  const int64_t groups = count / kGroup;
  std::array<A, kGroup> part = level_sums<A>(groups, item);
  for (int64_t i = groups * kGroup; i < count; ++i) part[0] += item(i);
  for (int k = 1; k < kGroup; ++k) part[0] += part[k];
  return part[0];
}

template <typename T, int W>
T run_sum(const T* p, int64_t n) {
  if (n < W) return items_sum<T>(n, [p](int64_t i) { return p[i]; });
  using V [[gnu::vector_size(W * sizeof(T))]] = T;
  const int64_t vectors = n / W;
  const V lanes = items_sum<V>(vectors, [p](int64_t i) {
    V v;
    std::memcpy(&v, p + i * W, sizeof v);
    return v;
  });
  T total = 0;
  for (int64_t k = vectors * W; k < n; ++k) total += p[k];
  T lane[W];
  std::memcpy(lane, &lanes, sizeof lanes);
  for (T x : lane) total += x;
  return total;
}

template <typename T>
T any_width_sum(const T* p, int64_t n) {
  // PyTorch's AVX-512 kernels are chosen on CPUs that have it (x86-64-v4).
  static const bool wide = __builtin_cpu_supports("x86-64-v4");
  constexpr int kNarrow = 32 / sizeof(T);
  return wide ? run_sum<T, 2 * kNarrow>(p, n) : run_sum<T, kNarrow>(p, n);
}

template <typename T>
T chunked_sum(const T* p, int64_t n, int threads) {
  const int64_t used = std::min<int64_t>(threads, (n + kTorchGrain - 1) / kTorchGrain);
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
