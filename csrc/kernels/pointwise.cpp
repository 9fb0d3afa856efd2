// Pointwise kernels: one functor per function of the op list, run by the loops in
// loops.h (clamp and where are in clamp_where.cpp).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/pointwise.h"
#include "kernels/loops.h"
#include "kernels/pointwise_special.h"
#include "kernels/reduced_float.h"
#include "kernels/add_with_alpha.h"
#include "kernels/bfloat16_binary.h"
#include "kernels/element_ops.h"
#include "kernels/simd.h"
#include "kernels/simd_log_exp.h"
#include "kernels/simd_hyperbolic.h"
#include "kernels/simd_math.h"
#include "kernels/simd_trig.h"
#include "kernels/special_math.h"

namespace gradtrack::kernels {

namespace {

// NOTE [Integer division by -1]
// MIN / -1 overflows and traps (SIGFPE) on x86; PyTorch's results wrap
// (MIN // -1 == MIN, MIN % -1 == 0). Negating in unsigned arithmetic gives the
// wrapped quotient for every a; the branch is predictable and costs nothing
// next to the division it guards.
template <typename T>
constexpr bool is_signed_int_v =
    std::is_integral_v<T> && std::is_signed_v<T> && !std::is_same_v<T, bool>;

template <typename T>
T wrapping_neg(T a) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(U(0) - static_cast<U>(a));
}

template <typename T>
T trunc_div(T a, T b) {
  if constexpr (is_signed_int_v<T>) {
    if (b == T(-1)) return wrapping_neg(a);
  }
  return a / b;
}

template <typename T>
T floor_div(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (b == 0) return a / b;
    // The quotient comes from fmod so that q * b + r == a holds where it can;
    // a NaN remainder (an infinite dividend) makes the quotient NaN, as in
    // PyTorch, rather than floor(inf / b).
    T r = std::fmod(a, b);
    T d = (a - r) / b;
    if (r != 0 && ((b < 0) != (r < 0))) d -= 1;
    // A zero quotient keeps the sign of the true quotient (-0.0 // 2 is -0.0).
    if (d == 0) return std::copysign(T(0), a / b);
    // (a - r) / b can land just below an integer: round it back up.
    T q = std::floor(d);
    return d - q > T(0.5) ? q + 1 : q;
  } else {
    if constexpr (is_signed_int_v<T>) {
      if (b == T(-1)) return wrapping_neg(a);
    }
    T q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
  }
}

template <typename T>
T remainder(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    T r = std::fmod(a, b);
    if (r != 0 && ((b < 0) != (r < 0))) r += b;
    return r;
  } else {
    if constexpr (is_signed_int_v<T>) {
      if (b == T(-1)) return 0;  // see NOTE [Integer division by -1]
    }
    T r = a % b;
    if (r != 0 && ((b < 0) != (r < 0))) r += b;
    return r;
  }
}

template <typename T>
T int_pow(T base, T exp) {
  if constexpr (std::is_same_v<T, bool>) {
    return exp ? base : true;
  } else {
    if (exp < 0) {
      if (base == 1) return 1;
      if (base == static_cast<T>(-1)) return (exp % 2) ? static_cast<T>(-1) : 1;
      return 0;
    }
    T result = 1;
    while (exp) {
      if (exp & 1) result *= base;
      base *= base;
      exp >>= 1;
    }
    return result;
  }
}

// Float add, sub (alpha 1), mul, div, maximum and minimum: runs where the output and
// each input are dense or an input is one value go to the cloned vector loops (NOTE
// [SIMD clones]); every other run takes binary_loop's loops. True if handled.
template <typename T>
bool float_dense_binary(BinaryOp op, const LoopPlan& p, Scalar alpha_s) {
  if constexpr (!std::is_same_v<T, float> && !std::is_same_v<T, double>) {
    return false;
  } else {
    simd::DenseOp d;
    switch (op) {
      case BinaryOp::Add:
      case BinaryOp::Sub:
        if (!alpha_s.equals(1)) return false;
        d = op == BinaryOp::Add ? simd::DenseOp::Add : simd::DenseOp::Sub;
        break;
      case BinaryOp::Mul: d = simd::DenseOp::Mul; break;
      case BinaryOp::Div: d = simd::DenseOp::Div; break;
      case BinaryOp::Maximum: d = simd::DenseOp::Maximum; break;
      case BinaryOp::Minimum: d = simd::DenseOp::Minimum; break;
      default: return false;
    }
    auto f = [d](T a, T b) -> T {
      switch (d) {
        case simd::DenseOp::Add: return a + b;
        case simd::DenseOp::Sub: return a - b;
        case simd::DenseOp::Mul: return a * b;
        case simd::DenseOp::Div: return a / b;
        case simd::DenseOp::Maximum: return max_nan(a, b);
        case simd::DenseOp::Minimum: return min_nan(a, b);
      }
      return a;
    };
    constexpr int64_t w = int64_t(sizeof(T));
    run_plan(p, [&](char** ptr, const int64_t* s, int64_t n) {
      if (s[0] == w && (s[1] == w || s[1] == 0) && (s[2] == w || s[2] == 0) &&
          aligned_for<T>(ptr[0]) && aligned_for<T>(ptr[1]) && aligned_for<T>(ptr[2]))
        return simd::dense_binary(d, reinterpret_cast<const T*>(ptr[1]), s[1] / w,
                                  reinterpret_cast<const T*>(ptr[2]), s[2] / w,
                                  reinterpret_cast<T*>(ptr[0]), n);
      binary_run<T, T, T>(ptr, s, n, f);
    });
    return true;
  }
}

