// Pooling kernels: one pass per output element, threads over planes.
#include "kernels/nn/pool.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "core/error.h"
#include "kernels/gemm_avx512.h"
#include "kernels/parallel.h"
#include "kernels/reduced_float.h"

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define GT_POOL_AVX512 1
#include <immintrin.h>
#else
#define GT_POOL_AVX512 0
#endif

namespace gradtrack::kernels {

namespace {

template <typename F>
void dispatch(const Tensor& t, const char* name, const F& f, bool ints = false) {
  switch (t.dtype()) {
    case ScalarType::Float32: return f(float{});
    case ScalarType::Float64: return f(double{});
    case ScalarType::Int64:
      if (ints) return f(int64_t{});
      break;
    case ScalarType::Int32:
      if (ints) return f(int32_t{});
      break;
    case ScalarType::UInt8:
      if (ints) return f(uint8_t{});
      break;
    default: break;
  }
  throw NotImplementedError(
      str_cat("\"", name, "\" not implemented for '", scalar_type_name(t.dtype()), "'"));
}

// Threads over planes; a plane's work is its output (or input) size.
template <typename F>
void over_planes(const PoolGeom& g, int64_t per_plane, const F& f) {
  parallel_for(g.planes, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, per_plane)),
               [&](int64_t lo, int64_t hi) {
                 for (int64_t p = lo; p < hi; ++p) f(p);
               });
}

inline int64_t adaptive_start(int64_t o, int64_t in, int64_t out) { return (o * in) / out; }
inline int64_t adaptive_end(int64_t o, int64_t in, int64_t out) {
  return ((o + 1) * in + out - 1) / out;
}

template <typename T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::isnan(v);
  } else {
    return false;
  }
}

// Max over one window; the first position is the first valid one, and a NaN
// takes over (as PyTorch's kernels: `val > max || isnan(val)`).
template <typename T, typename Rows, typename Cols>
void window_max(const T* plane, int64_t width, Rows rows, Cols cols, T* out, int64_t* idx) {
  T best = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                : std::numeric_limits<T>::lowest();
  int64_t at = -1;
  for (int64_t h : rows) {
    for (int64_t w : cols) {
      const T v = plane[h * width + w];
      if (at < 0) at = h * width + w;
      if (v > best || is_nan(v)) {
        best = v;
        at = h * width + w;
      }
    }
  }
  *out = best;
  *idx = at;
}

// NOTE [2x2 max pooling on AVX-512]
// The window loop above branches on every comparison; on random data half of
// them went the wrong way, and MaxPool2d(2) took a third of the benchmark's
// CNN train step. The common pool (2x2, stride 2, no padding or dilation,
// every window inside the plane) gets a branch-free kernel for float32: 16
// outputs of one row at a time, the four candidates of each window split out
// of two rows of 32 floats, compared in the window order of window_max with
// its rule (a later candidate wins if greater or NaN), so values and indices
// are the same.
bool pool2x2_fits(const PoolGeom& g) {
  return g.kh == 2 && g.kw == 2 && g.sh == 2 && g.sw == 2 && g.ph == 0 && g.pw == 0 && g.dh == 1 &&
         g.dw == 1 && 2 * g.oh <= g.ih && 2 * g.ow <= g.iw && g.ih * g.iw < (int64_t(1) << 31);
}

