// Normalization kernels (NOTE [One layout for three norms] in norm.h).
// Sums accumulate in double: a float row of a million elements keeps its
// mean to float precision.
#include "kernels/nn/norm.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <vector>

#include "core/dtype.h"
#include "kernels/lane_sum.h"
#include "kernels/moments.h"
#include "kernels/parallel.h"
#include "kernels/pointwise.h"
#include "kernels/reduced_float.h"

namespace gradtrack::kernels::nn {

namespace {

// float16 / bfloat16 operands (NOTE [Reduced floats are stored, not computed]):
// the float32 kernel runs on widened copies and each result is rounded once.
// Parameters may be float32 beside a reduced input (torch's mixed type).
bool any_red(std::initializer_list<const Tensor*> ts) {
  for (const Tensor* t : ts)
    if (t->defined() && is_reduced_float(t->dtype())) return true;
  return false;
}
Tensor wide_in(const Tensor& t) { return t.defined() ? widen(t) : t; }
Tensor wide_out(const Tensor& t) {
  return t.defined() && is_reduced_float(t.dtype()) ? empty(t.sizes(), ScalarType::Float32) : t;
}
void commit(const Tensor& real, const Tensor& wide) {
  if (real.defined() && !real.is_same(wide)) copy(real, wide);
}

}  // namespace

namespace {

// One row's mean and 1 / sqrt(var + eps): two passes in double (NOTE [Lane sums]);
// no elements: NaN, as 0 / 0.
template <typename T>
inline void row_stats(const T* row, int64_t cols, double eps, T& mean, T& rstd) {
  const double m = cols ? run_sum(row, cols) / double(cols) : NAN;
  const double var = cols ? run_sqdev(row, cols, m) / double(cols) : NAN;
  mean = static_cast<T>(m);
  rstd = static_cast<T>(1.0 / std::sqrt(var + eps));
}

}  // namespace

void row_moments(const Tensor& x, int64_t rows, int64_t cols, double eps, const Tensor& mean,
                 const Tensor& rstd) {
  if (any_red({&x, &mean, &rstd})) {
    const Tensor m = wide_out(mean), r = wide_out(rstd);
    row_moments(wide_in(x), rows, cols, eps, m, r);
    return commit(mean, m), commit(rstd, r);
  }
  GT_DISPATCH_FLOAT(x.dtype(), "row_moments", [&] {
    const scalar_t* xp = x.data<scalar_t>();
    scalar_t* mp = mean.data<scalar_t>();
    scalar_t* rp = rstd.data<scalar_t>();
    const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(cols, 1));
    parallel_for(rows, grain, [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r) row_stats(xp + r * cols, cols, eps, mp[r], rp[r]);
    });
  });
}

namespace {

// One row of layer_norm's affine: the loop norm_apply ran over a row, so the
// two give the same bits.
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
template <typename T>
[[gnu::always_inline]] inline void layer_norm_apply_row_impl(const T* src, T* dst, T m, T r,
                                                             const T* wp, const T* bp, int64_t c) {
  for (int64_t j = 0; j < c; ++j) {
    const T xh = (src[j] - m) * r;
    dst[j] = wp ? (bp ? xh * wp[j] + bp[j] : xh * wp[j]) : (bp ? xh + bp[j] : xh);
  }
}

// In one clone per instruction set (NOTE [SIMD clones] in kernels/simd.h).
// Each element is a subtraction, products and a sum, each rounded on its own
// at any vector width; the products are kept from fusing with the sum (the
// FMA of the AVX2 and AVX-512 clones would round once), so every clone gives
// the baseline's bits.
GT_CLONES_V4_AVX2 void layer_norm_apply_row(const float* src, float* dst, float m, float r,
                                            const float* wp, const float* bp, int64_t c) {
  layer_norm_apply_row_impl(src, dst, m, r, wp, bp, c);
}
GT_CLONES_V4_AVX2 void layer_norm_apply_row(const double* src, double* dst, double m, double r,
                                            const double* wp, const double* bp, int64_t c) {
  layer_norm_apply_row_impl(src, dst, m, r, wp, bp, c);
}
#pragma GCC pop_options

}  // namespace

