// Mean and variance in double over [outer, n, inner] (moments.h).
#include "kernels/moments.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/dtype.h"
#include "kernels/lane_sum.h"
#include "kernels/parallel.h"
#include "kernels/reduced_float.h"

namespace gradtrack::kernels {

namespace {
template <typename T>
[[gnu::always_inline]] inline double run_sum_impl(const T* p, int64_t n) {
  return lane_sum(n, [p](int64_t j) { return double(p[j]); });
}
template <typename T>
[[gnu::always_inline]] inline double run_sqdev_impl(const T* p, int64_t n, double m) {
  return lane_sum(n, [p, m](int64_t j) {
    const double d = double(p[j]) - m;
    return d * d;
  });
}
}  // namespace

GT_CLONES_V4_AVX2 double run_sum(const float* p, int64_t n) { return run_sum_impl(p, n); }
GT_CLONES_V4_AVX2 double run_sum(const double* p, int64_t n) { return run_sum_impl(p, n); }
GT_CLONES_V4_AVX2 double run_sqdev(const float* p, int64_t n, double m) {
  return run_sqdev_impl(p, n, m);
}
GT_CLONES_V4_AVX2 double run_sqdev(const double* p, int64_t n, double m) {
  return run_sqdev_impl(p, n, m);
}

namespace {

// kBlock neighbouring columns (stride 1, rows `inner` apart) at once: both
// passes read memory in order and the column loop vectorizes.
constexpr int64_t kBlock = 64;
template <typename T>
[[gnu::always_inline]] inline void column_moments_impl(const T* p, int64_t n, int64_t inner,
                                                       int64_t width, double* m, double* q) {
  for (int64_t j = 0; j < width; ++j) m[j] = q[j] = 0;
  for (int64_t r = 0; r < n; ++r)
    for (int64_t j = 0; j < width; ++j) m[j] += double(p[r * inner + j]);
  for (int64_t j = 0; j < width; ++j) m[j] /= double(n);
  for (int64_t r = 0; r < n; ++r)
    for (int64_t j = 0; j < width; ++j) {
      const double d = double(p[r * inner + j]) - m[j];
      q[j] += d * d;
    }
}
GT_CLONES_V4_AVX2 void column_moments(const float* p, int64_t n, int64_t inner, int64_t width,
                                      double* m, double* q) {
  column_moments_impl(p, n, inner, width, m, q);
}
GT_CLONES_V4_AVX2 void column_moments(const double* p, int64_t n, int64_t inner, int64_t width,
                                      double* m, double* q) {
  column_moments_impl(p, n, inner, width, m, q);
}

// The sum of part(lo, hi) over equal slices of [0, n), one per thread,
// added in slice order whatever thread ran them.
template <typename F>
double parallel_sum(int64_t n, const F& part) {
  const int64_t slices = std::max<int64_t>(1, std::min<int64_t>(get_num_threads(), n / kGrainSize));
  std::vector<double> partial(size_t(slices), 0.0);
  parallel_for(slices, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t s = lo; s < hi; ++s)
      partial[size_t(s)] = part(s * n / slices, (s + 1) * n / slices);
  });
  double total = 0;
  for (double v : partial) total += v;
  return total;
}

}  // namespace

void moments(const Tensor& x, int64_t outer, int64_t n, int64_t inner, double dof, bool take_sqrt,
             const Tensor& var, const Tensor& mean) {
  if (any_reduced(
          {&x, &var,
           mean.defined() ? &mean : nullptr})) {  // NOTE [Reduced floats are stored, not computed]
    WideOut v(var);
    if (mean.defined()) {
      WideOut m(mean);
      moments(widen(x), outer, n, inner, dof, take_sqrt, v.t, m.t);
      m.commit();
    } else {
      moments(widen(x), outer, n, inner, dof, take_sqrt, v.t, Tensor());
    }
    return v.commit();
  }
  GT_DISPATCH_FLOAT(x.dtype(), "moments", [&] {
    const scalar_t* xp = x.data<scalar_t>();
    scalar_t* vp = var.data<scalar_t>();
    scalar_t* mp = mean.defined() ? mean.data<scalar_t>() : nullptr;
    auto finish = [&](int64_t at, double m, double q) {
      const double v = q / dof;
      vp[at] = static_cast<scalar_t>(take_sqrt ? std::sqrt(v) : v);
      if (mp) mp[at] = static_cast<scalar_t>(m);
    };
    if (n == 0) {  // no elements: NaN statistics, as 0 / 0
      for (int64_t at = 0; at < outer * inner; ++at) finish(at, NAN, NAN);
      return;
    }
    if (inner == 1 && outer == 1) {  // one long run: both passes split over threads
      const double m =
          parallel_sum(n, [&](int64_t lo, int64_t hi) { return run_sum(xp + lo, hi - lo); }) /
          double(n);
      return finish(0, m, parallel_sum(n, [&](int64_t lo, int64_t hi) {
                      return run_sqdev(xp + lo, hi - lo, m);
                    }));
    }
    if (inner == 1) {
      parallel_for(outer, std::max<int64_t>(1, kGrainSize / n), [&](int64_t lo, int64_t hi) {
        for (int64_t o = lo; o < hi; ++o) {
          const double m = run_sum(xp + o * n, n) / double(n);
          finish(o, m, run_sqdev(xp + o * n, n, m));
        }
      });
      return;
    }
    const int64_t blocks = (inner + kBlock - 1) / kBlock;
    const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, n * kBlock));
    parallel_for(outer * blocks, grain, [&](int64_t lo, int64_t hi) {
      double m[kBlock], q[kBlock];
      for (int64_t w = lo; w < hi; ++w) {
        const int64_t o = w / blocks, j0 = (w % blocks) * kBlock;
        const int64_t width = std::min(kBlock, inner - j0);
        column_moments(xp + o * n * inner + j0, n, inner, width, m, q);
        for (int64_t j = 0; j < width; ++j) finish(o * inner + j0 + j, m[j], q[j]);
      }
    });
  });
}

}  // namespace gradtrack::kernels
