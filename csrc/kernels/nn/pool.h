// Pooling kernels over dense [planes, h, w] tensors (planes = batch * channels).
#pragma once

#include <cstdint>

#include "core/tensor.h"

namespace gradtrack::kernels {

struct PoolGeom {
  int64_t planes = 0, ih = 0, iw = 0, oh = 0, ow = 0;
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
};

/// Window maxima and their flat positions in the input plane (NaN wins).
void max_pool_forward(const Tensor& out, const Tensor& indices, const Tensor& in,
                      const PoolGeom& g);
/// Adaptive windows [floor(o*I/O), ceil((o+1)*I/O)) per output position.
void adaptive_max_pool_forward(const Tensor& out, const Tensor& indices, const Tensor& in,
                               const PoolGeom& g);
/// gin (dense, [planes, ih, iw]) = gout added at indices (max pools' backward).
void max_pool_backward(const Tensor& gin, const Tensor& gout, const Tensor& indices,
                       const PoolGeom& g);
/// divisor 0: none given (count_include_pad decides).
void avg_pool_forward(const Tensor& out, const Tensor& in, const PoolGeom& g,
                      bool count_include_pad, int64_t divisor);
void avg_pool_backward(const Tensor& gin, const Tensor& gout, const PoolGeom& g,
                       bool count_include_pad, int64_t divisor);
void adaptive_avg_pool_forward(const Tensor& out, const Tensor& in, const PoolGeom& g);
void adaptive_avg_pool_backward(const Tensor& gin, const Tensor& gout, const PoolGeom& g);

}  // namespace gradtrack::kernels
