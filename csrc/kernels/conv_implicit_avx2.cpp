// NOTE [Implicit im2col on AVX2]
// The AVX2 form of NOTE [Implicit im2col] (conv_implicit_avx512.cpp), for CPUs without
// AVX-512 (measured on an AMD EPYC, Zen 3). A tile is 16 output columns of one
// output row, two 8-float vectors, and the microkernel keeps 6 rows of w by
// those 16 columns in 12 of the 16 ymm registers. Its b operand, per depth
// p = (c kh + i) kw + j, is 16 consecutive pixels of one image row. Instead
// of masked loads (AVX2's take a vector mask per load, which a table would
// have to carry for every depth), the sample's image is first copied into a
// zero-bordered one (ph rows above and below, pw columns left, enough right
// that a tile's 16 lanes never leave a row): then every depth's pixels lie at
// a fixed offset from the tile's corner, one table of k offsets serves every
// tile, and every load is an unmasked one inside the copy. Lanes past the
// tile's last column read the border or the next pixels, and their sums are
// dropped. The copy is the image and its border, once (a 64-channel 32x32
// image: 418 KB, rows rounded to and aligned at 64 bytes so that a tile's
// first depth of each row reads whole cache lines); im2col wrote nine times
// the image. A first version that built a table of pointers per tile,
// copying the 16 pixels of each depth that crossed the image's edge, spent a
// quarter of the forward on tables. Measured on the benchmark layer (64->64
// 3x3 on 32x32, batch 16), paired with im2col + OpenBLAS in one process:
// 0.87x on one thread and on two; the microkernel runs at ~80% of the FMA
// loop. Letting 1 to 16 tiles share each block of w made no difference.
#include "kernels/conv_implicit.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <utility>
#include <vector>

#include "kernels/cpu_vendor.h"
#include "kernels/gemm_avx512.h"
#include "kernels/parallel.h"

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define GT_CONV_AVX2 1
#include <immintrin.h>
#else
#define GT_CONV_AVX2 0
#endif

namespace gradtrack::kernels {

namespace {

constexpr int kCols = 16;  // output columns per tile
constexpr int kRows = 6;   // rows of w per microkernel call
static_assert(kRows == kImplicitRowsAvx2, "conv_implicit.h names this kernel's row block");

std::atomic<int> g_mode{-1};  // -1: the default for this CPU

}  // namespace

bool conv_implicit_avx2_available() {
#if GT_CONV_AVX2
  static const bool ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return ok;
#else
  return false;
#endif
}

ImplicitAvx2 conv_implicit_avx2_mode() {
  if (!conv_implicit_avx2_available()) return ImplicitAvx2::kNever;
  const int v = g_mode.load(std::memory_order_relaxed);
  if (v >= 0) return ImplicitAvx2(v);
  return gemm_avx512_available() && !avx512_in_halves() && !cpu_is_intel()
             ? ImplicitAvx2::kNever
             : ImplicitAvx2::kWhereWins;
}

void set_conv_implicit_avx2_mode(ImplicitAvx2 mode) {
  g_mode.store(int(mode), std::memory_order_relaxed);
}

bool implicit_avx2_wins(int64_t oc, int64_t oh, int64_t ow, int64_t k) {
  // NOTE [Implicit im2col on AVX2: where]
  // Paired with im2col + OpenBLAS on 2 threads (Zen 3): faster at 16-224
  // columns when the output width fills its 16-column tiles (64->64 3x3 on
  // 32x32: 0.87x, 16->16 on 64x64: 0.59x, 32->32 5x5 on 32x32: 0.63x, 3->64
  // on 224x224: 0.93x), slower where the last tile is mostly empty lanes
  // (width 8: 1.28x, 14: 1.18x, 28: 1.02-1.05x). So: at most 1/8 of the
  // lanes wasted, and the product at least 2^21 multiply-adds (the AVX-512
  // kernel's floor, not measured apart for this one).
  const int64_t lanes = (ow + kCols - 1) / kCols * kCols;
  const double madds = double(oc) * double(oh * ow) * double(k);
  return lanes * 8 <= ow * 9 && madds >= double(int64_t(1) << 21);
}

#if GT_CONV_AVX2
namespace {

#define GT_V3 __attribute__((target("avx2,fma")))

// Depths summed in registers before a run is added into c (NOTE [Depth
// blocks] in conv_implicit_avx512.cpp).
constexpr int64_t kDepthBlock = 64;

// c[r][0, cols) = sum over p of a[r * as + p] * b[off[p]: off[p] + cols) for r < R.
template <int R>
GT_V3 void micro(int64_t k, const float* __restrict a, int64_t as, const float* b,
                 const int64_t* off, float* c, int64_t ldc, int cols) {
  __m256 c0[R], c1[R];
  alignas(32) float part[R][kCols];  // runs' sums so far (as micro_table's)
  for (int64_t p0 = 0; p0 == 0 || p0 < k; p0 += kDepthBlock) {
    const int64_t p1 = std::min(k, p0 + kDepthBlock);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) c0[r] = c1[r] = _mm256_setzero_ps();
#pragma GCC unroll 4
    for (int64_t p = p0; p < p1; ++p) {
      const float* src = b + off[p];
      const __m256 b0 = _mm256_loadu_ps(src), b1 = _mm256_loadu_ps(src + 8);
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) {
        const __m256 av = _mm256_broadcast_ss(a + r * as + p);
        c0[r] = _mm256_fmadd_ps(av, b0, c0[r]);
        c1[r] = _mm256_fmadd_ps(av, b1, c1[r]);
      }
    }
    if (p0 == 0 && p1 >= k) break;  // one run: straight to c
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      if (p0 > 0) {
        c0[r] = _mm256_add_ps(_mm256_load_ps(part[r]), c0[r]);
        c1[r] = _mm256_add_ps(_mm256_load_ps(part[r] + 8), c1[r]);
      }
      if (p1 < k) {
        _mm256_store_ps(part[r], c0[r]);
        _mm256_store_ps(part[r] + 8, c1[r]);
      }
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    float* dst = c + r * ldc;
    if (cols == kCols) {
      _mm256_storeu_ps(dst, c0[r]);
      _mm256_storeu_ps(dst + 8, c1[r]);
    } else {
      alignas(32) float row[kCols];
      _mm256_store_ps(row, c0[r]);
      _mm256_store_ps(row + 8, c1[r]);
      std::memcpy(dst, row, sizeof(float) * size_t(cols));
    }
  }
}

