// Special functions of one double: the gamma family (lgamma, digamma, trigamma,
// polygamma, Hurwitz zeta, the regularized incomplete gamma functions) and the
// modified Bessel functions of orders 0 and 1.
// The pointwise kernels call them per element; float32 rounds the double result.
//
// NOTE [Special functions at the edges]
// Where the value at a pole, an infinity or a NaN is a choice, the choice is
// PyTorch's (measured on torch 2.13): digamma(+0) is -inf and digamma(-0) +inf,
// digamma at a negative integer or -inf is NaN, i0(+-inf) and i1(+-inf) are
// NaN (torch's Chebyshev form computes inf / inf there) while the scaled i0e and
// i1e are (signed) zeros, and trigamma near a negative integer is the large
// finite value its reflection formula gives rather than inf.
#pragma once

#include <cmath>
#include <limits>

namespace gradtrack::kernels::special {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kPi = 3.14159265358979323846;

inline double lgamma(double x) {
  int sign = 0;
  return ::lgamma_r(x, &sign);  // reentrant: std::lgamma writes the global signgam
}

inline double digamma(double x) {
  if (x == 0) return std::copysign(kInf, -x);
  if (x < 0) {
    if (x == std::trunc(x)) return kNaN;  // the poles, and -inf
    // Reflection: psi(x) = psi(1 - x) - pi / tan(pi x), the tangent of the
    // fractional part only (exact, and keeps the argument small).
    double whole = 0;
    const double frac = std::modf(x, &whole);
    return digamma(1 - x) - kPi / std::tan(kPi * frac);
  }
  if (std::isnan(x)) return x;
  // Recurrence up to x >= 10, then the asymptotic series
  // psi(x) ~ log x - 1/(2x) - sum_k B_2k / (2k x^2k).
  double result = 0;
  while (x < 10) {
    result -= 1 / x;
    x += 1;
  }
  double tail = 0;
  if (x < 1e17) {
    // B_2k / 2k for k = 1..7: 1/12, -1/120, 1/252, -1/240, 1/132, -691/32760, 1/12.
    static const double c[] = {1.0 / 12,  -1.0 / 120,     1.0 / 252, -1.0 / 240,
                               1.0 / 132, -691.0 / 32760, 1.0 / 12};
    const double z = 1 / (x * x);
    double poly = 0;
    for (int k = 6; k >= 0; --k) poly = poly * z + c[k];
    tail = z * poly;
  }
  return result + std::log(x) - 0.5 / x - tail;
}

inline double trigamma(double x) {
  double sign = 1, result = 0;
  if (x < 0.5) {
    // Reflection: psi1(1 - x) + psi1(x) = pi^2 / sin^2(pi x).
    sign = -1;
    const double s = std::sin(kPi * x);
    result -= kPi * kPi / (s * s);
    x = 1 - x;
  }
  for (int i = 0; i < 6; ++i) {
    result += 1 / (x * x);
    x += 1;
  }
  const double r = 1 / (x * x);
  result += (1 + 1 / (2 * x) + r * (1.0 / 6 - r * (1.0 / 30 - r * (1.0 / 42)))) / x;
  return sign * result;
}

// Hurwitz zeta sum_k (k + q)^-x: direct terms, then the Euler-Maclaurin tail
// with the Bernoulli numbers as (2j)! / B_2j.
inline double zeta(double x, double q) {
  constexpr double eps = 1.11022302462515654042e-16;
  if (x == 1) return kInf;
  if (x < 1) return kNaN;
  if (q <= 0) {
    if (q == std::floor(q)) return kInf;
    if (x != std::floor(x)) return kNaN;  // q^-x is not real
  }
  static const double bern[] = {12.0,
                                -720.0,
                                30240.0,
                                -1209600.0,
                                47900160.0,
                                -1.8924375803183791606e9,
                                7.47242496e10,
                                -2.950130727918164224e12,
                                1.1646782814350067249e14,
                                -4.5979787224074726105e15,
                                1.8152105401943546773e17,
                                -7.1661652561756670113e18};
  double s = std::pow(q, -x), a = q, b = 0;
  int i = 0;
  while (i < 9 || a <= 9) {
    ++i;
    a += 1;
    b = std::pow(a, -x);
    s += b;
    if (std::fabs(b / s) < eps) return s;
  }
  const double w = a;
  s += b * w / (x - 1);
  s -= 0.5 * b;
  double fact = 1, k = 0;
  for (double d : bern) {
    fact *= x + k;
    b /= w;
    const double t = fact * b / d;
    s += t;
    if (std::fabs(t / s) < eps) return s;
    k += 1;
    fact *= x + k;
    b /= w;
    k += 1;
  }
  return s;
}

inline double polygamma(double n, double x) {
  if (n == 0) return digamma(x);
  if (n == 1) return trigamma(x);
  const double sign = std::fmod(n, 2.0) != 0 ? 1.0 : -1.0;
  return sign * std::exp(lgamma(n + 1)) * zeta(n + 1, x);
}

// I_order(|x|) * exp(-|x|) for order 0 or 1: the power series
// sum_k (x/2)^(2k+order) / (k! (k+order)!) below 20, the asymptotic series
// exp(x) / sqrt(2 pi x) * sum_k (-1)^k prod_j (4 order^2 - (2j-1)^2) / (k! (8x)^k)
// above, whose smallest term there is below 1e-17.
inline double bessel_i_series(int order, double ax) {
  const double h = ax / 2, q = h * h;
  double term = order ? h : 1.0, sum = term;
  for (int k = 1; k < 1000; ++k) {
    term *= q / (double(k) * double(k + order));
    sum += term;
    if (term <= sum * 1e-17) break;
  }
  return sum;
}
inline double bessel_i_asymptotic(int order, double ax) {
  const double mu = 4.0 * order * order;
  double term = 1, sum = 1;
  for (int k = 1; k < 80; ++k) {
    const double odd = 2.0 * k - 1;
    term *= -(mu - odd * odd) / (8.0 * k * ax);
    sum += term;
    if (std::fabs(term) <= std::fabs(sum) * 1e-17) break;
  }
  return sum / std::sqrt(2 * kPi * ax);
}
inline double bessel_i(int order, double x, bool scaled) {
  if (std::isnan(x)) return x;
  const double sign = (order == 1 && x < 0) ? -1.0 : 1.0;
  if (std::isinf(x)) return scaled ? sign * 0.0 : kNaN;
  const double ax = std::fabs(x);
  if (ax < 20) {
    const double v = bessel_i_series(order, ax);
    return sign * (scaled ? v * std::exp(-ax) : v);
  }
  const double v = bessel_i_asymptotic(order, ax);
  return sign * (scaled ? v : v * std::exp(ax));
}

// exp(x^2) * erfc(x): the product below 2 (erfc's relative error stays an ulp),
// the continued fraction erfc(x) = exp(-x^2) / sqrt(pi) / (x + (1/2) / (x + 1 / (x +
// (3/2) / (x + ...)))) from 2 on, summed from 60 terms deep (under an ulp there).
inline double erfcx(double x) {
  if (std::isnan(x)) return x;
  if (x < 2) return x < -26.7 ? kInf : std::exp(x * x) * std::erfc(x);
  double t = x;
  for (int k = 60; k > 0; --k) t = x + (k / 2.0) / t;
  return 1 / (t * std::sqrt(kPi));
}

// log(ndtr(x)) as PyTorch computes it: through erfcx in the left tail.
inline double log_ndtr(double x) {
  const double t = x * 0.70710678118654752440;
  if (x < -1.0) return std::log(erfcx(-t) / 2) - t * t;
  return std::log1p(-std::erfc(t) / 2);
}

// The inverse of ndtr, for p <= 0.5: the Abramowitz-Stegun 26.2.23 estimate
// (error below 4.5e-4), then Newton steps on log(ndtr(x)) - log(p), which stay
// accurate in the tail where ndtr(x) is tiny.
inline double ndtri_lower(double p) {
  const double t = std::sqrt(-2 * std::log(p));
  double x = -(t - (2.515517 + t * (0.802853 + t * 0.010328)) /
                       (1 + t * (1.432788 + t * (0.189269 + t * 0.001308))));
  const double log_p = std::log(p);
  for (int i = 0; i < 8; ++i) {
    const double cdf = 0.5 * std::erfc(-x * 0.70710678118654752440);
    const double pdf = std::exp(-0.5 * x * x) / std::sqrt(2 * kPi);
    if (cdf <= 0 || pdf <= 0) break;
    const double step = (std::log(cdf) - log_p) * cdf / pdf;
    x -= step;
    if (std::fabs(step) <= 1e-16 * std::fabs(x)) break;
  }
  return x;
}
// Near p = 1/2 the answer is small and log(ndtr(x)) - log(p) cancels: there
// x = sqrt(2) erfinv(2p - 1), with 2p - 1 exact, by Newton steps on erf.
inline double ndtri_central(double p) {
  const double q = 2 * p - 1;
  double y = std::sqrt(kPi) / 2 * q * (1 + kPi * q * q / 12);
  for (int i = 0; i < 8; ++i) {
    const double step = (std::erf(y) - q) / (2 / std::sqrt(kPi) * std::exp(-y * y));
    y -= step;
    if (std::fabs(step) <= 1e-17 * std::fabs(y)) break;
  }
  return std::sqrt(2.0) * y;
}
inline double ndtri(double p) {
  if (std::isnan(p) || p < 0 || p > 1) return kNaN;
  if (p == 0) return -kInf;
  if (p == 1) return kInf;
  if (p >= 0.25 && p <= 0.75) return ndtri_central(p);
  return p < 0.5 ? ndtri_lower(p) : -ndtri_lower(1 - p);  // 1 - p is exact for p >= 0.5
}

// The regularized incomplete gamma functions P(a, x) (igamma) and Q(a, x) =
// 1 - P (igammac): P's power series where x < a + 1, else Q's continued
// fraction (Legendre's), each in double. At the edges, torch's choices
// (measured): a or x negative or NaN, and a = x = 0, give NaN; a = 0 gives
// P = 1; x = 0 gives P = 0; a infinite gives P = 0 (NaN when x is too), x
// infinite gives P = 1.
inline double igamma_series(double a, double x) {
  const double lead = a * std::log(x) - x - std::lgamma(a + 1);
  double term = 1, sum = 1;
  for (double n = 1; n < 10000; n += 1) {
    term *= x / (a + n);
    sum += term;
    if (term <= sum * 1e-17) break;
  }
  return sum * std::exp(lead);
}
inline double igammac_fraction(double a, double x) {
  const double lead = a * std::log(x) - x - std::lgamma(a);
  constexpr double big = 4.503599627370496e15, tiny = 1.0 / big;
  double y = 1 - a, z = x + y + 1, c = 0;
  double pkm2 = 1, qkm2 = x, pkm1 = x + 1, qkm1 = z * x, ans = pkm1 / qkm1;
  for (int i = 0; i < 10000; ++i) {
    c += 1;
    y += 1;
    z += 2;
    const double yc = y * c, pk = pkm1 * z - pkm2 * yc, qk = qkm1 * z - qkm2 * yc;
    double change = 1;
    if (qk != 0) {
      const double r = pk / qk;
      change = std::fabs((ans - r) / r);
      ans = r;
    }
    pkm2 = pkm1;
    pkm1 = pk;
    qkm2 = qkm1;
    qkm1 = qk;
    if (std::fabs(pk) > big) {
      pkm2 *= tiny;
      pkm1 *= tiny;
      qkm2 *= tiny;
      qkm1 *= tiny;
    }
    if (change <= 1.1102230246251565e-16) break;
  }
  return ans * std::exp(lead);
}
// The edge values of P(a, x); NaN where none applies (the caller then computes).
inline bool igamma_edge(double a, double x, double& p) {
  if (std::isnan(a) || std::isnan(x) || a < 0 || x < 0 || (a == 0 && x == 0)) {
    p = kNaN;
    return true;
  }
  if (a == 0) return p = 1, true;
  if (x == 0) return p = 0, true;
  if (std::isinf(a)) return p = std::isinf(x) ? kNaN : 0.0, true;
  if (std::isinf(x)) return p = 1, true;
  return false;
}
inline double igamma(double a, double x) {
  double p;
  if (igamma_edge(a, x, p)) return p;
  return x < a + 1 ? igamma_series(a, x) : 1 - igammac_fraction(a, x);
}
inline double igammac(double a, double x) {
  double p;
  if (igamma_edge(a, x, p)) return 1 - p;
  return x < a + 1 ? 1 - igamma_series(a, x) : igammac_fraction(a, x);
}

inline double entr(double x) {
  if (std::isnan(x)) return x;
  if (x > 0) return -x * std::log(x);
  return x == 0 ? 0.0 : -kInf;
}

}  // namespace gradtrack::kernels::special
