// A small one-sided Jacobi SVD (Hestenes) for the matrix norms and
// linalg.svd / svdvals: accurate singular values for the small matrices
// autograd code meets, without LAPACK.
#pragma once

#include <cstdint>

namespace gradtrack::kernels {

/// The thin SVD of the row-major m x n matrix `a`: u (m x k), s (k,
/// descending), vt (k x n), k = min(m, n). Computed in double.
void jacobi_svd(const double* a, int64_t m, int64_t n, double* u, double* s, double* vt);

}  // namespace gradtrack::kernels
