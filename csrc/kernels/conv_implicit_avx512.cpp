// Stride-1 float32 convolutions on AVX-512 without an im2col matrix: the
// microkernel reads the image where it lies (NOTE [Implicit im2col]).
#include <algorithm>
#include <utility>
#include <vector>

#include "kernels/avx512_vectors.h"
#include "kernels/conv_implicit.h"
#include "kernels/cpu_vendor.h"

namespace gradtrack::kernels {

#if GT_AVX512_VECTORS
namespace {

using namespace avx512;  // NOTE [One spelling per vector operation]

// NOTE [Implicit im2col]
// A stride-1 convolution's im2col matrix has one row per (c, i, j), and for a
// tile of 32 output columns of one output row y that row is 32 consecutive
// pixels of one image row, y - ph + i dh, starting at x0 - pw + j dw, with
// the pixels that fall outside the image (or the whole row, above and below
// it) zero. So the microkernel can read b where it lies, through a table with
// one entry per depth p: where its 32 pixels start, and a 32-bit mask of the
// lanes inside the image and the tile. Masked-out lanes are never read (AVX-512
// suppresses their faults), so the start may lie before the image. Writing
// the im2col matrix (nine times the image for a 3x3 kernel) took ~30% of a
// 64-channel 3x3 layer's forward on 32x32 images; the table is 576 entries
// per output tile, shared by all its row tiles of w.
struct BRow {
  uintptr_t at;   // address of lane 0 (may lie outside the image)
  uint32_t mask;  // lanes 0-15 of the first vector, 16-31 of the second
};

// NOTE [Depth blocks]
// A float32 sum of k products in one register rounds k times onto a value
// that grows with it: for a 512-channel 3x3 convolution (k = 4608) that gave
// 5x torch's error against a float64 reference (2x at 64 channels). Summing
// each run of kDepthBlock depths from zero and adding the runs together cuts
// the error to about sqrt(k kDepthBlock) + k / sqrt(kDepthBlock) roundings'
// worth instead of k; 64 is near sqrt(k) for the common layers. The runs add
// up in a small contiguous buffer, not in c: c's rows are often 4 KiB apart
// (32 x 32 planes), and adding into them measured 5-9% slower on the
// benchmark layer, where the buffer is level with whole-k sums (Intel Xeon,
// one thread, in turns).
constexpr int64_t kDepthBlock = 64;

// c[rows, cols] = a[R x k] @ b[k x 32], a(r, p) at a[r * as + p], b's rows
// from the table, each `shift` bytes past where its entry says; computes
// R >= rows rows (a has R readable rows).
template <int R>
GT_V4 void micro_table(int64_t k, const float* __restrict a, int64_t as, const BRow* tab,
                       intptr_t shift, float* c, int64_t ldc, int rows, int cols) {
  const unsigned m0 = lane_mask(cols, 16), m1 = lane_mask(cols - 16, 16);
  __m512 c0[R], c1[R];
  alignas(64) float part[R][32];  // the runs' sums so far
  for (int64_t p0 = 0; p0 == 0 || p0 < k; p0 += kDepthBlock) {
    const int64_t p1 = std::min(k, p0 + kDepthBlock);
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) c0[r] = c1[r] = vzero(0.0f);
#pragma GCC unroll 2
    for (int64_t p = p0; p < p1; ++p) {
      const float* src = reinterpret_cast<const float*>(tab[p].at + uintptr_t(shift));
      const uint32_t mask = tab[p].mask;
      const __m512 b0 = vload_mask(src, mask & 0xFFFF), b1 = vload_mask(src + 16, mask >> 16);
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r) {
        const __m512 av = vset(a + r * as + p);
        c0[r] = vfma(av, b0, c0[r]);
        c1[r] = vfma(av, b1, c1[r]);
      }
    }
    if (p0 == 0 && p1 >= k) break;  // one run: straight to c
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      if (p0 > 0) {
        c0[r] = vadd(vload(part[r]), c0[r]);
        c1[r] = vadd(vload(part[r] + 16), c1[r]);
      }
      if (p1 < k) {
        vstore(part[r], c0[r]);
        vstore(part[r] + 16, c1[r]);
      }
    }
  }
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    if (r >= rows) break;
    vstore_mask(c + r * ldc, m0, c0[r]);
    if (m1) vstore_mask(c + r * ldc + 16, m1, c1[r]);
  }
}

using TableFn = void (*)(int64_t, const float*, int64_t, const BRow*, intptr_t, float*, int64_t,
                         int, int);

template <int... R>
GT_V4 TableFn table_kernel(int rows, std::integer_sequence<int, R...>) {
  constexpr TableFn k[] = {micro_table<2 * R + 2>...};
  return k[(rows - 1) / 2];
}

