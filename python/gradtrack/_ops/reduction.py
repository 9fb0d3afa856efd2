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
from .._dtype_names import SCALAR_NAME, dtype_key
from ..autograd._named_nodes import composite_node
from . import check_norm_identity, int_arg, methods, wrap_dim

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
    k = int_arg(k, "kthvalue", "k", 2)
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
    if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
        p = 2
    if isinstance(p, str):
        # torch hands every other string order to matrix_norm over dim (all dims when
        # None), which refuses anything but two dims
        from ..linalg import matrix_norm

        dims = list(range(input.dim())) if dim is None else dim
        return matrix_norm(input, p, dims, keepdim)
    if p is None:
        p = 2
    p, dims = float(p), _reduce_dim(dim)
    if input.is_floating_point():
        check_norm_identity(p, input.shape, dims)
    return _E.vector_norm(input, p, dims, keepdim)


def norm_except_dim(v, pow=2, dim=0):  # noqa: A002 - torch's parameter names
    """The ``pow``-norm of each slice of ``v`` along ``dim`` over all its other dims,
    shaped to broadcast against ``v`` (weight normalization's norm); ``dim=-1``: the
    norm of all of ``v``.

    >>> import gradtrack
    >>> gradtrack.norm_except_dim(gradtrack.tensor([[3., 4.], [6., 8.]]))
    tensor([[ 5.],
            [10.]])
    """
    pow = int_arg(pow, "norm_except_dim", "pow", 2)  # noqa: A001
    dim = int_arg(dim, "norm_except_dim", "dim", 3)
    if dim == -1:
        return _at_norm(v, float(pow), [], False)
    last = v.dim() - 1
    if dim != 0 and dim != last:
        return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)
    if v.dim() == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    keep = v.size(dim)
    shape = [1] * v.dim()
    shape[dim] = keep
    rows = v.contiguous().view(keep, -1) if dim == 0 else v.contiguous().view(-1, keep)
    return _at_norm(rows, float(pow), [1] if dim == 0 else [0], False).view(shape)


def _vector_norm(input, p, dims, keepdim):  # noqa: A002
    return _E.vector_norm(input, p, dims, keepdim)


# torch's at::norm (which norm_except_dim and frobenius_norm call) records NormBackward0
# without dims and NormBackward1 with them; torch.norm itself records the vector norm's node.
_NORM_NODES = (composite_node("NormBackward0", _vector_norm),
               composite_node("NormBackward1", _vector_norm))


def _at_norm(input, p, dims, keepdim, dim_overload=None):  # noqa: A002
    if input.requires_grad and _C.is_grad_enabled():
        overload = builtins.bool(dims) if dim_overload is None else dim_overload
        return _NORM_NODES[overload](input, p, dims, keepdim)
    return _E.vector_norm(input, p, dims, keepdim)


# torch warns once per process that these two are left for the JIT (TORCH_WARN_ONCE).
_WARNED = set()


def _warn_once(name, instead):
    if name not in _WARNED:
        _WARNED.add(name)
        import warnings
        warnings.warn(f"at::{name} is deprecated and it is just left for JIT compatibility. "
                      "It will be removed in a future PyTorch release. Please use "
                      f"`{instead}` instead", UserWarning, stacklevel=3)


def frobenius_norm(input, dim, keepdim=False):  # noqa: A002 - torch's parameter name
    """The 2-norm over ``dim`` (at most two dims), torch's deprecated form of
    ``linalg.vector_norm(input, 2, dim, keepdim)``.

    >>> import gradtrack
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     gradtrack.frobenius_norm(gradtrack.tensor([[3., 4.]]), [0, 1])
    tensor(5.)
    """
    dims = [dim] if isinstance(dim, int) else list(dim)
    _warn_once("frobenius_norm", "linalg.vector_norm(A, 2., dim, keepdim)")
    if len(dims) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dims)} dimensions "
                           "instead.")
    if input.is_floating_point() is False and not input.is_complex():
        name = SCALAR_NAME[dtype_key(input.dtype)]
        raise RuntimeError("norm(): input dtype should be either floating point or complex. "
                           f"Got {name} instead.")
    return _at_norm(input, 2.0, [wrap_dim(d, input.dim()) for d in dims], keepdim, True)


