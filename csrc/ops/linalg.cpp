// Linear algebra: matrix products with torch.matmul's shape rules, baddbmm,
// addmv, the cross product, the trace and pairwise distances (cdist).
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "autograd/profiling.h"
#include "autograd/variable.h"
#include "ops/common.h"

namespace gradtrack::ops {

namespace {

// A 3-D alias ([1, rows, cols]) of a 2-D tensor for the batched kernel.
Tensor as_batch(const Tensor& m) {
  return alias_with_geometry(m, {1, m.sizes()[0], m.sizes()[1]},
                             {0, m.strides()[0], m.strides()[1]}, m->offset());
}

void check_same_dtype(const Tensor& a, const Tensor& b, const char* a_name, const char* b_name) {
  GT_CHECK(a.dtype() == b.dtype(), "expected ", a_name, " and ", b_name,
           " to have the same dtype, but got: ", cpp_type_name(a.dtype()),
           " != ", cpp_type_name(b.dtype()));
}

// A product's result: the armed out= tensor when it fits (NOTE [out= written in
// place] in ops/common.h; the GEMM never reads c), else a new one.
Tensor product_result(const DimVector& shape, ScalarType dt) {
  Tensor out = take_out(shape, dt);
  return out.defined() ? out : empty(shape, dt);
}

Tensor mm_kernel(const Tensor& a, const Tensor& b, const char* name = "addmm_impl_cpu_") {
  Tensor out = product_result({a.sizes()[0], b.sizes()[1]}, a.dtype());
  kernels::gemm(as_batch(out), as_batch(a), as_batch(b), false, name);
  return out;
}

// NOTE [Small bmm products as torch sums them]
// torch's bmm multiplies batches whose k * m * n is below 400 in a plain loop
// of its own: each product is rounded, then added to a running sum from 0 in k
// order (no fused multiply-add), where a GEMM's sums round differently. The
// attention of a small model (heads of 8, a few tokens) lands there, and its
// results drift from torch's from the first step. So do the same for float32
// and float64. (The translation unit has no FMA target, so x * y + acc is two
// roundings, as written.)
template <typename T>
void small_bmm(const Tensor& out, const Tensor& a, const Tensor& b) {
  const int64_t batch = out.sizes()[0], m = out.sizes()[1], n = out.sizes()[2], k = a.sizes()[2];
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  T* po = out.data<T>();
  const auto& sa = a.strides();
  const auto& sb = b.strides();
  for (int64_t z = 0; z < batch; ++z)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        T acc = 0;
        for (int64_t p = 0; p < k; ++p) {
          const T product =
              pa[z * sa[0] + i * sa[1] + p * sa[2]] * pb[z * sb[0] + p * sb[1] + j * sb[2]];
          acc = acc + product;
        }
        po[(z * m + i) * n + j] = acc;
      }
}

// PyTorch's _unsafe_view: the contiguous result `t` of a product seen with
// another shape, recorded as a new tensor (UnsafeViewBackward0), not a view.
Tensor unsafe_view(const Tensor& t, const DimVector& shape) {
  autograd::profiling::Scope scope("aten::_unsafe_view", {&t}, 2);
  Tensor out = alias_with_geometry(t, shape, contiguous_strides(shape), t->offset());
  record(OpKind::UnsafeView, {&t}, out);
  return out;
}

}  // namespace

Tensor mm(const Tensor& a, const Tensor& b) {
  autograd::profiling::Scope scope("aten::mm", {&a, &b}, 2);
  GT_CHECK(a.dim() == 2, "self must be a matrix");
  GT_CHECK(b.dim() == 2, "mat2 must be a matrix");
  GT_CHECK(a.sizes()[1] == b.sizes()[0], "mat1 and mat2 shapes cannot be multiplied (",
           a.sizes()[0], "x", a.sizes()[1], " and ", b.sizes()[0], "x", b.sizes()[1], ")");
  check_same_dtype(a, b, "m1", "m2");
  Tensor out = mm_kernel(a, b);
  record(OpKind::Mm, {&a, &b}, out, [&](autograd::MmAttrs& at) {
    at.mat1_strides = a.strides();  // the backward keeps a column-major input's layout
    at.mat2_strides = b.strides();
  });
  return out;
}

