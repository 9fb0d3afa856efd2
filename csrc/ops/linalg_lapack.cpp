// The history-free forwards of ops/linalg_lapack.h: LU (getrf) and its solve, least squares
// (gels, gelsy, gelsd, gelss), the matrix exponential and frexp.
#include "ops/linalg_lapack.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "autograd/variable.h"
#include "kernels/lapack.h"
#include "kernels/parallel.h"
#include "kernels/triangular_blocks.h"
#include "ops/common.h"
#include "ops/linalg_batch.h"

namespace gradtrack::ops {

using namespace linalg_batch;  // NOLINT: the batch helpers

// NOTE [Square LU on the blocked factorization]
// getrf reads a column-major buffer, so each matrix is transposed into one and its
// factors transposed back. A square matrix is factored by lu_factor_rows (NOTE [LU on
// our GEMM]: getrf's algorithm with its updates on our GEMM, so getrf's pivots), and
// both transposes go in 32 x 32 tiles on the calling thread: the strided copies they
// replace read a cache line per element and woke the pool for each. lu_factor at 256,
// Xeon family 6 model 207, two threads: 426 us -> 319 us (torch 260-290 us; the two
// transposes are 20 us each, as OpenBLAS's omatcopy).
std::tuple<Tensor, Tensor, Tensor> linalg_lu_factor_plain(const Tensor& a) {
  const int64_t m = a.size(-2), n = a.size(-1), k = std::min(m, n);
  const DimVector batch = batch_of(a.sizes());
  const int64_t count = count_of(batch);
  Tensor pivots = empty(with_vector(batch, k), ScalarType::Int32);
  Tensor info = zeros(batch, ScalarType::Int32);
  autograd::AutoGradMode off(false);
  Tensor rows = contiguous(a);
  Tensor cols = empty(with_matrix(batch, n, m), a.dtype());  // each matrix column-major
  Tensor lu = empty(a.sizes(), a.dtype());
  on_float_type(a.dtype(), [&](auto zero) {
    using T = decltype(zero);
    for (int64_t b = 0; b < count && m * n > 0; ++b) {
      T* c = cols.data<T>() + b * m * n;
      transpose_tiles(rows.data<T>() + b * m * n, m, n, c);
      int32_t* piv = pivots.data<int32_t>() + b * k;
      info.data<int32_t>()[b] = m == n ? kernels::lu_factor_rows(c, n, piv)
                                       : kernels::lu_factor_rect(c, int(m), int(n), piv);
      transpose_tiles(c, n, m, lu.data<T>() + b * m * n);
    }
  });
  return {column_major(lu), pivots, info};  // NOTE [Column-major results]
}

namespace {

// NOTE [LU solves from torch's factors]
// linalg.lu_solve gets torch's factors: A = P L U packed row-major. The blocked
// solve of NOTE [LU solves on our GEMM] (lu_solve_rows) takes getrf's packing
// read column-major, a factorization M = P L U, and solves M^T X = B in place on
// B's rows; it solves with the lower triangle of the buffer read row-major
// (diagonal included), then the strictly upper one (unit diagonal), then P.
// - A^T X = B: M = A, so the buffer is LU transposed (X A = B is A^T X^T = B^T).
// - A X = B (X A^T = B: A X^T = B^T) is X = U^-1 L^-1 P^T B. With D the diagonal
//   of U, A = P (L D) (D^-1 U): L D is lower with U's diagonal and D^-1 U unit
//   upper, the two triangles the blocked solve reads. The rows of B take P^T's
//   swaps first and the blocked solve none. Scaling rounds each factor once more
//   (a relative change of one unit in the last place, as the solve's own
//   rounding); where a diagonal is zero or a scaled factor is not finite, the
//   two triangular solves run on the factors as they are (trsm).

// The rows of the n x k row-major c permuted by getrf's swaps in order (P^T c).
template <typename T>
void swap_rows_forward(T* c, const int* piv, int64_t n, int64_t k) {
  for (int64_t i = 0; i < n; ++i) {
    const int64_t p = piv[i] - 1;
    if (p != i) std::swap_ranges(c + i * k, c + (i + 1) * k, c + p * k);
  }
}

// A X = B in place in the n x k rows of c, from torch's packed factors of A.
template <typename T>
void lu_solve_forward(const T* lu, const int* piv, int64_t n, T* c, int64_t k, std::vector<T>& w,
                      const std::vector<int>& unswapped) {
  bool scaled = true;
  for (int64_t i = 0; i < n && scaled; ++i) {
    const T d = lu[i * n + i];
    for (int64_t j = 0; j < n; ++j) {
      const T v = j < i ? lu[i * n + j] * lu[j * n + j] : j == i ? d : lu[i * n + j] / d;
      w[size_t(i * n + j)] = v;
      if (!std::isfinite(v) || (j == i && v == T(0))) scaled = false;
    }
  }
  swap_rows_forward(c, piv, n, k);
  if (scaled) return kernels::lu_solve_rows(w.data(), unswapped.data(), n, c, k);
  kernels::triangular_solve(lu, c, int(n), int(k), true, false, false, true);
  kernels::triangular_solve(lu, c, int(n), int(k), true, true, false, false);
}

// A X = B (or A^T X = B when `transposed`) in the n x k rows of c by trsm on
// torch's packed factors of A.
template <typename T>
void lu_solve_few(const T* lu, const int* piv, int64_t n, T* c, int64_t k, bool transposed) {
  if (!transposed) {
    swap_rows_forward(c, piv, n, k);
    kernels::triangular_solve(lu, c, int(n), int(k), true, false, false, true);
    kernels::triangular_solve(lu, c, int(n), int(k), true, true, false, false);
    return;
  }
  // A^T = U^T L^T P^T: X = P L^-T U^-T B, P undoing the swaps last first.
  kernels::triangular_solve(lu, c, int(n), int(k), true, true, true, false);
  kernels::triangular_solve(lu, c, int(n), int(k), true, false, true, true);
  for (int64_t i = n - 1; i >= 0; --i) {
    const int64_t p = piv[i] - 1;
    if (p != i) std::swap_ranges(c + i * k, c + (i + 1) * k, c + p * k);
  }
}

}  // namespace

Tensor linalg_lu_solve_plain(const Tensor& lu, const Tensor& pivots, const Tensor& b, bool left,
                             bool adjoint) {
  const int64_t n = lu.size(-1), other = left ? b.size(-1) : b.size(-2);
  const DimVector batch = broadcast_shapes(batch_of(lu.sizes()), batch_of(b.sizes()));
  const int64_t count = count_of(batch), nn = n * n;
  autograd::AutoGradMode off(false);
  Tensor piv = work_copy(expand(pivots, with_vector(batch, n)));
  const int32_t* pp = piv.data<int32_t>();
  for (int64_t i = 0; i < count * n; ++i)
    GT_CHECK(pp[i] >= 1,
             "Pivots given to lu_solve must all be greater or equal to 1. Did you properly pass "
             "the result of lu_factor?");
  for (int64_t i = 0; i < count * n; ++i)
    GT_CHECK(pp[i] <= n,
             "Pivots given to lu_solve must all be smaller or equal to LU.size(-2). Did you "
             "properly pass the result of lu_factor?");
  // The systems with A^T on the left solve on LU's transpose (NOTE [LU solves from
  // torch's factors]); X A = B and X A^T = B solve on B's transpose.
  const bool transposed = left == adjoint;
  // A few right-hand sides are solved by trsm on the factors as they are: the
  // blocked solve's copies of the factors would cost more than it saves.
  const bool few = other <= 8;
  Tensor factors =
      contiguous(expand(transposed && !few ? transpose(lu, -2, -1) : lu, with_matrix(batch, n, n)));
  Tensor bm = expand(b, with_matrix(batch, b.size(-2), b.size(-1)));
  Tensor c = work_copy(left ? bm : transpose(bm, -2, -1));
  on_float_type(lu.dtype(), [&](auto zero) {
    using T = decltype(zero);
    std::vector<int> unswapped(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) unswapped[size_t(i)] = int(i) + 1;
    auto solve = [&](int64_t lo, int64_t hi) {
      std::vector<T> w(transposed ? 0 : size_t(nn));
      for (int64_t i = lo; i < hi; ++i) {
        const T* f = factors.data<T>() + i * nn;
        const int* pi = reinterpret_cast<const int*>(pp + i * n);
        T* ci = c.data<T>() + i * n * other;
        if (few) {
          lu_solve_few(f, pi, n, ci, other, transposed);
        } else if (transposed)
          kernels::lu_solve_rows(f, pi, n, ci, other);
        else
          lu_solve_forward(f, pi, n, ci, other, w, unswapped);
      }
    };
    // A batch of small systems (each below the size where the solve uses the
    // threads itself) goes over the threads by matrix, in one region.
    constexpr int64_t kThreadsAbove = int64_t(1) << 20;
    const int64_t work = nn * other;
    if (count > 1 && work < kThreadsAbove && count * work >= kThreadsAbove)
      parallel_for(count, 1, solve);
    else
      solve(0, count);
  });
  // NOTE [Column-major results]; X A = B's is the transpose of one, row-major, as torch's
  return left ? column_major(c) : contiguous(transpose(c, -2, -1));
}

std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor> linalg_lstsq_plain(const Tensor& a,
                                                                      const Tensor& b, int driver,
                                                                      double rcond, bool vector) {
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
    auto solve = [&](int64_t lo, int64_t hi) {
      std::vector<T> buf(static_cast<size_t>(std::max<int64_t>(ld * k, 1)));
      for (int64_t i = lo; i < hi; ++i) {
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
    };
    // LAPACK runs on one thread (NOTE [One thread pool]): a batch goes over the
    // threads by matrix, in one region, when it is worth the fork.
    if (count > 1 && count * m * n * std::max(n, k) >= (int64_t(1) << 20))
      parallel_for(count, 1, solve);
    else
      solve(0, count);
  });
  Tensor full = column_major(out);  // NOTE [Column-major results]
  DimVector sizes = with_matrix(batch, n, k), strides = full.strides();
  if (vector) {
    sizes.pop_back();
    strides.pop_back();
  }
  return {full, rank, s, info, alias_with_geometry(full, sizes, strides, 0)};
}

