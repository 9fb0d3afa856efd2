"""The KL divergence ``KL(p || q)`` between two distributions, looked up by their
types (``torch.distributions.kl``): here the pairs of one kind, registered in torch's
order; the registry and its dispatch are in ``kl_registry.py``, the pairs of two
kinds in ``kl_two_kinds.py``.

>>> import gradtrack
>>> from gradtrack.distributions import Normal, kl_divergence
>>> kl_divergence(Normal(0.0, 1.0), Normal(1.0, 1.0))
tensor(0.5000)
"""

import gradtrack

from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import Gumbel
from .half_normal import HalfNormal
from .independent import Independent
from .laplace import Laplace
from .lowrank_multivariate_normal import (LowRankMultivariateNormal, _batch_lowrank_logdet,
                                          _batch_lowrank_mahalanobis)
from .multivariate_normal import MultivariateNormal, _batch_mahalanobis
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .pareto import Pareto
from .poisson import Poisson
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform
from .utils import _sum_rightmost, euler_constant

from .kl_registry import (_KL_MEMOIZE, _KL_REGISTRY, _batch_trace_XXT,  # noqa: F401
                          _inf_where, _infinite_like, _x_log_x, kl_divergence, register_kl)

__all__ = ["kl_divergence", "register_kl"]

# The pairs are registered in torch's order, which decides ties between pairs (a
# stack of decorators registers from the bottom up, as torch's stacks do).
# Of one kind (and the full and low-rank multivariate normals with each other):

