// The factorizations of torch.linalg and the ops built on them: inv_ex, det,
// slogdet, solve_ex, solve_triangular, cholesky_ex and cholesky_solve. Each
// copies its operands into contiguous blocks, runs LAPACK per matrix of the
// batch (kernels/lapack.h) and records torch's node. Argument checks and the
// LinAlgError of a singular input are the Python face's (_ops/linalg_factor.py):
// these entries report LAPACK's info instead.
#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include "autograd/variable.h"
#include "kernels/lapack.h"
#include "kernels/triangular_blocks.h"
#include "ops/common.h"
#include "ops/linalg_batch.h"

namespace gradtrack::ops {

using namespace linalg_batch;  // NOLINT: the batch helpers

namespace {

/// The permutation sign of getrf's 1-based pivots.
bool pivots_flip(const std::vector<int>& piv) {
  bool flip = false;
  for (size_t i = 0; i < piv.size(); ++i) flip ^= piv[i] != int(i) + 1;
  return flip;
}

// NOTE [The pivot a singular matrix reports]
// The factorizations here are of A^T (NOTE [Row-major matrices in LAPACK]), and
// the first zero pivot of A^T's LU is not A's: a matrix with a zero column has
// a zero row in A^T. torch reports A's (the _ex forms' info, the diagonal
// element inv's error names). So where A^T's factorization finds a zero pivot,
// A is factored once more, on a transposed copy, for its info alone; a
// non-singular matrix pays nothing.
template <typename T>
void report_pivots_of_a(const Tensor& a, const DimVector& batch, int n, int32_t* info) {
  const int64_t count = count_of(batch), nn = int64_t(n) * n;
  Tensor copy;
  for (int64_t b = 0; b < count; ++b) {
    if (info[b] == 0) continue;
    if (!copy.defined()) copy = work_copy(expand(a, with_matrix(batch, n, n)));
    T* m = copy.data<T>() + b * nn;
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j) std::swap(m[int64_t(i) * n + j], m[int64_t(j) * n + i]);
    std::vector<int> piv(size_t(std::max(n, 1)));
    info[b] = kernels::lu_factor(m, n, piv.data());
  }
}

/// torch's linalg.solve rule: B is a vector (a batch of them) when it is 1-D or
/// has A's shape without A's last dim.
bool solve_vector_case(const Tensor& a, const Tensor& b) {
  if (b.dim() == 1) return true;
  if (b.dim() != a.dim() - 1) return false;
  for (int64_t d = 0; d < b.dim(); ++d)
    if (b.size(d) != a.size(d)) return false;
  return true;
}

}  // namespace

std::pair<Tensor, Tensor> linalg_inv_ex(const Tensor& a) {
  const int n = int(a.size(-1));
  const DimVector batch = batch_of(a.sizes());
  const int64_t count = count_of(batch), nn = int64_t(n) * n;
  // One matrix is copied inside the factorization's region (NOTE [Waking the pool
  // behind the factorization]); a batch is copied first.
  Tensor lu = count == 1 ? empty(a.sizes(), a.dtype()) : work_copy(a);
  Tensor inv = empty(a.sizes(), a.dtype());
  Tensor info = zeros(batch, ScalarType::Int32);
  const std::function<void()> copy_one = [&] { work_copy_into(lu, a); };
  on_float_type(a.dtype(), [&](auto zero) {
    using T = decltype(zero);
    int32_t* pinfo = info.data<int32_t>();
    std::vector<int> piv(size_t(std::max(n, 1)));
    for (int64_t b = 0; b < count; ++b) {
      T* m = lu.data<T>() + b * nn;
      T* x = inv.data<T>() + b * nn;
      // As torch: A X = I solved with the factors (NOTE [LU solves on our GEMM]),
      // singular ones in full (the same infinities and NaNs).
      pinfo[b] =
          kernels::lu_factor_and_inverse_rows(m, piv.data(), n, x, count == 1 ? copy_one : nullptr);
      if (pinfo[b] != 0) {
        std::fill(x, x + nn, T(0));
        for (int i = 0; i < n; ++i) x[int64_t(i) * n + i] = T(1);
        kernels::lu_solve_rows(m, piv.data(), n, x, n);
      }
      for (int64_t i = 0; i < nn; ++i) x[i] += T(0);  // no -0 where torch has 0
    }
    report_pivots_of_a<T>(a, batch, n, pinfo);
  });
  inv = column_major(inv);  // NOTE [Column-major results]
  record(OpKind::LinalgInvEx, {&a}, inv);
  return {inv, info};
}

