#include "core/generator.h"

#include <cstring>
#include <random>

#include "core/error.h"

namespace gradtrack {

void MT19937::reseed(uint64_t seed) {
  // Knuth's multiplier, as in the reference init_genrand; only the low 32 bits
  // seed the words, the full 64 are kept as the reported initial seed.
  seed_ = seed;
  seeded_ = true;
  state_[0] = static_cast<uint32_t>(seed);
  for (int j = 1; j < kN; ++j)
    state_[j] = 1812433253u * (state_[j - 1] ^ (state_[j - 1] >> 30)) + static_cast<uint32_t>(j);
  left_ = 1;
  next_ = 0;
}

void MT19937::regenerate() {
  constexpr uint32_t kMatrixA = 0x9908b0dfu, kUpper = 0x80000000u, kLower = 0x7fffffffu;
  auto twist = [](uint32_t u, uint32_t v) {
    const uint32_t mixed = (u & kUpper) | (v & kLower);
    return (mixed >> 1) ^ ((v & 1u) ? kMatrixA : 0u);
  };
  uint32_t* s = state_.data();
  for (int i = 0; i < kN - kM; ++i) s[i] = s[i + kM] ^ twist(s[i], s[i + 1]);
  for (int i = kN - kM; i < kN - 1; ++i) s[i] = s[i + kM - kN] ^ twist(s[i], s[i + 1]);
  s[kN - 1] = s[kM - 1] ^ twist(s[kN - 1], s[0]);
  left_ = kN;
  next_ = 0;
}

void MT19937::fill(uint32_t* out, int64_t n) {
  // Same stream as n calls of operator(); the loop over the ready words has no
  // branch per draw, so it vectorises.
  int64_t i = 0;
  while (i < n) {
    if (left_ == 1) {
      out[i++] = (*this)();
      continue;
    }
    const int64_t ready = std::min<int64_t>(n - i, left_ - 1);
    const uint32_t* src = state_.data() + next_;
    for (int64_t k = 0; k < ready; ++k) {
      uint32_t y = src[k];
      y ^= y >> 11;
      y ^= (y << 7) & 0x9d2c5680u;
      y ^= (y << 15) & 0xefc60000u;
      y ^= y >> 18;
      out[i + k] = y;
    }
    next_ += static_cast<uint32_t>(ready);
    left_ -= static_cast<int>(ready);
    i += ready;
  }
}

void Generator::manual_seed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(mutex_);
  next_double_normal.reset();
  next_float_normal.reset();
  engine_.reseed(seed);
}

uint64_t Generator::seed() {
  const uint64_t s = nondeterministic_seed();
  manual_seed(s);
  return s;
}

namespace {

// torch's CPUGeneratorImplState, field by field (x86-64 layout, little endian).
constexpr size_t kSeedAt = 0, kLeftAt = 8, kSeededAt = 12, kNextAt = 16, kWordsAt = 24;
constexpr size_t kNormalYAt = 5024, kNormalValidAt = 5040, kFloatAt = 5048, kFloatValidAt = 5052;

template <typename T>
void put(std::vector<uint8_t>& b, size_t at, T v) {
  std::memcpy(b.data() + at, &v, sizeof(T));
}
template <typename T>
T take(const uint8_t* b, size_t at) {
  T v;
  std::memcpy(&v, b + at, sizeof(T));
  return v;
}

}  // namespace

std::vector<uint8_t> Generator::get_state() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<uint8_t> b(kStateBytes, 0);
  put<uint64_t>(b, kSeedAt, engine_.seed_);
  put<int32_t>(b, kLeftAt, engine_.left_);
  put<int32_t>(b, kSeededAt, engine_.seeded_ ? 1 : 0);
  put<uint64_t>(b, kNextAt, engine_.next_);
  for (int i = 0; i < MT19937::kN; ++i) put<uint64_t>(b, kWordsAt + 8 * i, engine_.state_[i]);
  if (next_double_normal) {
    put<int32_t>(b, kNormalValidAt, 1);
    put<double>(b, kNormalYAt, *next_double_normal);
  }
  if (next_float_normal) {
    put<uint8_t>(b, kFloatValidAt, 1);
    put<float>(b, kFloatAt, *next_float_normal);
  }
  return b;
}

void Generator::set_state(const uint8_t* b, size_t n) {
  GT_CHECK(n == kStateBytes, "Expected a CPUGeneratorImplState of size ", kStateBytes,
           " but found the input RNG state size to be ", n);
  MT19937 e;
  e.seed_ = take<uint64_t>(b, kSeedAt);
  e.left_ = take<int32_t>(b, kLeftAt);
  e.seeded_ = take<int32_t>(b, kSeededAt) != 0;
  e.next_ = static_cast<uint32_t>(take<uint64_t>(b, kNextAt));
  for (int i = 0; i < MT19937::kN; ++i)
    e.state_[i] = static_cast<uint32_t>(take<uint64_t>(b, kWordsAt + 8 * i));
  GT_CHECK(e.valid(), "Invalid mt19937 state");
  std::lock_guard<std::mutex> lock(mutex_);
  engine_ = e;
  next_double_normal.reset();
  next_float_normal.reset();
  if (take<int32_t>(b, kNormalValidAt)) next_double_normal = take<double>(b, kNormalYAt);
  if (take<uint8_t>(b, kFloatValidAt)) next_float_normal = take<float>(b, kFloatAt);
}

uint64_t nondeterministic_seed() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) | rd();
}

std::shared_ptr<Generator> default_generator_ptr() {
  // Seeded from entropy at start-up, as torch's default CPU generator is.
  static std::shared_ptr<Generator> g = std::make_shared<Generator>(nondeterministic_seed());
  return g;
}

Generator& default_generator() { return *default_generator_ptr(); }

}  // namespace gradtrack