using MicroFn = void (*)(int64_t, const float*, int64_t, const float*, const int64_t*, float*,
                         int64_t, int);

template <int... R>
MicroFn micro_for(int rows, std::integer_sequence<int, R...>) {
  constexpr MicroFn k[] = {micro<R + 1>...};
  return k[rows - 1];
}

// The sample's image copied with its zero border (NOTE [Implicit im2col on
// AVX2]) into a per-thread buffer, and the offset of each depth's first pixel
// from an output pixel's corner.
struct Bordered {
  const float* base;  // bordered (0, 0): image row -ph, column -pw
  int64_t rows, cols;
  const int64_t* off;  // k offsets
};

Bordered bordered_copy(const float* img, const ImplicitConv& g) {
  const int64_t per_row = (g.ow + kCols - 1) / kCols;
  // Columns [-pw, right) of the image: a tile's 16 lanes never leave a row.
  const int64_t right = std::max(g.iw, (per_row - 1) * kCols - g.pw + (g.kw - 1) * g.dw + kCols);
  const int64_t rows = g.ih + 2 * g.ph, cols = (g.pw + right + 15) / 16 * 16;
  thread_local std::vector<float> buffer;
  thread_local std::vector<int64_t> off;
  // 64-byte aligned rows: a tile's first depth of each row reads whole cache lines.
  buffer.assign(static_cast<size_t>(g.ic * rows * cols + kCols), 0.0f);
  float* const base =
      buffer.data() + (-(reinterpret_cast<uintptr_t>(buffer.data()) / sizeof(float)) & (kCols - 1));
  for (int64_t c = 0; c < g.ic; ++c)
    for (int64_t y = 0; y < g.ih; ++y)
      std::memcpy(base + (c * rows + g.ph + y) * cols + g.pw, img + (c * g.ih + y) * g.iw,
                  sizeof(float) * size_t(g.iw));
  off.resize(static_cast<size_t>(g.ic * g.kh * g.kw));
  for (int64_t c = 0, p = 0; c < g.ic; ++c)
    for (int64_t i = 0; i < g.kh; ++i)
      for (int64_t j = 0; j < g.kw; ++j, ++p)
        off[size_t(p)] = (c * rows + i * g.dh) * cols + j * g.dw;
  return {base, rows, cols, off.data()};
}

