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
from .kl_registry import _inf_where, _infinite_like, _x_log_x, register_kl
from .laplace import Laplace
from .normal import Normal
from .pareto import Pareto
from .poisson import Poisson
from .uniform import Uniform
from .utils import euler_constant

__all__ = []

_ONE_PLUS_EULER = 1 + euler_constant
_SQRT_2PI = math.sqrt(2 * math.pi)
_LOG_2PI = math.log(2.0 * math.pi)
_HALF_LOG_2PI_E = 0.5 * (1 + math.log(2 * math.pi))  # a standard normal's entropy
_HALF_LOG_HALF_PI_E = 0.5 * (1 + math.log(0.5 * math.pi))


def _infinite_where(condition, result):
    """``result``, infinite where ``condition`` holds (a ``where``, whose gradient is
    0 there)."""
    return gradtrack.where(condition, gradtrack.ones_like(result) * gradtrack.inf, result)


def _log_gamma_normalizer(q):
    """``log Gamma(k) - k log(rate)`` of the Gamma ``q``."""
    return q.concentration.lgamma() - q.concentration * q.rate.log()


def _log_integral(low, high, width):
    """The integral of ``log x`` over ``[low, high]`` (``width = high - low``), from
    the antiderivative ``x log x - x``."""
    return _x_log_x(high) - _x_log_x(low) - width


def _over_normal_var(half_square, loc_times_mean, half_loc_square, var_q):
    """``E_p[(x - loc)^2] / (2 scale^2)`` for the normal ``q``, from ``E_p[x^2] / 2``,
    ``loc E_p[x]``, ``loc^2 / 2`` and ``scale^2``."""
    return (half_square - loc_times_mean + half_loc_square) / var_q


def _half_log_2pi_product(rate_square, var_q):
    """``log(2 pi rate^2 scale^2) / 2``: a normal's log normalizer less an exponential
    rate's log."""
    return 0.5 * gradtrack.log(rate_square * var_q * 2 * math.pi)


def _standardized(x, d):
    return (x - d.loc) / d.scale


def _kl_to_continuous_bernoulli(p, q):
    """``-H(p) - E_p[log q(x)]`` for a continuous Bernoulli ``q`` (``p`` on [0, 1])."""
    return -p.entropy() - p.mean * q.logits - gradtrack.log1p(-q.probs) - q._cont_bern_log_norm()


def _kl_to_exponential(p, q, mean_of):
    """``-H(p) - log rate + rate E_p[x]`` for an exponential ``q``, ``E_p[x]`` being
    ``mean_of(p)`` (taken last, as torch orders the graph)."""
    return -p.entropy() - q.rate.log() + q.rate * mean_of(p)


def _kl_to_uniform_unchecked(p, q):
    """``-H(p) + log(high - low)``, as if ``p``'s support were inside ``q``'s."""
    return -p.entropy() + (q.high - q.low).log()


def _beta_mean(p):
    return p.concentration1 / (p.concentration1 + p.concentration0)


def _rate_times_uniform_mean(rate, p):
    return rate * (p.high + p.low) / 2


@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p, q):
    # -H(p) - E_p[log q(k)] (log k! is 0 on {0, 1})
    neg_entropy = -p.entropy()
    expected_log_q = p.probs * q.rate.log() - q.rate
    return neg_entropy - expected_log_q


# Beta against:

@register_kl(Beta, ContinuousBernoulli)
def _kl_beta_continuous_bernoulli(p, q):
    return _kl_to_continuous_bernoulli(p, q)


@register_kl(Beta, Pareto)
def _kl_beta_infinity(p, q):
    return _infinite_like(p.concentration1)


@register_kl(Beta, Exponential)
def _kl_beta_exponential(p, q):
    return _kl_to_exponential(p, q, _beta_mean)


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p, q):
    # -H(p) + log G(k) - k log rate - (k - 1) E_p[log x] + rate E_p[x] (the sum of the
    # concentrations is taken for each expectation, so that the gradients add up in
    # torch's order)
    a, b = p.concentration1, p.concentration0
    neg_entropy = -p.entropy()
    log_norm = _log_gamma_normalizer(q)
    by_mean_log = (q.concentration - 1) * (a.digamma() - (a + b).digamma())
    by_mean = q.rate * a / (a + b)
    return neg_entropy + log_norm - by_mean_log + by_mean


