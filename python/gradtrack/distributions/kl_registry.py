"""How ``kl_divergence`` finds its function: the registry of type pairs that
``register_kl`` fills and the dispatch to the most specific pair, with the helpers
the registered functions share. The pairs themselves are registered by ``kl.py`` and
``kl_two_kinds.py``, in torch's order (NOTE [The pairs of two kinds] in ``kl.py``).

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

import warnings

import gradtrack

from .distribution import Distribution

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


def _x_log_x(tensor):
    """``x * log(x)``, 0 at ``x = 0``."""
    return gradtrack.special.xlogy(tensor, tensor)


def _batch_trace_XXT(bmat):
    """The trace of ``X @ X.mT`` for each matrix ``X`` of the batch: the sum of its
    squared entries."""
    rows, columns = bmat.size(-2), bmat.size(-1)
    return bmat.reshape(-1, rows * columns).pow(2).sum(-1).reshape(bmat.shape[:-2])


def _inf_where(result, mask):
    """``result`` set to ``inf`` in place where ``mask`` holds (the entries where ``p``
    has mass that ``q`` lacks), returned for chaining."""
    result[mask] = gradtrack.inf
    return result
