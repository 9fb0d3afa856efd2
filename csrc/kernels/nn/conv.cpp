// Convolution kernels (NOTE [Convolution sides] in conv.h): im2col / col2im
// per sample and group, each product one single-threaded GEMM (blas_gemm:
// our AVX-512 kernel or OpenBLAS). Threads split the batch (NOTE [One thread
// pool]): each sample's GEMMs are small. A stride-1 float32 forward skips the
// im2col matrix where our AVX-512 or AVX2 kernel takes it (implicit_down).
#include "kernels/nn/conv.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <type_traits>
#include <vector>

#include "core/error.h"
#include "kernels/blas.h"
#include "kernels/conv_implicit.h"
#include "kernels/cpu_vendor.h"
#include "kernels/parallel.h"

namespace gradtrack::kernels {

namespace {

// The forward's products sum their depths (input channels by kernel taps)
// in runs of this many, where our AVX-512 GEMM runs (NOTE [Depth blocks] in
// conv_implicit_avx512.cpp): a 3x3 convolution with stride 2 had 1.4-1.5x torch's
// rounding error against a float64 reference with whole 384-depth blocks.
// So do the input gradient's (and a transposed convolution's), whose depths
// are the output channels: with 256-512 of them, whole blocks had 1.27-1.32x
// torch's error, runs of 64 0.70-0.73x, at the same speed within the noise
// (Intel Xeon, one thread, in turns).
constexpr int64_t kConvDepthBlock = 64;

// Row-major C[m, n] = op(A) @ op(B) + beta * C with dense leading dimensions.
template <typename T>
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, const T* b, T beta, T* c,
          int64_t depth_block = 0) {
  blas_gemm<T>(ta, tb, m, n, k, a, ta ? m : k, b, tb ? k : n, beta, c, n, depth_block);
}

// The output columns ow whose input column ow * s + off lies in [0, size).
struct Span {
  int64_t lo, hi;
};
Span valid_span(int64_t off, int64_t s, int64_t size, int64_t count) {
  int64_t lo = off >= 0 ? 0 : (-off + s - 1) / s;
  int64_t hi = size - 1 - off < 0 ? 0 : (size - 1 - off) / s + 1;
  hi = std::min(hi, count);
  return {std::min(lo, hi), hi};
}

// Output rows (depth and height pairs, NOTE [Convolution sides]) of a sample.
int64_t col_rows(const ConvGeom& g) { return g.col_d * g.col_h; }

// The image plane (depth slice) and row that output row r reads at kernel tap
// (a, i); null when either lies in the padding.
template <typename T>
T* source_row(T* plane, const ConvGeom& g, int64_t r, int64_t a, int64_t i) {
  const int64_t od = r / g.col_h, oh = r % g.col_h;
  const int64_t id = od * g.sd - g.pd + a * g.dd, ih = oh * g.sh - g.ph + i * g.dh;
  if (id < 0 || id >= g.img_d || ih < 0 || ih >= g.img_h) return nullptr;
  return plane + (id * g.img_h + ih) * g.img_w;
}

// col[((c * kd + a) * kh + i) * kw + j][(r - r0) * col_w + ow] =
//     image[c][od*sd - pd + a*dd][oh*sh - ph + i*dh][ow*sw - pw + j*dw] for output rows
// r = (od, oh) in [r0, r1); rows are `ld` apart, so several samples can sit side
// by side in one matrix.
template <typename T>
void im2col(const T* img, T* col, int64_t channels, const ConvGeom& g, int64_t ld, int64_t r0,
            int64_t r1) {
  const int64_t volume = g.img_d * g.img_h * g.img_w;
  for (int64_t c = 0; c < channels; ++c) {
    const T* plane = img + c * volume;
    for (int64_t a = 0; a < g.kd; ++a) {
      for (int64_t i = 0; i < g.kh; ++i) {
        for (int64_t j = 0; j < g.kw; ++j) {
          T* row = col + (((c * g.kd + a) * g.kh + i) * g.kw + j) * ld;
          const int64_t off_w = j * g.dw - g.pw;
          const Span sp = valid_span(off_w, g.sw, g.img_w, g.col_w);
          for (int64_t r = r0; r < r1; ++r) {
            T* out = row + (r - r0) * g.col_w;
            const T* line = source_row(plane, g, r, a, i);
            if (!line) {
              std::fill(out, out + g.col_w, T(0));
              continue;
            }
            const T* src = line + off_w;
            std::fill(out, out + sp.lo, T(0));
            if (g.sw == 1) {
              std::memcpy(out + sp.lo, src + sp.lo, sizeof(T) * (sp.hi - sp.lo));
            } else {
              for (int64_t ow = sp.lo; ow < sp.hi; ++ow) out[ow] = src[ow * g.sw];
            }
            std::fill(out + sp.hi, out + g.col_w, T(0));
          }
        }
      }
    }
  }
}

// The adjoint of im2col: image[...] += col[...] at the same positions.
template <typename T>
void col2im(const T* col, T* img, int64_t channels, const ConvGeom& g, int64_t ld, int64_t r0,
            int64_t r1) {
  const int64_t volume = g.img_d * g.img_h * g.img_w;
  for (int64_t c = 0; c < channels; ++c) {
    T* plane = img + c * volume;
    for (int64_t a = 0; a < g.kd; ++a) {
      for (int64_t i = 0; i < g.kh; ++i) {
        for (int64_t j = 0; j < g.kw; ++j) {
          const T* row = col + (((c * g.kd + a) * g.kh + i) * g.kw + j) * ld;
          const int64_t off_w = j * g.dw - g.pw;
          const Span sp = valid_span(off_w, g.sw, g.img_w, g.col_w);
          for (int64_t r = r0; r < r1; ++r) {
            T* line = source_row(plane, g, r, a, i);
            if (!line) continue;
            const T* in = row + (r - r0) * g.col_w;
            T* dst = line + off_w;
            for (int64_t ow = sp.lo; ow < sp.hi; ++ow) dst[ow * g.sw] += in[ow];
          }
        }
      }
    }
  }
}

// A 1x1 kernel with stride 1 and no padding reads the image as its own im2col.
bool is_pointwise(const ConvGeom& g) {
  return g.kd == 1 && g.kh == 1 && g.kw == 1 && g.sd == 1 && g.sh == 1 && g.sw == 1 && g.pd == 0 &&
         g.ph == 0 && g.pw == 0 && g.col_d == g.img_d && g.col_h == g.img_h && g.col_w == g.img_w;
}

// Whether the convolution is planar (depth 1): only those have implicit kernels.
bool is_planar(const ConvGeom& g) { return g.kd == 1 && g.img_d == 1 && g.col_d == 1; }

struct Dims {
  int64_t img_cg, col_cg, k, l, img_plane, w_group;
};
Dims dims_of(const ConvGeom& g) {
  Dims d;
  d.img_cg = g.img_c / g.groups;
  d.col_cg = g.col_c / g.groups;
  d.k = d.img_cg * g.kd * g.kh * g.kw;
  d.l = g.col_d * g.col_h * g.col_w;
  d.img_plane = g.img_d * g.img_h * g.img_w;
  d.w_group = d.col_cg * d.k;
  GT_CHECK(d.k < INT32_MAX && d.l < INT32_MAX && d.col_cg < INT32_MAX,
           "convolution: dimensions too large for 32-bit BLAS");
  return d;
}

// NOTE [Samples per GEMM]
// A small image gives GEMMs too thin for BLAS to be efficient (a 4x4 output
// is 16 columns), so several samples share one product: their im2col blocks
// sit side by side, and the col-side values are gathered/scattered around it.
// Enough columns per product, at least one chunk per thread, bounded scratch.
int64_t samples_per_gemm(const ConvGeom& g, const Dims& d) {
  int64_t nb = std::max<int64_t>(1, (1024 + d.l - 1) / std::max<int64_t>(1, d.l));
  const int64_t threads = std::max(1, get_num_threads());
  nb = std::min(nb, std::max<int64_t>(1, (g.n + threads - 1) / threads));
  while (nb > 1 && d.k * nb * d.l > (int64_t(1) << 22)) --nb;
  return nb;
}

// Whether the batch makes fewer chunks than threads, so that each chunk's
// products split their rows over the threads instead (NOTE [One sample's
// channels over the threads]).
bool split_products(const ConvGeom& g, const Dims& d) {
  const int64_t nb = samples_per_gemm(g, d);
  return (g.n + nb - 1) / nb < get_num_threads() && !in_parallel_region();
}

// NOTE [Convolution row tiles]
// One sample's im2col matrix is k x l: 576 x 1024 floats (2.3 MB) for a
// 64-channel 3x3 layer on 32x32, and 115 MB per thread at 224x224. A chunk of
// one sample is processed in tiles of whole output rows instead, each tile's
// im2col matrix within kTileBytes (about a third of a core's L2), so the
// scratch stays small and im2col's output is still cached when BLAS packs it.
// On the 32x32 layer the time was measured unchanged (the whole matrix fits
// in L3 there); tiles of 128 KB (32 columns) were slower.
constexpr int64_t kTileBytes = int64_t(384) << 10;

// One chunk of samples [first_sample, first_sample + m) and its scratch matrices.
template <typename T>
struct Chunk {
  int64_t first_sample = 0, m = 1, cols = 0;
  int64_t tile_h = 1;       // output rows per tile when m == 1 (NOTE [Convolution row tiles])
  std::vector<T> col, tmp;  // [k, cols] im2col (one tile's when m == 1); [col_cg, cols]
};

// Sets chunk ci's samples and sizes its scratch.
template <typename T>
void prepare(Chunk<T>& c, int64_t ci, int64_t nb, const ConvGeom& g, const Dims& d) {
  c.first_sample = ci * nb;
  c.m = std::min(nb, g.n - c.first_sample);
  c.cols = c.m * d.l;
  const int64_t row_bytes = int64_t(sizeof(T)) * d.k * std::max<int64_t>(1, g.col_w);
  c.tile_h = std::clamp<int64_t>(kTileBytes / row_bytes, 1, std::max<int64_t>(1, col_rows(g)));
  const int64_t col_cols = c.m > 1 ? c.cols : std::min(c.cols, c.tile_h * g.col_w);
  c.col.resize(static_cast<size_t>(d.k * col_cols));
  if (c.m > 1) c.tmp.resize(static_cast<size_t>(d.col_cg * c.cols));
}

// Whether a whole convolution is worth releasing the GIL for.
bool release_gil(const ConvGeom& g, const Dims& d) {
  return g.n * g.col_c * d.k * d.l >= kReleaseGilAbove && !in_parallel_region();
}

// Runs f(chunk) over the batch in chunks, threads over chunks.
template <typename T, typename F>
void over_chunks(const ConvGeom& g, const Dims& d, const F& f) {
  const int64_t nb = samples_per_gemm(g, d);
  const int64_t chunks = (g.n + nb - 1) / nb;
  ScopedGilRelease gil(release_gil(g, d));
  parallel_for(chunks, 1, [&](int64_t lo, int64_t hi) {
    Chunk<T> c;
    for (int64_t ci = lo; ci < hi; ++ci) {
      prepare(c, ci, nb, g, d);
      f(c);
    }
  });
}

// Calls f(oh0, oh1, cols) for the chunk's row tiles (NOTE [Convolution row tiles]).
template <typename T, typename F>
void over_tiles(const Chunk<T>& c, const ConvGeom& g, const F& f) {
  for (int64_t oh0 = 0; oh0 < col_rows(g); oh0 += c.tile_h) {
    const int64_t oh1 = std::min(col_rows(g), oh0 + c.tile_h);
    f(oh0, oh1, (oh1 - oh0) * g.col_w);
  }
}

// f(r0, r1) over rows [0, rows) of a product: over the threads with `split`
// (fewer chunks than threads: NOTE [One sample's channels over the threads]).
template <typename F>
void product_rows(int64_t rows, bool split, const F& f) {
  if (split) return parallel_for(rows, 8, f);
  f(0, rows);
}

// The three products of one sample (chunk of one) and group, tile by tile; with
// `split` each tile's product has its rows over the threads. The GEMM kernel is
// chosen by shape, so, as with samples per product (NOTE [Samples per GEMM]),
// the last bits may follow the thread count.
template <typename T>
void down_tiled(Chunk<T>& c, T* col, const T* img, const T* w, int64_t grp, const ConvGeom& g,
                const Dims& d, bool split) {
  const T* src = img + (c.first_sample * g.img_c + grp * d.img_cg) * d.img_plane;
  T* dst = col + (c.first_sample * g.col_c + grp * d.col_cg) * d.l;
  over_tiles(c, g, [&](int64_t oh0, int64_t oh1, int64_t cols) {
    im2col(src, c.col.data(), d.img_cg, g, cols, oh0, oh1);
    product_rows(d.col_cg, split, [&](int64_t o0, int64_t o1) {
      blas_gemm<T>(false, false, o1 - o0, cols, d.k, w + grp * d.w_group + o0 * d.k, d.k,
                   c.col.data(), cols, T(0), dst + o0 * d.l + oh0 * g.col_w, d.l, kConvDepthBlock);
    });
  });
}
template <typename T>
void up_tiled(Chunk<T>& c, T* img, const T* col, const T* w, int64_t grp, const ConvGeom& g,
              const Dims& d, bool split) {
  const T* src = col + (c.first_sample * g.col_c + grp * d.col_cg) * d.l;
  T* dst = img + (c.first_sample * g.img_c + grp * d.img_cg) * d.img_plane;
  over_tiles(c, g, [&](int64_t oh0, int64_t oh1, int64_t cols) {
    product_rows(d.k, split, [&](int64_t r0, int64_t r1) {
      blas_gemm<T>(true, false, r1 - r0, cols, d.col_cg, w + grp * d.w_group + r0, d.k,
                   src + oh0 * g.col_w, d.l, T(0), c.col.data() + r0 * cols, cols, kConvDepthBlock);
    });
    col2im(c.col.data(), dst, d.img_cg, g, cols, oh0, oh1);
  });
}
template <typename T>
void wgrad_tiled(Chunk<T>& c, T* acc, const T* col, const T* img, int64_t grp, const ConvGeom& g,
                 const Dims& d, bool split) {
  const T* src = img + (c.first_sample * g.img_c + grp * d.img_cg) * d.img_plane;
  const T* cv = col + (c.first_sample * g.col_c + grp * d.col_cg) * d.l;
  over_tiles(c, g, [&](int64_t oh0, int64_t oh1, int64_t cols) {
    im2col(src, c.col.data(), d.img_cg, g, cols, oh0, oh1);
    product_rows(d.col_cg, split, [&](int64_t o0, int64_t o1) {
      blas_gemm<T>(false, true, o1 - o0, d.k, cols, cv + o0 * d.l + oh0 * g.col_w, d.l,
                   c.col.data(), cols, T(1), acc + o0 * d.k, d.k);
    });
  });
}

// Copies group grp's col-side values of the chunk between the tensor
// ([n, col_c, l]) and the [col_cg, m * l] matrix.
template <typename T>
void gather(T* tmp, const T* col, const Chunk<T>& c, int64_t grp, const ConvGeom& g,
            const Dims& d) {
  for (int64_t s = 0; s < c.m; ++s)
    for (int64_t o = 0; o < d.col_cg; ++o)
      std::memcpy(tmp + o * c.cols + s * d.l,
                  col + ((c.first_sample + s) * g.col_c + grp * d.col_cg + o) * d.l,
                  sizeof(T) * d.l);
}
template <typename T>
void scatter(T* col, const T* tmp, const Chunk<T>& c, int64_t grp, const ConvGeom& g,
             const Dims& d) {
  for (int64_t s = 0; s < c.m; ++s)
    for (int64_t o = 0; o < d.col_cg; ++o)
      std::memcpy(col + ((c.first_sample + s) * g.col_c + grp * d.col_cg + o) * d.l,
                  tmp + o * c.cols + s * d.l, sizeof(T) * d.l);
}

// The chunk's im2col matrix of group grp (or the image itself, pointwise).
template <typename T>
const T* chunk_im2col(Chunk<T>& c, const T* img, int64_t grp, const ConvGeom& g, const Dims& d,
                      bool pw) {
  const T* first = img + (c.first_sample * g.img_c + grp * d.img_cg) * d.img_plane;
  if (pw && c.m == 1) return first;
  for (int64_t s = 0; s < c.m; ++s)
    im2col(img + ((c.first_sample + s) * g.img_c + grp * d.img_cg) * d.img_plane,
           c.col.data() + s * d.l, d.img_cg, g, c.cols, 0, col_rows(g));
  return c.col.data();
}

// col = W @ im2col(image) for the chunk's samples and group grp.
template <typename T>
void down_group(Chunk<T>& c, T* col, const T* img, const T* w, int64_t grp, const ConvGeom& g,
                const Dims& d, bool pw, bool split) {
  if (c.m == 1 && !pw) return down_tiled(c, col, img, w, grp, g, d, split);
  const T* src = chunk_im2col(c, img, grp, g, d, pw);
  T* dst = c.m > 1 ? c.tmp.data() : col + (c.first_sample * g.col_c + grp * d.col_cg) * d.l;
  gemm<T>(false, false, d.col_cg, c.cols, d.k, w + grp * d.w_group, src, T(0), dst,
          kConvDepthBlock);
  if (c.m > 1) scatter(col, c.tmp.data(), c, grp, g, d);
}

// col rows of the chunk's samples in group grp += their channel's bias: right
// after the chunk's product, while its output is still in cache (a separate
// pass over the whole output afterwards read it back from memory).
// Samples [first_sample, first_sample + m).
template <typename T>
void add_bias_rows(T* col, const T* bias, int64_t first_sample, int64_t m, int64_t grp,
                   const ConvGeom& g, const Dims& d) {
  for (int64_t s = 0; s < m; ++s)
    for (int64_t o = 0; o < d.col_cg; ++o) {
      T* row = col + ((first_sample + s) * g.col_c + grp * d.col_cg + o) * d.l;
      const T v = bias[grp * d.col_cg + o];
      for (int64_t i = 0; i < d.l; ++i) row[i] += v;
    }
}

// The kernel for one stride-1 float32 product without an im2col matrix: our
// AVX-512 one (NOTE [Implicit im2col] in conv_implicit_avx512.cpp) where it runs and
// takes the product, else the AVX2 one (NOTE [Implicit im2col on AVX2]) where
// its mode lets it (avx2_mode_takes); null where neither applies.
bool avx2_mode_takes(const ImplicitConv& ic) {
  switch (conv_implicit_avx2_mode()) {
    case ImplicitAvx2::kAlways: return true;
    case ImplicitAvx2::kWhereWins:
      return implicit_avx2_wins(ic.oc, ic.oh, ic.ow, ic.ic * ic.kh * ic.kw);
    default: return false;
  }
}

// NOTE [Narrow images take im2col]
// The AVX-512 kernel computes whole tiles of 32 output columns, so an output 14
// wide wastes 18 of every 32 lanes and one 7 wide 25. On an Intel Xeon (AVX-512,
// 2 threads, quiet; forward of a 3x3 layer, channels in = out, batch 8) it took
// 25 ms at 256 channels on 14x14 and 49 ms at 512 on 7x7, against 12 and 14 ms
// for im2col and our GEMM (torch: 8.3 and 6.2), while at 28 (128 channels) and 56
// (64) wide it stayed level with im2col. So it takes a product only where the
// tiles are at least three quarters full.
bool tiles_filled(int64_t ow) {
  const int64_t tiles = (ow + kImplicitColsAvx512 - 1) / kImplicitColsAvx512;
  return 4 * ow >= 3 * kImplicitColsAvx512 * tiles;
}

using ImplicitKernel = void (*)(const float*, const float*, float*, const ImplicitConv&);
ImplicitKernel implicit_kernel(const ImplicitConv& ic) {
  if (use_gemm_avx512())
    return gemm_avx512_wins<float>(ic.oc, ic.oh * ic.ow, ic.ic * ic.kh * ic.kw) &&
                   tiles_filled(ic.ow)
               ? conv_implicit_avx512
               : nullptr;
  return avx2_mode_takes(ic) ? conv_implicit_avx2 : nullptr;
}

// Runs `kernel` on every (sample, group) pair, threads taking the pairs in
// turn (NOTE [Items taken in turn] in parallel.h; each pair writes only its
// own output, so the bits do not depend on which thread ran it):
// out (dense [n, groups * ic.oc, oh, ow]) from in (dense [n, groups * ic.ic,
// ih, iw]), group grp's weights at w + grp * w_group; then after(s, grp).
//
// NOTE [One sample's channels over the threads]
// With fewer pairs than threads (batch 1, one group) a pair took one thread and
// the other waited: the 64->64 3x3 layer on 32x32 at batch 1, forward plus
// backward, ran at 1.83x torch's time on 2 threads. Then each pair's output
// channels are split in parts of the kernel's row block (kImplicitRowsAvx512 or
// kImplicitRowsAvx2), taken in turn; every output gets the sums it gets whole.
//
// NOTE [Equal channel parts on Intel]
// 64 channels in parts of 14 rows are five parts: one thread took three (36
// rows against 28), and each part built tables of its own. On Intel the
// AVX-512 kernel's parts are instead one per thread, of an even row count (32
// and 32), each in balanced row tiles (NOTE [Balanced row tiles] in
// gemm_avx512.cpp); the bits stay the same. The benchmark layer at batch 1 on
// 2 threads (Intel Xeon, Emerald Rapids; in turns, medians of 21 rounds, four
// runs on a noisy host): forward 0.88-1.11x the time of parts of 14 rows,
// input gradient 0.89-0.99x; against four parts of 16 rows taken in turn,
// 0.94-0.98x and 0.95-1.06x.
int64_t implicit_part_rows(ImplicitKernel kernel, int64_t oc) {
  if (kernel != conv_implicit_avx512) return kImplicitRowsAvx2;
  if (!cpu_is_intel()) return kImplicitRowsAvx512;
  const int64_t threads = get_num_threads();
  return ((oc + threads - 1) / threads + 1) / 2 * 2;
}

template <typename After>
void implicit_pairs(ImplicitKernel kernel, const ImplicitConv& ic, float* out, const float* in,
                    const float* w, int64_t w_group, const ConvGeom& g, const Dims& d,
                    const After& after) {
  const int64_t in_plane = ic.ih * ic.iw, out_plane = ic.oh * ic.ow;
  ScopedGilRelease gil(release_gil(g, d));
  const int64_t pairs = g.n * g.groups;
  if (pairs < get_num_threads() && !in_parallel_region()) {
    const int64_t step = implicit_part_rows(kernel, ic.oc);
    const int64_t depth = ic.ic * ic.kh * ic.kw;
    for (int64_t t = 0; t < pairs; ++t) {
      const int64_t s = t / g.groups, grp = t % g.groups;
      parallel_items((ic.oc + step - 1) / step, [&](int64_t part) {
        ImplicitConv rows = ic;
        const int64_t o0 = part * step;
        rows.oc = std::min(step, ic.oc - o0);
        kernel(w + grp * w_group + o0 * depth, in + ((s * g.groups + grp) * ic.ic) * in_plane,
               out + ((s * g.groups + grp) * ic.oc + o0) * out_plane, rows);
      });
      after(s, grp);
    }
    return;
  }
  const auto item = [&](int64_t t) {
    const int64_t s = t / g.groups, grp = t % g.groups;
    kernel(w + grp * w_group, in + ((s * g.groups + grp) * ic.ic) * in_plane,
           out + ((s * g.groups + grp) * ic.oc) * out_plane, ic);
    after(s, grp);
  };
  parallel_items(g.n * g.groups, item);
}

// The forward's product as the implicit kernels see it; false where they do
// not apply (a stride other than 1, or a 1x1 kernel that needs no im2col).
bool implicit_forward(const ConvGeom& g, const Dims& d, ImplicitConv& ic) {
  if (g.sh != 1 || g.sw != 1 || is_pointwise(g) || !is_planar(g)) return false;
  ic = {d.col_cg, d.img_cg, g.img_h, g.img_w, g.kh, g.kw, g.ph, g.pw, g.dh, g.dw, g.col_h, g.col_w};
  return true;
}

// The forward of a stride-1 float32 convolution without an im2col matrix
// where a kernel takes it. False if none does.
template <typename T>
bool implicit_down(T* col, const T* img, const T* w, const T* bias, const ConvGeom& g,
                   const Dims& d) {
  if constexpr (!std::is_same_v<T, float>) {
    return false;
  } else {
    ImplicitConv ic;
    if (!implicit_forward(g, d, ic)) return false;
    const ImplicitKernel kernel = implicit_kernel(ic);
    if (!kernel) return false;
    implicit_pairs(kernel, ic, col, img, w, d.w_group, g, d, [&](int64_t s, int64_t grp) {
      if (bias) add_bias_rows(col, bias, s, 1, grp, g, d);
    });
    return true;
  }
}

// NOTE [Input gradient as a convolution]
// With stride 1, image = col2im(W^T @ col) is itself a stride-1 convolution:
// of col, padded by (kh - 1) dh - ph rows and (kw - 1) dw - pw columns, with
// each group's weights transposed (image channels become the output ones)
// and flipped in both kernel directions, the dilation unchanged. Where the
// padding is not negative (ph <= (kh - 1) dh: "same" and "valid" layers) the
// implicit kernels compute it without the im2col-sized matrix and the col2im
// pass (only when the image is overwritten, not added to). On the benchmark
// layer (64->64 3x3 on 32x32, batch 16), forward plus backward, paired with
// im2col + GEMM + col2im in one process: AVX2 kernel on Zen 3, 0.89-0.93x
// (0.97-0.98x with the forward alone implicit); AVX-512 kernel on Zen 4,
// 0.95-0.97x.
template <typename T>
bool implicit_up(T* img, const T* col, const T* w, const ConvGeom& g, const Dims& d, bool zero) {
  if constexpr (!std::is_same_v<T, float>) {
    return false;
  } else {
    const int64_t ph = (g.kh - 1) * g.dh - g.ph, pw = (g.kw - 1) * g.dw - g.pw;
    if (!zero || g.sh != 1 || g.sw != 1 || is_pointwise(g) || !is_planar(g) || ph < 0 || pw < 0)
      return false;
    const ImplicitConv ic{d.img_cg, d.col_cg, g.col_h, g.col_w, g.kh,    g.kw,
                          ph,       pw,       g.dh,    g.dw,    g.img_h, g.img_w};
    const ImplicitKernel kernel = implicit_kernel(ic);
    if (!kernel) return false;
    // flipped[grp][c][o][i][j] = w[grp][o][c][kh - 1 - i][kw - 1 - j]
    const int64_t taps = g.kh * g.kw;
    std::vector<float> flipped(static_cast<size_t>(g.groups * d.w_group));
    for (int64_t grp = 0; grp < g.groups; ++grp)
      for (int64_t o = 0; o < d.col_cg; ++o)
        for (int64_t c = 0; c < d.img_cg; ++c)
          for (int64_t t = 0; t < taps; ++t)
            flipped[size_t(grp * d.w_group + (c * d.col_cg + o) * taps + taps - 1 - t)] =
                w[grp * d.w_group + (o * d.img_cg + c) * taps + t];
    implicit_pairs(kernel, ic, img, col, flipped.data(), d.w_group, g, d, [](int64_t, int64_t) {});
    return true;
  }
}

template <typename T>
void down_impl(T* col, const T* img, const T* w, const T* bias, const ConvGeom& g) {
  const Dims d = dims_of(g);
  if (implicit_down(col, img, w, bias, g, d)) return;
  const bool pw = is_pointwise(g), split = split_products(g, d);
  over_chunks<T>(g, d, [&](Chunk<T>& c) {
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      down_group(c, col, img, w, grp, g, d, pw, split);
      if (bias) add_bias_rows(col, bias, c.first_sample, c.m, grp, g, d);
    }
  });
}

