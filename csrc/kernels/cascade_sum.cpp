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
// Column sums (a reduced dim whose kept neighbour is dense, as a Linear
// layer's bias gradient): each column is a sum on its own, in one of two
// orders depending on where the column sits (column_block below); from
// 32768 elements on, with more than one thread, the columns are shared out
// first (chunked_columns).
// Vector lanes are separate sums, so the GCC vector types below give the same
// bits whatever instructions the compiler picks for them.
#include "kernels/cascade_sum.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <type_traits>
#include <vector>

#include "kernels/parallel.h"
#include "kernels/prefetch.h"

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

// NOTE [NaN-skipping sums]
// nansum is the sum with each NaN read as 0 where it is loaded (PyTorch's
// nansum kernel takes the same cascade with that one change), so the order of
// the additions, and the bits of a NaN-free sum, are the sum's. `Skip` picks it.
template <bool Skip, typename A, typename T>
[[gnu::always_inline]] inline A load_as(const T* p) {
  A a = load<A>(p);
  if constexpr (Skip) {
    if constexpr (std::is_floating_point_v<A>)
      a = a == a ? a : A(0);
    else
      a = a == a ? a : A{};
  }
  return a;
}

// The loads below are lambdas that return vectors: forced inline, as in
// simd.cpp (NOTE [Lambdas in clones]), so that an unoptimized build never
// passes a vector between the AVX2 build and a lambda compiled for the baseline.
#define GT_LOAD_INLINE __attribute__((always_inline))

// The level schedule shared by every order below: `groups` groups of K items,
// item k of group g read by load(g, k); K running sums (one per place in the
// group) in blocks of 2^p groups whose sums move up through three more levels.
// On return part[k] holds the finished sum of place k. The running sums of the
// block being read live in locals: the first level is always empty when a
// block starts, so starting them at zero adds in the same order.
template <typename A, int K, typename Load>
[[gnu::always_inline]] inline void level_sums(const Load& load, int64_t groups, A (&part)[K]) {
  // With fewer than 16 groups (the short rows of a row sum) no block
  // completes: the upper levels would stay zero, and adding +0 to a sum that
  // began at +0 changes no bit, so they are skipped.
  const bool levels = groups >= 16;
  A up[3][K];  // levels 2, 3 and 4
  int64_t g = 0;
  if (levels) {
    for (auto& level : up)
      for (A& a : level) a = A{};
    const int64_t power = std::max<int64_t>(4, ceil_log2(groups) / 4);
    const int64_t step = int64_t(1) << power, mask = step - 1;
    while (g + step <= groups) {
      A s[K];
      for (A& a : s) a = A{};
      for (const int64_t end = g + step; g < end; ++g)
        for (int k = 0; k < K; ++k) s[k] += load(g, k);
      for (int k = 0; k < K; ++k) up[0][k] += s[k];
      for (int level = 1; level < 3 && (g & (mask << (level * power))) == 0; ++level) {
        for (int k = 0; k < K; ++k) {
          up[level][k] += up[level - 1][k];
          up[level - 1][k] = A{};
        }
      }
    }
  }
  for (A& a : part) a = A{};
  for (; g < groups; ++g)
    for (int k = 0; k < K; ++k) part[k] += load(g, k);
  if (levels)
    for (int k = 0; k < K; ++k) part[k] = ((part[k] + up[0][k]) + up[1][k]) + up[2][k];
}

// The sum of `count` items A (vectors of W elements, or single elements when
// W == 1), item i at p + i * stride: four places per group, leftover items
// into the first, the four added in order (PyTorch's row_sum).
template <typename A, int W, bool Skip = false, typename T>
[[gnu::always_inline]] inline A items_sum(const T* p, int64_t count, int64_t stride = W) {
  const int64_t groups = count / 4;
  A part[4];
  const int64_t ahead = sizeof(A) == 32 && stride == W ? stream_prefetch().sum : 0;
  if (ahead > 0) {
    // A contiguous run of 32-byte vectors: a group is two cache lines, each
    // asked for ahead (NOTE [Streaming prefetch]).
    level_sums<A, 4>(
        [&](int64_t g, int k) GT_LOAD_INLINE {
          if (k % 2 == 0) prefetch_ahead(p + (g * 4 + k) * W, ahead);
          return load_as<Skip, A>(p + (g * 4 + k) * W);
        },
        groups, part);
  } else {
    level_sums<A, 4>([&](int64_t g, int k)
                         GT_LOAD_INLINE { return load_as<Skip, A>(p + (g * 4 + k) * stride); },
                     groups, part);
  }
  for (int64_t i = groups * 4; i < count; ++i) part[0] += load_as<Skip, A>(p + i * stride);
  return ((part[0] + part[1]) + part[2]) + part[3];
}

