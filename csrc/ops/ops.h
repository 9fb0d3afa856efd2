// The differentiable op API. Every function validates and promotes its
// inputs, runs a kernel, and records a graph node when autograd needs one.
#pragma once

#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "core/generator.h"
#include "core/scalar.h"
#include "core/tensor.h"
#include "op_list.h"

namespace gradtrack::ops {

// ---- pointwise (pointwise.cpp) ----
Tensor add(const Tensor& a, const Tensor& b, Scalar alpha = 1);
Tensor add(const Tensor& a, Scalar b, Scalar alpha = 1);
Tensor sub(const Tensor& a, const Tensor& b, Scalar alpha = 1);
Tensor sub(const Tensor& a, Scalar b, Scalar alpha = 1);
/// b - alpha * a (Python's `2 - x`).
Tensor rsub(const Tensor& a, Scalar b, Scalar alpha = 1);
Tensor rsub(const Tensor& a, const Tensor& b, Scalar alpha = 1);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, Scalar b);
/// rounding_mode: "" (true division), "trunc" or "floor".
Tensor div(const Tensor& a, const Tensor& b, const std::string& rounding_mode = "");
Tensor div(const Tensor& a, Scalar b, const std::string& rounding_mode = "");
/// div with an explicit rounding_mode argument (None included): PyTorch's
/// div.Tensor_mode / div.Scalar_mode overloads (DivBackward2).
Tensor div_mode(const Tensor& a, const Tensor& b, const std::string& rounding_mode);
Tensor div_mode(const Tensor& a, Scalar b, const std::string& rounding_mode);
/// PyTorch's mul.Scalar / sub.Scalar / div.Scalar overloads (MulBackward1,
/// SubBackward1, DivBackward1), which its C++ derivative formulas call: the
/// backward formulas use these so create_graph=True graphs carry torch's node
/// names. Python's `x * 2` wraps the number into a tensor instead (mul above).
Tensor mul_by_scalar(const Tensor& a, Scalar b);
Tensor add_by_scalar(const Tensor& a, Scalar b);
Tensor sub_by_scalar(const Tensor& a, Scalar b);
Tensor div_by_scalar(const Tensor& a, Scalar b);
/// Python's `2 / x` (PyTorch computes reciprocal(x) * 2).
Tensor rdiv(const Tensor& a, Scalar b);
Tensor floor_divide(const Tensor& a, const Tensor& b);
Tensor floor_divide(const Tensor& a, Scalar b);
Tensor rfloor_divide(const Tensor& a, Scalar b);
Tensor remainder(const Tensor& a, const Tensor& b);
Tensor remainder(const Tensor& a, Scalar b);
Tensor rremainder(const Tensor& a, Scalar b);
Tensor pow(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& a, Scalar exponent);
Tensor pow(Scalar base, const Tensor& exponent);
/// C's fmod: the remainder takes the dividend's sign (FmodBackward1 / FmodBackward0).
Tensor fmod(const Tensor& a, const Tensor& b);
Tensor fmod(const Tensor& a, Scalar b);
/// clamp with one bound: ClampMinBackward0/1, ClampMaxBackward0/1.
Tensor clamp_min(const Tensor& a, Scalar lo);
Tensor clamp_min(const Tensor& a, const Tensor& lo);
Tensor clamp_max(const Tensor& a, Scalar hi);
Tensor clamp_max(const Tensor& a, const Tensor& hi);

enum class Cmp { Eq, Ne, Lt, Le, Gt, Ge };
Tensor compare(Cmp op, const Tensor& a, const Tensor& b);
Tensor compare(Cmp op, const Tensor& a, Scalar b);
enum class Logic { And, Or, Xor };
Tensor logical(Logic op, const Tensor& a, const Tensor& b);
Tensor logical_not(const Tensor& a);
/// `&`, `|`, `^`, `~` (bool and integer tensors).
Tensor bitwise(Logic op, const Tensor& a, const Tensor& b);
Tensor bitwise(Logic op, const Tensor& a, Scalar b);
Tensor bitwise_not(const Tensor& a);

/// An op list row's dtype rule (NOTE [One declaration per op]): integers
/// compute in the default float type (exp); the promoted dtype (abs, add);
/// the promoted dtype, which must be floating; or the op's own code.
enum class DtypeRule { Float, Same, Floating, Custom };

