// The random number generator's state: a seed and a counter offset.
#pragma once

#include <cstdint>
#include <mutex>
#include <utility>

namespace gradtrack {

/// A counter-based generator (Philox4x32-10, in kernels/random.cpp): the same
/// seed gives the same numbers whatever the thread count, because element i
/// of a draw always uses counter (offset + i).
class Generator {
 public:
  void manual_seed(uint64_t seed);
  uint64_t initial_seed() const { return seed_; }
  uint64_t seed() const { return seed_; }
  uint64_t offset() const { return offset_; }
  void set_state(uint64_t seed, uint64_t offset);
  /// Reserves n counters for one draw: (key, first counter). Draws from
  /// several threads each get their own counters.
  std::pair<uint64_t, uint64_t> reserve(uint64_t n);

 private:
  uint64_t seed_ = 67280421310721ULL;  // PyTorch's default CPU seed
  uint64_t offset_ = 0;
  std::mutex mutex_;
};

/// The generator gradtrack.manual_seed and the random factories use.
Generator& default_generator();

}  // namespace gradtrack