// a + alpha * b rounded once (NOTE [add and sub with alpha round once] in
// add_with_alpha.h).
template <typename T>
void fused_add_scaled(const LoopPlan& p, T alpha) {
  run_plan(p, [&](char** ptr, const int64_t* s, int64_t n) {
    if (aligned_for<T>(ptr[0]) && aligned_for<T>(ptr[1]) && aligned_for<T>(ptr[2]))
      return simd::add_scaled(ptr, s, n, alpha);
    // unaligned NumPy memory: binary_run's loads and stores by memcpy
    binary_run<T, T, T>(ptr, s, n, [alpha](T a, T b) -> T { return std::fma(alpha, b, a); });
  });
}

template <typename T>
void arith(BinaryOp op, const LoopPlan& p, Scalar alpha_s) {
  if (float_dense_binary<T>(op, p, alpha_s)) return;
  const T alpha = alpha_s.to<T>();
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    if ((op == BinaryOp::Add || op == BinaryOp::Sub) && !alpha_s.equals(1))
      return fused_add_scaled<T>(p, op == BinaryOp::Add ? alpha : -alpha);
  }
  switch (op) {
    case BinaryOp::Add:
      if (alpha_s.equals(1)) return binary_loop<T, T, T>(p, [](T a, T b) -> T { return a + b; });
      return binary_loop<T, T, T>(
          p, [alpha](T a, T b) -> T { return add_scaled_int<false>(a, alpha, b); });
    case BinaryOp::Sub:
      if (alpha_s.equals(1)) return binary_loop<T, T, T>(p, [](T a, T b) -> T { return a - b; });
      return binary_loop<T, T, T>(
          p, [alpha](T a, T b) -> T { return add_scaled_int<true>(a, alpha, b); });
    case BinaryOp::Mul: return binary_loop<T, T, T>(p, [](T a, T b) -> T { return a * b; });
    case BinaryOp::Div: return binary_loop<T, T, T>(p, [](T a, T b) -> T { return a / b; });
    case BinaryOp::FloorDivide:
      return binary_loop<T, T, T>(p, [](T a, T b) -> T { return floor_div(a, b); });
    case BinaryOp::TruncDiv:
      if constexpr (std::is_floating_point_v<T>) {
        return binary_loop<T, T, T>(p, [](T a, T b) -> T { return std::trunc(a / b); });
      } else {
        return binary_loop<T, T, T>(p, [](T a, T b) -> T { return trunc_div(a, b); });
      }
    case BinaryOp::Remainder:
      return binary_loop<T, T, T>(p, [](T a, T b) -> T { return remainder(a, b); });
    case BinaryOp::Pow:
      if constexpr (std::is_floating_point_v<T>) {
        return binary_loop<T, T, T>(p, [](T a, T b) -> T { return std::pow(a, b); });
      } else {
        return binary_loop<T, T, T>(p, [](T a, T b) -> T { return int_pow(a, b); });
      }
    case BinaryOp::Fmod:
      if constexpr (std::is_floating_point_v<T>) {
        return binary_loop<T, T, T>(p, [](T a, T b) -> T { return std::fmod(a, b); });
      } else {
        return binary_loop<T, T, T>(p, [](T a, T b) -> T { return static_cast<T>(a % b); });
      }
    case BinaryOp::Atan2:
      if constexpr (std::is_floating_point_v<T>) {
        return binary_loop<T, T, T>(p, [](T a, T b) -> T { return std::atan2(a, b); });
      }
      break;
    case BinaryOp::Hypot:
      if constexpr (std::is_floating_point_v<T>) {
        return binary_loop<T, T, T>(p, [](T a, T b) -> T { return std::hypot(a, b); });
      }
      break;
    case BinaryOp::Maximum:
      return binary_loop<T, T, T>(p, [](T a, T b) -> T { return max_nan(a, b); });
    case BinaryOp::Fmax:
      if constexpr (std::is_floating_point_v<T>) {
        return binary_loop<T, T, T>(p, [](T a, T b) -> T { return std::fmax(a, b); });
      } else {
        return binary_loop<T, T, T>(p, [](T a, T b) -> T { return a > b ? a : b; });
      }
    case BinaryOp::Fmin:
      if constexpr (std::is_floating_point_v<T>) {
        return binary_loop<T, T, T>(p, [](T a, T b) -> T { return std::fmin(a, b); });
      } else {
        return binary_loop<T, T, T>(p, [](T a, T b) -> T { return a < b ? a : b; });
      }
    case BinaryOp::Logaddexp:
    case BinaryOp::Logaddexp2:
      if constexpr (std::is_floating_point_v<T>) {
        // Equal infinities give themselves (inf - inf would be NaN).
        if (op == BinaryOp::Logaddexp)
          return binary_loop<T, T, T>(p, [](T a, T b) -> T {
            if (std::isinf(a) && a == b) return a;
            return std::max(a, b) + std::log1p(std::exp(-std::fabs(a - b)));
          });
        return binary_loop<T, T, T>(p, [](T a, T b) -> T {
          if (std::isinf(a) && a == b) return a;
          return std::max(a, b) + std::log1p(std::exp2(-std::fabs(a - b))) * T(1.0 / M_LN2);
        });
      }
      break;
    case BinaryOp::Polygamma:  // a: the input, b: the order n
      if constexpr (std::is_floating_point_v<T>) {
        return binary_loop<T, T, T>(p, [](T a, T b) -> T { return T(special::polygamma(b, a)); });
      }
      break;
    case BinaryOp::Minimum:
      return binary_loop<T, T, T>(p, [](T a, T b) -> T { return min_nan(a, b); });
    case BinaryOp::Xlogy:
    case BinaryOp::SpecialXlog1py:
    case BinaryOp::Logit:
    case BinaryOp::Mvlgamma:
    case BinaryOp::SpecialZeta:
    case BinaryOp::Igamma:
    case BinaryOp::Igammac:
    case BinaryOp::Copysign:
    case BinaryOp::Nextafter:
    case BinaryOp::Ldexp:
    case BinaryOp::Heaviside:
    case BinaryOp::Gcd:
    case BinaryOp::Lcm:
    case BinaryOp::BitwiseLeftShift:
    case BinaryOp::BitwiseRightShift:
      if (special_binary::run<T>(op, p)) return;
      break;
    case BinaryOp::LogicalAnd:
    case BinaryOp::LogicalOr:
    case BinaryOp::LogicalXor:
    case BinaryOp::Eq:
    case BinaryOp::Ne:
    case BinaryOp::Lt:
    case BinaryOp::Le:
    case BinaryOp::Gt:
    case BinaryOp::Ge: break;
    case BinaryOp::BitwiseAnd:
    case BinaryOp::BitwiseOr:
    case BinaryOp::BitwiseXor:
      if constexpr (std::is_integral_v<T>) {
        if (op == BinaryOp::BitwiseAnd)
          return binary_loop<T, T, T>(p, [](T a, T b) -> T { return a & b; });
        if (op == BinaryOp::BitwiseOr)
          return binary_loop<T, T, T>(p, [](T a, T b) -> T { return a | b; });
        return binary_loop<T, T, T>(p, [](T a, T b) -> T { return a ^ b; });
      }
      break;
  }
  throw Error("gradtrack: unsupported binary kernel");
}