// The op list's unary ops: neg, abs, exp, ..., isnan, logical_not (NOTE [One
// declaration per op]).
#define GT_DECLARE_UNARY(K, name, kind, rule) Tensor name(const Tensor& a);
GT_UNARY_OPS(GT_DECLARE_UNARY)
#undef GT_DECLARE_UNARY
// The op list's binary ops whose functions are generated from their row: the
// tensor form, and the number forms the row gives (torch's Scalar and
// Scalar_Self overloads, op(t, 2.0) and op(2.0, t)).
#define GT_DECLARE_FORM_Tensors(name) Tensor name(const Tensor& a, const Tensor& b);
#define GT_DECLARE_FORM_NumberOther(name) \
  GT_DECLARE_FORM_Tensors(name) Tensor name(const Tensor& a, Scalar b);
#define GT_DECLARE_FORM_NumberBoth(name) \
  GT_DECLARE_FORM_NumberOther(name) Tensor name(Scalar a, const Tensor& b);
#define GT_DECLARE_BINARY(K, name, tkind, skind, self_kind, rule, form) GT_DECLARE_FORM_##form(name)
GT_BINARY_OPS(GT_DECLARE_BINARY)
#undef GT_DECLARE_BINARY
#undef GT_DECLARE_FORM_NumberBoth
#undef GT_DECLARE_FORM_NumberOther
#undef GT_DECLARE_FORM_Tensors
Tensor clamp(const Tensor& a, std::optional<Scalar> lo, std::optional<Scalar> hi);
Tensor clamp(const Tensor& a, const Tensor* lo, const Tensor* hi);
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
/// Fused relu backward: 0 where y <= 0, else g (NaN passes; differentiable in g).
Tensor threshold_backward(const Tensor& g, const Tensor& y);
/// Fused g * y * (1 - y) and g * (1 - y * y), differentiable in g and y.
Tensor sigmoid_backward(const Tensor& g, const Tensor& y);
Tensor tanh_backward(const Tensor& g, const Tensor& y);

/// The hand-written rows of the op list's heaviside and integer bit ops
/// (ops/pointwise_special.cpp): a number on either side where torch takes one.
Tensor heaviside(const Tensor& a, const Tensor& values);
Tensor gcd(const Tensor& a, const Tensor& b);
Tensor lcm(const Tensor& a, const Tensor& b);
Tensor bitwise_left_shift(const Tensor& a, const Tensor& b);
Tensor bitwise_left_shift(const Tensor& a, Scalar b);
Tensor bitwise_left_shift(Scalar a, const Tensor& b);
Tensor bitwise_right_shift(const Tensor& a, const Tensor& b);
Tensor bitwise_right_shift(const Tensor& a, Scalar b);
Tensor bitwise_right_shift(Scalar a, const Tensor& b);
/// logit(x, eps) (eps: the input clamped to [eps, 1 - eps]), mvlgamma(x, p), special.ndtr.
Tensor logit(const Tensor& a, std::optional<double> eps);
Tensor mvlgamma(const Tensor& a, int64_t p);
Tensor special_ndtr(const Tensor& a);
Tensor inplace_logit(const Tensor& self, std::optional<double> eps);
Tensor inplace_mvlgamma(const Tensor& self, int64_t p);

/// The n-th derivative of digamma (n >= 0), in the default float type for integers.
Tensor polygamma(int64_t n, const Tensor& a);

Tensor nan_to_num(const Tensor& a, std::optional<double> nan, std::optional<double> posinf,
                  std::optional<double> neginf);
Tensor lerp(const Tensor& a, const Tensor& end, Scalar weight);
Tensor lerp(const Tensor& a, const Tensor& end, const Tensor& weight);

// ---- reductions (reduction.cpp) ----
/// dims empty: all dims. dtype: PyTorch's `dtype=` argument.
Tensor sum(const Tensor& a, const DimVector& dims, bool keepdim,
           std::optional<ScalarType> dtype = std::nullopt, bool dims_given = false);
Tensor mean(const Tensor& a, const DimVector& dims, bool keepdim,
            std::optional<ScalarType> dtype = std::nullopt, bool dims_given = false);
