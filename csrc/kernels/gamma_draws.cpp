// NOTE [Gamma draws] and NOTE [Pathwise gamma gradients] in gamma_draws.h.
#include "kernels/gamma_draws.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <vector>

#include "core/dtype.h"
#include "kernels/cascade_sum.h"
#include "kernels/kernels.h"
#include "kernels/random_detail.h"

namespace gradtrack::kernels {

namespace rd = random_detail;

namespace {

// One Gamma(alpha, 1) draw; S is the type torch keeps alpha in (the tensor's
// float type), the rest is double (NOTE [Gamma draws]).
template <typename S>
double gamma_draw(S alpha, Generator& gen) {
  double scale = 1.0;
  if (alpha < 1.0f) {
    if (alpha == S(0)) return 0.0;
    const double u = rd::uniform_real<double>(gen, 0.0, 1.0);
    const S inverse = S(1.0f) / alpha;
    scale *= std::pow(1.0 - u, static_cast<double>(inverse));
    alpha += S(1.0f);
  }
  const double d = alpha - S(1.0f / 3.0f);
  const double c = 1.0 / std::sqrt(9.0 * d);
  constexpr double kSqueeze = 0.0331f;  // single precision, as torch has it
  for (;;) {
    double x, y;
    do {
      x = rd::normal_scalar(gen, 0.0, 1.0);
      y = 1.0 + c * x;
    } while (y <= 0);
    const double v = y * y * y;
    const double u = 1 - rd::uniform_real<double>(gen, 0.0, 1.0);
    const double xx = x * x;
    if (u < 1.0 - kSqueeze * xx * xx) return scale * d * v;
    if (std::log(u) < 0.5 * xx + d * (1.0 - v + std::log(v))) return scale * d * v;
  }
}

// digamma for the gradients below, in the mixed precision torch evaluates it:
// S-typed steps on x, a double sum (the recurrence up to 10, then the
// asymptotic series in 1 / x^2 with the Bernoulli-number coefficients).
template <typename S>
S digamma_for_grad(S x) {
  constexpr double kDigamma10 = 2.25175258906672110764;
  if (x == S(0)) return std::numeric_limits<S>::infinity();
  double reflected = 0;
  const bool integral = x == std::floor(x);
  if (x < 0) {
    if (integral) return std::numeric_limits<S>::infinity();
    reflected = -static_cast<S>(M_PI) / std::tan(static_cast<S>(M_PI) * x);
    x = 1 - x;
  }
  double sum = 0;
  for (; x < 10; x += 1) sum -= S(1) / x;
  if (x == 10) return static_cast<S>(sum + kDigamma10 + reflected);
  // B_2k / 2k for k = 7 down to 1, highest power first
  static constexpr double kSeries[7] = {1.0 / 12,  -691.0 / 32760, 1.0 / 132, -1.0 / 240,
                                        1.0 / 252, -1.0 / 120,     1.0 / 12};
  double tail = 0;
  if (x < 1.0e17f) {
    const double z = 1.0 / static_cast<double>(S(x * x));
    double h = kSeries[0];
    for (int i = 1; i < 7; ++i) h = h * z + kSeries[i];
    tail = z * h;
  }
  return static_cast<S>(sum + static_cast<double>(std::log(x)) - static_cast<double>(S(0.5f) / x) -
                        tail + reflected);
}

// d(draw)/d(alpha) of a Gamma(alpha, 1) draw x (NOTE [Pathwise gamma gradients]).
template <typename S>
S gamma_grad_one(S alpha_s, S x_s) {
  const double x = x_s, alpha = alpha_s;
  if (x < 0.8f) {
    // P(alpha, x) = x^alpha * sum_i (-x)^i / (i! (alpha + i)) and its alpha-derivative
    double term = 1, denom = alpha;
    double cdf_sum = term / denom, dcdf_sum = term / (denom * denom);
    for (int i = 1; i <= 5; ++i) {
      term *= -x / static_cast<double>(i);
      denom += 1;
      cdf_sum += term / denom;
      dcdf_sum += term / (denom * denom);
    }
    const double x_alpha = std::pow(x, alpha);
    const double density = std::pow(x, alpha - 1) * std::exp(-x);
    const double cdf = x_alpha * cdf_sum;
    const double dcdf = (std::log(x) - digamma_for_grad<double>(alpha)) * cdf - x_alpha * dcdf_sum;
    const double g = -dcdf / density;
    return std::isnan(g) ? S(0) : static_cast<S>(g);
  }
  if (alpha > 8.0f) {
    if (0.9f * alpha <= x && x <= 1.1f * alpha) {  // near the mode, the expansion's limit
      const double a1 = 1 + 24 * alpha * (1 + 12 * alpha);
      const double a2 = 1440 * (alpha * alpha) + 6 * x * (53 - 120 * x) - 65 * x * x / alpha +
                        alpha * (107 + 3600 * x);
      const double scale = 1244160 * (alpha * alpha) * (alpha * alpha);
      return static_cast<S>(a1 * a2 / scale);
    }
    const double root = std::sqrt(8 * alpha);
    const double t2 = root / (alpha - x);
    const double t3 = std::pow(x - alpha - alpha * std::log(x / alpha), -1.5);
    const double t23 = x < alpha ? t2 - t3 : t2 + t3;
    const double t1 = std::log(x / alpha) * t23 -
                      std::sqrt(2 / alpha) * (alpha + x) / ((alpha - x) * (alpha - x));
    const double stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha));
    return static_cast<S>(-stirling * (x * t1) / root);
  }
  // The fitted rational function: rows are the powers 0, 1, 2 of u = log(x /
  // alpha); columns the numerator's then the denominator's coefficients of the
  // powers 0-3 of v = log(alpha).
  static constexpr double kFit[3][8] = {
      {0.16009398, -0.094634809, 0.025146376, -0.0030648343, 1, 0.32668115, 0.10406089,
       0.0014179084},
      {0.53487893, 0.1298071, 0.065735949, -0.0015649758, 0.16639465, 0.020070113, -0.0035938915,
       -0.00058392623},
      {0.040121004, -0.0065914022, -0.0026286047, -0.0013441777, 0.017050642, -0.0021309326,
       0.00085092367, -1.5247877e-07},
  };
  const double u = std::log(x / alpha), v = std::log(alpha);
  double k[8];
  for (int i = 0; i < 8; ++i) k[i] = kFit[0][i] + u * (kFit[1][i] + u * kFit[2][i]);
  const double num = k[0] + v * (k[1] + v * (k[2] + v * k[3]));
  const double den = k[4] + v * (k[5] + v * (k[6] + v * k[7]));
  return static_cast<S>(std::exp(num / den));
}

