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
// and runs four multiplies into a 32 x 32 block of c held in tiles 0-3. b is
// packed in pairs of depths ("VNNI": [depth / 2][16 columns][2]) per 16
// columns, zero-padded, so every tile is whole and read in order; a is read
// where it lies when its rows allow (NOTE [AMX tiles straight from a]), else
// packed in tile order (each 32 x 32 tile 1 KiB in a row), zero-padded.
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

// The row block of a from row i0 (a(i, p) at a[i * rs + p * cs]) into pa in
// tile order: each 32 x 32 tile contiguous, row-major, the tiles one after
// another along the depth, so that every tile load reads 1 KiB in order.
// (A tile row is one masked 64-byte load: a memcpy of a variable length was
// inlined as a loop of 8-byte moves, a fifth of a 256^3 product's time.)
GT_AMX void pack_a(const uint16_t* a, int64_t rs, int64_t cs, int64_t m, int64_t k, int64_t i0,
                   int64_t kp, uint16_t* pa) {
  for (int64_t r = 0; r < kTile; ++r) {
    const int64_t i = i0 + r;
    uint16_t* row = pa + r * kTile;
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
// depth pairs, block blk at pb + (blk - first) * kp * 16. Row pair by row pair
// across the blocks, so that b is read along its rows.
GT_AMX void pack_b(const uint16_t* b, int64_t rs, int64_t cs, int64_t k, int64_t n, int64_t first,
                   int64_t blk0, int64_t blk1, int64_t kp, uint16_t* pb) {
  if (cs != 1) {
    for (int64_t blk = blk0; blk < blk1; ++blk) {
      const int64_t j0 = blk * 16, cols = std::clamp<int64_t>(n - j0, 0, 16);
      uint16_t* dst = pb + (blk - first) * kp * 16;
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
      _mm512_store_si512(pb + (blk - first) * kp * 16 + p * 16, pairs);
    }
  }
}

// NOTE [AMX prefetch of the next row block]
// A row block of a comes from L3 or memory once per chunk of b; waiting for it
// (in pack_a, or in the first tile loads when the tiles are read from a
// itself) was 7% of a 1024^3 product on one thread. So while a row block
// multiplies, the rows of the next one the thread takes are requested into L2
// (PREFETCHT1) a few lines per step, spread over the block's steps so that
// few misses are in flight at once: 2-3% of the whole product (Intel Xeon,
// family 6 model 207, one thread). Only for a with unit stride along the
// depth (its rows are then runs of lines).
struct Ahead {
  const char* row = nullptr;  // the row being requested
  int64_t row_bytes = 0;      // distance between rows
  int64_t lines = 0;          // lines per row
  int64_t line = 0;           // next line of `row`
  int64_t rows_left = 0;
  int64_t per_step = 0;  // lines requested per step of multiply

  GT_AMX void step() {
    for (int64_t t = 0; t < per_step && rows_left > 0; ++t) {
      _mm_prefetch(row + line * int64_t(kLine), _MM_HINT_T1);
      if (++line == lines) {
        line = 0;
        row += row_bytes;
        --rows_left;
      }
    }
  }
};

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

// A row of 32 float32 sums rounded into bfloat16 dst. (VCVTNE2PS2BF16 with a
// check for zero, subnormal, infinite and NaN sums, rounded here instead, was
// no faster at 1024^2: the rounding is not where the time goes.)
GT_AMX inline void round_row(const float* s, uint16_t* d) {
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(d), round_bfloat16(_mm512_load_si512(s)));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + 16),
                      round_bfloat16(_mm512_load_si512(s + 16)));
}

// rows x cols of float32 src (row stride 32) rounded into bfloat16 dst.
GT_AMX void round_block(const float* src, uint16_t* dst, int64_t ld, int64_t rows, int64_t cols) {
  const __mmask16 lo = __mmask16((1u << std::min<int64_t>(cols, 16)) - 1);
  const __mmask16 hi = __mmask16((1u << std::clamp<int64_t>(cols - 16, 0, 16)) - 1);
  for (int64_t r = 0; r < rows; ++r) {
    const float* s = src + r * kTile;
    uint16_t* d = dst + r * ld;
    if (cols == kTile) {
      round_row(s, d);
      continue;
    }
    _mm256_mask_storeu_epi16(d, lo, round_bfloat16(_mm512_load_si512(s)));
    if (hi) _mm256_mask_storeu_epi16(d + 16, hi, round_bfloat16(_mm512_load_si512(s + 16)));
  }
}

