// NOTE [Benchmark floors]: bench_floor.h. Not used by any op; the runner in
// benchmarks/ calls these through _C._bench.
#include "kernels/bench_floor.h"

#include <cstring>

#include "kernels/parallel.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
#define GT_BENCH_X86 1
#endif

namespace gradtrack::kernels::bench {

namespace {

// 16 independent float lanes: GCC vectorizes this without reassociating.
double read_chunk(const float* p, int64_t n) {
  float acc[16] = {};
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    for (int j = 0; j < 16; ++j) acc[j] += p[i + j];
  double s = 0;
  for (; i < n; ++i) s += p[i];
  for (float a : acc) s += a;
  return s;
}

// The widest loads the CPU has, four independent sums of Bytes-wide vectors:
// the loop a memory floor should be. The 16-lane scalar loop above is built
// for the x86-64 baseline (SSE2) and ran 10-20% slower than gradtrack's own
// AVX2 sum at 16M here. Forced inline, so each build below compiles it for its
// own instructions (NOTE [Lambdas in clones] in simd.cpp).
template <int Bytes, typename T = float>  // T: a dependent type, which vector_size needs
[[gnu::always_inline]] inline double read_wide(const T* p, int64_t n) {
  using V [[gnu::vector_size(Bytes)]] = T;
  constexpr int64_t L = Bytes / sizeof(T);
  V acc[4] = {};
  int64_t i = 0;
  for (; i + 4 * L <= n; i += 4 * L)
    for (int j = 0; j < 4; ++j) {
      V v;
      std::memcpy(&v, p + i + j * L, sizeof v);
      acc[j] += v;
    }
  double s = read_chunk(p + i, n - i);
  for (const V& a : acc)
    for (int64_t l = 0; l < L; ++l) s += a[l];
  return s;
}

#ifdef GT_BENCH_X86
__attribute__((target("avx512f"))) double read_avx512(const float* p, int64_t n) {
  return read_wide<64>(p, n);
}
__attribute__((target("avx2"))) double read_avx2(const float* p, int64_t n) {
  return read_wide<32>(p, n);
}
#endif

double read_best(const float* p, int64_t n) {
#ifdef GT_BENCH_X86
  if (__builtin_cpu_supports("avx512f")) return read_avx512(p, n);
  if (__builtin_cpu_supports("avx2")) return read_avx2(p, n);
#endif
  return read_chunk(p, n);
}

constexpr int kChains = 12;  // > FMA latency x units, within 16 registers

#ifdef GT_BENCH_X86
__attribute__((target("avx512f"))) float fma_avx512(int64_t iters) {
  __m512 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm512_set1_ps(float(c) * 1e-3f);
  const __m512 m = _mm512_set1_ps(0.999999f), a = _mm512_set1_ps(1e-7f);
  for (int64_t i = 0; i < iters; ++i)
    for (int c = 0; c < kChains; ++c) acc[c] = _mm512_fmadd_ps(acc[c], m, a);
  __m512 s = acc[0];
  for (int c = 1; c < kChains; ++c) s = _mm512_add_ps(s, acc[c]);
  return _mm512_reduce_add_ps(s);
}

__attribute__((target("avx2,fma"))) float fma_avx2(int64_t iters) {
  __m256 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm256_set1_ps(float(c) * 1e-3f);
  const __m256 m = _mm256_set1_ps(0.999999f), a = _mm256_set1_ps(1e-7f);
  for (int64_t i = 0; i < iters; ++i)
    for (int c = 0; c < kChains; ++c) acc[c] = _mm256_fmadd_ps(acc[c], m, a);
  __m256 s = acc[0];
  for (int c = 1; c < kChains; ++c) s = _mm256_add_ps(s, acc[c]);
  float out[8];
  _mm256_storeu_ps(out, s);
  return out[0] + out[7];
}
#endif

// No FMA instruction: a multiply and an add per lane (SSE2), 4 lanes.
float fma_plain(int64_t iters) {
  float acc[kChains * 4];
  for (int c = 0; c < kChains * 4; ++c) acc[c] = float(c) * 1e-3f;
  for (int64_t i = 0; i < iters; ++i)
    for (int c = 0; c < kChains * 4; ++c) acc[c] = acc[c] * 0.999999f + 1e-7f;
  float s = 0;
  for (float v : acc) s += v;
  return s;
}

float fma_run(int64_t iters) {
#ifdef GT_BENCH_X86
  if (__builtin_cpu_supports("avx512f")) return fma_avx512(iters);
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return fma_avx2(iters);
#endif
  return fma_plain(iters);
}

}  // namespace

int fma_lanes() {
#ifdef GT_BENCH_X86
  if (__builtin_cpu_supports("avx512f")) return 16;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return 8;
#endif
  return 4;
}

double read_floor(const float* p, int64_t n) {
  const int threads = get_num_threads();
  double parts[256] = {};
  const int use = threads < 256 ? threads : 256;
  parallel_for(use, 1, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t per = (n + use - 1) / use;
      const int64_t lo = t * per, hi = lo + per < n ? lo + per : n;
      if (lo < hi) parts[t] = read_best(p + lo, hi - lo);
    }
  });
  double s = 0;
  for (int t = 0; t < use; ++t) s += parts[t];
  return s;
}

double fma_peak(double flops) {
  const int threads = get_num_threads();
  const double per_iter = 2.0 * kChains * fma_lanes();
  const int64_t iters = static_cast<int64_t>(flops / per_iter / threads) + 1;
  float sink[256] = {};
  const int use = threads < 256 ? threads : 256;
  parallel_for(use, 1, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) sink[t] = fma_run(iters);
  });
  volatile float keep = sink[0];
  (void)keep;
  return per_iter * double(iters) * use;
}

}  // namespace gradtrack::kernels::bench
