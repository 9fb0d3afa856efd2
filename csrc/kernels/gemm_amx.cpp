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
// rounded to bfloat16 once, by the caller. Each step here loads two tiles of a
// and two of b and runs four multiplies into a 32 x 32 block of c held in
// tiles 0-3. a is packed in tile order (each 32 x 32 tile 1 KiB in a row) and
// b in pairs of depths ("VNNI": [depth / 2][16 columns][2]) per 16 columns,
// both zero-padded, so every tile is whole and read in order. A tile load that
// misses L1 measured ~5x slower than one that hits, hence the depth blocks
// (a row block's tiles of a stay in L1) and prefetching b two steps ahead.
// One thread, Intel Xeon (Sapphire Rapids class, machine shared with builds),
// against the widened float32 path: 2.5-4x faster at 256-2048; against torch
// 2.13 (oneDNN) in turns: 1.5-2.7x slower, so there is more to win here.
constexpr int64_t kTile = 32;    // rows and columns of a c block, depths per step
constexpr int64_t kChunk = 256;  // columns of b kept in L2 while row blocks pass

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

// Depths per block: a row block's tiles of a for one block (32 KiB) stay in
// L1 while the columns of a chunk of b pass.
constexpr int64_t kDepth = 512;

// Rows [i0, i1) (whole row blocks) of a (a(i, p) at a[i * rs + p * cs]) into
// pa in tile order: each 32 x 32 tile of a row block contiguous, row-major,
// the tiles of a row block one after another along the depth, so that every
// tile load reads 1 KiB in order.
void pack_a(const uint16_t* a, int64_t rs, int64_t cs, int64_t m, int64_t k, int64_t i0, int64_t i1,
            int64_t kp, uint16_t* pa) {
  for (int64_t i = i0; i < i1; ++i) {
    uint16_t* row = pa + (i / kTile) * kp * kTile + (i % kTile) * kTile;
    const uint16_t* src = a + i * rs;
    for (int64_t p0 = 0; p0 < kp; p0 += kTile) {
      uint16_t* dst = row + p0 * kTile;
      const int64_t valid = i < m ? std::clamp<int64_t>(k - p0, 0, kTile) : 0;
      if (cs == 1) {
        std::memcpy(dst, src + p0, sizeof(uint16_t) * size_t(valid));
      } else {
        for (int64_t p = 0; p < valid; ++p) dst[p] = src[(p0 + p) * cs];
      }
      std::memset(dst + valid, 0, sizeof(uint16_t) * size_t(kTile - valid));
    }
  }
}

// 16 columns of b from j0 (b(p, j) at b[p * rs + j * cs]) in depth pairs.
GT_AMX void pack_b(const uint16_t* b, int64_t rs, int64_t cs, int64_t k, int64_t n, int64_t j0,
                   int64_t kp, uint16_t* pb) {
  const int64_t cols = std::clamp<int64_t>(n - j0, 0, 16);
  const __mmask16 mask = __mmask16((1u << cols) - 1);
  for (int64_t p = 0; p < kp; p += 2) {
    uint16_t* dst = pb + p * 16;
    if (cs == 1) {
      const __m256i lo =
          p < k ? _mm256_maskz_loadu_epi16(mask, b + p * rs + j0) : _mm256_setzero_si256();
      const __m256i hi = p + 1 < k ? _mm256_maskz_loadu_epi16(mask, b + (p + 1) * rs + j0)
                                   : _mm256_setzero_si256();
      const __m512i pairs = _mm512_or_si512(_mm512_cvtepu16_epi32(lo),
                                            _mm512_slli_epi32(_mm512_cvtepu16_epi32(hi), 16));
      _mm512_storeu_si512(dst, pairs);
    } else {
      for (int64_t j = 0; j < 16; ++j)
        for (int64_t e = 0; e < 2; ++e)
          dst[j * 2 + e] = j < cols && p + e < k ? b[(p + e) * rs + (j0 + j) * cs] : uint16_t(0);
    }
  }
}

