// Separable resampling along one dim: every output position along the dim is
// a weighted sum of a few input positions ("taps"). Padding (reflect,
// replicate) and interpolation (nearest, linear, cubic) are all this one map,
// and the backward of a map is the same map transposed.
#pragma once

#include <cstdint>
#include <vector>

#include "core/tensor.h"

namespace gradtrack::kernels {

/// For each of `out_size` positions: `taps` input positions and their weights
/// (idx/w hold out_size * taps entries, the taps of one position together).
struct Taps {
  int64_t taps = 1;
  int64_t in_size = 0, out_size = 0;
  std::vector<int64_t> idx;
  std::vector<double> w;
};

/// out[pre, o, post] = sum_t w[o, t] * in[pre, idx[o, t], post] along `dim`.
/// `in` and `out` are contiguous with out's size along dim = t.out_size.
void gather_taps(const Tensor& out, const Tensor& in, int64_t dim, const Taps& t);
/// The transpose: gin[pre, idx[o, t], post] += w[o, t] * g[pre, o, post]
/// (gin zeroed here first).
void scatter_taps(const Tensor& gin, const Tensor& g, int64_t dim, const Taps& t);

}  // namespace gradtrack::kernels
