"""The round-2 tensor ops (issue 19): cumsum, cumprod, sort, argsort, topk,
var/std (correction), var_mean/std_mean, logsumexp, tril/triu, flip, roll,
repeat and tile, with torch's argument names and defaults.

Each parses its arguments here and calls one C++ entry (``_C._ops``), which
validates as torch does, computes, and records the op's ``grad_fn``.

>>> import gradtrack
>>> x = gradtrack.tensor([3., 1., 2.], requires_grad=True)
>>> gradtrack.sort(x).values
tensor([1., 2., 3.], grad_fn=<SortBackward0>)
"""

import builtins
import types

from . import _C, _inplace, return_types

_E = _C._ops


def _dims(dims):
    """``f(0, 1)``, ``f((0, 1))`` and ``f([0, 1])`` alike."""
    if len(dims) == 1 and not isinstance(dims[0], builtins.int):
        return tuple(dims[0])
    return tuple(dims)


def cumsum(input, dim, *, dtype=None):  # noqa: A002 - torch's argument name
    """Cumulative sum along ``dim``; integers accumulate in int64.

    >>> import gradtrack
    >>> gradtrack.cumsum(gradtrack.tensor([1, 2, 3]), 0)
    tensor([1, 3, 6])
    """
    return _E.cumsum(input, dim, dtype)


def cumprod(input, dim, *, dtype=None):  # noqa: A002
    """Cumulative product along ``dim``.

    >>> import gradtrack
    >>> gradtrack.cumprod(gradtrack.tensor([1., 2., 3.]), 0)
    tensor([1., 2., 6.])
    """
    return _E.cumprod(input, dim, dtype)


# torch's sort.stable overload is taken whenever stable= is given (even None).
_UNSET = object()


def sort(input, dim=-1, descending=False, *, stable=_UNSET):  # noqa: A002
    """(values, indices) sorted along ``dim``; NaN sorts last (first when
    descending), and equal values keep their order (every sort is stable).

    >>> import gradtrack
    >>> gradtrack.sort(gradtrack.tensor([2, 3, 1])).indices
    tensor([2, 0, 1])
    """
    return return_types.sort(_E.sort(input, dim, descending, stable is not _UNSET))


def argsort(input, dim=-1, descending=False, *, stable=False):  # noqa: A002
    """The indices that sort ``input`` along ``dim``.

    >>> import gradtrack
    >>> gradtrack.argsort(gradtrack.tensor([2, 3, 1]))
    tensor([2, 0, 1])
    """
    return _E.sort(input, dim, descending, False)[1]


def topk(input, k, dim=-1, largest=True, sorted=True):  # noqa: A002
    """The ``k`` largest (or smallest) elements along ``dim`` and their indices.

    >>> import gradtrack
    >>> gradtrack.topk(gradtrack.tensor([2., 3., 1.]), 2).values
    tensor([3., 2.])
    """
    return return_types.topk(_E.topk(input, k, dim, largest, sorted))


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


def tril(input, diagonal=0):  # noqa: A002
    """The lower triangle (on and below ``diagonal``) of the last two dims.

    >>> import gradtrack
    >>> gradtrack.tril(gradtrack.ones(2, 2))
    tensor([[1., 0.],
            [1., 1.]])
    """
    return _E.tril(input, diagonal, False)


def triu(input, diagonal=0):  # noqa: A002
    """The upper triangle (on and above ``diagonal``) of the last two dims.

    >>> import gradtrack
    >>> gradtrack.triu(gradtrack.ones(2, 2))
    tensor([[1., 1.],
            [0., 1.]])
    """
    return _E.tril(input, diagonal, True)


def flip(input, dims):  # noqa: A002
    """``input`` reversed along ``dims`` (a copy).

    >>> import gradtrack
    >>> gradtrack.flip(gradtrack.tensor([1, 2, 3]), (0,))
    tensor([3, 2, 1])
    """
    return _E.flip(input, dims)


def roll(input, shifts, dims=None):  # noqa: A002
    """Elements shifted along ``dims`` (of the flattened tensor without dims),
    wrapping around.

    >>> import gradtrack
    >>> gradtrack.roll(gradtrack.tensor([1, 2, 3]), 1)
    tensor([3, 1, 2])
    """
    return _E.roll(input, shifts, () if dims is None else dims)


def tile(input, dims):  # noqa: A002
    """``input`` repeated ``dims`` times along each dim; missing leading dims
    of ``dims`` count as 1 (RepeatBackward0, as torch's).

    >>> import gradtrack
    >>> gradtrack.tile(gradtrack.tensor([1, 2]), (2,))
    tensor([1, 2, 1, 2])
    """
    dims = tuple(dims) if not isinstance(dims, builtins.int) else (dims,)
    if len(dims) < input.dim():
        dims = (1,) * (input.dim() - len(dims)) + dims
    return _E.repeat(input, dims)


def _repeat_method(self, *repeats):
    if not repeats:
        raise TypeError('repeat() missing 1 required positional arguments: "repeats"')
    return _E.repeat(self, _dims(repeats))


def _flip_method(self, *dims):
    return _E.flip(self, _dims(dims))


def _tile_method(self, *dims):
    return tile(self, _dims(dims))


def _tril_(self, diagonal=0):
    _inplace.check(self)
    return _E.tril_(self, diagonal, False)


def _triu_(self, diagonal=0):
    _inplace.check(self)
    return _E.tril_(self, diagonal, True)


def _method(fn):
    """``fn`` as a Tensor method: the same function with its first parameter
    named ``self``, so that its signature is the method's (no wrapper: a copy
    with the renamed code object)."""
    code = fn.__code__
    first = code.co_varnames[0]
    if first in code.co_cellvars or "__signature__" in vars(fn):
        return _bound_like(fn)  # a closure reads the parameter by its name
    method = types.FunctionType(code.replace(co_varnames=("self", *code.co_varnames[1:])),
                                fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    method.__kwdefaults__ = fn.__kwdefaults__
    method.__annotations__ = {("self" if k == first else k): v
                              for k, v in fn.__annotations__.items()}
    method.__doc__ = fn.__doc__
    method.__qualname__ = fn.__name__
    method.__module__ = fn.__module__
    return method


def _bound_like(fn):
    """``fn`` as a Tensor method through a fast path (NOTE [Lazy signatures])."""
    from ._wrappers import fast_path, lazy_signature

    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)
    method.__name__ = method.__qualname__ = fn.__name__
    method.__doc__ = fn.__doc__

    def signature():
        import inspect

        sig = inspect.signature(fn)
        params = list(sig.parameters.values())
        return sig.replace(parameters=[params[0].replace(name="self")] + params[1:])
    return fast_path(fn, lazy_signature(method, signature), (), "Tensor")


FUNCTIONS = (cumsum, cumprod, sort, argsort, topk, var, std, var_mean, std_mean, logsumexp,
             tril, triu, flip, roll, tile)


def install(cls):
    """Attaches the methods (``x.sort()``, ``x.repeat(2, 1)``, ...) to the Tensor class."""
    for fn in (cumsum, cumprod, sort, argsort, topk, var, std, logsumexp, tril, triu, roll):
        setattr(cls, fn.__name__, _method(fn))
    cls.repeat = _repeat_method
    cls.repeat.__name__ = "repeat"
    cls.flip = _flip_method
    cls.flip.__name__ = "flip"
    cls.tile = _tile_method
    cls.tile.__name__ = "tile"
    _tril_.__name__, _triu_.__name__ = "tril_", "triu_"
    cls.tril_ = _tril_
    cls.triu_ = _triu_
