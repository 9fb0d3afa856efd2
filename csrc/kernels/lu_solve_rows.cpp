// NOTE [LU solves on our GEMM] is in lu_solve_rows.h.
#include "kernels/lu_solve_rows.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "kernels/blas.h"
#include "kernels/parallel.h"

namespace gradtrack::kernels {

namespace {

constexpr int64_t kBaseRows = 16;  // rows solved by substitution at the recursion's leaves

// c[m, w] -= a[m, h] @ x[h, w], a read with leading dimension lda.
template <typename T>
void subtract_product(const T* a, int64_t lda, const T* x, T* c, int64_t m, int64_t h, int64_t w,
                      int64_t ld) {
  std::vector<T> neg(static_cast<size_t>(m * h));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < h; ++j) neg[size_t(i * h + j)] = -a[i * lda + j];
  blas_gemm<T>(false, false, m, w, h, neg.data(), h, x, ld, T(1), c, ld);
}

// Solves L Y = B for the m x m lower triangle of `t` (leading dimension n; the
// diagonal is used, not assumed 1) and the m x w rows of b (leading dimension ld).
template <typename T>
void lower_solve(const T* t, int64_t n, T* b, int64_t m, int64_t w, int64_t ld) {
  if (m <= kBaseRows) {
    for (int64_t i = 0; i < m; ++i) {
      T* row = b + i * ld;
      for (int64_t j = 0; j < i; ++j) {
        const T f = t[i * n + j];
        const T* src = b + j * ld;
        for (int64_t c = 0; c < w; ++c) row[c] -= f * src[c];
      }
      const T d = t[i * n + i];
      for (int64_t c = 0; c < w; ++c) row[c] /= d;
    }
    return;
  }
  const int64_t h = m / 2;
  lower_solve(t, n, b, h, w, ld);
  subtract_product(t + h * n, n, b, b + h * ld, m - h, h, w, ld);
  lower_solve(t + h * n + h, n, b + h * ld, m - h, w, ld);
}

// Solves U Y = B for the m x m strictly upper triangle of `t` with a unit diagonal.
template <typename T>
void unit_upper_solve(const T* t, int64_t n, T* b, int64_t m, int64_t w, int64_t ld) {
  if (m <= kBaseRows) {
    for (int64_t i = m - 1; i >= 0; --i) {
      T* row = b + i * ld;
      for (int64_t j = i + 1; j < m; ++j) {
        const T f = t[i * n + j];
        const T* src = b + j * ld;
        for (int64_t c = 0; c < w; ++c) row[c] -= f * src[c];
      }
    }
    return;
  }
  const int64_t h = m / 2;
  unit_upper_solve(t + h * n + h, n, b + h * ld, m - h, w, ld);
  subtract_product(t + h, n, b + h * ld, b, h, m - h, w, ld);
  unit_upper_solve(t, n, b, h, w, ld);
}

}  // namespace

template <typename T>
void lu_solve_rows(const T* lu, const int* piv, int64_t n, T* b, int64_t k) {
  if (n == 0 || k == 0) return;
  // The buffer read row-major is U^T (lower, with the diagonal) and L^T (strictly
  // upper, unit diagonal); X = P L^-T U^-T B, P undoing getrf's row swaps last first.
  auto slice = [&](int64_t c0, int64_t c1) {
    T* bs = b + c0;
    const int64_t w = c1 - c0;
    lower_solve(lu, n, bs, n, w, k);
    unit_upper_solve(lu, n, bs, n, w, k);
    for (int64_t i = n - 1; i >= 0; --i) {
      const int64_t p = piv[i] - 1;
      if (p != i) std::swap_ranges(bs + i * k, bs + i * k + w, bs + p * k);
    }
  };
  // Column slices of at least 32 values (two AVX-512 vectors), one per thread when
  // the work is worth a fork.
  const int64_t threads = get_num_threads();
  const int64_t work = n * n * k;
  int64_t slices = work >= (int64_t(1) << 20) ? std::min(threads, std::max<int64_t>(1, k / 32)) : 1;
  if (slices <= 1) return slice(0, k);
  const int64_t per = ((k + slices - 1) / slices + 15) / 16 * 16;
  slices = (k + per - 1) / per;
  parallel_for(slices, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t s = lo; s < hi; ++s) slice(s * per, std::min(k, (s + 1) * per));
  });
}

template void lu_solve_rows<float>(const float*, const int*, int64_t, float*, int64_t);
template void lu_solve_rows<double>(const double*, const int*, int64_t, double*, int64_t);

}  // namespace gradtrack::kernels