@register_kl(Beta, Normal)
def _kl_beta_normal(p, q):
    # -H(p) + log(2 pi scale^2) / 2 + E_p[(x - loc)^2] / (2 scale^2)
    a, b = p.concentration1, p.concentration0
    mean = _beta_mean(p)
    var_q = q.scale.pow(2)
    neg_entropy = -p.entropy()
    log_norm = 0.5 * (var_q * 2 * math.pi).log()
    half_square = (mean * (1 - mean) / (a + b + 1) + mean.pow(2)) * 0.5  # (Var + mean^2) / 2
    moments = (half_square, q.loc * mean, q.loc.pow(2) * 0.5)
    return neg_entropy + log_norm + _over_normal_var(*moments, var_q)


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p, q):
    outside = (q.low > p.support.lower_bound) | (q.high < p.support.upper_bound)
    return _inf_where(_kl_to_uniform_unchecked(p, q), outside)


# ContinuousBernoulli against:

@register_kl(ContinuousBernoulli, Pareto)
def _kl_continuous_bernoulli_infinity(p, q):
    return _infinite_like(p.probs)


@register_kl(ContinuousBernoulli, Exponential)
def _kl_continuous_bernoulli_exponential(p, q):
    return _kl_to_exponential(p, q, lambda d: d.mean)


@register_kl(ContinuousBernoulli, Normal)
def _kl_continuous_bernoulli_normal(p, q):
    # -H(p) + (log(2 pi) + (loc / scale)^2) / 2 + log scale
    # + (E_p[x^2] - 2 loc E_p[x]) / (2 scale^2)
    neg_entropy = -p.entropy()
    log_norm = 0.5 * (_LOG_2PI + gradtrack.square(q.loc / q.scale)) + gradtrack.log(q.scale)
    moments = p.variance + gradtrack.square(p.mean) - 2.0 * q.loc * p.mean
    quadratic = moments / (2.0 * gradtrack.square(q.scale))
    return neg_entropy + log_norm + quadratic


@register_kl(ContinuousBernoulli, Uniform)
def _kl_continuous_bernoulli_uniform(p, q):
    kl = _kl_to_uniform_unchecked(p, q)
    # NOTE: infinite as soon as q's interval starts at 0 or above, or ends at 1 or
    # below (so [0, 1] itself gives inf), as torch decides
    outside = gradtrack.max(gradtrack.ge(q.low, p.support.lower_bound),
                            gradtrack.le(q.high, p.support.upper_bound))
    return _infinite_where(outside, kl)


# Exponential against:

@register_kl(Exponential, Beta)
@register_kl(Exponential, ContinuousBernoulli)
@register_kl(Exponential, Pareto)
@register_kl(Exponential, Uniform)
def _kl_exponential_infinity(p, q):
    return _infinite_like(p.rate)


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p, q):
    # -k log r + r + log G(k) + gamma k - 1 - gamma, with r = rate_q / rate_p
    k = q.concentration
    r = q.rate / p.rate
    kl = -k * gradtrack.log(r) + r
    kl = kl + k.lgamma() + k * euler_constant
    return kl - _ONE_PLUS_EULER


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p, q):
    # log z - 1 - loc / scale + exp(loc / scale) z / (z + 1) + 1 / z, z = rate scale
    z = p.rate * q.scale
    shift = q.loc / q.scale
    log_z_less_one = z.log() - 1
    mgf_term = gradtrack.exp(shift) * z / (z + 1)
    inverse_z = z.reciprocal()
    return log_z_less_one - shift + mgf_term + inverse_z


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p, q):
    # log(2 pi rate^2 scale^2) / 2 - 1 + E_p[(x - loc)^2] / (2 scale^2), with
    # E_p[x^2] / 2 = 1 / rate^2 and E_p[x] = 1 / rate
    var_q = q.scale.pow(2)
    rate_sq = p.rate.pow(2)
    log_norm = _half_log_2pi_product(rate_sq, var_q)
    moments = (rate_sq.reciprocal(), q.loc / p.rate, q.loc.pow(2) * 0.5)
    return log_norm - 1 + _over_normal_var(*moments, var_q)


# Gamma against:

@register_kl(Gamma, Beta)
@register_kl(Gamma, ContinuousBernoulli)
@register_kl(Gamma, Pareto)
@register_kl(Gamma, Uniform)
def _kl_gamma_infinity(p, q):
    return _infinite_like(p.concentration)


@register_kl(Gamma, Exponential)
def _kl_gamma_exponential(p, q):
    # -H(p) - log rate_q + rate_q E_p[x], E_p[x] = k / rate_p
    kl = -p.entropy() - q.rate.log()
    return kl + q.rate * p.concentration / p.rate


