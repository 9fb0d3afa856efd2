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
                          _infinite_like, _x_log_x, kl_divergence, register_kl)

__all__ = ["kl_divergence", "register_kl"]

# The pairs are registered in torch's order, which decides ties between pairs (a
# stack of decorators registers from the bottom up, as torch's stacks do).
# Of one kind (and the full and low-rank multivariate normals with each other):

@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    softplus = gradtrack.nn.functional.softplus
    t1 = p.probs * (softplus(-q.logits) - softplus(-p.logits))
    t1[q.probs == 0] = gradtrack.inf
    t1[p.probs == 0] = 0  # 0 * log 0 counts as 0
    t2 = (1 - p.probs) * (softplus(q.logits) - softplus(p.logits))
    t2[q.probs == 1] = gradtrack.inf
    t2[p.probs == 1] = 0
    return t1 + t2


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    p_sum = p.concentration1 + p.concentration0
    q_sum = q.concentration1 + q.concentration0
    # log B(q) - log B(p): q's log gammas (less its sum's) against p's
    q_side = q.concentration1.lgamma() + q.concentration0.lgamma() + p_sum.lgamma()
    p_side = p.concentration1.lgamma() + p.concentration0.lgamma() + q_sum.lgamma()
    # E_p[log x] and E_p[log(1 - x)] weighed by the differences of the parameters
    by_1 = (p.concentration1 - q.concentration1) * gradtrack.digamma(p.concentration1)
    by_0 = (p.concentration0 - q.concentration0) * gradtrack.digamma(p.concentration0)
    by_sum = (q_sum - p_sum) * gradtrack.digamma(p_sum)
    return q_side - p_side + by_1 + by_0 + by_sum


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    if (p.total_count < q.total_count).any():
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count "
                                  "is not implemented")
    kl = p.total_count * (p.probs * (p.logits - q.logits) + (-p.probs).log1p()
                          - (-q.probs).log1p())
    # more trials under p: p puts mass where q has none
    more = p.total_count > q.total_count
    kl[more] = _infinite_like(kl[more])
    return kl


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t[(q.probs == 0).expand_as(t)] = gradtrack.inf
    t[(p.probs == 0).expand_as(t)] = 0
    return t.sum(-1)


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli_continuous_bernoulli(p, q):
    t1 = p.mean * (p.logits - q.logits)
    t2 = p._cont_bern_log_norm() + gradtrack.log1p(-p.probs)
    t3 = -q._cont_bern_log_norm() - gradtrack.log1p(-q.probs)
    return t1 + t2 + t3


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    p_total = p.concentration.sum(-1)
    q_total = q.concentration.sum(-1)
    t1 = p_total.lgamma() - q_total.lgamma()
    t2 = (p.concentration.lgamma() - q.concentration.lgamma()).sum(-1)
    # E_p[log x_i] = digamma(a_i) - digamma(sum a)
    expected_log = p.concentration.digamma() - p_total.digamma().unsqueeze(-1)
    return t1 - t2 + ((p.concentration - q.concentration) * expected_log).sum(-1)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    rate_ratio = q.rate / p.rate
    return -rate_ratio.log() + rate_ratio - 1


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    # Bregman divergence of the log normalizer, between natural parameters
    if type(p) is not type(q):
        raise NotImplementedError(
            "The cross KL-divergence between different exponential families cannot "
            "                            be computed using Bregman divergences")
    p_params = [param.detach().requires_grad_() for param in p._natural_params]
    q_params = q._natural_params
    p_log_normalizer = p._log_normalizer(*p_params)
    grads = gradtrack.autograd.grad(p_log_normalizer.sum(), p_params, create_graph=True)
    result = q._log_normalizer(*q_params) - p_log_normalizer
    for p_param, q_param, grad in zip(p_params, q_params, grads):
        result -= _sum_rightmost((q_param - p_param) * grad, len(q.event_shape))
    return result


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    t1 = q.concentration * (p.rate / q.rate).log()
    t2 = gradtrack.lgamma(q.concentration) - gradtrack.lgamma(p.concentration)
    t3 = (p.concentration - q.concentration) * gradtrack.digamma(p.concentration)
    t4 = (q.rate - p.rate) * (p.concentration / p.rate)
    return t1 + t2 + t3 + t4


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p, q):
    ct1 = p.scale / q.scale
    ct2 = q.loc / q.scale
    ct3 = p.loc / q.scale
    t1 = -ct1.log() - ct2 + ct3
    t2 = ct1 * euler_constant
    t3 = gradtrack.exp(ct2 + (1 + ct1).lgamma() - ct3)
    return t1 + t2 + t3 - (1 + euler_constant)


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    return -p.entropy() - gradtrack.log1p(-q.probs) / p.probs - q.logits


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p, q):
    return _kl_normal_normal(p.base_dist, q.base_dist)


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    scale_ratio = p.scale / q.scale
    loc_abs_diff = (p.loc - q.loc).abs()
    t1 = -scale_ratio.log()
    t2 = loc_abs_diff / q.scale
    t3 = scale_ratio * gradtrack.exp(-loc_abs_diff / p.scale)
    return t1 + t2 + t3 - 1


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


# NOTE: the three pairs below with a low-rank normal, as the pair of two full ones,
# are 1/2 (log det(Sigma_q) - log det(Sigma_p) + tr(inv(Sigma_q) Sigma_p) + the
# Mahalanobis distance of the means under q - n); the trace is a sum of squared
# entries, taken apart along the low-rank and diagonal parts of each covariance.