def _masked_by_support(term, q_lacks, p_lacks):
    """``term`` made infinite where ``q`` has no mass and 0 where ``p`` has none (the
    convention ``0 log 0 = 0``), in that order, in place."""
    term[q_lacks] = gradtrack.inf
    term[p_lacks] = 0
    return term


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    # p log(p / q) + (1 - p) log((1 - p) / (1 - q)), each log ratio as a softplus gap
    softplus = gradtrack.nn.functional.softplus
    success = _masked_by_support(p.probs * (softplus(-q.logits) - softplus(-p.logits)),
                                 q.probs == 0, p.probs == 0)
    failure = _masked_by_support((1 - p.probs) * (softplus(q.logits) - softplus(p.logits)),
                                 q.probs == 1, p.probs == 1)
    return success + failure


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    # log B(a_q, b_q) - log B(a_p, b_p) plus the parameter gaps times E_p[log x],
    # E_p[log(1 - x)] and the digamma of p's total
    a_p, b_p = p.concentration1, p.concentration0
    a_q, b_q = q.concentration1, q.concentration0
    total_p = a_p + b_p
    total_q = a_q + b_q
    lgammas_q_side = a_q.lgamma() + b_q.lgamma() + total_p.lgamma()
    lgammas_p_side = a_p.lgamma() + b_p.lgamma() + total_q.lgamma()
    weighted = [(a_p - a_q) * gradtrack.digamma(a_p), (b_p - b_q) * gradtrack.digamma(b_p),
                (total_q - total_p) * gradtrack.digamma(total_p)]
    kl = lgammas_q_side - lgammas_p_side
    for term in weighted:
        kl = kl + term
    return kl


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    n_p, n_q = p.total_count, q.total_count
    if (n_p < n_q).any():
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count "
                                  "is not implemented")
    # n (prob log(prob_p / prob_q) + log((1 - prob_p) / (1 - prob_q))), per trial
    per_trial = p.probs * (p.logits - q.logits) + (-p.probs).log1p() - (-q.probs).log1p()
    divergence = n_p * per_trial
    extra_trials = n_p > n_q  # p reaches counts q cannot
    divergence[extra_trials] = _infinite_like(divergence[extra_trials])
    return divergence


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    # sum_k p_k log(p_k / q_k)
    summand = p.probs * (p.logits - q.logits)
    summand = _masked_by_support(summand, (q.probs == 0).expand_as(summand),
                                 (p.probs == 0).expand_as(summand))
    return summand.sum(-1)


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli_continuous_bernoulli(p, q):
    # E_p[x] (logit_p - logit_q) + (log C_p + log(1 - lam_p)) - (log C_q + log(1 - lam_q))
    logit_gap_term = p.mean * (p.logits - q.logits)
    own_norm = p._cont_bern_log_norm() + gradtrack.log1p(-p.probs)
    other_norm = -q._cont_bern_log_norm() - gradtrack.log1p(-q.probs)
    return logit_gap_term + own_norm + other_norm


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    # log B(q) - log B(p) + sum_i (a_i - b_i) E_p[log x_i]
    alpha, beta = p.concentration, q.concentration
    alpha_total = alpha.sum(-1)
    beta_total = beta.sum(-1)
    total_gap = alpha_total.lgamma() - beta_total.lgamma()
    entry_gap = (alpha.lgamma() - beta.lgamma()).sum(-1)
    gaps = alpha - beta
    mean_log = alpha.digamma() - alpha_total.digamma().unsqueeze(-1)
    return total_gap - entry_gap + (gaps * mean_log).sum(-1)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    # r - log r - 1 with r = rate_q / rate_p
    r = q.rate / p.rate
    return -r.log() + r - 1


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    # the Bregman divergence of the log normalizer between the natural parameters
    if type(p) is not type(q):
        raise NotImplementedError(
            "The cross KL-divergence between different exponential families cannot "
            "                            be computed using Bregman divergences")
    eta_p = [theta.detach().requires_grad_() for theta in p._natural_params]
    eta_q = q._natural_params
    normalizer_p = p._log_normalizer(*eta_p)
    mean_params = gradtrack.autograd.grad(normalizer_p.sum(), eta_p, create_graph=True)
    bregman = q._log_normalizer(*eta_q) - normalizer_p
    event_dims = len(q.event_shape)
    for theta_p, theta_q, slope in zip(eta_p, eta_q, mean_params):
        bregman -= _sum_rightmost((theta_q - theta_p) * slope, event_dims)
    return bregman


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    # k_q log(rate_p / rate_q) + log G(k_q) - log G(k_p) + (k_p - k_q) psi(k_p)
    # + (rate_q - rate_p) E_p[x]
    k_p, k_q = p.concentration, q.concentration
    pieces = (k_q * (p.rate / q.rate).log(),
              gradtrack.lgamma(k_q) - gradtrack.lgamma(k_p),
              (k_p - k_q) * gradtrack.digamma(k_p),
              (q.rate - p.rate) * (k_p / p.rate))
    kl = pieces[0]
    for piece in pieces[1:]:
        kl = kl + piece
    return kl


_ONE_PLUS_EULER = 1 + euler_constant


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p, q):
    # log(s_q / s_p) + (m_p - m_q) / s_q + gamma s_p / s_q
    # + exp((m_q - m_p) / s_q) Gamma(1 + s_p / s_q) - 1 - gamma
    widths = p.scale / q.scale
    q_shift = q.loc / q.scale
    p_shift = p.loc / q.scale
    location_part = -widths.log() - q_shift + p_shift
    euler_part = widths * euler_constant
    gamma_part = gradtrack.exp(q_shift + (1 + widths).lgamma() - p_shift)
    return location_part + euler_part + gamma_part - _ONE_PLUS_EULER


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    # -H(p) - E_p[log q(k)], with E_p[k] = (1 - p) / p failures
    neg_entropy = -p.entropy()
    return neg_entropy - gradtrack.log1p(-q.probs) / p.probs - q.logits


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p, q):
    # folding both at 0 keeps the KL of the underlying normals
    return _kl_normal_normal(p.base_dist, q.base_dist)


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    # log(b_q / b_p) + |m_p - m_q| / b_q + (b_p / b_q) exp(-|m_p - m_q| / b_p) - 1
    widths = p.scale / q.scale
    distance = (p.loc - q.loc).abs()
    neg_log_widths = -widths.log()
    spread_q = distance / q.scale
    decay_p = widths * gradtrack.exp(-distance / p.scale)
    return neg_log_widths + spread_q + decay_p - 1