// NOTE [Weight gradient on AVX2]
// gw[o][p] += sum over output pixels (y, x) of gy[o][y][x] * (pixel of depth
// p seen from (y, x)) = bordered[off[p] + y cols + x]. A tile is 6 depths by
// 16 output channels: per pixel, 6 broadcasts from the bordered copy and two
// 8-channel loads from gy transposed to [pixel][channel] (zero-padded to 16
// channels), 12 multiply-adds into registers; each tile runs over every
// pixel before adding its 96 sums into gw. No im2col matrix is written.
// Benchmark layer, forward plus weight gradient, paired with im2col +
// OpenBLAS on one thread: 0.87-0.92x (the forward alone: 0.87x). Transposing
// gy pixel by pixel instead of channel by channel measured 0.92-1.0x.
template <int R>
GT_V3 void micro_w(const float* const* depth, int64_t cols, int64_t oh, int64_t ow,
                   const float* gyt, int64_t ldt, float* gw, int64_t k, int channels) {
  __m256 c0[R], c1[R];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) c0[r] = c1[r] = _mm256_setzero_ps();
  for (int64_t y = 0; y < oh; ++y) {
    const float* d[R];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) d[r] = depth[r] + y * cols;
    const float* g = gyt + y * ow * ldt;
#pragma GCC unroll 2
    for (int64_t x = 0; x < ow; ++x) {
      const __m256 b0 = _mm256_loadu_ps(g + x * ldt), b1 = _mm256_loadu_ps(g + x * ldt + 8);
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) {
        const __m256 av = _mm256_broadcast_ss(d[r] + x);
        c0[r] = _mm256_fmadd_ps(av, b0, c0[r]);
        c1[r] = _mm256_fmadd_ps(av, b1, c1[r]);
      }
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    alignas(32) float sums[kCols];
    _mm256_store_ps(sums, c0[r]);
    _mm256_store_ps(sums + 8, c1[r]);
    for (int o = 0; o < channels; ++o) gw[o * k + r] += sums[o];
  }
}

using MicroWFn = void (*)(const float* const*, int64_t, int64_t, int64_t, const float*, int64_t,
                          float*, int64_t, int);

