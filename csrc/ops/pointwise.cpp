// Elementwise ops: promote, broadcast, run a kernel, record. The uniform rows
// of the op list get their functions here from the generated op_list.h.
#include <cmath>
#include <limits>

#include "autograd/profiling.h"
#include "ops/common.h"

namespace gradtrack::ops {

using kernels::BinaryOp;
using kernels::UnaryOp;

ScalarType result_type(const Tensor& a, const Tensor& b) {
  if (a.dtype() == b.dtype()) return a.dtype();
  ResultTypeState s;
  s.add_tensor(a.dtype(), a.dim() == 0);
  s.add_tensor(b.dtype(), b.dim() == 0);
  return s.result();
}

ScalarType result_type(const Tensor& a, Scalar b) {
  ResultTypeState s;
  s.add_tensor(a.dtype(), a.dim() == 0);
  s.add_number(b.kind());
  return s.result();
}

Tensor cast_for_kernel(const Tensor& t, ScalarType dtype) {
  if (t.dtype() == dtype) return t;
  Tensor out = empty(t.sizes(), dtype);
  kernels::copy(out, t);
  return out;
}

void check_alpha(ScalarType dtype, Scalar alpha) {
  GT_CHECK(!alpha.is_bool() || dtype == ScalarType::Bool,
           "Boolean alpha only supported for Boolean results.");
  GT_CHECK(is_floating(dtype) || !alpha.is_float(),
           "For integral input tensors, argument alpha must not be a floating point number.");
}

namespace {

// torch refuses alpha after it has broadcast the operands: a shape mismatch is
// reported first.
void check_alpha_after_shapes(const Tensor& a, const Tensor& b, ScalarType dtype, Scalar alpha) {
  if ((alpha.is_bool() && dtype != ScalarType::Bool) || (alpha.is_float() && !is_floating(dtype)))
    broadcast2(a, b);
  check_alpha(dtype, alpha);
}

}  // namespace

void check_sub_bool(ScalarType a, ScalarType b) {
  GT_CHECK(!(a == ScalarType::Bool && b == ScalarType::Bool),
           "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
           "`logical_xor()` operator instead.");
  GT_CHECK(a != ScalarType::Bool && b != ScalarType::Bool,
           "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying "
           "to invert a mask, use the `~` or `logical_not()` operator instead.");
}

namespace out_slot {
thread_local const Tensor* armed = nullptr;
}

OutSlot::OutSlot(const Tensor& out) : prev_(out_slot::armed), out_(&out) { out_slot::armed = &out; }

bool OutSlot::release() {
  if (!released_) {
    taken_ = out_slot::armed != out_;
    out_slot::armed = prev_;
    released_ = true;
  }
  return taken_;
}

OutSlot::~OutSlot() { release(); }

namespace {

Tensor run_binary(BinaryOp op, const Tensor& a, const Tensor& b, ScalarType compute,
                  ScalarType out_dtype, Scalar alpha = 1) {
  Tensor out = empty_result(broadcast2(a, b), out_dtype, a, b);
  kernels::binary(op, out, cast_for_kernel(a, compute), cast_for_kernel(b, compute), alpha);
  return out;
}

Tensor run_binary_scalar(BinaryOp op, const Tensor& a, Scalar b, ScalarType compute,
                         ScalarType out_dtype, Scalar alpha = 1, bool scalar_first = false) {
  Tensor out = empty_result(a.sizes(), out_dtype, a);
  kernels::binary_scalar(op, out, cast_for_kernel(a, compute), b, alpha, scalar_first);
  return out;
}

void check_int_div_by_zero(const Tensor& b) {
  GT_CHECK(!kernels::any_zero(b), "ZeroDivisionError");
}

BinaryOp div_kind(const std::string& mode) {
  if (mode.empty()) return BinaryOp::Div;
  if (mode == "trunc") return BinaryOp::TruncDiv;
  if (mode == "floor") return BinaryOp::FloorDivide;
  throw Error(
      str_cat("div expected rounding_mode to be one of None, 'trunc', or 'floor' but "
              "found '",
              mode, "'"));
}

}  // namespace

Tensor add(const Tensor& a, const Tensor& b, Scalar alpha) {
  ScalarType dt = result_type(a, b);
  check_alpha_after_shapes(a, b, dt, alpha);
  Tensor out = run_binary(BinaryOp::Add, a, b, dt, dt, alpha);
  record(OpKind::Add, {&a, &b}, out, [&](autograd::AlphaAttrs& at) { at.alpha = alpha; });
  return out;
}

Tensor add(const Tensor& a, Scalar b, Scalar alpha) {
  ScalarType dt = result_type(a, b);
  check_alpha(dt, alpha);
  // the kernel applies alpha in every dtype (NOTE [add and sub with alpha round once])
  Tensor out = run_binary_scalar(BinaryOp::Add, a, b, dt, dt, alpha);
  record(OpKind::AddScalar, {&a}, out, [&](autograd::AlphaAttrs& at) { at.alpha = alpha; });
  return out;
}

Tensor sub(const Tensor& a, const Tensor& b, Scalar alpha) {
  check_sub_bool(a.dtype(), b.dtype());
  ScalarType dt = result_type(a, b);
  check_alpha_after_shapes(a, b, dt, alpha);
  Tensor out = run_binary(BinaryOp::Sub, a, b, dt, dt, alpha);
  record(OpKind::Sub, {&a, &b}, out, [&](autograd::AlphaAttrs& at) { at.alpha = alpha; });
  return out;
}

Tensor sub(const Tensor& a, Scalar b, Scalar alpha) {
  check_sub_bool(a.dtype(), b.is_bool() ? ScalarType::Bool : ScalarType::Int64);
  ScalarType dt = result_type(a, b);
  check_alpha(dt, alpha);
  Tensor out = run_binary_scalar(BinaryOp::Sub, a, b, dt, dt, alpha);
  record(OpKind::SubScalar, {&a}, out, [&](autograd::AlphaAttrs& at) { at.alpha = alpha; });
  return out;
}

Tensor rsub(const Tensor& a, Scalar b, Scalar alpha) {
  check_sub_bool(a.dtype(), b.is_bool() ? ScalarType::Bool : ScalarType::Int64);
  ScalarType dt = result_type(a, b);
  check_alpha(dt, alpha);
  // b - alpha * a: the kernel computes f(scalar, a) = scalar - alpha * a.
  Tensor out = run_binary_scalar(BinaryOp::Sub, a, b, dt, dt, alpha, /*scalar_first=*/true);
  record(OpKind::RsubScalar, {&a}, out, [&](autograd::AlphaAttrs& at) { at.alpha = alpha; });
  return out;
}

Tensor rsub(const Tensor& a, const Tensor& b, Scalar alpha) {
  check_sub_bool(a.dtype(), b.dtype());
  ScalarType dt = result_type(a, b);
  check_alpha_after_shapes(b, a, dt, alpha);  // torch's rsub is sub(b, a)
  Tensor out = run_binary(BinaryOp::Sub, b, a, dt, dt, alpha);
  record(OpKind::Rsub, {&a, &b}, out, [&](autograd::AlphaAttrs& at) { at.alpha = alpha; });
  return out;
}

Tensor mul(const Tensor& a, const Tensor& b) {
  ScalarType dt = result_type(a, b);
  Tensor out = run_binary(BinaryOp::Mul, a, b, dt, dt);
  record(OpKind::Mul, {&a, &b}, out);
  return out;
}

Tensor mul(const Tensor& a, Scalar b) {
  ScalarType dt = result_type(a, b);
  Tensor out = run_binary_scalar(BinaryOp::Mul, a, b, dt, dt);
  record(OpKind::MulScalar, {&a}, out, [&](autograd::ScalarOperandAttrs& at) { at.other = b; });
  return out;
}

Tensor mul_by_scalar(const Tensor& a, Scalar b) {
  ScalarType dt = result_type(a, b);
  Tensor out = run_binary_scalar(BinaryOp::Mul, a, b, dt, dt);
  record(OpKind::MulByScalar, {&a}, out, [&](autograd::ScalarOperandAttrs& at) { at.other = b; });
  return out;
}

Tensor add_by_scalar(const Tensor& a, Scalar b) {
  ScalarType dt = result_type(a, b);
  Tensor out = run_binary_scalar(BinaryOp::Add, a, b, dt, dt);
  record(OpKind::AddByScalar, {&a}, out);
  return out;
}

Tensor sub_by_scalar(const Tensor& a, Scalar b) {
  ScalarType dt = result_type(a, b);
  Tensor out = run_binary_scalar(BinaryOp::Sub, a, b, dt, dt);
  record(OpKind::SubByScalar, {&a}, out);
  return out;
}

namespace {

Tensor div_no_record(const Tensor& a, const Tensor& b, BinaryOp op) {
  ScalarType dt = result_type(a, b);
  if (op == BinaryOp::Div) dt = to_float_type(dt);
  if (is_integral(dt) || dt == ScalarType::Bool) check_int_div_by_zero(b);
  return run_binary(op, a, b, dt, dt);
}

Tensor div_no_record(const Tensor& a, Scalar b, BinaryOp op) {
  ScalarType dt = result_type(a, b);
  if (op == BinaryOp::Div) dt = to_float_type(dt);
  GT_CHECK(!(is_integral(dt) && b.to_int() == 0 && !b.is_float()), "ZeroDivisionError");
  return run_binary_scalar(op, a, b, dt, dt);
}

}  // namespace

Tensor div(const Tensor& a, const Tensor& b, const std::string& rounding_mode) {
  BinaryOp op = div_kind(rounding_mode);
  Tensor out = div_no_record(a, b, op);
  record(op == BinaryOp::Div ? OpKind::Div : OpKind::DivRounding, {&a, &b}, out);
  return out;
}

Tensor div(const Tensor& a, Scalar b, const std::string& rounding_mode) {
  BinaryOp op = div_kind(rounding_mode);
  Tensor out = div_no_record(a, b, op);
  record(op == BinaryOp::Div ? OpKind::DivScalar : OpKind::DivRoundingScalar, {&a}, out,
         [&](autograd::ScalarOperandAttrs& at) { at.other = b; });
  return out;
}

Tensor div_by_scalar(const Tensor& a, Scalar b) {
  Tensor out = div_no_record(a, b, BinaryOp::Div);
  record(OpKind::DivByScalar, {&a}, out, [&](autograd::ScalarOperandAttrs& at) { at.other = b; });
  return out;
}

Tensor rdiv(const Tensor& a, Scalar b) { return mul(reciprocal(a), b); }

Tensor div_mode(const Tensor& a, const Tensor& b, const std::string& rounding_mode) {
  BinaryOp op = div_kind(rounding_mode);
  Tensor out = div_no_record(a, b, op);
  record(op == BinaryOp::Div ? OpKind::DivMode : OpKind::DivRounding, {&a, &b}, out);
  return out;
}

Tensor div_mode(const Tensor& a, Scalar b, const std::string& rounding_mode) {
  BinaryOp op = div_kind(rounding_mode);
  Tensor out = div_no_record(a, b, op);
  record(op == BinaryOp::Div ? OpKind::DivModeScalar : OpKind::DivRoundingScalar, {&a}, out,
         [&](autograd::ScalarOperandAttrs& at) { at.other = b; });
  return out;
}

// PyTorch's floor_divide has no derivative: its node raises when reached.
Tensor floor_divide(const Tensor& a, const Tensor& b) {
  Tensor out = div_no_record(a, b, BinaryOp::FloorDivide);
  record(OpKind::FloorDivide, {&a, &b}, out);
  return out;
}
Tensor floor_divide(const Tensor& a, Scalar b) {
  Tensor out = div_no_record(a, b, BinaryOp::FloorDivide);
  record(OpKind::FloorDivide, {&a}, out);
  return out;
}
Tensor rfloor_divide(const Tensor& a, Scalar b) {
  ScalarType dt = result_type(a, b);
  if (is_integral(dt)) check_int_div_by_zero(a);
  return run_binary_scalar(BinaryOp::FloorDivide, a, b, dt, dt, 1, true);
}

namespace {
// remainder and fmod: the same checks, another kernel and formula row.
Tensor modulo(BinaryOp op, OpKind kind, const Tensor& a, const Tensor& b) {
  ScalarType dt = result_type(a, b);
  if (is_integral(dt)) check_int_div_by_zero(b);
  Tensor out = run_binary(op, a, b, dt, dt);
  record(kind, {&a, &b}, out);
  return out;
}
Tensor modulo(BinaryOp op, OpKind kind, const Tensor& a, Scalar b) {
  ScalarType dt = result_type(a, b);
  GT_CHECK(!(is_integral(dt) && b.to_int() == 0 && !b.is_float()), "ZeroDivisionError");
  Tensor out = run_binary_scalar(op, a, b, dt, dt);
  record(kind, {&a}, out);
  return out;
}
}  // namespace

Tensor remainder(const Tensor& a, const Tensor& b) {
  return modulo(BinaryOp::Remainder, OpKind::Remainder, a, b);
}
Tensor remainder(const Tensor& a, Scalar b) {
  return modulo(BinaryOp::Remainder, OpKind::RemainderScalar, a, b);
}
Tensor fmod(const Tensor& a, const Tensor& b) { return modulo(BinaryOp::Fmod, OpKind::Fmod, a, b); }
Tensor fmod(const Tensor& a, Scalar b) { return modulo(BinaryOp::Fmod, OpKind::FmodScalar, a, b); }
Tensor rremainder(const Tensor& a, Scalar b) {
  ScalarType dt = result_type(a, b);
  if (is_integral(dt)) check_int_div_by_zero(a);
  return run_binary_scalar(BinaryOp::Remainder, a, b, dt, dt, 1, true);
}

Tensor pow(const Tensor& a, const Tensor& b) {
  ScalarType dt = result_type(a, b);
  Tensor out = run_binary(BinaryOp::Pow, a, b, dt, dt);
  record(OpKind::PowTensor, {&a, &b}, out);
  return out;
}

Tensor pow(const Tensor& a, Scalar exponent) {
  ScalarType dt = result_type(a, exponent);
  GT_CHECK(!(is_integral(dt) && !exponent.is_float() && exponent.to_int() < 0),
           "Integers to negative integer powers are not allowed.");
  // Float special exponents (x ** 2, x ** 0.5, ...): NOTE [Pow by a scalar].
  Tensor out = run_binary_scalar(BinaryOp::Pow, a, exponent, dt, dt);
  record(OpKind::PowScalar, {&a}, out, [&](autograd::PowAttrs& at) { at.exponent = exponent; });
  return out;
}

Tensor pow(Scalar base, const Tensor& exponent) {
  ScalarType dt = result_type(exponent, base);
  // A contiguous result whatever the exponent's layout, as PyTorch's pow(Scalar, Tensor).
  Tensor out = empty(exponent.sizes(), dt);
  kernels::binary_scalar(BinaryOp::Pow, out, cast_for_kernel(exponent, dt), base, 1,
                         /*scalar_first=*/true);
  record(OpKind::PowScalarBase, {&exponent}, out,
         [&](autograd::PowBaseAttrs& at) { at.base = base; });
  return out;
}

Tensor polygamma(int64_t n, const Tensor& a) {
  GT_CHECK(n >= 0, "polygamma(n, x) does not support negative n.");
  ScalarType dt = to_float_type(a.dtype());
  Tensor out = run_binary_scalar(BinaryOp::Polygamma, a, Scalar(n), dt, dt);
  record(OpKind::Polygamma, {&a}, out, [&](autograd::PolygammaAttrs& at) { at.n = n; });
  return out;
}

namespace {
// The dtype a binary row computes in: the promoted one under the row's rule.
ScalarType listed_dtype(const char* name, DtypeRule rule, ScalarType promoted) {
  if (rule == DtypeRule::Float) return to_float_type(promoted);
  if (rule == DtypeRule::Floating)
    GT_CHECK_IMPL(is_floating(promoted), "\"", name, "_cpu\" not implemented for '",
                  scalar_type_name(promoted), "'");
  return promoted;
}

// A binary row of the op list whose function is its row (NOTE [One
// declaration per op]): promote, apply the dtype rule, run, record.
Tensor listed_binary(BinaryOp op, const char* name, OpKind kind, DtypeRule rule, const Tensor& a,
                     const Tensor& b) {
  ScalarType dt = listed_dtype(name, rule, result_type(a, b));
  Tensor out = run_binary(op, a, b, dt, dt);
  record(kind, {&a, &b}, out);
  return out;
}

// Its number forms: `t op s`, or `s op t` when `number_first` (torch's
// Scalar_Self overload). The number promotes as a wrapped number does and is
// kept for the formulas (ScalarOperandAttrs); the node has t's edge alone.
Tensor listed_number(BinaryOp op, const char* name, OpKind kind, DtypeRule rule, const Tensor& t,
                     Scalar s, bool number_first) {
  ScalarType dt = listed_dtype(name, rule, result_type(t, s));
  Tensor out = run_binary_scalar(op, t, s, dt, dt, 1, number_first);
  record(kind, {&t}, out, [&](autograd::ScalarOperandAttrs& at) { at.other = s; });
  return out;
}
}  // namespace

#define GT_BINARY_DEFINE_Tensors(K, name, tkind, skind, self_kind, rule)            \
  Tensor name(const Tensor& a, const Tensor& b) {                                   \
    return listed_binary(BinaryOp::K, #name, OpKind::tkind, DtypeRule::rule, a, b); \
  }
#define GT_BINARY_DEFINE_NumberOther(K, name, tkind, skind, self_kind, rule)                    \
  GT_BINARY_DEFINE_Tensors(K, name, tkind, skind, self_kind, rule) Tensor name(const Tensor& a, \
                                                                               Scalar b) {      \
    return listed_number(BinaryOp::K, #name, OpKind::skind, DtypeRule::rule, a, b, false);      \
  }
#define GT_BINARY_DEFINE_NumberBoth(K, name, tkind, skind, self_kind, rule)                   \
  GT_BINARY_DEFINE_NumberOther(K, name, tkind, skind, self_kind, rule) Tensor name(           \
      Scalar a, const Tensor& b) {                                                            \
    return listed_number(BinaryOp::K, #name, OpKind::self_kind, DtypeRule::rule, b, a, true); \
  }
#define GT_BINARY_DEFINE(K, name, tkind, skind, self_kind, rule, form) \
  GT_BINARY_DEFINE_##form(K, name, tkind, skind, self_kind, rule)
GT_BINARY_OPS(GT_BINARY_DEFINE)
#undef GT_BINARY_DEFINE
#undef GT_BINARY_DEFINE_NumberBoth
#undef GT_BINARY_DEFINE_NumberOther
#undef GT_BINARY_DEFINE_Tensors

namespace {
// clamp_min / clamp_max with a number: clamp's kernel with one bound.
Tensor clamp_bound(OpKind kind, const Tensor& a, std::optional<Scalar> lo,
                   std::optional<Scalar> hi) {
  ResultTypeState s;
  s.add_tensor(a.dtype(), a.dim() == 0);
  s.add_number((lo ? *lo : *hi).kind());
  ScalarType dt = s.result();
  Tensor out = empty_result(a.sizes(), dt, a);
  kernels::clamp(out, cast_for_kernel(a, dt), lo, hi);
  record(kind, {&a}, out, [&](autograd::ClampAttrs& at) {
    at.min = lo;
    at.max = hi;
  });
  return out;
}
Tensor clamp_bound(OpKind kind, const Tensor& a, const Tensor* lo, const Tensor* hi) {
  const Tensor& bound = lo ? *lo : *hi;
  ScalarType dt = result_type(a, bound);
  Tensor out = empty_result(broadcast2(a, bound), dt, a, bound);
  Tensor bc = cast_for_kernel(bound, dt);
  kernels::clamp_tensor(out, cast_for_kernel(a, dt), lo ? &bc : nullptr, hi ? &bc : nullptr);
  record(kind, {&a, &bound}, out);
  return out;
}
}  // namespace

Tensor clamp_min(const Tensor& a, Scalar lo) {
  return clamp_bound(OpKind::ClampMin, a, lo, std::nullopt);
}
Tensor clamp_max(const Tensor& a, Scalar hi) {
  return clamp_bound(OpKind::ClampMax, a, std::nullopt, hi);
}
Tensor clamp_min(const Tensor& a, const Tensor& lo) {
  return clamp_bound(OpKind::ClampMinTensor, a, &lo, nullptr);
}
Tensor clamp_max(const Tensor& a, const Tensor& hi) {
  return clamp_bound(OpKind::ClampMaxTensor, a, nullptr, &hi);
}

namespace {
BinaryOp cmp_kind(Cmp op) {
  switch (op) {
    case Cmp::Eq: return BinaryOp::Eq;
    case Cmp::Ne: return BinaryOp::Ne;
    case Cmp::Lt: return BinaryOp::Lt;
    case Cmp::Le: return BinaryOp::Le;
    case Cmp::Gt: return BinaryOp::Gt;
    case Cmp::Ge: return BinaryOp::Ge;
  }
  return BinaryOp::Eq;
}
BinaryOp logic_kind(Logic op, bool bitwise) {
  switch (op) {
    case Logic::And: return bitwise ? BinaryOp::BitwiseAnd : BinaryOp::LogicalAnd;
    case Logic::Or: return bitwise ? BinaryOp::BitwiseOr : BinaryOp::LogicalOr;
    case Logic::Xor: return bitwise ? BinaryOp::BitwiseXor : BinaryOp::LogicalXor;
  }
  return BinaryOp::LogicalAnd;
}
}  // namespace

void check_bitwise_dtype(BinaryOp op, ScalarType dt) {
  const char* name = op == BinaryOp::BitwiseAnd   ? "bitwise_and"
                     : op == BinaryOp::BitwiseOr  ? "bitwise_or"
                     : op == BinaryOp::BitwiseXor ? "bitwise_xor"
                                                  : nullptr;
  if (!name) return;
  GT_CHECK_IMPL(!is_floating(dt), "\"", name, "_cpu\" not implemented for '", scalar_type_name(dt),
                "'");
}

Tensor compare(Cmp op, const Tensor& a, const Tensor& b) {
  return run_binary(cmp_kind(op), a, b, result_type(a, b), ScalarType::Bool);
}
Tensor compare(Cmp op, const Tensor& a, Scalar b) {
  return run_binary_scalar(cmp_kind(op), a, b, result_type(a, b), ScalarType::Bool);
}
Tensor logical(Logic op, const Tensor& a, const Tensor& b) {
  return run_binary(logic_kind(op, false), a, b, result_type(a, b), ScalarType::Bool);
}
Tensor logical_not(const Tensor& a) {
  Tensor out = empty_result(a.sizes(), ScalarType::Bool, a);
  kernels::unary(UnaryOp::LogicalNot, out, a);
  return out;
}
Tensor bitwise(Logic op, const Tensor& a, const Tensor& b) {
  ScalarType dt = result_type(a, b);
  check_bitwise_dtype(logic_kind(op, true), dt);
  return run_binary(logic_kind(op, true), a, b, dt, dt);
}
Tensor bitwise(Logic op, const Tensor& a, Scalar b) {
  ScalarType dt = result_type(a, b);
  check_bitwise_dtype(logic_kind(op, true), dt);
  return run_binary_scalar(logic_kind(op, true), a, b, dt, dt);
}
Tensor bitwise_not(const Tensor& a) {
  GT_CHECK_IMPL(!is_floating(a.dtype()), "\"bitwise_not_cpu\" not implemented for '",
                scalar_type_name(a.dtype()), "'");
  Tensor out = empty_result(a.sizes(), a.dtype(), a);
  kernels::unary(UnaryOp::BitwiseNot, out, a);
  return out;
}

namespace {

// Unary op keeping the dtype (neg, abs, relu, sign, rounding).
Tensor same_type_unary(UnaryOp op, OpKind kind, const Tensor& a) {
  Tensor out = empty_result(a.sizes(), a.dtype(), a);
  kernels::unary(op, out, a);
  record(kind, {&a}, out);
  return out;
}

// Unary op computing in floating point (integers become float32).
Tensor float_unary(UnaryOp op, OpKind kind, const Tensor& a) {
  ScalarType dt = to_float_type(a.dtype());
  Tensor out = empty_result(a.sizes(), dt, a);
  kernels::unary(op, out, cast_for_kernel(a, dt));
  record(kind, {&a}, out);
  return out;
}

}  // namespace

Tensor neg(const Tensor& a) {
  GT_CHECK(a.dtype() != ScalarType::Bool,
           "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
           "invert a mask, use the `~` or `logical_not()` operator instead.");
  return same_type_unary(UnaryOp::Neg, OpKind::Neg, a);
}
Tensor relu(const Tensor& a) {
  GT_CHECK_IMPL(a.dtype() != ScalarType::Bool,
                "\"clamp_min_scalar_cpu\" not implemented for 'Bool'");
  return same_type_unary(UnaryOp::Relu, OpKind::Relu, a);
}
Tensor frac(const Tensor& a) {
  GT_CHECK_IMPL(is_floating(a.dtype()), "\"frac_cpu\" not implemented for '",
                scalar_type_name(a.dtype()), "'");
  return same_type_unary(UnaryOp::Frac, OpKind::Frac, a);
}

// The uniform unary rows of the op list (NOTE [One declaration per op]); Custom
// rows are written by hand above and below.
#define GT_UNARY_DEFINE_Float(K, name, kind) \
  Tensor name(const Tensor& a) { return float_unary(UnaryOp::K, OpKind::kind, a); }
#define GT_UNARY_DEFINE_Same(K, name, kind) \
  Tensor name(const Tensor& a) { return same_type_unary(UnaryOp::K, OpKind::kind, a); }
#define GT_UNARY_DEFINE_Custom(K, name, kind)
#define GT_UNARY_DEFINE(K, name, kind, rule) GT_UNARY_DEFINE_##rule(K, name, kind)
GT_UNARY_OPS(GT_UNARY_DEFINE)
#undef GT_UNARY_DEFINE
#undef GT_UNARY_DEFINE_Custom
#undef GT_UNARY_DEFINE_Same
#undef GT_UNARY_DEFINE_Float

Tensor square(const Tensor& a) { return pow(a, Scalar(int64_t(2))); }
namespace {
Tensor predicate(UnaryOp op, const Tensor& a) {
  Tensor out = empty_result(a.sizes(), ScalarType::Bool, a);
  kernels::unary(op, out, a);
  return out;
}
}  // namespace

Tensor isnan(const Tensor& a) { return predicate(UnaryOp::Isnan, a); }
Tensor isinf(const Tensor& a) { return predicate(UnaryOp::Isinf, a); }
Tensor isposinf(const Tensor& a) { return predicate(UnaryOp::Isposinf, a); }
Tensor isneginf(const Tensor& a) { return predicate(UnaryOp::Isneginf, a); }
Tensor isfinite(const Tensor& a) { return predicate(UnaryOp::Isfinite, a); }
Tensor signbit(const Tensor& a) { return predicate(UnaryOp::Signbit, a); }

Tensor clamp(const Tensor& a, std::optional<Scalar> lo, std::optional<Scalar> hi) {
  GT_CHECK(lo || hi, "gradtrack.clamp: At least one of 'min' or 'max' must not be None");
  ResultTypeState s;
  s.add_tensor(a.dtype(), a.dim() == 0);
  if (lo) s.add_number(lo->kind());
  if (hi) s.add_number(hi->kind());
  ScalarType dt = s.result();
  Tensor out = empty_result(a.sizes(), dt, a);
  kernels::clamp(out, cast_for_kernel(a, dt), lo, hi);
  record(OpKind::Clamp, {&a}, out, [&](autograd::ClampAttrs& at) {
    at.min = lo;
    at.max = hi;
  });
  return out;
}

Tensor clamp(const Tensor& a, const Tensor* lo, const Tensor* hi) {
  GT_CHECK(lo || hi, "gradtrack.clamp: At least one of 'min' or 'max' must not be None");
  ScalarType dt = a.dtype();
  DimVector shape = a.sizes();
  if (lo) {
    dt = result_type(a, *lo);
    shape = broadcast_shapes(shape, lo->sizes());
  }
  if (hi) {
    ResultTypeState s;
    s.add_tensor(dt, shape.empty());
    s.add_tensor(hi->dtype(), hi->dim() == 0);
    dt = s.result();
    shape = broadcast_shapes(shape, hi->sizes());
  }
  Tensor out =
      lo && hi ? empty_result(shape, dt, a, *lo, *hi) : empty_result(shape, dt, a, lo ? *lo : *hi);
  Tensor lc = lo ? cast_for_kernel(*lo, dt) : Tensor(),
         hc = hi ? cast_for_kernel(*hi, dt) : Tensor();
  kernels::clamp_tensor(out, cast_for_kernel(a, dt), lo ? &lc : nullptr, hi ? &hc : nullptr);
  if (is_floating(dt)) {
    // The node always has three inputs; a missing bound is an infinite constant.
    const double inf = std::numeric_limits<double>::infinity();
    Tensor l = lo ? *lo : full({}, Scalar(-inf), dt);
    Tensor h = hi ? *hi : full({}, Scalar(inf), dt);
    record(OpKind::ClampTensor, {&a, &l, &h}, out);
  }
  return out;
}

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  GT_CHECK(cond.dtype() == ScalarType::Bool,
           "where expected condition to be a boolean tensor, but got a tensor with dtype ",
           scalar_type_name(cond.dtype()));
  ScalarType dt = result_type(a, b);
  // PyTorch broadcasts the operands in order: condition, input, other.
  DimVector shape = broadcast_shapes(broadcast_shapes(cond.sizes(), a.sizes()), b.sizes());
  Tensor out = empty_result(shape, dt, cond, a, b);
  kernels::where(out, cond, cast_for_kernel(a, dt), cast_for_kernel(b, dt));
  record(OpKind::Where, {&a, &b}, out, no_attrs, {&cond});
  return out;
}

Tensor threshold_backward(const Tensor& g, const Tensor& y) {
  autograd::profiling::Scope scope("aten::threshold_backward", {&g, &y}, 3);
  // Laid out like y, then g: PyTorch's kernel takes (self, grad) in that order.
  Tensor out = empty_result(broadcast2(g, y), g.dtype(), y, g);
  kernels::threshold_backward(out, g, y);
  // y is an input as in PyTorch (its gradient is zero), so a create_graph=True
  // gradient of relu is connected to relu's result.
  record(OpKind::ThresholdBackward, {&g, &y}, out);
  return out;
}

Tensor sigmoid_backward(const Tensor& g, const Tensor& y) {
  Tensor out = empty_result(broadcast2(g, y), y.dtype(), g, y);
  kernels::sigmoid_backward(out, g, y);
  record(OpKind::SigmoidBackward, {&g, &y}, out);
  return out;
}

Tensor tanh_backward(const Tensor& g, const Tensor& y) {
  Tensor out = empty_result(broadcast2(g, y), y.dtype(), g, y);
  kernels::tanh_backward(out, g, y);
  record(OpKind::TanhBackward, {&g, &y}, out);
  return out;
}

namespace {
// The largest finite value of a float dtype (nan_to_num's default for +inf).
double largest(ScalarType t) {
  switch (t) {
    case ScalarType::Float32: return double(std::numeric_limits<float>::max());
    case ScalarType::Float16: return 65504.0;
    case ScalarType::BFloat16: return 0x1.fep+127;
    default: return std::numeric_limits<double>::max();
  }
}
constexpr double kInf = std::numeric_limits<double>::infinity();
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
      if (a.dtype() == ScalarType::Float32 || a.dtype() == ScalarType::Float64) {
        // one pass (the three wheres below are six)
        const double with[3] = {nan.value_or(0.0), posinf.value_or(big), neginf.value_or(-big)};
        out = empty_result(a.sizes(), a.dtype(), a);
        kernels::nan_to_num(out, a, with);
      } else {
        auto fill = [&](double v) { return scalar_tensor(Scalar(v), a.dtype()); };
        out = where(isnan(a), fill(nan.value_or(0.0)), a);
        out = where(compare(Cmp::Eq, a, Scalar(kInf)), fill(posinf.value_or(big)), out);
        out = where(compare(Cmp::Eq, a, Scalar(-kInf)), fill(neginf.value_or(-big)), out);
      }
    }
  }
  record(OpKind::NanToNum, {&a}, out);
  return out;
}

namespace {
// PyTorch's lerp: self + w * (end - self) for |w| < 0.5, else end - (end - self) * (1 - w),
// which keeps lerp(a, b, 1) == b exactly; one kernel, rounded as torch's (kernels::lerp).
Tensor lerp_value(const Tensor& a, const Tensor& end, const Tensor& w) {
  const DimVector shape = broadcast_shapes(broadcast2(a, end), w.sizes());
  Tensor out = empty_result(shape, a.dtype(), a, end, w);
  kernels::lerp(out, a, end, w);
  return out;
}

}  // namespace
Tensor lerp(const Tensor& a, const Tensor& end, Scalar weight) {
  check_same_dtype(a, end, "end");
  GT_CHECK_IMPL(is_floating(a.dtype()), "\"lerp_kernel_scalar\" not implemented for '",
                scalar_type_name(a.dtype()), "'");
  Tensor out;
  {
    autograd::AutoGradMode off(false);
    // the weight in the type the kernel computes in (float32 for the reduced floats)
    const ScalarType wt = is_reduced_float(a.dtype()) ? ScalarType::Float32 : a.dtype();
    out = lerp_value(a, end, scalar_tensor(weight, wt));
  }
  record(OpKind::LerpScalar, {&a, &end}, out, [&](autograd::LerpAttrs& at) { at.weight = weight; });
  return out;
}
Tensor lerp(const Tensor& a, const Tensor& end, const Tensor& weight) {
  check_same_dtype(a, end, "end");
  // a 0-dim weight may have any dtype, as torch's: it is read in the input's, and the
  // node's edge goes to the weight itself
  if (weight.dim() != 0) check_same_dtype(a, weight, "weight");
  GT_CHECK_IMPL(is_floating(a.dtype()), "\"lerp_kernel_tensor\" not implemented for '",
                scalar_type_name(a.dtype()), "'");
  Tensor out;
  {
    autograd::AutoGradMode off(false);
    out = lerp_value(a, end, weight.dtype() == a.dtype() ? weight : to_dtype(weight, a.dtype()));
  }
  record(OpKind::LerpTensor, {&a, &end, &weight}, out);
  return out;
}

}  // namespace gradtrack::ops
