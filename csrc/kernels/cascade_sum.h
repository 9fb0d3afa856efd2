// Float sums in PyTorch's order, so that a printed loss equals torch's to the
// last bit (NOTE [PyTorch's summation order] in cascade_sum.cpp).
#pragma once

#include <cstdint>

namespace gradtrack::kernels {

/// The sum of the contiguous run p[0..n), every addition in T's precision, in
/// the order PyTorch's CPU sum kernel takes on this machine (the same split
/// across `threads` chunks when n reaches its parallel grain).
float cascade_sum(const float* p, int64_t n, int threads);
double cascade_sum(const double* p, int64_t n, int threads);

}  // namespace gradtrack::kernels