// The sum of `count` items, item i at p + i * stride, one place per group
// (PyTorch's multi_row_sum, which sums a block of columns row by row).
template <typename A, bool Skip = false, typename T>
[[gnu::always_inline]] inline A straight_sum(const T* p, int64_t count, int64_t stride) {
  A part[1];
  level_sums<A, 1>([&](int64_t g, int) GT_LOAD_INLINE { return load_as<Skip, A>(p + g * stride); },
                   count, part);
  return part[0];
}

template <typename T, int W, bool Skip = false>
[[gnu::always_inline]] inline T run_sum(const T* p, int64_t n) {
  if (n < W) return items_sum<T, 1, Skip>(p, n);
  using V [[gnu::vector_size(W * sizeof(T))]] = T;
  const int64_t vectors = n / W;
  const V lanes = items_sum<V, W, Skip>(p, vectors);
  T total = 0;
  for (int64_t k = vectors * W; k < n; ++k) total += load_as<Skip, T>(p + k);
  T lane[W];
  std::memcpy(lane, &lanes, sizeof lanes);
  for (T x : lane) total += x;
  return total;
}

// Two builds of each kernel, AVX2 and the baseline: the order, and so the
// bits, are the same in each (vector lanes are separate sums). A kernel is a
// struct whose static run() takes W, the elements of a 32-byte vector.
template <template <typename, int> class Kernel, typename T, typename... Args>
auto in_baseline(Args... args) {
  return Kernel<T, 32 / sizeof(T)>::run(args...);
}
#if defined(__x86_64__) && defined(__GNUC__) && !defined(GRADTRACK_NO_SIMD_CLONES)
#define GT_CASCADE_X86 1
template <template <typename, int> class Kernel, typename T, typename... Args>
__attribute__((target("arch=x86-64-v3"))) auto in_avx2(Args... args) {
  return Kernel<T, 32 / sizeof(T)>::run(args...);
}
#endif

template <template <typename, int> class Kernel, typename T, typename... Args>
auto in_best_build(Args... args) {
#ifdef GT_CASCADE_X86
  static const bool avx2 = __builtin_cpu_supports("x86-64-v3");
  if (avx2) return in_avx2<Kernel, T>(args...);
#endif
  return in_baseline<Kernel, T>(args...);
}

template <bool Skip>
struct RunSum {
  template <typename T, int W>
  struct Kernel {
    [[gnu::always_inline]] static T run(const T* p, int64_t n) { return run_sum<T, W, Skip>(p, n); }
  };
};

template <bool Skip = false, typename T>
T any_width_sum(const T* p, int64_t n) {
  return in_best_build<RunSum<Skip>::template Kernel, T>(p, n);
}

// NOTE [Row sums in one call]
// A row sum called the cascade once per row: its checks, the dispatch to the
// AVX2 build, and a call the next row could not start ahead of. Now a thread's
// rows take one dispatch, each row summed as before (same order, same bits).
// a.sum(dim=1) over 256 x 256 floats, in turns with the per-row calls: 0.58x
// on 1 thread, 0.69x on 2; over 64 x 1000: 0.78x and 0.87x.
template <bool Skip>
struct RowSums {
  template <typename T, int W>
  struct Kernel {
    [[gnu::always_inline]] static void run(T* out, int64_t os, const T* in, int64_t rs,
                                           int64_t rows, int64_t len) {
      for (int64_t r = 0; r < rows; ++r) out[r * os] = T(0) + run_sum<T, W, Skip>(in + r * rs, len);
    }
  };
};

template <bool Skip, typename T>
T chunked_sum(const T* p, int64_t n, int threads) {
  const int64_t used = std::min<int64_t>(threads, (n + kTorchGrainElems - 1) / kTorchGrainElems);
  if (used <= 1) return T(0) + any_width_sum<Skip>(p, n);
  const int64_t chunk = (n + used - 1) / used;
  std::vector<T> part(static_cast<size_t>(threads), T(0));
  parallel_for(used, 1, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t lo = t * chunk, len = std::min(n, lo + chunk) - lo;
      if (len > 0) part[static_cast<size_t>(t)] = T(0) + any_width_sum<Skip>(p + lo, len);
    }
  });
  return T(0) + any_width_sum(part.data(), threads);
}

