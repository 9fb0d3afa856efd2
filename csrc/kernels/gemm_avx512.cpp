// NOTE [AVX-512 GEMM] in gemm_avx512.h.
#include "kernels/gemm_avx512.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <new>
#include <utility>
#include <vector>

#include <sys/mman.h>

#include "kernels/avx512_vectors.h"
#include "kernels/cpu_vendor.h"
#include "kernels/parallel.h"

namespace gradtrack::kernels {

#if GT_AVX512_VECTORS
namespace {

using namespace avx512;  // NOTE [One spelling per vector operation]

// NOTE [Tuned per vendor]
// The choices below were measured on an Intel Xeon (Sapphire Rapids class,
// AVX-512 with two FMA units) and switch on only there: balanced row tiles
// (NOTE [Balanced row tiles]), no prefetch of a c the tile only writes (beta
// 0): 0.97-0.99x the time of bmm 16 x 128^2, (64x784).T @ 64x128 and 128^2,
// level at 512^2-1024^2 (one thread, in turns); depth blocks of up to 512
// (depth_cap), no software prefetch of b (NOTE [Prefetching b]) and which b
// is read in place (NOTE [AVX-512 GEMM: b in place]). On AMD
// (Zen 4, where the rest of this file was tuned) the kernel runs as it was
// measured there. Tried and left out: prefetching a bmm's next product into
// L2 while one runs (level on one thread, 6% slower on two), the tiles of an
// in-place b column by column, a whole k per tile when both operands are read
// in place, unrolling the depth loop 4 or 8 times, prefetch distances of 4-24
// depths (all within +-1-3%), 12-row tiles with 512 depths (level at 1024^2),
// prefetching the next micro-panel of a into L1 or L2 while the tiles of one
// run (3% slower at 1024^2 and 2048^2) and row blocks of b of 720-1024
// columns (level). The switch is cpu_is_intel() (cpu_vendor.h).

// MR rows of c by 2 vectors of columns per tile. The blocks: a kc x nb block
// of packed b (~0.7 MB) stays in L2, an MR x kc micro-panel of a (21 KB) in L1.
// 14 rows (28 accumulators) measured 1-4% faster than 12 at 512-1024 for
// float32, ~3% for float64 (against torch's MKL, in turns, 256-1024).
template <typename T>
struct Cfg;
template <>
struct Cfg<float> {
  using V = __m512;
  static constexpr int W = 16, MR = 14;
  static constexpr int64_t KC = 384, NB = 480, MB = 14 * 219;
};
template <>
struct Cfg<double> {
  using V = __m512d;
  static constexpr int W = 8, MR = 14;
  static constexpr int64_t KC = 256, NB = 240, MB = 14 * 219;
};

// The longest depth block. On Intel (48 KB of L1 data cache, 2 MB of L2) a
// float32 micro-panel of a of 512 depths (28 KB) still stays in L1, and one
// block of 512 depths instead of two of 256 or three of 342 measured 5-7%
// faster at 512^2, 2-4% at 1024^2 and 2048^2 and 2-3% on the MLP's 64 x 784
// @ 784 x 128 (1 and 2 threads, in turns); float64 was level at 384 and 512.
// Zen 4's L1 holds 32 KB, so there it stays 384.
template <typename T>
int64_t depth_cap() {
  return std::is_same_v<T, float> && cpu_is_intel() ? 512 : Cfg<T>::KC;
}

// One row of the c tile: acc (+ beta * c) to c, lanes of `mask`.
template <typename T, typename V>
GT_V4 inline void store_row(T* c, unsigned mask, V acc, T beta) {
  if (beta == T(0))
    vstore_mask(c, mask, acc);
  else if (beta == T(1))
    vstore_mask(c, mask, vadd(acc, vload_mask(c, mask)));
  else
    vstore_mask(c, mask, vfma(vset(&beta), vload_mask(c, mask), acc));
}

// NOTE [Rows of a in place]
// Reading a where it lies, the microkernel broadcasts from 14 rows. Written
// as pa + r * as, GCC kept one register per row offset and, short of
// registers, reloaded half of them from the stack at every depth (8 extra
// loads per 28 multiply-adds). Rows 0-13 are instead q + s * {0, 1, 2, 4, 8}
// for q at rows 0, 3, 4 and 9 and s the row stride in bytes: four pointers
// and one stride, each row one addressing mode.
constexpr int kRowBase[14] = {0, 0, 0, 3, 4, 4, 4, 3, 4, 9, 9, 9, 4, 9};
constexpr int kRowScale[14] = {0, 1, 2, 0, 0, 1, 2, 4, 4, 0, 1, 2, 8, 4};

// NOTE [Prefetching b]
// On AMD the microkernel prefetches b 8 depths ahead. On Intel it does not:
// the hardware's own prefetchers keep up with a packed micro-panel and with
// the rows of an in-place b, and the two prefetch instructions per depth cost
// more than they saved. Without them a 1024^2 product ran at 90% of the FMA
// loop's peak on one thread instead of 85% (Intel Xeon, in turns): 4-5%
// faster at 1024^2 and 2048^2 (also with a transposed operand), 2-5% at
// 512^2, 128^2 and on the MLP's shapes, 3% for float64 at 1024^2. The one
// exception is an in-place b whose rows are a multiple of 4 KB apart (NOTE
// [AVX-512 GEMM: b in place]): there the prefetch is what keeps it fed.

// c[rows, cols] (beta)= pa[MR x kc micro-panel] @ pb[kc x 2W micro-panel],
// computing R >= rows rows (the last tile of rows gets its own R: 128 rows in
// tiles of 14 would otherwise compute 140).
// b's rows are bs apart: 2W in a packed micro-panel, ldb when read in place;
// lanes past `cols` are never read.
// a's rows are as apart when read in place (DirectA: a(r, p) at pa[r * as + p]);
// a packed micro-panel holds a(r, p) at pa[p * MR + r].
template <typename T, int R, bool Direct, bool DirectA>
GT_V4 void micro(int64_t kc, const T* __restrict pa, int64_t as, const T* __restrict pb, int64_t bs,
                 T* c, int64_t ldc, int rows, int cols, T beta, int64_t sub, bool fetch_c,
                 bool fetch_b) {
  using V = typename Cfg<T>::V;
  constexpr int W = Cfg<T>::W, MR = Cfg<T>::MR;
  const unsigned m0 = lane_mask(cols, W), m1 = lane_mask(cols - W, W);
  V c0[R], c1[R];
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) c0[r] = c1[r] = vzero(T{});
  // Both cache lines of each row of the c tile: at 1024^2 and 2048^2 a
  // thread's c (2 MB and up) has left L2 before the next depth block adds
  // to it. The second line measured 2-3% faster there on a Zen 4 (1 and 2
  // threads, in turns with one line), no change at 256^2 and the MLP shape.
  // (NOTE [Tuned per vendor]: on Intel, only a c that is read, fetch_c.)
  for (int r = 0; r < (fetch_c ? rows : 0); ++r) {
    _mm_prefetch(reinterpret_cast<const char*>(c + r * ldc), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(c + r * ldc + W), _MM_HINT_T0);
  }
  // Depths in runs of `sub` (kc unless the caller asked for depth blocks,
  // NOTE [Depth blocks]), each summed from zero and added into `part`; the
  // last run's sum plus part goes to c.
  alignas(64) T part[R][2 * W];
  const int64_t sb = as * int64_t(sizeof(T));  // bytes between rows of a in place
  // a read in place: rows through four moving pointers (rows 0, 3, 4 and 9)
  // plus 1, 2, 4 or 8 row strides, which x86 addresses as base + index *
  // scale (NOTE [Rows of a in place]). They move on across the runs.
  const char* q0 = reinterpret_cast<const char*>(pa);
  const char *q3 = q0 + 3 * sb, *q4 = q0 + 4 * sb, *q9 = q0 + 9 * sb;
  for (int64_t s0 = 0; s0 < kc; s0 += sub) {
    const int64_t s1 = std::min(kc, s0 + sub);
    if (s0 > 0) {
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r) c0[r] = c1[r] = vzero(T{});
    }
#pragma GCC unroll 2
    for (int64_t p = s0; p < s1; ++p) {
      if (fetch_b) {  // NOTE [Prefetching b]
        _mm_prefetch(reinterpret_cast<const char*>(pb + 8 * bs), _MM_HINT_T0);
        _mm_prefetch(reinterpret_cast<const char*>(pb + 8 * bs + W), _MM_HINT_T0);
      }
      V b0, b1;
      if constexpr (Direct)
        b0 = vload_mask(pb, m0), b1 = vload_mask(pb + W, m1);
      else
        b0 = vload(pb), b1 = vload(pb + W);
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r) {
        V av;
        if constexpr (DirectA) {
          const char* q = kRowBase[r] == 0   ? q0
                          : kRowBase[r] == 3 ? q3
                          : kRowBase[r] == 4 ? q4
                                             : q9;
          av = vset(reinterpret_cast<const T*>(q + kRowScale[r] * sb));
        } else {
          av = vset(pa + r);
        }
        c0[r] = vfma(av, b0, c0[r]);
        c1[r] = vfma(av, b1, c1[r]);
      }
      if constexpr (DirectA)
        q0 += sizeof(T), q3 += sizeof(T), q4 += sizeof(T), q9 += sizeof(T);
      else
        pa += MR;
      pb += bs;
    }
    if (s0 == 0 && s1 == kc) break;  // one run: straight to c
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      if (s0 > 0) {
        c0[r] = vadd(vload(part[r]), c0[r]);
        c1[r] = vadd(vload(part[r] + W), c1[r]);
      }
      if (s1 < kc) {
        vstore(part[r], c0[r]);
        vstore(part[r] + W, c1[r]);
      }
    }
  }
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    if (r >= rows) break;
    store_row(c + r * ldc, m0, c0[r], beta);
    if (m1) store_row(c + r * ldc + W, m1, c1[r], beta);
  }
}