#if GT_POOL_AVX512
__attribute__((target("arch=x86-64-v4"))) void max_pool2x2_plane(const float* plane,
                                                                 const PoolGeom& g, float* y,
                                                                 int64_t* ix) {
  // lane l's even and odd elements of two 16-float vectors; 2 l is also the
  // column of its window's left half
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
  const auto lanes = [](int64_t n) {  // lanes [0, n) of 16
    return __mmask16(n <= 0 ? 0 : n >= 16 ? 0xFFFF : (1u << n) - 1);
  };
  for (int64_t oh = 0; oh < g.oh; ++oh) {
    const float* r0 = plane + 2 * oh * g.iw;
    const float* r1 = r0 + g.iw;
    for (int64_t ow0 = 0; ow0 < g.ow; ow0 += 16) {
      const int64_t n = std::min<int64_t>(16, g.ow - ow0), m = 2 * n;
      const __mmask16 lo = lanes(m), hi = lanes(m - 16), out = lanes(n);
      const float* a = r0 + 2 * ow0;
      const float* b = r1 + 2 * ow0;
      const __m512 a0 = _mm512_maskz_loadu_ps(lo, a), a1 = _mm512_maskz_loadu_ps(hi, a + 16);
      const __m512 b0 = _mm512_maskz_loadu_ps(lo, b), b1 = _mm512_maskz_loadu_ps(hi, b + 16);
      const __m512 cand[4] = {
          _mm512_permutex2var_ps(a0, even, a1), _mm512_permutex2var_ps(a0, odd, a1),
          _mm512_permutex2var_ps(b0, even, b1), _mm512_permutex2var_ps(b0, odd, b1)};
      __m512 best = cand[0];
      __m512i which = _mm512_setzero_si512();
      for (int c = 1; c < 4; ++c) {
        const __mmask16 take = _mm512_cmp_ps_mask(cand[c], best, _CMP_GT_OQ) |
                               _mm512_cmp_ps_mask(cand[c], cand[c], _CMP_UNORD_Q);
        best = _mm512_mask_mov_ps(best, take, cand[c]);
        which = _mm512_mask_mov_epi32(which, take, _mm512_set1_epi32(c));
      }
      // position = (2 oh + c / 2) iw + 2 (ow0 + lane) + c % 2
      const __m512i row =
          _mm512_mullo_epi32(_mm512_srli_epi32(which, 1), _mm512_set1_epi32(int32_t(g.iw)));
      const __m512i at = _mm512_add_epi32(
          _mm512_add_epi32(row, _mm512_and_si512(which, _mm512_set1_epi32(1))),
          _mm512_add_epi32(even, _mm512_set1_epi32(int32_t(2 * oh * g.iw + 2 * ow0))));
      const int64_t o = oh * g.ow + ow0;
      _mm512_mask_storeu_ps(y + o, out, best);
      _mm512_mask_storeu_epi64(ix + o, __mmask8(out),
                               _mm512_cvtepi32_epi64(_mm512_castsi512_si256(at)));
      _mm512_mask_storeu_epi64(ix + o + 8, __mmask8(out >> 8),
                               _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(at, 1)));
    }
  }
}
#else
void max_pool2x2_plane(const float*, const PoolGeom&, float*, int64_t*) {}
#endif

// The positions start, start + step, ... below end that lie in [0, size).
struct Steps {
  int64_t first, step, last;
  struct It {
    int64_t v, step;
    int64_t operator*() const { return v; }
    It& operator++() {
      v += step;
      return *this;
    }
    bool operator!=(const It& o) const { return v < o.v; }
  };
  It begin() const { return {first, step}; }
  It end() const { return {last, step}; }
};
Steps dilated(int64_t first, int64_t k, int64_t d, int64_t size) {
  int64_t start = first;
  while (start < 0) start += d;
  int64_t end = std::min(first + (k - 1) * d + 1, size);
  return {start, d, std::max(start, end)};
}

// avg_pool's window (clipped) and its divisor, as PyTorch computes them.
struct AvgWindow {
  int64_t h0, h1, w0, w1;
  double divide;
};
AvgWindow avg_window(const PoolGeom& g, int64_t oh, int64_t ow, bool include_pad, int64_t divisor) {
  int64_t h0 = oh * g.sh - g.ph, w0 = ow * g.sw - g.pw;
  int64_t h1 = std::min(h0 + g.kh, g.ih + g.ph), w1 = std::min(w0 + g.kw, g.iw + g.pw);
  const int64_t pool_size = (h1 - h0) * (w1 - w0);
  h0 = std::max<int64_t>(h0, 0);
  w0 = std::max<int64_t>(w0, 0);
  h1 = std::min(h1, g.ih);
  w1 = std::min(w1, g.iw);
  double divide =
      divisor ? double(divisor) : double(include_pad ? pool_size : (h1 - h0) * (w1 - w0));
  return {h0, h1, w0, w1, divide};
}

// float16 / bfloat16 (NOTE [Reduced floats are stored, not computed]): the
// float32 kernel on a widened operand, each result rounded once.
template <typename F>
void widened(const Tensor& out, const Tensor& in, const F& f) {
  WideOut o(out);
  f(o.t, widen(in));
  o.commit();
}

}  // namespace

