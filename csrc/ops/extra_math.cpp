// nan_to_num, lerp, vector_norm, baddbmm, addmv, cross. Values come from the
// existing ops with grad mode off; the node is the op's own row.
#include <cmath>
#include <limits>

#include "ops/common.h"
#include "ops/extra_ops.h"

namespace gradtrack::ops {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double largest(ScalarType t) {
  return t == ScalarType::Float32 ? double(std::numeric_limits<float>::max())
                                  : std::numeric_limits<double>::max();
}

void check_same_dtype(const Tensor& a, const Tensor& b, const char* what) {
  GT_CHECK(a.dtype() == b.dtype(), "expected dtype ", cpp_type_name(a.dtype()), " for `", what,
           "` but got dtype ", cpp_type_name(b.dtype()));
}

}  // namespace

Tensor nan_to_num(const Tensor& a, std::optional<double> nan, std::optional<double> posinf,
                  std::optional<double> neginf) {
  Tensor out;
  {
    autograd::AutoGradMode off(false);
    if (!is_floating(a.dtype())) {
      out = clone(a);
    } else {
      const double big = largest(a.dtype());
      auto fill = [&](double v) { return scalar_tensor(Scalar(v), a.dtype()); };
      out = where(isnan(a), fill(nan.value_or(0.0)), a);
      out = where(compare(Cmp::Eq, a, Scalar(kInf)), fill(posinf.value_or(big)), out);
      out = where(compare(Cmp::Eq, a, Scalar(-kInf)), fill(neginf.value_or(-big)), out);
    }
  }
  record(OpKind::NanToNum, {&a}, out);
  return out;
}

namespace {

// PyTorch's lerp: self + w * (end - self) for |w| < 0.5, else
// end - (end - self) * (1 - w), which keeps lerp(a, b, 1) == b exactly.
Tensor lerp_value(const Tensor& a, const Tensor& end, const Tensor& w) {
  Tensor diff = sub(end, a);
  Tensor low = add(a, mul(w, diff));
  Tensor high = sub(end, mul(diff, rsub(w, Scalar(1.0))));
  return where(compare(Cmp::Lt, abs(w), Scalar(0.5)), low, high);
}

}  // namespace

Tensor lerp(const Tensor& a, const Tensor& end, Scalar weight) {
  check_same_dtype(a, end, "end");
  GT_CHECK_IMPL(is_floating(a.dtype()), "\"lerp_kernel_scalar\" not implemented for '",
                scalar_type_name(a.dtype()), "'");
  Tensor out;
  {
    autograd::AutoGradMode off(false);
    out = lerp_value(a, end, scalar_tensor(weight, a.dtype()));
  }
  record(OpKind::LerpScalar, {&a, &end}, out, [&](autograd::LerpAttrs& at) { at.weight = weight; });
  return out;
}

