// Separable resampling kernels (see resample.h).
#include "kernels/resample.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <type_traits>

#include "kernels/parallel.h"
#include "kernels/simd_clones.h"

namespace gradtrack::kernels {

namespace {

struct Geometry {
  int64_t pre = 1, n_in = 0, n_out = 0, post = 1;
};

Geometry geometry(const DimVector& sizes, int64_t dim, int64_t n_out) {
  Geometry g;
  for (int64_t d = 0; d < dim; ++d) g.pre *= sizes[size_t(d)];
  for (size_t d = size_t(dim) + 1; d < sizes.size(); ++d) g.post *= sizes[d];
  g.n_in = sizes[size_t(dim)];
  g.n_out = n_out;
  return g;
}

}  // namespace

void gather_taps(const Tensor& out, const Tensor& in, int64_t dim, const Taps& t) {
  const Geometry g = geometry(in.sizes(), dim, t.out_size);
  if (out.numel() == 0) return;
  GT_DISPATCH_ALL(in.dtype(), [&] {
    const scalar_t* src = in.data<scalar_t>();
    scalar_t* dst = out.data<scalar_t>();
    const int64_t rows = g.pre * g.n_out;
    parallel_for(rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(g.post * t.taps, 1)),
                 [&](int64_t b, int64_t e) {
                   for (int64_t r = b; r < e; ++r) {
                     const int64_t p = r / g.n_out, o = r % g.n_out;
                     scalar_t* d = dst + r * g.post;
                     const scalar_t* s = src + p * g.n_in * g.post;
                     const int64_t* ix = t.idx.data() + o * t.taps;
                     const double* w = t.w.data() + o * t.taps;
                     // Accumulates in the data type (float for float32), as
                     // PyTorch's CPU upsampling kernels.
                     if constexpr (std::is_floating_point_v<scalar_t>) {
                       for (int64_t q = 0; q < g.post; ++q) {
                         scalar_t acc = 0;
                         for (int64_t k = 0; k < t.taps; ++k)
                           acc += scalar_t(w[k]) * s[ix[k] * g.post + q];
                         d[q] = acc;
                       }
                     } else {
                       // One tap of weight 1 (padding): a copy.
                       std::copy(s + ix[0] * g.post, s + (ix[0] + 1) * g.post, d);
                     }
                   }
                 });
  });
}

bool torch_fuses_multiply_adds() {
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool fused = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return fused;
#else
  return false;
#endif
}

