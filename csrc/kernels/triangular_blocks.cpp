// The NOTEs on the LU and Cholesky factorizations and solves are in the header.
#include "kernels/triangular_blocks.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "kernels/blas.h"
#include "kernels/lapack.h"
#include "kernels/parallel.h"

namespace gradtrack::kernels {

namespace {

constexpr int64_t kBaseRows = 16;  // rows solved by substitution at the recursion's leaves

// NOTE [Few parallel regions in a factorization]
// Every parallel region waits at its end for both threads. When another process
// holds a core (a loaded host; in the benchmark runner, torch's worker whose
// OpenMP threads still spin), a region waits for a time slice, milliseconds, so a
// factorization of dozens of small regions took 5x its time alone (LU solve at 256:
// 4.3 ms against 0.64 ms). Inside the factorizations, then, a step uses the threads
// only when it is worth a wait: at least 2^23 multiply-adds (two at 512 for
// Cholesky, none for LU at 256); the solves of many right-hand sides are one region.
constexpr int64_t kThreadsAbove = int64_t(1) << 23;

// c[m, w] -= a[m, h] @ op(b), op(b) = b[h, w] or, with bt, b[w, h]^T (row-major, leading
// dimensions lda, ldb, ldc). With `threaded`, the rows of c go over the threads where the
// product is worth it (NOTE [Few parallel regions in a factorization]).
template <typename T>
void subtract_product(bool bt, const T* a, int64_t lda, const T* b, int64_t ldb, T* c, int64_t ldc,
                      int64_t m, int64_t h, int64_t w, bool threaded) {
  std::vector<T> neg(static_cast<size_t>(m * h));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < h; ++j) neg[size_t(i * h + j)] = -a[i * lda + j];
  const int64_t threads = threaded && m * h * w >= kThreadsAbove ? get_num_threads() : 1;
  const int64_t rows = std::max<int64_t>(16, (m + threads - 1) / threads);
  parallel_for((m + rows - 1) / rows, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      const int64_t r0 = r * rows, r1 = std::min(m, r0 + rows);
      blas_gemm<T>(false, bt, r1 - r0, w, h, neg.data() + r0 * h, h, b, ldb, T(1), c + r0 * ldc,
                   ldc);
    }
  });
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
  subtract_product(false, t + h * n, n, b, ld, b + h * ld, ld, m - h, h, w, false);
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
  subtract_product(false, t + h, n, b + h * ld, ld, b, ld, h, m - h, w, false);
  unit_upper_solve(t, n, b, h, w, ld);
}

// Calls f(c0, c1) over column slices [c0, c1) of k columns: one slice per thread
// when `parallel` (slices of at least 32 values, two AVX-512 vectors, starting on
// multiples of 16), else one slice of all of them.
template <typename F>
void for_column_slices(int64_t k, bool parallel, const F& f) {
  int64_t slices =
      parallel ? std::min<int64_t>(get_num_threads(), std::max<int64_t>(1, k / 32)) : 1;
  if (slices <= 1) return f(0, k);
  const int64_t per = ((k + slices - 1) / slices + 15) / 16 * 16;
  slices = (k + per - 1) / per;
  parallel_for(slices, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t s = lo; s < hi; ++s) f(s * per, std::min(k, (s + 1) * per));
  });
}

// Solves L X = B for the lower triangle of t (leading dimension n) and the m x k
// rows of b, with the columns of b over the threads.
template <typename T>
void lower_solve_columns(const T* t, int64_t n, T* b, int64_t m, int64_t k) {
  for_column_slices(k, m * m * k >= 2 * kThreadsAbove,
                    [&](int64_t c0, int64_t c1) { lower_solve(t, n, b + c0, m, c1 - c0, k); });
}

constexpr int64_t kLuLeaf = 64;  // columns factored by LAPACK's getrf