// The Beta(alpha, beta) gradient for alpha near x = 0: a series in x (in S).
template <typename S>
S beta_grad_alpha_small(S x, S alpha, S beta) {
  const S factor = digamma_for_grad<S>(alpha) - digamma_for_grad<S>(alpha + beta) - std::log(x);
  S term = 1;
  S sum = term / alpha * (factor + 1 / alpha);
  for (int i = 1; i <= 10; ++i) {
    const S n = static_cast<S>(i);
    term *= (n - beta) * x / n;
    const S denom = alpha + n;
    sum += term / denom * (factor + 1 / denom);
  }
  const S g = x * std::pow(1 - x, -beta) * sum;
  return std::isnan(g) ? S(0) : g;
}

// The Beta(alpha, beta) gradient for beta near x = 0 (in S).
template <typename S>
S beta_grad_beta_small(S x, S alpha, S beta) {
  const S factor = digamma_for_grad<S>(alpha + beta) - digamma_for_grad<S>(beta);
  S term = 1, falling = 1, dfalling = 0, sum = factor / alpha;
  for (int i = 1; i <= 8; ++i) {
    const S n = static_cast<S>(i);
    term *= -x / n;
    dfalling = dfalling * (beta - n) + falling;
    falling = falling * (beta - n);
    sum += term / (alpha + n) * (dfalling + factor * falling);
  }
  const S g = -std::pow(1 - x, 1 - beta) * sum;
  return std::isnan(g) ? S(0) : g;
}