Tensor max(const Tensor& a);
Tensor min(const Tensor& a);
std::pair<Tensor, Tensor> max(const Tensor& a, int64_t dim, bool keepdim);
std::pair<Tensor, Tensor> min(const Tensor& a, int64_t dim, bool keepdim);
Tensor argmax(const Tensor& a, std::optional<int64_t> dim, bool keepdim);
Tensor argmin(const Tensor& a, std::optional<int64_t> dim, bool keepdim);
Tensor amax(const Tensor& a, const DimVector& dims, bool keepdim);
Tensor amin(const Tensor& a, const DimVector& dims, bool keepdim);
/// The indices of the nonzero elements, one row per element (torch.nonzero).
Tensor nonzero(const Tensor& a);
/// The elements of `a` (broadcast with `mask`) where the bool `mask` is true, as 1-D.
Tensor masked_select(const Tensor& a, const Tensor& mask);
Tensor any(const Tensor& a, std::optional<int64_t> dim, bool keepdim);
Tensor all(const Tensor& a, std::optional<int64_t> dim, bool keepdim);
Tensor prod_all(const Tensor& a);
Tensor prod(const Tensor& a, int64_t dim, bool keepdim, std::optional<ScalarType> dtype);
/// For each element, the product of the other elements of its slice along
/// `dim` (prod's gradient; exact with zeros). Not differentiable.
Tensor prod_others(const Tensor& a, int64_t dim);
/// Sums `g` down to `shape` (undoes broadcasting); the one place that does.
Tensor sum_to(const Tensor& g, const DimVector& shape);
/// var/std over `dims` (all when !dims_given) with `correction` (the
/// divisor is N - correction). with_mean: also the mean (var_mean/std_mean),
/// recorded on one node with two outputs.
std::pair<Tensor, Tensor> var_std(const Tensor& a, const DimVector& dims, bool dims_given,
                                  double correction, bool keepdim, bool is_std, bool with_mean);
Tensor logsumexp(const Tensor& a, const DimVector& dims, bool keepdim);
Tensor vector_norm(const Tensor& a, double ord, const DimVector& dims, bool keepdim);
/// nansum: the sum with NaN counted as zero (dims empty: all).
Tensor nansum(const Tensor& a, const DimVector& dims, bool keepdim,
              std::optional<ScalarType> dtype);
/// aminmax: (amin, amax) over `dim` (none: every dim).
std::pair<Tensor, Tensor> aminmax(const Tensor& a, std::optional<int64_t> dim, bool keepdim);
/// dist: the p-norm of a - b (broadcast).
Tensor dist(const Tensor& a, const Tensor& b, double p);
/// renorm: each slice along dim scaled down to p-norm maxnorm where it exceeds it.
Tensor renorm(const Tensor& a, double p, int64_t dim, double maxnorm);
Tensor inplace_renorm(const Tensor& self, double p, int64_t dim, double maxnorm);

// ---- views (views.cpp): results that share their input's storage ----
Tensor view(const Tensor& a, const DimVector& shape);
Tensor reshape(const Tensor& a, const DimVector& shape);
Tensor as_strided(const Tensor& a, const DimVector& sizes, const DimVector& strides,
                  std::optional<int64_t> offset);
Tensor t(const Tensor& a);
Tensor transpose(const Tensor& a, int64_t d0, int64_t d1);
Tensor permute(const Tensor& a, const DimVector& dims);
Tensor unsqueeze(const Tensor& a, int64_t dim);
Tensor squeeze(const Tensor& a);
Tensor squeeze(const Tensor& a, int64_t dim);
Tensor squeeze(const Tensor& a, const DimVector& dims);
/// A view of the whole tensor (x[...]).
Tensor alias(const Tensor& a);
Tensor expand(const Tensor& a, const DimVector& sizes);
Tensor flatten(const Tensor& a, int64_t start, int64_t end);
/// PyTorch's _unsafe_view: view's geometry, not a view to autograd (UnsafeViewBackward0).
Tensor unsafe_view(const Tensor& a, const DimVector& shape);
Tensor select(const Tensor& a, int64_t dim, int64_t index);
Tensor slice(const Tensor& a, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
             int64_t step);
Tensor narrow(const Tensor& a, int64_t dim, int64_t start, int64_t length);
std::vector<Tensor> split(const Tensor& a, int64_t split_size, int64_t dim);
std::vector<Tensor> split_with_sizes(const Tensor& a, const DimVector& sizes, int64_t dim);
std::vector<Tensor> chunk(const Tensor& a, int64_t chunks, int64_t dim);
std::vector<Tensor> unbind(const Tensor& a, int64_t dim);
/// A view (DiagonalBackward0); copy: a new tensor (diag()'s DiagonalBackward0_copy).
Tensor diagonal(const Tensor& a, int64_t offset, int64_t dim1, int64_t dim2, bool copy = false);
/// Zeros of `sizes` with g on the diagonal (diagonal's gradient; differentiable in g).
Tensor diagonal_backward(const Tensor& g, const DimVector& sizes, int64_t offset, int64_t dim1,
                         int64_t dim2);
