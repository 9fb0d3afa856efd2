"""The KL divergences ``KL(p || q)`` between distributions of two different kinds
(NOTE [The pairs of two kinds] in ``kl.py``, which imports this module for its
registrations, in torch's order).

Where ``p`` puts mass where ``q`` has none (its support is not inside ``q``'s), the
divergence is infinite: for whole pairs of kinds (a Normal against any distribution
on a half line or an interval), or for the entries whose parameters make it so.

>>> import gradtrack
>>> from gradtrack.distributions import Beta, Normal, Uniform, kl_divergence
>>> kl_divergence(Beta(2.0, 2.0), Uniform(0.0, 1.0))
tensor(0.1251)
>>> kl_divergence(Normal(0.0, 1.0), Beta(2.0, 2.0))
tensor(inf)
"""

import math

import gradtrack

from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .continuous_bernoulli import ContinuousBernoulli
from .exponential import Exponential
from .gamma import Gamma
from .gumbel import Gumbel
from .kl_registry import _infinite_like, _x_log_x, register_kl
from .laplace import Laplace
from .normal import Normal
from .pareto import Pareto
from .poisson import Poisson
from .uniform import Uniform
from .utils import euler_constant

__all__ = []


def _infinite_where(condition, result):
    """``result``, infinite where ``condition`` holds (a ``where``, whose gradient is
    0 there)."""
    return gradtrack.where(condition, gradtrack.ones_like(result) * gradtrack.inf, result)


def _log_gamma_normalizer(q):
    """``log Gamma(k) - k log(rate)`` of the Gamma ``q``."""
    return q.concentration.lgamma() - q.concentration * q.rate.log()


@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p, q):
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


# Beta against:

@register_kl(Beta, ContinuousBernoulli)
def _kl_beta_continuous_bernoulli(p, q):
    return -p.entropy() - p.mean * q.logits - gradtrack.log1p(-q.probs) - q._cont_bern_log_norm()


@register_kl(Beta, Pareto)
def _kl_beta_infinity(p, q):
    return _infinite_like(p.concentration1)


@register_kl(Beta, Exponential)
def _kl_beta_exponential(p, q):
    beta_mean = p.concentration1 / (p.concentration1 + p.concentration0)
    return -p.entropy() - q.rate.log() + q.rate * beta_mean


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p, q):
    # E_p[log x] and E_p[x] (the sum of the concentrations is taken for each, so that
    # the gradients add up in torch's order)
    expected_log = p.concentration1.digamma() - (p.concentration1 + p.concentration0).digamma()
    expected = q.rate * p.concentration1 / (p.concentration1 + p.concentration0)
    return -p.entropy() + _log_gamma_normalizer(q) - (q.concentration - 1) * expected_log + expected


@register_kl(Beta, Normal)
def _kl_beta_normal(p, q):
    beta_mean = p.concentration1 / (p.concentration1 + p.concentration0)
    var_normal = q.scale.pow(2)
    log_norm = 0.5 * (var_normal * 2 * math.pi).log()
    # E_p[x^2] / 2: (variance + mean^2) / 2
    beta_var = beta_mean * (1 - beta_mean) / (p.concentration1 + p.concentration0 + 1)
    half_second_moment = (beta_var + beta_mean.pow(2)) * 0.5
    cross = q.loc * beta_mean
    half_loc_sqr = q.loc.pow(2) * 0.5
    return -p.entropy() + log_norm + (half_second_moment - cross + half_loc_sqr) / var_normal


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p, q):
    result = -p.entropy() + (q.high - q.low).log()
    result[(q.low > p.support.lower_bound) | (q.high < p.support.upper_bound)] = gradtrack.inf
    return result


# ContinuousBernoulli against:

@register_kl(ContinuousBernoulli, Pareto)
def _kl_continuous_bernoulli_infinity(p, q):
    return _infinite_like(p.probs)


@register_kl(ContinuousBernoulli, Exponential)
def _kl_continuous_bernoulli_exponential(p, q):
    return -p.entropy() - gradtrack.log(q.rate) + q.rate * p.mean


