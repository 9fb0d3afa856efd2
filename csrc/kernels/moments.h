// Mean and variance along one run of dims, accumulated in double.
#pragma once

#include <cstdint>

#include "core/tensor.h"

namespace gradtrack::kernels {

/// Over one contiguous run of n values, in double over lanes (NOTE [Lane
/// sums]): their sum, and the sum of their squared deviations from m.
double run_sum(const float* p, int64_t n);
double run_sum(const double* p, int64_t n);
double run_sqdev(const float* p, int64_t n, double m);
double run_sqdev(const double* p, int64_t n, double m);

/// Dense x read as [outer, n, inner]: for each (o, i), the mean of its n
/// elements and the sum of squared deviations divided by `dof` (its square
/// root when `take_sqrt`), into dense [outer, inner] `var` and `mean` (which
/// may be undefined). Two passes in double, as PyTorch's CPU var/std keep a
/// float32 statistic to its last bit.
void moments(const Tensor& x, int64_t outer, int64_t n, int64_t inner, double dof, bool take_sqrt,
             const Tensor& var, const Tensor& mean);

}  // namespace gradtrack::kernels
