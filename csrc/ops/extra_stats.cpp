// Statistics: var/std (with correction), var_mean/std_mean, logsumexp.
// The forward values come from the existing ops with grad mode off; the node
// recorded is the op's own row, as PyTorch's single kernels record one node.
#include <cmath>
#include <limits>

#include "ops/common.h"
#include "ops/extra_ops.h"

namespace gradtrack::ops {

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
    Tensor m = mean(a, rdims, true, std::nullopt, true);
    Tensor diff = sub(a, m);
    value = div(sum(mul(diff, diff), rdims, keepdim, std::nullopt, true), Scalar(dof));
    if (is_std) value = sqrt(value);
    if (with_mean) mean_out = keepdim ? m : mean(a, rdims, false, std::nullopt, true);
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

}  // namespace gradtrack::ops
