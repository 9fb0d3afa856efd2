// The orthogonal polynomials of torch.special (NOTE [Value-only special functions]).
//
// Every family is a three-term recurrence started from its degrees 0 and 1;
// the Chebyshev families switch to their trigonometric closed forms above a
// small degree when the argument lies strictly inside their interval, and the
// recurrences stop once a term is NaN (the value is NaN from there on). A
// negative degree gives 0; the degree is the truncation of n in the result's
// dtype, and one that is not finite or is beyond int64 counts as negative.
#include <cmath>
#include <limits>

#include "kernels/special_functions.h"

namespace gradtrack::kernels::special {
namespace {

template <typename T>
int64_t degree(T n) {
  // x86's conversion of a NaN, an infinity or an out-of-range value gives INT64_MIN.
  constexpr T lim = static_cast<T>(9.2233720368547758e18);
  if (!(n > -lim && n < lim)) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(n);
}

// T_{k+1} = 2 y T_k - T_{k-1}, from the given degrees 0 and 1 (y = x for the
// plain kinds, 2x - 1 for the shifted ones).
template <typename T>
T chebyshev_recurrence(T twice_y, T first, int64_t n) {
  T prev = T(1), cur = first, next = cur;
  for (int64_t k = 2; k <= n && !std::isnan(cur); ++k) {
    next = twice_y * cur - prev;
    prev = cur;
    cur = next;
  }
  return next;
}

template <typename T>
T chebyshev_t(T x, int64_t n) {
  if (n < 0) return T(0);
  if (std::abs(x) == T(1)) return (x > T(0) || n % 2 == 0) ? T(1) : T(-1);
  if (n > 6 && std::abs(x) < T(1)) return std::cos(n * std::acos(x));
  if (n == 0) return T(1);
  if (n == 1) return x;
  return chebyshev_recurrence(x + x, x, n);
}

template <typename T>
T chebyshev_u(T x, int64_t n) {
  if (n < 0) return T(0);
  if (std::abs(x) == T(1)) return (x > T(0) || n % 2 == 0) ? T(n + 1) : T(-(n + 1));
  if (n > 8 && std::abs(x) < T(1)) {
    const T theta = std::acos(x);
    if (std::sin(theta) != T(0)) return std::sin((n + 1) * theta) / std::sin(theta);
    return (n + 1) * std::cos((n + 1) * theta) / x;
  }
  if (n == 0) return T(1);
  if (n == 1) return x + x;
  return chebyshev_recurrence(x + x, x + x, n);
}

template <typename T>
T chebyshev_v(T x, int64_t n) {
  if (n < 0) return T(0);
  if (std::abs(x) == T(1)) {
    if (x > T(0)) return T(1);
    return n % 2 == 0 ? T(n + n + 1) : T(-(n + n + 1));
  }
  if (n > 8 && std::abs(x) < T(1)) {
    const T theta = std::acos(x);
    if (std::sin(theta / T(2)) != T(1))
      return std::cos((n + T(0.5)) * theta) / std::cos(theta / T(2));
    return n % 2 == 0 ? T(n + n + 1) : T(-(n + n + 1));
  }
  if (n == 0) return T(1);
  if (n == 1) return x + x - T(1);
  return chebyshev_recurrence(x + x, x + x - T(1), n);
}

template <typename T>
T chebyshev_w(T x, int64_t n) {
  if (n < 0) return T(0);
  if (std::abs(x) == T(1)) {
    if (x > T(0)) return T(n + n + 1);
    return n % 2 == 0 ? T(1) : T(-1);
  }
  if (n > 8 && std::abs(x) < T(1)) {
    const T theta = std::acos(x);
    if (std::cos(theta / T(2)) != T(1))
      return std::sin((n + T(0.5)) * theta) / std::sin(theta / T(2));
    if (x > T(0)) return T(n + n + 1);
    return n % 2 == 0 ? T(1) : T(-1);
  }
  if (n == 0) return T(1);
  if (n == 1) return x + x + T(1);
  return chebyshev_recurrence(x + x, x + x + T(1), n);
}

// The shifted kinds: the plain ones at y = 2x - 1, with their own edge cases
// (x = 1 and x = 0 are y = +-1) and degree thresholds.
template <typename T>
T shifted_chebyshev_t(T x, int64_t n) {
  if (n < 0) return T(0);
  if (x == T(1)) return T(1);
  if (x == T(0)) return n % 2 == 0 ? T(1) : T(-1);
  const T y = x + x - T(1);
  if (n > 6 && std::abs(y) < T(1)) return std::cos(n * std::acos(y));
  if (n == 0) return T(1);
  if (n == 1) return y;
  return chebyshev_recurrence(y + y, y, n);
}

template <typename T>
T shifted_chebyshev_u(T x, int64_t n) {
  if (n < 0) return T(0);
  if (x == T(1)) return T(n + 1);
  if (x == T(0)) return n % 2 == 0 ? T(n + 1) : T(-(n + 1));
  const T y = x + x - T(1);
  if (n > 6 && std::abs(y) < T(1)) {
    const T theta = std::acos(y);
    if (std::sin(theta) != T(0)) return std::sin((n + 1) * theta) / std::sin(theta);
    return (n + 1) * std::cos((n + 1) * theta) / y;
  }
  if (n == 0) return T(1);
  if (n == 1) return y + y;
  return chebyshev_recurrence(y + y, y + y, n);
}

template <typename T>
T shifted_chebyshev_v(T x, int64_t n) {
  if (n < 0) return T(0);
  if (x == T(1)) return T(1);
  if (x == T(0)) return n % 2 == 0 ? T(n + n + 1) : T(-(n + n + 1));
  const T y = x + x - T(1);
  if (n > 6 && std::abs(y) < T(1)) {
    const T theta = std::acos(y);
    if (std::sin(theta / T(2)) != T(1))
      return std::cos((n + T(0.5)) * theta) / std::cos(theta / T(2));
    return n % 2 == 0 ? T(n + n + 1) : T(-(n + n + 1));
  }
  if (n == 0) return T(1);
  if (n == 1) return y + y - T(1);
  return chebyshev_recurrence(y + y, y + y - T(1), n);
}

template <typename T>
T shifted_chebyshev_w(T x, int64_t n) {
  if (n < 0) return T(0);
  if (x == T(1)) return T(n + n + 1);
  if (x == T(0)) return n % 2 == 0 ? T(1) : T(-1);
  const T y = x + x - T(1);
  if (n > 4 && std::abs(y) < T(1)) {
    const T theta = std::acos(y);
    if (std::cos(theta / T(2)) != T(1))
      return std::sin((n + T(0.5)) * theta) / std::sin(theta / T(2));
    return n % 2 == 0 ? T(1) : T(-1);
  }
  if (n == 0) return T(1);
  if (n == 1) return y + y + T(1);
  return chebyshev_recurrence(y + y, y + y + T(1), n);
}

// PyTorch gives NaN above these degrees rather than run the Hermite recurrences.
template <typename T>
constexpr int64_t hermite_limit() {
  return sizeof(T) == sizeof(float) ? 128 : 512;
}

template <typename T>
T hermite_h(T x, int64_t n) {
  if (n < 0) return T(0);
  if (n == 0) return T(1);
  if (n == 1) return x + x;
  if (n > hermite_limit<T>()) return std::numeric_limits<T>::quiet_NaN();
  // H_{k+1} = 2x H_k - 2k H_{k-1}, stepped by the even number 2k.
  T prev = T(1), cur = x + x, next = T(0);
  for (int64_t two_k = 2; two_k < n + n; two_k += 2) {
    next = (x + x) * cur - two_k * prev;
    prev = cur;
    cur = next;
  }
  return next;
}

template <typename T>
T hermite_he(T x, int64_t n) {
  if (n < 0) return T(0);
  if (n == 0) return T(1);
  if (n == 1) return x;
  if (n > hermite_limit<T>()) return std::numeric_limits<T>::quiet_NaN();
  T prev = T(1), cur = x, next = x;
  for (int64_t k = 1; k < n; ++k) {  // He_{k+1} = x He_k - k He_{k-1}
    next = x * cur - k * prev;
    prev = cur;
    cur = next;
  }
  return next;
}

template <typename T>
T laguerre_l(T x, int64_t n) {
  if (n < 0) return T(0);
  if (std::abs(x) == T(0)) return T(1);
  if (n == 0) return T(1);
  if (n == 1) return T(1) - x;
  // (k + 1) L_{k+1} = (2k + 1 - x) L_k - k L_{k-1}
  T prev = T(1), cur = T(1) - x, next = cur;
  for (int64_t k = 1; k < n && !std::isnan(cur); ++k) {
    next = (((k + k) + (T(1) - x)) * cur - k * prev) / (k + 1);
    prev = cur;
    cur = next;
  }
  return next;
}

template <typename T>
T legendre_p(T x, int64_t n) {
  if (n < 0) return T(0);
  if (std::abs(x) == T(1)) return (x > T(0) || n % 2 == 0) ? T(1) : T(-1);
  if (n == 0) return T(1);
  if (n == 1) return x;
  // (k + 1) P_{k+1} = (2k + 1) x P_k - k P_{k-1}
  T prev = T(1), cur = x, next = x;
  for (int64_t k = 1; k < n && !std::isnan(cur); ++k) {
    next = ((k + k + 1) * x * cur - k * prev) / (k + 1);
    prev = cur;
    cur = next;
  }
  return next;
}

template <typename T, T (*F)(T, int64_t)>
inline void run(const T* x, const T* n, T* out, int64_t count) {
  for (int64_t i = 0; i < count; ++i) out[i] = F(x[i], degree(n[i]));
}

template <typename T>
inline void dispatch(Polynomial p, const T* x, const T* n, T* out, int64_t count) {
  switch (p) {
    case Polynomial::ChebyshevT: return run<T, chebyshev_t<T>>(x, n, out, count);
    case Polynomial::ChebyshevU: return run<T, chebyshev_u<T>>(x, n, out, count);
    case Polynomial::ChebyshevV: return run<T, chebyshev_v<T>>(x, n, out, count);
    case Polynomial::ChebyshevW: return run<T, chebyshev_w<T>>(x, n, out, count);
    case Polynomial::ShiftedChebyshevT: return run<T, shifted_chebyshev_t<T>>(x, n, out, count);
    case Polynomial::ShiftedChebyshevU: return run<T, shifted_chebyshev_u<T>>(x, n, out, count);
    case Polynomial::ShiftedChebyshevV: return run<T, shifted_chebyshev_v<T>>(x, n, out, count);
    case Polynomial::ShiftedChebyshevW: return run<T, shifted_chebyshev_w<T>>(x, n, out, count);
    case Polynomial::HermiteH: return run<T, hermite_h<T>>(x, n, out, count);
    case Polynomial::HermiteHe: return run<T, hermite_he<T>>(x, n, out, count);
    case Polynomial::LaguerreL: return run<T, laguerre_l<T>>(x, n, out, count);
    case Polynomial::LegendreP: return run<T, legendre_p<T>>(x, n, out, count);
    case Polynomial::Count: break;
  }
}

GT_SPECIAL_CLONES void polynomial_float(Polynomial p, const float* x, const float* n, float* out,
                                        int64_t count) {
  dispatch(p, x, n, out, count);
}

GT_SPECIAL_CLONES void polynomial_double(Polynomial p, const double* x, const double* n,
                                         double* out, int64_t count) {
  dispatch(p, x, n, out, count);
}

}  // namespace

template <>
void polynomial<float>(Polynomial p, const float* x, const float* n, float* out, int64_t count) {
  polynomial_float(p, x, n, out, count);
}

template <>
void polynomial<double>(Polynomial p, const double* x, const double* n, double* out,
                        int64_t count) {
  polynomial_double(p, x, n, out, count);
}

}  // namespace gradtrack::kernels::special
