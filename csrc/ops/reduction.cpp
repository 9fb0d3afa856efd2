// Reductions: sum, mean, nansum, max/min (with and without dim), aminmax,
// arg-reductions, prod, statistics (var/std, logsumexp), vector norms, dist and renorm.
#include <cmath>
#include <limits>
#include <vector>

#include "autograd/profiling.h"
#include "kernels/moments.h"
#include "kernels/nan_sum.h"
#include "kernels/reduced_float.h"
#include "kernels/simd.h"
#include "ops/common.h"

namespace gradtrack::ops {

using kernels::ReduceOp;

uint64_t dims_mask(const DimVector& dims, int64_t ndim, bool empty_means_all) {
  if (dims.empty() && empty_means_all) return ndim >= 64 ? ~uint64_t(0) : (uint64_t(1) << ndim) - 1;
  uint64_t mask = 0;
  for (int64_t d : dims) {
    int64_t w = wrap_dim(d, ndim);
    GT_CHECK(!(mask >> w & 1), "dim ", w, " appears multiple times in the list of dims");
    mask |= uint64_t(1) << w;
  }
  if (ndim == 0) mask = 0;
  return mask;
}

namespace {

DimVector keepdim_shape(const DimVector& sizes, uint64_t mask) {
  DimVector out(sizes);
  for (size_t d = 0; d < sizes.size(); ++d)
    if (mask >> d & 1) out[d] = 1;
  return out;
}

DimVector squeezed_shape(const DimVector& sizes, uint64_t mask) {
  DimVector out;
  for (size_t d = 0; d < sizes.size(); ++d)
    if (!(mask >> d & 1)) out.push_back(sizes[d]);
  return out;
}

// Drops the reduced dims of a dense keepdim result without recording a node.
Tensor drop_dims(const Tensor& t, uint64_t mask, bool keepdim) {
  if (keepdim) return t;
  DimVector shape = squeezed_shape(t.sizes(), mask);
  t->set_geometry(shape, contiguous_strides(shape), t->offset());
  return t;
}

DimVector mask_dims(uint64_t mask, int64_t ndim) {
  DimVector dims;
  for (int64_t d = 0; d < ndim; ++d)
    if (mask >> d & 1) dims.push_back(d);
  return dims;
}

Tensor reduce_into_new(ReduceOp op, const Tensor& in, uint64_t mask, bool keepdim, ScalarType dt) {
  Tensor out = empty(keepdim_shape(in.sizes(), mask), dt);
  kernels::reduce(op, out, in, mask);
  return drop_dims(out, mask, keepdim);
}

}  // namespace

Tensor sum(const Tensor& a, const DimVector& dims, bool keepdim, std::optional<ScalarType> dtype,
           bool dims_given) {
  autograd::profiling::Scope scope("aten::sum", {&a}, dims_given || !dims.empty() ? 4 : 2);
  uint64_t mask = dims_mask(dims, a.dim(), true);
  ScalarType dt = dtype ? *dtype : (is_floating(a.dtype()) ? a.dtype() : ScalarType::Int64);
  Tensor out = reduce_into_new(ReduceOp::Sum, cast_for_kernel(a, dt), mask, keepdim, dt);
  bool all = !dims_given && dims.empty();
  record(all ? OpKind::SumAll : OpKind::SumDim, {&a}, out, [&](autograd::ReduceAttrs& at) {
    at.dim = mask_dims(mask, a.dim());
    at.keepdim = keepdim;
  });
  return out;
}

Tensor mean(const Tensor& a, const DimVector& dims, bool keepdim, std::optional<ScalarType> dtype,
            bool dims_given) {
  ScalarType dt = dtype ? *dtype : a.dtype();
  GT_CHECK(is_floating(dt),
           "mean(): could not infer output dtype. Input dtype must be either a floating point or "
           "complex dtype. Got: ",
           scalar_type_name(dt));
  uint64_t mask = dims_mask(dims, a.dim(), true);
  // A float16/bfloat16 mean is a float32 sum and division, rounded once (as PyTorch's).
  const ScalarType acc = is_reduced_float(dt) ? ScalarType::Float32 : dt;
  Tensor out = reduce_into_new(ReduceOp::Sum, cast_for_kernel(a, acc), mask, keepdim, acc);
  int64_t count = 1;
  for (int64_t d = 0; d < a.dim(); ++d)
    if (mask >> d & 1) count *= a.sizes()[d];
  kernels::binary_scalar(kernels::BinaryOp::Div, out, out, Scalar(static_cast<double>(count)), 1,
                         false);
  if (acc != dt) out = kernels::narrowed(out, dt);
  bool all = !dims_given && dims.empty();
  record(all ? OpKind::MeanAll : OpKind::MeanDim, {&a}, out, [&](autograd::ReduceAttrs& at) {
    at.dim = mask_dims(mask, a.dim());
    at.keepdim = keepdim;
    at.reduced_numel = count;
  });
  return out;
}

namespace {

Tensor extreme_all(const Tensor& a, bool is_max) {
  GT_CHECK(a.numel() > 0, is_max ? "max" : "min",
           "(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
           "reduction dim with the 'dim' argument.");
  Tensor out = reduce_into_new(is_max ? ReduceOp::Max : ReduceOp::Min, a,
                               dims_mask({}, a.dim(), true), false, a.dtype());
  record(is_max ? OpKind::MaxAll : OpKind::MinAll, {&a}, out);
  return out;
}

std::pair<Tensor, Tensor> extreme_dim(const Tensor& a, int64_t dim, bool keepdim, bool is_max) {
  int64_t d = wrap_dim(dim, a.dim());
  GT_CHECK_INDEX(a.dim() == 0 || a.sizes()[d] > 0, is_max ? "max" : "min",
                 "(): Expected reduction dim ", d, " to have non-zero size.");
  uint64_t mask = a.dim() == 0 ? 0 : uint64_t(1) << d;
  DimVector shape = keepdim_shape(a.sizes(), mask);
  Tensor values = empty(shape, a.dtype());
  Tensor indices = empty(shape, ScalarType::Int64);
  if (a.numel() > 0) kernels::reduce_arg(is_max, &values, indices, a, mask);
  drop_dims(values, mask, keepdim);
  drop_dims(indices, mask, keepdim);
  record(is_max ? OpKind::MaxDim : OpKind::MinDim, {&a}, values,
         [&](autograd::DimReduceAttrs& at) {
           at.dim = d;
           at.keepdim = keepdim;
         },
         {&indices});
  return {values, indices};
}

Tensor arg_extreme(const Tensor& a, std::optional<int64_t> dim, bool keepdim, bool is_max) {
  const char* name = is_max ? "argmax" : "argmin";
  GT_CHECK(a.dtype() != ScalarType::Bool, name, "(): does not support bool input");
  if (!dim) {
    GT_CHECK_INDEX(a.numel() > 0, name,
                   "(): Expected reduction dim to be specified for input.numel() == 0.");
    uint64_t mask = dims_mask({}, a.dim(), true);
    Tensor idx = empty(keepdim_shape(a.sizes(), mask), ScalarType::Int64);
    Tensor flat = a.is_contiguous() ? a : contiguous(a);
    kernels::reduce_arg(is_max, nullptr, idx, flat, mask);
    return drop_dims(idx, mask, keepdim);
  }
  int64_t d = wrap_dim(*dim, a.dim());
  GT_CHECK_INDEX(a.dim() == 0 || a.sizes()[d] > 0, name, "(): Expected reduction dim ", d,
                 " to have non-zero size.");
  uint64_t mask = a.dim() == 0 ? 0 : uint64_t(1) << d;
  Tensor idx = empty(keepdim_shape(a.sizes(), mask), ScalarType::Int64);
  if (a.numel() > 0) kernels::reduce_arg(is_max, nullptr, idx, a, mask);
  return drop_dims(idx, mask, keepdim);
}

Tensor bool_reduce(ReduceOp op, const Tensor& a, std::optional<int64_t> dim, bool keepdim) {
  uint64_t mask = dim ? dims_mask({*dim}, a.dim(), false) : dims_mask({}, a.dim(), true);
  // Reduce truth values; PyTorch keeps uint8 for uint8 input (legacy).
  Tensor truth = cast_for_kernel(a, ScalarType::Bool);
  Tensor out = reduce_into_new(op, truth, mask, dim ? keepdim : false, ScalarType::Bool);
  return a.dtype() == ScalarType::UInt8 ? cast_for_kernel(out, ScalarType::UInt8) : out;
}

}  // namespace

Tensor max(const Tensor& a) { return extreme_all(a, true); }
Tensor min(const Tensor& a) { return extreme_all(a, false); }
std::pair<Tensor, Tensor> max(const Tensor& a, int64_t dim, bool keepdim) {
  return extreme_dim(a, dim, keepdim, true);
}
std::pair<Tensor, Tensor> min(const Tensor& a, int64_t dim, bool keepdim) {
  return extreme_dim(a, dim, keepdim, false);
}
Tensor argmax(const Tensor& a, std::optional<int64_t> dim, bool keepdim) {
  return arg_extreme(a, dim, keepdim, true);
}
Tensor argmin(const Tensor& a, std::optional<int64_t> dim, bool keepdim) {
  return arg_extreme(a, dim, keepdim, false);
}
namespace {
// amax and amin: the same checks (named for the op) and one reduction.
Tensor extreme_reduce(bool is_max, const Tensor& a, const DimVector& dims, bool keepdim) {
  const char* name = is_max ? "amax" : "amin";
  GT_CHECK(!(dims.empty() && a.numel() == 0), name,
           "(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
           "reduction dim with the 'dim' argument.");
  uint64_t mask = dims_mask(dims, a.dim(), true);
  for (int64_t d : dims) {
    GT_CHECK_INDEX(a.dim() == 0 || a.sizes()[wrap_dim(d, a.dim())] != 0, name,
                   "(): Expected reduction dim ", d, " to have non-zero size.");
  }
  Tensor out = reduce_into_new(is_max ? ReduceOp::Max : ReduceOp::Min, a, mask, keepdim, a.dtype());
  record(is_max ? OpKind::Amax : OpKind::Amin, {&a}, out, [&](autograd::ReduceAttrs& at) {
    at.dim = mask_dims(mask, a.dim());
    at.keepdim = keepdim;
  });
  return out;
}
}  // namespace

Tensor amax(const Tensor& a, const DimVector& dims, bool keepdim) {
  return extreme_reduce(true, a, dims, keepdim);
}
Tensor amin(const Tensor& a, const DimVector& dims, bool keepdim) {
  return extreme_reduce(false, a, dims, keepdim);
}
Tensor any(const Tensor& a, std::optional<int64_t> dim, bool keepdim) {
  return bool_reduce(ReduceOp::Any, a, dim, keepdim);
}
Tensor all(const Tensor& a, std::optional<int64_t> dim, bool keepdim) {
  return bool_reduce(ReduceOp::All, a, dim, keepdim);
}
Tensor prod_all(const Tensor& a) {
  ScalarType dt = is_floating(a.dtype()) ? a.dtype() : ScalarType::Int64;
  Tensor out = reduce_into_new(ReduceOp::Prod, cast_for_kernel(a, dt), dims_mask({}, a.dim(), true),
                               false, dt);
  record(OpKind::Prod, {&a}, out);
  return out;
}

Tensor prod(const Tensor& a, int64_t dim, bool keepdim, std::optional<ScalarType> dtype) {
  ScalarType dt = dtype ? *dtype : (is_floating(a.dtype()) ? a.dtype() : ScalarType::Int64);
  uint64_t mask = dims_mask({dim}, a.dim(), false);
  Tensor out = reduce_into_new(ReduceOp::Prod, cast_for_kernel(a, dt), mask, keepdim, dt);
  record(OpKind::ProdDim, {&a}, out, [&](autograd::DimReduceAttrs& at) {
    at.dim = wrap_dim(dim, a.dim());
    at.keepdim = keepdim;
  });
  return out;
}

Tensor prod_others(const Tensor& a, int64_t dim) {
  // Exclusive prefix times exclusive suffix products along `dim`.
  Tensor x = kernels::aligned(contiguous(a));
  Tensor out = empty(x.sizes(), x.dtype());
  const int64_t d = x.dim() ? wrap_dim(dim, x.dim()) : 0;
  const int64_t len = x.dim() ? x.sizes()[d] : 1;
  int64_t inner = 1;
  for (int64_t k = d + 1; k < x.dim(); ++k) inner *= x.sizes()[k];
  const int64_t lanes = len ? x.numel() / len : 0;
  GT_DISPATCH_FLOAT(x.dtype(), "prod_backward", [&] {
    const scalar_t* src = x.data<scalar_t>();
    scalar_t* dst = out.data<scalar_t>();
    for (int64_t w = 0; w < lanes; ++w) {
      int64_t base = (w / inner) * len * inner + w % inner;
      scalar_t acc = 1;
      for (int64_t k = 0; k < len; ++k) {
        dst[base + k * inner] = acc;
        acc *= src[base + k * inner];
      }
      acc = 1;
      for (int64_t k = len - 1; k >= 0; --k) {
        dst[base + k * inner] *= acc;
        acc *= src[base + k * inner];
      }
    }
  });
  return out;
}

Tensor sum_to(const Tensor& g, const DimVector& shape) {
  if (g.sizes() == shape) return g;
  // To a 0-dim shape PyTorch sums everything: the result is not a view.
  if (shape.empty()) return sum(g, DimVector{}, /*keepdim=*/false);
  const int64_t lead = g.dim() - static_cast<int64_t>(shape.size());
  DimVector dims;
  for (int64_t i = 0; i < lead; ++i) dims.push_back(i);
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] == 1 && g.sizes()[lead + i] != 1) dims.push_back(lead + static_cast<int64_t>(i));
  Tensor r = dims.empty() ? g : sum(g, dims, /*keepdim=*/true, std::nullopt, true);
  return r.sizes() == shape ? r : view(r, shape);
}

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace
namespace {
// NOTE [Two-norms in one pass]
// The 2-norm of dense float32 data, over everything or over each row of the last dim:
// the squares summed in double in one pass (kernels/simd.h), the root taken in double
// and rounded once. Composed of abs, a product and a sum it took 3.6x torch's time over
// 1M elements (clip_grad_norm_ takes one per parameter), and torch's float sum is 600x
// further from float64 there. The squares are rounded to float first and a sum past
// float's range is inf: a norm overflows and underflows where torch's does (of four
// 1e30 it is inf, of four 1e-30 it is 0). A whole tensor is summed in fixed blocks of
// 64K elements, added in order, so that the result does not depend on the number of
// threads. False where it does not apply.
float root_in_float_range(double s) {
  return s > double(std::numeric_limits<float>::max()) ? std::numeric_limits<float>::infinity()
                                                       : static_cast<float>(std::sqrt(s));
}

bool two_norm_dense(const Tensor& a, const DimVector& rdims, bool keepdim, Tensor& out) {
  if (a.dtype() != ScalarType::Float32 || a.numel() == 0 || a.dim() == 0 || !a.is_contiguous())
    return false;
  const bool all = static_cast<int64_t>(rdims.size()) == a.dim();
  const bool last = rdims.size() == 1 && rdims[0] == a.dim() - 1;
  if (!all && !last) return false;
  Tensor x = kernels::aligned(a);
  const float* p = x.data<float>();
  DimVector shape;
  for (int64_t d = 0; d < a.dim(); ++d) {
    const bool reduced = all || d == a.dim() - 1;
    if (!reduced)
      shape.push_back(a.sizes()[d]);
    else if (keepdim)
      shape.push_back(1);
  }
  out = empty(shape, ScalarType::Float32);
  float* o = out.data<float>();
  if (all) {
    constexpr int64_t kBlock = int64_t(1) << 16;
    const int64_t n = a.numel(), blocks = (n + kBlock - 1) / kBlock;
    std::vector<double> partial(static_cast<size_t>(blocks));
    parallel_for(blocks, 1, [&](int64_t lo, int64_t hi) {
      for (int64_t b = lo; b < hi; ++b) {
        const int64_t m = std::min(kBlock, n - b * kBlock);
        partial[b] = kernels::simd::sum_squares_in_double(p + b * kBlock, m);
      }
    });
    double s = 0;
    for (double v : partial) s += v;
    o[0] = root_in_float_range(s);
  } else {
    const int64_t len = a.sizes()[a.dim() - 1], rows = a.numel() / len;
    parallel_for(rows, std::max<int64_t>(1, kGrainSize / len), [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r)
        o[r] = root_in_float_range(kernels::simd::sum_squares_in_double(p + r * len, len));
    });
  }
  return true;
}
}  // namespace

