// Gamma and Dirichlet draws as torch's CPU samplers make them, and their
// reparameterized gradients (torch._standard_gamma, _standard_gamma_grad,
// _sample_dirichlet, _dirichlet_grad).
//
// NOTE [Gamma draws]
// torch draws a Gamma(alpha, 1) variate element by element in C order with
// Marsaglia and Tsang's rejection method (doi:10.1145/358407.358414): for
// alpha < 1 one uniform double first scales a draw at alpha + 1; each try takes
// one standard normal double (torch's cached Box-Muller pair, the generator's
// next_double_normal) and one uniform double. Which intermediate values are
// rounded to the tensor's dtype and which constants are single precision
// (1/3, 0.0331) decides the last bits, so the kernel keeps torch's choices:
// alpha and alpha + 1 in the tensor's float type, the rest in double. A
// Dirichlet draw is a Gamma draw per concentration in double, each divided by
// its row's sum, clamped into [tiny, 1).
//
// NOTE [Pathwise gamma gradients]
// The gradient of a Gamma(alpha, 1) draw x for alpha is -(dF/dalpha) / f at x
// (F the CDF, f the density). torch approximates it as Jankowiak and
// Obermeyer do ("Pathwise Derivatives Beyond the Reparameterization Trick",
// 2018): a Taylor series of the lower incomplete gamma function for x < 0.8,
// a Rice saddle-point expansion for alpha > 8, and otherwise the exponential
// of their fitted bivariate rational function of log(x / alpha) and
// log(alpha). The Dirichlet gradient reduces to Beta(alpha, total - alpha)
// marginals with their small-x, small-(1 - x), large-parameter and fitted
// corrections. The figures of the fits are the published ones, and the
// expressions are evaluated in torch's order and precision, so a gradient is
// torch's to the last bit.
#pragma once

#include "core/generator.h"
#include "core/tensor.h"

namespace gradtrack::kernels {

/// One Gamma(alpha, 1) draw per element of `alpha` (floating), C order.
Tensor standard_gamma(const Tensor& alpha, Generator& gen);

/// d(draw)/d(alpha) for draws `x` of Gamma(alpha, 1), elementwise.
Tensor standard_gamma_grad(const Tensor& alpha, const Tensor& x);

/// One Dirichlet(alpha) draw per row of the last dimension of `alpha`.
Tensor sample_dirichlet(const Tensor& alpha, Generator& gen);

/// The Beta-marginal gradient torch's Dirichlet backward uses, elementwise.
Tensor dirichlet_grad(const Tensor& x, const Tensor& alpha, const Tensor& total);

}  // namespace gradtrack::kernels