Tensor lerp(const Tensor& a, const Tensor& end, const Tensor& weight) {
  check_same_dtype(a, end, "end");
  check_same_dtype(a, weight, "weight");
  GT_CHECK_IMPL(is_floating(a.dtype()), "\"lerp_kernel_tensor\" not implemented for '",
                scalar_type_name(a.dtype()), "'");
  Tensor out;
  {
    autograd::AutoGradMode off(false);
    out = lerp_value(a, end, weight);
  }
  record(OpKind::LerpTensor, {&a, &end, &weight}, out);
  return out;
}

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
    Tensor x = abs(a);
    if (ord == kInf) {
      out = amax(x, rdims, keepdim);
    } else if (ord == -kInf) {
      out = neg(amax(neg(x), rdims, keepdim));
    } else if (ord == 0) {
      out = sum(to_dtype(compare(Cmp::Ne, x, Scalar(0.0)), a.dtype()), rdims, keepdim, std::nullopt,
                true);
    } else if (ord == 2) {
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

Tensor baddbmm(const Tensor& self, const Tensor& b1, const Tensor& b2, Scalar beta, Scalar alpha) {
  GT_CHECK(b1.dim() == 3, "batch1 must be a 3D tensor");
  GT_CHECK(b2.dim() == 3, "batch2 must be a 3D tensor");
  const int64_t bs = b1.sizes()[0], k = b1.sizes()[2];
  GT_CHECK(b2.sizes()[0] == bs && b2.sizes()[1] == k,
           "Expected size for first two dimensions of batch2 tensor to be: [", bs, ", ", k,
           "] but got: [", b2.sizes()[0], ", ", b2.sizes()[1], "].");
  Tensor out;
  {
    autograd::AutoGradMode off(false);
    Tensor prod = bmm(b1, b2);
    if (!alpha.equals(1)) prod = mul(prod, alpha);
    GT_CHECK(is_expandable_to(self.sizes(), prod.sizes()), "The expanded size of the tensor (",
             prod.sizes().back(), ") must match the existing size (", self.sizes().back(),
             ") at non-singleton dimension 2.  Target sizes: ", shape_str(prod.sizes()),
             ".  Tensor sizes: ", shape_str(self.sizes()));
    // beta == 0 ignores self (NaN included), as PyTorch's.
    out = beta.equals(0) ? prod : add(prod, beta.equals(1) ? self : mul(self, beta));
  }
  record(OpKind::Baddbmm, {&self, &b1, &b2}, out, [&](autograd::BetaAlphaAttrs& at) {
    at.beta = beta;
    at.alpha = alpha;
  });
  return out;
}

Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, Scalar beta, Scalar alpha) {
  GT_CHECK(mat.dim() == 2 && vec.dim() == 1 && mat.sizes()[1] == vec.sizes()[0] &&
               (self.numel() == 1 || (self.dim() == 1 && self.sizes()[0] == mat.sizes()[0])),
           "size mismatch, got input (", self.dim() == 1 ? self.sizes()[0] : self.numel(),
           "), mat (", mat.dim() == 2 ? str_cat(mat.sizes()[0], "x", mat.sizes()[1]) : "?",
           "), vec (", vec.dim() == 1 ? vec.sizes()[0] : vec.numel(), ")");
  Tensor out;
  {
    autograd::AutoGradMode off(false);
    Tensor prod = mv(mat, vec);
    if (!alpha.equals(1)) prod = mul(prod, alpha);
    out = beta.equals(0) ? prod : add(prod, beta.equals(1) ? self : mul(self, beta));
  }
  record(OpKind::Addmv, {&self, &mat, &vec}, out, [&](autograd::BetaAlphaAttrs& at) {
    at.beta = beta;
    at.alpha = alpha;
  });
  return out;
}

Tensor cross(const Tensor& a, const Tensor& b, int64_t dim) {
  GT_CHECK(a.dim() == b.dim(), "linalg.cross: inputs must have the same number of dimensions.");
  DimVector shape = broadcast_shapes(a.sizes(), b.sizes());
  const int64_t d = wrap_dim(dim, static_cast<int64_t>(shape.size()));
  const int64_t la = a.dim() == 0 ? 1 : a.size(d - (int64_t(shape.size()) - a.dim()));
  const int64_t lb = b.dim() == 0 ? 1 : b.size(d - (int64_t(shape.size()) - b.dim()));
  GT_CHECK(la == 3 && lb == 3, "linalg.cross: inputs dimension ", dim, " must have length 3. Got ",
           la, " and ", lb);
  Tensor out;
  {
    autograd::AutoGradMode off(false);
    Tensor x = expand(a, shape), y = expand(b, shape);
    auto at = [&](const Tensor& t, int64_t i) { return narrow(t, d, i, 1); };
    auto comp = [&](int64_t i, int64_t j) {
      return sub(mul(at(x, i), at(y, j)), mul(at(x, j), at(y, i)));
    };
    out = cat({comp(1, 2), comp(2, 0), comp(0, 1)}, d);
  }
  record(OpKind::Cross, {&a, &b}, out, [&](autograd::DimAttrs& at) { at.dim = d; });
  return out;
}

}  // namespace gradtrack::ops