template <typename T>
using MicroFn = void (*)(int64_t, const T*, int64_t, const T*, int64_t, T*, int64_t, int, int, T,
                         int64_t, bool, bool);

// The kernel for a tile of `rows` rows: full tiles MR, short ones rounded up
// to an even count (fewer kernels, at most one wasted row).
template <typename T, bool Direct, bool DirectA, int... R>
GT_V4 MicroFn<T> pick(int rows, std::integer_sequence<int, R...>) {
  constexpr MicroFn<T> k[] = {micro<T, 2 * R + 2, Direct, DirectA>...};
  return k[(rows - 1) / 2];
}

template <typename T>
GT_V4 MicroFn<T> micro_for(int rows, bool direct, bool direct_a) {
  static_assert(Cfg<T>::MR % 2 == 0, "one kernel per even row count up to MR");
  using Seq = std::make_integer_sequence<int, Cfg<T>::MR / 2>;
  if (direct_a)
    return direct ? pick<T, true, true>(rows, Seq{}) : pick<T, false, true>(rows, Seq{});
  return direct ? pick<T, true, false>(rows, Seq{}) : pick<T, false, false>(rows, Seq{});
}

// Packing writes dst[p * D + l] = line l's element p for p < kc, l < D, with
// zeros for lines l >= nl: a micro-panel of a (D = MR lines = rows of a) or of
// b (D = 2W lines = columns of b), k-major. Two source layouts:
// copy_lines when element p of line l is at src[p * ps + l] (each p's lines
// are contiguous), transpose_lines when it is at src[l * ls + p].
template <typename T>
GT_V4 void copy_lines(const T* src, int64_t ps, int64_t nl, int64_t kc, T* dst, int D) {
  constexpr int W = Cfg<T>::W;
  for (int64_t p = 0; p < kc; ++p)
    for (int g = 0; g < D; g += W)
      vstore_mask(dst + p * D + g, lane_mask(D - g, W),
                  vload_mask(src + p * ps + g, lane_mask(nl - g, W)));
}