template <typename T>
void up_impl(T* img, const T* col, const T* w, const ConvGeom& g, bool zero) {
  const Dims d = dims_of(g);
  if (implicit_up(img, col, w, g, d, zero)) return;
  const bool pw = is_pointwise(g) && samples_per_gemm(g, d) == 1, split = split_products(g, d);
  over_chunks<T>(g, d, [&](Chunk<T>& c) {
    // Each thread zeroes its own samples just before adding into them: cached
    // for the adds, and no serial pass over the whole image first.
    if (zero) {
      T* first = img + c.first_sample * g.img_c * d.img_plane;
      std::fill(first, first + c.m * g.img_c * d.img_plane, T(0));
    }
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      if (c.m == 1 && !pw) {
        up_tiled(c, img, col, w, grp, g, d, split);
        continue;
      }
      const T* src = col + (c.first_sample * g.col_c + grp * d.col_cg) * d.l;
      if (c.m > 1) {
        gather(c.tmp.data(), col, c, grp, g, d);
        src = c.tmp.data();
      }
      T* first = img + (c.first_sample * g.img_c + grp * d.img_cg) * d.img_plane;
      if (pw) {  // the image is its own column matrix
        gemm<T>(true, false, d.k, c.cols, d.col_cg, w + grp * d.w_group, src, T(1), first,
                kConvDepthBlock);
        continue;
      }
      gemm<T>(true, false, d.k, c.cols, d.col_cg, w + grp * d.w_group, src, T(0), c.col.data(),
              kConvDepthBlock);
      for (int64_t s = 0; s < c.m; ++s)
        col2im(c.col.data() + s * d.l,
               img + ((c.first_sample + s) * g.img_c + grp * d.img_cg) * d.img_plane, d.img_cg, g,
               c.cols, 0, col_rows(g));
    }
  });
}