Tensor bmm(const Tensor& a, const Tensor& b) {
  autograd::profiling::Scope scope("aten::bmm", {&a, &b}, 2);
  GT_CHECK(a.dim() == 3, "batch1 must be a 3D tensor");
  GT_CHECK(b.dim() == 3, "batch2 must be a 3D tensor");
  GT_CHECK(b.sizes()[0] == a.sizes()[0] && b.sizes()[1] == a.sizes()[2],
           "Expected size for first two dimensions of batch2 tensor to be: [", a.sizes()[0], ", ",
           a.sizes()[2], "] but got: [", b.sizes()[0], ", ", b.sizes()[1], "].");
  const DimVector shape{a.sizes()[0], a.sizes()[1], b.sizes()[2]};
  // Nothing to multiply (an empty result, or k == 0): PyTorch returns zeros
  // of batch2's dtype before comparing dtypes.
  const bool nothing = numel_of(shape) == 0 || a.sizes()[2] == 0;
  GT_CHECK(nothing || a.dtype() == b.dtype(), "expected scalar type ", scalar_type_name(a.dtype()),
           " but found ", scalar_type_name(b.dtype()));
  GT_CHECK(is_floating(b.dtype()) || !autograd::should_record({&a, &b}),
           "Autograd not support dtype: ", scalar_type_name(b.dtype()));
  Tensor out = nothing ? zeros(shape, b.dtype()) : product_result(shape, a.dtype());
  const bool small = a.sizes()[2] * shape[1] * shape[2] < 400;  // (out shares no memory)
  if (!nothing && small && a.dtype() == ScalarType::Float32)
    small_bmm<float>(out, a, b);  // NOTE [Small bmm products as torch sums them]
  else if (!nothing && small && a.dtype() == ScalarType::Float64)
    small_bmm<double>(out, a, b);
  else if (!nothing)
    kernels::gemm(out, a, b, false, "bmm");
  record(OpKind::Bmm, {&a, &b}, out);
  return out;
}

Tensor mv(const Tensor& a, const Tensor& v) {
  GT_CHECK(a.dim() == 2 && v.dim() == 1, "vector + matrix @ vector expected, got ", a.dim(), ", ",
           v.dim());
  GT_CHECK(a.sizes()[1] == v.sizes()[0], "size mismatch, got input (", a.sizes()[0], "), mat (",
           a.sizes()[0], "x", a.sizes()[1], "), vec (", v.sizes()[0], ")");
  // PyTorch runs mv as addmv into a result of the vector's dtype.
  GT_CHECK(a.dtype() == v.dtype(), "addmv input tensors must have the same dtype, but got ",
           scalar_type_name(v.dtype()), ", ", scalar_type_name(a.dtype()), ", and ",
           scalar_type_name(v.dtype()));
  Tensor col = alias_with_geometry(v, {v.sizes()[0], 1}, {v.strides()[0], 1}, v->offset());
  Tensor out2 = mm_kernel(a, col, "addmv_impl_cpu");
  Tensor out = alias_with_geometry(out2, {a.sizes()[0]}, {1}, 0);
  record(OpKind::Mv, {&a, &v}, out);
  return out;
}