// The last two steps of a transpose: out[4 * L + c] gathers 128-bit lane L of
// u[0..3][c] (the same for 4 floats or 2 doubles per lane).
template <typename V, typename S>
GT_V4 inline void lane_transpose(const V* u0, const V* u1, const V* u2, const V* u3, int c, V* out,
                                 int step, S shuffle) {
  const V v0 = shuffle(u0[c], u1[c], 0x44), v1 = shuffle(u0[c], u1[c], 0xEE);
  const V v2 = shuffle(u2[c], u3[c], 0x44), v3 = shuffle(u2[c], u3[c], 0xEE);
  out[0 * step + c] = shuffle(v0, v2, 0x88);
  out[1 * step + c] = shuffle(v0, v2, 0xDD);
  out[2 * step + c] = shuffle(v1, v3, 0x88);
  out[3 * step + c] = shuffle(v1, v3, 0xDD);
}

struct ShuffleF32 {
  GT_V4 __m512 operator()(__m512 a, __m512 b, int imm) const {
    switch (imm) {
      case 0x44: return _mm512_shuffle_f32x4(a, b, 0x44);
      case 0xEE: return _mm512_shuffle_f32x4(a, b, 0xEE);
      case 0x88: return _mm512_shuffle_f32x4(a, b, 0x88);
      default: return _mm512_shuffle_f32x4(a, b, 0xDD);
    }
  }
};
struct ShuffleF64 {
  GT_V4 __m512d operator()(__m512d a, __m512d b, int imm) const {
    switch (imm) {
      case 0x44: return _mm512_shuffle_f64x2(a, b, 0x44);
      case 0xEE: return _mm512_shuffle_f64x2(a, b, 0xEE);
      case 0x88: return _mm512_shuffle_f64x2(a, b, 0x88);
      default: return _mm512_shuffle_f64x2(a, b, 0xDD);
    }
  }
};