// gw (dense, groups * w_group weights) = the sum over `items` work items,
// f(acc, lo, hi) adding items [lo, hi) into a thread's zeroed buffer acc.
// Each thread has its own buffer; the buffers are added at the end, so no two
// threads write one weight.
template <typename T, typename F>
void sum_per_thread(T* gw, int64_t items, const ConvGeom& g, const Dims& d, const F& f) {
  const int64_t wsize = g.groups * d.w_group;
  std::fill(gw, gw + wsize, T(0));
  std::mutex lock;
  ScopedGilRelease gil(release_gil(g, d));
  parallel_for(items, 1, [&](int64_t lo, int64_t hi) {
    std::vector<T> acc(static_cast<size_t>(wsize), T(0));
    f(acc.data(), lo, hi);
    std::lock_guard<std::mutex> guard(lock);
    for (int64_t i = 0; i < wsize; ++i) gw[i] += acc[size_t(i)];
  });
}

// NOTE [Weight gradient on Zen 4]
// With our AVX-512 GEMM, the weight gradient was im2col + GEMM, whose packing
// transposes each tile of the im2col matrix once more. A Zen 4 runs each
// 512-bit FMA as two 256-bit halves, so the AVX2 kernel (NOTE [Weight gradient
// on AVX2]) does as many FLOPs per cycle there, with no im2col matrix. So on
// Zen 4 the AVX2 mode is where-it-wins by default and the weight gradient
// follows it, on the 512-bit tiles of conv_wgrad_implicit_avx512 while our
// AVX-512 GEMM is on (else on the AVX2 ones); the forward and input gradient
// keep the AVX-512 kernel. The benchmark layer's forward plus weight gradient,
// in turns with im2col + GEMM on 2 threads: AVX2 tiles 0.98x (median of seven
// runs, 0.96-1.06), 512-bit tiles with gy transposed 16 pixels at a time
// 0.97x (two runs), and with gy transposed in 8 x 8 blocks 0.91-0.93x (two
// runs; the weight gradient alone ~0.85x). AVX-512 cores with full-width
// units have not been measured: there the mode stays off.