@register_kl(ContinuousBernoulli, Normal)
def _kl_continuous_bernoulli_normal(p, q):
    log_norm = (0.5 * (math.log(2.0 * math.pi) + gradtrack.square(q.loc / q.scale))
                + gradtrack.log(q.scale))
    # E_p[x^2] - 2 loc E_p[x], over 2 scale^2
    moments = ((p.variance + gradtrack.square(p.mean) - 2.0 * q.loc * p.mean)
               / (2.0 * gradtrack.square(q.scale)))
    return -p.entropy() + log_norm + moments


@register_kl(ContinuousBernoulli, Uniform)
def _kl_continuous_bernoulli_uniform(p, q):
    result = -p.entropy() + (q.high - q.low).log()
    # NOTE: infinite as soon as q's interval starts at 0 or above, or ends at 1 or
    # below (so [0, 1] itself gives inf), as torch decides
    outside = gradtrack.max(gradtrack.ge(q.low, p.support.lower_bound),
                            gradtrack.le(q.high, p.support.upper_bound))
    return _infinite_where(outside, result)


# Exponential against:

@register_kl(Exponential, Beta)
@register_kl(Exponential, ContinuousBernoulli)
@register_kl(Exponential, Pareto)
@register_kl(Exponential, Uniform)
def _kl_exponential_infinity(p, q):
    return _infinite_like(p.rate)


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p, q):
    rate_ratio = q.rate / p.rate
    t1 = -q.concentration * gradtrack.log(rate_ratio)
    return (t1 + rate_ratio + q.concentration.lgamma() + q.concentration * euler_constant
            - (1 + euler_constant))


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p, q):
    scale_rate_prod = p.rate * q.scale
    loc_scale_ratio = q.loc / q.scale
    t1 = scale_rate_prod.log() - 1
    t2 = gradtrack.exp(loc_scale_ratio) * scale_rate_prod / (scale_rate_prod + 1)
    t3 = scale_rate_prod.reciprocal()
    return t1 - loc_scale_ratio + t2 + t3


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p, q):
    var_normal = q.scale.pow(2)
    rate_sqr = p.rate.pow(2)
    t1 = 0.5 * gradtrack.log(rate_sqr * var_normal * 2 * math.pi)
    t2 = rate_sqr.reciprocal()
    t3 = q.loc / p.rate
    t4 = q.loc.pow(2) * 0.5
    return t1 - 1 + (t2 - t3 + t4) / var_normal


# Gamma against:

@register_kl(Gamma, Beta)
@register_kl(Gamma, ContinuousBernoulli)
@register_kl(Gamma, Pareto)
@register_kl(Gamma, Uniform)
def _kl_gamma_infinity(p, q):
    return _infinite_like(p.concentration)


@register_kl(Gamma, Exponential)
def _kl_gamma_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * p.concentration / p.rate


@register_kl(Gamma, Gumbel)
def _kl_gamma_gumbel(p, q):
    k = p.concentration
    rate_scale_prod = p.rate * q.scale
    loc_scale_ratio = q.loc / q.scale
    t1 = (k - 1) * k.digamma() - k.lgamma() - k
    t2 = rate_scale_prod.log() + k / rate_scale_prod
    # E_p[exp(-x / scale)] is the Gamma's moment generating function at -1 / scale
    t3 = gradtrack.exp(loc_scale_ratio) * (1 + rate_scale_prod.reciprocal()).pow(-k) - loc_scale_ratio
    return t1 + t2 + t3


@register_kl(Gamma, Normal)
def _kl_gamma_normal(p, q):
    k = p.concentration
    var_normal = q.scale.pow(2)
    rate_sqr = p.rate.pow(2)
    t1 = 0.5 * gradtrack.log(rate_sqr * var_normal * 2 * math.pi) - k - k.lgamma()
    t2 = 0.5 * (k.pow(2) + k) / rate_sqr  # E_p[x^2] / 2
    t3 = q.loc * k / p.rate
    t4 = 0.5 * q.loc.pow(2)
    return t1 + (k - 1) * k.digamma() + (t2 - t3 + t4) / var_normal


