// NOTE [Blocked Householder QR over two threads] in householder_blocks.h.
#include "kernels/householder_blocks.h"

#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <vector>

#include "kernels/parallel.h"

extern "C" {
// Fortran LAPACK, as the scipy-openblas32 wheel exports it (character lengths last).
void scipy_sgeqr2_(const int* m, const int* n, float* a, const int* lda, float* tau, float* work,
                   int* info);
void scipy_dgeqr2_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work,
                   int* info);
void scipy_slarft_(const char* direct, const char* storev, const int* n, const int* k,
                   const float* v, const int* ldv, const float* tau, float* t, const int* ldt,
                   size_t direct_len, size_t storev_len);
void scipy_dlarft_(const char* direct, const char* storev, const int* n, const int* k,
                   const double* v, const int* ldv, const double* tau, double* t, const int* ldt,
                   size_t direct_len, size_t storev_len);
void scipy_slarfb_(const char* side, const char* trans, const char* direct, const char* storev,
                   const int* m, const int* n, const int* k, const float* v, const int* ldv,
                   const float* t, const int* ldt, float* c, const int* ldc, float* work,
                   const int* ldwork, size_t side_len, size_t trans_len, size_t direct_len,
                   size_t storev_len);
void scipy_dlarfb_(const char* side, const char* trans, const char* direct, const char* storev,
                   const int* m, const int* n, const int* k, const double* v, const int* ldv,
                   const double* t, const int* ldt, double* c, const int* ldc, double* work,
                   const int* ldwork, size_t side_len, size_t trans_len, size_t direct_len,
                   size_t storev_len);
}

