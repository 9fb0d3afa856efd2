// Separable resampling along one dim: every output position along the dim is
// a weighted sum of a few input positions ("taps"). Padding (reflect,
// replicate) and interpolation (nearest, linear, cubic) are all this one map,
// and the backward of a map is the same map transposed.
#pragma once

#include <cmath>
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
/// True where torch 2.13's CPU kernels are built with FMA (AVX2 and up), so that its
/// compiler fuses their `a * b + c` into one rounding.
bool torch_fuses_multiply_adds();
/// a * b + c rounded as torch's compiler leaves it: once where it fused the two (`fused`).
template <typename T>
inline T madd(bool fused, T a, T b, T c) {
  return fused ? std::fma(a, b, c) : T(a * b) + c;
}
/// Linear (1-3 dims, 2 taps) or bicubic (2 dims, 4 taps) resampling of the trailing
/// dims.size() dims of contiguous float32/float64 `in` into contiguous `out`, each output
/// nested as torch's generic kernel (NOTE [Resampled in torch's nesting] in resample.cpp).
void gather_planes(const Tensor& out, const Tensor& in, const std::vector<const Taps*>& dims);
/// Bilinear or trilinear (dims.size() 2 or 3, 2 taps) resampling of contiguous float32/
/// float64 [N, C, (D,) H, W] `in` into contiguous `out`, rounded as torch's channels-last
/// kernel (NOTE [Bilinear rounded as torch's] in resample.cpp says where torch takes it).
void linear_corners(const Tensor& out, const Tensor& in, const std::vector<const Taps*>& dims);
/// The gradient of resampling the trailing dims.size() dims of contiguous gin
/// ([..., dims[j]->in_size, ...]) from contiguous g ([..., dims[j]->out_size, ...]),
/// summed plane by plane in torch's order (NOTE [Resampling gradients summed as torch's]
/// in resample.cpp); `cubic`: bicubic's products and order; `fused`: each last multiply
/// and its add rounded once.
void scatter_planes(const Tensor& gin, const Tensor& g, const std::vector<const Taps*>& dims,
                    bool cubic, bool fused);

}  // namespace gradtrack::kernels