def _tril_half_logdet(tril):
    """Half the log determinant of ``L @ L.mT``: the sum of the logs of ``L``'s diagonal."""
    return tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)


def _solved_trace(tril, rhs):
    """``tr(X @ X.mT)`` for ``X = inv(L) @ rhs``, ``L`` lower triangular."""
    return _batch_trace_XXT(gradtrack.linalg.solve_triangular(tril, rhs, upper=False))


def _lowrank_inverse_factor(q):
    """``A`` with ``inv(cov_q) = diag(1 / D_q) - A.mT @ A`` (the Woodbury identity,
    ``A = inv(L_C) @ W_q.mT @ diag(1 / D_q)`` for the capacitance's factor ``L_C``)."""
    Wt_Dinv = q._unbroadcasted_cov_factor.mT / q._unbroadcasted_cov_diag.unsqueeze(-2)
    return gradtrack.linalg.solve_triangular(q._capacitance_tril, Wt_Dinv, upper=False)


def _lowrank_logdet(d):
    return _batch_lowrank_logdet(d._unbroadcasted_cov_factor, d._unbroadcasted_cov_diag,
                                 d._capacitance_tril)


def _lowrank_mahalanobis_of_means(p, q):
    return _batch_lowrank_mahalanobis(q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag,
                                      q.loc - p.loc, q._capacitance_tril)


def _check_event_shapes(p, q, kinds):
    if p.event_shape != q.event_shape:
        raise ValueError(f"KL-divergence between two {kinds} with"
                         "                          different event shapes cannot be computed")


def _gaussian_kl(logdet_gap, trace, mahalanobis, n):
    """``(log det(Sigma_q) - log det(Sigma_p) + tr(inv(Sigma_q) Sigma_p) + the
    Mahalanobis distance of the means under q - n) / 2``."""
    return 0.5 * (logdet_gap + trace + mahalanobis - n)


# NOTE: the three pairs below with a low-rank normal, as the pair of two full ones,
# are _gaussian_kl; the trace is a sum of squared entries, taken apart along the
# low-rank and diagonal parts of each covariance.

@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrankmultivariatenormal_lowrankmultivariatenormal(p, q):
    _check_event_shapes(p, q, "Low Rank Multivariate Normals")
    logdet_gap = _lowrank_logdet(q) - _lowrank_logdet(p)
    mahalanobis = _lowrank_mahalanobis_of_means(p, q)
    A = _lowrank_inverse_factor(q)
    p_W, p_D = p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag
    q_D = q._unbroadcasted_cov_diag
    # tr((diag(1 / D_q) - A.mT @ A) @ (diag(D_p) + W_p @ W_p.mT)), one part at a time
    diag_diag = (p_D / q_D).sum(-1)
    diag_factor = _batch_trace_XXT(p_W * q_D.rsqrt().unsqueeze(-1))
    woodbury_diag = _batch_trace_XXT(A * p_D.sqrt().unsqueeze(-2))
    woodbury_factor = _batch_trace_XXT(A.matmul(p_W))
    trace = diag_diag + diag_factor - woodbury_diag - woodbury_factor
    return _gaussian_kl(logdet_gap, trace, mahalanobis, p.event_shape[0])


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_multivariatenormal_lowrankmultivariatenormal(p, q):
    _check_event_shapes(p, q, "(Low Rank) Multivariate Normals")
    p_tril = p._unbroadcasted_scale_tril
    logdet_gap = _lowrank_logdet(q) - 2 * _tril_half_logdet(p_tril)
    mahalanobis = _lowrank_mahalanobis_of_means(p, q)
    A = _lowrank_inverse_factor(q)
    # tr((diag(1 / D_q) - A.mT @ A) @ L_p @ L_p.mT)
    trace = (_batch_trace_XXT(p_tril * q._unbroadcasted_cov_diag.rsqrt().unsqueeze(-1))
             - _batch_trace_XXT(A.matmul(p_tril)))
    return _gaussian_kl(logdet_gap, trace, mahalanobis, p.event_shape[0])


