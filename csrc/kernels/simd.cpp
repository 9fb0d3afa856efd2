// NOTE [SIMD clones] in simd.h.
#include "kernels/simd.h"

#include <cmath>
#include <cstring>

// GRADTRACK_NO_SIMD_CLONES: the ThreadSanitizer build, whose runtime crashes in IFUNC resolvers.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__) && \
    !defined(GRADTRACK_NO_SIMD_CLONES)
// x86-64-v3 is AVX2 plus FMA: the exp polynomial's multiply-adds fuse
// (simd.cpp is built with -ffp-contract=fast for that).
#define GT_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#define GT_HAVE_CLONES 1
#else
#define GT_CLONES
#endif

// NOTE [Lambdas in clones]
// A lambda inside a cloned function is its own function, compiled for the
// default target: passing or returning a 32-byte vector to it uses the
// non-AVX convention (memory) while the AVX2 clone expects ymm registers.
// Inlined (any optimized build) the call disappears; at -O0 (the sanitizer
// build) it did not, and max()/min() returned garbage after overflowing the
// stack. Forcing the inline makes the result independent of the optimizer.
#define GT_INLINE __attribute__((always_inline))

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

// NOTE [Selects on halves]
// GCC lowers a ?: (or a compare) on 64-byte vectors lane by lane, with
// scalar compares and stack round trips that stall store forwarding, in the
// clones that lack 64-byte registers (AVX2, baseline): exp and max of 1M
// floats ran 5-10x slower than torch on an AVX2 machine. On 32-byte halves
// the AVX2 clone gets vcmpps/vblendvps (or vmaxps/vminps) and the AVX-512
// clone ymm instructions. f(x, y) is applied to each half pair.
template <typename T>
using Half [[gnu::vector_size(32)]] = T;

template <typename T, typename F>
[[gnu::always_inline]] inline Vec<T> by_halves(Vec<T> a, Vec<T> b, F f) {
  Half<T> a0, a1, b0, b1;
  std::memcpy(&a0, &a, sizeof a0);
  std::memcpy(&a1, reinterpret_cast<const char*>(&a) + sizeof a0, sizeof a1);
  std::memcpy(&b0, &b, sizeof b0);
  std::memcpy(&b1, reinterpret_cast<const char*>(&b) + sizeof b0, sizeof b1);
  a0 = f(a0, b0);
  a1 = f(a1, b1);
  Vec<T> r;
  std::memcpy(&r, &a0, sizeof a0);
  std::memcpy(reinterpret_cast<char*>(&r) + sizeof a0, &a1, sizeof a1);
  return r;
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
  // 32-byte vectors throughout: NOTE [Selects on halves]. Four chains, so the
  // compare latency stays hidden; the loop is memory-bound on big inputs.
  using V = Half<T>;
  constexpr int64_t L = sizeof(V) / sizeof(T);
  // The lambdas are forced inline (NOTE [Lambdas in clones]).
  const auto pick = [](auto v, auto best) GT_INLINE {  // works on vectors and on scalars
    if constexpr (kMax)
      return v > best ? v : best;
    else
      return v < best ? v : best;
  };
  const auto load = [](const T* q) GT_INLINE {
    V v;
    std::memcpy(&v, q, sizeof v);
    return v;
  };
  V m0 = V{} + acc, m1 = m0, m2 = m0, m3 = m0, z = {};
  int64_t i = 0;
  for (; i + 4 * L <= n; i += 4 * L) {
    V a = load(p + i), b = load(p + i + L), c = load(p + i + 2 * L), d = load(p + i + 3 * L);
    m0 = pick(a, m0);
    m1 = pick(b, m1);
    m2 = pick(c, m2);
    m3 = pick(d, m3);
    z += ((a - a) + (b - b)) + ((c - c) + (d - d));
  }
  m0 = pick(m0, m1);
  m2 = pick(m2, m3);
  T lanes[3 * L];
  std::memcpy(lanes, &m0, sizeof m0);
  std::memcpy(lanes + L, &m2, sizeof m2);
  std::memcpy(lanes + 2 * L, &z, sizeof z);
  bool maybe_nan = false;
  for (int64_t k = 2 * L; k < 3 * L; ++k) maybe_nan |= lanes[k] != lanes[k];
  for (int64_t k = maybe_nan ? 0 : i; k < n; ++k)
    if (p[k] != p[k]) return true;
  for (int64_t k = 0; k < 2 * L; ++k) acc = pick(lanes[k], acc);
  for (int64_t k = i; k < n; ++k) acc = pick(p[k], acc);
  return false;
}

