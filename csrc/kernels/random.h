// Random draws from a generator's counters (Philox4x32-10 in random.cpp).
#pragma once

#include <cstdint>

#include "core/generator.h"
#include "core/tensor.h"

namespace gradtrack::kernels {

void uniform(const Tensor& out, double lo, double hi, Generator& gen);
void normal(const Tensor& out, double mean, double std, Generator& gen);
/// Integers in [lo, hi).
void randint(const Tensor& out, int64_t lo, int64_t hi, Generator& gen);
/// A random permutation of 0..n-1 into a dense int64 tensor.
void randperm(const Tensor& out, Generator& gen);

}  // namespace gradtrack::kernels