namespace gradtrack::kernels {

namespace {

constexpr int kBlock = 32;  // reflectors per block, LAPACK's for geqrf and orgqr
// Columns of the trailing update the panel's factorization is worth: the first thread
// factors the next panel and updates that many fewer columns than the second.
constexpr int kPanelColumns = 48;
// The share of Q's columns for the first thread (NOTE [Blocked Householder QR over two
// threads]): column j of a square Q costs ~ j n - j^2 / 2, half of all by 0.65 n.
constexpr double kFirstQColumns = 0.65;

template <typename T>
void panel_qr(int m, int n, T* a, int lda, T* tau, T* work) {
  int info = 0;
  if constexpr (std::is_same_v<T, float>) {
    scipy_sgeqr2_(&m, &n, a, &lda, tau, work, &info);
  } else {
    scipy_dgeqr2_(&m, &n, a, &lda, tau, work, &info);
  }
}

// The kb x kb triangle T of the block reflector I - V T V^T of kb forward, columnwise
// reflectors of length m (V at v, leading dimension ldv).
template <typename T>
void block_reflector(int m, int kb, const T* v, int ldv, const T* tau, T* t) {
  const char direct = 'F', storev = 'C';
  const int ldt = kBlock;
  if constexpr (std::is_same_v<T, float>) {
    scipy_slarft_(&direct, &storev, &m, &kb, v, &ldv, tau, t, &ldt, 1, 1);
  } else {
    scipy_dlarft_(&direct, &storev, &m, &kb, v, &ldv, tau, t, &ldt, 1, 1);
  }
}

// c (m x n, leading dimension ldc) = (I - V T V^T) c, or with T^T when `transposed`.
template <typename T>
void apply_block(bool transposed, int m, int n, int kb, const T* v, int ldv, const T* t, T* c,
                 int ldc, std::vector<T>& work) {
  if (m <= 0 || n <= 0) return;
  const char side = 'L', trans = transposed ? 'T' : 'N', direct = 'F', storev = 'C';
  const int ldt = kBlock, ldwork = n;  // work holds n x kb (sized by the caller)
  if constexpr (std::is_same_v<T, float>) {
    scipy_slarfb_(&side, &trans, &direct, &storev, &m, &n, &kb, v, &ldv, t, &ldt, c, &ldc,
                  work.data(), &ldwork, 1, 1, 1, 1);
  } else {
    scipy_dlarfb_(&side, &trans, &direct, &storev, &m, &n, &kb, v, &ldv, t, &ldt, c, &ldc,
                  work.data(), &ldwork, 1, 1, 1, 1);
  }
}

// Two threads from 2^24 multiply-adds: at 128 and 192 they measured no faster than one.
bool two_threads_pay(int64_t m, int64_t n, int64_t k) {
#ifdef _OPENMP
  return m * n * k >= (int64_t(1) << 24) && get_num_threads() > 1 && !in_parallel_region();
#else
  return false;
#endif
}

}  // namespace

bool qr_blocks_pay(int64_t, int64_t, int64_t k) { return k >= 2 * kBlock; }

template <typename T>
void qr_factor_blocks(T* a, int m, int n, T* tau) {
  const int k = std::min(m, n);
  // Two triangles: the first thread forms the next block's while the second may still
  // apply the last one (one barrier a step, so one step apart at the most).
  std::vector<T> triangles(size_t(2) * kBlock * kBlock);
  const auto step = [&](int t, int threads, std::vector<T>& work) {
    for (int j = 0, s = 0; j < k; j += kBlock, ++s) {
      const int jb = std::min(kBlock, k - j), rows = m - j;
      T* v = a + size_t(j) * m + j;
      T* tri = triangles.data() + size_t(s % 2) * kBlock * kBlock;
      // The panel is the first thread's: it updated these columns in the last step.
      if (t == 0) {
        panel_qr(rows, jb, v, m, tau + j, work.data());
        if (j + jb < n) block_reflector(rows, jb, v, m, tau + j, tri);
      }
#pragma omp barrier
      const int c0 = j + jb, total = n - c0;
      if (total <= 0) continue;
      const int next = std::min(kBlock, std::max(0, k - c0));
      int split = threads == 1 ? total : std::max(next, (total - kPanelColumns) / 2);
      split = std::min(total, split);
      const int lo = t == 0 ? 0 : split, hi = t == 0 ? split : total;
      apply_block(true, rows, hi - lo, jb, v, m, tri, a + size_t(c0 + lo) * m + j, m, work);
    }
  };
  // The scratch is allocated before the region: nothing in it may throw.
  std::vector<T> works[2] = {std::vector<T>(size_t(std::max(n, 1)) * kBlock),
                             std::vector<T>(size_t(std::max(n, 1)) * kBlock)};
#ifdef _OPENMP
  if (two_threads_pay(m, n, k)) {
#pragma omp parallel num_threads(2)
    step(omp_get_thread_num(), omp_get_num_threads(), works[omp_get_thread_num()]);
    return;
  }
#endif
  step(0, 1, works[0]);
}

template <typename T>
void qr_q_blocks(const T* a, int m, int cols, int k, const T* tau, T* q) {
  const int blocks = (k + kBlock - 1) / kBlock;
  std::vector<T> triangles(size_t(std::max(blocks, 1)) * kBlock * kBlock);
  for (int b = 0; b < blocks; ++b) {
    const int j = b * kBlock, jb = std::min(kBlock, k - j);
    block_reflector(m - j, jb, a + size_t(j) * m + j, m, tau + j,
                    triangles.data() + size_t(b) * kBlock * kBlock);
  }
  // Columns [c0, c1) of Q: the identity's, then every block reflector, last first, on
  // the rows and columns it reaches.
  const auto columns = [&](int c0, int c1, std::vector<T>& work) {
    for (int c = c0; c < c1; ++c) {
      T* col = q + size_t(c) * m;
      std::fill(col, col + m, T(0));
      if (c < m) col[c] = T(1);
    }
    for (int b = blocks - 1; b >= 0; --b) {
      const int j = b * kBlock, jb = std::min(kBlock, k - j), first = std::max(c0, j);
      if (first >= c1) continue;
      apply_block(false, m - j, c1 - first, jb, a + size_t(j) * m + j, m,
                  triangles.data() + size_t(b) * kBlock * kBlock, q + size_t(first) * m + j, m,
                  work);
    }
  };
  const int split = std::min(cols, (int(kFirstQColumns * cols) + 8) / 16 * 16);
  // The scratch is allocated before the region: nothing in it may throw.
  std::vector<T> works[2] = {std::vector<T>(size_t(std::max(cols, 1)) * kBlock),
                             std::vector<T>(size_t(std::max(cols, 1)) * kBlock)};
  if (two_threads_pay(m, cols, k)) {
    parallel_items(2, [&](int64_t t) {
      t == 0 ? columns(0, split, works[0]) : columns(split, cols, works[1]);
    });
  } else {
    columns(0, cols, works[0]);
  }
}

template void qr_factor_blocks<float>(float*, int, int, float*);
template void qr_factor_blocks<double>(double*, int, int, double*);
template void qr_q_blocks<float>(const float*, int, int, int, const float*, float*);
template void qr_q_blocks<double>(const double*, int, int, int, const double*, double*);

}  // namespace gradtrack::kernels