// NOTE [Rounding while the next block multiplies]
// Rounding a block right after its tiles were stored kept the vector units
// busy while the tile unit stood idle, and the next block's multiplies waited
// for it. Now a whole 32 x 32 block's sums wait in one of two 4 KiB buffers
// and are rounded a row per step of the next block's multiplies (the rest, if
// that block has fewer than 32 steps, before its own sums are stored): 3% of
// a 1024^3 product on one thread (Intel Xeon, family 6 model 207).
struct Pending {
  const float* src = nullptr;
  uint16_t* dst = nullptr;
  int64_t ld = 0;
  int64_t row = kTile;  // next row to round

  GT_AMX void step() {
    if (row == kTile) return;
    round_row(src + row * kTile, dst + row * ld);
    ++row;
  }
  GT_AMX void finish() {
    while (row < kTile) step();
  }
};

// Tiles 0-3 (+)= the row block of a at a0 (tile order) by b's 32 columns
// from b0, depths [k0, k1). The loads are spread between the multiplies
// (each multiply waits only for its own two tiles).
// Where a row block's tiles are: the tile of depths [p, p + 32) of rows
// 0-15 at at = a0 + p * step, rows 16-31 at at + half, rows `ld` bytes apart.
struct ATiles {
  const uint16_t* a0;
  int64_t step, half, ld;
};

