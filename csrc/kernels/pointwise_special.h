// The binary functors of the special functions and the integer bit ops of the
// op list (xlogy, xlog1py, zeta, igamma, igammac, copysign, nextafter, ldexp,
// heaviside, gcd, lcm, the shifts): included by pointwise.cpp, whose arith<T> runs them. Each is
// one branch-light expression per element, so the loops in loops.h stay vectorisable.
#pragma once

#include <cmath>
#include <limits>
#include <type_traits>

#include "core/half.h"
#include "kernels/loops.h"
#include "kernels/pointwise.h"
#include "kernels/special_math.h"

namespace gradtrack::kernels::special_binary {

// NOTE [xlogy at zero]
// x * log(y) is 0 where x is 0, even where log(y) is -inf or +inf; a NaN y
// stays NaN (torch's xlogy and xlog1py).
template <typename T>
T xlogy(T x, T y) {
  if (std::isnan(y)) return y;
  if (x == T(0)) return T(0);
  return x * std::log(y);
}
template <typename T>
T xlog1py(T x, T y) {
  if (std::isnan(y)) return y;
  if (x == T(0)) return T(0);
  return x * std::log1p(y);
}

template <typename T>
T gcd(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    a = a < 0 ? T(-a) : a;
    b = b < 0 ? T(-b) : b;
  }
  while (a != 0) {
    T c = a;
    a = T(b % a);
    b = c;
  }
  return b;
}
template <typename T>
T lcm(T a, T b) {
  T g = gcd(a, b);
  if (g == 0) return 0;
  T r = T(a / g * b);
  if constexpr (std::is_signed_v<T>) r = r < 0 ? T(-r) : r;
  return r;
}

// Shifts by a negative count or by the width or more: left gives 0, right
// fills with the sign (torch's lshift/rshift kernels).
template <typename T>
T shift_left(T a, T b) {
  using U = std::make_unsigned_t<T>;
  constexpr T bits = T(sizeof(T) * 8);
  if (b < 0 || b >= bits) return 0;
  return static_cast<T>(static_cast<U>(a) << b);
}
template <typename T>
T shift_right(T a, T b) {
  constexpr T bits = T(sizeof(T) * 8);
  if (b < 0 || b >= bits) {
    if constexpr (std::is_signed_v<T>) return T(a >> (bits - 1));
    return 0;
  }
  return T(a >> b);
}

// NOTE [nextafter of a 16-bit float]
// The reduced floats compute in float32 (NOTE [Reduced floats are stored, not
// computed]), but float32's next value rounds back to the same 16-bit word:
// nextafter steps the 16-bit word itself, as IEEE's nextafter on its bits.
inline uint16_t nextafter_bits16(uint16_t x, uint16_t y, bool half) {
  auto value = [half](uint16_t w) { return half ? half_to_float(w) : bfloat16_to_float(w); };
  const float a = value(x), b = value(y);
  if (std::isnan(a) || std::isnan(b)) return half ? uint16_t(0x7e00) : uint16_t(0x7fc0);
  if (a == b) return y;
  if (a == 0) return uint16_t((y & 0x8000) | 1);  // the smallest subnormal, with b's sign
  const bool away_from_zero = (a < b) == (a > 0);
  return away_from_zero ? uint16_t(x + 1) : uint16_t(x - 1);
}

// logit with its input clamped to [eps, 1 - eps]; a negative eps clamps nothing.
template <typename T>
T logit(T x, T eps) {
  if (eps >= T(0)) x = x < eps ? eps : (x > T(1) - eps ? T(1) - eps : x);
  return std::log(x / (T(1) - x));
}
// The multivariate log-gamma: sum over j < p of lgamma(x - j / 2), from the
// largest j down (torch's sum over arange(-(p - 1) / 2, 0.5, 0.5) + x), plus
// p (p - 1) / 4 log(pi).
template <typename T>
T mvlgamma(T x, T p) {
  T s = 0;
  for (T j = p - T(1); j >= T(0); j -= T(1)) s += std::lgamma(x - j / T(2));
  // the constant in double, then rounded: torch adds it as a number
  return s + T(double(p) * double(p - T(1)) * 1.1447298858494002 / 4.0);  // log(pi)
}

// True if `op` is one of this file's and ran.
template <typename T>
bool run(BinaryOp op, const LoopPlan& p) {
  if constexpr (std::is_floating_point_v<T>) {
    switch (op) {
      case BinaryOp::Xlogy:
        binary_loop<T, T, T>(p, [](T a, T b) { return xlogy(a, b); });
        return true;
      case BinaryOp::SpecialXlog1py:
        binary_loop<T, T, T>(p, [](T a, T b) { return xlog1py(a, b); });
        return true;
      case BinaryOp::Copysign:
        binary_loop<T, T, T>(p, [](T a, T b) { return std::copysign(a, b); });
        return true;
      case BinaryOp::Nextafter:
        binary_loop<T, T, T>(p, [](T a, T b) { return std::nextafter(a, b); });
        return true;
      // torch's ldexp is self * 2 ** other, in the result's dtype.
      case BinaryOp::Logit:
        binary_loop<T, T, T>(p, [](T a, T b) { return logit(a, b); });
        return true;
      case BinaryOp::Mvlgamma:
        binary_loop<T, T, T>(p, [](T a, T b) { return mvlgamma(a, b); });
        return true;
      case BinaryOp::SpecialZeta:
        binary_loop<T, T, T>(p, [](T a, T b) { return T(special::zeta(a, b)); });
        return true;
      case BinaryOp::Igamma:
        binary_loop<T, T, T>(p, [](T a, T b) { return T(special::igamma(a, b)); });
        return true;
      case BinaryOp::Igammac:
        binary_loop<T, T, T>(p, [](T a, T b) { return T(special::igammac(a, b)); });
        return true;
      case BinaryOp::Ldexp:
        binary_loop<T, T, T>(p, [](T a, T b) { return a * std::pow(T(2), b); });
        return true;
      default: break;
    }
  }
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    switch (op) {
      case BinaryOp::Gcd: binary_loop<T, T, T>(p, [](T a, T b) { return gcd(a, b); }); return true;
      case BinaryOp::Lcm: binary_loop<T, T, T>(p, [](T a, T b) { return lcm(a, b); }); return true;
      case BinaryOp::BitwiseLeftShift:
        binary_loop<T, T, T>(p, [](T a, T b) { return shift_left(a, b); });
        return true;
      case BinaryOp::BitwiseRightShift:
        binary_loop<T, T, T>(p, [](T a, T b) { return shift_right(a, b); });
        return true;
      default: break;
    }
  }
  // heaviside: `values` where the input is 0, else 0 or 1 by its sign (NaN: 0).
  if (op == BinaryOp::Heaviside) {
    if constexpr (std::is_same_v<T, bool>) {
      binary_loop<T, T, T>(p, [](T a, T b) { return a ? true : b; });
    } else {
      binary_loop<T, T, T>(p, [](T a, T b) { return a == T(0) ? b : T(a > T(0)); });
    }
    return true;
  }
  return false;
}

}  // namespace gradtrack::kernels::special_binary
