// The forwards of torch.linalg's LU factorization and solve, least squares and matrix
// exponential, and of torch.frexp, computed without history: their nodes
// (LinalgLuFactorExBackward0, LinalgLstsqBackward0, LinalgMatrixExpBackward0,
// FrexpBackward0...) are autograd Functions of the Python face
// (_ops/linalg_lu.py, _ops/linalg_lstsq.py, _ops/linalg_decompose.py), which also
// checks the arguments.
#pragma once

#include <tuple>

#include "core/tensor.h"

namespace gradtrack::ops {

/// (LU, pivots, info) of each m x n matrix of `a` (getrf): L below the diagonal
/// (unit diagonal implied) and U on and above it, min(m, n) 1-based int32 pivots,
/// int32 info (i > 0: U[i, i] in 1-based indices is zero).
std::tuple<Tensor, Tensor, Tensor> linalg_lu_factor_plain(const Tensor& a);

/// X of A X = B (X A = B when not `left`; with A^T for A when `adjoint`) for each
/// matrix of the factorization (LU, pivots) of linalg_lu_factor_plain (square,
/// int32 pivots of LU's batch) and B, batches broadcast (NOTE [LU solves from
/// torch's factors]).
Tensor linalg_lu_solve_plain(const Tensor& lu, const Tensor& pivots, const Tensor& b, bool left,
                             bool adjoint);

/// Least squares of each matrix pair of the same batch shape (contiguous): `a`
/// (..., m, n), `b` (..., m, k). Returns LAPACK's B, (..., max(m, n), k) (X in
/// its first n rows, the residual terms below when m > n), the int64 rank
/// (gelsy, gelsd, gelss), the singular values (..., min(m, n)) (gelsd, gelss),
/// the int32 info and the solution X. driver: 0 gels, 1 gelsy, 2 gelsd, 3 gelss.
/// X is, as torch's, not a view but a tensor over LAPACK's column-major B (its
/// first n rows; without its last dim, a column, when `vector`).
std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor> linalg_lstsq_plain(const Tensor& a,
                                                                      const Tensor& b, int driver,
                                                                      double rcond, bool vector);

/// exp(A) of each square matrix (scaling and squaring of a Taylor polynomial).
Tensor linalg_matrix_exp_plain(const Tensor& a);

/// (mantissa, exponent) of each element: x = mantissa * 2^exponent with
/// |mantissa| in [0.5, 1) (C's frexp), the exponent int32.
std::pair<Tensor, Tensor> frexp_plain(const Tensor& x);

}  // namespace gradtrack::ops