Tensor diag_embed(const Tensor& a, int64_t offset, int64_t dim1, int64_t dim2);
/// Backward helpers that are themselves differentiable (double backward).
Tensor select_backward(const Tensor& g, const DimVector& sizes, int64_t dim, int64_t index);
Tensor slice_backward(const Tensor& g, const DimVector& sizes, int64_t dim, int64_t start,
                      int64_t end, int64_t step);
/// Windows of `size` elements every `step` along `dimension`, as a new last dim (a view).
Tensor unfold(const Tensor& a, int64_t dimension, int64_t size, int64_t step);
/// unfold's gradient: each window's gradient added back where the window read
/// (differentiable in g).
Tensor unfold_backward(const Tensor& g, const DimVector& sizes, int64_t dimension, int64_t size,
                       int64_t step);
Tensor as_strided_backward(const Tensor& g, const DimVector& base_sizes,
                           const DimVector& base_strides, int64_t base_offset,
                           const DimVector& sizes, const DimVector& strides, int64_t offset);

// ---- shape (shape.cpp): copies that rearrange or join ----
Tensor contiguous(const Tensor& a);
Tensor clone(const Tensor& a);
/// Uninitialised, in `a`'s memory order (PyTorch's memory_format=preserve;
/// NOTE [Elementwise output layout]).
Tensor empty_like(const Tensor& a, ScalarType dtype);
/// dtype conversion; returns `a` itself when nothing changes and !copy.
Tensor to_dtype(const Tensor& a, ScalarType dtype, bool copy = false);
Tensor cat(const std::vector<Tensor>& ts, int64_t dim);
Tensor stack(const std::vector<Tensor>& ts, int64_t dim);
Tensor tril(const Tensor& a, int64_t diagonal, bool upper);
/// tril_ / triu_ (defined in inplace.cpp, beside the other in-place entries).
Tensor inplace_tril(const Tensor& self, int64_t diagonal, bool upper);
Tensor flip(const Tensor& a, const DimVector& dims);
Tensor roll(const Tensor& a, const DimVector& shifts, const DimVector& dims);
Tensor repeat(const Tensor& a, const DimVector& repeats);

// ---- scans and sorts (scan_sort.cpp) ----
Tensor cumsum(const Tensor& a, int64_t dim, std::optional<ScalarType> dtype);
Tensor cumprod(const Tensor& a, int64_t dim, std::optional<ScalarType> dtype);
/// cummax (is_max) or cummin: (values, indices).
std::pair<Tensor, Tensor> cummax_cummin(const Tensor& a, int64_t dim, bool is_max);
Tensor logcumsumexp(const Tensor& a, int64_t dim);
/// (values, indices): equal values in position order when `stable`, else in
/// torch's std::sort order (NOTE [Ties in torch's order] in kernels/scan_sort.cpp).
/// stable_given: called with `stable=` (PyTorch's sort.stable overload, SortBackward1).
std::pair<Tensor, Tensor> sort(const Tensor& a, int64_t dim, bool descending, bool stable_given,
                               bool stable = false);
std::pair<Tensor, Tensor> topk(const Tensor& a, int64_t k, int64_t dim, bool largest, bool sorted);
/// Value-selecting reductions along a dim: (values, indices).
std::pair<Tensor, Tensor> kthvalue(const Tensor& a, int64_t k, int64_t dim, bool keepdim);
std::pair<Tensor, Tensor> median_dim(const Tensor& a, int64_t dim, bool keepdim);
std::pair<Tensor, Tensor> mode(const Tensor& a, int64_t dim, bool keepdim);
/// The lower median of all elements (NaN if any is NaN).
Tensor median_all(const Tensor& a);
/// nanmedian: the lower median of the numbers, NaN ignored.
Tensor nanmedian_all(const Tensor& a);
std::pair<Tensor, Tensor> nanmedian_dim(const Tensor& a, int64_t dim, bool keepdim);
/// searchsorted's search (arguments already checked and of one dtype):
/// int64 (or int32) positions shaped like `values`; sorter may be undefined.
Tensor searchsorted(const Tensor& boundaries, const Tensor& values, bool out_int32, bool right,
                    const Tensor& sorter);