template <typename T>
void compare(BinaryOp op, const LoopPlan& p) {
  switch (op) {
    case BinaryOp::Eq: return binary_loop<bool, T, T>(p, [](T a, T b) { return a == b; });
    case BinaryOp::Ne: return binary_loop<bool, T, T>(p, [](T a, T b) { return a != b; });
    case BinaryOp::Lt: return binary_loop<bool, T, T>(p, [](T a, T b) { return a < b; });
    case BinaryOp::Le: return binary_loop<bool, T, T>(p, [](T a, T b) { return a <= b; });
    case BinaryOp::Gt: return binary_loop<bool, T, T>(p, [](T a, T b) { return a > b; });
    case BinaryOp::Ge: return binary_loop<bool, T, T>(p, [](T a, T b) { return a >= b; });
    case BinaryOp::LogicalAnd:
      return binary_loop<bool, T, T>(p, [](T a, T b) { return a != T(0) && b != T(0); });
    case BinaryOp::LogicalOr:
      return binary_loop<bool, T, T>(p, [](T a, T b) { return a != T(0) || b != T(0); });
    case BinaryOp::LogicalXor:
      return binary_loop<bool, T, T>(p, [](T a, T b) { return (a != T(0)) != (b != T(0)); });
    default: throw Error("gradtrack: not a comparison");
  }
}

