// Random draws with torch's CPU algorithms (core/generator.h holds the engine).
// Every fill takes the generator's lock and draws serially, element by element
// in TensorIterator order (dimensions sorted by stride, smallest innermost), so
// the numbers equal torch's whatever the thread count.
#pragma once

#include <cstdint>

#include "core/generator.h"
#include "core/tensor.h"

namespace gradtrack::kernels {

void uniform(const Tensor& out, double lo, double hi, Generator& gen);
/// torch's normal_: a batched Box-Muller over 16-element blocks for contiguous
/// outputs of 16 elements or more, one cached pair at a time otherwise.
void normal(const Tensor& out, double mean, double std, Generator& gen);
/// Integers in [base, base + range) (randint, random_(from, to)).
void random_from_to(const Tensor& out, uint64_t range, int64_t base, Generator& gen);
/// random_() without bounds: [0, 2^mantissa] for floats, [0, max] for integers.
void random_default(const Tensor& out, Generator& gen);
/// random_(from=int64 min, to=None): the full 64-bit range.
void random_full_range(const Tensor& out, Generator& gen);
/// Integers in [lo, hi).
inline void randint(const Tensor& out, int64_t lo, int64_t hi, Generator& gen) {
  random_from_to(out, static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo), lo, gen);
}
/// A random permutation of 0..n-1 into a dense int64 tensor.
void randperm(const Tensor& out, Generator& gen);

void bernoulli_scalar(const Tensor& out, double p, Generator& gen);
/// `p` already broadcast to out's shape, any floating dtype.
void bernoulli_tensor(const Tensor& out, const Tensor& p, Generator& gen);
void exponential(const Tensor& out, double lambda, Generator& gen);
void geometric(const Tensor& out, double p, Generator& gen);
void cauchy(const Tensor& out, double median, double sigma, Generator& gen);
void log_normal(const Tensor& out, double mean, double std, Generator& gen);
/// One row of multinomial with replacement: `probs` (n_categories, any
/// stride, float or double) to `n_sample` indices at out[j * out_stride].
void multinomial_row(const Tensor& probs, int64_t n_sample, int64_t* out, int64_t out_stride,
                     Generator& gen);

}  // namespace gradtrack::kernels