// The table of output row y, columns [x0, x0 + 32): one entry per depth
// p = (c kh + i) kw + j.
GT_V4 void fill_table(BRow* tab, const float* img, const ImplicitConv& g, int64_t y, int64_t x0) {
  const int64_t cols = std::min<int64_t>(32, g.ow - x0);
  BRow* e = tab;
  for (int64_t c = 0; c < g.ic; ++c)
    for (int64_t i = 0; i < g.kh; ++i) {
      const int64_t iy = y - g.ph + i * g.dh;
      const bool inside = iy >= 0 && iy < g.ih;
      for (int64_t j = 0; j < g.kw; ++j, ++e) {
        const int64_t ix = x0 - g.pw + j * g.dw;  // image column of lane 0
        // lanes l < cols with 0 <= ix + l < iw
        const int64_t lo = std::max<int64_t>(0, -ix), hi = std::min<int64_t>(cols, g.iw - ix);
        uint32_t mask = 0;
        if (inside && lo < hi)
          mask = uint32_t((hi - lo >= 32 ? ~uint64_t(0) : (uint64_t(1) << (hi - lo)) - 1) << lo);
        e->mask = mask;
        e->at = reinterpret_cast<uintptr_t>(img) +
                uintptr_t((c * g.ih * g.iw + iy * g.iw + ix) * int64_t(sizeof(float)));
      }
    }
}

}  // namespace

// NOTE [One table for the inner rows]
// An output row whose kernel rows all lie inside the image reads, at every
// depth, the pixels the row above read, one image row further on, with the
// same lanes masked. So the tables built for the first such row serve every
// other one, shifted by whole image rows; only the border rows build their
// own. Building a table per output row took ~10% of the benchmark layer's
// forward and backward (perf); its forward took 0.93-0.95x with the shared
// tables, in turns with a table per row (three runs).
void conv_implicit_avx512(const float* w, const float* img, float* out, const ImplicitConv& g) {
  constexpr int MR = int(kImplicitRowsAvx512);
  static_assert(MR % 2 == 0, "one kernel per even row count up to MR");
  using Seq = std::make_integer_sequence<int, MR / 2>;
  static_assert(kImplicitColsAvx512 == 32, "the tables and masks below hold 32 lanes");
  const int64_t k = g.ic * g.kh * g.kw, plane = g.oh * g.ow, tiles = (g.ow + 31) / 32;
  thread_local std::vector<BRow> tabs;   // one table per tile of 32 output columns
  thread_local std::vector<float> last;  // a short last tile of w, zero-padded to an even count
  tabs.resize(static_cast<size_t>(k * tiles));
  // Row tiles of MR and a last short one; on Intel balanced ones (NOTE [Balanced
  // row tiles] in gemm_avx512.cpp: 64 rows as 14, 14, 12, 12, 12, not 4 x 14 + 8), which give
  // every output the same sums. A short tile reads its rows of w from `last`
  // (zero-padded) unless it is even and balanced.
  const bool bal = cpu_is_intel();
  const int64_t mp = (g.oc + MR - 1) / MR, pairs = (g.oc + 1) / 2;
  const int64_t pbase = pairs / mp, pextra = pairs % mp;
  const auto start = [&](int64_t ip) {
    return bal ? 2 * (ip * pbase + std::min(ip, pextra)) : ip * MR;
  };
  const auto rows_of = [&](int64_t ip) {
    return std::min<int64_t>(bal ? 2 * (pbase + (ip < pextra)) : MR, g.oc - start(ip));
  };
  const int64_t rest = rows_of(mp - 1), padded = (rest + 1) / 2 * 2;
  const bool copy_last = rest < MR && (!bal || rest % 2 == 1);
  if (copy_last) {
    last.assign(static_cast<size_t>(padded * k), 0.0f);
    std::copy(w + start(mp - 1) * k, w + g.oc * k, last.begin());
  }
  int64_t built = -1;  // the inner row the tables were built for, or -1
  for (int64_t y = 0; y < g.oh; ++y) {
    const bool inner = y - g.ph >= 0 && y - g.ph + (g.kh - 1) * g.dh < g.ih;
    const bool reuse = inner && built >= 0;
    const intptr_t shift = reuse ? intptr_t((y - built) * g.iw * int64_t(sizeof(float))) : 0;
    for (int64_t t = 0; t < tiles; ++t) {
      const int64_t x0 = t * 32;
      BRow* tab = tabs.data() + t * k;
      if (!reuse) fill_table(tab, img, g, y, x0);
      const int cols = int(std::min<int64_t>(32, g.ow - x0));
      float* c = out + y * g.ow + x0;
      for (int64_t ip = 0; ip < mp; ++ip) {
        const int64_t i = start(ip), rows = rows_of(ip);
        const float* a = ip == mp - 1 && copy_last ? last.data() : w + i * k;
        if (rows == MR)
          micro_table<MR>(k, a, k, tab, shift, c + i * plane, plane, MR, cols);
        else
          table_kernel(int(rows), Seq{})(k, a, k, tab, shift, c + i * plane, plane, int(rows),
                                         cols);
      }
    }
    built = reuse ? built : inner ? y : -1;
  }
}

#else

void conv_implicit_avx512(const float*, const float*, float*, const ImplicitConv&) {}

#endif

}  // namespace gradtrack::kernels