def nuclear_norm(input, dim=None, keepdim=False):  # noqa: A002 - torch's parameter name
    """The sum of the singular values of the matrices over ``dim`` (the last two by
    default), torch's deprecated form of ``linalg.matrix_norm(input, 'nuc', dim,
    keepdim)``; ``nuclear_norm(input, keepdim)`` takes a bool second.

    >>> import gradtrack
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     gradtrack.nuclear_norm(gradtrack.tensor([[3., 0.], [0., 4.]]))
    tensor(7.)
    """
    if isinstance(dim, builtins.bool):  # torch's overload (input, keepdim)
        dim, keepdim = None, dim
    _warn_once("nuclear_norm", "linalg.matrix_norm(A, 'nuc', dim, keepdim)")
    from ..linalg import matrix_norm
    return matrix_norm(input, "nuc", (-2, -1) if dim is None else dim, keepdim)


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


def _sum_to_size(self, *size):
    """The sum of ``self`` down to ``size``, which ``self`` must broadcast from: leading
    dims summed away, dims of size 1 in ``size`` summed with keepdim. ``self`` itself
    when there is nothing to sum.

    >>> import gradtrack
    >>> gradtrack.ones(2, 3).sum_to_size(1, 3)
    tensor([[2., 2., 2.]])
    """
    if len(size) == 1 and not isinstance(size[0], builtins.int):
        size = tuple(size[0])
    shape = tuple(self.shape)
    lead = len(shape) - len(size)
    expandable = lead >= 0 and all(s == t or s == 1 for s, t in zip(size, shape[lead:]))
    if not expandable:
        raise RuntimeError(f"size {{[{', '.join(map(str, size))}]}} is not expandable to size "
                           f"{{[{', '.join(map(str, shape))}]}}.")
    dims = list(range(lead)) + [lead + i for i, s in enumerate(size)
                                if s == 1 and shape[lead + i] != 1]
    if not dims:
        return self
    result = _C.Tensor.sum(self, dims, True)
    return result.view(size) if lead > 0 else result


_sum_to_size.__name__ = "sum_to_size"


def is_same_size(input, other):  # noqa: A002
    """True when the two tensors have the same shape.

    >>> import gradtrack
    >>> gradtrack.is_same_size(gradtrack.zeros(2, 3), gradtrack.ones(2, 3))
    True
    """
    return tuple(input.shape) == tuple(other.shape)


def is_nonzero(input):  # noqa: A002
    """Whether the one element of ``input`` is not zero (NaN counts as nonzero).

    >>> import gradtrack
    >>> gradtrack.is_nonzero(gradtrack.tensor([0.5]))
    True
    """
    n = input.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return input.item() != 0


# ---- the trapezoid rule ----------------------------------------------------------------------

def _zeros_except(y, dim):
    sizes = list(y.shape)
    del sizes[dim]
    return _C.zeros(sizes, dtype=y.dtype)


def _spacing(name, y, x, dim):
    """The gaps between the sample points ``x`` along ``dim``, shaped to broadcast with
    the gaps of ``y`` (a 1-D ``x`` along ``dim``; a shorter one with leading ones)."""
    if x.dim() == 1:
        if x.shape[0] != y.shape[dim]:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        sizes = [1] * y.dim()
        sizes[dim] = x.shape[0]
        x = x.view(sizes)
    elif x.dim() < y.dim():
        x = x.view([1] * (y.dim() - x.dim()) + list(x.shape))
    return x[(slice(None),) * dim + (slice(1, None),)] - x[(slice(None),) * dim + (slice(0, -1),)]


