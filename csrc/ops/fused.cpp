// Fused updates: addcmul, addcdiv, addr, addbmm, composed of the existing ops with
// grad mode off and recorded as PyTorch's nodes (AddcmulBackward0, ...), and the
// in-place forms of the fused and scan ops (addmm_, baddbmm_, lerp_, cumsum_, ...),
// which write their out-of-place op's value (NOTE [In-place forms of composed ops]
// in inplace.cpp).
#include "ops/common.h"

namespace gradtrack::ops {

namespace {

ScalarType promote3(const Tensor& a, const Tensor& b, const Tensor& c) {
  return promote_types(promote_types(a.dtype(), b.dtype()), c.dtype());
}

// addcmul and addcdiv of floats in one kernel, rounded as torch's (kernels::addcmul).
Tensor addcmul_floats(const Tensor& self, const Tensor& t1, const Tensor& t2, ScalarType dt,
                      Scalar value, bool divide) {
  const DimVector shape = broadcast_shapes(broadcast2(self, t1), t2.sizes());
  Tensor out = empty_result(shape, dt, self, t1, t2);
  kernels::addcmul(out, cast_for_kernel(self, dt), cast_for_kernel(t1, dt), cast_for_kernel(t2, dt),
                   value.to<double>(), divide);
  return out;
}

// PyTorch's maybe_multiply: skipped when the factor is 1.
Tensor times(const Tensor& t, Scalar s) { return s.equals(1) ? t : mul(t, s); }

// beta * self + prod, where beta == 0 ignores self's values (NaN included) but
// not its shape.
Tensor plus_scaled_self(const Tensor& self, const Tensor& prod, Scalar beta) {
  Tensor base = expand(self, prod.sizes());
  return beta.equals(0) ? prod : add(prod, times(base, beta));
}

void check_integral_factor(ScalarType dt, Scalar s, const char* name) {
  GT_CHECK(!(is_integral(dt) || dt == ScalarType::Bool) || !s.is_float(),
           "For integral input tensors, argument ", name, " must not be a floating point number.");
}

}  // namespace

Tensor addcmul(const Tensor& self, const Tensor& t1, const Tensor& t2, Scalar value) {
  const ScalarType dt = promote3(self, t1, t2);
  GT_CHECK_IMPL(dt != ScalarType::Bool, "\"addcmul_cpu_out\" not implemented for 'Bool'");
  Tensor out;
  {
    autograd::AutoGradMode off(false);
    // An integral result takes the factor as an integer, as PyTorch's kernel does.
    const Scalar v = is_integral(dt) ? Scalar(value.to_int()) : value;
    out = is_floating(dt) ? addcmul_floats(self, t1, t2, dt, value, false)
                          : to_dtype(add(self, times(mul(t1, t2), v)), dt);
  }
  record(OpKind::Addcmul, {&self, &t1, &t2}, out,
         [&](autograd::ValueAttrs& at) { at.value = value; });
  return out;
}

Tensor addcdiv(const Tensor& self, const Tensor& t1, const Tensor& t2, Scalar value) {
  GT_CHECK(!((is_integral(t1.dtype()) || t1.dtype() == ScalarType::Bool) &&
             (is_integral(t2.dtype()) || t2.dtype() == ScalarType::Bool)),
           "Integer division with addcdiv is no longer supported, and in a future  release "
           "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
           "behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2))"
           ".to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for "
           "float inputs. The future addcdiv behavior is just the latter implementation: (input "
           "+ value * tensor1 / tensor2), for all dtypes.");
  Tensor out;
  {
    autograd::AutoGradMode off(false);
    const ScalarType dt = promote3(self, t1, t2);
    out = is_floating(dt) ? addcmul_floats(self, t1, t2, dt, value, true)
                          : add(self, times(div(t1, t2), value));
  }
  record(OpKind::Addcdiv, {&self, &t1, &t2}, out,
         [&](autograd::ValueAttrs& at) { at.value = value; });
  return out;
}

Tensor addr(const Tensor& self, const Tensor& vec1, const Tensor& vec2, Scalar beta, Scalar alpha) {
  GT_CHECK(vec1.dim() == 1, "addr: Expected 1-D argument vec1, but got ", vec1.dim(), "-D");
  GT_CHECK(vec2.dim() == 1, "addr: Expected 1-D argument vec2, but got ", vec2.dim(), "-D");
  const ScalarType dt = promote3(self, vec1, vec2);
  check_integral_factor(dt, beta, "beta");
  check_integral_factor(dt, alpha, "alpha");
  Tensor out;
  {
    autograd::AutoGradMode off(false);
    Tensor prod = times(outer(vec1, vec2), alpha);
    out = to_dtype(plus_scaled_self(self, prod, beta), dt);
  }
  record(OpKind::Addr, {&self, &vec1, &vec2}, out, [&](autograd::BetaAlphaAttrs& at) {
    at.beta = beta;
    at.alpha = alpha;
  });
  return out;
}

Tensor addbmm(const Tensor& self, const Tensor& b1, const Tensor& b2, Scalar beta, Scalar alpha) {
  // PyTorch expands self to (batch1.size(1), batch2.size(2)) before any other check.
  if (b1.dim() >= 2 && b2.dim() >= 3) {
    autograd::AutoGradMode off(false);
    expand(self, {b1.sizes()[1], b2.sizes()[2]});
  }
  GT_CHECK(b1.dim() == 3, "batch1 must be a 3D tensor");
  GT_CHECK(b2.dim() == 3, "batch2 must be a 3D tensor");
  GT_CHECK(b1.sizes()[0] == b2.sizes()[0],
           "batch1 and batch2 must have same number of batches, got ", b1.sizes()[0], " and ",
           b2.sizes()[0]);
  GT_CHECK(b1.sizes()[2] == b2.sizes()[1], "Incompatible matrix sizes for bmm (", b1.sizes()[1],
           "x", b1.sizes()[2], " and ", b2.sizes()[1], "x", b2.sizes()[2], ")");
  Tensor out;
  {
    autograd::AutoGradMode off(false);
    Tensor prod = times(sum(bmm(b1, b2), {0}, false), alpha);
    out = plus_scaled_self(self, prod, beta);
  }
  record(OpKind::Addbmm, {&self, &b1, &b2}, out, [&](autograd::BetaAlphaAttrs& at) {
    at.beta = beta;
    at.alpha = alpha;
  });
  return out;
}

// ---- in-place forms ------------------------------------------------------------------------

namespace {

template <typename F>
Tensor value_of(const F& f) {
  autograd::AutoGradMode off(false);
  return f();
}

// The in-place products refuse a self of another shape than the product's (no broadcast).
void check_same_size(const Tensor& self, const Tensor& value) {
  GT_CHECK(self.sizes() == value.sizes(), "Bad in-place call: input tensor size ",
           shape_str(self.sizes()), " and output tensor size ", shape_str(value.sizes()),
           " should match");
}

void fill_beta_alpha(autograd::Attrs& at, Scalar beta, Scalar alpha) {
  auto& a = at.set<autograd::BetaAlphaAttrs>();
  a.beta = beta;
  a.alpha = alpha;
}

}  // namespace

Tensor inplace_addcmul(const Tensor& self, const Tensor& t1, const Tensor& t2, Scalar value) {
  Tensor v = value_of([&] { return addcmul(self, t1, t2, value); });
  return inplace_write("addcmul_", OpKind::Addcmul, {&self, &t1, &t2}, self, v,
                       [&](autograd::Attrs& at) { at.set<autograd::ValueAttrs>().value = value; });
}

Tensor inplace_addcdiv(const Tensor& self, const Tensor& t1, const Tensor& t2, Scalar value) {
  Tensor v = value_of([&] { return addcdiv(self, t1, t2, value); });
  return inplace_write("addcdiv_", OpKind::Addcdiv, {&self, &t1, &t2}, self, v,
                       [&](autograd::Attrs& at) { at.set<autograd::ValueAttrs>().value = value; });
}

Tensor inplace_addmm(const Tensor& self, const Tensor& a, const Tensor& b, Scalar beta,
                     Scalar alpha) {
  Tensor v = value_of([&] { return addmm(self, a, b, beta, alpha); });
  check_same_size(self, v);
  return inplace_write("addmm_", OpKind::Addmm, {&self, &a, &b}, self, v, [&](autograd::Attrs& at) {
    auto& m = at.set<autograd::AddmmAttrs>();
    m.beta = beta;
    m.alpha = alpha;
    m.mat1_strides = a.strides();
    m.mat2_strides = b.strides();
  });
}

Tensor inplace_baddbmm(const Tensor& self, const Tensor& b1, const Tensor& b2, Scalar beta,
                       Scalar alpha) {
  Tensor v = value_of([&] { return baddbmm(self, b1, b2, beta, alpha); });
  check_same_size(self, v);
  return inplace_write("baddbmm_", OpKind::Baddbmm, {&self, &b1, &b2}, self, v,
                       [&](autograd::Attrs& at) { fill_beta_alpha(at, beta, alpha); });
}

Tensor inplace_addbmm(const Tensor& self, const Tensor& b1, const Tensor& b2, Scalar beta,
                      Scalar alpha) {
  Tensor v = value_of([&] { return addbmm(self, b1, b2, beta, alpha); });
  return inplace_write("addbmm_", OpKind::Addbmm, {&self, &b1, &b2}, self, v,
                       [&](autograd::Attrs& at) { fill_beta_alpha(at, beta, alpha); });
}

Tensor inplace_addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, Scalar beta,
                     Scalar alpha) {
  Tensor v = value_of([&] { return addmv(self, mat, vec, beta, alpha); });
  check_same_size(self, v);
  return inplace_write("addmv_", OpKind::Addmv, {&self, &mat, &vec}, self, v,
                       [&](autograd::Attrs& at) { fill_beta_alpha(at, beta, alpha); });
}