// Tiles 0-3 (+)= the row block of a at a0 (tile order) by b's 32 columns
// from b0, depths [k0, k1).
GT_AMX inline void multiply(const uint16_t* a0, const uint16_t* b0, int64_t kp, int64_t k0,
                            int64_t k1) {
  const uint16_t* b1 = b0 + kp * 16;
  for (int64_t p = k0; p < k1; p += kTile) {
    // b's tiles come from L2: a tile load that misses L1 waits for its 16
    // lines one by one, so the lines two steps ahead are asked for now.
    const char* ahead0 = reinterpret_cast<const char*>(b0 + (p + 2 * kTile) * 16);
    const char* ahead1 = reinterpret_cast<const char*>(b1 + (p + 2 * kTile) * 16);
    for (int l = 0; l < 16; ++l) {
      _mm_prefetch(ahead0 + 64 * l, _MM_HINT_T0);
      _mm_prefetch(ahead1 + 64 * l, _MM_HINT_T0);
    }
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

// Row blocks [r0, r1) of c, depth block by depth block: a block's rows of a
// stay in L1 while the columns of a chunk of b (256 KiB, L2) pass. Whole
// 32 x 32 blocks of c add up in c itself; a block on the bottom or right edge
// sums in `edge` over the blocks and is written after the last.
GT_AMX void run_rows(const uint16_t* pa, const uint16_t* pb, float* c, int64_t ldc, int64_t m,
                     int64_t n, int64_t kp, int64_t np, int64_t r0, int64_t r1, bool accumulate) {
  configure_tiles();
  for (int64_t k0 = 0; k0 < kp; k0 += kDepth) {
    const int64_t k1 = std::min(kp, k0 + kDepth);
    for (int64_t j0 = 0; j0 < np; j0 += kChunk) {
      const int64_t j1 = std::min(np, j0 + kChunk);
      for (int64_t rb = r0; rb < r1; ++rb) {
        const int64_t i = rb * kTile;
        const uint16_t* a0 = pa + i * kp;
        for (int64_t j = j0; j < j1; j += kTile) {
          const uint16_t* b0 = pb + (j / 16) * kp * 16;
          if (i + kTile <= m && j + kTile <= n) {
            float* ct = c + i * ldc + j;
            if (k0 == 0 && !accumulate) {
              zero_c();
            } else {
              load_c(ct, ldc);
            }
            multiply(a0, b0, kp, k0, k1);
            store_c(ct, ldc);
            continue;
          }
          if (k0 > 0) continue;
          alignas(64) float edge[kTile * kTile];
          zero_c();
          multiply(a0, b0, kp, 0, kp);
          store_c(edge, kTile);
          const int64_t rows = std::min(kTile, m - i), cols = std::min(kTile, n - j);
          for (int64_t r = 0; r < rows; ++r) {
            float* dst = c + (i + r) * ldc + j;
            const float* src = edge + r * kTile;
            if (accumulate) {
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

}  // namespace

void gemm_amx_bf16(const Tensor& c, const Tensor& a, const Tensor& b, bool accumulate) {
  const int64_t batch = c.sizes()[0], m = c.sizes()[1], n = c.sizes()[2], k = a.sizes()[2];
  const int64_t mp = round_up(m, kTile), np = round_up(n, kTile),
                kp = round_up(std::max<int64_t>(k, 1), kTile);
  thread_local std::vector<uint16_t> pa_buf, pb_buf;
  pa_buf.resize(size_t(mp * kp));
  pb_buf.resize(size_t(np * kp));
  uint16_t* pa = pa_buf.data();
  uint16_t* pb = pb_buf.data();
  const auto* ab = a.data<uint16_t>();
  const auto* bb = b.data<uint16_t>();
  float* cb = c.data<float>();
  const int64_t row_blocks = mp / kTile;
  // A thread's share at least 2^25 multiply-adds (256^3 takes ~0.1 ms on one
  // thread; waking a second cost more than that on a busy machine).
  const int64_t grain = std::max<int64_t>(1, (int64_t(1) << 25) / (kTile * np * kp));
  for (int64_t s = 0; s < batch; ++s) {
    const uint16_t* as = ab + s * a.strides()[0];
    const uint16_t* bs = bb + s * b.strides()[0];
    float* cs = cb + s * c.strides()[0];
    parallel_for(
        np / 16, std::max<int64_t>(1, (int64_t(1) << 20) / (kp * 16)), [&](int64_t lo, int64_t hi) {
          for (int64_t blk = lo; blk < hi; ++blk)
            pack_b(bs, b.strides()[1], b.strides()[2], k, n, blk * 16, kp, pb + blk * kp * 16);
        });
    parallel_for(row_blocks, grain, [&](int64_t lo, int64_t hi) {
      pack_a(as, a.strides()[1], a.strides()[2], m, k, lo * kTile, hi * kTile, kp, pa);
      run_rows(pa, pb, cs, c.strides()[1], m, n, kp, np, lo, hi, accumulate);
    });
  }
}

#else

bool amx_bf16_available() { return false; }
void gemm_amx_bf16(const Tensor&, const Tensor&, const Tensor&, bool) {}

#endif

}  // namespace gradtrack::kernels
