#include "kernels/reduced_float.h"

#include <cstring>

#include "core/half.h"
#include "kernels/bfloat16_binary.h"
#include "kernels/pointwise.h"
#include "kernels/loops.h"
#include "kernels/simd_clones.h"

namespace gradtrack::kernels {

bool any_reduced(std::initializer_list<const Tensor*> ts) {
  for (const Tensor* t : ts)
    if (t && is_reduced_float(t->dtype())) return true;
  return false;
}

Tensor widen(const Tensor& t) {
  if (!is_reduced_float(t.dtype())) return t;
  Tensor w = empty(t.sizes(), ScalarType::Float32);
  copy(w, t);
  return w;
}

Scalar round_scalar(Scalar v, ScalarType t) {
  if (!is_reduced_float(t)) return v;
  const float f = v.to<float>();
  const float r = t == ScalarType::Float16 ? half_to_float(float_to_half(f))
                                           : bfloat16_to_float(float_to_bfloat16(f));
  return Scalar(static_cast<double>(r));
}

Tensor narrowed(const Tensor& wide, ScalarType t) {
  Tensor out = empty(wide.sizes(), t);
  copy(out, wide);
  return out;
}

WideOut::WideOut(const Tensor& out, bool read_old) : out_(out) {
  if (!is_reduced_float(out.dtype())) {
    t = out;
    return;
  }
  t = read_old ? widen(out) : empty(out.sizes(), ScalarType::Float32);
}

void WideOut::commit() const {
  if (is_reduced_float(out_.dtype())) copy(out_, t);
}

namespace {

// NOTE [Conversions in vectors]
// Every float16 / bfloat16 op widens its operands to float32 and rounds its
// result back, so these loops run on each. Written one element at a time with
// a branch for NaN and compiled for the baseline, they took 2.1x torch's time
// for float32 -> bfloat16 over 1M elements, 4.7x for float16 -> float32 and 32x
// for float32 -> float16 (Intel Xeon, one thread), and a bfloat16 add 4.3x. Dense
// runs now go through branch-free loops compiled for AVX-512 and AVX2 as well
// (NOTE [SIMD clones] in simd.h); float16 uses the CPU's conversion instructions
// (F16C), which round to nearest even and keep a NaN's sign and top payload bits
// with the quiet bit set, as float_to_half does (the other way, a signaling NaN
// is rebuilt as half_to_float keeps it). Each gives the bits of the scalar
// conversions in core/half.h.
#ifdef GT_HAVE_SIMD_CLONES
#include <immintrin.h>
#endif

GT_CLONES_V4_V3 void bfloat16_run(uint16_t* o, const float* a, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    uint32_t x;
    std::memcpy(&x, a + i, sizeof(x));
    const uint32_t rounded = (x + 0x7FFFu + ((x >> 16) & 1u)) >> 16;
    o[i] = static_cast<uint16_t>((x & 0x7FFFFFFFu) > 0x7F800000u ? 0x7FC0u : rounded);
  }
}

GT_CLONES_V4_V3 void from_bfloat16_run(float* o, const uint16_t* a, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t x = static_cast<uint32_t>(a[i]) << 16;
    std::memcpy(o + i, &x, sizeof(x));
  }
}

#ifdef GT_HAVE_SIMD_CLONES
__attribute__((target("avx512f"))) void half_run_avx512(uint16_t* o, const float* a, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256i h =
        _mm512_cvtps_ph(_mm512_loadu_ps(a + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(o + i), h);
  }
  for (; i < n; ++i) o[i] = float_to_half(a[i]);
}
__attribute__((target("avx2,f16c"))) void half_run_f16c(uint16_t* o, const float* a, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h =
        _mm256_cvtps_ph(_mm256_loadu_ps(a + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(o + i), h);
  }
  for (; i < n; ++i) o[i] = float_to_half(a[i]);
}

