// Scans (cumsum, cumprod, cummax, cummin, logcumsumexp), sorts (sort, topk), order
// statistics (kthvalue, median, nanmedian, mode) and searchsorted: validate, run the line kernels
// of kernels/scan_sort.cpp, record.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <utility>

#include "autograd/variable.h"
#include "kernels/scan_sort.h"
#include "kernels/search.h"
#include "ops/common.h"

namespace gradtrack::ops {

namespace {

// The input as the kernels read it: contiguous, aligned, in `dt`.
Tensor kernel_input(const Tensor& a, ScalarType dt) {
  return kernels::aligned(contiguous(cast_for_kernel(a, dt)));
}

Tensor scan(const Tensor& a, int64_t dim, std::optional<ScalarType> dtype, bool is_prod) {
  const int64_t d = wrap_dim(dim, a.dim());
  // Integers (bool included) accumulate in int64 unless a dtype is given.
  const ScalarType dt = dtype ? *dtype : (is_floating(a.dtype()) ? a.dtype() : ScalarType::Int64);
  Tensor out = empty(a.sizes(), dt);
  kernels::cumulative(is_prod, out, kernel_input(a, dt), a.dim() == 0 ? 0 : d);
  record(is_prod ? OpKind::Cumprod : OpKind::Cumsum, {&a}, out,
         [&](autograd::DimAttrs& at) { at.dim = d; });
  return out;
}

}  // namespace

Tensor cumsum(const Tensor& a, int64_t dim, std::optional<ScalarType> dtype) {
  return scan(a, dim, dtype, false);
}

Tensor cumprod(const Tensor& a, int64_t dim, std::optional<ScalarType> dtype) {
  return scan(a, dim, dtype, true);
}

std::pair<Tensor, Tensor> cummax_cummin(const Tensor& a, int64_t dim, bool is_max) {
  const int64_t d = wrap_dim(dim, a.dim());
  Tensor values = empty(a.sizes(), a.dtype());
  Tensor indices = empty(a.sizes(), ScalarType::Int64);
  kernels::cumulative_extreme(values, indices, kernel_input(a, a.dtype()), a.dim() == 0 ? 0 : d,
                              is_max);
  record(is_max ? OpKind::Cummax : OpKind::Cummin, {&a}, values,
         [&](autograd::DimAttrs& at) { at.dim = d; }, {&indices});
  return {values, indices};
}

Tensor logcumsumexp(const Tensor& a, int64_t dim) {
  const int64_t d = wrap_dim(dim, a.dim());
  Tensor out = empty(a.sizes(), a.dtype());
  kernels::log_cumulative_sum_exp(out, kernel_input(a, a.dtype()), a.dim() == 0 ? 0 : d);
  record(OpKind::Logcumsumexp, {&a}, out, [&](autograd::DimAttrs& at) { at.dim = d; });
  return out;
}

namespace {

std::pair<Tensor, Tensor> sorted_k(const Tensor& a, int64_t d, int64_t k, bool descending,
                                   OpKind kind, kernels::SortOrder order) {
  DimVector shape(a.sizes());
  if (a.dim() > 0) shape[static_cast<size_t>(d)] = k;
  Tensor values = empty(shape, a.dtype());
  Tensor indices = empty(shape, ScalarType::Int64);
  if (a.dim() == 0) {
    kernels::copy(values, a);
    kernels::fill(indices, Scalar(int64_t(0)));
  } else {
    kernels::sort_lines(values, indices, kernel_input(a, a.dtype()), d, descending, k, order);
  }
  record(kind, {&a}, values, [&](autograd::DimAttrs& at) { at.dim = d; }, {&indices});
  return {values, indices};
}

}  // namespace

std::pair<Tensor, Tensor> sort(const Tensor& a, int64_t dim, bool descending, bool stable_given,
                               bool stable) {
  const int64_t d = wrap_dim(dim, a.dim());
  // torch sorts a long line of integers in ascending order with a radix sort,
  // whose order of equal values is their positions' (NOTE [Ties in torch's order])
  const bool radix = a.dim() == 1 && !descending && is_integral(a.dtype()) &&
                     a.dtype() != ScalarType::Bool && a.numel() >= 32768;
  return sorted_k(a, d, a.dim() == 0 ? 1 : a.sizes()[static_cast<size_t>(d)], descending,
                  stable_given ? OpKind::SortStable : OpKind::Sort,
                  stable || radix ? kernels::SortOrder::Stable : kernels::SortOrder::Sort);
}

std::pair<Tensor, Tensor> topk(const Tensor& a, int64_t k, int64_t dim, bool largest, bool sorted) {
  const int64_t d = wrap_dim(dim, a.dim());
  const int64_t n = a.dim() == 0 ? 1 : a.sizes()[static_cast<size_t>(d)];
  GT_CHECK(k >= 0 && k <= n, "selected index k out of range");
  return sorted_k(a, d, k, largest, OpKind::Topk,
                  sorted ? kernels::SortOrder::TopkSorted : kernels::SortOrder::TopkUnsorted);
}

namespace {

// A value-selecting reduction along one dim (kthvalue, median, mode):
// keepdim-shaped outputs from `kernel`, then the reduced dim dropped.
template <typename Kernel>
std::pair<Tensor, Tensor> select_along(const Tensor& a, int64_t dim, bool keepdim, OpKind kind,
                                       const Kernel& kernel) {
  const int64_t d = wrap_dim(dim, a.dim());
  DimVector shape(a.sizes());
  if (a.dim() > 0) shape[size_t(d)] = 1;
  Tensor values = empty(shape, a.dtype());
  Tensor indices = empty(shape, ScalarType::Int64);
  if (a.dim() == 0) {
    kernels::copy(values, a);
    kernels::fill(indices, Scalar(int64_t(0)));
  } else {
    kernel(values, indices, kernel_input(a, a.dtype()), d);
  }
  if (!keepdim && a.dim() > 0) {
    // Drop the reduced dim in place: the results are not views of anything.
    shape.erase(size_t(d));
    values->set_geometry(shape, contiguous_strides(shape), 0);
    indices->set_geometry(shape, contiguous_strides(shape), 0);
  }
  record(kind, {&a}, values,
         [&](autograd::DimReduceAttrs& at) {
           at.dim = d;
           at.keepdim = keepdim;
         },
         {&indices});
  return {values, indices};
}

int64_t line_length(const Tensor& a, int64_t d) {
  return a.dim() == 0 ? 1 : a.sizes()[size_t(wrap_dim(d, a.dim()))];
}

}  // namespace

std::pair<Tensor, Tensor> kthvalue(const Tensor& a, int64_t k, int64_t dim, bool keepdim) {
  const int64_t d = wrap_dim(dim, a.dim());
  GT_CHECK(k >= 1 && k <= line_length(a, d),
           "kthvalue(): selected number k out of range for dimension ", d);
  return select_along(a, d, keepdim, OpKind::Kthvalue,
                      [&](const Tensor& v, const Tensor& i, const Tensor& in, int64_t dd) {
                        kernels::kth_lines(v, i, in, dd, k - 1, false);
                      });
}

std::pair<Tensor, Tensor> median_dim(const Tensor& a, int64_t dim, bool keepdim) {
  const int64_t d = wrap_dim(dim, a.dim());
  const int64_t n = line_length(a, d);
  GT_CHECK_INDEX(a.dim() == 0 || n > 0, "median(): Expected reduction dim ", d,
                 " to have non-zero size.");
  return select_along(a, d, keepdim, OpKind::MedianDim,
                      [&](const Tensor& v, const Tensor& i, const Tensor& in, int64_t dd) {
                        kernels::kth_lines(v, i, in, dd, (n - 1) / 2, true);
                      });
}

std::pair<Tensor, Tensor> nanmedian_dim(const Tensor& a, int64_t dim, bool keepdim) {
  const int64_t d = wrap_dim(dim, a.dim());
  const int64_t n = line_length(a, d);
  GT_CHECK_INDEX(a.dim() == 0 || n > 0, "median(): Expected reduction dim ", d,
                 " to have non-zero size.");
  return select_along(a, d, keepdim, OpKind::NanmedianDim,
                      [&](const Tensor& v, const Tensor& i, const Tensor& in, int64_t dd) {
                        kernels::kth_lines(v, i, in, dd, 0, false, true);
                      });
}

namespace {
Tensor median_of_all(const Tensor& a, bool skip_nan) {
  Tensor out = empty({}, a.dtype());
  if (a.numel() == 0) {
    kernels::fill(out, Scalar(std::nan("")));
  } else {
    Tensor flat = reshape(kernel_input(a, a.dtype()), {a.numel()});
    Tensor idx = empty({1}, ScalarType::Int64), v = empty({1}, a.dtype());
    kernels::kth_lines(v, idx, flat, 0, (a.numel() - 1) / 2, !skip_nan, skip_nan);
    kernels::copy(out, reshape(v, {}));
  }
  record(skip_nan ? OpKind::NanmedianAll : OpKind::MedianAll, {&a}, out);
  return out;
}
}  // namespace

Tensor median_all(const Tensor& a) { return median_of_all(a, false); }
Tensor nanmedian_all(const Tensor& a) { return median_of_all(a, true); }

std::pair<Tensor, Tensor> mode(const Tensor& a, int64_t dim, bool keepdim) {
  return select_along(a, dim, keepdim, OpKind::Mode,
                      [&](const Tensor& v, const Tensor& i, const Tensor& in, int64_t dd) {
                        kernels::mode_lines(v, i, in, dd);
                      });
}

Tensor searchsorted(const Tensor& boundaries, const Tensor& values, bool out_int32, bool right,
                    const Tensor& sorter) {
  autograd::AutoGradMode off(false);
  auto dense = [](const Tensor& t) {
    Tensor c = contiguous(t);
    return c.is_aligned() ? c : clone(c);
  };
  Tensor out = empty(values.sizes(), out_int32 ? ScalarType::Int32 : ScalarType::Int64);
  kernels::search_sorted(out, dense(values), dense(boundaries),
                         sorter.defined() ? dense(sorter) : Tensor(), right);
  return out;
}

}  // namespace gradtrack::ops