// r[16] rows of 16 floats -> r[j] = column j.
GT_V4 inline void transpose(__m512* r) {
  __m512 t[16], u[16];
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  // u[4 * G + c]: lane L holds column 4 * L + c of rows 4 * G .. 4 * G + 3.
  for (int G = 0; G < 4; ++G) {
    const __m512d a = _mm512_castps_pd(t[4 * G]), b = _mm512_castps_pd(t[4 * G + 2]);
    const __m512d e = _mm512_castps_pd(t[4 * G + 1]), f = _mm512_castps_pd(t[4 * G + 3]);
    u[4 * G + 0] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, b));
    u[4 * G + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, b));
    u[4 * G + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(e, f));
    u[4 * G + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(e, f));
  }
  for (int c = 0; c < 4; ++c) lane_transpose(u, u + 4, u + 8, u + 12, c, r, 4, ShuffleF32{});
}

// r[8] rows of 8 doubles -> r[j] = column j.
GT_V4 inline void transpose(__m512d* r) {
  __m512d t[8];
  // t[2 * P + c]: lane L holds column 2 * L + c of rows 2 * P, 2 * P + 1.
  for (int P = 0; P < 4; ++P) {
    t[2 * P] = _mm512_unpacklo_pd(r[2 * P], r[2 * P + 1]);
    t[2 * P + 1] = _mm512_unpackhi_pd(r[2 * P], r[2 * P + 1]);
  }
  for (int c = 0; c < 2; ++c) lane_transpose(t, t + 2, t + 4, t + 6, c, r, 2, ShuffleF64{});
}

template <typename T>
GT_V4 void transpose_lines(const T* src, int64_t ls, int64_t nl, int64_t kc, T* dst, int D) {
  using V = typename Cfg<T>::V;
  constexpr int W = Cfg<T>::W;
  for (int g = 0; g < D; g += W) {
    const unsigned out_mask = lane_mask(D - g, W);
    for (int64_t p0 = 0; p0 < kc; p0 += W) {
      const int64_t q = std::min<int64_t>(W, kc - p0);
      const unsigned in_mask = lane_mask(q, W);
      V r[W];
#pragma GCC unroll 16
      for (int l = 0; l < W; ++l)
        r[l] = g + l < nl ? vload_mask(src + (g + l) * ls + p0, in_mask) : vzero(T{});
      transpose(r);
      for (int64_t j = 0; j < q; ++j) vstore_mask(dst + (p0 + j) * D + g, out_mask, r[j]);
    }
  }
}