// exp on [-87, 88]: x = n ln2 + r with |r| <= ln2/2 (ln2 split in two parts so
// n ln2 is exact), e^r by a degree-7 Taylor-like minimax polynomial, 2^n put
// straight into the exponent bits. The caller clamps x into the range and
// recomputes the lanes it had to clamp.
constexpr float kExpLo = -87.0f, kExpHi = 88.0f;
[[gnu::always_inline]] inline Vec<float> exp_in_range(Vec<float> x) {
  constexpr float kShift = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
  Vec<float> t = x * 1.44269504088896341f + kShift;
  Vec<float> n = t - kShift;
  Vec<float> r = x - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  Vec<float> y = r * 1.9875691500e-4f + 1.3981999507e-3f;
  y = y * r + 8.3334519073e-3f;
  y = y * r + 4.1665795894e-2f;
  y = y * r + 1.6666665459e-1f;
  y = y * r + 5.0000001201e-1f;
  y = y * (r * r) + r + 1.0f;
  // The low bits of t hold n; shifted into the exponent field over 1.0f's
  // bits that is 2^n (unsigned: n < 0 wraps, which is what the bits need).
  Vec<uint32_t> bits;
  std::memcpy(&bits, &t, sizeof t);
  bits = ((bits - 0x4B400000u) << 23) + 0x3F800000u;
  Vec<float> scale;
  std::memcpy(&scale, &bits, sizeof bits);
  return y * scale;
}

}  // namespace

GT_CLONES void exp(const float* in, float* out, int64_t n) {
  constexpr int64_t L = sizeof(Vec<float>) / sizeof(float);
  constexpr int64_t kBlock = 64 * L;
  float buf[kBlock];
  const Vec<float> lo = Vec<float>{} + kExpLo, hi = Vec<float>{} + kExpHi;
  for (int64_t i = 0; i < n; i += kBlock) {
    const int64_t m = n - i < kBlock ? n - i : kBlock;
    const float* x = in + i;
    int64_t j = 0;
    // (x - clamp(x))^2 sums to 0 exactly when every element was in range
    // (NaN and inf propagate into it).
    Vec<float> bad = {};
    for (; j + L <= m; j += L) {
      Vec<float> v = vload(x + j);
      // NOTE [Selects on halves]
      Vec<float> c =
          by_halves<float>(v, lo, [](auto a, auto b) GT_INLINE { return a < b ? b : a; });
      c = by_halves<float>(c, hi, [](auto a, auto b) GT_INLINE { return a > b ? b : a; });
      Vec<float> e = exp_in_range(c);
      Vec<float> d = v - c;
      bad += d * d;
      std::memcpy(buf + j, &e, sizeof e);
    }
    float lanes[L];
    std::memcpy(lanes, &bad, sizeof bad);
    bool redo = false;
    for (float b : lanes) redo |= !(b == 0.0f);
    if (redo) j = 0;
    for (; j < m; ++j) buf[j] = std::exp(x[j]);
    std::memcpy(out + i, buf, static_cast<size_t>(m) * sizeof(float));
  }
}

// Plain loops: the compiler vectorizes them at each clone's width (with a
// run-time overlap check, since out may be an input).
GT_CLONES void add(const float* a, const float* b, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
}
GT_CLONES void mul(const float* a, const float* b, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] * b[i];
}
GT_CLONES void relu(const float* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = in[i] < 0.0f ? 0.0f : in[i];
}

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
  if (__builtin_cpu_supports("x86-64-v3")) return "avx2";
#endif
  return "baseline";
}

}  // namespace gradtrack::kernels::simd