Tensor linalg_det(const Tensor& a) {
  const int n = int(a.size(-1));
  const DimVector batch = batch_of(a.sizes());
  const int64_t count = count_of(batch), nn = int64_t(n) * n;
  Tensor lu = work_copy(a);
  Tensor det = empty(batch, a.dtype());
  on_float_type(a.dtype(), [&](auto zero) {
    using T = decltype(zero);
    std::vector<int> piv(static_cast<size_t>(n));
    for (int64_t b = 0; b < count; ++b) {
      T* m = lu.data<T>() + b * nn;
      kernels::lu_factor_rows(m, n, piv.data());
      T d = pivots_flip(piv) ? T(-1) : T(1);
      for (int i = 0; i < n; ++i) d *= m[int64_t(i) * n + i];
      det.data<T>()[b] = d;
    }
  });
  record(OpKind::LinalgDet, {&a}, det);
  return det;
}

std::pair<Tensor, Tensor> linalg_slogdet(const Tensor& a) {
  const int n = int(a.size(-1));
  const DimVector batch = batch_of(a.sizes());
  const int64_t count = count_of(batch), nn = int64_t(n) * n;
  Tensor lu = work_copy(a);
  Tensor sign = empty(batch, a.dtype()), logabs = empty(batch, a.dtype());
  on_float_type(a.dtype(), [&](auto zero) {
    using T = decltype(zero);
    std::vector<int> piv(static_cast<size_t>(n));
    for (int64_t b = 0; b < count; ++b) {
      T* m = lu.data<T>() + b * nn;
      kernels::lu_factor_rows(m, n, piv.data());
      // The logarithms are summed in double: a float32 running sum of n of them
      // rounds n times (128 x 128: 4.7x torch's error against a float64 reference).
      T s = pivots_flip(piv) ? T(-1) : T(1);
      double l = 0;
      for (int i = 0; i < n; ++i) {
        const T u = m[int64_t(i) * n + i];
        s *= u > 0 ? T(1) : u < 0 ? T(-1) : T(0);
        l += std::log(std::abs(double(u)));
      }
      sign.data<T>()[b] = s;
      logabs.data<T>()[b] = T(l);  // a zero pivot's log is -inf; a NaN one's NaN, as torch's
    }
  });
  if (autograd::forward_ad::any_tangent({&a}))
    autograd::forward_ad::propagate(OpKind::LinalgSlogdet, {&a}, logabs, autograd::Attrs(), {});
  if (autograd::should_record({&a})) {
    auto node = autograd::new_node(OpKind::LinalgSlogdet, {&a});
    autograd::finish_node(node, {&a}, {&sign, &logabs});
  }
  return {sign, logabs};
}

std::pair<Tensor, Tensor> linalg_solve_ex(const Tensor& a, const Tensor& b, bool left) {
  const bool vector = solve_vector_case(a, b);
  const int64_t n = a.size(-1);
  Tensor x, info;
  {
    autograd::AutoGradMode off(false);
    Tensor bm = vector ? unsqueeze(b, -1) : b;  // a column, for X A = B too (torch's)
    const DimVector batch = broadcast_shapes(batch_of(a.sizes()), batch_of(bm.sizes()));
    const int64_t count = count_of(batch), nn = n * n;
    const int64_t rows = bm.size(-2), cols = bm.size(-1), rhs = left ? cols : rows;
    Tensor lu = work_copy(expand(a, with_matrix(batch, n, n)));
    bm = expand(bm, with_matrix(batch, rows, cols));
    // NOTE [Row-major matrices in LAPACK]: the factors of A's buffer are those of
    // A^T; A X = B is solved on B's rows in place (NOTE [LU solves on our GEMM]),
    // and X A = B (A^T X^T = B^T) is LAPACK's plain solve of B's own rows.
    Tensor work = work_copy(bm);
    info = zeros(batch, ScalarType::Int32);
    on_float_type(a.dtype(), [&](auto zero) {
      using T = decltype(zero);
      std::vector<int> piv(size_t(std::max<int64_t>(n, 1)));
      for (int64_t i = 0; i < count; ++i) {
        T* m = lu.data<T>() + i * nn;
        T* rows_of_b = work.data<T>() + i * n * rhs;
        if (left) {
          info.data<int32_t>()[i] =
              kernels::lu_factor_and_solve_rows(m, piv.data(), n, rows_of_b, rhs);
        } else {
          info.data<int32_t>()[i] = kernels::lu_factor_rows(m, n, piv.data());
          kernels::lu_solve(m, piv.data(), int(n), rows_of_b, int(rhs), false);
        }
      }
      report_pivots_of_a<T>(a, batch, int(n), info.data<int32_t>());
    });
    x = work;
    // NOTE [Column-major results]; a batch of vectors is one column-major matrix
    if (vector)
      x = column_major(work_copy(squeeze(x, -1)));
    else if (left)
      x = column_major(x);
  }
  record(OpKind::LinalgSolveEx, {&a, &b}, x, [&](autograd::LinalgAttrs& at) { at.left = left; });
  return {x, info};
}

