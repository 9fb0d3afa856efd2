// The elementwise rows of the op list whose functions are written by hand
// because torch gives them checks of their own: heaviside, gcd, lcm and the
// shifts (integers only). Their kernels are kernels/pointwise_special.h.
#include <cmath>

#include "ops/common.h"

namespace gradtrack::ops {

using kernels::BinaryOp;

namespace {

Tensor run_tt(BinaryOp op, const Tensor& a, const Tensor& b, ScalarType dt) {
  Tensor out = empty_result(broadcast2(a, b), dt, a, b);
  kernels::binary(op, out, cast_for_kernel(a, dt), cast_for_kernel(b, dt), 1);
  return out;
}

// a op b with a number on one side; `scalar_first`: the number is the left operand.
Tensor run_ts(BinaryOp op, const Tensor& a, Scalar b, ScalarType dt, bool scalar_first) {
  Tensor out = empty_result(a.sizes(), dt, a);
  kernels::binary_scalar(op, out, cast_for_kernel(a, dt), b, 1, scalar_first);
  return out;
}

}  // namespace

void check_special_binary(BinaryOp op, ScalarType dt, ScalarType self, ScalarType other) {
  const char* name = op == BinaryOp::Gcd                 ? "gcd"
                     : op == BinaryOp::Lcm               ? "lcm"
                     : op == BinaryOp::BitwiseLeftShift  ? "lshift"
                     : op == BinaryOp::BitwiseRightShift ? "rshift"
                                                         : nullptr;
  if (name != nullptr)
    GT_CHECK_IMPL(is_integral(dt), "\"", name, "_cpu\" not implemented for '", scalar_type_name(dt),
                  "'");
  if (op == BinaryOp::Heaviside)
    GT_CHECK(self == other, "heaviside is not yet implemented for tensors with different dtypes.");
}

Tensor heaviside(const Tensor& a, const Tensor& values) {
  check_special_binary(BinaryOp::Heaviside, a.dtype(), a.dtype(), values.dtype());
  Tensor out = run_tt(BinaryOp::Heaviside, a, values, a.dtype());
  record(OpKind::Heaviside, {&a, &values}, out);
  return out;
}

namespace {
Tensor integer_binary(BinaryOp op, const Tensor& a, const Tensor& b) {
  ScalarType dt = result_type(a, b);
  check_special_binary(op, dt, a.dtype(), b.dtype());
  return run_tt(op, a, b, dt);
}
Tensor integer_binary(BinaryOp op, const Tensor& a, Scalar b, bool scalar_first) {
  ScalarType dt = result_type(a, b);
  check_special_binary(op, dt, a.dtype(), dt);
  return run_ts(op, a, b, dt, scalar_first);
}
}  // namespace

Tensor gcd(const Tensor& a, const Tensor& b) { return integer_binary(BinaryOp::Gcd, a, b); }
Tensor lcm(const Tensor& a, const Tensor& b) { return integer_binary(BinaryOp::Lcm, a, b); }
Tensor bitwise_left_shift(const Tensor& a, const Tensor& b) {
  return integer_binary(BinaryOp::BitwiseLeftShift, a, b);
}
Tensor bitwise_left_shift(const Tensor& a, Scalar b) {
  return integer_binary(BinaryOp::BitwiseLeftShift, a, b, false);
}
Tensor bitwise_left_shift(Scalar a, const Tensor& b) {
  return integer_binary(BinaryOp::BitwiseLeftShift, b, a, true);
}
Tensor bitwise_right_shift(const Tensor& a, const Tensor& b) {
  return integer_binary(BinaryOp::BitwiseRightShift, a, b);
}
Tensor bitwise_right_shift(const Tensor& a, Scalar b) {
  return integer_binary(BinaryOp::BitwiseRightShift, a, b, false);
}
Tensor bitwise_right_shift(Scalar a, const Tensor& b) {
  return integer_binary(BinaryOp::BitwiseRightShift, b, a, true);
}

// logit, with torch's eps (None: -1, which clamps nothing) as the kernel's number.
Tensor logit(const Tensor& a, std::optional<double> eps) {
  const double e = eps ? *eps : -1.0;
  Tensor out = run_ts(BinaryOp::Logit, a, Scalar(e), to_float_type(a.dtype()), false);
  record(OpKind::Logit, {&a}, out, [&](autograd::LogitAttrs& at) { at.eps = e; });
  return out;
}

Tensor mvlgamma(const Tensor& a, int64_t p) {
  GT_CHECK(p >= 1, "p has to be greater than or equal to 1");
  Tensor out = run_ts(BinaryOp::Mvlgamma, a, Scalar(p), to_float_type(a.dtype()), false);
  record(OpKind::Mvlgamma, {&a}, out, [&](autograd::MvlgammaAttrs& at) { at.p = p; });
  return out;
}

// torch's special.ndtr is (1 + erf(x / sqrt(2))) * 0.5, recorded op by op.
Tensor special_ndtr(const Tensor& a) {
  Tensor e = erf(mul_by_scalar(a, Scalar(M_SQRT1_2)));
  return mul_by_scalar(add_by_scalar(e, Scalar(int64_t(1))), Scalar(0.5));
}

namespace {
template <typename F>
Tensor value_without_grad(const F& f) {
  autograd::AutoGradMode off(false);
  return f();
}
}  // namespace

// The in-place forms write the out-of-place value (NOTE [In-place forms of
// composed ops] in inplace.cpp), after torch's dtype checks.
Tensor inplace_logit(const Tensor& self, std::optional<double> eps) {
  const ScalarType dt = to_float_type(self.dtype());
  GT_CHECK(can_cast(dt, self.dtype()), "result type ", scalar_type_name(dt),
           " can't be cast to the desired output type ", scalar_type_name(self.dtype()));
  Tensor v = value_without_grad([&] { return logit(self, eps); });
  const double e = eps ? *eps : -1.0;
  return inplace_write("logit_", OpKind::Logit, {&self}, self, v,
                       [&](autograd::Attrs& at) { at.set<autograd::LogitAttrs>().eps = e; });
}

Tensor inplace_mvlgamma(const Tensor& self, int64_t p) {
  // torch's message names the types the other way round (measured).
  GT_CHECK(is_floating(self.dtype()), "mvlgamma: result type ", scalar_type_name(self.dtype()),
           " can't be cast to the desired output type ",
           scalar_type_name(to_float_type(self.dtype())));
  Tensor v = value_without_grad([&] { return mvlgamma(self, p); });
  return inplace_write("mvlgamma_", OpKind::Mvlgamma, {&self}, self, v,
                       [&](autograd::Attrs& at) { at.set<autograd::MvlgammaAttrs>().p = p; });
}

}  // namespace gradtrack::ops