namespace {

// NOTE [Resampling gradients summed as torch's]
// torch 2.13's CPU backward of a resampling op (nearest, linear in 1-3 dims, bicubic, the
// reflection and replication pads) walks each plane's output positions in order and
// adds each one's share into the input positions it read: gin += W * g, with W the
// product of the per-dim weights taken from the first resampled dim on ((d h) w), and
// bicubic's (g h) w with the x taps outside the y taps. Channels-last gradients take
// the same sums channel by channel. Summing by
// separable passes (along one dim, then the next) adds the same terms in another order:
// 65-78% of a float32 gradient's elements came out with another last bit. So the planes
// are summed here in torch's order. Built for AVX2 and up, torch's compiler fuses the
// last multiply with its add (not in the bicubic backward, which is built without); so
// do these loops where the CPU has FMA (madd).
struct DimTaps {
  int64_t in = 1, out = 1, taps = 1;
  const int64_t* idx = nullptr;
  std::vector<double> w{1.0};
};

// The resampled dims as D, H, W: where fewer than three are resampled, the leading ones
// have size 1 and one tap of weight 1.
std::array<DimTaps, 3> padded_dims(const std::vector<const Taps*>& dims) {
  std::array<DimTaps, 3> t;
  const size_t k = dims.size();
  for (size_t j = 0; j < k; ++j) {
    DimTaps& d = t[3 - k + j];
    d.in = dims[j]->in_size, d.out = dims[j]->out_size, d.taps = dims[j]->taps;
    d.idx = dims[j]->idx.data();
    d.w = dims[j]->w;
  }
  return t;
}

// Each dim's weights in the data type.
template <typename T>
struct DimWeights {
  std::vector<T> d, h, w;
  explicit DimWeights(const std::array<DimTaps, 3>& t)
      : d(t[0].w.begin(), t[0].w.end()),
        h(t[1].w.begin(), t[1].w.end()),
        w(t[2].w.begin(), t[2].w.end()) {}
};

// One plane: TD x TH x TW taps per output position (1 along the dims not resampled).
template <typename T, int TD, int TH, int TW, bool Cubic, bool Fused>
GT_CLONES_V4_V3 void scatter_plane(T* acc, const T* g, const DimTaps* dims, const T* wd,
                                   const T* wh, const T* ww) {
  const DimTaps &D = dims[0], &H = dims[1], &W = dims[2];
  static const int64_t kZero[1] = {0};
  for (int64_t od = 0; od < D.out; ++od) {
    const int64_t* xd = D.idx ? D.idx + od * TD : kZero;
    for (int64_t oh = 0; oh < H.out; ++oh) {
      const int64_t* xh = H.idx ? H.idx + oh * TH : kZero;
      // the input rows of this output row's (d, h) taps, and their weights d * h
      T* rows[TD * TH];
      T wdh[TD * TH];
      for (int a = 0; a < TD; ++a)
        for (int b = 0; b < TH; ++b) {
          rows[a * TH + b] = acc + (xd[a] * H.in + xh[b]) * W.in;
          wdh[a * TH + b] = T(wd[od * TD + a] * wh[oh * TH + b]);
        }
      for (int64_t ow = 0; ow < W.out; ++ow) {
        const T gv = *g++;
        const int64_t* xw = W.idx + ow * TW;
        const T* vw = ww + ow * TW;
        if constexpr (Cubic) {
          for (int i = 0; i < TW; ++i)
            for (int j = 0; j < TH; ++j) {
              T& e = rows[j][xw[i]];
              e = madd(Fused, T(gv * wh[oh * TH + j]), vw[i], e);
            }
        } else {
          for (int r = 0; r < TD * TH; ++r)
            for (int c = 0; c < TW; ++c) {
              T& e = rows[r][xw[c]];
              e = madd(Fused, T(wdh[r] * vw[c]), gv, e);
            }
        }
      }
    }
  }
}

template <typename T, bool Fused>
using PlaneFn = void (*)(T*, const T*, const DimTaps*, const T*, const T*, const T*);

// The kernel for the taps of each dim: nearest and the pads (1, 1, 1), linear (1, 1, 2),
// bilinear (1, 2, 2), trilinear (2, 2, 2), bicubic (1, 4, 4).
template <typename T, bool Fused>
PlaneFn<T, Fused> plane_kernel(const DimTaps* t, bool cubic) {
  const int64_t td = t[0].taps, th = t[1].taps, tw = t[2].taps;
  if (cubic) return scatter_plane<T, 1, 4, 4, true, Fused>;
  if (tw == 1) return scatter_plane<T, 1, 1, 1, false, Fused>;
  if (th == 1) return scatter_plane<T, 1, 1, 2, false, Fused>;
  if (td == 1) return scatter_plane<T, 1, 2, 2, false, Fused>;
  return scatter_plane<T, 2, 2, 2, false, Fused>;
}

}  // namespace

namespace {

// NOTE [Resampled in torch's nesting]
// torch's generic CPU resize kernel (linear, bicubic, and bilinear and trilinear where
// NOTE [Bilinear rounded as torch's] says) computes each output from the taps of
// the first resampled dim, each of them from the taps of the next, down to the input:
// ((t0 w0 + t1 w1) + t2 w2) + t3 w3 for four taps. Built for AVX2 and up, each `+ t w`
// is one multiply-add, the first pair's too: fma(t0, w0, t1 w1), then fma(t2, w2, .)
// (measured against torch: every output of 200 random rows of a 20 -> 47 resize).
// Passes along one dim at a time round the same sums in another order, and gave a
// fifth to most of a float32 resize another last bit.
template <typename T, int TAPS, bool Fused>
inline T combine(const T* t, const T* w) {
  T o = madd(Fused, t[0], w[0], T(t[1] * w[1]));
  for (int j = 2; j < TAPS; ++j) o = madd(Fused, t[j], w[j], o);
  return o;
}

// One plane of K resampled dims (the last K of D, H, W), TAPS taps each.
template <typename T, int K, int TAPS, bool Fused>
GT_CLONES_V4_V3 void gather_plane(T* out, const T* in, const DimTaps* dims, const T* wd,
                                  const T* wh, const T* ww) {
  const DimTaps &D = dims[0], &H = dims[1], &W = dims[2];
  for (int64_t od = 0; od < D.out; ++od)
    for (int64_t oh = 0; oh < H.out; ++oh)
      for (int64_t ow = 0; ow < W.out; ++ow) {
        const int64_t* xw = W.idx + ow * TAPS;
        const T* vw = ww + ow * TAPS;
        const auto along_w = [&](const T* row) {
          T t[TAPS];
          for (int c = 0; c < TAPS; ++c) t[c] = row[xw[c]];
          return combine<T, TAPS, Fused>(t, vw);
        };
        const auto along_h = [&](const T* plane) {
          T t[TAPS];
          for (int b = 0; b < TAPS; ++b) t[b] = along_w(plane + H.idx[oh * TAPS + b] * W.in);
          return combine<T, TAPS, Fused>(t, wh + oh * TAPS);
        };
        if constexpr (K == 1) {
          *out++ = along_w(in);
        } else if constexpr (K == 2) {
          *out++ = along_h(in);
        } else {
          T t[TAPS];
          for (int a = 0; a < TAPS; ++a) t[a] = along_h(in + D.idx[od * TAPS + a] * H.in * W.in);
          *out++ = combine<T, TAPS, Fused>(t, wd + od * TAPS);
        }
      }
}

template <typename T>
using GatherFn = void (*)(T*, const T*, const DimTaps*, const T*, const T*, const T*);

// bicubic (2 dims, 4 taps), linear (1 dim), bilinear, trilinear (2 taps)
template <typename T, bool Fused>
GatherFn<T> gather_kernel(size_t k, int64_t taps) {
  if (taps == 4) return gather_plane<T, 2, 4, Fused>;
  if (k == 1) return gather_plane<T, 1, 2, Fused>;
  if (k == 2) return gather_plane<T, 2, 2, Fused>;
  return gather_plane<T, 3, 2, Fused>;
}

}  // namespace