Tensor linalg_solve(const Tensor& a, const Tensor& b, bool left) {
  return linalg_solve_ex(a, b, left).first;
}

Tensor linalg_solve_triangular(const Tensor& a, const Tensor& b, bool upper, bool left,
                               bool unitriangular) {
  Tensor x;
  {
    autograd::AutoGradMode off(false);
    const int64_t n = a.size(-1), rows = b.size(-2), cols = b.size(-1);
    const DimVector batch = broadcast_shapes(batch_of(a.sizes()), batch_of(b.sizes()));
    const int64_t count = count_of(batch);
    Tensor am = contiguous(expand(a, with_matrix(batch, n, n)));  // read, not written
    x = work_copy(expand(b, with_matrix(batch, rows, cols)));
    on_float_type(a.dtype(), [&](auto zero) {
      using T = decltype(zero);
      for (int64_t i = 0; i < count; ++i)
        kernels::triangular_solve(am.data<T>() + i * n * n, x.data<T>() + i * rows * cols,
                                  int(rows), int(cols), left, upper, false, unitriangular);
    });
  }
  x = column_major(x);  // NOTE [Column-major results]
  record(OpKind::LinalgSolveTriangular, {&a, &b}, x, [&](autograd::LinalgAttrs& at) {
    at.upper = upper;
    at.left = left;
    at.unitriangular = unitriangular;
  });
  return x;
}

std::pair<Tensor, Tensor> linalg_cholesky_ex(const Tensor& a, bool upper, bool legacy) {
  const int n = int(a.size(-1));
  const DimVector batch = batch_of(a.sizes());
  const int64_t count = count_of(batch), nn = int64_t(n) * n;
  Tensor l = work_copy(a);
  Tensor info = zeros(batch, ScalarType::Int32);
  on_float_type(a.dtype(), [&](auto zero) {
    using T = decltype(zero);
    for (int64_t b = 0; b < count; ++b) {
      T* m = l.data<T>() + b * nn;
      info.data<int32_t>()[b] = kernels::cholesky_rows(m, n, upper);  // NOTE [Cholesky on our GEMM]
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j)
          if (upper ? j < i : j > i) m[i * n + j] = T(0);
    }
  });
  l = column_major(l);  // NOTE [Column-major results]
  record(legacy ? OpKind::Cholesky : OpKind::LinalgCholeskyEx, {&a}, l,
         [&](autograd::LinalgAttrs& at) { at.upper = upper; });
  return {l, info};
}

Tensor cholesky_solve(const Tensor& b, const Tensor& l, bool upper) {
  Tensor x;
  {
    autograd::AutoGradMode off(false);
    const int64_t n = l.size(-1), cols = b.size(-1);
    const DimVector batch = broadcast_shapes(batch_of(l.sizes()), batch_of(b.sizes()));
    const int64_t count = count_of(batch);
    Tensor lm = contiguous(expand(l, with_matrix(batch, n, n)));  // read, not written
    x = work_copy(expand(b, with_matrix(batch, n, cols)));
    on_float_type(l.dtype(), [&](auto zero) {
      using T = decltype(zero);
      for (int64_t i = 0; i < count; ++i) {
        const T* f = lm.data<T>() + i * n * n;
        T* xi = x.data<T>() + i * n * cols;
        // L L^T X = B: L Y = B, then L^T X = Y (U^T U X = B: U^T Y = B, then U X = Y).
        kernels::triangular_solve(f, xi, int(n), int(cols), true, upper, upper, false);
        kernels::triangular_solve(f, xi, int(n), int(cols), true, upper, !upper, false);
      }
    });
  }
  x = column_major(x);  // NOTE [Column-major results]
  record(OpKind::CholeskySolve, {&b, &l}, x, [&](autograd::LinalgAttrs& at) { at.upper = upper; });
  return x;
}

}  // namespace gradtrack::ops
