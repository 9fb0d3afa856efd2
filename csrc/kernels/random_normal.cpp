// The batched normal fill and the uniform blocks it starts from.
//
// NOTE [Float normal blocks]
// For float32 torch transforms 16-element blocks with 8-lane AVX2 code whose
// log and sin/cos are the Cephes single-precision approximations (ln via a
// degree-8 polynomial on the mantissa around 1, sin/cos after a three-part
// reduction by pi/4). The same steps are written here lane by lane, in the
// same order with the same float constants, so the results equal torch's:
// once per lane in plain C++ and eight lanes at a time with AVX2+FMA.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "core/half.h"
#include "kernels/parallel.h"
#include "kernels/random_detail.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(GRADTRACK_NO_SIMD_CLONES)
#include <immintrin.h>
#define GT_RNG_AVX2 1
#endif

namespace gradtrack::kernels::random_detail {

namespace {

constexpr int64_t kChunk = 4096;

// a * b + c with one rounding: torch's AVX2 build lets the compiler fuse its
// multiply-adds, and which pairs it fused was found by comparing 2^20 draws
// bitwise (see the two fused steps noted below).
inline float madd(float a, float b, float c) { return std::fma(a, b, c); }

// Cephes logf for x in (0, 1] (see NOTE [Float normal blocks]).
inline float cephes_log(float x) {
  x = std::max(x, bits_float(0x00800000u));
  const uint32_t b = float_bits(x);
  float e = static_cast<float>(static_cast<int32_t>(b >> 23) - 0x7f) + 1.0f;
  float m = bits_float((b & ~0x7f800000u) | float_bits(0.5f));
  const bool small = m < 0.707106781186547524f;
  const float extra = small ? m : 0.0f;
  m = m - 1.0f;
  e = e - (small ? 1.0f : 0.0f);
  m = m + extra;
  const float z = m * m;
  float y = 7.0376836292E-2f;
  y = madd(y, m, -1.1514610310E-1f);
  y = madd(y, m, 1.1676998740E-1f);
  y = madd(y, m, -1.2420140846E-1f);
  y = madd(y, m, 1.4249322787E-1f);
  y = madd(y, m, -1.6668057665E-1f);
  y = madd(y, m, 2.0000714765E-1f);
  y = madd(y, m, -2.4999993993E-1f);
  y = madd(y, m, 3.3333331174E-1f);
  y = y * m;
  y = madd(y, z, e * -2.12194440e-4f);  // fused: y * z + (e * q1)
  y = madd(-z, 0.5f, y);
  return madd(e, 0.693359375f, m + y);
}

// Cephes sinf and cosf of x >= 0 together.
inline void cephes_sincos(float x, float& s, float& c) {
  int32_t j = static_cast<int32_t>(x * 1.27323954473516f);
  j = (j + 1) & ~1;
  const float y = static_cast<float>(j);
  const bool swap_sin = (j & 4) != 0;
  const bool use_sin_poly = (j & 2) == 0;
  const bool neg_cos = ((~(j - 2)) & 4) != 0;
  x = madd(y, -0.78515625f, x);
  x = madd(y, -2.4187564849853515625e-4f, x);
  x = madd(y, -3.77489497744594108e-8f, x);
  const float z = x * x;
  float pc = 2.443315711809948E-005f;
  pc = madd(pc, z, -1.388731625493765E-003f);
  pc = madd(pc, z, 4.166664568298827E-002f);
  pc = pc * z;
  pc = madd(pc, z, -(z * 0.5f));  // fused: pc * z - (z * 0.5)
  pc = pc + 1.0f;
  float ps = -1.9515295891E-4f;
  ps = madd(ps, z, 8.3321608736E-3f);
  ps = madd(ps, z, -1.6666654611E-1f);
  ps = ps * z;
  ps = madd(ps, x, x);
  const float sv = use_sin_poly ? ps : pc, cv = use_sin_poly ? pc : ps;
  s = swap_sin ? -sv : sv;
  c = neg_cos ? -cv : cv;
}

void float_blocks_scalar(float* data, int64_t blocks, float mean, float std) {
  const float two_pi = static_cast<float>(2.0 * M_PI);
  for (int64_t b = 0; b < blocks; ++b) {
    float* d = data + 16 * b;
    for (int j = 0; j < 8; ++j) {
      const float radius = std::sqrt(-2.0f * cephes_log(1.0f - d[j]));
      float s, c;
      cephes_sincos(two_pi * d[j + 8], s, c);
      d[j] = madd(radius * c, std, mean);
      d[j + 8] = madd(radius * s, std, mean);
    }
  }
}

void double_blocks(double* data, int64_t blocks, double mean, double std) {
  for (int64_t b = 0; b < blocks; ++b) {
    double* d = data + 16 * b;
    for (int j = 0; j < 8; ++j) {
      const double radius = std::sqrt(-2.0 * std::log(1.0 - d[j]));
      const double theta = 2.0 * M_PI * d[j + 8];
      d[j] = std::fma(radius * std::cos(theta), std, mean);
      d[j + 8] = std::fma(radius * std::sin(theta), std, mean);
    }
  }
}

#ifdef GT_RNG_AVX2
// The same steps as cephes_log / cephes_sincos / float_blocks_scalar, eight
// lanes at a time (bit-identical results: every fused step is an explicit fma).
#define GT_AVX2 __attribute__((target("avx2,fma")))

GT_AVX2 inline __m256 splat(float v) { return _mm256_set1_ps(v); }

GT_AVX2 __m256 log8(__m256 x) {
  const __m256 one = splat(1.0f);
  x = _mm256_max_ps(x, _mm256_castsi256_ps(_mm256_set1_epi32(0x00800000)));
  const __m256i b = _mm256_castps_si256(x);
  const __m256i ei = _mm256_sub_epi32(_mm256_srli_epi32(b, 23), _mm256_set1_epi32(0x7f));
  __m256 e = _mm256_add_ps(_mm256_cvtepi32_ps(ei), one);
  const __m256 mant = _mm256_castsi256_ps(_mm256_set1_epi32(~0x7f800000));
  __m256 m = _mm256_or_ps(_mm256_and_ps(x, mant), splat(0.5f));
  const __m256 small = _mm256_cmp_ps(m, splat(0.707106781186547524f), _CMP_LT_OQ);
  const __m256 extra = _mm256_and_ps(m, small);
  m = _mm256_sub_ps(m, one);
  e = _mm256_sub_ps(e, _mm256_and_ps(one, small));
  m = _mm256_add_ps(m, extra);
  const __m256 z = _mm256_mul_ps(m, m);
  static const float kP[9] = {7.0376836292E-2f,  -1.1514610310E-1f, 1.1676998740E-1f,
                              -1.2420140846E-1f, 1.4249322787E-1f,  -1.6668057665E-1f,
                              2.0000714765E-1f,  -2.4999993993E-1f, 3.3333331174E-1f};
  __m256 y = splat(kP[0]);
  for (int i = 1; i < 9; ++i) y = _mm256_fmadd_ps(y, m, splat(kP[i]));
  y = _mm256_mul_ps(y, m);
  y = _mm256_fmadd_ps(y, z, _mm256_mul_ps(e, splat(-2.12194440e-4f)));
  y = _mm256_fnmadd_ps(z, splat(0.5f), y);
  return _mm256_fmadd_ps(e, splat(0.693359375f), _mm256_add_ps(m, y));
}

GT_AVX2 void sincos8(__m256 x, __m256* s, __m256* c) {
  __m256i j = _mm256_cvttps_epi32(_mm256_mul_ps(x, splat(1.27323954473516f)));
  j = _mm256_and_si256(_mm256_add_epi32(j, _mm256_set1_epi32(1)), _mm256_set1_epi32(~1));
  const __m256 y = _mm256_cvtepi32_ps(j);
  const __m256i four = _mm256_set1_epi32(4);
  const __m256 swap_sin = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_and_si256(j, four), 29));
  const __m256i j2 = _mm256_sub_epi32(j, _mm256_set1_epi32(2));
  const __m256 neg_cos = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_andnot_si256(j2, four), 29));
  const __m256 sin_poly = _mm256_castsi256_ps(
      _mm256_cmpeq_epi32(_mm256_and_si256(j, _mm256_set1_epi32(2)), _mm256_setzero_si256()));
  x = _mm256_fmadd_ps(y, splat(-0.78515625f), x);
  x = _mm256_fmadd_ps(y, splat(-2.4187564849853515625e-4f), x);
  x = _mm256_fmadd_ps(y, splat(-3.77489497744594108e-8f), x);
  const __m256 z = _mm256_mul_ps(x, x);
  __m256 pc = _mm256_fmadd_ps(splat(2.443315711809948E-005f), z, splat(-1.388731625493765E-003f));
  pc = _mm256_fmadd_ps(pc, z, splat(4.166664568298827E-002f));
  pc = _mm256_mul_ps(pc, z);
  pc = _mm256_fmsub_ps(pc, z, _mm256_mul_ps(z, splat(0.5f)));
  pc = _mm256_add_ps(pc, splat(1.0f));
  __m256 ps = _mm256_fmadd_ps(splat(-1.9515295891E-4f), z, splat(8.3321608736E-3f));
  ps = _mm256_fmadd_ps(ps, z, splat(-1.6666654611E-1f));
  ps = _mm256_mul_ps(ps, z);
  ps = _mm256_fmadd_ps(ps, x, x);
  *s = _mm256_xor_ps(_mm256_blendv_ps(pc, ps, sin_poly), swap_sin);
  *c = _mm256_xor_ps(_mm256_blendv_ps(ps, pc, sin_poly), neg_cos);
}