// A micro-panel of a: `rows` (<= MR) rows by kc; a(i, p) is at a[i * rs + p * cs].
template <typename T>
GT_V4 void pack_a(const T* a, int64_t rs, int64_t cs, int64_t rows, int64_t kc, T* pa) {
  if (cs == 1)
    transpose_lines(a, rs, rows, kc, pa, Cfg<T>::MR);
  else
    copy_lines(a, cs, rows, kc, pa, Cfg<T>::MR);
}

// A micro-panel of b: kc by `cols` (<= 2W) columns; b(p, j) is at b[p * rs + j * cs].
template <typename T>
GT_V4 void pack_b(const T* b, int64_t rs, int64_t cs, int64_t cols, int64_t kc, T* pb) {
  if (cs == 1)
    copy_lines(b, rs, cols, kc, pb, 2 * Cfg<T>::W);
  else
    transpose_lines(b, cs, cols, kc, pb, 2 * Cfg<T>::W);
}

template <typename T>
struct Job {
  int64_t m, n, k;
  const T* a;
  int64_t ars, acs;
  const T* b;
  int64_t brs, bcs;
  T beta;
  T* c;
  int64_t ldc;
  T* pa;  // packed a: round_up(min(m, MB), MR) x kc
  T* pb;  // packed b: kc x nb
  int64_t kc, nb;
  bool direct_b;  // b read in place (row-major b, few rows of a to reuse it)
  bool direct_a;  // a read in place (row-major a, few columns of c to reuse it)
  bool fetch_b;   // the microkernel prefetches b (NOTE [Prefetching b])
  int64_t sub;    // depths summed in registers before adding up; 0: the block
};

// One block of rows [i0, i0 + mb) and depths [p0, p0 + kc): pack its a, then
// per block of columns pack b and run the tiles, a's micro-panel (L1) outside,
// b's (L2) inside.
template <typename T>
GT_V4 void run_block(const Job<T>& J, int64_t i0, int64_t mb, int64_t p0, int64_t kc) {
  constexpr int W = Cfg<T>::W, MR = Cfg<T>::MR, NR = 2 * W;
  const T beta = p0 == 0 ? J.beta : T(1);
  // NOTE [Tuned per vendor]: on Intel the tiles prefetch only a c they read
  const bool fetch_c = !(cpu_is_intel() && beta == T(0));
  const int64_t mp = (mb + MR - 1) / MR;
  // NOTE [Balanced row tiles]
  // mb rows in mp = ceil(mb / MR) tiles of as even a row count as even
  // kernels allow: 128 rows as 4 x 14 + 6 x 12 rather than 9 x 14 + 2, whose
  // 2-row tile has 4 accumulators, too few to hide the FMA latency, and must
  // be packed. Each element of c sums the same products in the same order
  // either way. 1-3% faster at 64-128 rows (Intel Xeon, one thread, in
  // turns, thread CPU time).
  const bool bal = cpu_is_intel();
  const int64_t pairs = (mb + 1) / 2, pbase = pairs / mp, pextra = pairs % mp;
  const auto start = [&](int64_t ip) {
    return bal ? i0 + 2 * (ip * pbase + std::min(ip, pextra)) : i0 + ip * MR;
  };
  const auto rows_of = [&](int64_t ip) {
    return std::min<int64_t>(bal ? 2 * (pbase + (ip < pextra)) : MR, i0 + mb - start(ip));
  };
  // Read in place, a tile whose kernel computes exactly its rows; a last,
  // short tile of odd rows is packed (its kernel computes one row more).
  const auto in_place = [&](int64_t ip) {
    return J.direct_a && rows_of(ip) % 2 == 0 && (bal || rows_of(ip) == MR);
  };
  for (int64_t ip = 0; ip < mp; ++ip) {
    const int64_t i = start(ip);
    if (!in_place(ip))
      pack_a(J.a + i * J.ars + p0 * J.acs, J.ars, J.acs, rows_of(ip), kc, J.pa + ip * MR * kc);
  }
  for (int64_t j0 = 0; j0 < J.n; j0 += J.nb) {
    const int64_t nb = std::min(J.nb, J.n - j0), np = (nb + NR - 1) / NR;
    for (int64_t jp = 0; !J.direct_b && jp < np; ++jp) {
      const int64_t j = j0 + jp * NR;
      pack_b(J.b + p0 * J.brs + j * J.bcs, J.brs, J.bcs, std::min<int64_t>(NR, J.n - j), kc,
             J.pb + jp * NR * kc);
    }
    const auto tile = [&](int64_t ip, int64_t jp) {
      const int64_t i = start(ip);
      const int rows = int(rows_of(ip));
      const bool direct_a = in_place(ip);
      const MicroFn<T> kernel = micro_for<T>(rows, J.direct_b, direct_a);
      const T* pa = direct_a ? J.a + i * J.ars + p0 : J.pa + ip * MR * kc;
      const int64_t j = j0 + jp * NR;
      const T* pb = J.direct_b ? J.b + p0 * J.brs + j : J.pb + jp * NR * kc;
      kernel(kc, pa, J.ars, pb, J.direct_b ? J.brs : NR, J.c + i * J.ldc + j, J.ldc, rows,
             int(std::min<int64_t>(NR, J.n - j)), beta, J.sub > 0 ? J.sub : kc, fetch_c, J.fetch_b);
    };
    for (int64_t ip = 0; ip < mp; ++ip)
      for (int64_t jp = 0; jp < np; ++jp) tile(ip, jp);
  }
}