Tensor vector_norm(const Tensor& a, double ord, const DimVector& dims, bool keepdim) {
  GT_CHECK(is_floating(a.dtype()),
           "linalg.vector_norm: Expected a floating point or complex tensor as input. Got ",
           scalar_type_name(a.dtype()));
  const uint64_t mask = dims_mask(dims, a.dim(), true);
  DimVector rdims;
  for (int64_t d = 0; d < a.dim(); ++d)
    if (mask >> d & 1) rdims.push_back(d);
  Tensor out;
  {
    autograd::AutoGradMode off(false);
    Tensor x = ord == 2 ? a : abs(a);  // x * x needs no abs
    if (ord == kInf) {
      out = amax(x, rdims, keepdim);
    } else if (ord == -kInf) {
      out = neg(amax(neg(x), rdims, keepdim));
    } else if (ord == 0) {
      out = sum(to_dtype(compare(Cmp::Ne, x, Scalar(0.0)), a.dtype()), rdims, keepdim, std::nullopt,
                true);
    } else if (ord == 2) {
      if (!two_norm_dense(a, rdims, keepdim, out))
        out = sqrt(sum(mul(x, x), rdims, keepdim, std::nullopt, true));
    } else if (ord == 1) {
      out = sum(x, rdims, keepdim, std::nullopt, true);
    } else {
      out = pow(sum(pow(x, Scalar(ord)), rdims, keepdim, std::nullopt, true), Scalar(1.0 / ord));
    }
    out = to_dtype(out, a.dtype());
  }
  record(OpKind::VectorNorm, {&a}, out, [&](autograd::VectorNormAttrs& at) {
    at.ord = ord;
    at.dim = rdims;
    at.keepdim = keepdim;
  });
  return out;
}