// ---- indexing (indexing.cpp) ----
/// An index of advanced indexing: a tensor (int64 or bool) or "no index" (:)
using IndexList = std::vector<std::optional<Tensor>>;
Tensor index(const Tensor& a, const IndexList& indices);
/// a[indices] = values (out of place result; the in-place entry uses it).
Tensor index_put(const Tensor& a, const IndexList& indices, const Tensor& values, bool accumulate);
/// value_is_tensor: the value came as a Tensor (MaskedFillBackward1) rather
/// than a number (MaskedFillBackward0).
Tensor masked_fill(const Tensor& a, const Tensor& mask, const Tensor& value,
                   bool value_is_tensor = false);
Tensor gather(const Tensor& a, int64_t dim, const Tensor& index);
Tensor scatter_add(const Tensor& a, int64_t dim, const Tensor& index, const Tensor& src);
Tensor index_select(const Tensor& a, int64_t dim, const Tensor& index);
// indexed writes (indexed_writes.cpp): PyTorch's checks, its nodes
Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                 Scalar alpha);
Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, Scalar value);
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value);
Tensor take(const Tensor& self, const Tensor& index);
Tensor put(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate);
Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source);
Tensor select_scatter(const Tensor& self, const Tensor& src, int64_t dim, int64_t index);
Tensor slice_scatter(const Tensor& self, const Tensor& src, int64_t dim,
                     std::optional<int64_t> start, std::optional<int64_t> end, int64_t step);
Tensor diagonal_scatter(const Tensor& self, const Tensor& src, int64_t offset, int64_t dim1,
                        int64_t dim2);
/// Their in-place forms (NOTE [In-place forms of composed ops] in inplace.cpp);
/// Tensor.index_add_ is inplace_index_add_alpha (inplace_index_add serves the formulas).
Tensor inplace_index_add_alpha(const Tensor& self, int64_t dim, const Tensor& index,
                               const Tensor& source, Scalar alpha);
Tensor inplace_index_copy(const Tensor& self, int64_t dim, const Tensor& index,
                          const Tensor& source);
Tensor inplace_index_fill(const Tensor& self, int64_t dim, const Tensor& index, Scalar value);
Tensor inplace_index_fill(const Tensor& self, int64_t dim, const Tensor& index,
                          const Tensor& value);
Tensor inplace_put(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate);
Tensor inplace_masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source);
/// scatter_reduce / index_reduce: reduce is sum (scatter_reduce only), prod, mean, amax, amin.
Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                      const std::string& reduce, bool include_self);
Tensor index_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                    const std::string& reduce, bool include_self);
Tensor inplace_scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index,
                              const Tensor& src, const std::string& reduce, bool include_self);
Tensor inplace_index_reduce(const Tensor& self, int64_t dim, const Tensor& index,
                            const Tensor& source, const std::string& reduce, bool include_self);
/// Turns bool indices into long ones and checks shapes (shared with setitem).
IndexList expand_bool_indices(const Tensor& a, const IndexList& indices);

// ---- linear algebra (linalg.cpp) ----
Tensor matmul(const Tensor& a, const Tensor& b);
Tensor mm(const Tensor& a, const Tensor& b);
Tensor bmm(const Tensor& a, const Tensor& b);
Tensor mv(const Tensor& a, const Tensor& v);
Tensor dot(const Tensor& a, const Tensor& b);
Tensor addmm(const Tensor& bias, const Tensor& a, const Tensor& b, Scalar beta = 1,
             Scalar alpha = 1);
Tensor linear(const Tensor& x, const Tensor& w, const Tensor* bias);
Tensor outer(const Tensor& a, const Tensor& b);

// ---- fused updates (fused.cpp) ----
Tensor addcmul(const Tensor& self, const Tensor& t1, const Tensor& t2, Scalar value);
Tensor addcdiv(const Tensor& self, const Tensor& t1, const Tensor& t2, Scalar value);
Tensor addr(const Tensor& self, const Tensor& vec1, const Tensor& vec2, Scalar beta, Scalar alpha);
Tensor addbmm(const Tensor& self, const Tensor& b1, const Tensor& b2, Scalar beta, Scalar alpha);
/// The in-place forms: the out-of-place op's value written into self, its node recorded.
Tensor inplace_addcmul(const Tensor& self, const Tensor& t1, const Tensor& t2, Scalar value);
Tensor inplace_addcdiv(const Tensor& self, const Tensor& t1, const Tensor& t2, Scalar value);
Tensor inplace_addmm(const Tensor& self, const Tensor& a, const Tensor& b, Scalar beta,
                     Scalar alpha);
Tensor inplace_baddbmm(const Tensor& self, const Tensor& b1, const Tensor& b2, Scalar beta,
                       Scalar alpha);