template <typename T>
GT_V4 void run(const Job<T>& J) {
  for (int64_t i0 = 0; i0 < J.m; i0 += Cfg<T>::MB) {
    const int64_t mb = std::min(Cfg<T>::MB, J.m - i0);
    for (int64_t p0 = 0; p0 < J.k; p0 += J.kc) run_block(J, i0, mb, p0, std::min(J.kc, J.k - p0));
  }
}

// The packing buffers of the calling thread, kept between calls (at most
// ~7 MB float32 / ~8 MB float64 per thread that ran a large product).
struct Buffer {
  void* p = nullptr;
  size_t bytes = 0;
  ~Buffer() { std::free(p); }
  void* get(size_t want) {
    if (want > bytes) {
      std::free(p);
      // 2 MiB pages: a packed block of b spans ~180 small pages.
      constexpr size_t kHuge = size_t(1) << 21;
      bytes = (want + kHuge - 1) / kHuge * kHuge;
      p = std::aligned_alloc(kHuge, bytes);
      if (!p) {
        bytes = 0;
        throw std::bad_alloc();
      }
      madvise(p, bytes, MADV_HUGEPAGE);
    }
    return p;
  }
};

// One thread's whole product: c[m, n] (beta)= a(i, p) @ b(p, j), with
// a(i, p) at a[i * ars + p * acs] and b(p, j) at b[p * brs + j * bcs].
template <typename T>
void serial(int64_t m, int64_t n, int64_t k, const T* a, int64_t ars, int64_t acs, const T* b,
            int64_t brs, int64_t bcs, T beta, T* c, int64_t ldc, int64_t sub) {
  constexpr int MR = Cfg<T>::MR, NR = 2 * Cfg<T>::W;
  Job<T> J{};
  J.sub = sub;
  J.m = m, J.n = n, J.k = k, J.a = a, J.b = b, J.beta = beta, J.c = c, J.ldc = ldc;
  J.ars = ars, J.acs = acs, J.brs = brs, J.bcs = bcs;
  // NOTE [AVX-512 GEMM: b in place]
  // Packing b costs about as much per element as a few row tiles' use of it:
  // with at most 10 row tiles, a row-major b is read where it lies. 7 tiles
  // (64 x 784 @ 784 x 128) saved 8% of the time; 10 (each 128^3 product of a
  // bmm) 3-5%, in turns with packing; 19 and 37 tiles (a thread's half of
  // 256^2 and 512^2) lost 1-5%. On Intel, without the prefetch of b (NOTE
  // [Prefetching b]), packing is already level at 8-10 tiles (112-140 rows:
  // 128^3 0.96-0.98x, 140 x 512^2 0.98x, 140 x 1000^2 0.84x), so b is read in
  // place up to 7 tiles. Rows of b a multiple of 4 KB apart (ldb 1024 floats)
  // share a few cache sets: read in place, a 1024^2 b made 28-140 rows take
  // 1.5-1.7x as long as the old kernel did. There b is packed unless a has at
  // most 2 row tiles, and then prefetched and read in depth blocks of 256
  // (14 and 28 rows: 0.87-1.13x the old kernel, which read it in place with a
  // prefetch; 84-140 rows packed: 0.82-0.92x).
  const bool intel = cpu_is_intel();
  const bool aliased = brs * int64_t(sizeof(T)) % 4096 == 0;
  J.direct_b = bcs == 1 && m <= (!intel ? 10 : aliased ? 2 : 7) * MR;
  J.fetch_b = !intel || (J.direct_b && aliased);
  // A row-major a is transposed when packed; with at most 8 column tiles to
  // reuse each micro-panel, reading its 14 rows in place measured 3-8% faster
  // (64 x 784 @ 784 x 128, 128^2; in turns with packing, 1 and 2 threads) and
  // 1-6% slower with 16 tiles (512^2).
  J.direct_a = acs == 1 && n <= 8 * NR;
  // Even blocks: 1000 = 2 x 500, not 384 + 384 + 232.
  const int64_t KC = intel && J.direct_b && aliased ? 256 : depth_cap<T>();
  constexpr int64_t NB = Cfg<T>::NB;
  const int64_t kb = (k + KC - 1) / KC;
  J.kc = (k + kb - 1) / kb;
  const int64_t nbk = (n + NB - 1) / NB;
  J.nb = ((n + nbk - 1) / nbk + NR - 1) / NR * NR;
  const int64_t mrows = (std::min(m, Cfg<T>::MB) + MR - 1) / MR * MR;
  const size_t a_elems = size_t(mrows * J.kc), b_elems = size_t(J.nb * J.kc);
  thread_local Buffer buf;
  T* base = static_cast<T*>(buf.get((a_elems + b_elems) * sizeof(T) + 64));
  J.pa = base;
  J.pb = base + (a_elems + 15) / 16 * 16;
  run<T>(J);
}