namespace {
DimVector reduced_dims(uint64_t mask, int64_t ndim) {
  DimVector dims;
  for (int64_t d = 0; d < ndim; ++d)
    if (mask >> d & 1) dims.push_back(d);
  return dims;
}
int64_t reduced_count(const Tensor& a, uint64_t mask) {
  int64_t n = 1;
  for (int64_t d = 0; d < a.dim(); ++d)
    if (mask >> d & 1) n *= a.sizes()[static_cast<size_t>(d)];
  return n;
}

}  // namespace
std::pair<Tensor, Tensor> var_std(const Tensor& a, const DimVector& dims, bool dims_given,
                                  double correction, bool keepdim, bool is_std, bool with_mean) {
  GT_CHECK(is_floating(a.dtype()), "std and var only support floating point and complex dtypes");
  const uint64_t mask = dims_mask(dims, a.dim(), true);
  const DimVector rdims = reduced_dims(mask, a.dim());
  const int64_t n = reduced_count(a, mask);
  const double dof = std::max(0.0, double(n) - correction);
  if (dof <= 0) {
    warn(str_cat(is_std ? "std" : "var", with_mean ? "_mean" : "",
                 "(): degrees of freedom is <= 0. Correction should be strictly less than the "
                 "reduction factor (input numel divided by output numel)."));
  }
  Tensor value, mean_out;
  {
    autograd::AutoGradMode off(false);
    // The kernel reads [outer, n, inner]: the reduced dims as one block of a
    // contiguous tensor, or moved last when they are not neighbours.
    Tensor x = a;
    const bool block = rdims.empty() || rdims.back() - rdims[0] + 1 == int64_t(rdims.size());
    if (!block) {
      DimVector order;
      for (int64_t d = 0; d < a.dim(); ++d)
        if (!(mask >> d & 1)) order.push_back(d);
      for (int64_t d : rdims) order.push_back(d);
      x = permute(a, order);
    }
    x = contiguous(x);
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < a.dim() && block && !rdims.empty(); ++d) {
      if (d < rdims[0]) outer *= a.sizes()[size_t(d)];
      if (d > rdims.back()) inner *= a.sizes()[size_t(d)];
    }
    if (!block) outer = a.numel() / std::max<int64_t>(n, 1);
    const DimVector shape =
        keepdim ? keepdim_shape(a.sizes(), mask) : squeezed_shape(a.sizes(), mask);
    value = empty(shape, a.dtype());
    if (with_mean) mean_out = empty(shape, a.dtype());
    if (n == 0 && !block) outer = value.numel();
    kernels::moments(x, outer, n, inner, dof, is_std, value, mean_out);
  }
  const OpKind kind = with_mean ? (is_std ? OpKind::StdMean : OpKind::VarMean)
                                : (is_std ? OpKind::Std : OpKind::Var);
  (void)dims_given;
  if (autograd::forward_ad::any_tangent({&a})) {
    // jvp: 2 / dof * sum((a - mean) * t); std's divided by 2 * std.
    autograd::forward_ad::NoPropagation off;
    const Tensor t = autograd::forward_ad::tangent(a);
    Tensor centered = sub(a, mean(a, rdims, true, std::nullopt, true));
    Tensor dv = div(mul(sum(mul(centered, t), rdims, keepdim, std::nullopt, true), Scalar(2.0)),
                    Scalar(dof));
    if (is_std) dv = div(dv, mul(value, Scalar(2.0)));
    autograd::forward_ad::set_tangent(value, dv);
    if (with_mean)
      autograd::forward_ad::set_tangent(mean_out, mean(t, rdims, keepdim, std::nullopt, true));
  }
  if (autograd::should_record({&a})) {
    auto node = autograd::new_node(kind, {&a});
    autograd::VarAttrs& at = node->attrs.set<autograd::VarAttrs>();
    at.dim = rdims;
    at.keepdim = keepdim;
    at.correction = correction;
    at.reduced_numel = n;
    if (with_mean) {
      autograd::finish_node(node, {&a}, {&value, &mean_out});
    } else {
      autograd::finish_node(node, {&a}, {&value});
    }
  }
  return {value, mean_out};
}
Tensor logsumexp(const Tensor& a, const DimVector& dims, bool keepdim) {
  const uint64_t mask = dims_mask(dims, a.dim(), true);
  const DimVector rdims = reduced_dims(mask, a.dim());
  Tensor out;
  {
    autograd::AutoGradMode off(false);
    // Integers are summed as the default float dtype, as PyTorch's.
    Tensor x = is_floating(a.dtype()) ? a : to_dtype(a, default_float_type());
    if (x.numel() == 0) {
      out = log(sum(exp(x), rdims, keepdim, std::nullopt, true));
    } else {
      // Shift by the max (0 where it is infinite) so exp cannot overflow.
      Tensor m = amax(x, rdims, true);
      m = masked_fill(m, compare(Cmp::Eq, abs(m), Scalar(std::numeric_limits<double>::infinity())),
                      scalar_tensor(Scalar(0.0), m.dtype()));
      Tensor s = log(sum(exp(sub(x, m)), rdims, keepdim, std::nullopt, true));
      out = add(s, keepdim ? m : reshape(m, s.sizes()));
    }
  }
  record(OpKind::Logsumexp, {&a}, out, [&](autograd::ReduceAttrs& at) {
    at.dim = rdims;
    at.keepdim = keepdim;
  });
  return out;
}

