#include "core/generator.h"

namespace gradtrack {

void Generator::manual_seed(uint64_t seed) { set_state(seed, 0); }

void Generator::set_state(uint64_t seed, uint64_t offset) {
  std::lock_guard<std::mutex> lock(mutex_);
  seed_ = seed;
  offset_ = offset;
}

std::pair<uint64_t, uint64_t> Generator::reserve(uint64_t n) {
  std::lock_guard<std::mutex> lock(mutex_);
  uint64_t first = offset_;
  offset_ += n;
  return {seed_, first};
}

Generator& default_generator() {
  static Generator g;
  return g;
}

}  // namespace gradtrack