// c = beta * c for k == 0.
template <typename T>
void scale_c(int64_t m, int64_t n, T beta, T* c, int64_t ldc) {
  if (beta == T(1)) return;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = beta == T(0) ? T(0) : beta * c[i * ldc + j];
}

// Of splitting along m or n in whole tiles, the one whose busiest thread has
// the fewest tiles' worth of work (rows or columns).
template <typename T>
bool split_along_m(int64_t m, int64_t n, int nt) {
  constexpr int MR = Cfg<T>::MR, NR = 2 * Cfg<T>::W;
  const int64_t mp = (m + MR - 1) / MR, np = (n + NR - 1) / NR;
  const double em = double(mp) / double((mp + nt - 1) / nt * nt);
  const double en = double(np) / double((np + nt - 1) / nt * nt);
  return em >= en;
}

}  // namespace

bool gemm_avx512_available() {
  static const bool ok = __builtin_cpu_supports("x86-64-v4");
  return ok;
}

std::pair<int64_t, int64_t> gemm_avx512_depth_caps() {
  return {depth_cap<float>(), depth_cap<double>()};
}

template <typename T>
void gemm_avx512(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
                 const T* b, int64_t ldb, T beta, T* c, int64_t ldc, int threads,
                 int64_t depth_block) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) return scale_c(m, n, beta, c, ldc);
  const int64_t ars = ta ? 1 : lda, acs = ta ? lda : 1, brs = tb ? 1 : ldb, bcs = tb ? ldb : 1;
  int nt = in_parallel_region() ? 1 : std::max(1, threads);
  // NOTE [AVX-512 GEMM threads]
  // Each thread runs its own slice of rows (or of columns, when there are few
  // row tiles) from start to end, packing the operand it shares with the
  // others itself: no barrier between blocks. Shared packing saved 1-3% on a
  // quiet machine, but a barrier per block made a busy neighbour on the other
  // core stall both threads (measured 2-4x slower at 256-2048).
  // On the Intel Xeon (family 6 model 207, 2 cores) two threads cost each
  // other little: the process CPU time of 1024^2 and 2048^2 float32 and
  // 1024^2 float64 on two threads was 1.01-1.05x that of one thread doing
  // half the rows twice (waiting threads asleep, in turns), and in a quiet
  // minute two threads ran 1024^2 at ~317 GFLOP/s, 92% of the two-thread FMA
  // loop. What a thread spends on its own copy of b is small: skipping the
  // packing of b saved 2-3% of a thread's half (5% for a transposed b or
  // float64). Also measured and left out there: a's row block cut to 532 or
  // 1022 rows (so that it shares L2 with b's block), splitting 2048^2 along n
  // (both within +-1%), and chunks of rows taken in turn with each block of
  // b packed once for both threads (the first thread to reach it packs it;
  // one that finds it being packed packs its own copy rather than wait):
  // level in a quiet minute, 0.97-1.05x on a busy host, no better than the
  // spread. Slow two-thread runs there came from other tenants holding a core.
  constexpr int MR = Cfg<T>::MR, NR = 2 * Cfg<T>::W;
  const bool along_m = split_along_m<T>(m, n, nt);
  const int64_t tiles = along_m ? (m + MR - 1) / MR : (n + NR - 1) / NR;
  nt = int(std::min<int64_t>(nt, tiles));
  if (nt <= 1) return serial(m, n, k, a, ars, acs, b, brs, bcs, beta, c, ldc, depth_block);