def _pairs(y, dim):
    """The sums of neighbouring samples along ``dim``."""
    head = (slice(None),) * dim
    return y[head + (slice(0, -1),)] + y[head + (slice(1, None),)]


def _trapezoid_args(name, y, x, dx, dim):
    if x is not None and dx is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments - got "
                        "(Tensor, Tensor, dx=...), but expected one of:\n"
                        " * (Tensor y, Tensor x, *, int dim = -1)\n"
                        " * (Tensor y, *, Number dx = 1, int dim = -1)\n")
    dim = wrap_dim(dim, y.dim())
    if x is None and y.dtype == _C.bool:
        raise RuntimeError(f"{name}: received a bool input for `y`, but bool is not supported")
    if x is not None and _C.bool in (x.dtype, y.dtype):
        raise RuntimeError(f"{name}: received a bool input for `x` or `y`, but bool is not "
                           "supported")
    if dx is not None and isinstance(dx, (builtins.bool, builtins.complex)):
        raise RuntimeError(f"{name}: Currently, we only support dx as a real number.")
    return dim, 1 if dx is None and x is None else dx


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The integral of the samples ``y`` along ``dim`` by the trapezoid rule, at the
    points ``x`` or with the spacing ``dx`` (1 by default).

    >>> import gradtrack
    >>> gradtrack.trapezoid(gradtrack.tensor([1.0, 4.0, 9.0]))
    tensor(9.)
    """
    dim, dx = _trapezoid_args("trapezoid", y, x, dx, dim)
    if y.shape[dim] == 0:  # no samples: 0, as NumPy
        return _zeros_except(y, dim)
    if x is None:
        ends = y.select(dim, 0) + y.select(dim, -1)
        # torch's C++ multiplies by doubles (mul.Scalar: MulBackward1)
        return _E.mul_by_scalar(y.sum(dim) - _E.mul_by_scalar(ends, 0.5), builtins.float(dx))
    return _E.div_by_scalar((_pairs(y, dim) * _spacing("trapezoid", y, x, dim)).sum(dim), 2.0)


def trapz(y, x=None, *, dx=None, dim=-1):
    """torch's older name of :func:`trapezoid`.

    >>> import gradtrack
    >>> gradtrack.trapz(gradtrack.tensor([1.0, 4.0, 9.0]), dx=2.0)
    tensor(18.)
    """
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running integral of ``y`` along ``dim`` by the trapezoid rule: one value per
    gap between neighbouring samples.

    >>> import gradtrack
    >>> gradtrack.cumulative_trapezoid(gradtrack.tensor([1.0, 4.0, 9.0]))
    tensor([2.5000, 9.0000])
    """
    dim, dx = _trapezoid_args("cumulative_trapezoid", y, x, dx, dim)
    if x is None:
        return _E.mul_by_scalar(_pairs(y, dim), dx / 2.0).cumsum(dim)
    gaps = _spacing("cumulative_trapezoid", y, x, dim)
    return _E.div_by_scalar((_pairs(y, dim) * gaps).cumsum(dim), 2.0)


def _equal_method(self, other):
    """True if both tensors have the same shape and elements (a Python bool).

    >>> import gradtrack
    >>> gradtrack.tensor([1, 2]).equal(gradtrack.tensor([1, 2]))
    True
    """
    return _C.equal(self, other)


_equal_method.__name__ = "equal"

FUNCTIONS = (var, std, var_mean, std_mean, logsumexp, kthvalue, median, mode, norm,
             count_nonzero, max, min, is_same_size, is_nonzero, trapezoid, trapz,
             cumulative_trapezoid, norm_except_dim, frobenius_norm, nuclear_norm)
METHODS = {**methods(var, std, logsumexp, kthvalue, median, mode, count_nonzero, is_same_size,
                     is_nonzero),
           "norm": _norm_method, "sum_to_size": _sum_to_size, "equal": _equal_method}