template <typename T>
void run_binary(BinaryOp op, const LoopPlan& p, Scalar alpha) {
  if (is_comparison(op)) return compare<T>(op, p);
  if constexpr (std::is_same_v<T, bool>) {
    if (op == BinaryOp::Heaviside) {
      special_binary::run<T>(op, p);
      return;
    }
    // bool arithmetic happens as logical ops (True + True is True in PyTorch).
    switch (op) {
      case BinaryOp::Add:
        // a + alpha * b: alpha false leaves a (NOTE [add and sub with alpha round once])
        if (!alpha.to<bool>())
          return binary_loop<bool, bool, bool>(p, [](bool a, bool) { return a; });
        [[fallthrough]];
      case BinaryOp::BitwiseOr:
      case BinaryOp::Maximum:
      case BinaryOp::Fmax:
        return binary_loop<bool, bool, bool>(p, [](bool a, bool b) { return a || b; });
      case BinaryOp::Mul:
      case BinaryOp::BitwiseAnd:
      case BinaryOp::Minimum:
      case BinaryOp::Fmin:
        return binary_loop<bool, bool, bool>(p, [](bool a, bool b) { return a && b; });
      case BinaryOp::BitwiseXor:
        return binary_loop<bool, bool, bool>(p, [](bool a, bool b) { return a != b; });
      case BinaryOp::Pow:
        return binary_loop<bool, bool, bool>(p, [](bool a, bool b) { return a || !b; });
      default: throw Error("gradtrack: unsupported bool kernel");
    }
  } else {
    arith<T>(op, p, alpha);
  }
}

}  // namespace

bool is_comparison(BinaryOp op) {
  switch (op) {
    case BinaryOp::Eq:
    case BinaryOp::Ne:
    case BinaryOp::Lt:
    case BinaryOp::Le:
    case BinaryOp::Gt:
    case BinaryOp::Ge:
    case BinaryOp::LogicalAnd:
    case BinaryOp::LogicalOr:
    case BinaryOp::LogicalXor: return true;
    default: return false;
  }
}

namespace {

// One float or double element each, alpha 1: the op itself, without a loop
// plan (planning was a tenth of a 1-element a + b). IEEE + - * /
// round the same here as in the loops. Both inputs are read before the write
// (out may be one of them). True if handled.
template <typename T>
bool one_element_binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  const T x = load<T>(a.raw()), y = load<T>(b.raw());
  switch (op) {
    case BinaryOp::Add: store<T>(out.raw(), x + y); return true;
    case BinaryOp::Sub: store<T>(out.raw(), x - y); return true;
    case BinaryOp::Mul: store<T>(out.raw(), x * y); return true;
    case BinaryOp::Div: store<T>(out.raw(), x / y); return true;
    default: return false;
  }
}

bool one_element(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, Scalar alpha) {
  if (out.numel() != 1 || a.numel() != 1 || b.numel() != 1 || !alpha.equals(1)) return false;
  const ScalarType t = out.dtype();
  if (a.dtype() != t || b.dtype() != t) return false;
  if (t == ScalarType::Float32) return one_element_binary<float>(op, out, a, b);
  if (t == ScalarType::Float64) return one_element_binary<double>(op, out, a, b);
  return false;
}

}  // namespace

void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, Scalar alpha) {
  check_alpha_fits(op, alpha, a.dtype());
  if (one_element(op, out, a, b, alpha)) return;
  if (op == BinaryOp::Nextafter && is_reduced_float(out.dtype())) {
    const bool half = out.dtype() == ScalarType::Float16;  // NOTE [nextafter of a 16-bit float]
    return binary_loop<uint16_t, uint16_t, uint16_t>(
        make_plan(out, {a, b}),
        [half](uint16_t x, uint16_t y) { return special_binary::nextafter_bits16(x, y, half); });
  }
  if (any_reduced({&out, &a, &b})) {  // NOTE [Reduced floats are stored, not computed]
    if (alpha.equals(1) && binary_bfloat16(op, out, a, b)) return;
    // alpha is rounded to the dtype (NOTE [add and sub with alpha round once]).
    WideOut w(out);
    binary(op, w.t, widen(a), widen(b), alpha.equals(1) ? alpha : round_scalar(alpha, a.dtype()));
    return w.commit();
  }
  LoopPlan p = make_plan(out, {a, b});
  GT_DISPATCH_ALL(a.dtype(), [&] { run_binary<scalar_t>(op, p, alpha); });
}

