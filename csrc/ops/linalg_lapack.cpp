// The history-free forwards of ops/linalg_lapack.h: LU (getrf), least squares
// (gels, gelsy, gelsd, gelss), the matrix exponential and frexp.
#include "ops/linalg_lapack.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "autograd/variable.h"
#include "kernels/lapack.h"
#include "ops/common.h"
#include "ops/linalg_batch.h"

namespace gradtrack::ops {

using namespace linalg_batch;  // NOLINT: the batch helpers

std::tuple<Tensor, Tensor, Tensor> linalg_lu_factor_plain(const Tensor& a) {
  const int64_t m = a.size(-2), n = a.size(-1), k = std::min(m, n);
  const DimVector batch = batch_of(a.sizes());
  const int64_t count = count_of(batch);
  Tensor pivots = empty(with_vector(batch, k), ScalarType::Int32);
  Tensor info = zeros(batch, ScalarType::Int32);
  autograd::AutoGradMode off(false);
  // Each matrix column-major (the buffer of A^T), as getrf reads it.
  Tensor cols = work_copy(transpose(a, -2, -1));
  on_float_type(a.dtype(), [&](auto zero) {
    using T = decltype(zero);
    for (int64_t b = 0; b < count && m * n > 0; ++b) {
      info.data<int32_t>()[b] = kernels::lu_factor_rect(cols.data<T>() + b * m * n, int(m), int(n),
                                                        pivots.data<int32_t>() + b * k);
    }
  });
  return {contiguous(transpose(cols, -2, -1)), pivots, info};
}

std::tuple<Tensor, Tensor, Tensor, Tensor> linalg_lstsq_plain(const Tensor& a, const Tensor& b,
                                                              int driver, double rcond) {
  const int64_t m = a.size(-2), n = a.size(-1), k = b.size(-1), rows = std::max(m, n);
  const int64_t ld = std::max<int64_t>(rows, 1), low = std::min(m, n);
  const DimVector batch = batch_of(a.sizes());
  const int64_t count = count_of(batch);
  Tensor rank = zeros(batch, ScalarType::Int64);
  Tensor s = zeros(with_vector(batch, low), a.dtype());
  Tensor info = zeros(batch, ScalarType::Int32);
  autograd::AutoGradMode off(false);
  Tensor cols = work_copy(transpose(a, -2, -1));   // A column-major, lda = m
  Tensor bcols = work_copy(transpose(b, -2, -1));  // B column-major, m x k
  Tensor out = zeros(with_matrix(batch, rows, k), a.dtype());
  on_float_type(a.dtype(), [&](auto zero) {
    using T = decltype(zero);
    std::vector<T> buf(static_cast<size_t>(std::max<int64_t>(ld * k, 1)));
    for (int64_t i = 0; i < count; ++i) {
      std::fill(buf.begin(), buf.end(), T(0));
      const T* pb = bcols.data<T>() + i * m * k;
      for (int64_t c = 0; c < k; ++c)
        for (int64_t r = 0; r < m; ++r) buf[size_t(c * ld + r)] = pb[c * m + r];
      int r = 0;
      if (m > 0 && n > 0 && k > 0) {
        info.data<int32_t>()[i] =
            kernels::lstsq(cols.data<T>() + i * m * n, int(m), int(n), buf.data(), int(k), driver,
                           T(rcond), &r, s.data<T>() + i * low);
      }
      rank.data<int64_t>()[i] = r;
      T* po = out.data<T>() + i * rows * k;
      for (int64_t row = 0; row < rows; ++row)
        for (int64_t c = 0; c < k; ++c) po[row * k + c] = buf[size_t(c * ld + row)];
    }
  });
  return {out, rank, s, info};
}

namespace {
/// The largest 1-norm (maximum absolute column sum) of the matrices of `a`.
double largest_one_norm(const Tensor& a) {
  const int64_t n = a.size(-1), count = a.numel() / std::max<int64_t>(n * n, 1);
  Tensor x = contiguous(to_dtype(a, ScalarType::Float64));
  const double* p = x.data<double>();
  double best = 0;
  for (int64_t b = 0; b < count && n > 0; ++b)
    for (int64_t j = 0; j < n; ++j) {
      double col = 0;
      for (int64_t i = 0; i < n; ++i) col += std::abs(p[b * n * n + i * n + j]);
      best = std::max(best, col);
    }
  return best;
}
}  // namespace

Tensor linalg_matrix_exp_plain(const Tensor& a) {
  const int64_t n = a.size(-1);
  autograd::AutoGradMode off(false);
  // Scaling and squaring: exp(A) = exp(A / 2^s)^(2^s) with ||A / 2^s||_1 <= 1/2, where
  // the Taylor polynomial of degree 18 (Horner's form) is exact to far below eps.
  const double norm = largest_one_norm(a);
  int s = 0;
  if (std::isfinite(norm) && norm > 0.5) s = int(std::ceil(std::log2(norm / 0.5)));
  Tensor x = s > 0 ? div(a, Scalar(std::ldexp(1.0, s))) : a;
  Tensor eye_n = expand(eye(n, n, a.dtype()), a.sizes());
  Tensor e = eye_n;
  for (int k = 18; k >= 1; --k) e = add(eye_n, div(matmul(x, e), Scalar(double(k))));
  for (int i = 0; i < s; ++i) e = matmul(e, e);
  return contiguous(e);
}

std::pair<Tensor, Tensor> frexp_plain(const Tensor& x) {
  autograd::AutoGradMode off(false);
  Tensor wide = contiguous(to_dtype(x, ScalarType::Float64));
  Tensor mantissa = empty(x.sizes(), ScalarType::Float64);
  Tensor exponent = empty(x.sizes(), ScalarType::Int32);
  const double* src = wide.data<double>();
  double* pm = mantissa.data<double>();
  int32_t* pe = exponent.data<int32_t>();
  for (int64_t i = 0; i < x.numel(); ++i) {
    int e = 0;
    pm[i] = std::frexp(src[i], &e);
    pe[i] = std::isfinite(src[i]) ? e : 0;
  }
  // The mantissa keeps the input's precision bits, so the narrowing is exact.
  return {x.dtype() == ScalarType::Float64 ? mantissa : to_dtype(mantissa, x.dtype()), exponent};
}

}  // namespace gradtrack::ops