GT_AVX2 void float_blocks_avx2(float* data, int64_t blocks, float mean, float std) {
  const __m256 two_pi = splat(static_cast<float>(2.0 * M_PI));
  const __m256 mean_v = splat(mean), std_v = splat(std);
  for (int64_t b = 0; b < blocks; ++b) {
    float* d = data + 16 * b;
    const __m256 u1 = _mm256_sub_ps(splat(1.0f), _mm256_loadu_ps(d));
    const __m256 radius = _mm256_sqrt_ps(_mm256_mul_ps(splat(-2.0f), log8(u1)));
    __m256 s, c;
    sincos8(_mm256_mul_ps(two_pi, _mm256_loadu_ps(d + 8)), &s, &c);
    _mm256_storeu_ps(d, _mm256_fmadd_ps(_mm256_mul_ps(radius, c), std_v, mean_v));
    _mm256_storeu_ps(d + 8, _mm256_fmadd_ps(_mm256_mul_ps(radius, s), std_v, mean_v));
  }
}
#endif

void float_blocks(float* data, int64_t blocks, float mean, float std) {
#ifdef GT_RNG_AVX2
  // GRADTRACK_RNG_SCALAR=1 forces the per-lane code (tests check both agree).
  static const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                           std::getenv("GRADTRACK_RNG_SCALAR") == nullptr;
  if (avx2) return float_blocks_avx2(data, blocks, mean, std);
#endif
  float_blocks_scalar(data, blocks, mean, std);
}