namespace {
/// The 1-norm (maximum absolute column sum) of each matrix of `a`, summed in double a row
/// at a time (a column at a time read a cache line per element).
std::vector<double> one_norms(const Tensor& a) {
  const int64_t n = a.size(-1), count = a.numel() / std::max<int64_t>(n * n, 1);
  const bool single = a.dtype() == ScalarType::Float32;
  const Tensor x = contiguous(single ? a : to_dtype(a, ScalarType::Float64));
  std::vector<double> norms(static_cast<size_t>(count), 0.0);
  on_float_type(x.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* p = x.data<T>();
    std::vector<double> col(static_cast<size_t>(n));
    for (int64_t b = 0; b < count && n > 0; ++b) {
      std::fill(col.begin(), col.end(), 0.0);
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) col[size_t(j)] += std::abs(double(p[(b * n + i) * n + j]));
      for (double c : col) norms[size_t(b)] = std::max(norms[size_t(b)], c);
    }
  });
  return norms;
}
}  // namespace

Tensor linalg_matrix_exp_plain(const Tensor& a) {
  const int64_t n = a.size(-1);
  autograd::AutoGradMode off(false);
  // NOTE [Scaling for the exponential's Taylor polynomial]
  // Scaling and squaring: exp(A) = exp(A / 2^s)^(2^s), each matrix scaled until its
  // 1-norm is at most theta, below which the degree-18 Taylor polynomial is exact to the
  // dtype's rounding (backward error at most the unit roundoff: theta = 3.010066 for
  // float32 and 1.090864 for float64, the bounds torch 2.13 also uses, from Bader, Blanes
  // and Casas, 2019). Every squaring roughly doubles the rounding error, so s is the least
  // that reaches theta, and each matrix of a batch has its own. One threshold of 1/2 for
  // both dtypes and one s per batch gave float32 results 2-30x torch's error against a
  // float64 reference (64 x 64 at 1-norms 1-65, and a batch whose norms span 1000x).
  const double theta = a.dtype() == ScalarType::Float32 ? 3.010066362817634 : 1.090863719290036;
  const std::vector<double> norms = one_norms(a);
  std::vector<int> steps(norms.size(), 0);
  for (size_t b = 0; b < norms.size(); ++b)
    if (std::isfinite(norms[b]) && norms[b] > theta)
      steps[b] = std::max(0, int(std::ceil(std::log2(norms[b] / theta))));
  const int most = steps.empty() ? 0 : *std::max_element(steps.begin(), steps.end());
  const int least = steps.empty() ? 0 : *std::min_element(steps.begin(), steps.end());
  // Powers of two: the scaling is exact. A batch is scaled by a tensor of 2^-s per matrix.
  const auto per_matrix = [&](auto value) {
    DimVector shape = batch_of(a.sizes());
    shape.push_back(1);
    shape.push_back(1);
    Tensor t = empty(shape, a.dtype());
    on_float_type(a.dtype(), [&](auto zero) {
      using T = decltype(zero);
      for (size_t b = 0; b < steps.size(); ++b) t.data<T>()[b] = T(value(steps[b]));
    });
    return t;
  };
  Tensor x = a;
  if (most == least && most > 0)
    x = div(a, Scalar(std::ldexp(1.0, most)));
  else if (most > least)
    x = mul(a, per_matrix([](int s) { return std::ldexp(1.0, -s); }));
  // NOTE [Taylor polynomial by Paterson and Stockmeyer]
  // The polynomial is sum_k X^k / k! = B0 + Y (B1 + Y (B2 + Y (B3 + Y B4))) with Y = X^4
  // and Bj = sum_{i<4} X^i / (4j + i)!: X^2, X^3, X^4 and four products with Y, 7
  // products where Horner's form took 18. matrix_exp at 256, float32, Xeon family 6
  // model 207, two threads: 2.97 -> 1.38 ms (torch 1.57-1.63 ms), with the 1-norm summed
  // a row at a time.
  constexpr int kDegree = 18, kStep = 4;
  Tensor eye_n = expand(eye(n, n, a.dtype()), a.sizes());
  const Tensor x2 = matmul(x, x);
  const Tensor powers[kStep] = {eye_n, x, x2, matmul(x2, x)};
  const Tensor y = matmul(x2, x2);
  double inverse_factorial[kDegree + 1] = {1.0};
  for (int k = 1; k <= kDegree; ++k) inverse_factorial[k] = inverse_factorial[k - 1] / k;
  const auto block = [&](int j) {
    Tensor sum = mul(powers[0], Scalar(inverse_factorial[kStep * j]));
    for (int i = 1; i < kStep && kStep * j + i <= kDegree; ++i)
      sum = add(sum, powers[i], Scalar(inverse_factorial[kStep * j + i]));
    return sum;
  };
  Tensor e = block(kDegree / kStep);
  for (int j = kDegree / kStep - 1; j >= 0; --j) e = add(block(j), matmul(y, e));
  // Each matrix squared its own number of times: past a matrix's s, the step keeps it.
  for (int i = 0; i < most; ++i) {
    Tensor squared = matmul(e, e);
    e = i < least
            ? squared
            : where(to_dtype(per_matrix([i](int s) { return double(s > i); }), ScalarType::Bool),
                    squared, e);
  }
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