// Column sums of `cols` adjacent columns (one call of PyTorch's outer-sum
// loop): with at least W columns, blocks of 4 W columns are summed row by row,
// each column on its own (straight_sum), and the columns after the last such
// block as rows are (items_sum, W at a time, then one by one); with fewer than
// W columns, blocks of 4 columns straight and the rest as rows.
template <typename T, int W, bool Skip>
[[gnu::always_inline]] inline void column_block(T* out, int64_t os, const T* in, int64_t rs,
                                                int64_t rows, int64_t cols) {
  using V [[gnu::vector_size(W * sizeof(T))]] = T;
  auto put = [&](int64_t j, const V* sums, int vectors) {
    T lane[4 * W];
    std::memcpy(lane, sums, sizeof(V) * size_t(vectors));
    for (int l = 0; l < vectors * W; ++l) out[(j + l) * os] = T(0) + lane[l];
  };
  int64_t j = 0;
  if (cols >= W) {
    // A block of 4 W columns: four vectors, each lane its own straight sum
    // (four 32-byte registers; one 128-byte vector type went through memory).
    for (; j + 4 * W <= cols; j += 4 * W) {
      V sums[4];
      const T* p = in + j;
      level_sums<V, 4>([&](int64_t r, int k)
                           GT_LOAD_INLINE { return load_as<Skip, V>(p + r * rs + k * W); },
                       rows, sums);
      put(j, sums, 4);
    }
    for (; j + W <= cols; j += W) {
      const V sums = items_sum<V, W, Skip>(in + j, rows, rs);
      put(j, &sums, 1);
    }
  } else {
    for (const int64_t straight = cols / 4 * 4; j < straight; ++j)
      out[j * os] = T(0) + straight_sum<T, Skip>(in + j, rows, rs);
  }
  for (; j < cols; ++j) out[j * os] = T(0) + items_sum<T, 1, Skip>(in + j, rows, rs);
}

template <bool Skip>
struct ColumnBlock {
  template <typename T, int W>
  struct Kernel {
    [[gnu::always_inline]] static void run(T* out, int64_t os, const T* in, int64_t rs,
                                           int64_t rows, int64_t cols) {
      column_block<T, W, Skip>(out, os, in, rs, rows, cols);
    }
  };
};

template <bool Skip, typename T>
void any_width_columns(T* out, int64_t os, const T* in, int64_t rs, int64_t rows, int64_t cols) {
  in_best_build<ColumnBlock<Skip>::template Kernel, T>(out, os, in, rs, rows, cols);
}

// From kTorchGrainElems elements on, with more than one thread, PyTorch gives
// each thread an equal share of the columns, both ends rounded down to a
// multiple of 128 bytes (the last end excepted); each share is one call of
// its loop.
template <bool Skip, typename T>
void chunked_columns(T* out, int64_t os, const T* in, int64_t rs, int64_t rows, int64_t cols,
                     int threads) {
  if (rows * cols < kTorchGrainElems || threads <= 1 || cols <= 1)
    return any_width_columns<Skip>(out, os, in, rs, rows, cols);
  const int64_t used = std::min<int64_t>(threads, cols), chunk = (cols + used - 1) / used;
  constexpr int64_t round = 128 / sizeof(T);
  parallel_for(used, 1, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      int64_t lo = t * chunk, hi = std::min(cols, lo + chunk);
      if (lo >= hi) continue;
      lo -= lo % round;
      if (hi != cols) hi -= hi % round;
      if (lo < hi) any_width_columns<Skip>(out + lo * os, os, in + lo, rs, rows, hi - lo);
    }
  });
}

}  // namespace

float cascade_sum(const float* p, int64_t n, int threads, bool skip_nan) {
  return skip_nan ? chunked_sum<true>(p, n, threads) : chunked_sum<false>(p, n, threads);
}
double cascade_sum(const double* p, int64_t n, int threads, bool skip_nan) {
  return skip_nan ? chunked_sum<true>(p, n, threads) : chunked_sum<false>(p, n, threads);
}

void cascade_row_sums(float* out, int64_t out_stride, const float* in, int64_t row_stride,
                      int64_t rows, int64_t len, bool skip_nan) {
  if (skip_nan)
    return in_best_build<RowSums<true>::Kernel, float>(out, out_stride, in, row_stride, rows, len);
  in_best_build<RowSums<false>::Kernel, float>(out, out_stride, in, row_stride, rows, len);
}
void cascade_row_sums(double* out, int64_t out_stride, const double* in, int64_t row_stride,
                      int64_t rows, int64_t len, bool skip_nan) {
  if (skip_nan)
    return in_best_build<RowSums<true>::Kernel, double>(out, out_stride, in, row_stride, rows, len);
  in_best_build<RowSums<false>::Kernel, double>(out, out_stride, in, row_stride, rows, len);
}

void cascade_column_sums(float* out, int64_t out_stride, const float* in, int64_t row_stride,
                         int64_t rows, int64_t cols, int threads, bool skip_nan) {
  if (skip_nan) return chunked_columns<true>(out, out_stride, in, row_stride, rows, cols, threads);
  chunked_columns<false>(out, out_stride, in, row_stride, rows, cols, threads);
}
void cascade_column_sums(double* out, int64_t out_stride, const double* in, int64_t row_stride,
                         int64_t rows, int64_t cols, int threads, bool skip_nan) {
  if (skip_nan) return chunked_columns<true>(out, out_stride, in, row_stride, rows, cols, threads);
  chunked_columns<false>(out, out_stride, in, row_stride, rows, cols, threads);
}

}  // namespace gradtrack::kernels
