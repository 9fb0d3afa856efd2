// The NOTEs on the LU and Cholesky factorizations and solves are in the header.
#include "kernels/triangular_blocks.h"

#include <algorithm>
#include <exception>
#include <functional>
#include <utility>
#include <vector>

#include "kernels/blas.h"
#include "kernels/lapack.h"
#include "kernels/parallel.h"
#include "kernels/simd_clones.h"

namespace gradtrack::kernels {

namespace {

constexpr int64_t kBaseRows = 16;  // rows solved by substitution at the recursion's leaves

// NOTE [Few parallel regions in a factorization]
// Every parallel region waits at its end for both threads, and its start wakes
// the other thread if it has gone to sleep (it does during a serial step of a
// millisecond). When another process holds a core (a loaded host; in the
// benchmark runner, torch's worker whose OpenMP threads still spin), that wait
// is a time slice, milliseconds: a factorization of dozens of small regions took
// 5x its time alone (LU solve at 256: 4.3 ms against 0.64 ms). And the two
// cores of a cloud host need not run at one speed: on the Xeon these figures come
// from, one ran the same solve 1.6x slower than the other for seconds at a time,
// and an even split waits for the slower. So a step uses the threads only when it
// is worth a wait: at least 2^26 multiply-adds, about a millisecond of work on one
// core (solve, inv and LU from 512, Cholesky from 1024); the solves of many
// right-hand sides are one region.
constexpr int64_t kThreadsAbove = int64_t(1) << 26;
// The solves of many right-hand sides are one region with no wait inside it, so
// they take the threads from 2^23 multiply-adds: solve at 256 with 256
// right-hand sides, 2 threads, quiet: 0.42 -> 0.35 ms (torch 0.39 ms).
constexpr int64_t kSolveThreadsAbove = int64_t(1) << 23;

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

// NOTE [Substitution at the leaves]
// The recursion's leaves (at most kBaseRows rows) are solved by substitution,
// a row at a time: row i less the multiples of the rows already solved. Compiled
// for the baseline only, these loops ran 4 floats at a time and took half of a
// 256 x 256 solve. They are compiled for AVX-512 and AVX2 as well (NOTE [SIMD
// clones] in simd.h), and each row is built in a block of kLeafColumns columns
// held in registers across the solved rows, so a block is loaded and stored once
// per row rather than once per solved row.

constexpr int64_t kLeafColumns = 64;

// Rows [i] of the m x w block at b (leading dimension ld), in the order a lower
// (unit_upper false: rows 0..m-1, divided by the diagonal) or unit upper (rows
// m-1..0) substitution solves them, t (leading dimension n) the triangle.
template <typename T>
[[gnu::always_inline]] inline void leaf_rows(bool unit_upper, const T* t, int64_t n, T* b,
                                             int64_t m, int64_t w, int64_t ld) {
  for (int64_t s = 0; s < m; ++s) {
    const int64_t i = unit_upper ? m - 1 - s : s;
    const int64_t j0 = unit_upper ? i + 1 : 0, j1 = unit_upper ? m : i;
    const T* ti = t + i * n;
    T* row = b + i * ld;
    int64_t c = 0;
    for (; c + kLeafColumns <= w; c += kLeafColumns) {
      T acc[kLeafColumns];
      for (int64_t v = 0; v < kLeafColumns; ++v) acc[v] = row[c + v];
      for (int64_t j = j0; j < j1; ++j) {
        const T f = ti[j];
        const T* src = b + j * ld + c;
        for (int64_t v = 0; v < kLeafColumns; ++v) acc[v] -= f * src[v];
      }
      if (!unit_upper)
        for (int64_t v = 0; v < kLeafColumns; ++v) acc[v] /= ti[i];
      for (int64_t v = 0; v < kLeafColumns; ++v) row[c + v] = acc[v];
    }
    for (int64_t j = j0; j < j1; ++j) {
      const T f = ti[j];
      const T* src = b + j * ld;
      for (int64_t v = c; v < w; ++v) row[v] -= f * src[v];
    }
    if (!unit_upper)
      for (int64_t v = c; v < w; ++v) row[v] /= ti[i];
  }
}

GT_CLONES_V4_AVX2 void leaf_solve(bool unit_upper, const float* t, int64_t n, float* b, int64_t m,
                                  int64_t w, int64_t ld) {
  leaf_rows(unit_upper, t, n, b, m, w, ld);
}
GT_CLONES_V4_AVX2 void leaf_solve(bool unit_upper, const double* t, int64_t n, double* b, int64_t m,
                                  int64_t w, int64_t ld) {
  leaf_rows(unit_upper, t, n, b, m, w, ld);
}

// Solves L Y = B for the m x m lower triangle of `t` (leading dimension n; the
// diagonal is used, not assumed 1) and the m x w rows of b (leading dimension ld).
template <typename T>
void lower_solve(const T* t, int64_t n, T* b, int64_t m, int64_t w, int64_t ld) {
  if (m <= kBaseRows) return leaf_solve(false, t, n, b, m, w, ld);
  const int64_t h = m / 2;
  lower_solve(t, n, b, h, w, ld);
  subtract_product(false, t + h * n, n, b, ld, b + h * ld, ld, m - h, h, w, false);
  lower_solve(t + h * n + h, n, b + h * ld, m - h, w, ld);
}

// Solves U Y = B for the m x m strictly upper triangle of `t` with a unit diagonal.
template <typename T>
void unit_upper_solve(const T* t, int64_t n, T* b, int64_t m, int64_t w, int64_t ld) {
  if (m <= kBaseRows) return leaf_solve(true, t, n, b, m, w, ld);
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
  for_column_slices(k, m * m * k >= kThreadsAbove,
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

constexpr int64_t kCholeskyLeaf = 128;       // rows factored by LAPACK's potrf
constexpr int64_t kCholeskyUpdateRows = 64;  // rows of a block of the trailing update

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
  // A22 -= L21 L21^T, only as far as the lower triangle (read on) needs: row
  // blocks of kCholeskyUpdateRows, each up to its last column.
  for (int64_t r0 = 0; r0 < m2; r0 += kCholeskyUpdateRows) {
    const int64_t r1 = std::min(m2, r0 + kCholeskyUpdateRows);
    subtract_product(true, a21 + r0 * ld, ld, a21, ld, a + (h + r0) * ld + h, ld, r1 - r0, h, r1,
                     true);
  }
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

namespace {

constexpr int64_t kInverseColumns = 64;  // columns of the identity solved from their first row

// The rest of X = P L^-T U^-T B for the columns [c0, c1) of the n x k rows of b,
// once they hold U^-T B: the unit upper solve, then P.
template <typename T>
void finish_columns(const T* lu, const int* piv, int64_t n, T* b, int64_t k, int64_t c0,
                    int64_t c1) {
  T* bs = b + c0;
  const int64_t w = c1 - c0;
  unit_upper_solve(lu, n, bs, n, w, k);
  for (int64_t i = n - 1; i >= 0; --i) {
    const int64_t p = piv[i] - 1;
    if (p != i) std::swap_ranges(bs + i * k, bs + i * k + w, bs + p * k);
  }
}

// The columns [c0, c1) of U^-T I into the n x n rows of b: the identity's columns, then
// the solve block by block from each block's first row (above it the result stays zero:
// U^-T I is lower triangular, a third of the multiply-adds saved). finish_columns makes
// them A^-1's.
template <typename T>
void inverse_first_solve(const T* lu, int64_t n, T* b, int64_t c0, int64_t c1) {
  for (int64_t i = 0; i < n; ++i) {
    T* row = b + i * n;
    std::fill(row + c0, row + c1, T(0));
    if (i >= c0 && i < c1) row[i] = T(1);
  }
  for (int64_t q0 = c0; q0 < c1; q0 += kInverseColumns) {
    const int64_t q1 = std::min(c1, q0 + kInverseColumns);
    lower_solve(lu + q0 * n + q0, n, b + q0 * n + q0, n - q0, q1 - q0, n);
  }
}

// NOTE [Waking the pool behind the factorization]
// From 2^23 to 2^26 multiply-adds (n from 204 to 406 for an inverse), a solve is worth
// two threads but the factorization before it is not: its steps are too small to share
// (NOTE [Few parallel regions in a factorization]). A region opened after the serial
// factorization must first wake the pool's other thread, asleep by then, and when
// another process's threads hold the cores (torch's, spinning, in the benchmark runner)
// that costs more than the second thread saves: inv at 256 on two threads took
// 495-860 us in the runner, 1.06-1.58x torch. So one region opens before the
// factorization: the calling thread prepares the operand and factors it (226 us at 256)
// while the other thread wakes and waits at the barrier (it was there 14 us after the
// factorization ended); then each solves its share of the columns (142 and 152 us).
// In the runner, Xeon family 6 model 207, two threads: inv at 256 414-513 us, 0.91-0.96x
// torch; solve 0.91-0.96x (was 0.88-1.16x).
//
// In an inverse, column j costs about (n - j)^2 / 2 multiply-adds in the first solve
// and n^2 / 2 in the second, so the first ~40% of the columns are half the work.
constexpr double kFirstThreadColumns = 0.405;

// Calls first(t, threads) on each of two threads t of one region, waits for both,
// then second(t, threads). One thread runs first(0, 1), then second(0, 1). An
// exception (a scratch allocation failing) cannot leave an OpenMP region: the first
// one is kept, the second step skipped, and it is rethrown after the region.
template <typename F, typename G>
void two_steps(const F& first, const G& second) {
#ifdef _OPENMP
  if (get_num_threads() > 1 && !in_parallel_region()) {
    std::exception_ptr error;
    const auto guarded = [&](const auto& step, int t, int used) {
      try {
        step(t, used);
      } catch (...) {
#pragma omp critical(gradtrack_two_steps)
        if (!error) error = std::current_exception();
      }
    };
#pragma omp parallel num_threads(2)
    {
      const int t = omp_get_thread_num(), used = omp_get_num_threads();
      guarded(first, t, used);
#pragma omp barrier
      if (!error) guarded(second, t, used);
    }
    if (error) std::rethrow_exception(error);
    return;
  }
#endif
  first(0, 1);
  second(0, 1);
}

// The columns [0, k) split at `split` (a multiple of 16) for thread t of `threads`.
std::pair<int64_t, int64_t> share_of(int64_t k, int64_t split, int t, int threads) {
  if (threads == 1) return {0, k};
  split = std::min(k, (split + 8) / 16 * 16);
  return t == 0 ? std::make_pair(int64_t(0), split) : std::make_pair(split, k);
}

// lu_factor_rows of `a` (after `prepare`), then share(t, threads, info) on the threads:
// in one region when `one_region` (NOTE [Waking the pool behind the factorization]).
template <typename T, typename F>
int factor_then(T* a, int* piv, int64_t n, const std::function<void()>& prepare, bool one_region,
                const F& share) {
  int info = 0;
  const auto factor = [&](int t, int) {
    if (t != 0) return;
    if (prepare) prepare();
    info = lu_factor_rows(a, n, piv);
  };
  const auto rest = [&](int t, int threads) { share(t, threads, info); };
  if (one_region) {
    two_steps(factor, rest);
  } else {
    factor(0, 1);
    rest(0, 1);
  }
  return info;
}

bool one_region_for(int64_t n, int64_t k) {
  return n * n * k >= kSolveThreadsAbove && n * n * n < kThreadsAbove;
}

}  // namespace

template <typename T>
void lu_solve_rows(const T* lu, const int* piv, int64_t n, T* b, int64_t k) {
  if (n == 0 || k == 0) return;
  // The buffer read row-major is U^T (lower, with the diagonal) and L^T (strictly
  // upper, unit diagonal); X = P L^-T U^-T B, P undoing getrf's row swaps last first.
  // The right-hand sides over the threads when the work is worth a fork.
  for_column_slices(k, n * n * k >= kSolveThreadsAbove, [&](int64_t c0, int64_t c1) {
    lower_solve(lu, n, b + c0, n, c1 - c0, k);
    finish_columns(lu, piv, n, b, k, c0, c1);
  });
}

template <typename T>
int lu_factor_and_solve_rows(T* a, int* piv, int64_t n, T* b, int64_t k,
                             const std::function<void()>& prepare) {
  if (!one_region_for(n, k)) {
    if (prepare) prepare();
    const int info = lu_factor_rows(a, n, piv);
    lu_solve_rows(a, piv, n, b, k);
    return info;
  }
  return factor_then(a, piv, n, prepare, true, [&](int t, int threads, int) {
    const auto [c0, c1] = share_of(k, k / 2, t, threads);
    if (c0 == c1) return;
    lower_solve(a, n, b + c0, n, c1 - c0, k);
    finish_columns(a, piv, n, b, k, c0, c1);
  });
}

template <typename T>
int lu_factor_and_inverse_rows(T* a, int* piv, int64_t n, T* b,
                               const std::function<void()>& prepare) {
  const bool one_region = one_region_for(n, n);
  return factor_then(a, piv, n, prepare, one_region, [&](int t, int threads, int info) {
    if (info != 0) return;
    if (n * n * n < kThreadsAbove) {  // one region, or one thread
      const auto [c0, c1] = share_of(n, int64_t(kFirstThreadColumns * double(n)), t, threads);
      if (c0 == c1) return;
      inverse_first_solve(a, n, b, c0, c1);
      finish_columns(a, piv, n, b, n, c0, c1);
      return;
    }
    // Large: the threads take the first solve's blocks in turn (they shrink from left
    // to right; NOTE [Items taken in turn]), then even column slices.
    const int64_t blocks = (n + kInverseColumns - 1) / kInverseColumns;
    parallel_items(blocks, [&](int64_t q) {
      const int64_t q0 = q * kInverseColumns;
      inverse_first_solve(a, n, b, q0, std::min(n, q0 + kInverseColumns));
    });
    for_column_slices(n, true,
                      [&](int64_t c0, int64_t c1) { finish_columns(a, piv, n, b, n, c0, c1); });
  });
}

template void lu_solve_rows<float>(const float*, const int*, int64_t, float*, int64_t);
template void lu_solve_rows<double>(const double*, const int*, int64_t, double*, int64_t);
template int lu_factor_and_solve_rows<float>(float*, int*, int64_t, float*, int64_t,
                                             const std::function<void()>&);
template int lu_factor_and_solve_rows<double>(double*, int*, int64_t, double*, int64_t,
                                              const std::function<void()>&);
template int lu_factor_and_inverse_rows<float>(float*, int*, int64_t, float*,
                                               const std::function<void()>&);
template int lu_factor_and_inverse_rows<double>(double*, int*, int64_t, double*,
                                                const std::function<void()>&);
template int lu_factor_rows<float>(float*, int64_t, int*);
template int lu_factor_rows<double>(double*, int64_t, int*);
template int cholesky_rows<float>(float*, int64_t, bool);
template int cholesky_rows<double>(double*, int64_t, bool);

}  // namespace gradtrack::kernels