@register_kl(Gamma, Gumbel)
def _kl_gamma_gumbel(p, q):
    # -H(p) + log scale + E_p[x] / scale - loc / scale + exp(loc / scale) E_p[exp(-x / scale)]
    # (the last the Gamma's moment generating function at -1 / scale)
    k = p.concentration
    z = p.rate * q.scale
    shift = q.loc / q.scale
    entropy_part = (k - 1) * k.digamma() - k.lgamma() - k
    scale_part = z.log() + k / z
    mgf_part = gradtrack.exp(shift) * (1 + z.reciprocal()).pow(-k) - shift
    return entropy_part + scale_part + mgf_part


@register_kl(Gamma, Normal)
def _kl_gamma_normal(p, q):
    # -H(p) + log(2 pi scale^2) / 2 + E_p[(x - loc)^2] / (2 scale^2), with
    # E_p[x^2] / 2 = k (k + 1) / (2 rate^2) and E_p[x] = k / rate
    k = p.concentration
    var_q = q.scale.pow(2)
    rate_sq = p.rate.pow(2)
    log_norm = _half_log_2pi_product(rate_sq, var_q) - k - k.lgamma()
    moments = (0.5 * (k.pow(2) + k) / rate_sq, q.loc * k / p.rate, 0.5 * q.loc.pow(2))
    return log_norm + (k - 1) * k.digamma() + _over_normal_var(*moments, var_q)


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
    # -log(s_p / (sqrt(2 pi) s_q)) + Var_p[x] / (2 s_q^2) + (E_p[x] - m_q)^2 / (2 s_q^2)
    # - 1 - gamma, with Var_p[x] = (pi s_p)^2 / 6
    widths = p.scale / q.scale
    log_ratio = (widths / _SQRT_2PI).log()
    spread = (math.pi * widths * 0.5).pow(2) / 3
    mean_gap_sq = ((p.loc + p.scale * euler_constant - q.loc) / q.scale).pow(2) * 0.5
    return -log_ratio + spread + mean_gap_sq - _ONE_PLUS_EULER


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
    # -log(2 b^2 / (pi s^2)) / 2 + b^2 / s^2 + (m_p - m_q)^2 / (2 s^2) - 1
    var_q = q.scale.pow(2)
    spread = p.scale.pow(2) / var_q
    log_ratio = 0.5 * gradtrack.log(2 * spread / math.pi)
    moments = (0.5 * p.loc.pow(2), p.loc * q.loc, 0.5 * q.loc.pow(2))
    return -log_ratio + spread + _over_normal_var(*moments, var_q) - 1


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
    # -log(s_p / b) + (m_p - m_q) / b + E_p[exp(-(x - m_q) / b)] - H(standard normal),
    # the expectation exp(-(m_p - m_q) / b + s_p^2 / (2 b^2))
    p_shift = p.loc / q.scale
    v = (p.scale / q.scale).pow(2)
    q_shift = q.loc / q.scale
    half_log_v = v.log() * 0.5
    shift_gap = p_shift - q_shift
    mgf = gradtrack.exp(-p_shift + 0.5 * v + q_shift)
    return -half_log_v + shift_gap + mgf - _HALF_LOG_2PI_E


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p, q):
    # -log(s / b) + E_p|x - m_q| / b - (1 + log(pi / 2)) / 2, with
    # E_p|x - m_q| = s sqrt(2 / pi) exp(-z^2 / 2) + d erf(z / sqrt 2), d = m_p - m_q, z = d / s
    d = p.loc - q.loc
    widths = p.scale / q.scale
    z = d / p.scale
    log_widths = gradtrack.log(widths)
    peak_part = math.sqrt(2 / math.pi) * p.scale * gradtrack.exp(-0.5 * z.pow(2))
    shift_part = d * gradtrack.erf(math.sqrt(0.5) * z)
    return -log_widths + (peak_part + shift_part) / q.scale - _HALF_LOG_HALF_PI_E


# Pareto against (infinite too where its tail is too heavy for q's: alpha <= 1 has no
# mean, alpha <= 2 no variance):