// NOTE [Weight gradient on Intel]
// On an Intel Xeon (Emerald Rapids, AVX-512 with two full-width FMA units)
// the weight gradient takes the 512-bit tiles too, where the AVX2 mode lets
// it (where-it-wins by default there, as on Zen 4, and then only where NOTE
// [Weight gradient on Intel: where] says), each weight summing its
// pixels in runs (NOTE [Weight gradient in pixel runs]). With fewer (sample,
// group) pairs than threads (batch 1) the tiles of one pair go over the
// threads; im2col + GEMM split each row tile's product instead. The benchmark
// layer's weight gradient alone, in turns with im2col + our GEMM (medians of
// 11 rounds, busy host): one thread 0.77-0.84x at batch 1-64; two threads
// 0.31x at batch 1, 0.76-0.88x at 4-64. Its error against a float64
// reference fell from 2.6e-7 to 1.7e-7 (batch 16; torch 1.6e-6).

// NOTE [Weight gradient on Intel: where]
// The tiles transpose gy once per sample and read all of it once per tile of
// 14 depths. In turns with im2col + our GEMM (weight gradient alone, one
// thread, same Xeon) they lost where the transposed gy left L2 (64->64 on
// 128 x 128, 4 MB: 1.39x; 32->64 on 96 x 96, 2.4 MB: 1.27x) and where few
// depths left the transposition most of the work (3->64, 27 depths: 1.26x on
// 64 x 64, 2.1-2.3x on 112-224); they won at 144-576 depths with it at most
// 2 MB (16->16 on 64 x 64 and 128 x 128: 0.64x and 0.82x, 64->64 on 16 x 16
// to 64 x 64: 0.59-0.80x). So where the mode is where-it-wins they take those.
bool intel_wgrad_wins(const ImplicitConv& ic) {
  const int64_t ldt = (ic.oc + 31) / 32 * 32;  // gy's row in the transposition
  return ic.ic * ic.kh * ic.kw >= 128 &&
         ic.oh * ic.ow * ldt * int64_t(sizeof(float)) <= (int64_t(2) << 20);
}

