// bfloat16 products on AMX tiles (gemm_amx.h).
#include "kernels/gemm_amx.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/parallel.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#define GT_AMX_BUILD 1
#include <cpuid.h>
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>
#else
#define GT_AMX_BUILD 0
#endif

namespace gradtrack::kernels {

namespace {
std::atomic<bool> g_use{true};
}

bool use_amx_bf16() { return g_use.load(std::memory_order_relaxed) && amx_bf16_available(); }
void set_amx_bf16(bool on) { g_use.store(on, std::memory_order_relaxed); }

#if GT_AMX_BUILD

bool amx_bf16_available() {
  static const bool ok = [] {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return false;
    const bool tile = edx >> 24 & 1, bf16 = edx >> 22 & 1;
    if (!tile || !bf16 || !__builtin_cpu_supports("avx512bw")) return false;
    // Linux hands out the 8 KiB of tile state only to a process that asks.
    constexpr long kReqXcompPerm = 0x1023, kXtileData = 18;
    return syscall(SYS_arch_prctl, kReqXcompPerm, kXtileData) == 0;
  }();
  return ok;
}

namespace {

#define GT_AMX __attribute__((target("amx-tile,amx-bf16,avx512f,avx512bw,avx512vl")))

// NOTE [AMX bfloat16 products]
// An AMX tile multiply (TDPBF16PS) adds a 16 x 32 bfloat16 tile of a times a
// 32 x 16 tile of b into a 16 x 16 float32 tile: the products of bfloat16
// values are exact in float32 and the sums run in float32, as torch's CPU
// bfloat16 matmul (oneDNN) and our widened float32 path do; the result is
// rounded to bfloat16 once. Each step here loads two tiles of a and two of b
// and runs four multiplies into a 32 x 32 block of c held in tiles 0-3. a is
// packed in tile order (each 32 x 32 tile 1 KiB in a row) and b in pairs of
// depths ("VNNI": [depth / 2][16 columns][2]) per 16 columns, both
// zero-padded, so every tile is whole and read in order.
// The packed buffers start on a 64-byte line (NOTE [AMX tiles on whole
// lines]). Where the result is bfloat16 and not added to an old value, each
// block of c is rounded to bfloat16 as its last depth block leaves the tiles
// (NOTE [Rounding as the tiles leave]).
constexpr int64_t kTile = 32;  // rows and columns of a c block, depths per step

// NOTE [AMX tiles on whole lines]
// A tile load reads 16 rows of 64 bytes; a row that starts off a 64-byte line
// touches two lines, and the loads then ran at half speed. std::vector's
// buffers of a MiB or more come from mmap 16 bytes past a page, so the packed
// a and b were exactly that: a tile multiply loop over L1-resident tiles ran at
// ~550 multiply-adds per ns against ~1650 once aligned (Intel Xeon, family 6
// model 207, one thread, timed in thread CPU time on a busy host). With the
// lines aligned, software prefetching of b (which earlier hid the split loads)
// cost 5-8%: the hardware prefetchers follow the packed panels by themselves.
constexpr int64_t kChunk = 512;   // columns of b kept in L2 while row blocks pass
constexpr int64_t kDepth = 1024;  // depths summed in the tiles before c is stored

// NOTE [AMX loop order]
// Columns of b go in chunks of 512 (1 MiB packed: half the 2 MiB L2); each
// row block of a passes the whole chunk, depth block by depth block, 32
// columns at a time. Sums between depth blocks (beyond 1024 depths) go to c
// itself, or for a bfloat16 result to a 64 KiB buffer (the row block's part
// of the chunk) that stays in L2, so no float32 copy of the result is made. Measured on one thread
// of an Intel Xeon (family 6 model 207), the 1024^3 kernel alone, thread CPU time on a shared host:
// depth blocks of 256 / 512 / 1024 by column chunks of 128 to 1024 spanned 1.19-2.03 ms, 1024 x 512
// the fastest; in the whole product against torch in turns, depth 1024 was 1.22-1.28x torch's time
// and depth 512 1.43-1.48x (512 would keep a row block's a in L1, but b's panels then change every
// 16 steps). Software prefetching of b two steps ahead, which helped while the packed buffers were
// misaligned (NOTE [AMX tiles on whole lines]), now cost 5-8% and was dropped.
constexpr size_t kLine = 64;

// A thread-local buffer of at least n elements whose first starts a line.
template <typename T>
T* line_buffer(std::vector<T>& v, int64_t n) {
  v.resize(size_t(n) + kLine / sizeof(T));
  const auto at = reinterpret_cast<uintptr_t>(v.data());
  return reinterpret_cast<T*>((at + kLine - 1) / kLine * kLine);
}

struct alignas(64) TileConfig {
  uint8_t palette = 1;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t colsb[16] = {};
  uint8_t rows[16] = {};
};

GT_AMX void configure_tiles() {
  TileConfig cfg;
  for (int t = 0; t < 8; ++t) {
    cfg.rows[t] = 16;
    cfg.colsb[t] = 64;
  }
  _tile_loadconfig(&cfg);
}

inline int64_t round_up(int64_t v, int64_t to) { return (v + to - 1) / to * to; }

// Rows [i0, i1) (whole row blocks) of a (a(i, p) at a[i * rs + p * cs]) into
// pa in tile order: each 32 x 32 tile of a row block contiguous, row-major,
// the tiles of a row block one after another along the depth, so that every
// tile load reads 1 KiB in order.
// (A tile row is one masked 64-byte load: a memcpy of a variable length was
// inlined as a loop of 8-byte moves, a fifth of a 256^3 product's time.)
GT_AMX void pack_a(const uint16_t* a, int64_t rs, int64_t cs, int64_t m, int64_t k, int64_t i0,
                   int64_t i1, int64_t kp, uint16_t* pa) {
  for (int64_t i = i0; i < i1; ++i) {
    uint16_t* row = pa + (i / kTile) * kp * kTile + (i % kTile) * kTile;
    const uint16_t* src = a + i * rs;
    for (int64_t p0 = 0; p0 < kp; p0 += kTile) {
      uint16_t* dst = row + p0 * kTile;
      const int64_t valid = i < m ? std::clamp<int64_t>(k - p0, 0, kTile) : 0;
      if (cs == 1) {
        const __mmask32 mask = valid == kTile ? ~__mmask32(0) : (__mmask32(1) << valid) - 1;
        _mm512_store_si512(dst, _mm512_maskz_loadu_epi16(mask, src + p0));
        continue;
      }
      for (int64_t p = 0; p < valid; ++p) dst[p] = src[(p0 + p) * cs];
      std::memset(dst + valid, 0, sizeof(uint16_t) * size_t(kTile - valid));
    }
  }
}

// Blocks [blk0, blk1) of 16 columns of b (b(p, j) at b[p * rs + j * cs]) in
// depth pairs, block blk at pb + blk * kp * 16. Row pair by row pair across
// the blocks, so that b is read along its rows.
GT_AMX void pack_b(const uint16_t* b, int64_t rs, int64_t cs, int64_t k, int64_t n, int64_t blk0,
                   int64_t blk1, int64_t kp, uint16_t* pb) {
  if (cs != 1) {
    for (int64_t blk = blk0; blk < blk1; ++blk) {
      const int64_t j0 = blk * 16, cols = std::clamp<int64_t>(n - j0, 0, 16);
      uint16_t* dst = pb + blk * kp * 16;
      for (int64_t p = 0; p < kp; p += 2, dst += 32)
        for (int64_t j = 0; j < 16; ++j)
          for (int64_t e = 0; e < 2; ++e)
            dst[j * 2 + e] = j < cols && p + e < k ? b[(p + e) * rs + (j0 + j) * cs] : uint16_t(0);
    }
    return;
  }
  for (int64_t p = 0; p < kp; p += 2) {
    for (int64_t blk = blk0; blk < blk1; ++blk) {
      const int64_t j0 = blk * 16, cols = std::clamp<int64_t>(n - j0, 0, 16);
      const __mmask16 mask = __mmask16((1u << cols) - 1);
      const __m256i lo =
          p < k ? _mm256_maskz_loadu_epi16(mask, b + p * rs + j0) : _mm256_setzero_si256();
      const __m256i hi = p + 1 < k ? _mm256_maskz_loadu_epi16(mask, b + (p + 1) * rs + j0)
                                   : _mm256_setzero_si256();
      const __m512i pairs = _mm512_or_si512(_mm512_cvtepu16_epi32(lo),
                                            _mm512_slli_epi32(_mm512_cvtepu16_epi32(hi), 16));
      _mm512_store_si512(pb + blk * kp * 16 + p * 16, pairs);
    }
  }
}

// Tiles 0-3 (+)= the row block of a at a0 (tile order) by b's 32 columns
// from b0, depths [k0, k1).
GT_AMX inline void multiply(const uint16_t* a0, const uint16_t* b0, int64_t kp, int64_t k0,
                            int64_t k1) {
  const uint16_t* b1 = b0 + kp * 16;
  for (int64_t p = k0; p < k1; p += kTile) {
    const uint16_t* at = a0 + p * kTile;
    _tile_loadd(4, at, 64);
    _tile_loadd(5, at + 16 * kTile, 64);
    _tile_loadd(6, b0 + p * 16, 64);
    _tile_loadd(7, b1 + p * 16, 64);
    _tile_dpbf16ps(0, 4, 6);
    _tile_dpbf16ps(1, 4, 7);
    _tile_dpbf16ps(2, 5, 6);
    _tile_dpbf16ps(3, 5, 7);
  }
}

GT_AMX inline void zero_c() {
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
}

GT_AMX inline void load_c(const float* c, int64_t ld) {
  _tile_loadd(0, c, ld * 4);
  _tile_loadd(1, c + 16, ld * 4);
  _tile_loadd(2, c + 16 * ld, ld * 4);
  _tile_loadd(3, c + 16 * ld + 16, ld * 4);
}

GT_AMX inline void store_c(float* c, int64_t ld) {
  _tile_stored(0, c, ld * 4);
  _tile_stored(1, c + 16, ld * 4);
  _tile_stored(2, c + 16 * ld, ld * 4);
  _tile_stored(3, c + 16 * ld + 16, ld * 4);
}

// NOTE [Rounding as the tiles leave]
// A bfloat16 result used to be summed into a float32 copy of c and rounded by
// a second pass over it, which (with the copy's allocation) was a third of the
// call at 1024^2. Now a block's sums go through a 4 KiB buffer on the stack
// and are rounded there, 16 at a time, by the same integer steps as every
// float32 -> bfloat16 conversion here (core/half.h): to nearest, ties to even,
// any NaN to 0x7FC0. Not the CPU's VCVTNEPS2BF16, which flushes subnormal
// inputs to zero: the bits must be the ones the widened path and torch give.
GT_AMX inline __m256i round_bfloat16(__m512i x) {
  const __m512i odd = _mm512_and_si512(_mm512_srli_epi32(x, 16), _mm512_set1_epi32(1));
  const __m512i r =
      _mm512_srli_epi32(_mm512_add_epi32(_mm512_add_epi32(x, _mm512_set1_epi32(0x7FFF)), odd), 16);
  const __mmask16 nan = _mm512_cmpgt_epu32_mask(_mm512_and_si512(x, _mm512_set1_epi32(0x7FFFFFFF)),
                                                _mm512_set1_epi32(0x7F800000));
  return _mm512_cvtepi32_epi16(_mm512_mask_mov_epi32(r, nan, _mm512_set1_epi32(0x7FC0)));
}

// rows x cols of float32 src (row stride 32) rounded into bfloat16 dst.
GT_AMX void round_block(const float* src, uint16_t* dst, int64_t ld, int64_t rows, int64_t cols) {
  const __mmask16 lo = __mmask16((1u << std::min<int64_t>(cols, 16)) - 1);
  const __mmask16 hi = __mmask16((1u << std::clamp<int64_t>(cols - 16, 0, 16)) - 1);
  for (int64_t r = 0; r < rows; ++r) {
    const float* s = src + r * kTile;
    uint16_t* d = dst + r * ld;
    const __m256i a = round_bfloat16(_mm512_load_si512(s));
    const __m256i b = round_bfloat16(_mm512_load_si512(s + 16));
    if (cols == kTile) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(d), a);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + 16), b);
    } else {
      _mm256_mask_storeu_epi16(d, lo, a);
      if (hi) _mm256_mask_storeu_epi16(d + 16, hi, b);
    }
  }
}