// float16 -> float32 by the conversion instruction, which quiets a signaling
// NaN; those lanes are rebuilt as half_to_float builds them.
__attribute__((target("avx512f"))) void from_half_avx512(float* o, const uint16_t* a, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i));
    const __m512i w = _mm512_cvtepu16_epi32(h);
    const __m512i m = _mm512_and_si512(w, _mm512_set1_epi32(0x3FF));
    const __mmask16 nan = _mm512_cmpeq_epi32_mask(_mm512_and_si512(w, _mm512_set1_epi32(0x7C00)),
                                                  _mm512_set1_epi32(0x7C00)) &
                          _mm512_cmpneq_epi32_mask(m, _mm512_setzero_si512());
    const __m512i exact = _mm512_or_si512(
        _mm512_or_si512(_mm512_slli_epi32(_mm512_and_si512(w, _mm512_set1_epi32(0x8000)), 16),
                        _mm512_set1_epi32(0x7F800000)),
        _mm512_slli_epi32(m, 13));
    const __m512i v = _mm512_mask_blend_epi32(nan, _mm512_castps_si512(_mm512_cvtph_ps(h)), exact);
    _mm512_storeu_si512(o + i, v);
  }
  for (; i < n; ++i) o[i] = half_to_float(a[i]);
}
__attribute__((target("avx2,f16c"))) void from_half_f16c(float* o, const uint16_t* a, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i));
    const __m256i w = _mm256_cvtepu16_epi32(h);
    const __m256i m = _mm256_and_si256(w, _mm256_set1_epi32(0x3FF));
    const __m256i top = _mm256_cmpeq_epi32(_mm256_and_si256(w, _mm256_set1_epi32(0x7C00)),
                                           _mm256_set1_epi32(0x7C00));
    const __m256i nan = _mm256_andnot_si256(_mm256_cmpeq_epi32(m, _mm256_setzero_si256()), top);
    const __m256i exact = _mm256_or_si256(
        _mm256_or_si256(_mm256_slli_epi32(_mm256_and_si256(w, _mm256_set1_epi32(0x8000)), 16),
                        _mm256_set1_epi32(0x7F800000)),
        _mm256_slli_epi32(m, 13));
    const __m256i v = _mm256_blendv_epi8(_mm256_castps_si256(_mm256_cvtph_ps(h)), exact, nan);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(o + i), v);
  }
  for (; i < n; ++i) o[i] = half_to_float(a[i]);
}
#endif

// 2 with AVX-512, 1 with AVX2 and F16C, else 0 (the scalar conversions).
int conversion_level() {
#ifdef GT_HAVE_SIMD_CLONES
  static const int level = __builtin_cpu_supports("avx512f")                                  ? 2
                           : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c") ? 1
                                                                                              : 0;
  return level;
#else
  return 0;
#endif
}

void half_run(uint16_t* o, const float* a, int64_t n) {
#ifdef GT_HAVE_SIMD_CLONES
  if (conversion_level() == 2) return half_run_avx512(o, a, n);
  if (conversion_level() == 1) return half_run_f16c(o, a, n);
#endif
  for (int64_t i = 0; i < n; ++i) o[i] = float_to_half(a[i]);
}

void from_half_run(float* o, const uint16_t* a, int64_t n) {
#ifdef GT_HAVE_SIMD_CLONES
  if (conversion_level() == 2) return from_half_avx512(o, a, n);
  if (conversion_level() == 1) return from_half_f16c(o, a, n);
#endif
  for (int64_t i = 0; i < n; ++i) o[i] = half_to_float(a[i]);
}

// Runs `dense(out, in, n)` on dense runs of the plan and `one(in)` element by
// element on the others (broadcast or strided).
template <typename O, typename A, typename Dense, typename One>
void convert(const Tensor& out, const Tensor& src, const Dense& dense, const One& one) {
  run_plan(make_plan(out, {src}), [&](char** ptr, const int64_t* s, int64_t n) {
    if (s[0] == sizeof(O) && s[1] == sizeof(A) && aligned_for<O>(ptr[0]) &&
        aligned_for<A>(ptr[1])) {
      dense(reinterpret_cast<O*>(ptr[0]), reinterpret_cast<const A*>(ptr[1]), n);
    } else {
      for (int64_t i = 0; i < n; ++i) store<O>(ptr[0] + i * s[0], one(load<A>(ptr[1] + i * s[1])));
    }
  });
}

// float32 <-> 16-bit words, elementwise with broadcasting of `src`.
void words_from_float(const Tensor& out, const Tensor& src) {
  if (out.dtype() == ScalarType::Float16) {
    convert<uint16_t, float>(out, src, half_run, [](float x) { return float_to_half(x); });
  } else {
    convert<uint16_t, float>(out, src, bfloat16_run, [](float x) { return float_to_bfloat16(x); });
  }
}

void float_from_words(const Tensor& out, const Tensor& src) {
  if (src.dtype() == ScalarType::Float16) {
    convert<float, uint16_t>(out, src, from_half_run, [](uint16_t h) { return half_to_float(h); });
  } else {
    convert<float, uint16_t>(out, src, from_bfloat16_run,
                             [](uint16_t b) { return bfloat16_to_float(b); });
  }
}