Tensor dot(const Tensor& a, const Tensor& b) {
  GT_CHECK(a.dim() == 1 && b.dim() == 1, "1D tensors expected, but got ", a.dim(), "D and ",
           b.dim(), "D tensors");
  GT_CHECK(a.numel() == b.numel(), "inconsistent tensor size, expected tensor [", a.numel(),
           "] and src [", b.numel(), "] to have the same number of elements, but got ", a.numel(),
           " and ", b.numel(), " elements respectively");
  GT_CHECK(a.dtype() == b.dtype(), "dot : expected both vectors to have same dtype, but found ",
           scalar_type_name(a.dtype()), " and ", scalar_type_name(b.dtype()));
  GT_CHECK_IMPL(a.dtype() != ScalarType::Bool, "\"dot\" not implemented for 'Bool'");
  Tensor out;
  if (a.dtype() == ScalarType::Float32) {
    // NOTE [A float32 dot in double]
    // Through the GEMM (one 1 x n by n x 1 product) a float32 dot summed its
    // products in float: relative error 3.9e-6 at n = 1000 against torch's 2.5e-6
    // (both against float64). Each product of two floats is exact in double, and
    // eight double sums are rounded to float once: the error is then that one
    // rounding. The loop reads memory once, as the GEMM did.
    const float* pa = a.data<float>();
    const float* pb = b.data<float>();
    const int64_t sa = a.strides()[0], sb = b.strides()[0], n = a.numel();
    double lanes[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
      for (int l = 0; l < 8; ++l) lanes[l] += double(pa[(i + l) * sa]) * double(pb[(i + l) * sb]);
    for (; i < n; ++i) lanes[i % 8] += double(pa[i * sa]) * double(pb[i * sb]);
    out = empty({}, ScalarType::Float32);
    *out.data<float>() = float(((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) +
                               ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7])));
  } else {
    Tensor row = alias_with_geometry(a, {1, a.numel()}, {0, a.strides()[0]}, a->offset());
    Tensor col = alias_with_geometry(b, {b.numel(), 1}, {b.strides()[0], 1}, b->offset());
    out = alias_with_geometry(mm_kernel(row, col), {}, {}, 0);
  }
  record(OpKind::Dot, {&a, &b}, out);
  return out;
}

Tensor addmm(const Tensor& bias, const Tensor& a, const Tensor& b, Scalar beta, Scalar alpha) {
  autograd::profiling::Scope scope("aten::addmm", {&bias, &a, &b}, 5);
  GT_CHECK(a.dim() == 2, "mat1 must be a matrix, got ", a.dim(), "-D tensor");
  GT_CHECK(b.dim() == 2, "mat2 must be a matrix, got ", b.dim(), "-D tensor");
  GT_CHECK(a.sizes()[1] == b.sizes()[0], "mat1 and mat2 shapes cannot be multiplied (",
           a.sizes()[0], "x", a.sizes()[1], " and ", b.sizes()[0], "x", b.sizes()[1], ")");
  check_same_dtype(a, b, "mat1", "mat2");
  GT_CHECK(bias.dtype() == a.dtype(), "self and mat2 must have the same dtype, but got ",
           scalar_type_name(bias.dtype()), " and ", scalar_type_name(b.dtype()));
  DimVector shape{a.sizes()[0], b.sizes()[1]};
  Tensor out = empty(shape, a.dtype());
  broadcast_shapes(bias.sizes(), shape);
  Tensor bias_e = alias_with_geometry(bias, bias.sizes(), bias.strides(), bias->offset());
  kernels::copy(out, bias_e);
  if (!beta.equals(1)) kernels::binary_scalar(kernels::BinaryOp::Mul, out, out, beta, 1, false);
  if (alpha.equals(1)) {
    kernels::gemm(as_batch(out), as_batch(a), as_batch(b), true);
  } else {
    Tensor prod = mm_kernel(a, b);
    kernels::binary(kernels::BinaryOp::Add, out, out, prod, alpha);
  }
  record(OpKind::Addmm, {&bias, &a, &b}, out, [&](autograd::AddmmAttrs& at) {
    at.beta = beta;
    at.alpha = alpha;
    at.mat1_strides = a.strides();
    at.mat2_strides = b.strides();
  });
  return out;
}

