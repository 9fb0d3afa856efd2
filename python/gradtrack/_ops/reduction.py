"""Reductions written in Python: the statistics (``var``/``std`` with torch's
``correction`` overloads, ``var_mean``/``std_mean``, ``logsumexp``), the order
statistics (``kthvalue``, ``median``, ``mode``), ``norm``, ``count_nonzero`` (a sum of
``input != 0``: it reduces dims, whatever it counts), and the module functions
``max``/``min``, whose three overloads the Tensor methods parse.

``sum``, ``mean``, ``prod``, ``amax``/``amin``, ``argmax``/``argmin``, ``all``/``any``
and ``equal`` are bound in C++ as they are. The others parse torch's arguments here
and call one C++ entry (``_C._ops``), which records the op's ``grad_fn``.

>>> import gradtrack
>>> gradtrack.var(gradtrack.tensor([1., 2., 3., 4.]), correction=0)
tensor(1.2500)
"""

import builtins

from .. import _C, _out, return_types
from . import methods

_E = _C._ops

BOUND = ("sum", "mean", "prod", "amax", "amin", "argmax", "argmin", "all", "any", "equal")


def _correction(name, dim, unbiased, correction):
    # torch's overloads: (dim, unbiased, keepdim), (dim, *, correction, keepdim)
    # and (unbiased); a bool in dim's place is the last one.
    if isinstance(dim, builtins.bool):
        if unbiased is not None:
            raise TypeError(f"{name}() received an invalid combination of arguments")
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments")
    if correction is not None:
        return dim, correction
    return dim, 1 if unbiased is None or unbiased else 0


def _reduce_dim(dim):
    return None if dim is None else (dim,) if isinstance(dim, builtins.int) else tuple(dim)


def _var_std(name, is_std, with_mean):
    def fn(input, dim=None, unbiased=None, keepdim=False, *, correction=None):  # noqa: A002
        dim, corr = _correction(name, dim, unbiased, correction)
        return _E.var_std(input, _reduce_dim(dim), corr, keepdim, is_std, with_mean)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"``{name}`` over ``dim`` (all dims by default) with divisor "
                  "N - correction (``unbiased=False`` is correction=0).")
    return fn


var = _var_std("var", False, False)
std = _var_std("std", True, False)
var_mean = _var_std("var_mean", False, True)
std_mean = _var_std("std_mean", True, True)


def logsumexp(input, dim, keepdim=False):  # noqa: A002
    """log(sum(exp(input))) over ``dim``, computed without overflow.

    >>> import gradtrack
    >>> gradtrack.logsumexp(gradtrack.tensor([0., 0.]), 0)
    tensor(0.6931)
    """
    return _E.logsumexp(input, _reduce_dim(dim), keepdim)


def kthvalue(input, k, dim=-1, keepdim=False):  # noqa: A002 - torch's argument name
    """The k-th smallest element along ``dim`` and its index.

    >>> import gradtrack
    >>> gradtrack.kthvalue(gradtrack.tensor([3., 1., 2.]), 2).values
    tensor(2.)
    """
    return return_types.kthvalue(_E.kthvalue(input, k, dim, keepdim))


def median(input, dim=None, keepdim=False):  # noqa: A002
    """The lower median of all elements, or (values, indices) along ``dim``;
    NaN wins (a line holding NaN has median NaN).

    >>> import gradtrack
    >>> gradtrack.median(gradtrack.tensor([4., 1., 3., 2.]))
    tensor(2.)
    """
    result = _E.median(input, dim, keepdim)
    return return_types.median(result) if isinstance(result, tuple) else result


def mode(input, dim=-1, keepdim=False):  # noqa: A002
    """The most frequent value along ``dim`` (the smallest of a tie) and the
    last index holding it.

    >>> import gradtrack
    >>> gradtrack.mode(gradtrack.tensor([3, 1, 3, 1, 2])).values
    tensor(1)
    """
    return return_types.mode(_E.mode(input, dim, keepdim))


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):  # noqa: A002
    """torch.norm: the 2-norm (``'fro'``) or the ``p``-norm over ``dim``.

    >>> import gradtrack
    >>> gradtrack.norm(gradtrack.tensor([3., 4.]))
    tensor(5.)
    """
    if out is not None:
        return _out.call("norm", norm, (input, p, dim, keepdim), {"dtype": dtype}, out)
    if dtype is not None:
        input = input.to(dtype)
    if p is None or p == "fro":
        p = 2
    if isinstance(p, str):
        raise NotImplementedError(f"gradtrack: norm with p='{p}' is not implemented")
    return _E.vector_norm(input, float(p), _reduce_dim(dim), keepdim)


def _norm_method(self, p="fro", dim=None, keepdim=False, dtype=None):
    return norm(self, p, dim, keepdim, dtype=dtype)


_norm_method.__name__ = "norm"
_norm_method.__doc__ = norm.__doc__


def count_nonzero(input, dim=None):  # noqa: A002
    """How many elements are nonzero, overall or along ``dim`` (an int or tuple).

    >>> import gradtrack
    >>> gradtrack.count_nonzero(gradtrack.tensor([[0, 1], [2, 3]]), dim=0)
    tensor([1, 2])
    """
    flags = input != 0
    if dim is None:
        return flags.sum(dtype=_C.int64)
    dims = (dim,) if isinstance(dim, builtins.int) else tuple(dim)
    return flags.sum(dims, dtype=_C.int64)


def max(input, dim=None, keepdim=False):  # noqa: A001 - PyTorch's name
    """The largest element, or (values, indices) along ``dim``, or elementwise with a tensor."""
    return _C.Tensor.max(input, dim, keepdim)


def min(input, dim=None, keepdim=False):  # noqa: A001
    """The smallest element, or (values, indices) along ``dim``, or elementwise with a tensor."""
    return _C.Tensor.min(input, dim, keepdim)


FUNCTIONS = (var, std, var_mean, std_mean, logsumexp, kthvalue, median, mode, norm,
             count_nonzero, max, min)
METHODS = {**methods(var, std, logsumexp, kthvalue, median, mode, count_nonzero),
           "norm": _norm_method}