Tensor inplace_addr(const Tensor& self, const Tensor& vec1, const Tensor& vec2, Scalar beta,
                    Scalar alpha) {
  GT_CHECK(self.dim() == 2, "2D tensor expected, got ", self.dim(), "D tensor for input");
  GT_CHECK(vec1.dim() != 1 || vec2.dim() != 1 ||
               (self.sizes()[0] == vec1.sizes()[0] && self.sizes()[1] == vec2.sizes()[0]),
           "size mismatch, input: ", shape_str(self.sizes()), ", v1: ", shape_str(vec1.sizes()),
           ", v2: ", shape_str(vec2.sizes()));
  Tensor v = value_of([&] { return addr(self, vec1, vec2, beta, alpha); });
  return inplace_write("addr_", OpKind::Addr, {&self, &vec1, &vec2}, self, v,
                       [&](autograd::Attrs& at) { fill_beta_alpha(at, beta, alpha); });
}

Tensor inplace_lerp(const Tensor& self, const Tensor& end, Scalar weight) {
  Tensor v = value_of([&] { return lerp(self, end, weight); });
  return inplace_write("lerp_", OpKind::LerpScalar, {&self, &end}, self, v,
                       [&](autograd::Attrs& at) { at.set<autograd::LerpAttrs>().weight = weight; });
}