// NOTE [LayerNorm forward in one pass over memory]
// row_moments then norm_apply read x from memory twice: a 4M-element input
// does not stay in cache between them. Here each row is normalized while it
// is still in cache from its statistics, so x is read from memory once (torch
// does the same); the arithmetic is the two kernels', value for value.
// Reduced floats still take the two kernels, each on widened copies (their
// float32 statistics beside reduced x and parameters mix dtypes, which the
// row loop here does not).
void layer_norm_rows(const Tensor& out, const Tensor& x, int64_t rows, int64_t cols, double eps,
                     const Tensor& mean, const Tensor& rstd, const Tensor& w, const Tensor& b) {
  if (any_red({&out, &x, &mean, &rstd, &w, &b})) {
    row_moments(x, rows, cols, eps, mean, rstd);
    return norm_apply(out, x, rows, cols, 1, 1, mean, rstd, w, b);
  }
  GT_DISPATCH_FLOAT(x.dtype(), "layer_norm_rows", [&] {
    const scalar_t* xp = x.data<scalar_t>();
    scalar_t* op = out.data<scalar_t>();
    scalar_t* mp = mean.data<scalar_t>();
    scalar_t* rp = rstd.data<scalar_t>();
    const scalar_t* wp = w.defined() ? w.data<scalar_t>() : nullptr;
    const scalar_t* bp = b.defined() ? b.data<scalar_t>() : nullptr;
    const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(cols, 1));
    parallel_for(rows, grain, [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r) {
        const scalar_t* row = xp + r * cols;
        row_stats(row, cols, eps, mp[r], rp[r]);
        layer_norm_apply_row(row, op + r * cols, mp[r], rp[r], wp, bp, cols);
      }
    });
  });
}

void channel_moments(const Tensor& x, int64_t n, int64_t c, int64_t l, const Tensor& mean,
                     const Tensor& var) {
  if (any_red({&x, &mean, &var})) {
    const Tensor m = wide_out(mean), v = wide_out(var);
    channel_moments(wide_in(x), n, c, l, m, v);
    return commit(mean, m), commit(var, v);
  }
  GT_DISPATCH_FLOAT(x.dtype(), "channel_moments", [&] {
    const scalar_t* xp = x.data<scalar_t>();
    scalar_t* mp = mean.data<scalar_t>();
    scalar_t* vp = var.data<scalar_t>();
    const double count = double(n) * double(l);
    const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(n * l, 1));
    parallel_for(c, grain, [&](int64_t lo, int64_t hi) {
      for (int64_t ch = lo; ch < hi; ++ch) {
        double s = 0;
        for (int64_t i = 0; i < n; ++i) {
          const scalar_t* p = xp + (i * c + ch) * l;
          for (int64_t j = 0; j < l; ++j) s += p[j];
        }
        const double m = s / count;
        double q = 0;
        for (int64_t i = 0; i < n; ++i) {
          const scalar_t* p = xp + (i * c + ch) * l;
          for (int64_t j = 0; j < l; ++j) q += (p[j] - m) * (p[j] - m);
        }
        mp[ch] = static_cast<scalar_t>(m);
        vp[ch] = static_cast<scalar_t>(q / count);
      }
    });
  });
}