namespace {

// NOTE [matmul's rules]
// torch.matmul picks its kernels (and so the grad_fn graph, whether the
// result is a view, and which error a bad pair raises) by rules this file
// follows step by step:
//  * 1-D/2-D pairs: dot, mv, mm (a 1-D left operand as a row, squeezed after).
//  * "fold": when one operand has >= 3 dims and the other <= 2, the big one's
//    batch dims merge into its rows and a single mm/mv runs, if that needs no
//    copy of the big operand (its leading dims collapse by a view) or if the
//    small operand requires grad (then its gradient is one mm, not a sum over
//    an expanded batch). A 2-D left operand never folds for the layout alone.
//    A big right operand folds through its transpose: (b^T @ a^T)^T.
//  * otherwise: broadcast the batch dims, expand, flatten to 3-D and bmm. A
//    3-D pair whose batch sizes differ and where a size-1 batch operand
//    requires grad first drops that dim and starts over (so it can fold).
bool should_fold(const Tensor& a, const Tensor& b) {
  const bool a_big = a.dim() >= b.dim();
  const Tensor& big = a_big ? a : b;
  const Tensor& small = a_big ? b : a;
  if (!(big.dim() >= 3 && small.dim() <= 2)) return false;
  if (autograd::requires_grad(small)) return true;
  if (a.dim() == 2) return false;
  if (big.numel() == 0) return true;
  // Geometry of the operand that gets folded: a, or b with its last two dims swapped.
  DimVector sizes = big.sizes(), strides = big.strides();
  if (!a_big) {
    std::swap(sizes[sizes.size() - 1], sizes[sizes.size() - 2]);
    std::swap(strides[strides.size() - 1], strides[strides.size() - 2]);
  }
  for (size_t i = 0; i + 2 < sizes.size(); ++i)
    if (strides[i] != strides[i + 1] * sizes[i + 1]) return false;
  return true;
}

Tensor folded_matmul(const Tensor& a, const Tensor& b) {
  const bool swap = b.dim() > a.dim();
  const Tensor big = swap ? transpose(b, -1, -2) : a;
  const Tensor small = !swap ? b : (a.dim() == 2 ? t(a) : a);
  const DimVector& sizes = big.sizes();
  DimVector out_shape(sizes.begin(), sizes.end() - 1);
  // Explicit sizes, not -1: a zero inner dim would make -1 ambiguous.
  Tensor rows = reshape(big, {numel_of(out_shape), sizes.back()});
  if (small.dim() == 1) return unsafe_view(mv(rows, small), out_shape);
  out_shape.push_back(small.sizes()[1]);
  Tensor out = unsafe_view(mm(rows, small), out_shape);
  return swap ? contiguous(transpose(out, -1, -2)) : out;
}

Tensor batched_matmul(const Tensor& a, const Tensor& b) {
  const int64_t n = a.dim() > 1 ? a.sizes()[a.dim() - 2] : 1;
  const int64_t k = a.sizes()[a.dim() - 1];
  const int64_t k2 = b.dim() > 1 ? b.sizes()[b.dim() - 2] : b.sizes()[0];
  const int64_t p = b.dim() > 1 ? b.sizes()[b.dim() - 1] : 1;
  DimVector batch_a(a.sizes().begin(), a.sizes().begin() + std::max<int64_t>(a.dim() - 2, 0));
  DimVector batch_b(b.sizes().begin(), b.sizes().begin() + std::max<int64_t>(b.dim() - 2, 0));
  if (a.dim() == 3 && b.dim() == 3 && batch_a[0] != batch_b[0]) {
    if (batch_a[0] == 1 && autograd::requires_grad(a)) return matmul(squeeze(a, 0), b);
    if (batch_b[0] == 1 && autograd::requires_grad(b)) return matmul(a, squeeze(b, 0));
  }
  const DimVector batch = broadcast_shapes(batch_a, batch_b);
  const int64_t nb = numel_of(batch);
  DimVector ea(batch), eb(batch), out_shape(batch);
  ea.push_back(n);
  ea.push_back(k);
  eb.push_back(k2);
  if (b.dim() > 1) eb.push_back(p);
  Tensor a3 = reshape(expand(a, ea), {nb, n, k});
  Tensor b3 = b.dim() == 1 ? unsqueeze(reshape(expand(b, eb), {nb, k2}), 2)
                           : reshape(expand(b, eb), {nb, k2, p});
  if (a.dim() > 1) out_shape.push_back(n);
  if (b.dim() > 1) out_shape.push_back(p);
  Tensor prod = bmm(a3, b3);
  return unsafe_view(b.dim() == 1 ? squeeze(prod, -1) : prod, out_shape);
}

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b) {
  autograd::profiling::Scope scope("aten::matmul", {&a, &b}, 2);
  GT_CHECK(a.dim() > 0 && b.dim() > 0,
           "both arguments to matmul need to be at least 1D, but they "
           "are ",
           a.dim(), "D and ", b.dim(), "D");
  if (a.dim() == 1 && b.dim() == 1) return dot(a, b);
  if (a.dim() == 2 && b.dim() == 1) return mv(a, b);
  if (a.dim() == 1 && b.dim() == 2) return inplace_squeeze(mm(unsqueeze(a, 0), b), 0);
  if (a.dim() == 2 && b.dim() == 2) return mm(a, b);
  if (should_fold(a, b)) return folded_matmul(a, b);
  return batched_matmul(a, b);
}