// The Beta(alpha, beta) gradient for alpha when both are large: a saddle-point
// expansion in double, with its own form right at the mean.
double beta_grad_alpha_large(double x, double alpha, double beta) {
  const double total = alpha + beta;
  const double mean = alpha / total;
  const double spread = std::sqrt(alpha * beta / (total + 1)) / total;
  if (mean - 0.1 * spread <= x && x <= mean + 0.1 * spread) {
    const double poly = 47 * x * (beta * beta) * (beta * beta) +
                        alpha * ((43 + 20 * (16 + 27 * beta) * x) * (beta * beta) * beta +
                                 alpha * (3 * (59 + 180 * beta - 90 * x) * (beta * beta) +
                                          alpha * ((453 + 1620 * beta * (1 - x) - 455 * x) * beta +
                                                   alpha * (8 * (1 - x) * (135 * beta - 11)))));
    const double front_num = (1 + 12 * alpha) * (1 + 12 * beta) / (total * total);
    const double front_den = 12960 * alpha * alpha * alpha * beta * beta * (1 + 12 * total);
    return front_num / (1 - x) * poly / front_den;
  }
  const double front = -x / std::sqrt(2 * alpha * beta / total);
  const double stirling = (1 + 1 / (12 * alpha) + 1 / (288 * alpha * alpha)) *
                          (1 + 1 / (12 * beta) + 1 / (288 * beta * beta)) /
                          (1 + 1 / (12 * total) + 1 / (288 * total * total));
  const double axbx = alpha * (x - 1) + beta * x;
  const double t1 = (2 * (alpha * alpha) * (x - 1) + alpha * beta * (x - 1) - x * (beta * beta)) /
                    (std::sqrt(2 * alpha / beta) * std::pow(total, 1.5) * axbx * axbx);
  const double t2 = 0.5 * std::log(alpha / (total * x));
  const double t3 = std::sqrt(8 * alpha * beta / total) / (beta * x + alpha * (x - 1));
  const double t4 = std::pow(
      beta * std::log(beta / (total * (1 - x))) + alpha * std::log(alpha / (total * x)), -1.5);
  return stirling * front * (t1 + t2 * (t3 + (x < mean ? t4 : -t4)));
}

// torch's Dirichlet backward's gradient for one coordinate x of concentration
// alpha out of `total` (NOTE [Pathwise gamma gradients]).
template <typename S>
S dirichlet_grad_one(S x, S alpha, S total) {
  const double xd = x, ad = alpha, td = total;
  const S beta = total - alpha;
  const double bd = td - ad;
  const S boundary = total * x * (1 - x);
  if (x <= 0.5f && boundary < 2.5f) return beta_grad_alpha_small<S>(x, alpha, beta);
  if (x >= 0.5f && boundary < 0.75f) return -beta_grad_beta_small<S>(1 - x, beta, alpha);
  if (alpha > 6 && beta > 6) return static_cast<S>(beta_grad_alpha_large(xd, ad, bd));
  // The fitted correction: [numerator, denominator][power of u][power of a][power of b].
  static constexpr double kFit[2][3][3][4] = {
      {{{1.003668233, -0.01061107488, -0.0657888334, 0.01201642863},
        {0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033},
        {-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013}},
       {{0.221950385, -0.3187676331, 0.01799915743, 0.01074823814},
        {-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057},
        {0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05}},
       {{-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565},
        {0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181},
        {0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05}}},
      {{{1, -0.02924021934, -0.04438342661, 0.007285809825},
        {0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521},
        {-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149}},
       {{0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273},
        {0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956},
        {-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05}},
       {{0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05},
        {0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05},
        {-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06}}},
  };
  const double u = std::log(xd);
  const double a = std::log(ad) - u;
  const double b = std::log(td) - a;
  const double pu[3] = {1, u, u * u}, pa[3] = {1, a, a * a};
  double num = 0, den = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      const double w = pu[i] * pa[j];
      const double* n = kFit[0][i][j];
      const double* m = kFit[1][i][j];
      num += w * (n[0] + b * (n[1] + b * (n[2] + b * n[3])));
      den += w * (m[0] + b * (m[1] + b * (m[2] + b * m[3])));
    }
  // the digamma difference is taken in S, the rest in double
  const S spread = digamma_for_grad<S>(total) - digamma_for_grad<S>(alpha);
  const double guess = xd * spread / bd;
  return static_cast<S>(num / den * guess);
}