void norm_apply(const Tensor& out, const Tensor& x, int64_t n, int64_t c, int64_t l, int64_t groups,
                const Tensor& mean, const Tensor& rstd, const Tensor& w, const Tensor& b) {
  if (any_red({&out, &x, &mean, &rstd, &w, &b})) {
    const Tensor o = wide_out(out);
    norm_apply(o, wide_in(x), n, c, l, groups, wide_in(mean), wide_in(rstd), wide_in(w),
               wide_in(b));
    return commit(out, o);
  }
  GT_DISPATCH_FLOAT(x.dtype(), "norm_apply", [&] {
    const scalar_t* xp = x.data<scalar_t>();
    scalar_t* op = out.data<scalar_t>();
    const scalar_t* mp = mean.data<scalar_t>();
    const scalar_t* rp = rstd.data<scalar_t>();
    const scalar_t* wp = w.defined() ? w.data<scalar_t>() : nullptr;
    const scalar_t* bp = b.defined() ? b.data<scalar_t>() : nullptr;
    if (l == 1 && groups == 1) {
      // layer_norm: one statistic per row, the affine along the row; a
      // contiguous inner loop the compiler vectorizes.
      parallel_for(n, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(c, 1)),
                   [&](int64_t lo, int64_t hi) {
                     for (int64_t i = lo; i < hi; ++i)
                       layer_norm_apply_row(xp + i * c, op + i * c, mp[i], rp[i], wp, bp, c);
                   });
      return;
    }
    const int64_t per_group = groups ? c / groups : 1;
    const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(l, 1));
    parallel_for(n * c, grain, [&](int64_t lo, int64_t hi) {
      for (int64_t nc = lo; nc < hi; ++nc) {
        const int64_t i = nc / c, ch = nc % c;
        const int64_t s = groups ? i * groups + ch / per_group : ch;
        // One scale per (n, c): y = (x - mean) a + b. Folding the mean into the
        // shift (x a + (b - mean a)) cancels two values of |mean a| and left
        // 1.2x torch's error against float64 where the mean is 3 deviations
        // from zero; the subtraction first is exact for most x.
        const scalar_t a = rp[s] * (wp ? wp[ch] : scalar_t(1));
        const scalar_t m = mp[s], d = bp ? bp[ch] : scalar_t(0);
        const scalar_t* src = xp + nc * l;
        scalar_t* dst = op + nc * l;
        for (int64_t j = 0; j < l; ++j) dst[j] = (src[j] - m) * a + d;
      }
    });
  });
}

namespace {

// One row of layer_norm's backward (NOTE [LayerNorm backward in one pass]).
// kG1 is the grad's column stride when it is known at compile time (1:
// contiguous; 0: one number broadcast), or -1 for `gs1`; kW says
// whether there is a weight (a test inside the loop kept it scalar).
template <int kG1, bool kW, typename T>
[[gnu::always_inline]] inline void layer_norm_backward_row(const T* gr, int64_t gs1, const T* xr,
                                                           double m, double s, const T* wp,
                                                           int64_t cols, T* dr, double* wacc,
                                                           double* bacc) {
  const int64_t g1 = kG1 >= 0 ? kG1 : gs1;
  auto gw_at = [=](int64_t j) {
    if constexpr (kW)
      return double(gr[j * g1]) * double(wp[j]);
    else
      return double(gr[j * g1]);
  };
  if (dr) {
    // dx = rstd * (gw - mean(gw) - xhat * mean(gw * xhat)), gw = g * w.
    const double a = lane_sum(cols, gw_at) / double(cols);
    const double b = lane_sum(cols, [&](int64_t j) { return gw_at(j) * (double(xr[j]) - m) * s; }) /
                     double(cols);
    for (int64_t j = 0; j < cols; ++j)
      dr[j] = static_cast<T>(s * (gw_at(j) - a - (double(xr[j]) - m) * s * b));
  }
  if (wacc) {
    for (int64_t j = 0; j < cols; ++j) wacc[j] += double(gr[j * g1]) * (double(xr[j]) - m) * s;
  }
  if (bacc) {
    for (int64_t j = 0; j < cols; ++j) bacc[j] += double(gr[j * g1]);
  }
}

}  // namespace

