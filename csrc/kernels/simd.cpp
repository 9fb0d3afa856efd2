// NOTE [SIMD clones] in simd.h.
#include "kernels/simd.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/element_ops.h"
#include "kernels/exp_blocks.h"
#include "kernels/prefetch.h"
#include "kernels/simd_clones.h"

// x86-64-v3 is AVX2 plus FMA: the exp polynomial's multiply-adds fuse
// (simd.cpp is built with -ffp-contract=fast for that).
#ifdef GT_HAVE_SIMD_CLONES
#include <immintrin.h>

#include "kernels/simd_exp16.h"
#include "kernels/simd_sixteen_loop.h"
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

// NOTE [Selects on halves]
// GCC lowers a ?: (or a compare) on 64-byte vectors lane by lane, with
// scalar compares and stack round trips that stall store forwarding, in the
// clones that lack 64-byte registers (AVX2, baseline): exp and max of 1M
// floats ran 5-10x slower than torch on an AVX2 machine. Plain arithmetic
// on 64-byte vectors fares little better there (the sum and exp results went
// through the stack). So those clones work on 32-byte vectors: the AVX2 clone
// gets ymm instructions (vcmpps/vblendvps, vmaxps/vminps), the baseline two
// xmm ones.
template <typename T>
using Half [[gnu::vector_size(32)]] = T;

// 64 lanes of T per block, kept as eight 32-byte chains (NOTE [Selects on
// halves]: 64-byte vectors went through the stack on every add in the AVX2
// clone, 2.7x the bare read loop). Chain c holds lanes 8c..8c+8 of the
// 64-lane layout, and the fold below adds them in the same order as the
// 64-lane tree did, so results are bit for bit those of the wide version.
template <typename T>
[[gnu::always_inline]] inline double sum_impl(const T* p, int64_t n, double acc) {
  using V = Half<T>;
  constexpr int64_t L = sizeof(V) / sizeof(T);  // 8 floats or 4 doubles
  constexpr int64_t W = 2 * L;                  // lanes of one former 64-byte vector
  constexpr int64_t kBlock = 4096;
  const auto load = [](const T* q) {
    V v;
    std::memcpy(&v, q, sizeof v);
    return v;
  };
  for (int64_t i = 0; i < n;) {
    const int64_t blk = n - i < kBlock ? n - i : kBlock;
    const T* q = p + i;
    V s[8] = {};
    int64_t j = 0;
    for (; j + 4 * W <= blk; j += 4 * W)
      for (int c = 0; c < 8; ++c) s[c] += load(q + j + c * L);
    // (s0 + s1) + (s2 + s3) of the wide vectors, done per half.
    const V lo = (s[0] + s[2]) + (s[4] + s[6]), hi = (s[1] + s[3]) + (s[5] + s[7]);
    // The lane tree (lane k += lane k + w, w = W/2, W/4, ... 1) on vectors
    // while they are wide: the first two steps are the half and quarter adds.
    using Q [[gnu::vector_size(16)]] = T;
    const V v = lo + hi;
    Q q0, q1;
    std::memcpy(&q0, &v, sizeof q0);
    std::memcpy(&q1, reinterpret_cast<const char*>(&v) + sizeof q0, sizeof q1);
    q0 += q1;
    T lanes[sizeof(Q) / sizeof(T)];
    std::memcpy(lanes, &q0, sizeof q0);
    for (int64_t w = static_cast<int64_t>(sizeof(Q) / sizeof(T)) / 2; w > 0; w /= 2)
      for (int64_t k = 0; k < w; ++k) lanes[k] += lanes[k + w];
    double tail = 0;  // short tails (and tiny tensors) add in double
    for (; j < blk; ++j) tail += static_cast<double>(q[j]);
    acc += static_cast<double>(lanes[0]) + tail;
    i += blk;
  }
  return acc;
}

