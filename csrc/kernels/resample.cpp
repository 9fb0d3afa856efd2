// Separable resampling kernels (see resample.h).
#include "kernels/resample.h"

#include <algorithm>
#include <type_traits>

#include "kernels/parallel.h"

namespace gradtrack::kernels {

namespace {

struct Geometry {
  int64_t pre = 1, n_in = 0, n_out = 0, post = 1;
};

Geometry geometry(const DimVector& sizes, int64_t dim, int64_t n_out) {
  Geometry g;
  for (int64_t d = 0; d < dim; ++d) g.pre *= sizes[size_t(d)];
  for (size_t d = size_t(dim) + 1; d < sizes.size(); ++d) g.post *= sizes[d];
  g.n_in = sizes[size_t(dim)];
  g.n_out = n_out;
  return g;
}

}  // namespace

void gather_taps(const Tensor& out, const Tensor& in, int64_t dim, const Taps& t) {
  const Geometry g = geometry(in.sizes(), dim, t.out_size);
  if (out.numel() == 0) return;
  GT_DISPATCH_ALL(in.dtype(), [&] {
    const scalar_t* src = in.data<scalar_t>();
    scalar_t* dst = out.data<scalar_t>();
    const int64_t rows = g.pre * g.n_out;
    parallel_for(rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(g.post * t.taps, 1)),
                 [&](int64_t b, int64_t e) {
                   for (int64_t r = b; r < e; ++r) {
                     const int64_t p = r / g.n_out, o = r % g.n_out;
                     scalar_t* d = dst + r * g.post;
                     const scalar_t* s = src + p * g.n_in * g.post;
                     const int64_t* ix = t.idx.data() + o * t.taps;
                     const double* w = t.w.data() + o * t.taps;
                     // Accumulates in the data type (float for float32), as
                     // PyTorch's CPU upsampling kernels.
                     if constexpr (std::is_floating_point_v<scalar_t>) {
                       for (int64_t q = 0; q < g.post; ++q) {
                         scalar_t acc = 0;
                         for (int64_t k = 0; k < t.taps; ++k)
                           acc += scalar_t(w[k]) * s[ix[k] * g.post + q];
                         d[q] = acc;
                       }
                     } else {
                       // One tap of weight 1 (padding): a copy.
                       std::copy(s + ix[0] * g.post, s + (ix[0] + 1) * g.post, d);
                     }
                   }
                 });
  });
}

void scatter_taps(const Tensor& gin, const Tensor& g_out, int64_t dim, const Taps& t) {
  const Geometry g = geometry(gin.sizes(), dim, t.out_size);
  if (gin.numel() == 0) return;
  GT_DISPATCH_FLOAT(gin.dtype(), "scatter_taps", [&] {
    const scalar_t* src = g_out.data<scalar_t>();
    scalar_t* dst = gin.data<scalar_t>();
    std::fill(dst, dst + gin.numel(), scalar_t(0));
    // Lines along `pre` are independent: each thread owns whole input slabs,
    // so the additions need no locks and their order never depends on threads.
    parallel_for(g.pre,
                 std::max<int64_t>(1, kGrainSize / std::max<int64_t>(g.n_out * g.post * t.taps, 1)),
                 [&](int64_t b, int64_t e) {
                   for (int64_t p = b; p < e; ++p) {
                     scalar_t* d = dst + p * g.n_in * g.post;
                     for (int64_t o = 0; o < g.n_out; ++o) {
                       const scalar_t* s = src + (p * g.n_out + o) * g.post;
                       for (int64_t k = 0; k < t.taps; ++k) {
                         const scalar_t w = scalar_t(t.w[size_t(o * t.taps + k)]);
                         scalar_t* dk = d + t.idx[size_t(o * t.taps + k)] * g.post;
                         for (int64_t q = 0; q < g.post; ++q) dk[q] += w * s[q];
                       }
                     }
                   }
                 });
  });
}

}  // namespace gradtrack::kernels