namespace {

// NOTE [Pow by a scalar]
// PyTorch does not call pow() for the common float exponents: 0 and 1 are a
// fill and a copy, +-0.5 and -1 are sqrt, 1/sqrt and 1/x, 2, 3 and -2 are
// products. Besides speed this decides values at signed zeros and infinities
// (pow(-inf, 0.5) is +inf, sqrt(-inf) is NaN; pow(-0.0, -0.5) is +inf,
// 1/sqrt(-0.0) is -inf), so every pow-by-scalar path goes through here.
bool pow_special_exponent(const Tensor& out, const Tensor& a, Scalar e) {
  if (!is_floating(a.dtype())) return false;
  int which = e.equals(0)      ? 0
              : e.equals(1)    ? 1
              : e.equals(0.5)  ? 2
              : e.equals(-0.5) ? 3
              : e.equals(-1)   ? 4
              : e.equals(2)    ? 5
              : e.equals(3)    ? 6
              : e.equals(-2)   ? 7
                               : -1;
  if (which < 0) return false;
  GT_DISPATCH_FLOAT(a.dtype(), "pow", [&] {
    using T = scalar_t;
    LoopPlan p = make_plan(out, {a});
    switch (which) {
      case 0: return unary_loop<T, T>(p, [](T) { return T(1); });
      case 1: return unary_loop<T, T>(p, [](T x) { return x; });
      case 2: return unary_loop<T, T>(p, [](T x) { return std::sqrt(x); });
      case 3: return unary_loop<T, T>(p, [](T x) { return T(1) / std::sqrt(x); });
      case 4: return unary_loop<T, T>(p, [](T x) { return T(1) / x; });
      case 5: return unary_loop<T, T>(p, [](T x) { return x * x; });
      case 6: return unary_loop<T, T>(p, [](T x) { return x * x * x; });
      default: return unary_loop<T, T>(p, [](T x) { return T(1) / (x * x); });
    }
  });
  return true;
}

}  // namespace

void binary_scalar(BinaryOp op, const Tensor& out, const Tensor& a, Scalar b, Scalar alpha,
                   bool scalar_first) {
  check_alpha_fits(op, alpha, a.dtype());
  if (any_reduced({&out, &a})) {
    // PyTorch reads the number as float32 for mul and div of a reduced float
    // (opmath); every other kernel, add and sub included, sees it cast to
    // the dtype first (measured), and alpha too (NOTE [add and sub with alpha
    // round once]).
    const bool opmath = op == BinaryOp::Mul || op == BinaryOp::Div;
    WideOut w(out);
    binary_scalar(op, w.t, widen(a), opmath ? b : round_scalar(b, a.dtype()),
                  alpha.equals(1) ? alpha : round_scalar(alpha, a.dtype()), scalar_first);
    return w.commit();
  }
  if (op == BinaryOp::Pow && !scalar_first && pow_special_exponent(out, a, b)) return;
  GT_DISPATCH_ALL(a.dtype(), [&] {
    const scalar_t value = b.to<scalar_t>();
    LoopPlan p =
        scalar_first ? make_plan(out, {Operand(&value), a}) : make_plan(out, {a, Operand(&value)});
    run_binary<scalar_t>(op, p, alpha);
  });
}

bool any_zero(const Tensor& t) {
  if (is_reduced_float(t.dtype())) return any_zero(widen(t));
  std::atomic<bool> found{false};
  // `t` takes the output slot of the plan; the loop only reads it.
  LoopPlan p = make_plan(t, {});
  GT_DISPATCH_ALL(t.dtype(), [&] {
    run_plan(p, [&found](char** ptr, const int64_t* s, int64_t n) {
      for (int64_t i = 0; i < n; ++i)
        if (load<scalar_t>(ptr[0] + i * s[0]) == scalar_t(0))
          found.store(true, std::memory_order_relaxed);
    });
  });
  return found.load();
}

