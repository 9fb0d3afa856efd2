// Random number kernels over a counter-based generator.
#include <cmath>

#include "kernels/random.h"
#include "kernels/elementwise.h"
#include "kernels/parallel.h"

namespace gradtrack::kernels {

namespace {

struct Block {
  uint32_t v[4];
};

// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3").
Block philox(uint64_t key, uint64_t counter) {
  uint32_t c0 = static_cast<uint32_t>(counter), c1 = static_cast<uint32_t>(counter >> 32);
  uint32_t c2 = 0, c3 = 0;
  uint32_t k0 = static_cast<uint32_t>(key), k1 = static_cast<uint32_t>(key >> 32);
  for (int round = 0; round < 10; ++round) {
    uint64_t p0 = uint64_t(0xD2511F53u) * c0;
    uint64_t p1 = uint64_t(0xCD9E8D57u) * c2;
    uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1 ^ k0;
    uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c3 ^ k1;
    c1 = static_cast<uint32_t>(p1);
    c3 = static_cast<uint32_t>(p0);
    c0 = n0;
    c2 = n2;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return {{c0, c1, c2, c3}};
}

// A uniform double in [0, 1) with 53 random bits, or a float with 24.
double unit53(const Block& b) {
  uint64_t bits = (uint64_t(b.v[0]) << 21) ^ (uint64_t(b.v[1]) >> 11);
  return static_cast<double>(bits & ((uint64_t(1) << 53) - 1)) * (1.0 / 9007199254740992.0);
}
float unit24(const Block& b) { return static_cast<float>(b.v[0] >> 8) * (1.0f / 16777216.0f); }

// Fills a dense buffer element by element, then copies into strided `out`.
template <typename T, typename F>
void fill_random(const Tensor& out, Generator& gen, const F& make) {
  const int64_t n = out.numel();
  const std::pair<uint64_t, uint64_t> counters = gen.reserve(static_cast<uint64_t>(n));
  const uint64_t key = counters.first, base = counters.second;
  Tensor dst = out.is_contiguous() && out.is_aligned() ? out : empty(out.sizes(), out.dtype());
  T* p = dst.data<T>();
  parallel_for(n, kGrainSize / 4, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) p[i] = make(philox(key, base + static_cast<uint64_t>(i)));
  });
  if (!dst.is_same(out)) copy(out, dst);
}

}  // namespace

void uniform(const Tensor& out, double lo, double hi, Generator& gen) {
  GT_DISPATCH_FLOAT(out.dtype(), "uniform_", [&] {
    using T = scalar_t;
    fill_random<T>(out, gen, [lo, hi](const Block& b) -> T {
      if constexpr (std::is_same_v<T, float>) {
        T v = static_cast<T>(lo) + static_cast<T>(hi - lo) * unit24(b);
        return v < static_cast<T>(hi) || hi == lo ? v : static_cast<T>(lo);
      } else {
        return lo + (hi - lo) * unit53(b);
      }
    });
  });
}

void normal(const Tensor& out, double mean, double std, Generator& gen) {
  GT_DISPATCH_FLOAT(out.dtype(), "normal_", [&] {
    using T = scalar_t;
    fill_random<T>(out, gen, [mean, std](const Block& b) -> T {
      // Box-Muller on the block's two halves; u1 in (0, 1] keeps log finite.
      double u1 = (static_cast<double>(b.v[2]) + 1.0) * (1.0 / 4294967296.0);
      double u2 = unit53(b);
      double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
      return static_cast<T>(mean + std * z);
    });
  });
}

void randint(const Tensor& out, int64_t lo, int64_t hi, Generator& gen) {
  const uint64_t range = static_cast<uint64_t>(hi - lo);
  GT_DISPATCH_ALL(out.dtype(), [&] {
    using T = scalar_t;
    fill_random<T>(out, gen, [lo, range](const Block& b) -> T {
      uint64_t bits = (uint64_t(b.v[0]) << 32) | b.v[1];
      return static_cast<T>(lo + static_cast<int64_t>(bits % range));
    });
  });
}

void randperm(const Tensor& out, Generator& gen) {
  const int64_t n = out.numel();
  int64_t* p = out.data<int64_t>();
  for (int64_t i = 0; i < n; ++i) p[i] = i;
  const std::pair<uint64_t, uint64_t> counters = gen.reserve(static_cast<uint64_t>(n));
  const uint64_t key = counters.first, base = counters.second;
  // Fisher-Yates, one counter per swap.
  for (int64_t i = n - 1; i > 0; --i) {
    Block b = philox(key, base + static_cast<uint64_t>(i));
    uint64_t bits = (uint64_t(b.v[0]) << 32) | b.v[1];
    int64_t j = static_cast<int64_t>(bits % static_cast<uint64_t>(i + 1));
    std::swap(p[i], p[j]);
  }
}

}  // namespace gradtrack::kernels