Tensor linear(const Tensor& x, const Tensor& w, const Tensor* bias) {
  autograd::profiling::Scope scope("aten::linear", {&x, &w, bias}, 3);
  // torch's steps: t then addmm, or matmul (which is mm for two matrices)
  if (x.dim() == 2) return bias ? addmm(*bias, x, t(w)) : matmul(x, t(w));
  if (bias && x.dim() >= 1) {
    // PyTorch flattens to 2-D, runs addmm, and views back (ViewBackward0).
    DimVector out_shape(x.sizes().begin(), x.sizes().end() - 1);
    out_shape.push_back(w.sizes()[0]);
    const DimVector rows{-1, x.sizes()[x.dim() - 1]};
    Tensor flat = x.is_contiguous() ? view(x, rows) : reshape(x, rows);
    return view(addmm(*bias, flat, t(w)), out_shape);
  }
  Tensor out = matmul(x, t(w));
  return bias ? add(out, *bias) : out;
}

Tensor outer(const Tensor& a, const Tensor& b) {
  GT_CHECK(a.dim() == 1 && b.dim() == 1, "outer: Expected 1-D argument self, but got ", a.dim(),
           "-D");
  return mul(reshape(a, {a.numel(), 1}), b);
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

Tensor trace(const Tensor& a) {
  GT_CHECK(a.dim() == 2, "trace: expected a matrix, but got tensor with dim ", a.dim());
  Tensor out;
  {
    autograd::AutoGradMode off(false);
    out = sum(diagonal(a, 0, 0, 1), {}, false);
  }
  record(OpKind::Trace, {&a}, out);
  return out;
}

namespace {
// x1[..., i, None, :] - x2[..., None, j, :].
Tensor pair_diff(const Tensor& x1, const Tensor& x2) {
  return sub(unsqueeze(x1, -2), unsqueeze(x2, -3));
}
Tensor pnorm_dist(const Tensor& x1, const Tensor& x2, double p) {
  Tensor diff = pair_diff(x1, x2);
  if (p == 0) return to_dtype(sum(compare(Cmp::Ne, diff, Scalar(0.0)), {-1}, false), x1.dtype());
  Tensor a = abs(diff);
  if (p == 1) return sum(a, {-1}, false);
  if (p == 2) return sqrt(sum(mul(diff, diff), {-1}, false));
  if (std::isinf(p)) return amax(a, {-1}, false);
  return pow(sum(pow(a, Scalar(p)), {-1}, false), Scalar(1.0 / p));
}
DimVector batch_of(const Tensor& t) { return DimVector(t.sizes().begin(), t.sizes().end() - 2); }

}  // namespace
Tensor euclidean_dist(const Tensor& x1, const Tensor& x2) {
  Tensor out;
  {
    autograd::AutoGradMode off(false);
    Tensor n1 = sum(mul(x1, x1), {-1}, true);
    Tensor n2 = transpose(sum(mul(x2, x2), {-1}, true), -1, -2);
    Tensor prod = matmul(x1, transpose(x2, -1, -2));
    out = sqrt(clamp_min(sub(add(n1, n2), mul_by_scalar(prod, Scalar(2.0))), Scalar(0.0)));
  }
  record(OpKind::EuclideanDist, {&x1, &x2}, out);
  return out;
}
Tensor cdist(const Tensor& x1, const Tensor& x2, double p, int64_t mode) {
  GT_CHECK(x1.dim() >= 2, "cdist only supports at least 2D tensors, X1 got: ", x1.dim(), "D");
  GT_CHECK(x2.dim() >= 2, "cdist only supports at least 2D tensors, X2 got: ", x2.dim(), "D");
  GT_CHECK(x1.size(-1) == x2.size(-1),
           "X1 and X2 must have the same number of columns. X1: ", x1.size(-1),
           " X2: ", x2.size(-1));
  GT_CHECK(is_floating(x1.dtype()),
           "cdist only supports floating-point dtypes, X1 got: ", scalar_type_name(x1.dtype()));
  GT_CHECK(is_floating(x2.dtype()),
           "cdist only supports floating-point dtypes, X2 got: ", scalar_type_name(x2.dtype()));
  GT_CHECK(p >= 0, "cdist only supports non-negative p values");
  GT_CHECK(mode >= 0 && mode <= 2, mode, " is not a valid value for compute_mode");
  const int64_t r1 = x1.size(-2), r2 = x2.size(-2), m = x1.size(-1);
  DimVector batch = broadcast_shapes(batch_of(x1), batch_of(x2));
  DimVector out_shape = batch;
  out_shape.push_back(r1);
  out_shape.push_back(r2);
  const bool use_mm = p == 2 && (mode == 1 || (mode == 0 && (r1 > 25 || r2 > 25)));
  if (use_mm && r1 > 0 && r2 > 0 && m > 0) {
    // PyTorch flattens the batch, runs _euclidean_dist and views the result.
    int64_t b = 1;
    for (int64_t s : batch) b *= s;
    DimVector s1 = batch, s2 = batch;
    s1.push_back(r1);
    s1.push_back(m);
    s2.push_back(r2);
    s2.push_back(m);
    Tensor a = reshape(expand(x1, s1), {b, r1, m});
    Tensor c = reshape(expand(x2, s2), {b, r2, m});
    return view(euclidean_dist(a, c), out_shape);
  }
  Tensor out;
  {
    autograd::AutoGradMode off(false);
    if (r1 == 0 || r2 == 0 || m == 0) {
      out = zeros(out_shape, x1.dtype());
    } else {
      out = contiguous(pnorm_dist(x1, x2, p));
    }
  }
  record(OpKind::Cdist, {&x1, &x2}, out, [&](autograd::CdistAttrs& at) { at.p = p; });
  return out;
}
std::pair<Tensor, Tensor> cdist_grads(const Tensor& g, const Tensor& x1, const Tensor& x2,
                                      const Tensor& dist, double p) {
  Tensor diff = pair_diff(x1, x2);
  Tensor zero = zeros({}, g.dtype());
  Tensor d = unsqueeze(dist, -1), gg = unsqueeze(g, -1);
  Tensor is_zero = compare(Cmp::Eq, d, Scalar(0.0));
  Tensor dd;  // d dist / d x1 per pair, as PyTorch's cdist backward kernels
  if (p == 0) {
    dd = zeros_like(diff);
  } else if (p == 1) {
    dd = sign(diff);
  } else if (p == 2) {
    dd = where(is_zero, zero, div(diff, d));
  } else if (std::isinf(p)) {
    dd = mul(sign(diff), compare(Cmp::Eq, abs(diff), d));
  } else {
    Tensor a = abs(diff);
    Tensor num = p < 2 ? where(compare(Cmp::Eq, diff, Scalar(0.0)), zero,
                               mul(sign(diff), pow(a, Scalar(p - 1))))
                       : mul(diff, pow(a, Scalar(p - 2)));
    dd = where(is_zero, zero, div(num, pow(d, Scalar(p - 1))));
  }
  Tensor gd = mul(gg, dd);
  return {sum(gd, {-2}, false), neg(sum(gd, {-3}, false))};
}

}  // namespace gradtrack::ops