Tensor inplace_addbmm(const Tensor& self, const Tensor& b1, const Tensor& b2, Scalar beta,
                      Scalar alpha);
Tensor inplace_addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, Scalar beta,
                     Scalar alpha);
Tensor inplace_addr(const Tensor& self, const Tensor& vec1, const Tensor& vec2, Scalar beta,
                    Scalar alpha);
Tensor inplace_lerp(const Tensor& self, const Tensor& end, Scalar weight);
Tensor inplace_lerp(const Tensor& self, const Tensor& end, const Tensor& weight);
Tensor inplace_nan_to_num(const Tensor& self, std::optional<double> nan,
                          std::optional<double> posinf, std::optional<double> neginf);
/// cumsum_ (is_prod false) and cumprod_.
Tensor inplace_scan(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, bool is_prod);
Tensor baddbmm(const Tensor& self, const Tensor& b1, const Tensor& b2, Scalar beta, Scalar alpha);
Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, Scalar beta, Scalar alpha);
Tensor cross(const Tensor& a, const Tensor& b, int64_t dim);
Tensor trace(const Tensor& a);
/// The factorizations (ops/linalg_factor.cpp): operands already checked, float32
/// or float64; each returns LAPACK's info (int32, one per matrix) beside its result.
std::pair<Tensor, Tensor> linalg_inv_ex(const Tensor& a);
Tensor linalg_det(const Tensor& a);
/// (sign, logabsdet).
std::pair<Tensor, Tensor> linalg_slogdet(const Tensor& a);
std::pair<Tensor, Tensor> linalg_solve_ex(const Tensor& a, const Tensor& b, bool left);
Tensor linalg_solve(const Tensor& a, const Tensor& b, bool left);
Tensor linalg_solve_triangular(const Tensor& a, const Tensor& b, bool upper, bool left,
                               bool unitriangular);
/// legacy: torch.cholesky's node (CholeskyBackward0) instead of linalg's.
std::pair<Tensor, Tensor> linalg_cholesky_ex(const Tensor& a, bool upper, bool legacy = false);
Tensor cholesky_solve(const Tensor& b, const Tensor& l, bool upper);
/// The decompositions (ops/linalg_decompose.cpp), operands checked, float32 or
/// float64. (U, S, Vh) of gesdd, S descending (U and Vh empty without
/// compute_uv), recorded as LinalgSvdBackward0, and LAPACK's info.
std::tuple<Tensor, Tensor, Tensor, Tensor> linalg_svd(const Tensor& a, bool full_matrices,
                                                      bool compute_uv);
/// (Q, R); mode 0 'reduced', 1 'complete', 2 'r' (Q empty), as LinalgQrBackward0.
std::pair<Tensor, Tensor> linalg_qr(const Tensor& a, int mode);
/// (eigenvalues ascending, eigenvectors (empty without compute_v)) of the triangle
/// `upper` names, as LinalgEighBackward0, and LAPACK's info.
std::tuple<Tensor, Tensor, Tensor> linalg_eigh(const Tensor& a, bool upper, bool compute_v);
/// cdist: pairwise p-norm distances between the rows of two batches of
/// matrices. mode: 0 use_mm_for_euclid_dist_if_necessary, 1
/// use_mm_for_euclid_dist, 2 donot_use_mm_for_euclid_dist (PyTorch's numbering).
Tensor cdist(const Tensor& x1, const Tensor& x2, double p, int64_t mode);
/// PyTorch's matrix-multiply path for p = 2 (_euclidean_dist):
/// sqrt(max(|x1|^2 + |x2|^2 - 2 x1 x2^T, 0)) over [B, R, M] batches.
Tensor euclidean_dist(const Tensor& x1, const Tensor& x2);
/// The two gradients of cdist for output gradient g (differentiable ops).
std::pair<Tensor, Tensor> cdist_grads(const Tensor& g, const Tensor& x1, const Tensor& x2,
                                      const Tensor& dist, double p);

// ---- nn: softmax (nn/activation.cpp) and the losses with nodes of their own (nn/loss.cpp) ----
Tensor log_softmax(const Tensor& a, int64_t dim);
Tensor softmax(const Tensor& a, int64_t dim);
/// reduction: 0 none, 1 mean, 2 sum (PyTorch's enum).
Tensor nll_loss(const Tensor& logp, const Tensor& target, const Tensor* weight, int64_t reduction,
                int64_t ignore_index);