void max_pool_forward(const Tensor& out, const Tensor& indices, const Tensor& in,
                      const PoolGeom& g) {
  if (out.numel() == 0) return;
  if (any_reduced({&in}))
    return widened(out, in,
                   [&](const Tensor& o, const Tensor& x) { max_pool_forward(o, indices, x, g); });
  dispatch(
      in, "max_pool2d",
      [&](auto tag) {
        using T = decltype(tag);
        const T* x = in.data<T>();
        T* y = out.data<T>();
        int64_t* ix = indices.data<int64_t>();
        if constexpr (std::is_same_v<T, float>) {
          if (pool2x2_fits(g) && gemm_avx512_available()) {  // the CPU has AVX-512
            return over_planes(g, g.oh * g.ow * 4, [&](int64_t p) {
              const int64_t o = p * g.oh * g.ow;
              max_pool2x2_plane(x + p * g.ih * g.iw, g, y + o, ix + o);
            });
          }
        }
        over_planes(g, g.oh * g.ow * g.kh * g.kw, [&](int64_t p) {
          const T* plane = x + p * g.ih * g.iw;
          for (int64_t oh = 0; oh < g.oh; ++oh) {
            Steps rows = dilated(oh * g.sh - g.ph, g.kh, g.dh, g.ih);
            for (int64_t ow = 0; ow < g.ow; ++ow) {
              Steps cols = dilated(ow * g.sw - g.pw, g.kw, g.dw, g.iw);
              const int64_t o = (p * g.oh + oh) * g.ow + ow;
              window_max(plane, g.iw, rows, cols, y + o, ix + o);
            }
          }
        });
      },
      /*ints=*/true);
}

void adaptive_max_pool_forward(const Tensor& out, const Tensor& indices, const Tensor& in,
                               const PoolGeom& g) {
  if (out.numel() == 0) return;
  if (any_reduced({&in}))
    return widened(out, in, [&](const Tensor& o, const Tensor& x) {
      adaptive_max_pool_forward(o, indices, x, g);
    });
  dispatch(in, "adaptive_max_pool2d", [&](auto tag) {
    using T = decltype(tag);
    const T* x = in.data<T>();
    T* y = out.data<T>();
    int64_t* ix = indices.data<int64_t>();
    over_planes(g, g.ih * g.iw, [&](int64_t p) {
      const T* plane = x + p * g.ih * g.iw;
      for (int64_t oh = 0; oh < g.oh; ++oh) {
        const int64_t h0 = adaptive_start(oh, g.ih, g.oh), h1 = adaptive_end(oh, g.ih, g.oh);
        for (int64_t ow = 0; ow < g.ow; ++ow) {
          const int64_t w0 = adaptive_start(ow, g.iw, g.ow), w1 = adaptive_end(ow, g.iw, g.ow);
          const int64_t o = (p * g.oh + oh) * g.ow + ow;
          window_max(plane, g.iw, Steps{h0, 1, h1}, Steps{w0, 1, w1}, y + o, ix + o);
        }
      }
    });
  });
}

void max_pool_backward(const Tensor& gin, const Tensor& gout, const Tensor& indices,
                       const PoolGeom& g) {
  if (gin.numel() == 0) return;
  if (any_reduced({&gout}))
    return widened(gin, gout,
                   [&](const Tensor& o, const Tensor& x) { max_pool_backward(o, x, indices, g); });
  dispatch(gin, "max_pool2d_backward", [&](auto tag) {
    using T = decltype(tag);
    T* dx = gin.data<T>();
    const T* dy = gout.data<T>();
    const int64_t* ix = indices.data<int64_t>();
    const int64_t n_out = g.oh * g.ow, n_in = g.ih * g.iw;
    std::fill(dx, dx + gin.numel(), T(0));
    over_planes(g, n_out, [&](int64_t p) {
      for (int64_t o = 0; o < n_out; ++o) {
        const int64_t at = ix[p * n_out + o];
        if (at >= 0 && at < n_in) dx[p * n_in + at] += dy[p * n_out + o];
      }
    });
  });
}

void avg_pool_forward(const Tensor& out, const Tensor& in, const PoolGeom& g,
                      bool count_include_pad, int64_t divisor) {
  if (out.numel() == 0) return;
  if (any_reduced({&in}))
    return widened(out, in, [&](const Tensor& o, const Tensor& x) {
      avg_pool_forward(o, x, g, count_include_pad, divisor);
    });
  dispatch(in, "avg_pool2d", [&](auto tag) {
    using T = decltype(tag);
    const T* x = in.data<T>();
    T* y = out.data<T>();
    over_planes(g, g.oh * g.ow * g.kh * g.kw, [&](int64_t p) {
      const T* plane = x + p * g.ih * g.iw;
      for (int64_t oh = 0; oh < g.oh; ++oh) {
        for (int64_t ow = 0; ow < g.ow; ++ow) {
          AvgWindow w = avg_window(g, oh, ow, count_include_pad, divisor);
          T s = 0;
          for (int64_t h = w.h0; h < w.h1; ++h)
            for (int64_t c = w.w0; c < w.w1; ++c) s += plane[h * g.iw + c];
          const bool empty = w.h0 >= w.h1 || w.w0 >= w.w1;
          y[(p * g.oh + oh) * g.ow + ow] = empty ? T(0) : T(s / T(w.divide));
        }
      }
    });
  });
}