// dst[j * ds + i] = src[i * ss + j] for an 8 x 8 block.
GT_V3 inline void transpose8(const float* src, int64_t ss, float* dst, int64_t ds) {
  __m256 r[8], t[8], u[8];
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(src + i * ss);
  // t[2i], t[2i+1]: rows 2i and 2i+1 interleaved (columns 0 1 4 5, then 2 3 6 7)
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  // u[j] (and u[j + 4] for rows 4-7): column j of rows 0-3 in its low half,
  // column j + 4 in its high half
#pragma GCC unroll 2
  for (int h = 0; h < 2; ++h) {
    u[4 * h + 0] = _mm256_shuffle_ps(t[4 * h], t[4 * h + 2], _MM_SHUFFLE(1, 0, 1, 0));
    u[4 * h + 1] = _mm256_shuffle_ps(t[4 * h], t[4 * h + 2], _MM_SHUFFLE(3, 2, 3, 2));
    u[4 * h + 2] = _mm256_shuffle_ps(t[4 * h + 1], t[4 * h + 3], _MM_SHUFFLE(1, 0, 1, 0));
    u[4 * h + 3] = _mm256_shuffle_ps(t[4 * h + 1], t[4 * h + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
#pragma GCC unroll 4
  for (int j = 0; j < 4; ++j) {
    _mm256_storeu_ps(dst + j * ds, _mm256_permute2f128_ps(u[j], u[j + 4], 0x20));
    _mm256_storeu_ps(dst + (j + 4) * ds, _mm256_permute2f128_ps(u[j], u[j + 4], 0x31));
  }
}

// gy [oc][plane] transposed into a per-thread [plane][ldt] buffer, channels
// oc..ldt zero: eight pixels at a time, in 8 x 8 blocks where they are whole.
// It took 3.7% of the benchmark layer's forward and backward one scalar at a
// time (in blocks of 16 pixels; a whole plane per channel missed L1 on every
// write).
GT_V3 const float* transposed_gy(const float* gy, int64_t oc, int64_t plane, int64_t ldt) {
  thread_local std::vector<float> gyt;
  gyt.resize(static_cast<size_t>(plane * ldt));
  float* t = gyt.data();
  for (int64_t q0 = 0; q0 < plane; q0 += 8) {
    const int64_t qn = std::min<int64_t>(8, plane - q0);
    int64_t o = 0;
    if (qn == 8)
      for (; o + 8 <= oc; o += 8) transpose8(gy + o * plane + q0, plane, t + q0 * ldt + o, ldt);
    for (; o < oc; ++o)
      for (int64_t q = 0; q < qn; ++q) t[(q0 + q) * ldt + o] = gy[o * plane + q0 + q];
    for (int64_t q = 0; q < qn; ++q)
      std::fill(t + (q0 + q) * ldt + oc, t + (q0 + q + 1) * ldt, 0.0f);
  }
  return t;
}

template <int... R>
MicroWFn micro_w_for(int rows, std::integer_sequence<int, R...>) {
  constexpr MicroWFn k[] = {micro_w<R + 1>...};
  return k[rows - 1];
}

#define GT_V4W __attribute__((target("arch=x86-64-v4")))
constexpr int kRows512 = 14, kCols512 = 32;

// NOTE [Weight gradient in pixel runs]
// Each weight's gradient sums one product per output pixel, 1024 for a 32 x
// 32 image, in one register: twice the rounding error of im2col + GEMM,
// whose products are summed in blocks of a tile's columns (160 pixels) and
// added up in c. With runs (Runs) the pixels are summed from zero in runs of
// whole output rows, at least kPixelRun pixels each (two 32-pixel rows), the
// runs added up in a small buffer, as NOTE [Depth blocks] (conv_implicit_avx512.cpp)
// sums the forward's depths. The benchmark layer's weight gradient then has
// its error against a float64 reference at most im2col + GEMM's.
constexpr int64_t kPixelRun = 64;

// micro_w with 512-bit vectors: R depths by 32 output channels (28
// accumulators, as our AVX-512 GEMM's tile). Without Runs each weight's sum
// runs over the pixels in the same order as in micro_w, so the two give the
// same bits.
template <int R, bool Runs>
GT_V4W void micro_w512(const float* const* depth, int64_t cols, int64_t oh, int64_t ow,
                       const float* gyt, int64_t ldt, float* gw, int64_t k, int channels) {
  __m512 c0[R], c1[R];
  alignas(64) float part[R][kCols512];  // the runs' sums so far
  const int64_t run = Runs ? std::max<int64_t>(1, (kPixelRun + ow - 1) / ow) : oh;
  for (int64_t y0 = 0; y0 == 0 || y0 < oh; y0 += run) {
    const int64_t y1 = std::min(oh, y0 + run);
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) c0[r] = c1[r] = _mm512_setzero_ps();
    for (int64_t y = y0; y < y1; ++y) {
      const float* d[R];
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r) d[r] = depth[r] + y * cols;
      const float* g = gyt + y * ow * ldt;
      for (int64_t x = 0; x < ow; ++x) {
        const __m512 b0 = _mm512_loadu_ps(g + x * ldt), b1 = _mm512_loadu_ps(g + x * ldt + 16);
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) {
          const __m512 av = _mm512_set1_ps(d[r][x]);
          c0[r] = _mm512_fmadd_ps(av, b0, c0[r]);
          c1[r] = _mm512_fmadd_ps(av, b1, c1[r]);
        }
      }
    }
    if (y0 == 0 && y1 >= oh) break;  // one run: straight to gw
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      if (y0 > 0) {
        c0[r] = _mm512_add_ps(_mm512_load_ps(part[r]), c0[r]);
        c1[r] = _mm512_add_ps(_mm512_load_ps(part[r] + 16), c1[r]);
      }
      if (y1 < oh) {
        _mm512_store_ps(part[r], c0[r]);
        _mm512_store_ps(part[r] + 16, c1[r]);
      }
    }
  }
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    alignas(64) float sums[kCols512];
    _mm512_store_ps(sums, c0[r]);
    _mm512_store_ps(sums + 16, c1[r]);
    for (int o = 0; o < channels; ++o) gw[o * k + r] += sums[o];
  }
}