@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_lowrankmultivariatenormal_multivariatenormal(p, q):
    _check_event_shapes(p, q, "(Low Rank) Multivariate Normals")
    L_q, W_p = q._unbroadcasted_scale_tril, p._unbroadcasted_cov_factor
    logdet_gap = 2 * _tril_half_logdet(L_q) - _lowrank_logdet(p)
    mahalanobis = _batch_mahalanobis(L_q, q.loc - p.loc)
    # tr(inv(L_q @ L_q.mT) @ (W_p @ W_p.mT + diag(D_p))), by solving with L_q
    batch = gradtrack.broadcast_shapes(L_q.shape[:-2], W_p.shape[:-2])
    n = p.event_shape[0]
    L_q = L_q.expand(batch + (n, n))
    W_p = W_p.expand(batch + (n, p.cov_factor.size(-1)))
    D_p_root = gradtrack.diag_embed(p._unbroadcasted_cov_diag.sqrt()).expand(batch + (n, n))
    trace = _solved_trace(L_q, W_p) + _solved_trace(L_q, D_p_root)
    return _gaussian_kl(logdet_gap, trace, mahalanobis, p.event_shape[0])


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(p, q):
    _check_event_shapes(p, q, "Multivariate Normals")
    L_p, L_q = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    # the log determinants enter halved already; the rest as in _gaussian_kl
    half_logdet_gap = _tril_half_logdet(L_q) - _tril_half_logdet(L_p)
    batch = gradtrack.broadcast_shapes(L_q.shape[:-2], L_p.shape[:-2])
    n = p.event_shape[0]
    trace = _solved_trace(L_q.expand(batch + (n, n)), L_p.expand(batch + (n, n)))
    mahalanobis = _batch_mahalanobis(L_q, q.loc - p.loc)
    return half_logdet_gap + 0.5 * (trace + mahalanobis - n)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    # (v + d^2 - 1 - log v) / 2, v = (s_p / s_q)^2 and d = (m_p - m_q) / s_q
    v = (p.scale / q.scale).pow(2)
    d_sq = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (v + d_sq - 1 - v.log())


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p, q):
    # the one-hot encoding changes nothing
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p, q):
    # a_q log(x_p / x_q) - log(a_q / a_p) + a_q / a_p - 1, infinite when x_p < x_q
    scale_ratio_p_q = p.scale / q.scale
    shape_ratio = q.alpha / p.alpha
    kl = q.alpha * scale_ratio_p_q.log() - shape_ratio.log() + shape_ratio - 1
    return _inf_where(kl, p.support.lower_bound < q.support.lower_bound)


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    # lam_p log(lam_p / lam_q) - (lam_p - lam_q)
    lam_p, lam_q = p.rate, q.rate
    log_gap = lam_p.log() - lam_q.log()
    return lam_p * log_gap - (lam_p - lam_q)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    # the same bijection keeps the KL of the bases
    if p.transforms != q.transforms or p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    # log(width_q / width_p), infinite when p's interval leaves q's
    kl = ((q.high - q.low) / (p.high - p.low)).log()
    return _inf_where(kl, (q.low > p.low) | (q.high < p.high))


# NOTE [The pairs of two kinds]: torch registers the pairs of two different kinds
# (Beta and Normal, Uniform and Gamma, ...) next, between the pairs above and the two
# below; they live in kl_two_kinds.py, whose decorators register them as it is
# imported here (it takes register_kl and the helpers from kl_registry.py): the import
# must stay at this point, not at the top, for the order of the registry.
from . import kl_two_kinds  # noqa: E402, F401 - imported for its registrations


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    # the KLs of the base add up over the reinterpreted dimensions
    dims = p.reinterpreted_batch_ndims
    if dims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), dims)


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    # log(((g_p + g_q)^2 + (m_p - m_q)^2) / (4 g_p g_q))
    numerator = (p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)
    return numerator.log() - (4 * p.scale * q.scale).log()