GT_AMX inline void multiply(const ATiles& a, const uint16_t* b0, int64_t kp, int64_t k0, int64_t k1,
                            Ahead& ahead, Pending& pending) {
  const uint16_t* a0 = a.a0;
  const uint16_t* b1 = b0 + kp * 16;
  for (int64_t p = k0; p < k1; p += kTile) {
    ahead.step();
    pending.step();
    const uint16_t* at = a0 + p * a.step;
    _tile_loadd(4, at, a.ld);
    _tile_loadd(6, b0 + p * 16, 64);
    _tile_dpbf16ps(0, 4, 6);
    _tile_loadd(7, b1 + p * 16, 64);
    _tile_dpbf16ps(1, 4, 7);
    _tile_loadd(5, at + a.half, a.ld);
    _tile_dpbf16ps(2, 5, 6);
    _tile_dpbf16ps(3, 5, 7);
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

// Row blocks [r0, r1) of c by the columns [j0, j1) of b, packed at pb (at
// most a chunk: 1 MiB, in L2): for each row block, depth block by depth block,
// every 32 columns of the chunk (NOTE [AMX loop order]). Whole 32 x 32 blocks
// of c add up in `part` (a row block of the chunk, 64 KiB) or in c between
// depth blocks; a block on the bottom or right edge sums over all depths at
// once in `edge` and is written after the last.
GT_AMX void run_rows(const Source& a, const uint16_t* pb, const Dest& d, int64_t n, int64_t kp,
                     int64_t np, int64_t j0, int64_t j1, int64_t r0, int64_t r1) {
  const int64_t m = a.m;
  thread_local std::vector<float> part_buf;
  thread_local std::vector<uint16_t> pa_buf;
  float* part = d.out && kp > kDepth ? line_buffer(part_buf, kTile * kChunk) : nullptr;
  uint16_t* pa = line_buffer(pa_buf, kTile * kp);
  // NOTE [AMX tiles straight from a]
  // A tile load takes any distance between its 16 rows, so where a runs along
  // the depth with unit stride, its rows start on lines and the depth is whole
  // tiles, a full row block's tiles are loaded from a itself and a is not
  // copied at all (its last, partial row block still is, zero-padded). At
  // 1024^2 on one thread packing a was ~8% of the time; loading from a is 6%
  // faster overall, the row block's 32 rows then come to L1 from L2 as the
  // packed copy did.
  const bool direct = a.cs == 1 && a.k == kp && reinterpret_cast<uintptr_t>(a.data) % kLine == 0 &&
                      a.rs * int64_t(sizeof(uint16_t)) % int64_t(kLine) == 0;
  configure_tiles();
  alignas(64) float edge[kTile * kTile];
  alignas(64) float sums[2][kTile * kTile];  // NOTE [Rounding while the next block multiplies]
  int flip = 0;
  Pending pending;
  for (int64_t rb = r0; rb < r1; ++rb) {
    const int64_t i = rb * kTile;
    // NOTE [AMX packing in L2]
    ATiles at{pa, kTile, 16 * kTile, kTile * int64_t(sizeof(uint16_t))};
    if (direct && i + kTile <= m) {
      at = ATiles{a.data + i * a.rs, 1, 16 * a.rs, a.rs * int64_t(sizeof(uint16_t))};
    } else {
      pack_a(a.data, a.rs, a.cs, m, a.k, i, kp, pa);
    }
    // NOTE [AMX prefetch of the next row block]
    Ahead ahead;
    const int64_t next = rb + 1 < r1 ? rb + 1 : (j1 < np ? r0 : -1);
    if (a.cs == 1 && next >= 0 && next * kTile < m) {
      ahead.row = reinterpret_cast<const char*>(a.data + next * kTile * a.rs);
      ahead.row_bytes = a.rs * int64_t(sizeof(uint16_t));
      ahead.lines = (a.k * int64_t(sizeof(uint16_t)) + int64_t(kLine) - 1) / int64_t(kLine) + 1;
      ahead.rows_left = std::min(kTile, m - next * kTile);
      const int64_t steps = (j1 - j0) / kTile * (kp / kTile);
      ahead.per_step = (ahead.lines * ahead.rows_left + steps - 1) / steps;
    }
    for (int64_t k0 = 0; k0 < kp; k0 += kDepth) {
      const int64_t k1 = std::min(kp, k0 + kDepth);
      const bool round_now = d.out && k1 == kp;
      for (int64_t j = j0; j < j1; j += kTile) {
        const uint16_t* b0 = pb + ((j - j0) / 16) * kp * 16;
        if (i + kTile <= m && j + kTile <= n) {
          float* ct = part ? part + (j - j0) : d.c + i * d.ldc + j;
          const int64_t ld = part ? kChunk : d.ldc;
          if (k0 == 0 && !d.accumulate) {
            zero_c();
          } else {
            load_c(ct, ld);
          }
          multiply(at, b0, kp, k0, k1, ahead, pending);
          if (round_now) {
            pending.finish();
            float* buf = sums[flip];
            flip ^= 1;
            store_c(buf, kTile);
            pending = Pending{buf, d.out + i * d.ldo + j, d.ldo, 0};
          } else {
            store_c(ct, ld);
          }
          continue;
        }
        if (k0 > 0) continue;
        zero_c();
        multiply(at, b0, kp, 0, kp, ahead, pending);
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
  pending.finish();
  _tile_release();
}

// NOTE [AMX packing in L2]
// b is packed a chunk at a time (1 MiB) just before the row blocks pass it,
// and a (where it is copied at all: NOTE [AMX tiles straight from a]) one row
// block at a time into a buffer of the thread's own (64 KiB at a depth of
// 1024), again for each chunk. Both packed copies are then
// written to and read from L2: packing all of b and all of a up front wrote
// 2 MiB each at 1024^2, more than the L2 holds, so both went out to L3 and
// came back (each pass alone ran at memcpy speed, ~165 us of a 1.9 ms
// product on one thread of an Intel Xeon, family 6 model 207).

// For each chunk of b's columns, packs it (over the threads), then runs the
// row blocks over it; `c_of(s)` and `out_of(s)` give product s's float32 c
// and bfloat16 out.
template <typename COf, typename OutOf>
void run_products(const Tensor& a, const Tensor& b, int64_t batch, int64_t m, int64_t n, int64_t k,
                  int64_t ldc, int64_t ldo, bool accumulate, const COf& c_of, const OutOf& out_of) {
  const int64_t mp = round_up(m, kTile), np = round_up(n, kTile),
                kp = round_up(std::max<int64_t>(k, 1), kTile);
  thread_local std::vector<uint16_t> pb_buf;
  uint16_t* pb = line_buffer(pb_buf, std::min(np, kChunk) * kp);
  const auto* ab = a.data<uint16_t>();
  const auto* bb = b.data<uint16_t>();
  const int64_t row_blocks = mp / kTile;
  // A thread's share at least 2^25 multiply-adds (256^3 takes ~0.1 ms on one
  // thread; waking a second cost more than that on a busy machine).
  const int64_t grain = std::max<int64_t>(1, (int64_t(1) << 25) / (kTile * np * kp));
  const int64_t pack_grain = std::max<int64_t>(1, (int64_t(1) << 18) / (kp * 16));
  for (int64_t s = 0; s < batch; ++s) {
    const uint16_t* as = ab + s * a.strides()[0];
    const uint16_t* bs = bb + s * b.strides()[0];
    const Dest d{c_of(s), ldc, out_of(s), ldo, accumulate};
    const Source src{as, a.strides()[1], a.strides()[2], m, k};
    for (int64_t j0 = 0; j0 < np; j0 += kChunk) {
      const int64_t j1 = std::min(np, j0 + kChunk);
      parallel_for((j1 - j0) / 16, pack_grain, [&](int64_t lo, int64_t hi) {
        pack_b(bs, b.strides()[1], b.strides()[2], k, n, j0 / 16, j0 / 16 + lo, j0 / 16 + hi, kp,
               pb);
      });
      parallel_for(row_blocks, grain, [&](int64_t lo, int64_t hi) {
        run_rows(src, pb, d, n, kp, np, j0, j1, lo, hi);
      });
    }
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