@register_kl(Pareto, Beta)
@register_kl(Pareto, ContinuousBernoulli)
@register_kl(Pareto, Uniform)
def _kl_pareto_infinity(p, q):
    return _infinite_like(p.scale)


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p, q):
    # log(a / (x_m rate)) - 1 / a + rate E_p[x] - 1, E_p[x] = a x_m / (a - 1)
    a = p.alpha
    z = p.scale * q.rate
    log_ratio = (a / z).log()
    inverse_a = a.reciprocal()
    rate_mean = a * z / (a - 1)
    return _inf_where(log_ratio - inverse_a + rate_mean - 1, a <= 1)


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p, q):
    # log a - E_p[log x] + log G(k) - k log rate + (1 - k) E_p[log x] + rate E_p[x] - 1,
    # E_p[log x] = log x_m + 1 / a
    a = p.alpha
    mean_log = p.scale.log() + a.reciprocal()
    log_a_less = a.log() - mean_log
    log_norm = _log_gamma_normalizer(q)
    by_mean_log = (1 - q.concentration) * mean_log
    rate_mean = q.rate * a * p.scale / (a - 1)
    return _inf_where(log_a_less + log_norm + by_mean_log + rate_mean - 1, a <= 1)


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p, q):
    # log(sqrt(2 pi) s a / x_m) - 1 / a + (Var_p[x] + (E_p[x] - m)^2) / (2 s^2) - 1
    a = p.alpha
    two_var_q = 2 * q.scale.pow(2)
    mean_over_a = p.scale / (a - 1)  # E_p[x] / a
    log_ratio = (_SQRT_2PI * q.scale * a / p.scale).log()
    inverse_a = a.reciprocal()
    var_p = a * mean_over_a.pow(2) / (a - 2)
    mean_gap_sq = (a * mean_over_a - q.loc).pow(2)
    kl = log_ratio - inverse_a + (var_p + mean_gap_sq) / two_var_q - 1
    return _inf_where(kl, a <= 2)


@register_kl(Poisson, Bernoulli)
@register_kl(Poisson, Binomial)
def _kl_poisson_infinity(p, q):
    return _infinite_like(p.rate)


# Uniform against (the expectations of log x and log(1 - x) over [low, high] come
# from the antiderivative x log x - x):

@register_kl(Uniform, Beta)
def _kl_uniform_beta(p, q):
    # log B(a, b) - log(width) - (a - 1) E_p[log x] - (b - 1) E_p[log(1 - x)]
    a, b = q.concentration1, q.concentration0
    width = p.high - p.low
    log_width = gradtrack.log(width)
    by_log = (a - 1) * _log_integral(p.low, p.high, width) / width
    by_log1m = (b - 1) * (_x_log_x(1 - p.high) - _x_log_x(1 - p.low) + width) / width
    log_beta_fn = a.lgamma() + b.lgamma() - (a + b).lgamma()
    kl = by_log1m + log_beta_fn - log_width - by_log
    return _inf_where(kl, (p.high > q.support.upper_bound) | (p.low < q.support.lower_bound))


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_continuous_bernoulli(p, q):
    kl = _kl_to_continuous_bernoulli(p, q)
    # NOTE: infinite when p's interval reaches 0 or 1 (so [0, 1] itself gives inf), as
    # torch decides
    outside = gradtrack.max(gradtrack.ge(p.high, q.support.upper_bound),
                            gradtrack.le(p.low, q.support.lower_bound))
    return _infinite_where(outside, kl)


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p, q):
    # rate E_p[x] - log(rate width)
    kl = _rate_times_uniform_mean(q.rate, p) - ((p.high - p.low) * q.rate).log()
    return _inf_where(kl, p.low < q.support.lower_bound)


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p, q):
    # -log(width) + log G(k) - k log rate + (1 - k) E_p[log x] + rate E_p[x]
    width = p.high - p.low
    log_width = width.log()
    log_norm = _log_gamma_normalizer(q)
    by_mean_log = (1 - q.concentration) * _log_integral(p.low, p.high, width) / width
    by_mean = _rate_times_uniform_mean(q.rate, p)
    return _inf_where(-log_width + log_norm + by_mean_log + by_mean,
                      p.low < q.support.lower_bound)


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p, q):
    # log(scale / width) + E_p[z] + E_p[exp(-z)], z = (x - loc) / scale
    scale_over_width = q.scale / (p.high - p.low)
    upper = _standardized(p.high, q)
    lower = _standardized(p.low, q)
    kl = scale_over_width.log() + 0.5 * (upper + lower)
    return kl - scale_over_width * (gradtrack.exp(-upper) - gradtrack.exp(-lower))


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p, q):
    # log(sqrt(2 pi) scale / width) + (Var_p[x] + (E_p[x] - loc)^2) / (2 scale^2)
    width = p.high - p.low
    log_ratio = (_SQRT_2PI * q.scale / width).log()
    var_p = width.pow(2) / 12
    mean_gap_sq = ((p.high + p.low - 2 * q.loc) / 2).pow(2)
    return log_ratio + 0.5 * (var_p + mean_gap_sq) / q.scale.pow(2)


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p, q):
    # (alpha + 1) E_p[log x] - log(alpha x_m^alpha width)
    width = p.high - p.low
    log_norm = (q.alpha * q.scale.pow(q.alpha) * width).log()
    mean_log = _log_integral(p.low, p.high, width) / width
    kl = mean_log * (q.alpha + 1) - log_norm
    return _inf_where(kl, p.low < q.support.lower_bound)