@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrankmultivariatenormal_lowrankmultivariatenormal(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Low Rank Multivariate Normals with"
                         "                          different event shapes cannot be computed")
    term1 = _lowrank_logdet(q) - _lowrank_logdet(p)
    term3 = _lowrank_mahalanobis_of_means(p, q)
    A = _lowrank_inverse_factor(q)
    p_W, p_D = p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag
    q_D = q._unbroadcasted_cov_diag
    # tr((diag(1 / D_q) - A.mT @ A) @ (diag(D_p) + W_p @ W_p.mT)), one part at a time
    diag_diag = (p_D / q_D).sum(-1)
    diag_factor = _batch_trace_XXT(p_W * q_D.rsqrt().unsqueeze(-1))
    capacitance_diag = _batch_trace_XXT(A * p_D.sqrt().unsqueeze(-2))
    capacitance_factor = _batch_trace_XXT(A.matmul(p_W))
    term2 = diag_diag + diag_factor - capacitance_diag - capacitance_factor
    return 0.5 * (term1 + term2 + term3 - p.event_shape[0])


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_multivariatenormal_lowrankmultivariatenormal(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two (Low Rank) Multivariate Normals with"
                         "                          different event shapes cannot be computed")
    p_tril = p._unbroadcasted_scale_tril
    term1 = _lowrank_logdet(q) - 2 * p_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
    term3 = _lowrank_mahalanobis_of_means(p, q)
    A = _lowrank_inverse_factor(q)
    # tr((diag(1 / D_q) - A.mT @ A) @ L_p @ L_p.mT)
    diag_part = _batch_trace_XXT(p_tril * q._unbroadcasted_cov_diag.rsqrt().unsqueeze(-1))
    capacitance_part = _batch_trace_XXT(A.matmul(p_tril))
    return 0.5 * (term1 + (diag_part - capacitance_part) + term3 - p.event_shape[0])


@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_lowrankmultivariatenormal_multivariatenormal(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two (Low Rank) Multivariate Normals with"
                         "                          different event shapes cannot be computed")
    q_tril, p_W = q._unbroadcasted_scale_tril, p._unbroadcasted_cov_factor
    term1 = 2 * q_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) - _lowrank_logdet(p)
    term3 = _batch_mahalanobis(q_tril, q.loc - p.loc)
    # tr(inv(L_q @ L_q.mT) @ (W_p @ W_p.mT + diag(D_p))), by solving with L_q
    batch_shape = gradtrack.broadcast_shapes(q_tril.shape[:-2], p_W.shape[:-2])
    n = p.event_shape[0]
    q_tril = q_tril.expand(batch_shape + (n, n))
    p_W = p_W.expand(batch_shape + (n, p.cov_factor.size(-1)))
    p_D_sqrt = gradtrack.diag_embed(p._unbroadcasted_cov_diag.sqrt()).expand(batch_shape + (n, n))
    factor_part = _batch_trace_XXT(gradtrack.linalg.solve_triangular(q_tril, p_W, upper=False))
    diag_part = _batch_trace_XXT(gradtrack.linalg.solve_triangular(q_tril, p_D_sqrt, upper=False))
    return 0.5 * (term1 + (factor_part + diag_part) + term3 - p.event_shape[0])


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Multivariate Normals with"
                         "                          different event shapes cannot be computed")
    p_tril, q_tril = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    # log det(Sigma_q) / 2 - log det(Sigma_p) / 2
    half_term1 = (q_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
                  - p_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1))
    batch_shape = gradtrack.broadcast_shapes(q_tril.shape[:-2], p_tril.shape[:-2])
    n = p.event_shape[0]
    # tr(Sigma_q^-1 Sigma_p) and the Mahalanobis distance of the means under q
    term2 = _batch_trace_XXT(gradtrack.linalg.solve_triangular(
        q_tril.expand(batch_shape + (n, n)), p_tril.expand(batch_shape + (n, n)), upper=False))
    term3 = _batch_mahalanobis(q_tril, q.loc - p.loc)
    return half_term1 + 0.5 * (term2 + term3 - n)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p, q):
    scale_ratio = p.scale / q.scale
    alpha_ratio = q.alpha / p.alpha
    result = q.alpha * scale_ratio.log() - alpha_ratio.log() + alpha_ratio - 1
    # p starts below q's scale: mass where q has none
    result[p.support.lower_bound < q.support.lower_bound] = gradtrack.inf
    return result


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    # the same bijection keeps the KL of the bases
    if p.transforms != q.transforms:
        raise NotImplementedError
    if p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    result = ((q.high - q.low) / (p.high - p.low)).log()
    result[(q.low > p.low) | (q.high < p.high)] = gradtrack.inf  # p's support leaves q's
    return result


# NOTE [The pairs of two kinds]: torch registers the pairs of two different kinds
# (Beta and Normal, Uniform and Gamma, ...) next, between the pairs above and the two
# below; they live in kl_two_kinds.py, whose decorators register them as it is
# imported here (it takes register_kl and the helpers from kl_registry.py): the import
# must stay at this point, not at the top, for the order of the registry.
from . import kl_two_kinds  # noqa: E402, F401 - imported for its registrations


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    t1 = ((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log()
    t2 = (4 * p.scale * q.scale).log()
    return t1 - t2
