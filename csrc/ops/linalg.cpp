// Matrix products with torch.matmul's shape rules.
#include "ops/common.h"

namespace gradtrack::ops {

namespace {

// A 3-D alias ([1, rows, cols]) of a 2-D tensor for the batched kernel.
Tensor as_batch(const Tensor& m) {
  return alias_with_geometry(m, {1, m.sizes()[0], m.sizes()[1]}, {0, m.strides()[0], m.strides()[1]},
                             m->offset());
}

void check_same_dtype(const Tensor& a, const Tensor& b, const char* a_name, const char* b_name) {
  GT_CHECK(a.dtype() == b.dtype(), "expected ", a_name, " and ", b_name,
           " to have the same dtype, but got: ", cpp_type_name(a.dtype()), " != ",
           cpp_type_name(b.dtype()));
}

Tensor mm_kernel(const Tensor& a, const Tensor& b) {
  Tensor out = empty({a.sizes()[0], b.sizes()[1]}, a.dtype());
  kernels::gemm(as_batch(out), as_batch(a), as_batch(b), false);
  return out;
}

}  // namespace

Tensor mm(const Tensor& a, const Tensor& b) {
  GT_CHECK(a.dim() == 2, "self must be a matrix");
  GT_CHECK(b.dim() == 2, "mat2 must be a matrix");
  GT_CHECK(a.sizes()[1] == b.sizes()[0], "mat1 and mat2 shapes cannot be multiplied (",
           a.sizes()[0], "x", a.sizes()[1], " and ", b.sizes()[0], "x", b.sizes()[1], ")");
  check_same_dtype(a, b, "m1", "m2");
  Tensor out = mm_kernel(a, b);
  record(OpKind::Mm, {&a, &b}, out);
  return out;
}

Tensor bmm(const Tensor& a, const Tensor& b) {
  GT_CHECK(a.dim() == 3, "batch1 must be a 3D tensor");
  GT_CHECK(b.dim() == 3, "batch2 must be a 3D tensor");
  GT_CHECK(b.sizes()[0] == a.sizes()[0] && b.sizes()[1] == a.sizes()[2],
           "Expected size for first two dimensions of batch2 tensor to be: [", a.sizes()[0], ", ",
           a.sizes()[2], "] but got: [", b.sizes()[0], ", ", b.sizes()[1], "].");
  check_same_dtype(a, b, "batch1", "batch2");
  Tensor out = empty({a.sizes()[0], a.sizes()[1], b.sizes()[2]}, a.dtype());
  kernels::gemm(out, a, b, false);
  record(OpKind::Bmm, {&a, &b}, out);
  return out;
}

Tensor mv(const Tensor& a, const Tensor& v) {
  GT_CHECK(a.dim() == 2 && v.dim() == 1, "vector + matrix @ vector expected, got ", a.dim(), ", ",
           v.dim());
  GT_CHECK(a.sizes()[1] == v.sizes()[0], "size mismatch, got input (", a.sizes()[0], "), mat (",
           a.sizes()[0], "x", a.sizes()[1], "), vec (", v.sizes()[0], ")");
  check_same_dtype(a, v, "m1", "m2");
  Tensor col = alias_with_geometry(v, {v.sizes()[0], 1}, {v.strides()[0], 1}, v->offset());
  Tensor out2 = mm_kernel(a, col);
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
  Tensor row = alias_with_geometry(a, {1, a.numel()}, {0, a.strides()[0]}, a->offset());
  Tensor col = alias_with_geometry(b, {b.numel(), 1}, {b.strides()[0], 1}, b->offset());
  Tensor out2 = mm_kernel(row, col);
  Tensor out = alias_with_geometry(out2, {}, {}, 0);
  record(OpKind::Dot, {&a, &b}, out);
  return out;
}

Tensor addmm(const Tensor& bias, const Tensor& a, const Tensor& b, Scalar beta, Scalar alpha) {
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
  record(OpKind::Addmm, {&bias, &a, &b}, out, [&](autograd::Attrs& at) {
    at.s0 = beta;
    at.s1 = alpha;
  });
  return out;
}

Tensor matmul(const Tensor& a, const Tensor& b) {
  GT_CHECK(a.dim() > 0 && b.dim() > 0, "both arguments to matmul need to be at least 1D, but they "
           "are ", a.dim(), "D and ", b.dim(), "D");
  if (a.dim() == 1 && b.dim() == 1) return dot(a, b);
  if (a.dim() == 2 && b.dim() == 1) return mv(a, b);
  if (a.dim() == 1 && b.dim() == 2) return inplace_squeeze(mm(unsqueeze(a, 0), b), 0);
  if (a.dim() == 2 && b.dim() == 2) return mm(a, b);
  if (a.dim() >= 3 && b.dim() <= 2) {
    // Fold the batch into the rows: one mm (or mv), then an unsafe view back.
    const int64_t k = a.sizes()[a.dim() - 1];
    DimVector out_shape(a.sizes().begin(), a.sizes().end() - 1);
    if (b.dim() == 2) out_shape.push_back(b.sizes()[1]);
    Tensor folded = reshape(a, {-1, k});
    Tensor prod = b.dim() == 1 ? mv(folded, b) : mm(folded, b);
    Tensor out = alias_with_geometry(prod, out_shape, contiguous_strides(out_shape), prod->offset());
    record(OpKind::UnsafeView, {&prod}, out);
    return out;
  }
  if (a.dim() == 2 && b.dim() >= 3) {
    // PyTorch folds this case through the transposes: (b^T @ a^T)^T.
    GT_CHECK(a.sizes()[1] == b.sizes()[b.dim() - 2], "Expected size for first two dimensions of "
             "batch2 tensor to be: [", numel_of(DimVector(b.sizes().begin(), b.sizes().end() - 2)),
             ", ", a.sizes()[1], "] but got: [", numel_of(DimVector(b.sizes().begin(), b.sizes().end() - 2)),
             ", ", b.sizes()[b.dim() - 2], "].");
    return contiguous(transpose(matmul(transpose(b, -1, -2), t(a)), -1, -2));
  }
  // General batched case: broadcast the batch dims, then bmm.
  Tensor a2 = a.dim() == 1 ? unsqueeze(a, 0) : a;
  Tensor b2 = b.dim() == 1 ? unsqueeze(b, 1) : b;
  const int64_t n = a2.sizes()[a2.dim() - 2], k = a2.sizes()[a2.dim() - 1];
  const int64_t k2 = b2.sizes()[b2.dim() - 2], p = b2.sizes()[b2.dim() - 1];
  DimVector ba(a2.sizes().begin(), a2.sizes().end() - 2), bb(b2.sizes().begin(), b2.sizes().end() - 2);
  DimVector batch = broadcast_shapes(ba, bb);
  int64_t bn = numel_of(batch);
  DimVector ea(batch), eb(batch);
  ea.push_back(n);
  ea.push_back(k);
  eb.push_back(k2);
  eb.push_back(p);
  Tensor a3 = reshape(expand(a2, ea), {bn, n, k});
  Tensor b3 = reshape(expand(b2, eb), {bn, k2, p});
  Tensor prod = bmm(a3, b3);
  DimVector out_shape(batch);
  if (a.dim() > 1) out_shape.push_back(n);
  if (b.dim() > 1) out_shape.push_back(p);
  Tensor out = alias_with_geometry(prod, out_shape, contiguous_strides(out_shape), prod->offset());
  record(OpKind::UnsafeView, {&prod}, out);
  return out;
}

Tensor linear(const Tensor& x, const Tensor& w, const Tensor* bias) {
  if (x.dim() == 2) return bias ? addmm(*bias, x, t(w)) : mm(x, t(w));
  if (bias && x.dim() >= 1) {
    // PyTorch flattens to 2-D, runs addmm, and views back (ViewBackward0).
    DimVector out_shape(x.sizes().begin(), x.sizes().end() - 1);
    out_shape.push_back(w.sizes()[0]);
    Tensor flat = reshape(x, {-1, x.sizes()[x.dim() - 1]});
    return view(addmm(*bias, flat, t(w)), out_shape);
  }
  Tensor out = matmul(x, t(w));
  return bias ? add(out, *bias) : out;
}

Tensor outer(const Tensor& a, const Tensor& b) {
  GT_CHECK(a.dim() == 1 && b.dim() == 1, "outer: Expected 1-D argument self, but got ", a.dim(), "-D");
  return mul(reshape(a, {a.numel(), 1}), b);
}

}  // namespace gradtrack::ops
