"""The KL divergence ``KL(p || q)`` between two distributions, looked up by their
types (``torch.distributions.kl``).

``register_kl(P, Q)`` registers a function for distributions of types ``P`` and ``Q``
and their subclasses. When several registered pairs fit, the most specific wins:
the one whose first type is most derived, then whose second type is (and the same
read from the second type first; if the two readings disagree a ``RuntimeWarning``
says which pair to register).

>>> import gradtrack
>>> from gradtrack.distributions import Normal, kl_divergence
>>> kl_divergence(Normal(0.0, 1.0), Normal(1.0, 1.0))
tensor(0.5000)
"""

import math
import warnings

import gradtrack

from .bernoulli import Bernoulli
from .categorical import Categorical
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .independent import Independent
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .uniform import Uniform
from .utils import _sum_rightmost

__all__ = ["kl_divergence", "register_kl"]

# (type_p, type_q) -> function, as registered, in registration order (the order
# decides between pairs that are not more specific than one another).
_KL_REGISTRY = {}
# (type(p), type(q)) -> the function dispatch chose (or NotImplemented), cleared by
# every registration.
_KL_MEMOIZE = {}


def _check_class(t):
    if not isinstance(t, type):
        # torch lets issubclass itself refuse a non-class: its TypeError is the message
        issubclass(t, Distribution)


def register_kl(type_p, type_q):
    """A decorator registering its function as ``kl_divergence`` for a ``p`` of type
    ``type_p`` and a ``q`` of type ``type_q`` (or subclasses of them).

    >>> import gradtrack
    >>> from gradtrack.distributions import Normal, kl_divergence, register_kl
    >>> class Narrow(Normal):
    ...     pass
    >>> @register_kl(Narrow, Narrow)
    ... def _kl_narrow(p, q):
    ...     return gradtrack.zeros(p.batch_shape)
    >>> kl_divergence(Narrow(0.0, 1.0), Narrow(5.0, 1.0))
    tensor(0.)
    """
    _check_class(type_p)
    _check_class(type_q)

    def decorator(fun):
        _KL_REGISTRY[type_p, type_q] = fun
        _KL_MEMOIZE.clear()  # a new pair may be more specific than one memoized
        return fun

    return decorator


def _before(a, b):
    """Whether the type pair ``a`` is strictly more specific than ``b``, read
    left to right: the first types decide unless they are the same."""
    if a == b:
        return False
    for x, y in zip(a, b):
        if not issubclass(x, y):
            return False
        if x is not y:
            break
    return True


def _most_specific(pairs):
    best = pairs[0]
    for pair in pairs[1:]:
        if _before(pair, best):
            best = pair
    return best


def _dispatch_kl(type_p, type_q):
    matches = [(p, q) for p, q in _KL_REGISTRY if issubclass(type_p, p) and issubclass(type_q, q)]
    if not matches:
        return NotImplemented
    left_p, left_q = _most_specific(matches)
    right_q, right_p = _most_specific([(q, p) for p, q in matches])
    left, right = _KL_REGISTRY[left_p, left_q], _KL_REGISTRY[right_p, right_q]
    if left is not right:
        warnings.warn(f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). "
                      f"Please register_kl({left_p.__name__}, {right_q.__name__})",
                      RuntimeWarning, stacklevel=2)
    return left


def kl_divergence(p, q):
    """``KL(p || q)``, one per batch entry, by the function registered for the most
    specific pair of types that fits.

    >>> import gradtrack
    >>> from gradtrack.distributions import Categorical, kl_divergence
    >>> kl_divergence(Categorical(gradtrack.tensor([0.5, 0.5])),
    ...               Categorical(gradtrack.tensor([0.25, 0.75])))
    tensor(0.1438)
    """
    key = type(p), type(q)
    fun = _KL_MEMOIZE.get(key)
    if fun is None:
        fun = _KL_MEMOIZE[key] = _dispatch_kl(*key)
    if fun is NotImplemented:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type "
                                  f"{p.__class__.__name__} and q type {q.__class__.__name__}")
    return fun(p, q)


def _infinite_like(tensor):
    return gradtrack.full_like(tensor, gradtrack.inf)


# The pairs are registered in torch's order, which decides ties between pairs.

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


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t[(q.probs == 0).expand_as(t)] = gradtrack.inf
    t[(p.probs == 0).expand_as(t)] = 0
    return t.sum(-1)


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


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    result = ((q.high - q.low) / (p.high - p.low)).log()
    result[(q.low > p.low) | (q.high < p.high)] = gradtrack.inf  # p's support leaves q's
    return result


@register_kl(Normal, Uniform)
def _kl_normal_uniform(p, q):
    # a normal has mass outside any bounded interval
    return _infinite_like(p.loc)


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p, q):
    width = p.high - p.low
    t1 = (math.sqrt(math.pi * 2) * q.scale / width).log()
    t2 = width.pow(2) / 12
    t3 = ((p.high + p.low - 2 * q.loc) / 2).pow(2)
    return t1 + 0.5 * (t2 + t3) / q.scale.pow(2)


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)