Tensor nansum(const Tensor& a, const DimVector& dims, bool keepdim,
              std::optional<ScalarType> dtype) {
  const uint64_t mask = dims_mask(dims, a.dim(), true);
  Tensor out;
  {
    autograd::AutoGradMode off(false);
    const ScalarType dt = dtype ? *dtype : a.dtype();
    if (is_floating(a.dtype()) && is_floating(dt)) {
      // One pass, NaN read as 0 (NOTE [NaN-skipping sums]).
      out = empty(keepdim_shape(a.sizes(), mask), dt);
      kernels::nan_sum(out, cast_for_kernel(a, dt), mask);
      out = drop_dims(out, mask, keepdim);
    } else {
      Tensor x = is_floating(a.dtype()) ? where(isnan(a), zeros({}, a.dtype()), a) : a;
      out = sum(x, dims, keepdim, dtype, true);
    }
  }
  record(OpKind::Nansum, {&a}, out, [&](autograd::ReduceAttrs& at) {
    at.dim = mask_dims(mask, a.dim());
    at.keepdim = keepdim;
  });
  return out;
}

std::pair<Tensor, Tensor> aminmax(const Tensor& a, std::optional<int64_t> dim, bool keepdim) {
  GT_CHECK(dim || a.numel() > 0,
           "aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
           "identity.");
  if (dim) {
    const int64_t d = wrap_dim(*dim, a.dim());
    GT_CHECK_INDEX(a.dim() == 0 || a.sizes()[size_t(d)] != 0, "aminmax: Expected reduction dim ",
                   *dim, " to have non-zero size.");
  }
  const DimVector dims = dim ? DimVector{wrap_dim(*dim, a.dim())} : DimVector{};
  const uint64_t mask = dims_mask(dims, a.dim(), true);
  Tensor lo, hi;
  {
    autograd::AutoGradMode off(false);
    lo = reduce_into_new(ReduceOp::Min, a, mask, keepdim, a.dtype());
    hi = reduce_into_new(ReduceOp::Max, a, mask, keepdim, a.dtype());
  }
  const DimVector rdims = mask_dims(mask, a.dim());
  if (autograd::forward_ad::any_tangent({&a})) {
    // Each output's tangent: the mean of the tangents at its tied elements.
    autograd::forward_ad::NoPropagation off;
    const Tensor t = autograd::forward_ad::tangent(a);
    for (const Tensor* r : {&lo, &hi}) {
      Tensor kept = keepdim || a.dim() == 0 ? *r : reshape(*r, keepdim_shape(a.sizes(), mask));
      Tensor hit = to_dtype(compare(Cmp::Eq, a, kept), t.dtype());
      autograd::forward_ad::set_tangent(*r,
                                        div(sum(mul(t, hit), rdims, keepdim, std::nullopt, true),
                                            sum(hit, rdims, keepdim, std::nullopt, true)));
    }
  }
  if (autograd::should_record({&a})) {
    auto node = autograd::new_node(OpKind::Aminmax, {&a});
    autograd::ReduceAttrs& at = node->attrs.set<autograd::ReduceAttrs>();
    at.dim = rdims;
    at.keepdim = keepdim;
    autograd::finish_node(node, {&a}, {&lo, &hi});
  }
  return {lo, hi};
}

