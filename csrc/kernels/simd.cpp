// NOTE [SIMD clones] in simd.h.
#include "kernels/simd.h"

#include <cstring>

// GRADTRACK_NO_SIMD_CLONES: the ThreadSanitizer build, whose runtime crashes in IFUNC resolvers.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__) && \
    !defined(GRADTRACK_NO_SIMD_CLONES)
#define GT_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#define GT_HAVE_CLONES 1
#else
#define GT_CLONES
#endif

namespace gradtrack::kernels::simd {

namespace {

// 64-byte vectors: one zmm register, two ymm, or four xmm, by clone.
template <typename T>
using Vec [[gnu::vector_size(64)]] = T;

template <typename T>
inline Vec<T> vload(const T* p) {
  Vec<T> v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <typename T>
[[gnu::always_inline]] inline double sum_impl(const T* p, int64_t n, double acc) {
  constexpr int64_t L = sizeof(Vec<T>) / sizeof(T);
  constexpr int64_t kBlock = 4096;
  for (int64_t i = 0; i < n;) {
    const int64_t blk = n - i < kBlock ? n - i : kBlock;
    const T* q = p + i;
    Vec<T> s0 = {}, s1 = {}, s2 = {}, s3 = {};
    int64_t j = 0;
    for (; j + 4 * L <= blk; j += 4 * L) {
      s0 += vload(q + j);
      s1 += vload(q + j + L);
      s2 += vload(q + j + 2 * L);
      s3 += vload(q + j + 3 * L);
    }
    Vec<T> s = (s0 + s1) + (s2 + s3);
    T lanes[L];
    std::memcpy(lanes, &s, sizeof s);
    for (int64_t w = L / 2; w > 0; w /= 2)
      for (int64_t k = 0; k < w; ++k) lanes[k] += lanes[k + w];
    double tail = 0;  // short tails (and tiny tensors) add in double
    for (; j < blk; ++j) tail += static_cast<double>(q[j]);
    acc += static_cast<double>(lanes[0]) + tail;
    i += blk;
  }
  return acc;
}

// Lane-wise max/min. A compare with NaN is false either way, so NaNs are
// caught apart: x - x is NaN for NaN (and for ±inf), so a NaN-free sum of
// those proves there is no NaN; otherwise one exact scan decides.
template <typename T, bool kMax>
[[gnu::always_inline]] inline bool extreme_impl(const T* p, int64_t n, T& acc) {
  constexpr int64_t L = sizeof(Vec<T>) / sizeof(T);
  Vec<T> m0 = Vec<T>{} + acc, m1 = m0, z = {};
  int64_t i = 0;
  for (; i + 2 * L <= n; i += 2 * L) {
    Vec<T> a = vload(p + i), b = vload(p + i + L);
    if constexpr (kMax) {
      m0 = a > m0 ? a : m0;
      m1 = b > m1 ? b : m1;
    } else {
      m0 = a < m0 ? a : m0;
      m1 = b < m1 ? b : m1;
    }
    z += (a - a) + (b - b);
  }
  T lanes[3 * L];
  std::memcpy(lanes, &m0, sizeof m0);
  std::memcpy(lanes + L, &m1, sizeof m1);
  std::memcpy(lanes + 2 * L, &z, sizeof z);
  bool maybe_nan = false;
  for (int64_t k = 2 * L; k < 3 * L; ++k) maybe_nan |= lanes[k] != lanes[k];
  for (int64_t k = maybe_nan ? 0 : i; k < n; ++k)
    if (p[k] != p[k]) return true;
  for (int64_t k = 0; k < 2 * L; ++k)
    acc = kMax ? (lanes[k] > acc ? lanes[k] : acc) : (lanes[k] < acc ? lanes[k] : acc);
  for (int64_t k = i; k < n; ++k) acc = kMax ? (p[k] > acc ? p[k] : acc) : (p[k] < acc ? p[k] : acc);
  return false;
}

}  // namespace

GT_CLONES double sum(const float* p, int64_t n, double acc) { return sum_impl(p, n, acc); }
GT_CLONES double sum(const double* p, int64_t n, double acc) { return sum_impl(p, n, acc); }

GT_CLONES bool extreme(const float* p, int64_t n, bool is_max, float& acc) {
  return is_max ? extreme_impl<float, true>(p, n, acc) : extreme_impl<float, false>(p, n, acc);
}
GT_CLONES bool extreme(const double* p, int64_t n, bool is_max, double& acc) {
  return is_max ? extreme_impl<double, true>(p, n, acc) : extreme_impl<double, false>(p, n, acc);
}

const char* level() {
#ifdef GT_HAVE_CLONES
  // The same test the clones' resolver makes.
  if (__builtin_cpu_supports("x86-64-v4")) return "avx512";
  if (__builtin_cpu_supports("avx2")) return "avx2";
#endif
  return "baseline";
}

}  // namespace gradtrack::kernels::simd