// The weight gradient of a stride-1 float32 convolution without an im2col
// matrix, where the AVX2 mode lets its kernel take the product (NOTE [Weight
// gradient on AVX2]); threads split the (sample, group) pairs, or with fewer
// pairs than threads on full-width AVX-512 each pair's tiles. False if it does
// not apply.
template <typename T>
bool implicit_wgrad(T* gw, const T* col, const T* img, const ConvGeom& g, const Dims& d) {
  if constexpr (!std::is_same_v<T, float>) {
    return false;
  } else {
    ImplicitConv ic;
    if (!implicit_forward(g, d, ic) || !avx2_mode_takes(ic)) return false;
    const bool ours = use_gemm_avx512(), runs = ours && !avx512_in_halves();
    if (runs && conv_implicit_avx2_mode() == ImplicitAvx2::kWhereWins && !intel_wgrad_wins(ic))
      return false;
    const auto pair = [&](float* acc, int64_t t, bool split) {
      const int64_t s = t / g.groups, grp = t % g.groups;
      const float* gy = col + (s * g.col_c + grp * d.col_cg) * d.l;
      const float* x = img + (s * g.img_c + grp * d.img_cg) * d.img_plane;
      if (ours)
        conv_wgrad_implicit_avx512(gy, x, acc + grp * d.w_group, ic, runs, split);
      else
        conv_wgrad_implicit_avx2(gy, x, acc + grp * d.w_group, ic);
    };
    const int64_t pairs = g.n * g.groups;
    if (runs && pairs < get_num_threads() && !in_parallel_region()) {
      std::fill(gw, gw + g.groups * d.w_group, 0.0f);
      ScopedGilRelease gil(release_gil(g, d));
      for (int64_t t = 0; t < pairs; ++t) pair(gw, t, true);
      return true;
    }
    sum_per_thread(gw, pairs, g, d, [&](float* acc, int64_t lo, int64_t hi) {
      for (int64_t t = lo; t < hi; ++t) pair(acc, t, false);
    });
    return true;
  }
}