Tensor mse_loss(const Tensor& a, const Tensor& target, int64_t reduction);
/// Backward of log_softmax / softmax (fused when no graph is being built).
Tensor log_softmax_backward(const Tensor& g, const Tensor& result, int64_t dim);
Tensor softmax_backward(const Tensor& g, const Tensor& result, int64_t dim);

// ---- creation (creation.cpp) ----
Tensor zeros(const DimVector& sizes, ScalarType dtype);
Tensor ones(const DimVector& sizes, ScalarType dtype);
Tensor full(const DimVector& sizes, Scalar value, ScalarType dtype);
Tensor zeros_like(const Tensor& a);
Tensor scalar_tensor(Scalar value, ScalarType dtype);
Tensor arange(Scalar start, Scalar end, Scalar step, std::optional<ScalarType> dtype);
Tensor linspace(double start, double end, int64_t steps, ScalarType dtype);
Tensor eye(int64_t n, int64_t m, ScalarType dtype);
Tensor rand(const DimVector& sizes, ScalarType dtype, Generator* gen = nullptr);
Tensor randn(const DimVector& sizes, ScalarType dtype, Generator* gen = nullptr);
Tensor randint(int64_t low, int64_t high, const DimVector& sizes, ScalarType dtype,
               Generator* gen = nullptr);
Tensor randperm(int64_t n, ScalarType dtype, Generator* gen = nullptr);

// ---- in-place (inplace.cpp): THE entry that writes, bumps and rebases ----
/// The op list's in-place variants, unary then binary (NOTE [One declaration per op]).
#define GT_INPLACE_ENUM(K, ...) K,
enum class InplaceOp { GT_INPLACE_UNARY(GT_INPLACE_ENUM) GT_INPLACE_BINARY(GT_INPLACE_ENUM) };
#undef GT_INPLACE_ENUM
/// The method name of an in-place variant, without the trailing underscore.
const char* inplace_name(InplaceOp op);
/// False for the binary ops whose operand must be a tensor (their rows take no number).
bool inplace_takes_number(InplaceOp op);
/// How div_ was called: no rounding_mode (DivBackward0), or one given, None
/// included (PyTorch's div_.Tensor_mode overload, DivBackward2).
struct DivMode {
  bool given = false;
  std::string rounding;  // "", "trunc" or "floor"
};
/// self op= other (alpha for add/sub). Returns self.
Tensor inplace_binary(InplaceOp op, const Tensor& self, const Tensor& other, Scalar alpha = 1,
                      const DivMode& mode = {});
Tensor inplace_binary(InplaceOp op, const Tensor& self, Scalar other, Scalar alpha = 1,
                      const DivMode& mode = {});
Tensor inplace_unary(InplaceOp op, const Tensor& self);
Tensor inplace_clamp(const Tensor& self, std::optional<Scalar> lo, std::optional<Scalar> hi);
Tensor inplace_clamp(const Tensor& self, const Tensor* lo, const Tensor* hi);
/// clamp_min_ / clamp_max_ (is_min false): one bound, a number or a tensor.
Tensor inplace_clamp_bound(bool is_min, const Tensor& self, Scalar bound);
Tensor inplace_clamp_bound(bool is_min, const Tensor& self, const Tensor& bound);
Tensor inplace_fill(const Tensor& self, Scalar value);
Tensor inplace_fill(const Tensor& self, const Tensor& value);
Tensor inplace_zero(const Tensor& self);
Tensor inplace_copy(const Tensor& self, const Tensor& src);
/// `gen` null means the default generator (as for every random op below).
Tensor inplace_normal(const Tensor& self, double mean, double std, Generator* gen = nullptr);
Tensor inplace_uniform(const Tensor& self, double lo, double hi, Generator* gen = nullptr);
Tensor inplace_index_put(const Tensor& self, const IndexList& indices, const Tensor& values,
                         bool accumulate);
/// PyTorch's _index_put_impl_: index_put_ recorded as IndexPutImplBackward0,
/// the node indexing's gradient is made by.
Tensor inplace_index_put_impl(const Tensor& self, const IndexList& indices, const Tensor& values,
                              bool accumulate);