Tensor dist(const Tensor& a, const Tensor& b, double p) {
  Tensor out;
  {
    autograd::AutoGradMode off(false);
    Tensor diff = sub(a, b);
    GT_CHECK(is_floating(diff.dtype()),
             "norm(): input dtype should be either floating point or complex. Got ",
             scalar_type_name(diff.dtype()), " instead.");
    out = vector_norm(diff, p, {}, false);
  }
  record(OpKind::Dist, {&a, &b}, out, [&](autograd::CdistAttrs& at) { at.p = p; });
  return out;
}

Tensor renorm(const Tensor& a, double p, int64_t dim, double maxnorm) {
  GT_CHECK(p > 0, "renorm: non-positive-norm not supported");
  GT_CHECK(maxnorm >= 0, "renorm: expected maxnorm to be >= 0 but got ", maxnorm);
  GT_CHECK(a.dim() > 1, "renorm: input needs at least 2 dimensions, got ", a.dim(), " dimensions");
  const int64_t d = wrap_dim(dim, a.dim());
  Tensor out;
  {
    autograd::AutoGradMode off(false);
    DimVector others;
    for (int64_t i = 0; i < a.dim(); ++i)
      if (i != d) others.push_back(i);
    Tensor norm = vector_norm(a, p, others, true);
    // Slices within maxnorm keep their values; the others are scaled to it (the
    // 1e-7 is PyTorch's, so a slice lands just under maxnorm).
    Tensor factor =
        where(compare(Cmp::Gt, norm, Scalar(maxnorm)),
              div(scalar_tensor(Scalar(maxnorm), norm.dtype()), add(norm, Scalar(1e-7))),
              ones({}, norm.dtype()));
    out = mul(a, factor);
  }
  record(OpKind::Renorm, {&a}, out, [&](autograd::RenormAttrs& at) {
    at.p = p;
    at.dim = d;
    at.maxnorm = maxnorm;
  });
  return out;
}

Tensor inplace_renorm(const Tensor& self, double p, int64_t dim, double maxnorm) {
  Tensor v;
  {
    autograd::AutoGradMode off(false);
    v = renorm(self, p, dim, maxnorm);
  }
  const int64_t d = wrap_dim(dim, self.dim());
  return inplace_write("renorm_", OpKind::Renorm, {&self}, self, v, [&](autograd::Attrs& at) {
    auto& a = at.set<autograd::RenormAttrs>();
    a.p = p;
    a.dim = d;
    a.maxnorm = maxnorm;
  });
}

}  // namespace gradtrack::ops
