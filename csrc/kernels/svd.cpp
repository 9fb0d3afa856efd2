// One-sided Jacobi SVD (see svd.h).
#include "kernels/svd.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace gradtrack::kernels {

namespace {

// Column-major work: w is rows x cols (rows >= cols), v is cols x cols.
// Rotates pairs of columns of w until every pair is orthogonal; then the
// column norms are the singular values and w's normalised columns are U.
void orthogonalize(std::vector<double>& w, std::vector<double>& v, int64_t rows, int64_t cols) {
  auto col = [&](std::vector<double>& x, int64_t c, int64_t len) { return x.data() + c * len; };
  for (int sweep = 0; sweep < 60; ++sweep) {
    bool rotated = false;
    for (int64_t p = 0; p < cols; ++p) {
      for (int64_t q = p + 1; q < cols; ++q) {
        double* wp = col(w, p, rows);
        double* wq = col(w, q, rows);
        double alpha = 0, beta = 0, gamma = 0;
        for (int64_t i = 0; i < rows; ++i) {
          alpha += wp[i] * wp[i];
          beta += wq[i] * wq[i];
          gamma += wp[i] * wq[i];
        }
        if (gamma == 0 || std::abs(gamma) <= 1e-15 * std::sqrt(alpha * beta)) continue;
        rotated = true;
        const double zeta = (beta - alpha) / (2 * gamma);
        const double t = std::copysign(1.0, zeta) / (std::abs(zeta) + std::hypot(1.0, zeta));
        const double c = 1 / std::hypot(1.0, t), s = c * t;
        auto rotate = [&](double* x, double* y, int64_t len) {
          for (int64_t i = 0; i < len; ++i) {
            const double xi = x[i], yi = y[i];
            x[i] = c * xi - s * yi;
            y[i] = s * xi + c * yi;
          }
        };
        rotate(wp, wq, rows);
        rotate(col(v, p, cols), col(v, q, cols), cols);
      }
    }
    if (!rotated) break;
  }
}

// Columns of u (rows x cols, column-major) whose singular value is 0 get
// unit vectors orthogonal to the others (Gram-Schmidt on the standard basis),
// so U stays orthonormal for rank-deficient input.
void complete_basis(std::vector<double>& u, const std::vector<bool>& ok, int64_t rows,
                    int64_t cols) {
  int64_t next = 0;
  for (int64_t c = 0; c < cols; ++c) {
    if (ok[size_t(c)]) continue;
    for (; next < rows; ++next) {
      std::vector<double> e(static_cast<size_t>(rows), 0.0);
      e[size_t(next)] = 1;
      for (int64_t o = 0; o < cols; ++o) {
        if (o == c || (!ok[size_t(o)] && o > c)) continue;
        const double* uo = u.data() + o * rows;
        const double d = std::inner_product(uo, uo + rows, e.begin(), 0.0);
        for (int64_t i = 0; i < rows; ++i) e[size_t(i)] -= d * uo[i];
      }
      const double nrm = std::sqrt(std::inner_product(e.begin(), e.end(), e.begin(), 0.0));
      if (nrm > 1e-8) {
        for (int64_t i = 0; i < rows; ++i) u[size_t(c * rows + i)] = e[size_t(i)] / nrm;
        ++next;
        break;
      }
    }
  }
}

// The SVD of a tall (rows >= cols) column-major matrix: u column-major
// rows x cols, s, v column-major cols x cols, sorted by descending s.
void tall_svd(std::vector<double> w, int64_t rows, int64_t cols, std::vector<double>& u,
              std::vector<double>& s, std::vector<double>& v) {
  v.assign(size_t(cols * cols), 0.0);
  for (int64_t i = 0; i < cols; ++i) v[size_t(i * cols + i)] = 1;
  orthogonalize(w, v, rows, cols);
  std::vector<double> norms(static_cast<size_t>(cols));
  for (int64_t c = 0; c < cols; ++c) {
    const double* x = w.data() + c * rows;
    norms[size_t(c)] = std::sqrt(std::inner_product(x, x + rows, x, 0.0));
  }
  std::vector<int64_t> order(static_cast<size_t>(cols));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t x, int64_t y) { return norms[size_t(x)] > norms[size_t(y)]; });
  const double tiny = (norms.empty() ? 0.0 : norms[size_t(order[0])]) * 1e-300;
  u.assign(size_t(rows * cols), 0.0);
  s.assign(size_t(cols), 0.0);
  std::vector<double> vs(static_cast<size_t>(cols * cols));
  std::vector<bool> ok(static_cast<size_t>(cols), false);
  for (int64_t j = 0; j < cols; ++j) {
    const int64_t c = order[size_t(j)];
    s[size_t(j)] = norms[size_t(c)];
    ok[size_t(j)] = norms[size_t(c)] > tiny && norms[size_t(c)] > 0;
    for (int64_t i = 0; i < rows; ++i)
      u[size_t(j * rows + i)] = ok[size_t(j)] ? w[size_t(c * rows + i)] / norms[size_t(c)] : 0.0;
    std::copy(v.begin() + c * cols, v.begin() + (c + 1) * cols, vs.begin() + j * cols);
  }
  v = vs;
  complete_basis(u, ok, rows, cols);
}

}  // namespace

void jacobi_svd(const double* a, int64_t m, int64_t n, double* u, double* s, double* vt) {
  const int64_t k = std::min(m, n);
  if (k == 0) return;
  const bool tall = m >= n;
  const int64_t rows = tall ? m : n, cols = tall ? n : m;
  // Column-major copy of a (tall) or of a^T (wide).
  std::vector<double> w(static_cast<size_t>(rows * cols));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) w[size_t(tall ? j * m + i : i * n + j)] = a[i * n + j];
  std::vector<double> uu, ss, vv;
  tall_svd(std::move(w), rows, cols, uu, ss, vv);
  std::copy(ss.begin(), ss.end(), s);
  // tall: A = uu S vv^T. wide: A^T = uu S vv^T, so A = vv S uu^T.
  const std::vector<double>& left = tall ? uu : vv;
  const std::vector<double>& right = tall ? vv : uu;
  const int64_t left_rows = m, right_rows = n;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < k; ++j) u[i * k + j] = left[size_t(j * left_rows + i)];
  for (int64_t j = 0; j < k; ++j)
    for (int64_t c = 0; c < n; ++c) vt[j * n + c] = right[size_t(j * right_rows + c)];
}

}  // namespace gradtrack::kernels