// The row kernels in one clone per instruction set (NOTE [SIMD clones] in
// kernels/simd.h): the double lanes of NOTE [Lane sums] are 2 per SSE2
// register, 4 per AVX2 one and 8 per AVX-512 one.
namespace detail {

template <typename T>
[[gnu::always_inline]] inline void ln_backward_row_impl(const T* gr, int64_t gs1, const T* xr,
                                                        double m, double s, const T* wp,
                                                        int64_t cols, T* dr, double* wacc,
                                                        double* bacc) {
  if (gs1 == 1 && wp)
    layer_norm_backward_row<1, true>(gr, gs1, xr, m, s, wp, cols, dr, wacc, bacc);
  else if (gs1 == 1)
    layer_norm_backward_row<1, false>(gr, gs1, xr, m, s, wp, cols, dr, wacc, bacc);
  else if (gs1 == 0 && wp)  // one number broadcast: the gradient of y.sum()
    layer_norm_backward_row<0, true>(gr, gs1, xr, m, s, wp, cols, dr, wacc, bacc);
  else if (gs1 == 0)
    layer_norm_backward_row<0, false>(gr, gs1, xr, m, s, wp, cols, dr, wacc, bacc);
  else if (wp)
    layer_norm_backward_row<-1, true>(gr, gs1, xr, m, s, wp, cols, dr, wacc, bacc);
  else
    layer_norm_backward_row<-1, false>(gr, gs1, xr, m, s, wp, cols, dr, wacc, bacc);
}

GT_CLONES_V4_AVX2 void ln_backward_row(const float* gr, int64_t gs1, const float* xr, double m,
                                       double s, const float* wp, int64_t cols, float* dr,
                                       double* wacc, double* bacc) {
  ln_backward_row_impl(gr, gs1, xr, m, s, wp, cols, dr, wacc, bacc);
}

GT_CLONES_V4_AVX2 void ln_backward_row(const double* gr, int64_t gs1, const double* xr, double m,
                                       double s, const double* wp, int64_t cols, double* dr,
                                       double* wacc, double* bacc) {
  ln_backward_row_impl(gr, gs1, xr, m, s, wp, cols, dr, wacc, bacc);
}

}  // namespace detail

// NOTE [LayerNorm backward in one pass]
// dx, dw and db all read the same g and x rows. One pass over the rows
// computes a row's dx while the row is in cache and adds its terms to this
// thread's dw/db partial sums (one row of doubles each); the partials are
// added at the end. Reading g and x from memory once instead of three times
// is what the 4M-element case is bound by.
void layer_norm_backward(const Tensor& g, const int64_t g_stride[2], const Tensor& x,
                         const Tensor& mean, const Tensor& rstd, const Tensor& w, int64_t rows,
                         int64_t cols, const Tensor& dx, const Tensor& dw, const Tensor& db) {
  if (any_red({&g, &x, &mean, &rstd, &w, &dx, &dw, &db})) {
    const Tensor ox = wide_out(dx), ow = wide_out(dw), ob = wide_out(db);
    layer_norm_backward(wide_in(g), g_stride, wide_in(x), wide_in(mean), wide_in(rstd), wide_in(w),
                        rows, cols, ox, ow, ob);
    return commit(dx, ox), commit(dw, ow), commit(db, ob);
  }
  if (!dx.defined() && !dw.defined() && !db.defined()) return;
  GT_DISPATCH_FLOAT(x.dtype(), "layer_norm_backward", [&] {
    const scalar_t* gp = g.data<scalar_t>();
    const scalar_t* xp = x.data<scalar_t>();
    const scalar_t* mp = mean.data<scalar_t>();
    const scalar_t* rp = rstd.data<scalar_t>();
    const scalar_t* wp = w.defined() ? w.data<scalar_t>() : nullptr;
    scalar_t* dp = dx.defined() ? dx.data<scalar_t>() : nullptr;
    const int64_t gs0 = g_stride[0], gs1 = g_stride[1];
    const bool want_w = dw.defined(), want_b = db.defined();
    std::vector<double> wsum(want_w ? size_t(cols) : 0), bsum(want_b ? size_t(cols) : 0);
    std::mutex merge;
    const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(cols, 1));
    parallel_for(rows, grain, [&](int64_t lo, int64_t hi) {
      std::vector<double> wacc(wsum.size(), 0.0), bacc(bsum.size(), 0.0);
      double* wa = want_w ? wacc.data() : nullptr;
      double* ba = want_b ? bacc.data() : nullptr;
      for (int64_t r = lo; r < hi; ++r) {
        const scalar_t* gr = gp + r * gs0;
        const scalar_t* xr = xp + r * cols;
        scalar_t* dr = dp ? dp + r * cols : nullptr;
        detail::ln_backward_row(gr, gs1, xr, mp[r], rp[r], wp, cols, dr, wa, ba);
      }
      std::lock_guard<std::mutex> lock(merge);
      for (size_t j = 0; j < wacc.size(); ++j) wsum[j] += wacc[j];
      for (size_t j = 0; j < bacc.size(); ++j) bsum[j] += bacc[j];
    });
    if (want_w) {
      scalar_t* wout = dw.data<scalar_t>();
      for (int64_t j = 0; j < cols; ++j) wout[j] = static_cast<scalar_t>(wsum[size_t(j)]);
    }
    if (want_b) {
      scalar_t* bout = db.data<scalar_t>();
      for (int64_t j = 0; j < cols; ++j) bout[j] = static_cast<scalar_t>(bsum[size_t(j)]);
    }
  });
}