// Where the blocks of c go. Float32 c (c, ldc) gets the sums, added to its
// old values if `accumulate`; with `out` set, c holds only the sums of the
// depth blocks before the last, and the last block's sums are rounded into
// bfloat16 out (row stride ldo).
struct Dest {
  float* c;
  int64_t ldc;
  uint16_t* out;
  int64_t ldo;
  bool accumulate;
};

// Product's a: a(i, p) at data[i * rs + p * cs], m x k.
struct Source {
  const uint16_t* data;
  int64_t rs, cs, m, k;
};

// Row blocks [r0, r1) of c, a chunk of b's columns (1 MiB, in L2) at a
// time: for each row block, depth block by depth block, every 32 columns of
// the chunk (NOTE [AMX loop order]). Whole 32 x 32 blocks of c add up in
// `part` (a row block of the chunk, 64 KiB) or in c between depth blocks; a
// block on the bottom or right edge sums over all depths at once in `edge` and
// is written after the last.
GT_AMX void run_rows(const Source& a, uint16_t* pa, const uint16_t* pb, const Dest& d, int64_t n,
                     int64_t kp, int64_t np, int64_t r0, int64_t r1) {
  const int64_t m = a.m;
  thread_local std::vector<float> part_buf;
  float* part = d.out && kp > kDepth ? line_buffer(part_buf, kTile * kChunk) : nullptr;
  configure_tiles();
  alignas(64) float edge[kTile * kTile];
  for (int64_t j0 = 0; j0 < np; j0 += kChunk) {
    const int64_t j1 = std::min(np, j0 + kChunk);
    for (int64_t rb = r0; rb < r1; ++rb) {
      const int64_t i = rb * kTile;
      const uint16_t* a0 = pa + i * kp;
      // Packed as it is first used, so its tiles are still in L1 and L2.
      if (j0 == 0) pack_a(a.data, a.rs, a.cs, m, a.k, i, i + kTile, kp, pa);
      for (int64_t k0 = 0; k0 < kp; k0 += kDepth) {
        const int64_t k1 = std::min(kp, k0 + kDepth);
        const bool round_now = d.out && k1 == kp;
        for (int64_t j = j0; j < j1; j += kTile) {
          const uint16_t* b0 = pb + (j / 16) * kp * 16;
          if (i + kTile <= m && j + kTile <= n) {
            float* ct = part ? part + (j - j0) : d.c + i * d.ldc + j;
            const int64_t ld = part ? kChunk : d.ldc;
            if (k0 == 0 && !d.accumulate) {
              zero_c();
            } else {
              load_c(ct, ld);
            }
            multiply(a0, b0, kp, k0, k1);
            if (round_now) {
              store_c(edge, kTile);
              round_block(edge, d.out + i * d.ldo + j, d.ldo, kTile, kTile);
            } else {
              store_c(ct, ld);
            }
            continue;
          }
          if (k0 > 0) continue;
          zero_c();
          multiply(a0, b0, kp, 0, kp);
          store_c(edge, kTile);
          const int64_t rows = std::min(kTile, m - i), cols = std::min(kTile, n - j);
          if (d.out) {
            round_block(edge, d.out + i * d.ldo + j, d.ldo, rows, cols);
            continue;
          }
          for (int64_t r = 0; r < rows; ++r) {
            float* dst = d.c + (i + r) * d.ldc + j;
            const float* src = edge + r * kTile;
            if (d.accumulate) {
              for (int64_t q = 0; q < cols; ++q) dst[q] += src[q];
            } else {
              std::memcpy(dst, src, sizeof(float) * size_t(cols));
            }
          }
        }
      }
    }
  }
  _tile_release();
}