template <typename T>
void transform_blocks(T* data, int64_t blocks, T mean, T std) {
  // Pure per-block math: splitting it across threads cannot change a value.
  parallel_for(blocks, 512, [&](int64_t b, int64_t e) {
    if constexpr (std::is_same_v<T, float>)
      float_blocks(data + 16 * b, e - b, mean, std);
    else
      double_blocks(data + 16 * b, e - b, mean, std);
  });
}

}  // namespace

template <typename T>
void uniform_block(Generator& g, T* out, int64_t n, T from, T to) {
  // The raw 32-bit words land in out's own memory first (a float holds one, a
  // double two), then become values in place.
  constexpr int64_t words = sizeof(T) / 4;
  for (int64_t i = 0; i < n; i += kChunk) {
    const int64_t m = std::min(kChunk, n - i);
    uint32_t* w = reinterpret_cast<uint32_t*>(out + i);
    g.engine().fill(w, m * words);
    for (int64_t k = 0; k < m; ++k) {
      uint64_t bits;
      if constexpr (words == 1)
        bits = w[k];
      else
        bits = (uint64_t(w[2 * k]) << 32) | w[2 * k + 1];
      out[i + k] = uniform_from_bits<T>(bits, from, to);
    }
  }
}

double normal_scalar(Generator& g, double mean, double std) {
  if (g.next_double_normal) {
    const double cached = *g.next_double_normal;
    g.next_double_normal.reset();
    return std::fma(cached, std, mean);
  }
  const double u1 = uniform_real<double>(g, 0.0, 1.0);
  const double u2 = uniform_real<double>(g, 0.0, 1.0);
  const double r = std::sqrt(-2.0 * std::log1p(-u2));
  const double theta = 2.0 * M_PI * u1;
  g.next_double_normal = r * std::sin(theta);
  return std::fma(r * std::cos(theta), std, mean);
}

template <typename T>
void normal_fill(Generator& g, T* data, int64_t n, T mean, T std) {
  T tail[16];
  {
    std::lock_guard<std::mutex> lock(g.mutex());
    uniform_block<T>(g, data, n, T(0), T(1));
    if (n % 16 != 0) uniform_block<T>(g, tail, 16, T(0), T(1));
  }
  transform_blocks<T>(data, n / 16, mean, std);
  if (n % 16 != 0) {
    // The last 16 elements are redrawn as one whole block.
    std::copy(tail, tail + 16, data + n - 16);
    transform_blocks<T>(data + n - 16, 1, mean, std);
  }
}

void normal_transform_float(float* data, int64_t blocks, float mean, float std) {
  transform_blocks<float>(data, blocks, mean, std);
}

template void uniform_block<float>(Generator&, float*, int64_t, float, float);
template void uniform_block<double>(Generator&, double*, int64_t, double, double);
template void normal_fill<float>(Generator&, float*, int64_t, float, float);
template void normal_fill<double>(Generator&, double*, int64_t, double, double);

}  // namespace gradtrack::kernels::random_detail
