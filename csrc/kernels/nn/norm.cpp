// Normalization kernels (NOTE [One layout for three norms] in norm.h).
// Sums accumulate in double: a float row of a million elements keeps its
// mean to float precision.
#include "kernels/nn/norm.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/dtype.h"
#include "kernels/parallel.h"

namespace gradtrack::kernels::nn {

void row_moments(const Tensor& x, int64_t rows, int64_t cols, double eps, const Tensor& mean,
                 const Tensor& rstd) {
  GT_DISPATCH_FLOAT(x.dtype(), "row_moments", [&] {
    const scalar_t* xp = x.data<scalar_t>();
    scalar_t* mp = mean.data<scalar_t>();
    scalar_t* rp = rstd.data<scalar_t>();
    const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(cols, 1));
    parallel_for(rows, grain, [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r) {
        const scalar_t* row = xp + r * cols;
        double s = 0;
        for (int64_t j = 0; j < cols; ++j) s += row[j];
        const double m = cols ? s / double(cols) : NAN;
        double q = 0;
        for (int64_t j = 0; j < cols; ++j) q += (row[j] - m) * (row[j] - m);
        const double var = cols ? q / double(cols) : NAN;
        mp[r] = static_cast<scalar_t>(m);
        rp[r] = static_cast<scalar_t>(1.0 / std::sqrt(var + eps));
      }
    });
  });
}

void channel_moments(const Tensor& x, int64_t n, int64_t c, int64_t l, const Tensor& mean,
                     const Tensor& var) {
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
                     for (int64_t i = lo; i < hi; ++i) {
                       const scalar_t m = mp[i], r = rp[i];
                       const scalar_t* src = xp + i * c;
                       scalar_t* dst = op + i * c;
                       for (int64_t j = 0; j < c; ++j) {
                         const scalar_t xh = (src[j] - m) * r;
                         dst[j] =
                             wp ? (bp ? xh * wp[j] + bp[j] : xh * wp[j]) : (bp ? xh + bp[j] : xh);
                       }
                     }
                   });
      return;
    }
    const int64_t per_group = groups ? c / groups : 1;
    const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(l, 1));
    parallel_for(n * c, grain, [&](int64_t lo, int64_t hi) {
      for (int64_t nc = lo; nc < hi; ++nc) {
        const int64_t i = nc / c, ch = nc % c;
        const int64_t s = groups ? i * groups + ch / per_group : ch;
        // One scale and shift per (n, c): y = x * a + d.
        const scalar_t a = rp[s] * (wp ? wp[ch] : scalar_t(1));
        const scalar_t d = (bp ? bp[ch] : scalar_t(0)) - mp[s] * a;
        const scalar_t* src = xp + nc * l;
        scalar_t* dst = op + nc * l;
        for (int64_t j = 0; j < l; ++j) dst[j] = src[j] * a + d;
      }
    });
  });
}

void layer_norm_backward(const Tensor& g, const int64_t g_stride[2], const Tensor& x,
                         const Tensor& mean, const Tensor& rstd, const Tensor& w, int64_t rows,
                         int64_t cols, const Tensor& dx, const Tensor& dw, const Tensor& db) {
  GT_DISPATCH_FLOAT(x.dtype(), "layer_norm_backward", [&] {
    const scalar_t* gp = g.data<scalar_t>();
    const scalar_t* xp = x.data<scalar_t>();
    const scalar_t* mp = mean.data<scalar_t>();
    const scalar_t* rp = rstd.data<scalar_t>();
    const scalar_t* wp = w.defined() ? w.data<scalar_t>() : nullptr;
    const int64_t gs0 = g_stride[0], gs1 = g_stride[1];
    const int64_t row_grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(cols, 1));
    if (dx.defined()) {
      scalar_t* dp = dx.data<scalar_t>();
      parallel_for(rows, row_grain, [&](int64_t lo, int64_t hi) {
        for (int64_t r = lo; r < hi; ++r) {
          const scalar_t* gr = gp + r * gs0;
          const scalar_t* xr = xp + r * cols;
          const double m = mp[r], s = rp[r];
          // dx = rstd * (gw - mean(gw) - xhat * mean(gw * xhat)), gw = g * w.
          double a = 0, b = 0;
          for (int64_t j = 0; j < cols; ++j) {
            const double gw = double(gr[j * gs1]) * (wp ? double(wp[j]) : 1.0);
            a += gw;
            b += gw * (double(xr[j]) - m) * s;
          }
          a /= double(cols);
          b /= double(cols);
          scalar_t* dr = dp + r * cols;
          for (int64_t j = 0; j < cols; ++j) {
            const double gw = double(gr[j * gs1]) * (wp ? double(wp[j]) : 1.0);
            dr[j] = static_cast<scalar_t>(s * (gw - a - (double(xr[j]) - m) * s * b));
          }
        }
      });
    }
    if (!dw.defined() && !db.defined()) return;
    // dw and db sum over rows: each thread owns a block of columns and walks
    // the rows, so every read stays contiguous.
    scalar_t* wout = dw.defined() ? dw.data<scalar_t>() : nullptr;
    scalar_t* bout = db.defined() ? db.data<scalar_t>() : nullptr;
    const int64_t col_grain = std::max<int64_t>(16, kGrainSize / std::max<int64_t>(rows, 1));
    parallel_for(cols, col_grain, [&](int64_t lo, int64_t hi) {
      std::vector<double> wacc(hi - lo, 0.0), bacc(hi - lo, 0.0);
      for (int64_t r = 0; r < rows; ++r) {
        const scalar_t* gr = gp + r * gs0;
        const scalar_t* xr = xp + r * cols;
        const double m = mp[r], s = rp[r];
        for (int64_t j = lo; j < hi; ++j) {
          wacc[j - lo] += double(gr[j * gs1]) * (double(xr[j]) - m) * s;
          bacc[j - lo] += double(gr[j * gs1]);
        }
      }
      for (int64_t j = lo; j < hi; ++j) {
        if (wout) wout[j] = static_cast<scalar_t>(wacc[j - lo]);
        if (bout) bout[j] = static_cast<scalar_t>(bacc[j - lo]);
      }
    });
  });
}

void batch_norm_backward(const Tensor& g, const Tensor& x, const Tensor& mean, const Tensor& rstd,
                         const Tensor& w, int64_t n, int64_t c, int64_t l, bool training,
                         const Tensor& dx, const Tensor& dw, const Tensor& db) {
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