template <typename T>
void wgrad_impl(T* gw, const T* col, const T* img, const ConvGeom& g) {
  const Dims d = dims_of(g);
  if (implicit_wgrad(gw, col, img, g, d)) return;
  const bool pw = is_pointwise(g);
  const int64_t nb = samples_per_gemm(g, d);
  const int64_t chunks = (g.n + nb - 1) / nb;
  const bool split = split_products(g, d);
  sum_per_thread(gw, chunks, g, d, [&](T* acc, int64_t lo, int64_t hi) {
    Chunk<T> c;
    for (int64_t ci = lo; ci < hi; ++ci) {
      prepare(c, ci, nb, g, d);
      for (int64_t grp = 0; grp < g.groups; ++grp) {
        if (c.m == 1 && !pw) {
          wgrad_tiled(c, acc + grp * d.w_group, col, img, grp, g, d, split);
          continue;
        }
        const T* src = chunk_im2col(c, img, grp, g, d, pw);
        const T* cv = col + (c.first_sample * g.col_c + grp * d.col_cg) * d.l;
        if (c.m > 1) {
          gather(c.tmp.data(), col, c, grp, g, d);
          cv = c.tmp.data();
        }
        gemm<T>(false, true, d.col_cg, d.k, c.cols, cv, src, T(1), acc + grp * d.w_group);
      }
    }
  });
}