# Gumbel, Laplace and Normal against (all of the real line against part of it, but
# for Normal):

@register_kl(Gumbel, Beta)
@register_kl(Gumbel, ContinuousBernoulli)
@register_kl(Gumbel, Exponential)
@register_kl(Gumbel, Gamma)
@register_kl(Gumbel, Pareto)
@register_kl(Gumbel, Uniform)
def _kl_gumbel_infinity(p, q):
    return _infinite_like(p.loc)


@register_kl(Gumbel, Normal)
def _kl_gumbel_normal(p, q):
    param_ratio = p.scale / q.scale
    t1 = (param_ratio / math.sqrt(2 * math.pi)).log()
    t2 = (math.pi * param_ratio * 0.5).pow(2) / 3
    t3 = ((p.loc + p.scale * euler_constant - q.loc) / q.scale).pow(2) * 0.5
    return -t1 + t2 + t3 - (euler_constant + 1)


@register_kl(Laplace, Beta)
@register_kl(Laplace, ContinuousBernoulli)
@register_kl(Laplace, Exponential)
@register_kl(Laplace, Gamma)
@register_kl(Laplace, Pareto)
@register_kl(Laplace, Uniform)
def _kl_laplace_infinity(p, q):
    return _infinite_like(p.loc)


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p, q):
    var_normal = q.scale.pow(2)
    scale_sqr_var_ratio = p.scale.pow(2) / var_normal
    t1 = 0.5 * gradtrack.log(2 * scale_sqr_var_ratio / math.pi)
    t2 = 0.5 * p.loc.pow(2)
    t3 = p.loc * q.loc
    t4 = 0.5 * q.loc.pow(2)
    return -t1 + scale_sqr_var_ratio + (t2 - t3 + t4) / var_normal - 1


@register_kl(Normal, Beta)
@register_kl(Normal, ContinuousBernoulli)
@register_kl(Normal, Exponential)
@register_kl(Normal, Gamma)
@register_kl(Normal, Pareto)
@register_kl(Normal, Uniform)
def _kl_normal_infinity(p, q):
    return _infinite_like(p.loc)


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p, q):
    mean_scale_ratio = p.loc / q.scale
    var_scale_sqr_ratio = (p.scale / q.scale).pow(2)
    loc_scale_ratio = q.loc / q.scale
    t1 = var_scale_sqr_ratio.log() * 0.5
    t2 = mean_scale_ratio - loc_scale_ratio
    t3 = gradtrack.exp(-mean_scale_ratio + 0.5 * var_scale_sqr_ratio + loc_scale_ratio)
    return -t1 + t2 + t3 - (0.5 * (1 + math.log(2 * math.pi)))


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p, q):
    loc_diff = p.loc - q.loc
    scale_ratio = p.scale / q.scale
    loc_diff_scale_ratio = loc_diff / p.scale
    t1 = gradtrack.log(scale_ratio)
    t2 = math.sqrt(2 / math.pi) * p.scale * gradtrack.exp(-0.5 * loc_diff_scale_ratio.pow(2))
    t3 = loc_diff * gradtrack.erf(math.sqrt(0.5) * loc_diff_scale_ratio)
    return -t1 + (t2 + t3) / q.scale - (0.5 * (1 + math.log(0.5 * math.pi)))


# Pareto against (infinite too where its tail is too heavy for q's: alpha <= 1 has no
# mean, alpha <= 2 no variance):