/// scatter_add_: src added into self at index along dim (ScatterAddBackward0).
Tensor inplace_scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
/// scatter / scatter_ with a tensor src (ScatterBackward0) or a number
/// (ScatterBackward1).
Tensor inplace_scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor inplace_scatter(const Tensor& self, int64_t dim, const Tensor& index, Scalar value);
Tensor scatter(const Tensor& a, int64_t dim, const Tensor& index, const Tensor& src);
Tensor scatter(const Tensor& a, int64_t dim, const Tensor& index, Scalar value);
/// eq_, ne_, lt_, le_, gt_, ge_: the comparison written into self as 1 or 0.
Tensor inplace_compare(Cmp cmp, const Tensor& self, const Tensor& other);
Tensor inplace_compare(Cmp cmp, const Tensor& self, Scalar other);
/// self.index_add_(dim, index, source) for a 1-D index and dim >= 0
/// (IndexAddBackward0): an accumulating index_put_ under PyTorch's name.
Tensor inplace_index_add(const Tensor& self, int64_t dim, const Tensor& index,
                         const Tensor& source);
Tensor inplace_masked_fill(const Tensor& self, const Tensor& mask, Scalar value);
/// masked_fill_ with a 0-dim tensor value that may require grad.
Tensor inplace_masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value);
/// Metadata-only in-place ops (bump the version too).
Tensor inplace_t(const Tensor& self);
/// transpose_(d0, d1): recurrent layers, TransposeBackward1.
Tensor inplace_transpose(const Tensor& self, int64_t d0, int64_t d1);
Tensor inplace_unsqueeze(const Tensor& self, int64_t dim);
Tensor inplace_squeeze(const Tensor& self, std::optional<int64_t> dim);

// ---- optimizers (optim.cpp) ----
/// SGD's update, fused: p -= lr * (grad [+ wd * p]) with momentum buffer.
void sgd_update(const Tensor& p, const Tensor& grad, const Tensor* buf, double lr, double momentum,
                double dampening, double weight_decay, bool nesterov, bool maximize,
                bool first_step);

// ---- helpers shared by the op files ----
/// The dtype PyTorch computes `a op b` in.
ScalarType result_type(const Tensor& a, const Tensor& b);
ScalarType result_type(const Tensor& a, Scalar b);
/// `t` converted to `dtype` (no copy if already there; no autograd record).
Tensor cast_for_kernel(const Tensor& t, ScalarType dtype);

// Random fills beyond normal_/uniform_ (ops/random.cpp); `gen` null = default.
Tensor inplace_bernoulli(const Tensor& self, double p, Generator* gen = nullptr);
Tensor inplace_bernoulli(const Tensor& self, const Tensor& p, Generator* gen = nullptr);
/// torch.bernoulli(input): input holds the probabilities.
Tensor bernoulli(const Tensor& input, Generator* gen = nullptr);
Tensor inplace_exponential(const Tensor& self, double lambd, Generator* gen = nullptr);
/// rrelu's training noise, as torch's CPU kernel draws it: in element order, a
/// uniform double in [lower, upper) for each element <= 0 (not NaN), 1
/// elsewhere (no draw). The input's dtype; float32/float64 only.
Tensor rrelu_noise(const Tensor& input, double lower, double upper, Generator* gen = nullptr);
Tensor inplace_geometric(const Tensor& self, double p, Generator* gen = nullptr);
Tensor inplace_cauchy(const Tensor& self, double median, double sigma, Generator* gen = nullptr);
Tensor inplace_log_normal(const Tensor& self, double mean, double std, Generator* gen = nullptr);
/// random_(from, to) with to = None as nullopt; random_() is from = 0, to = None.
Tensor inplace_random(const Tensor& self, int64_t from, std::optional<int64_t> to, int variant,
                      Generator* gen = nullptr);
Tensor multinomial(const Tensor& input, int64_t num_samples, bool replacement,
                   Generator* gen = nullptr);

/// PyTorch's refusals of a write into `self` (NOTE [Memory overlap] in
/// core/tensor.h): two of self's elements share memory; `other`, an input,
/// shares some of self's memory but is not exactly self.
void check_no_internal_overlap(const Tensor& self);
void check_no_partial_overlap(const Tensor& self, const Tensor& other);

/// While alive, the first elementwise result of `out`'s shape and dtype is
/// `out` itself (NOTE [out= written in place] in ops/common.h).
class OutSlot {
 public:
  explicit OutSlot(const Tensor& out);
  ~OutSlot();
  OutSlot(const OutSlot&) = delete;
  OutSlot& operator=(const OutSlot&) = delete;
  /// Disarms; returns whether a result took `out`.
  bool release();

 private:
  const Tensor* prev_;
  const Tensor* out_;
  bool taken_ = false;
  bool released_ = false;
};

}  // namespace gradtrack::ops