// Lane-wise max/min. A compare with NaN is false either way, so NaNs are
// caught apart: a - b is NaN when a or b is NaN (and when both are the same
// infinity), so a NaN-free sum of such differences over disjoint pairs proves
// there is no NaN; otherwise one exact scan decides. One difference per two
// vectors: the loop issues few instructions per cache line (NOTE [Streaming
// prefetch]).
template <typename T, bool kMax, bool kAhead>
[[gnu::always_inline]] inline bool extreme_run(const T* p, int64_t n, T& acc, int64_t ahead) {
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
    // 4 * L elements are 128 bytes: two cache lines (NOTE [Streaming prefetch])
    if constexpr (kAhead) {
      prefetch_ahead(p + i, ahead);
      prefetch_ahead(p + i + 2 * L, ahead);
    }
    V a = load(p + i), b = load(p + i + L), c = load(p + i + 2 * L), d = load(p + i + 3 * L);
    m0 = pick(a, m0);
    m1 = pick(b, m1);
    m2 = pick(c, m2);
    m3 = pick(d, m3);
    z += (a - b) + (c - d);
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

// With and without prefetch instructions (NOTE [Streaming prefetch]).
template <typename T, bool kMax>
[[gnu::always_inline]] inline bool extreme_impl(const T* p, int64_t n, T& acc) {
  const int64_t ahead = stream_prefetch().extreme;
  return ahead > 0 ? extreme_run<T, kMax, true>(p, n, acc, ahead)
                   : extreme_run<T, kMax, false>(p, n, acc, 0);
}

// exp on [-87, 88] (AVX2 and baseline): x = n ln2 + r with |r| <= ln2/2 (ln2 split in two
// parts, the first of 15 bits, so n ln2_hi is exact), e^r = 1 + r + r^2 Q(r) with Q a
// degree-5 fit of (e^r - 1 - r) / r^2 made here (relative error of e^r 1e-10; at most
// 0.98 ulp from float64 over [-87, 88]), 2^n put straight into the exponent bits. The
// caller clamps x into the range and recomputes the lanes it had to clamp.
constexpr float kExpLo = -87.0f, kExpHi = 88.0f;
template <typename V>
[[gnu::always_inline]] inline V exp_in_range(V x) {
  using U [[gnu::vector_size(sizeof(V))]] = uint32_t;
  constexpr float kShift = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
  V t = x * 1.44269504088896341f + kShift;
  V n = t - kShift;
  V r = x - n * 0x1.62e4p-1f;
  r = r - n * 0x1.7f7d1cp-20f;
  V y = r * 1.9739341224e-04f + 1.3935079332e-03f;
  y = y * r + 8.3335712552e-03f;
  y = y * r + 4.1666463017e-02f;
  y = y * r + 1.6666665673e-01f;
  y = y * r + 0.5f;
  y = y * (r * r) + r + 1.0f;
  // The low bits of t hold n; shifted into the exponent field over 1.0f's
  // bits that is 2^n (unsigned: n < 0 wraps, which is what the bits need).
  U bits;
  std::memcpy(&bits, &t, sizeof t);
  bits = ((bits - 0x4B400000u) << 23) + 0x3F800000u;
  V scale;
  std::memcpy(&scale, &bits, sizeof bits);
  return y * scale;
}

// The exp loop of the AVX2 and baseline clones, on 32-byte vectors (NOTE
// [Selects on halves]: on 64-byte vectors the AVX2 clone spilled the result
// and the range check through the stack, 1.1x torch's time on one thread).
// Blocks of 1024. The AVX-512 build has its own kernel (NOTE [Table-driven
// AVX-512 exp]).
template <typename V>
[[gnu::always_inline]] inline void exp_impl(const float* in, float* out, int64_t n) {
  constexpr int64_t L = sizeof(V) / sizeof(float);
  constexpr int64_t kBlock = 1024;
  float buf[kBlock];
  const V lo = V{} + kExpLo, hi = V{} + kExpHi;
  for (int64_t i = 0; i < n; i += kBlock) {
    const int64_t m = n - i < kBlock ? n - i : kBlock;
    const float* x = in + i;
    int64_t j = 0;
    // (x - clamp(x))^2 sums to 0 exactly when every element was in range
    // (NaN and inf propagate into it).
    V bad = {};
    for (; j + L <= m; j += L) {
      V v;
      std::memcpy(&v, x + j, sizeof v);
      V c = v < lo ? lo : v;
      c = c > hi ? hi : c;
      V e = exp_in_range(c);
      V d = v - c;
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

#ifdef GT_HAVE_SIMD_CLONES
struct Exp16 {
  __attribute__((target("arch=x86-64-v4"), always_inline)) __m512 operator()(__m512 x) const {
    return exp16(x);
  }
};

__attribute__((target("arch=x86-64-v4"))) void exp_wide(const float* in, float* out, int64_t n) {
  by_sixteen(in, out, n, Exp16{});
}
GT_CLONES_V3 void exp_narrow(const float* in, float* out, int64_t n) {
  exp_impl<Half<float>>(in, out, n);
}
#else
void exp_narrow(const float* in, float* out, int64_t n) { exp_impl<Half<float>>(in, out, n); }
#endif

}  // namespace

void exp(const float* in, float* out, int64_t n) {
#ifdef GT_HAVE_SIMD_CLONES
  static const bool wide = __builtin_cpu_supports("x86-64-v4");
  if (wide) return exp_wide(in, out, n);
#endif
  exp_narrow(in, out, n);
}

namespace {

// x / (1 + exp(-x)) with x = 1 (sigmoid) or x = in[i] (silu).
template <bool kTimesInput>
[[gnu::always_inline]] inline void logistic(const float* in, float* out, int64_t n) {
  exp_blocks(
      n, [in](int64_t i) GT_INLINE { return -in[i]; },
      [in, out](int64_t i, float e)
          GT_INLINE { out[i] = (kTimesInput ? in[i] : 1.0f) / (1.0f + e); });
}

GT_CLONES_V4_V3 void sigmoid_blocks(const float* in, float* out, int64_t n) {
  logistic<false>(in, out, n);
}
GT_CLONES_V4_V3 void silu_blocks(const float* in, float* out, int64_t n) {
  logistic<true>(in, out, n);
}

#ifdef GT_HAVE_SIMD_CLONES
// NOTE [Sigmoid in one pass]
// logistic's three passes over a block (negate into the buffer, the vector exp
// in place, then the quotient) read and write an L1 buffer twice per element
// more than the arithmetic needs. On Intel's AVX-512 the same operations run
// in one pass over sixteen floats at a time: -x by its sign bit (as the C
// negation, NaN's sign included), exp16, 1 + e and the division, so every bit
// of the result is the blocks' own. sigmoid of 64K floats on one thread took
// 13.4 us against 20.7, of 1M on two threads 136 us against 197 (in turns,
// Intel Xeon); against torch, two threads, 0.61x its time at 64K and 0.80x at
// 1M (the blocks: 0.90x and 1.05x). A reciprocal estimate with one or two
// Newton steps in place of the division was slower (15.1 and 16.5 us at 64K).
template <bool kTimesInput>
struct Logistic16 {
  __attribute__((target("arch=x86-64-v4"), always_inline)) __m512 operator()(__m512 x) const {
    const __m512 one = _mm512_set1_ps(1.0f);
    const __m512 e = exp16(_mm512_xor_ps(x, _mm512_set1_ps(-0.0f)));
    return _mm512_div_ps(kTimesInput ? x : one, _mm512_add_ps(one, e));
  }
};

template <bool kTimesInput>
__attribute__((target("arch=x86-64-v4"))) void logistic_in_one_pass(const float* in, float* out,
                                                                    int64_t n) {
  by_sixteen(in, out, n, Logistic16<kTimesInput>{});
}
#endif

}  // namespace

namespace {
std::atomic<bool> g_logistic_one_pass{true};
}  // namespace

bool logistic_one_pass() {
  return intel_avx512() && g_logistic_one_pass.load(std::memory_order_relaxed);
}

void set_logistic_one_pass(bool on) { g_logistic_one_pass.store(on, std::memory_order_relaxed); }

void sigmoid(const float* in, float* out, int64_t n) {
#ifdef GT_HAVE_SIMD_CLONES
  if (logistic_one_pass()) return logistic_in_one_pass<false>(in, out, n);
#endif
  sigmoid_blocks(in, out, n);
}

void silu(const float* in, float* out, int64_t n) {
#ifdef GT_HAVE_SIMD_CLONES
  if (logistic_one_pass()) return logistic_in_one_pass<true>(in, out, n);
#endif
  silu_blocks(in, out, n);
}

GT_CLONES_V4_V3 void silu_backward(const float* g, int64_t g_step, const float* x, float* out,
                                   int64_t n) {
  exp_blocks(
      n, [x](int64_t i) GT_INLINE { return -x[i]; },
      [g, g_step, x, out](int64_t i, float e) GT_INLINE {
        const float v = x[i], sig = 1.0f / (1.0f + e);
        out[i] = g[i * g_step] * (sig * (1.0f + v * (1.0f - sig)));
      });
}

// Plain loops: the compiler vectorizes them at each clone's width (with a
// run-time overlap check, since out may be an input). One operation each, so
// -ffp-contract has nothing to fuse: every clone rounds as the baseline does.
template <typename T, typename F>
[[gnu::always_inline]] inline void dense_loop(const T* a, int64_t a_step, const T* b,
                                              int64_t b_step, T* out, int64_t n, F f) {
  if (a_step && b_step) {
    for (int64_t i = 0; i < n; ++i) out[i] = f(a[i], b[i]);
  } else if (a_step) {
    const T y = *b;
    for (int64_t i = 0; i < n; ++i) out[i] = f(a[i], y);
  } else if (b_step) {
    const T x = *a;
    for (int64_t i = 0; i < n; ++i) out[i] = f(x, b[i]);
  } else {
    const T v = f(*a, *b);
    for (int64_t i = 0; i < n; ++i) out[i] = v;
  }
}

template <typename T>
[[gnu::always_inline]] inline void dense_binary_impl(DenseOp op, const T* a, int64_t a_step,
                                                     const T* b, int64_t b_step, T* out,
                                                     int64_t n) {
  switch (op) {
    case DenseOp::Add:
      return dense_loop(a, a_step, b, b_step, out, n, [](T x, T y) { return x + y; });
    case DenseOp::Sub:
      return dense_loop(a, a_step, b, b_step, out, n, [](T x, T y) { return x - y; });
    case DenseOp::Mul:
      return dense_loop(a, a_step, b, b_step, out, n, [](T x, T y) { return x * y; });
    case DenseOp::Div:
      return dense_loop(a, a_step, b, b_step, out, n, [](T x, T y) { return x / y; });
    case DenseOp::Maximum:
      return dense_loop(a, a_step, b, b_step, out, n, [](T x, T y) { return max_nan(x, y); });
    case DenseOp::Minimum:
      return dense_loop(a, a_step, b, b_step, out, n, [](T x, T y) { return min_nan(x, y); });
  }
}

template <typename T>
[[gnu::always_inline]] inline void clamp_impl(const T* in, T* out, int64_t n, const T* lo,
                                              const T* hi) {
  const T l = lo ? *lo : T(0), h = hi ? *hi : T(0);
  if (lo && hi) {
    for (int64_t i = 0; i < n; ++i) {
      const T x = in[i] < l ? l : in[i];
      out[i] = x > h ? h : x;
    }
  } else if (lo) {
    for (int64_t i = 0; i < n; ++i) out[i] = in[i] < l ? l : in[i];
  } else if (hi) {
    for (int64_t i = 0; i < n; ++i) out[i] = in[i] > h ? h : in[i];
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = in[i];
  }
}

GT_CLONES_V4_V3 void clamp(const float* in, float* out, int64_t n, const float* lo,
                           const float* hi) {
  clamp_impl(in, out, n, lo, hi);
}
GT_CLONES_V4_V3 void clamp(const double* in, double* out, int64_t n, const double* lo,
                           const double* hi) {
  clamp_impl(in, out, n, lo, hi);
}

template <typename T>
[[gnu::always_inline]] inline void select_impl(const uint8_t* c, const T* x, int64_t x_step,
                                               const T* y, int64_t y_step, T* out, int64_t n) {
  auto pick = [](uint8_t k, T a, T b) { return k != 0 ? a : b; };
  if (x_step && y_step) {
    for (int64_t i = 0; i < n; ++i) {
      const T a = x[i], b = y[i];
      out[i] = pick(c[i], a, b);
    }
  } else if (x_step) {
    const T b = *y;
    for (int64_t i = 0; i < n; ++i) {
      const T a = x[i];
      out[i] = pick(c[i], a, b);
    }
  } else if (y_step) {
    const T a = *x;
    for (int64_t i = 0; i < n; ++i) {
      const T b = y[i];
      out[i] = pick(c[i], a, b);
    }
  } else {
    const T a = *x, b = *y;
    for (int64_t i = 0; i < n; ++i) out[i] = pick(c[i], a, b);
  }
}

GT_CLONES_V4_V3 void select(const uint8_t* c, const float* x, int64_t x_step, const float* y,
                            int64_t y_step, float* out, int64_t n) {
  select_impl(c, x, x_step, y, y_step, out, n);
}
GT_CLONES_V4_V3 void select(const uint8_t* c, const double* x, int64_t x_step, const double* y,
                            int64_t y_step, double* out, int64_t n) {
  select_impl(c, x, x_step, y, y_step, out, n);
}

template <typename T>
[[gnu::always_inline]] inline void to_integral_impl(ToIntegral mode, const T* in, T* out,
                                                    int64_t n) {
  auto each = [&](auto f) {
    for (int64_t i = 0; i < n; ++i) out[i] = f(in[i]);
  };
  switch (mode) {
    case ToIntegral::Floor: return each([](T x) { return std::floor(x); });
    case ToIntegral::Ceil: return each([](T x) { return std::ceil(x); });
    case ToIntegral::Trunc: return each([](T x) { return std::trunc(x); });
    case ToIntegral::Nearest: return each([](T x) { return std::nearbyint(x); });
  }
}

GT_CLONES_V4_V3 void to_integral(ToIntegral mode, const float* in, float* out, int64_t n) {
  to_integral_impl(mode, in, out, n);
}
GT_CLONES_V4_V3 void to_integral(ToIntegral mode, const double* in, double* out, int64_t n) {
  to_integral_impl(mode, in, out, n);
}

// f(0) + ... + f(n - 1) in double over sixteen running sums, each in the order the source
// gives it (the compiler keeps float order), so the loop vectorizes across them; added
// pairwise at the end. Inlined into each clone.
template <typename F>
GT_INLINE inline double sixteen_sums(int64_t n, F f) {
  double acc[16] = {};
  int64_t k = 0;
  for (; k + 16 <= n; k += 16)
    for (int j = 0; j < 16; ++j) acc[j] += f(k + j);
  for (; k < n; ++k) acc[0] += f(k);
  for (int width = 8; width > 0; width /= 2)
    for (int j = 0; j < width; ++j) acc[j] += acc[j + width];
  return acc[0];
}

GT_CLONES_V4_V3 double sum_in_double(const float* p, int64_t n) {
  return sixteen_sums(n, [p](int64_t i) GT_INLINE { return double(p[i]); });
}

GT_CLONES_V4_V3 double dot_in_double(const float* a, const float* b, int64_t n) {
  return sixteen_sums(n, [a, b](int64_t i) GT_INLINE { return double(a[i]) * double(b[i]); });
}

GT_CLONES_V4_V3 double sum_squares_in_double(const float* p, int64_t n) {
  return sixteen_sums(n, [p](int64_t i) GT_INLINE { return double(p[i] * p[i]); });
}

GT_CLONES_V4_V3 void scale_in_double(float* p, int64_t n, double factor) {
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<float>(double(p[i]) * factor);
}

GT_CLONES_V4_V3 void dense_binary(DenseOp op, const float* a, int64_t a_step, const float* b,
                                  int64_t b_step, float* out, int64_t n) {
  dense_binary_impl(op, a, a_step, b, b_step, out, n);
}
GT_CLONES_V4_V3 void dense_binary(DenseOp op, const double* a, int64_t a_step, const double* b,
                                  int64_t b_step, double* out, int64_t n) {
  dense_binary_impl(op, a, a_step, b, b_step, out, n);
}
// std::fma is one instruction in the clones with FMA (vectorized there) and glibc's
// exact fma in the baseline one.
template <typename T>
[[gnu::always_inline]] inline void add_scaled_impl(char* const* ptr, const int64_t* s, int64_t n,
                                                   T alpha) {
  constexpr int64_t w = int64_t(sizeof(T));
  T* o = reinterpret_cast<T*>(ptr[0]);
  const T* a = reinterpret_cast<const T*>(ptr[1]);
  const T* b = reinterpret_cast<const T*>(ptr[2]);
  if (s[0] == w && s[1] == w && s[2] == w) {
    for (int64_t i = 0; i < n; ++i) o[i] = std::fma(alpha, b[i], a[i]);
  } else if (s[0] == w && s[1] == w && s[2] == 0) {
    const T bv = *b;
    for (int64_t i = 0; i < n; ++i) o[i] = std::fma(alpha, bv, a[i]);
  } else if (s[0] == w && s[1] == 0 && s[2] == w) {
    const T av = *a;
    for (int64_t i = 0; i < n; ++i) o[i] = std::fma(alpha, b[i], av);
  } else {
    for (int64_t i = 0; i < n; ++i)
      *reinterpret_cast<T*>(ptr[0] + i * s[0]) =
          std::fma(alpha, *reinterpret_cast<const T*>(ptr[2] + i * s[2]),
                   *reinterpret_cast<const T*>(ptr[1] + i * s[1]));
  }
}
GT_CLONES_V4_V3 void add_scaled(char* const* ptr, const int64_t* s, int64_t n, float alpha) {
  add_scaled_impl(ptr, s, n, alpha);
}
GT_CLONES_V4_V3 void add_scaled(char* const* ptr, const int64_t* s, int64_t n, double alpha) {
  add_scaled_impl(ptr, s, n, alpha);
}
template <typename T>
[[gnu::always_inline]] inline void lerp_impl(char* const* ptr, const int64_t* s, int64_t n) {
  constexpr int64_t w = int64_t(sizeof(T));
  T* o = reinterpret_cast<T*>(ptr[0]);
  const T* a = reinterpret_cast<const T*>(ptr[1]);
  const T* b = reinterpret_cast<const T*>(ptr[2]);
  const T* c = reinterpret_cast<const T*>(ptr[3]);
  if (s[0] == w && s[1] == w && s[2] == w && s[3] == w) {
    for (int64_t i = 0; i < n; ++i) o[i] = lerp_element(a[i], b[i], c[i]);
  } else if (s[0] == w && s[1] == w && s[2] == w && s[3] == 0) {
    const T cv = *c;
    for (int64_t i = 0; i < n; ++i) o[i] = lerp_element(a[i], b[i], cv);
  } else {
    for (int64_t i = 0; i < n; ++i)
      *reinterpret_cast<T*>(ptr[0] + i * s[0]) =
          lerp_element(*reinterpret_cast<const T*>(ptr[1] + i * s[1]),
                       *reinterpret_cast<const T*>(ptr[2] + i * s[2]),
                       *reinterpret_cast<const T*>(ptr[3] + i * s[3]));
  }
}
GT_CLONES_V4_V3 void lerp(char* const* ptr, const int64_t* s, int64_t n, float) {
  lerp_impl<float>(ptr, s, n);
}
GT_CLONES_V4_V3 void lerp(char* const* ptr, const int64_t* s, int64_t n, double) {
  lerp_impl<double>(ptr, s, n);
}
template <typename T>
[[gnu::always_inline]] inline void nan_to_num_impl(const T* in, T* out, int64_t n, const T* with) {
  const T w[3] = {with[0], with[1], with[2]};  // locals: `out` may alias `with` as far as GCC knows
  for (int64_t i = 0; i < n; ++i) out[i] = nan_to_num_element(in[i], w);
}
GT_CLONES_V4_V3 void nan_to_num(const float* in, float* out, int64_t n, const float* with) {
  nan_to_num_impl(in, out, n, with);
}
GT_CLONES_V4_V3 void nan_to_num(const double* in, double* out, int64_t n, const double* with) {
  nan_to_num_impl(in, out, n, with);
}
template <typename T, bool kDivide>
[[gnu::always_inline]] inline void addcmul_impl(char* const* ptr, const int64_t* s, int64_t n,
                                                T v) {
  constexpr int64_t w = int64_t(sizeof(T));
  const auto f = [v](T x, T a, T b) GT_INLINE { return addcmul_element<kDivide>(x, a, b, v); };
  if (s[0] == w && s[1] == w && s[2] == w && s[3] == w) {
    T* o = reinterpret_cast<T*>(ptr[0]);
    const T* x = reinterpret_cast<const T*>(ptr[1]);
    const T* a = reinterpret_cast<const T*>(ptr[2]);
    const T* b = reinterpret_cast<const T*>(ptr[3]);
    for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], a[i], b[i]);
    return;
  }
  for (int64_t i = 0; i < n; ++i)
    *reinterpret_cast<T*>(ptr[0] + i * s[0]) = f(*reinterpret_cast<const T*>(ptr[1] + i * s[1]),
                                                 *reinterpret_cast<const T*>(ptr[2] + i * s[2]),
                                                 *reinterpret_cast<const T*>(ptr[3] + i * s[3]));
}
GT_CLONES_V4_V3 void addcmul(char* const* ptr, const int64_t* s, int64_t n, float value,
                             bool divide) {
  if (divide) return addcmul_impl<float, true>(ptr, s, n, value);
  addcmul_impl<float, false>(ptr, s, n, value);
}
GT_CLONES_V4_V3 void addcmul(char* const* ptr, const int64_t* s, int64_t n, double value,
                             bool divide) {
  if (divide) return addcmul_impl<double, true>(ptr, s, n, value);
  addcmul_impl<double, false>(ptr, s, n, value);
}
template <typename T>
[[gnu::always_inline]] inline void sgd_impl(T* p, const T* gp, T* bp, int64_t n, const SgdStep& h) {
  // Locals, not h's fields, so the loop can be unswitched on them and vectorized.
  const T lr = T(h.lr), m = T(h.momentum), damp = T(1 - h.dampening), wd = T(h.weight_decay);
  const bool decay = h.weight_decay != 0, maximize = h.maximize, nesterov = h.nesterov;
  const bool momentum = bp != nullptr, first = h.first_step;
  for (int64_t i = 0; i < n; ++i) {
    T g = maximize ? -gp[i] : gp[i];
    if (decay) g = std::fma(wd, p[i], g);
    if (momentum) {
      T b = g;
      if (!first) {
        const T kept = bp[i] * m;
        b = std::fma(damp, g, kept);
      }
      bp[i] = b;
      g = nesterov ? std::fma(m, b, g) : b;
    }
    p[i] = std::fma(-lr, g, p[i]);
  }
}
GT_CLONES_V4_V3 void sgd(float* p, const float* g, float* b, int64_t n, const SgdStep& h) {
  sgd_impl(p, g, b, n, h);
}
GT_CLONES_V4_V3 void sgd(double* p, const double* g, double* b, int64_t n, const SgdStep& h) {
  sgd_impl(p, g, b, n, h);
}
GT_CLONES_V4_V3 void relu(const float* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = in[i] < 0.0f ? 0.0f : in[i];
}

GT_CLONES_V4_V3 double sum(const float* p, int64_t n, double acc) { return sum_impl(p, n, acc); }
GT_CLONES_V4_V3 double sum(const double* p, int64_t n, double acc) { return sum_impl(p, n, acc); }

GT_CLONES_V4_V3 bool extreme(const float* p, int64_t n, bool is_max, float& acc) {
  return is_max ? extreme_impl<float, true>(p, n, acc) : extreme_impl<float, false>(p, n, acc);
}
GT_CLONES_V4_V3 bool extreme(const double* p, int64_t n, bool is_max, double& acc) {
  return is_max ? extreme_impl<double, true>(p, n, acc) : extreme_impl<double, false>(p, n, acc);
}

const char* level() {
#ifdef GT_HAVE_SIMD_CLONES
  // The same test the clones' resolver makes.
  if (__builtin_cpu_supports("x86-64-v4")) return "avx512";
  if (__builtin_cpu_supports("x86-64-v3")) return "avx2";
#endif
  return "baseline";
}

}  // namespace gradtrack::kernels::simd