void gather_planes(const Tensor& out, const Tensor& in, const std::vector<const Taps*>& dims) {
  if (out.numel() == 0) return;
  const size_t k = dims.size();
  const std::array<DimTaps, 3> t = padded_dims(dims);
  const int64_t in_plane = t[0].in * t[1].in * t[2].in, out_plane = t[0].out * t[1].out * t[2].out;
  const int64_t planes = out.numel() / out_plane;
  const bool fused = torch_fuses_multiply_adds();
  GT_DISPATCH_FLOAT(out.dtype(), "gather_planes", [&] {
    const DimWeights<scalar_t> wt(t);
    const scalar_t* src = in.data<scalar_t>();
    scalar_t* dst = out.data<scalar_t>();
    const auto kernel = fused ? gather_kernel<scalar_t, true>(k, dims[0]->taps)
                              : gather_kernel<scalar_t, false>(k, dims[0]->taps);
    parallel_for(planes, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(out_plane * 8, 1)),
                 [&](int64_t b, int64_t e) {
                   for (int64_t p = b; p < e; ++p)
                     kernel(dst + p * out_plane, src + p * in_plane, t.data(), wt.d.data(),
                            wt.h.data(), wt.w.data());
                 });
  });
}

namespace {

// NOTE [Bilinear rounded as torch's]
// torch 2.13's CPU bilinear and trilinear resizes of float data take one of two kernels,
// and each rounds its products its own way; separable passes round as neither, and gave
// half of the elements of a float32 resize a last bit other than torch's.
// - The generic kernel (bilinear unless below; trilinear unless channels-last with more
//   than 3 channels) nests the taps as NOTE [Resampled in torch's nesting] says.
// - The channels-last kernel, taken for a channels-last contiguous input of more than 3
//   channels, and in 2-D also when the output's height plus width is at most 128 or when
//   torch runs on one thread with 3 channels: corner weights (d h) w, and per channel,
//   for the channels its 256-bit vectors take (whole groups of 8 floats or 4 doubles:
//   measured on an AVX-512 Xeon, whose torch runs these kernels 256 bits wide), the
//   corners summed from the last pair out, x00 w00 + (x01 w01 + (x10 w10 + x11 w11)),
//   the rest from the first pair on, ((x00 w00 + x01 w01) + x10 w10) + x11 w11.
// Built for AVX2 and up, the compiler fuses each `a * b + c` there into one multiply-add,
// the first product of a sum of two: so do these loops where the CPU has FMA, and so
// does the source position, scale * (x + 0.5) - 0.5 (ops/resample.cpp, which also floors
// it through float, as torch). Against torch, every element of float32 and float64
// resizes of 1-40 channels, up and down, with and without align_corners, channels-first
// and channels-last, is equal (tests).
template <typename T, int K>
GT_CLONES_V4_V3 void corner_rows(T* dst, const T* src, int64_t r0, int64_t r1, const DimTaps* t,
                                 const T* wd, const T* wh, const T* ww, int64_t channels,
                                 bool fused, int64_t vector_channels) {
  constexpr int TD = K == 3 ? 2 : 1, N = 4 * TD;  // (d, h) rows, corners
  const DimTaps &D = t[0], &H = t[1], &W = t[2];
  static const int64_t kZero[2] = {0, 0};
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t plane = r / (D.out * H.out), z = r / H.out % D.out, y = r % H.out;
    const T* base = src + plane * D.in * H.in * W.in;
    const int64_t* xd = D.idx ? D.idx + TD * z : kZero;
    const T* p[2 * TD];
    T dh[2 * TD];
    for (int a = 0; a < TD; ++a)
      for (int b = 0; b < 2; ++b) {
        p[2 * a + b] = base + (xd[a] * H.in + H.idx[2 * y + b]) * W.in;
        dh[2 * a + b] = T(wd[TD * z + a] * wh[2 * y + b]);
      }
    const bool in_vector = plane % channels < vector_channels;
    T* out = dst + r * W.out;
    for (int64_t x = 0; x < W.out; ++x) {
      T v[N], wv[N];
      for (int q = 0; q < 2 * TD; ++q)
        for (int c = 0; c < 2; ++c) {
          v[2 * q + c] = p[q][W.idx[2 * x + c]];
          wv[2 * q + c] = T(dh[q] * ww[2 * x + c]);
        }
      T o;
      if (in_vector) {
        o = madd(fused, v[N - 1], wv[N - 1], T(v[N - 2] * wv[N - 2]));
        for (int j = N - 3; j >= 0; --j) o = madd(fused, v[j], wv[j], o);
      } else {
        o = madd(fused, v[0], wv[0], T(v[1] * wv[1]));
        for (int j = 2; j < N; ++j) o = madd(fused, v[j], wv[j], o);
      }
      out[x] = o;
    }
  }
}

}  // namespace