// Packs b and each thread's rows of a, then runs the row blocks; `c_of(s)`
// and `out_of(s)` give product s's float32 c and bfloat16 out.
template <typename COf, typename OutOf>
void run_products(const Tensor& a, const Tensor& b, int64_t batch, int64_t m, int64_t n, int64_t k,
                  int64_t ldc, int64_t ldo, bool accumulate, const COf& c_of, const OutOf& out_of) {
  const int64_t mp = round_up(m, kTile), np = round_up(n, kTile),
                kp = round_up(std::max<int64_t>(k, 1), kTile);
  thread_local std::vector<uint16_t> pa_buf, pb_buf;
  uint16_t* pa = line_buffer(pa_buf, mp * kp);
  uint16_t* pb = line_buffer(pb_buf, np * kp);
  const auto* ab = a.data<uint16_t>();
  const auto* bb = b.data<uint16_t>();
  const int64_t row_blocks = mp / kTile;
  // A thread's share at least 2^25 multiply-adds (256^3 takes ~0.1 ms on one
  // thread; waking a second cost more than that on a busy machine).
  const int64_t grain = std::max<int64_t>(1, (int64_t(1) << 25) / (kTile * np * kp));
  for (int64_t s = 0; s < batch; ++s) {
    const uint16_t* as = ab + s * a.strides()[0];
    const uint16_t* bs = bb + s * b.strides()[0];
    parallel_for(np / 16, std::max<int64_t>(1, (int64_t(1) << 18) / (kp * 16)),
                 [&](int64_t lo, int64_t hi) {
                   pack_b(bs, b.strides()[1], b.strides()[2], k, n, lo, hi, kp, pb);
                 });
    const Dest d{c_of(s), ldc, out_of(s), ldo, accumulate};
    const Source src{as, a.strides()[1], a.strides()[2], m, k};
    parallel_for(row_blocks, grain,
                 [&](int64_t lo, int64_t hi) { run_rows(src, pa, pb, d, n, kp, np, lo, hi); });
  }
}

}  // namespace

void gemm_amx_bf16(const Tensor& c, const Tensor& a, const Tensor& b, bool accumulate) {
  float* cb = c.data<float>();
  const int64_t sc = c.strides()[0];
  run_products(
      a, b, c.sizes()[0], c.sizes()[1], c.sizes()[2], a.sizes()[2], c.strides()[1], 0, accumulate,
      [&](int64_t s) { return cb + s * sc; }, [](int64_t) -> uint16_t* { return nullptr; });
}

void gemm_amx_bf16_rounded(const Tensor& out, const Tensor& a, const Tensor& b) {
  auto* ob = out.data<uint16_t>();
  const int64_t so = out.strides()[0];
  run_products(
      a, b, out.sizes()[0], out.sizes()[1], out.sizes()[2], a.sizes()[2], 0, out.strides()[1],
      false, [](int64_t) -> float* { return nullptr; }, [&](int64_t s) { return ob + s * so; });
}

#else

bool amx_bf16_available() { return false; }
void gemm_amx_bf16(const Tensor&, const Tensor&, const Tensor&, bool) {}
void gemm_amx_bf16_rounded(const Tensor&, const Tensor&, const Tensor&) {}

#endif

}  // namespace gradtrack::kernels