// getrf2's recursion on the column-major m x n panel at a (leading dimension ld),
// m >= n. In row-major terms the panel is the n x m matrix R = M^T at a.
template <typename T>
int lu_panel(T* a, int64_t m, int64_t n, int64_t ld, int* piv) {
  if (n <= kLuLeaf) return lu_factor_panel<T>(a, int(m), int(n), int(ld), piv);
  const int64_t n1 = (n / 2 + 15) / 16 * 16, n2 = n - n1;
  const int info1 = lu_panel(a, m, n1, ld, piv);
  T* right = a + n1 * ld;  // M[:, n1:], the rows n1.. of R
  row_swaps<T>(right, int(n2), int(ld), 1, int(n1), piv);
  // M12 = L11^-1 M12 on row-major copies: L11 (unit lower) and M12 (n1 x n2).
  std::vector<T> l11(static_cast<size_t>(n1 * n1), T(0)), m12(static_cast<size_t>(n1 * n2));
  for (int64_t i = 0; i < n1; ++i) {
    for (int64_t j = 0; j < i; ++j) l11[size_t(i * n1 + j)] = a[j * ld + i];
    l11[size_t(i * n1 + i)] = T(1);
  }
  for (int64_t j = 0; j < n2; ++j)
    for (int64_t i = 0; i < n1; ++i) m12[size_t(i * n2 + j)] = right[j * ld + i];
  lower_solve_columns(l11.data(), n1, m12.data(), n1, n2);
  for (int64_t j = 0; j < n2; ++j)
    for (int64_t i = 0; i < n1; ++i) right[j * ld + i] = m12[size_t(i * n2 + j)];
  // M22 -= M21 M12, as R22 -= R21 R12: R's rows n1.. and columns ..n1 (M12^T) times
  // its rows ..n1 and columns n1.. (M21^T).
  subtract_product(false, right, ld, a + n1, ld, right + n1, ld, n2, n1, m - n1, true);
  const int info2 = lu_panel(right + n1, m - n1, n2, ld, piv + n1);
  const int64_t k2 = std::min(m - n1, n2);
  for (int64_t i = 0; i < k2; ++i) piv[n1 + i] += int(n1);
  row_swaps<T>(a, int(n1), int(ld), int(n1 + 1), int(n1 + k2), piv);
  return info1 ? info1 : info2 ? info2 + int(n1) : 0;
}

constexpr int64_t kCholeskyLeaf = 128;  // rows factored by LAPACK's potrf

// The lower Cholesky factor of the m x m block at a (leading dimension ld).
template <typename T>
int cholesky_lower(T* a, int64_t m, int64_t ld) {
  if (m <= kCholeskyLeaf) return cholesky<T>(a, int(m), true, int(ld));  // 'U' of A^T: A's L
  const int64_t h = (m / 2 + 15) / 16 * 16, m2 = m - h;
  if (int info = cholesky_lower(a, h, ld)) return info;
  // L21 L11^T = A21: L11 L21^T = A21^T, solved on a transposed copy.
  T* a21 = a + h * ld;
  std::vector<T> rhs(static_cast<size_t>(h * m2));
  for (int64_t i = 0; i < m2; ++i)
    for (int64_t j = 0; j < h; ++j) rhs[size_t(j * m2 + i)] = a21[i * ld + j];
  lower_solve_columns(a, ld, rhs.data(), h, m2);
  for (int64_t i = 0; i < m2; ++i)
    for (int64_t j = 0; j < h; ++j) a21[i * ld + j] = rhs[size_t(j * m2 + i)];
  // A22 -= L21 L21^T (both triangles; only the lower one is read on).
  subtract_product(true, a21, ld, a21, ld, a + h * ld + h, ld, m2, h, m2, true);
  const int info = cholesky_lower(a + h * ld + h, m2, ld);
  return info ? info + int(h) : 0;
}

}  // namespace

template <typename T>
int lu_factor_rows(T* a, int64_t n, int* piv) {
  if (n <= kLuLeaf) return lu_factor<T>(a, int(n), piv);
  return lu_panel(a, n, n, n, piv);
}

template <typename T>
int cholesky_rows(T* a, int64_t n, bool upper) {
  if (n <= kCholeskyLeaf) return cholesky<T>(a, int(n), !upper);
  // U from A's upper triangle is the lower factor of A^T (whose lower triangle it
  // is), transposed back.
  auto transpose = [&] {
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = i + 1; j < n; ++j) std::swap(a[i * n + j], a[j * n + i]);
  };
  if (upper) transpose();
  const int info = cholesky_lower(a, n, n);
  if (upper) transpose();
  return info;
}

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
  // The right-hand sides over the threads when the work is worth a fork.
  for_column_slices(k, n * n * k >= (int64_t(1) << 20), slice);
}

template void lu_solve_rows<float>(const float*, const int*, int64_t, float*, int64_t);
template void lu_solve_rows<double>(const double*, const int*, int64_t, double*, int64_t);
template int lu_factor_rows<float>(float*, int64_t, int*);
template int lu_factor_rows<double>(double*, int64_t, int*);
template int cholesky_rows<float>(float*, int64_t, bool);
template int cholesky_rows<double>(double*, int64_t, bool);

}  // namespace gradtrack::kernels
