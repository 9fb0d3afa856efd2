// The tensor ops of round 2's long tail (issue 19): scans, sorts, statistics
// and shape ops. Each validates as PyTorch does, computes, and records its row
// of the derivative table.
#pragma once

#include <optional>
#include <utility>

#include "core/scalar.h"
#include "core/tensor.h"

namespace gradtrack::ops {

// ---- scans and sorts (extra_scan_sort.cpp) ----
Tensor cumsum(const Tensor& a, int64_t dim, std::optional<ScalarType> dtype);
Tensor cumprod(const Tensor& a, int64_t dim, std::optional<ScalarType> dtype);
/// (values, indices); every sort is stable. stable_given: called with
/// `stable=` (PyTorch's sort.stable overload, SortBackward1).
std::pair<Tensor, Tensor> sort(const Tensor& a, int64_t dim, bool descending,
                               bool stable_given = false);
std::pair<Tensor, Tensor> topk(const Tensor& a, int64_t k, int64_t dim, bool largest, bool sorted);
/// Value-selecting reductions along a dim: (values, indices).
std::pair<Tensor, Tensor> kthvalue(const Tensor& a, int64_t k, int64_t dim, bool keepdim);
std::pair<Tensor, Tensor> median_dim(const Tensor& a, int64_t dim, bool keepdim);
std::pair<Tensor, Tensor> mode(const Tensor& a, int64_t dim, bool keepdim);
/// The lower median of all elements (NaN if any is NaN).
Tensor median_all(const Tensor& a);

// ---- statistics (extra_stats.cpp) ----
/// var/std over `dims` (all when !dims_given) with `correction` (the
/// divisor is N - correction). with_mean: also the mean (var_mean/std_mean),
/// recorded on one node with two outputs.
std::pair<Tensor, Tensor> var_std(const Tensor& a, const DimVector& dims, bool dims_given,
                                  double correction, bool keepdim, bool is_std, bool with_mean);
Tensor logsumexp(const Tensor& a, const DimVector& dims, bool keepdim);

// ---- shape ops (extra_shape.cpp) ----
Tensor tril(const Tensor& a, int64_t diagonal, bool upper);
/// tril_ / triu_ (defined in inplace.cpp, beside the other in-place entries).
Tensor inplace_tril(const Tensor& self, int64_t diagonal, bool upper);
Tensor flip(const Tensor& a, const DimVector& dims);
Tensor roll(const Tensor& a, const DimVector& shifts, const DimVector& dims);
Tensor repeat(const Tensor& a, const DimVector& repeats);

// ---- diagonals (extra_diag.cpp) ----
/// A view (DiagonalBackward0); copy: a new tensor (diag()'s DiagonalBackward0_copy).
Tensor diagonal(const Tensor& a, int64_t offset, int64_t dim1, int64_t dim2, bool copy = false);
Tensor diag_embed(const Tensor& a, int64_t offset, int64_t dim1, int64_t dim2);
/// Zeros of `sizes` with g on the diagonal (diagonal's gradient; differentiable in g).
Tensor diagonal_backward(const Tensor& g, const DimVector& sizes, int64_t offset, int64_t dim1,
                         int64_t dim2);
Tensor trace(const Tensor& a);

// ---- math (extra_math.cpp) ----
Tensor nan_to_num(const Tensor& a, std::optional<double> nan, std::optional<double> posinf,
                  std::optional<double> neginf);
Tensor lerp(const Tensor& a, const Tensor& end, Scalar weight);
Tensor lerp(const Tensor& a, const Tensor& end, const Tensor& weight);
Tensor vector_norm(const Tensor& a, double ord, const DimVector& dims, bool keepdim);
Tensor baddbmm(const Tensor& self, const Tensor& b1, const Tensor& b2, Scalar beta, Scalar alpha);
Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, Scalar beta, Scalar alpha);
Tensor cross(const Tensor& a, const Tensor& b, int64_t dim);

}  // namespace gradtrack::ops