@register_kl(Pareto, Beta)
@register_kl(Pareto, ContinuousBernoulli)
@register_kl(Pareto, Uniform)
def _kl_pareto_infinity(p, q):
    return _infinite_like(p.scale)


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p, q):
    scale_rate_prod = p.scale * q.rate
    t1 = (p.alpha / scale_rate_prod).log()
    t2 = p.alpha.reciprocal()
    t3 = p.alpha * scale_rate_prod / (p.alpha - 1)  # rate E_p[x]
    result = t1 - t2 + t3 - 1
    result[p.alpha <= 1] = gradtrack.inf
    return result


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p, q):
    expected_log = p.scale.log() + p.alpha.reciprocal()  # E_p[log x]
    t1 = p.alpha.log() - expected_log
    t3 = (1 - q.concentration) * expected_log
    t4 = q.rate * p.alpha * p.scale / (p.alpha - 1)  # rate E_p[x]
    result = t1 + _log_gamma_normalizer(q) + t3 + t4 - 1
    result[p.alpha <= 1] = gradtrack.inf
    return result


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p, q):
    twice_var_normal = 2 * q.scale.pow(2)
    scale_over = p.scale / (p.alpha - 1)
    t1 = (math.sqrt(2 * math.pi) * q.scale * p.alpha / p.scale).log()
    t2 = p.alpha.reciprocal()
    t3 = p.alpha * scale_over.pow(2) / (p.alpha - 2)  # the variance of p
    t4 = (p.alpha * scale_over - q.loc).pow(2)  # (E_p[x] - loc)^2
    result = t1 - t2 + (t3 + t4) / twice_var_normal - 1
    result[p.alpha <= 2] = gradtrack.inf
    return result


@register_kl(Poisson, Bernoulli)
@register_kl(Poisson, Binomial)
def _kl_poisson_infinity(p, q):
    return _infinite_like(p.rate)


# Uniform against (the expectations of log x and log(1 - x) over [low, high] come
# from the antiderivative x log x - x):

@register_kl(Uniform, Beta)
def _kl_uniform_beta(p, q):
    width = p.high - p.low
    log_width = gradtrack.log(width)
    by_1 = (q.concentration1 - 1) * (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    by_0 = (q.concentration0 - 1) * (_x_log_x(1 - p.high) - _x_log_x(1 - p.low) + width) / width
    log_beta = (q.concentration1.lgamma() + q.concentration0.lgamma()
                - (q.concentration1 + q.concentration0).lgamma())
    result = by_0 + log_beta - log_width - by_1
    result[(p.high > q.support.upper_bound) | (p.low < q.support.lower_bound)] = gradtrack.inf
    return result


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_continuous_bernoulli(p, q):
    result = -p.entropy() - p.mean * q.logits - gradtrack.log1p(-q.probs) - q._cont_bern_log_norm()
    # NOTE: infinite when p's interval reaches 0 or 1 (so [0, 1] itself gives inf), as
    # torch decides
    outside = gradtrack.max(gradtrack.ge(p.high, q.support.upper_bound),
                            gradtrack.le(p.low, q.support.lower_bound))
    return _infinite_where(outside, result)


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p, q):
    result = q.rate * (p.high + p.low) / 2 - ((p.high - p.low) * q.rate).log()
    result[p.low < q.support.lower_bound] = gradtrack.inf
    return result


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p, q):
    width = p.high - p.low
    log_width = width.log()
    by_log = (1 - q.concentration) * (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    by_mean = q.rate * (p.high + p.low) / 2
    result = -log_width + _log_gamma_normalizer(q) + by_log + by_mean
    result[p.low < q.support.lower_bound] = gradtrack.inf
    return result


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p, q):
    common_term = q.scale / (p.high - p.low)
    high_loc_diff = (p.high - q.loc) / q.scale
    low_loc_diff = (p.low - q.loc) / q.scale
    t1 = common_term.log() + 0.5 * (high_loc_diff + low_loc_diff)
    t2 = common_term * (gradtrack.exp(-high_loc_diff) - gradtrack.exp(-low_loc_diff))
    return t1 - t2


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p, q):
    width = p.high - p.low
    t1 = (math.sqrt(math.pi * 2) * q.scale / width).log()
    t2 = width.pow(2) / 12
    t3 = ((p.high + p.low - 2 * q.loc) / 2).pow(2)
    return t1 + 0.5 * (t2 + t3) / q.scale.pow(2)


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p, q):
    width = p.high - p.low
    log_norm = (q.alpha * q.scale.pow(q.alpha) * width).log()
    expected_log = (_x_log_x(p.high) - _x_log_x(p.low) - width) / width  # E_p[log x]
    result = expected_log * (q.alpha + 1) - log_norm
    result[p.low < q.support.lower_bound] = gradtrack.inf
    return result