template <typename F>
void dispatch(const Tensor& t, const char* name, const F& f) {
  switch (t.dtype()) {
    case ScalarType::Float32: return f(float{});
    case ScalarType::Float64: return f(double{});
    default:
      throw NotImplementedError(
          str_cat("\"", name, "\" not implemented for '", scalar_type_name(t.dtype()), "'"));
  }
}

}  // namespace

void conv_down(const Tensor& col, const Tensor& image, const Tensor& weight, const ConvGeom& g,
               const Tensor* bias) {
  if (col.numel() == 0) return;
  dispatch(col, "conv", [&](auto tag) {
    using T = decltype(tag);
    down_impl<T>(col.data<T>(), image.data<T>(), weight.data<T>(), bias ? bias->data<T>() : nullptr,
                 g);
  });
}

void conv_up(const Tensor& image, const Tensor& col, const Tensor& weight, const ConvGeom& g,
             bool zero) {
  if (image.numel() == 0) return;
  dispatch(image, "conv", [&](auto tag) {
    using T = decltype(tag);
    T* img = image.data<T>();
    if (col.numel() == 0) {
      if (zero) std::fill(img, img + image.numel(), T(0));
      return;
    }
    up_impl<T>(img, col.data<T>(), weight.data<T>(), g, zero);
  });
}

void conv_wgrad(const Tensor& gw, const Tensor& col, const Tensor& image, const ConvGeom& g) {
  if (gw.numel() == 0) return;
  dispatch(gw, "conv", [&](auto tag) {
    using T = decltype(tag);
    if (col.numel() == 0) {
      std::fill(gw.data<T>(), gw.data<T>() + gw.numel(), T(0));
      return;
    }
    wgrad_impl<T>(gw.data<T>(), col.data<T>(), image.data<T>(), g);
  });
}

}  // namespace gradtrack::kernels