namespace {

// erfinv: Winitzki's closed-form estimate (error ~2e-3), then Newton steps on
// erf(y) - x, each squaring the error: three reach double precision.
double erfinv_of(double x) {
  if (std::isnan(x) || x < -1.0 || x > 1.0) return std::numeric_limits<double>::quiet_NaN();
  if (x == 1.0 || x == -1.0) return std::copysign(std::numeric_limits<double>::infinity(), x);
  if (x == 0.0) return x;
  constexpr double a = 0.147, two_over_pi_a = 2.0 / (M_PI * a);
  const double ln = std::log1p(-x * x);
  const double t = two_over_pi_a + ln / 2.0;
  double y = std::copysign(std::sqrt(std::sqrt(t * t - ln / a) - t), x);
  const double k = 2.0 / std::sqrt(M_PI);
  for (int i = 0; i < 4; ++i) {
    const double slope = k * std::exp(-y * y);
    if (slope == 0.0) break;
    y -= (std::erf(y) - x) / slope;
  }
  return y;
}

// floor, ceil, trunc and round in the cloned loops, whose instruction sets round in one
// instruction (the baseline's SSE2 calls libm per element).
template <typename T>
auto to_integral_kernel(simd::ToIntegral mode) {
  return [mode](const T* in, T* out, int64_t n) { simd::to_integral(mode, in, out, n); };
}

// NOTE [Float32 through double libm]
// glibc's float erfcf is up to 2.65 ulp from the exact value (every 257th float against
// float64, Xeon), where torch's kernel stays within 0.78. So float32 takes the double
// erfc, rounded once: within 0.5 ulp but for results a hair from a midpoint, at about
// the float function's cost per element. (tan, sinh, cosh, atanh, atan, asin and acos,
// 0.82-1.7 ulp in glibc's float, have vector loops in double: simd_trig.h,
// simd_hyperbolic.h.)
template <typename T>
void float_unary(UnaryOp op, const LoopPlan& p) {
  switch (op) {
    case UnaryOp::Exp:
      if constexpr (std::is_same_v<T, float>) return unary_loop_vectored<float>(p, simd::exp);
      return unary_loop<T, T>(p, [](T x) { return std::exp(x); });
    case UnaryOp::Log:
      if constexpr (std::is_same_v<T, float>) return unary_loop_vectored<float>(p, simd::log);
      return unary_loop<T, T>(p, [](T x) { return std::log(x); });
    case UnaryOp::Sqrt: return unary_loop<T, T>(p, [](T x) { return std::sqrt(x); });
    case UnaryOp::Rsqrt: return unary_loop<T, T>(p, [](T x) { return T(1) / std::sqrt(x); });
    case UnaryOp::Sin:
      if constexpr (std::is_same_v<T, float>) return unary_loop_vectored<float>(p, simd::sin);
      return unary_loop<T, T>(p, [](T x) { return std::sin(x); });
    case UnaryOp::Cos:
      if constexpr (std::is_same_v<T, float>) return unary_loop_vectored<float>(p, simd::cos);
      return unary_loop<T, T>(p, [](T x) { return std::cos(x); });
    case UnaryOp::Tanh:
      if constexpr (std::is_same_v<T, float>) return unary_loop_vectored<float>(p, simd::tanh);
      return unary_loop<T, T>(p, [](T x) { return std::tanh(x); });
    case UnaryOp::Sigmoid:
      if constexpr (std::is_same_v<T, float>) return unary_loop_vectored<float>(p, simd::sigmoid);
      return unary_loop<T, T>(p, [](T x) { return T(1) / (T(1) + std::exp(-x)); });
    case UnaryOp::Reciprocal: return unary_loop<T, T>(p, [](T x) { return T(1) / x; });
    case UnaryOp::Log1p:
      if constexpr (std::is_same_v<T, float>) return unary_loop_vectored<float>(p, simd::log1p);
      return unary_loop<T, T>(p, [](T x) { return std::log1p(x); });
    case UnaryOp::Expm1:
      if constexpr (std::is_same_v<T, float>) return unary_loop_vectored<float>(p, simd::expm1);
      return unary_loop<T, T>(p, [](T x) { return std::expm1(x); });
    case UnaryOp::Floor:
      return unary_loop_vectored<T>(p, to_integral_kernel<T>(simd::ToIntegral::Floor));
    case UnaryOp::Ceil:
      return unary_loop_vectored<T>(p, to_integral_kernel<T>(simd::ToIntegral::Ceil));
    case UnaryOp::Round:
      return unary_loop_vectored<T>(p, to_integral_kernel<T>(simd::ToIntegral::Nearest));
    case UnaryOp::Trunc:
      return unary_loop_vectored<T>(p, to_integral_kernel<T>(simd::ToIntegral::Trunc));
    case UnaryOp::Tan:
      if constexpr (std::is_same_v<T, float>) return unary_loop_vectored<float>(p, simd::tan);
      return unary_loop<T, T>(p, [](T x) { return std::tan(x); });
    case UnaryOp::Asin:
      if constexpr (std::is_same_v<T, float>) return unary_loop_vectored<float>(p, simd::asin);
      return unary_loop<T, T>(p, [](T x) { return std::asin(x); });
    case UnaryOp::Acos:
      if constexpr (std::is_same_v<T, float>) return unary_loop_vectored<float>(p, simd::acos);
      return unary_loop<T, T>(p, [](T x) { return std::acos(x); });
    case UnaryOp::Atan:
      if constexpr (std::is_same_v<T, float>) return unary_loop_vectored<float>(p, simd::atan);
      return unary_loop<T, T>(p, [](T x) { return std::atan(x); });
    case UnaryOp::Sinh:
      if constexpr (std::is_same_v<T, float>) return unary_loop_vectored<float>(p, simd::sinh);
      return unary_loop<T, T>(p, [](T x) { return std::sinh(x); });
    case UnaryOp::Cosh:
      if constexpr (std::is_same_v<T, float>) return unary_loop_vectored<float>(p, simd::cosh);
      return unary_loop<T, T>(p, [](T x) { return std::cosh(x); });
    case UnaryOp::Log2:
      if constexpr (std::is_same_v<T, float>) return unary_loop_vectored<float>(p, simd::log2);
      return unary_loop<T, T>(p, [](T x) { return std::log2(x); });
    case UnaryOp::Log10:
      if constexpr (std::is_same_v<T, float>) return unary_loop_vectored<float>(p, simd::log10);
      return unary_loop<T, T>(p, [](T x) { return std::log10(x); });
    case UnaryOp::Erf: return unary_loop<T, T>(p, [](T x) { return std::erf(x); });
    case UnaryOp::Exp2: return unary_loop<T, T>(p, [](T x) { return std::exp2(x); });
    case UnaryOp::Frac: return unary_loop<T, T>(p, [](T x) { return x - std::trunc(x); });
    case UnaryOp::Erfc: return unary_loop<T, T>(p, [](T x) { return T(std::erfc(double(x))); });
    case UnaryOp::Erfinv:
      if constexpr (std::is_same_v<T, float>) return unary_loop_vectored<float>(p, simd::erfinv);
      return unary_loop<T, T>(p, [](T x) { return T(erfinv_of(double(x))); });
    case UnaryOp::Asinh: return unary_loop<T, T>(p, [](T x) { return std::asinh(x); });
    case UnaryOp::Acosh: return unary_loop<T, T>(p, [](T x) { return std::acosh(x); });
    case UnaryOp::Atanh:
      if constexpr (std::is_same_v<T, float>) return unary_loop_vectored<float>(p, simd::atanh);
      return unary_loop<T, T>(p, [](T x) { return std::atanh(x); });
    case UnaryOp::Sinc:
      return unary_loop<T, T>(p, [](T x) -> T {
        if (x == T(0)) return T(1);
        const T px = T(M_PI) * x;
        return std::sin(px) / px;
      });
    case UnaryOp::Lgamma: return unary_loop<T, T>(p, [](T x) { return T(special::lgamma(x)); });
    case UnaryOp::Digamma: return unary_loop<T, T>(p, [](T x) { return T(special::digamma(x)); });
    case UnaryOp::I0:
      return unary_loop<T, T>(p, [](T x) { return T(special::bessel_i(0, x, false)); });
    case UnaryOp::SpecialI0e:
      return unary_loop<T, T>(p, [](T x) { return T(special::bessel_i(0, x, true)); });
    case UnaryOp::SpecialI1:
      return unary_loop<T, T>(p, [](T x) { return T(special::bessel_i(1, x, false)); });
    case UnaryOp::SpecialI1e:
      return unary_loop<T, T>(p, [](T x) { return T(special::bessel_i(1, x, true)); });
    case UnaryOp::SpecialNdtri:
      return unary_loop<T, T>(p, [](T x) { return T(special::ndtri(x)); });
    case UnaryOp::SpecialLogNdtr:
      return unary_loop<T, T>(p, [](T x) { return T(special::log_ndtr(x)); });
    case UnaryOp::SpecialErfcx:
      return unary_loop<T, T>(p, [](T x) { return T(special::erfcx(x)); });
    case UnaryOp::SpecialEntr: return unary_loop<T, T>(p, [](T x) { return T(special::entr(x)); });
    case UnaryOp::Deg2rad: return unary_loop<T, T>(p, [](T x) { return x * T(M_PI / 180.0); });
    case UnaryOp::Rad2deg: return unary_loop<T, T>(p, [](T x) { return x * T(180.0 / M_PI); });
    default: break;
  }
  throw Error("gradtrack: unsupported float kernel");
}

// isinf, isposinf, isneginf, isfinite, signbit: bool results; integers are finite and
// carry a sign bit only when negative.
template <typename T>
void float_predicate(UnaryOp op, const LoopPlan& p) {
  if constexpr (std::is_floating_point_v<T>) {
    switch (op) {
      case UnaryOp::Isinf: return unary_loop<bool, T>(p, [](T x) { return std::isinf(x); });
      case UnaryOp::Isposinf:
        return unary_loop<bool, T>(p, [](T x) { return std::isinf(x) && x > 0; });
      case UnaryOp::Isneginf:
        return unary_loop<bool, T>(p, [](T x) { return std::isinf(x) && x < 0; });
      case UnaryOp::Isfinite: return unary_loop<bool, T>(p, [](T x) { return std::isfinite(x); });
      default: return unary_loop<bool, T>(p, [](T x) { return std::signbit(x); });
    }
  } else {
    const bool finite = op == UnaryOp::Isfinite;
    if (op == UnaryOp::Signbit && std::is_signed_v<T> && !std::is_same_v<T, bool>)
      return unary_loop<bool, T>(p, [](T x) { return x < T(0); });
    return unary_loop<bool, T>(p, [finite](T) { return finite; });
  }
}

template <typename T>
void any_unary(UnaryOp op, const LoopPlan& p) {
  switch (op) {
    case UnaryOp::Neg:
      if constexpr (!std::is_same_v<T, bool>)
        return unary_loop<T, T>(p, [](T x) -> T { return -x; });
      break;
    case UnaryOp::Abs:
      if constexpr (std::is_floating_point_v<T>) {
        return unary_loop<T, T>(p, [](T x) -> T { return std::fabs(x); });
      } else if constexpr (std::is_unsigned_v<T> || std::is_same_v<T, bool>) {
        return unary_loop<T, T>(p, [](T x) -> T { return x; });
      } else {
        return unary_loop<T, T>(p, [](T x) -> T { return x < 0 ? -x : x; });
      }
    case UnaryOp::Relu:
      if constexpr (std::is_floating_point_v<T>) {
        // PyTorch's clamp_min(x, 0): NaN and -0.0 pass through unchanged.
        if constexpr (std::is_same_v<T, float>) return unary_loop_vectored<float>(p, simd::relu);
        return unary_loop<T, T>(p, [](T x) -> T { return x < 0 ? T(0) : x; });
      } else if constexpr (!std::is_same_v<T, bool>) {
        return unary_loop<T, T>(p, [](T x) -> T { return x > 0 ? x : T(0); });
      }
      break;
    case UnaryOp::Sign:
    case UnaryOp::Sgn:
      return unary_loop<T, T>(p, [](T x) -> T { return static_cast<T>((T(0) < x) - (x < T(0))); });
    case UnaryOp::Square:
      if constexpr (!std::is_same_v<T, bool>)
        return unary_loop<T, T>(p, [](T x) -> T { return x * x; });
      break;
    case UnaryOp::Floor:
    case UnaryOp::Ceil:
    case UnaryOp::Round:
    case UnaryOp::Trunc:
      if constexpr (std::is_floating_point_v<T>) return float_unary<T>(op, p);
      return unary_loop<T, T>(p, [](T x) -> T { return x; });
    case UnaryOp::LogicalNot: return unary_loop<bool, T>(p, [](T x) { return x == T(0); });
    case UnaryOp::Isnan:
      if constexpr (std::is_floating_point_v<T>) {
        return unary_loop<bool, T>(p, [](T x) { return std::isnan(x); });
      } else {
        return unary_loop<bool, T>(p, [](T) { return false; });
      }
    case UnaryOp::Isinf:
    case UnaryOp::Isposinf:
    case UnaryOp::Isneginf:
    case UnaryOp::Isfinite:
    case UnaryOp::Signbit: return float_predicate<T>(op, p);
    case UnaryOp::BitwiseNot:
      if constexpr (std::is_same_v<T, bool>) {
        return unary_loop<T, T>(p, [](T x) -> T { return !x; });
      } else if constexpr (std::is_integral_v<T>) {
        return unary_loop<T, T>(p, [](T x) -> T { return static_cast<T>(~x); });
      }
      break;
    default:
      if constexpr (std::is_floating_point_v<T>) return float_unary<T>(op, p);
      break;
  }
  throw Error("gradtrack: unsupported unary kernel");
}

}  // namespace

void unary(UnaryOp op, const Tensor& out, const Tensor& a) {
  if (any_reduced({&out, &a})) {
    WideOut w(out);
    unary(op, w.t, widen(a));
    return w.commit();
  }
  LoopPlan p = make_plan(out, {a});
  GT_DISPATCH_ALL(a.dtype(), [&] { any_unary<scalar_t>(op, p); });
}

}  // namespace gradtrack::kernels