// NOTE [bfloat16 arithmetic in one pass]
// A bfloat16 a + b (and -, *, /) widened both operands into float32 copies,
// ran the float32 kernel into a third and rounded that back: four passes and
// three allocations, ~4x torch's time over 1M elements. For two bfloat16
// operands and a bfloat16 result, each element now widens, computes in float32
// and rounds in one loop (vectorised by the compiler, NOTE [Conversions in
// vectors]), with the same float32 operation and the same rounding (to
// nearest even, NaN to 0x7FC0) as the widened path, so the bits are equal.
template <typename Op>
inline uint16_t bfloat16_op(uint16_t x, uint16_t y, Op op) {
  uint32_t ux = static_cast<uint32_t>(x) << 16, uy = static_cast<uint32_t>(y) << 16;
  float fx, fy;
  std::memcpy(&fx, &ux, sizeof(fx));
  std::memcpy(&fy, &uy, sizeof(fy));
  const float r = op(fx, fy);
  uint32_t u;
  std::memcpy(&u, &r, sizeof(u));
  const uint32_t rounded = (u + 0x7FFFu + ((u >> 16) & 1u)) >> 16;
  return static_cast<uint16_t>((u & 0x7FFFFFFFu) > 0x7F800000u ? 0x7FC0u : rounded);
}

#define GT_BFLOAT16_RUN(NAME, EXPR)                                                         \
  GT_CLONES_V4_V3 void NAME(uint16_t* o, const uint16_t* a, const uint16_t* b, int64_t n) { \
    for (int64_t i = 0; i < n; ++i)                                                         \
      o[i] = bfloat16_op(a[i], b[i], [](float x, float y) { return EXPR; });                \
  }
GT_BFLOAT16_RUN(bfloat16_add_run, x + y)
GT_BFLOAT16_RUN(bfloat16_sub_run, x - y)
GT_BFLOAT16_RUN(bfloat16_mul_run, x* y)
GT_BFLOAT16_RUN(bfloat16_div_run, x / y)
#undef GT_BFLOAT16_RUN

template <typename Dense, typename Op>
void bfloat16_binary_loop(const Tensor& out, const Tensor& a, const Tensor& b, const Dense& dense,
                          const Op& op) {
  run_plan(make_plan(out, {a, b}), [&](char** ptr, const int64_t* s, int64_t n) {
    if (s[0] == 2 && s[1] == 2 && s[2] == 2 && aligned_for<uint16_t>(ptr[0]) &&
        aligned_for<uint16_t>(ptr[1]) && aligned_for<uint16_t>(ptr[2])) {
      dense(reinterpret_cast<uint16_t*>(ptr[0]), reinterpret_cast<const uint16_t*>(ptr[1]),
            reinterpret_cast<const uint16_t*>(ptr[2]), n);
    } else {
      for (int64_t i = 0; i < n; ++i)
        store<uint16_t>(ptr[0] + i * s[0], bfloat16_op(load<uint16_t>(ptr[1] + i * s[1]),
                                                       load<uint16_t>(ptr[2] + i * s[2]), op));
    }
  });
}

}  // namespace

bool binary_bfloat16(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  constexpr ScalarType bf = ScalarType::BFloat16;
  if (out.dtype() != bf || a.dtype() != bf || b.dtype() != bf) return false;
  switch (op) {
    case BinaryOp::Add:
      bfloat16_binary_loop(out, a, b, bfloat16_add_run, [](float x, float y) { return x + y; });
      return true;
    case BinaryOp::Sub:
      bfloat16_binary_loop(out, a, b, bfloat16_sub_run, [](float x, float y) { return x - y; });
      return true;
    case BinaryOp::Mul:
      bfloat16_binary_loop(out, a, b, bfloat16_mul_run, [](float x, float y) { return x * y; });
      return true;
    case BinaryOp::Div:
      bfloat16_binary_loop(out, a, b, bfloat16_div_run, [](float x, float y) { return x / y; });
      return true;
    default: return false;
  }
}

bool copy_reduced(const Tensor& out, const Tensor& src) {
  const bool ro = is_reduced_float(out.dtype()), rs = is_reduced_float(src.dtype());
  if (!ro && !rs) return false;
  if (out.dtype() == src.dtype()) {
    // Same words: copied bit for bit (NaN payloads included).
    unary_loop<uint16_t, uint16_t>(make_plan(out, {src}), [](uint16_t w) { return w; });
    return true;
  }
  // Every other conversion passes through float32, as PyTorch's does (so a
  // double rounds twice: to float32, then to 16 bits).
  if (rs && out.dtype() == ScalarType::Float32) {
    float_from_words(out, src);
  } else if (ro && src.dtype() == ScalarType::Float32) {
    words_from_float(out, src);
  } else {
    Tensor mid = empty(out.sizes(), ScalarType::Float32);
    copy(mid, src);
    copy(out, mid);
  }
  return true;
}

bool fill_reduced(const Tensor& out, Scalar value) {
  if (!is_reduced_float(out.dtype())) return false;
  const float f = value.to<float>();
  const uint16_t w = out.dtype() == ScalarType::Float16 ? float_to_half(f) : float_to_bfloat16(f);
  unary_loop<uint16_t, uint16_t>(make_plan(out, {Operand(&w)}), [](uint16_t x) { return x; });
  return true;
}

}  // namespace gradtrack::kernels