void batch_norm_backward(const Tensor& g, const Tensor& x, const Tensor& mean, const Tensor& rstd,
                         const Tensor& w, int64_t n, int64_t c, int64_t l, bool training,
                         const Tensor& dx, const Tensor& dw, const Tensor& db) {
  if (any_red({&g, &x, &mean, &rstd, &w, &dx, &dw, &db})) {
    const Tensor ox = wide_out(dx), ow = wide_out(dw), ob = wide_out(db);
    batch_norm_backward(wide_in(g), wide_in(x), wide_in(mean), wide_in(rstd), wide_in(w), n, c, l,
                        training, ox, ow, ob);
    return commit(dx, ox), commit(dw, ow), commit(db, ob);
  }
  GT_DISPATCH_FLOAT(x.dtype(), "batch_norm_backward", [&] {
    const scalar_t* gp = g.data<scalar_t>();
    const scalar_t* xp = x.data<scalar_t>();
    const scalar_t* mp = mean.data<scalar_t>();
    const scalar_t* rp = rstd.data<scalar_t>();
    const scalar_t* wp = w.defined() ? w.data<scalar_t>() : nullptr;
    scalar_t* dp = dx.defined() ? dx.data<scalar_t>() : nullptr;
    scalar_t* wout = dw.defined() ? dw.data<scalar_t>() : nullptr;
    scalar_t* bout = db.defined() ? db.data<scalar_t>() : nullptr;
    const double count = double(n) * double(l);
    const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(n * l, 1));
    parallel_for(c, grain, [&](int64_t lo, int64_t hi) {
      for (int64_t ch = lo; ch < hi; ++ch) {
        const double m = mp[ch], s = rp[ch];
        // sum g and sum g * xhat over the channel's N * L elements.
        double sg = 0, sgx = 0;
        for (int64_t i = 0; i < n; ++i) {
          const scalar_t* gr = gp + (i * c + ch) * l;
          const scalar_t* xr = xp + (i * c + ch) * l;
          for (int64_t j = 0; j < l; ++j) {
            sg += gr[j];
            sgx += double(gr[j]) * (double(xr[j]) - m) * s;
          }
        }
        if (wout) wout[ch] = static_cast<scalar_t>(sgx);
        if (bout) bout[ch] = static_cast<scalar_t>(sg);
        if (!dp) continue;
        const double k = s * (wp ? double(wp[ch]) : 1.0);
        const double mg = sg / count, mgx = sgx / count;
        for (int64_t i = 0; i < n; ++i) {
          const scalar_t* gr = gp + (i * c + ch) * l;
          const scalar_t* xr = xp + (i * c + ch) * l;
          scalar_t* dr = dp + (i * c + ch) * l;
          for (int64_t j = 0; j < l; ++j) {
            const double gj = gr[j];
            dr[j] = static_cast<scalar_t>(training ? k * (gj - mg - (double(xr[j]) - m) * s * mgx)
                                                   : k * gj);
          }
        }
      }
    });
  });
}

}  // namespace gradtrack::kernels::nn