Tensor inplace_lerp(const Tensor& self, const Tensor& end, const Tensor& weight) {
  Tensor v = value_of([&] { return lerp(self, end, weight); });
  return inplace_write("lerp_", OpKind::LerpTensor, {&self, &end, &weight}, self, v,
                       [](autograd::Attrs&) {});
}

Tensor inplace_nan_to_num(const Tensor& self, std::optional<double> nan,
                          std::optional<double> posinf, std::optional<double> neginf) {
  Tensor v = value_of([&] { return nan_to_num(self, nan, posinf, neginf); });
  return inplace_write("nan_to_num_", OpKind::NanToNum, {&self}, self, v, [](autograd::Attrs&) {});
}

// cumsum_ / cumprod_ accumulate in self's dtype unless `dtype` names another.
Tensor inplace_scan(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype,
                    bool is_prod) {
  GT_CHECK(!dtype || *dtype == self.dtype(), "Bad in-place call: input tensor dtype ",
           cpp_type_name(self.dtype()), " and output tensor dtype ", cpp_type_name(*dtype),
           " should match");
  const ScalarType dt = self.dtype();
  Tensor v = value_of([&] { return is_prod ? cumprod(self, dim, dt) : cumsum(self, dim, dt); });
  const int64_t d = wrap_dim(dim, self.dim());
  return inplace_write(is_prod ? "cumprod_" : "cumsum_", is_prod ? OpKind::Cumprod : OpKind::Cumsum,
                       {&self}, self, v,
                       [&](autograd::Attrs& at) { at.set<autograd::DimAttrs>().dim = d; });
}

}  // namespace gradtrack::ops