// `t` itself if contiguous, else a contiguous copy.
Tensor dense(const Tensor& t) {
  if (t.is_contiguous()) return t;
  Tensor c = empty(t.sizes(), t.dtype());
  copy(c, t);
  return c;
}

}  // namespace

Tensor standard_gamma(const Tensor& alpha_in, Generator& gen) {
  const Tensor alpha = dense(alpha_in);
  Tensor out = empty(alpha.sizes(), alpha.dtype());
  GT_DISPATCH_FLOAT(alpha.dtype(), "gamma_cpu", [&] {
    using S = scalar_t;
    const S* a = alpha.data<S>();
    S* o = out.data<S>();
    std::lock_guard<std::mutex> lock(gen.mutex());
    for (int64_t i = 0, n = alpha.numel(); i < n; ++i)
      o[i] = std::max(std::numeric_limits<S>::min(), static_cast<S>(gamma_draw<S>(a[i], gen)));
  });
  return out;
}

Tensor standard_gamma_grad(const Tensor& alpha_in, const Tensor& x_in) {
  const Tensor alpha = dense(alpha_in), x = dense(x_in);
  Tensor out = empty(alpha.sizes(), alpha.dtype());
  GT_DISPATCH_FLOAT(alpha.dtype(), "_standard_gamma_grad_cpu", [&] {
    using S = scalar_t;
    const S* a = alpha.data<S>();
    const S* v = x.data<S>();
    S* o = out.data<S>();
    for (int64_t i = 0, n = alpha.numel(); i < n; ++i) o[i] = gamma_grad_one<S>(a[i], v[i]);
  });
  return out;
}

Tensor sample_dirichlet(const Tensor& alpha_in, Generator& gen) {
  const Tensor alpha = dense(alpha_in);
  Tensor out = empty(alpha.sizes(), alpha.dtype());
  GT_DISPATCH_FLOAT(alpha.dtype(), "dirichlet", [&] {
    using S = scalar_t;
    const int64_t n = alpha.numel();
    const int64_t k = alpha.dim() == 0 ? 1 : alpha.sizes()[alpha.dim() - 1];
    const S* a = alpha.data<S>();
    S* o = out.data<S>();
    std::vector<double> draws(static_cast<size_t>(n));
    {
      std::lock_guard<std::mutex> lock(gen.mutex());
      for (int64_t i = 0; i < n; ++i)
        draws[size_t(i)] = std::max(std::numeric_limits<double>::min(),
                                    gamma_draw<double>(static_cast<double>(a[i]), gen));
    }
    const S low = std::numeric_limits<S>::min();
    const S high = std::nextafter(S(1), S(0));
    // each row's sum in torch's order (a sum over the last dimension)
    const int64_t rows = k > 0 ? n / k : 0;
    std::vector<double> sums(static_cast<size_t>(rows));
    if (rows > 0) cascade_row_sums(sums.data(), 1, draws.data(), k, rows, k);
    for (int64_t r = 0; r < rows; ++r) {
      const double sum = sums[size_t(r)];
      for (int64_t j = 0; j < k; ++j)
        o[r * k + j] =
            std::min(high, std::max(low, static_cast<S>(draws[size_t(r * k + j)] / sum)));
    }
  });
  return out;
}

Tensor dirichlet_grad(const Tensor& x_in, const Tensor& alpha_in, const Tensor& total_in) {
  const Tensor x = dense(x_in), alpha = dense(alpha_in), total = dense(total_in);
  Tensor out = empty(x.sizes(), x.dtype());
  GT_DISPATCH_FLOAT(x.dtype(), "_dirichlet_grad_cpu", [&] {
    using S = scalar_t;
    const S* xv = x.data<S>();
    const S* av = alpha.data<S>();
    const S* tv = total.data<S>();
    S* o = out.data<S>();
    for (int64_t i = 0, n = x.numel(); i < n; ++i)
      o[i] = dirichlet_grad_one<S>(xv[i], av[i], tv[i]);
  });
  return out;
}

}  // namespace gradtrack::kernels