void linear_corners(const Tensor& out, const Tensor& in, const std::vector<const Taps*>& dims) {
  if (out.numel() == 0) return;
  const std::array<DimTaps, 3> t = padded_dims(dims);
  const int64_t channels = in.sizes()[1];
  const int64_t rows = in.sizes()[0] * channels * t[0].out * t[1].out;
  const bool fused = torch_fuses_multiply_adds();
  GT_DISPATCH_FLOAT(in.dtype(), "linear_corners", [&] {
    const int64_t vector = 32 / int64_t(sizeof(scalar_t));
    const int64_t vector_channels = channels - channels % vector;
    const DimWeights<scalar_t> wt(t);
    const auto kernel = dims.size() == 3 ? corner_rows<scalar_t, 3> : corner_rows<scalar_t, 2>;
    const scalar_t* src = in.data<scalar_t>();
    scalar_t* dst = out.data<scalar_t>();
    parallel_for(rows,
                 std::max<int64_t>(1, kGrainSize / std::max<int64_t>(t[2].out << dims.size(), 1)),
                 [&](int64_t b, int64_t e) {
                   kernel(dst, src, b, e, t.data(), wt.d.data(), wt.h.data(), wt.w.data(), channels,
                          fused, vector_channels);
                 });
  });
}

void scatter_planes(const Tensor& gin, const Tensor& g_out, const std::vector<const Taps*>& dims,
                    bool cubic, bool fused) {
  if (gin.numel() == 0) return;
  const std::array<DimTaps, 3> t = padded_dims(dims);
  const int64_t in_plane = t[0].in * t[1].in * t[2].in, out_plane = t[0].out * t[1].out * t[2].out;
  const int64_t planes = gin.numel() / in_plane;
  GT_DISPATCH_FLOAT(gin.dtype(), "scatter_planes", [&] {
    const DimWeights<scalar_t> wt(t);
    const scalar_t* src = g_out.data<scalar_t>();
    scalar_t* dst = gin.data<scalar_t>();
    std::fill(dst, dst + gin.numel(), scalar_t(0));
    const auto unfused = plane_kernel<scalar_t, false>(t.data(), cubic);
    const auto with_fma = plane_kernel<scalar_t, true>(t.data(), cubic);
    // One plane per thread at a time: no sum is split between threads.
    parallel_for(planes, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(out_plane * 4, 1)),
                 [&](int64_t b, int64_t e) {
                   for (int64_t p = b; p < e; ++p)
                     (fused ? with_fma : unfused)(dst + p * in_plane, src + p * out_plane, t.data(),
                                                  wt.d.data(), wt.h.data(), wt.w.data());
                 });
  });
}

}  // namespace gradtrack::kernels