#ifdef _OPENMP
  std::atomic<bool> out_of_memory{false};  // no exception may leave the region
#pragma omp parallel num_threads(nt)
  {
    const int t = omp_get_thread_num(), used = omp_get_num_threads();
    const int64_t unit = along_m ? MR : NR, size = along_m ? m : n;
    const int64_t lo = std::min(size, tiles * t / used * unit);
    const int64_t hi = std::min(size, tiles * (t + 1) / used * unit);
    try {
      if (lo < hi && along_m)
        serial(hi - lo, n, k, a + lo * ars, ars, acs, b, brs, bcs, beta, c + lo * ldc, ldc,
               depth_block);
      else if (lo < hi)
        serial(m, hi - lo, k, a, ars, acs, b + lo * bcs, brs, bcs, beta, c + lo, ldc, depth_block);
    } catch (const std::bad_alloc&) {
      out_of_memory = true;
    }
  }
  if (out_of_memory) throw std::bad_alloc();
#else
  serial(m, n, k, a, ars, acs, b, brs, bcs, beta, c, ldc, depth_block);
#endif
}

#else

bool gemm_avx512_available() { return false; }

std::pair<int64_t, int64_t> gemm_avx512_depth_caps() { return {0, 0}; }

template <typename T>
void gemm_avx512(bool, bool, int64_t, int64_t, int64_t, const T*, int64_t, const T*, int64_t, T, T*,
                 int64_t, int, int64_t) {}

#endif

namespace {
std::atomic<bool> g_use{true};
}

bool use_gemm_avx512() { return g_use.load(std::memory_order_relaxed) && gemm_avx512_available(); }
void set_gemm_avx512(bool on) { g_use.store(on, std::memory_order_relaxed); }

template void gemm_avx512<float>(bool, bool, int64_t, int64_t, int64_t, const float*, int64_t,
                                 const float*, int64_t, float, float*, int64_t, int, int64_t);
template void gemm_avx512<double>(bool, bool, int64_t, int64_t, int64_t, const double*, int64_t,
                                  const double*, int64_t, double, double*, int64_t, int, int64_t);

}  // namespace gradtrack::kernels
