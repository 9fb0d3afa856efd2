// torch's CPU random number generator: an mt19937 engine plus the cached
// second Box-Muller sample, with torch's seeding and its state byte layout.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace gradtrack {

/// The 32-bit Mersenne Twister in the form torch keeps it: the state words,
/// the index of the next word, and a countdown to the next regeneration.
class MT19937 {
 public:
  static constexpr int kN = 624;
  static constexpr int kM = 397;

  explicit MT19937(uint64_t seed = 5489) { reseed(seed); }
  void reseed(uint64_t seed);
  uint32_t operator()() {
    if (--left_ == 0) regenerate();
    uint32_t y = state_[next_++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
  }
  /// Fills out[0..n) with the next n draws (same values as n calls).
  void fill(uint32_t* out, int64_t n);
  /// A state torch would accept (seeded, 0 < left <= N, next <= N).
  bool valid() const { return seeded_ && left_ > 0 && left_ <= kN && next_ <= uint32_t(kN); }

  uint64_t seed_ = 0;
  int left_ = 1;
  bool seeded_ = false;
  uint32_t next_ = 0;
  std::array<uint32_t, kN> state_{};

 private:
  void regenerate();
};

/// A CPU generator (torch.Generator): every draw is serial under `mutex()`,
/// so the stream never depends on the thread count.
class Generator {
 public:
  static constexpr uint64_t kDefaultSeed = 67280421310721ULL;  // torch.Generator()'s seed
  static constexpr size_t kStateBytes = 5056;  // sizeof torch's CPUGeneratorImplState

  explicit Generator(uint64_t seed = kDefaultSeed) : engine_(seed) {}

  std::mutex& mutex() { return mutex_; }
  void manual_seed(uint64_t seed);
  /// Reseeds from the operating system's entropy and returns the new seed.
  uint64_t seed();
  uint64_t initial_seed() const { return engine_.seed_; }

  uint32_t random() { return engine_(); }
  /// Two 32-bit draws, the first one as the high half (torch's random64).
  uint64_t random64() {
    const uint64_t hi = engine_();
    return (hi << 32) | engine_();
  }
  MT19937& engine() { return engine_; }

  std::optional<double> next_double_normal;
  std::optional<float> next_float_normal;

  /// torch.get_rng_state()'s bytes.
  std::vector<uint8_t> get_state();
  /// Restores bytes from get_state (or torch's); throws on a bad state.
  void set_state(const uint8_t* bytes, size_t n);

 private:
  MT19937 engine_;
  std::mutex mutex_;
};

/// The generator gradtrack.manual_seed and draws without generator= use.
Generator& default_generator();
std::shared_ptr<Generator> default_generator_ptr();

/// A fresh non-deterministic 64-bit seed.
uint64_t nondeterministic_seed();

}  // namespace gradtrack