void avg_pool_backward(const Tensor& gin, const Tensor& gout, const PoolGeom& g,
                       bool count_include_pad, int64_t divisor) {
  if (gin.numel() == 0) return;
  if (any_reduced({&gout}))
    return widened(gin, gout, [&](const Tensor& o, const Tensor& x) {
      avg_pool_backward(o, x, g, count_include_pad, divisor);
    });
  dispatch(gin, "avg_pool2d_backward", [&](auto tag) {
    using T = decltype(tag);
    T* dx = gin.data<T>();
    const T* dy = gout.data<T>();
    std::fill(dx, dx + gin.numel(), T(0));
    over_planes(g, g.oh * g.ow * g.kh * g.kw, [&](int64_t p) {
      T* plane = dx + p * g.ih * g.iw;
      for (int64_t oh = 0; oh < g.oh; ++oh) {
        for (int64_t ow = 0; ow < g.ow; ++ow) {
          AvgWindow w = avg_window(g, oh, ow, count_include_pad, divisor);
          const T v = dy[(p * g.oh + oh) * g.ow + ow] / T(w.divide);
          for (int64_t h = w.h0; h < w.h1; ++h)
            for (int64_t c = w.w0; c < w.w1; ++c) plane[h * g.iw + c] += v;
        }
      }
    });
  });
}

void adaptive_avg_pool_forward(const Tensor& out, const Tensor& in, const PoolGeom& g) {
  if (out.numel() == 0) return;
  if (any_reduced({&in}))
    return widened(out, in,
                   [&](const Tensor& o, const Tensor& x) { adaptive_avg_pool_forward(o, x, g); });
  dispatch(in, "adaptive_avg_pool2d", [&](auto tag) {
    using T = decltype(tag);
    const T* x = in.data<T>();
    T* y = out.data<T>();
    over_planes(g, g.ih * g.iw, [&](int64_t p) {
      const T* plane = x + p * g.ih * g.iw;
      for (int64_t oh = 0; oh < g.oh; ++oh) {
        const int64_t h0 = adaptive_start(oh, g.ih, g.oh), h1 = adaptive_end(oh, g.ih, g.oh);
        for (int64_t ow = 0; ow < g.ow; ++ow) {
          const int64_t w0 = adaptive_start(ow, g.iw, g.ow), w1 = adaptive_end(ow, g.iw, g.ow);
          T s = 0;
          for (int64_t h = h0; h < h1; ++h)
            for (int64_t c = w0; c < w1; ++c) s += plane[h * g.iw + c];
          // PyTorch divides twice (by the window's height, then its width).
          y[(p * g.oh + oh) * g.ow + ow] = s / T(h1 - h0) / T(w1 - w0);
        }
      }
    });
  });
}

void adaptive_avg_pool_backward(const Tensor& gin, const Tensor& gout, const PoolGeom& g) {
  if (gin.numel() == 0) return;
  if (any_reduced({&gout}))
    return widened(gin, gout,
                   [&](const Tensor& o, const Tensor& x) { adaptive_avg_pool_backward(o, x, g); });
  dispatch(gin, "adaptive_avg_pool2d_backward", [&](auto tag) {
    using T = decltype(tag);
    T* dx = gin.data<T>();
    const T* dy = gout.data<T>();
    std::fill(dx, dx + gin.numel(), T(0));
    over_planes(g, g.ih * g.iw, [&](int64_t p) {
      T* plane = dx + p * g.ih * g.iw;
      for (int64_t oh = 0; oh < g.oh; ++oh) {
        const int64_t h0 = adaptive_start(oh, g.ih, g.oh), h1 = adaptive_end(oh, g.ih, g.oh);
        for (int64_t ow = 0; ow < g.ow; ++ow) {
          const int64_t w0 = adaptive_start(ow, g.iw, g.ow), w1 = adaptive_end(ow, g.iw, g.ow);
          const T v = dy[(p * g.oh + oh) * g.ow + ow] / T(h1 - h0) / T(w1 - w0);
          for (int64_t h = h0; h < h1; ++h)
            for (int64_t c = w0; c < w1; ++c) plane[h * g.iw + c] += v;
        }
      }
    });
  });
}

}  // namespace gradtrack::kernels