template <bool Runs, int... R>
MicroWFn micro_w512_for(int rows, std::integer_sequence<int, R...>) {
  constexpr MicroWFn k[] = {micro_w512<R + 1, Runs>...};
  return k[rows - 1];
}

}  // namespace

void conv_implicit_avx2(const float* w, const float* img, float* out, const ImplicitConv& g) {
  using Seq = std::make_integer_sequence<int, kRows>;
  const int64_t k = g.ic * g.kh * g.kw, plane = g.oh * g.ow;
  const Bordered b = bordered_copy(img, g);
  for (int64_t y = 0; y < g.oh; ++y)
    for (int64_t x0 = 0; x0 < g.ow; x0 += kCols) {
      const int cols = int(std::min<int64_t>(kCols, g.ow - x0));
      float* c = out + y * g.ow + x0;
      for (int64_t i = 0; i < g.oc; i += kRows) {
        const int rows = int(std::min<int64_t>(kRows, g.oc - i));
        const MicroFn f = rows == kRows ? micro<kRows> : micro_for(rows, Seq{});
        // output (y, x0) reads bordered (y, x0) on
        f(k, w + i * k, k, b.base + y * b.cols + x0, b.off, c + i * plane, plane, cols);
      }
    }
}

namespace {

// The weight gradient in tiles of Rows depths by Cols output channels:
// `full` on whole tiles, pick(rows) on a last, shorter one. With `split` the
// tiles of depths go over the threads, taken in turn (each writes only its
// own weights, so the bits do not depend on the threads).
template <int Rows, int Cols, typename Pick>
void wgrad_tiles(const float* gy, const float* img, float* gw, const ImplicitConv& g, MicroWFn full,
                 const Pick& pick, bool split = false) {
  const int64_t k = g.ic * g.kh * g.kw, plane = g.oh * g.ow;
  const int64_t ldt = (g.oc + Cols - 1) / Cols * Cols;
  const Bordered b = bordered_copy(img, g);
  const float* gyt = transposed_gy(gy, g.oc, plane, ldt);
  const auto tile = [&](int64_t t) {
    const int64_t p0 = t * Rows;
    const int rows = int(std::min<int64_t>(Rows, k - p0));
    const float* depth[Rows];
    for (int r = 0; r < rows; ++r) depth[r] = b.base + b.off[p0 + r];
    const MicroWFn f = rows == Rows ? full : pick(rows);
    for (int64_t o0 = 0; o0 < g.oc; o0 += Cols)
      f(depth, b.cols, g.oh, g.ow, gyt + o0, ldt, gw + o0 * k + p0, k,
        int(std::min<int64_t>(Cols, g.oc - o0)));
  };
  const int64_t tiles = (k + Rows - 1) / Rows;
  if (split) return parallel_items(tiles, tile);
  for (int64_t t = 0; t < tiles; ++t) tile(t);
}

}  // namespace

void conv_wgrad_implicit_avx512(const float* gy, const float* img, float* gw, const ImplicitConv& g,
                                bool runs, bool split) {
  using Seq = std::make_integer_sequence<int, kRows512>;
  if (runs)
    return wgrad_tiles<kRows512, kCols512>(
        gy, img, gw, g, micro_w512<kRows512, true>,
        [](int rows) { return micro_w512_for<true>(rows, Seq{}); }, split);
  wgrad_tiles<kRows512, kCols512>(
      gy, img, gw, g, micro_w512<kRows512, false>,
      [](int rows) { return micro_w512_for<false>(rows, Seq{}); }, split);
}

void conv_wgrad_implicit_avx2(const float* gy, const float* img, float* gw, const ImplicitConv& g) {
  wgrad_tiles<kRows, kCols>(gy, img, gw, g, micro_w<kRows>, [](int rows) {
    return micro_w_for(rows, std::make_integer_sequence<int, kRows>{});
  });
}

#else

void conv_implicit_avx2(const float*, const float*, float*, const ImplicitConv&) {}
void conv_wgrad_implicit_avx2(const float*, const float*, float*, const ImplicitConv&) {}
void conv_wgrad_implicit_avx512(const float*, const float*, float*, const ImplicitConv&, bool,
                                bool) {}

#endif

}  // namespace gradtrack::kernels
