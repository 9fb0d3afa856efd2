"""Ops along one dim whose result depends on the order of its elements: the scans
(``cumsum``, ``cumprod``) and ``diff``, their inverse; sorting (``sort``,
``argsort``, ``topk``); and binary search in sorted data (``searchsorted``,
``bucketize``).

Each parses torch's arguments here and calls one C++ entry (``_C._ops``, or
``_C._resample`` for the binary search), which validates as torch does, computes,
and records the op's ``grad_fn``; ``diff`` is torch's composite of ``narrow`` and
``sub``.

>>> import gradtrack
>>> x = gradtrack.tensor([3., 1., 2.], requires_grad=True)
>>> gradtrack.sort(x).values
tensor([1., 2., 3.], grad_fn=<SortBackward0>)
"""

import builtins

from .. import _C, _out, return_types
from .._dtype_names import SCALAR_NAME, dtype_key
from . import int_arg, methods, wrap_dim

_E = _C._ops
_R = _C._resample


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


def diff(input, n=1, dim=-1, prepend=None, append=None):  # noqa: A002
    """The ``n``-th forward difference along ``dim``; ``prepend``/``append`` are joined
    on first.

    >>> import gradtrack
    >>> gradtrack.diff(gradtrack.tensor([1, 4, 9, 16]))
    tensor([3, 5, 7])
    """
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = wrap_dim(dim, input.dim())
    if prepend is not None or append is not None:
        parts = [t for t in (prepend, input, append) if t is not None]
        input = _C.cat([p if p.dim() else p.expand(_shape_with(input, d, 1)) for p in parts], d)
    for _ in range(n):
        size = input.shape[d]
        if size == 0:
            break
        is_bool = repr(input.dtype).endswith("bool")
        a, b = input.narrow(d, 1, size - 1), input.narrow(d, 0, size - 1)
        input = a.logical_xor(b) if is_bool else a - b
    return input


def _shape_with(t, d, n):
    shape = list(t.shape)
    shape[d] = n
    return shape


# torch's sort.stable overload is taken whenever stable= is given (even None).
_UNSET = object()


def sort(input, dim=-1, descending=False, *, stable=_UNSET):  # noqa: A002
    """(values, indices) sorted along ``dim``; NaN sorts last (first when
    descending). Equal values keep their order with ``stable=True``; otherwise they come
    in the order torch's unstable sort gives them.

    >>> import gradtrack
    >>> gradtrack.sort(gradtrack.tensor([2, 3, 1])).indices
    tensor([2, 0, 1])
    """
    return return_types.sort(_E.sort(input, dim, descending, stable is not _UNSET,
                                     bool(stable) if stable is not _UNSET else False))


def msort(input):  # noqa: A002
    """``input`` sorted along its first dim (the values of ``sort(input, 0)``, SortBackward0).

    >>> import gradtrack
    >>> gradtrack.msort(gradtrack.tensor([[2., 1.], [1., 3.]]))
    tensor([[1., 1.],
            [2., 3.]])
    """
    return _E.sort(input, 0, False, False, False)[0]


def argsort(input, dim=-1, descending=False, *, stable=False):  # noqa: A002
    """The indices that sort ``input`` along ``dim``.

    >>> import gradtrack
    >>> gradtrack.argsort(gradtrack.tensor([2, 3, 1]))
    tensor([2, 0, 1])
    """
    return _E.sort(input, dim, descending, False, stable)[1]


def topk(input, k, dim=-1, largest=True, sorted=True):  # noqa: A002
    """The ``k`` largest (or smallest) elements along ``dim`` and their indices.

    >>> import gradtrack
    >>> gradtrack.topk(gradtrack.tensor([2., 3., 1.]), 2).values
    tensor([3., 2.])
    """
    k = int_arg(k, "topk", "k", 2)
    return return_types.topk(_E.topk(input, k, dim, largest, sorted))


# ---- binary search -----------------------------------------------------------------------

def _dt(t):
    return SCALAR_NAME[dtype_key(t.dtype)]


def _common(a, b):
    """torch's result type of two tensors of one category or another."""
    if a.dtype == b.dtype:
        return a, b
    kind = (_C.zeros(1, dtype=a.dtype) + _C.zeros(1, dtype=b.dtype)).dtype
    return a.to(kind), b.to(kind)


def _check_search(boundaries, values, out_int32, right, side, sorter):
    if side is not None and side not in ("left", "right"):
        raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got "
                           f"{side}")
    if side == "left" and right:
        raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got "
                           "side of left while right was True")
    if boundaries.dim() == 0:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should have positive "
                           "dimension, but got 0 dimension")
    if boundaries.dim() != 1 and (values.dim() != boundaries.dim() or tuple(
            values.shape[:-1]) != tuple(boundaries.shape[:-1])):
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
            "dimensions of boundaries tensor and input value tensor must match, but we got "
            f"boundaries tensor {list(boundaries.shape)} and input value tensor "
            f"{list(values.shape)}")
    if sorter is not None:
        if sorter.dtype != _C.int64:
            raise RuntimeError(f"torch.searchsorted(): sorter must be a tensor of long dtype but "
                               f"got dtype {_dt(sorter)}")
        if tuple(sorter.shape) != tuple(boundaries.shape):
            raise RuntimeError(
                "torch.searchsorted(): boundary and sorter must have the same size, but got "
                f"boundary tensor {list(boundaries.shape)}and got sorter tensor "
                f"{list(sorter.shape)}")
        n = boundaries.shape[-1]
        if sorter.numel() and builtins.bool(((sorter < 0) | (sorter >= n)).any()):
            raise RuntimeError("torch.searchsorted(): sorter index out of range")


def _search(boundaries, values, out_int32, right, sorter):
    scalar = not isinstance(values, _C.Tensor)
    if scalar:
        values = _C.tensor(values)
    if values.dtype == _C.bool or boundaries.dtype == _C.bool:
        raise NotImplementedError("\"searchsorted_out_cpu\" not implemented for 'Bool'")
    boundaries, values = _common(boundaries, values)
    flat_values = values.reshape(1) if values.dim() == 0 else values
    r = _R.searchsorted(boundaries.detach(), flat_values.detach(), builtins.bool(out_int32),
                        builtins.bool(right), None if sorter is None else sorter.detach())
    return r.reshape(()) if values.dim() == 0 else r


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,  # noqa: A002
                 out=None, sorter=None):
    """For each value, its insertion position in the innermost dim of
    ``sorted_sequence`` (the first position whose element is not less than
    it; with ``right=True`` / ``side='right'``, greater than it).

    >>> import gradtrack
    >>> gradtrack.searchsorted(gradtrack.tensor([1, 3, 5, 7]), gradtrack.tensor([3, 6]))
    tensor([1, 3])
    """
    values = input  # torch's parser names the values `input` (its docs: `values`)
    vals = values if isinstance(values, _C.Tensor) else _C.tensor(values)
    _check_search(sorted_sequence, vals, out_int32, right, side, sorter)
    right = builtins.bool(right) or side == "right"
    if out is not None:
        _check_out_dtype(out, out_int32)
        return _out.write(out, _search(sorted_sequence, values, out_int32, right, sorter), False)
    return _search(sorted_sequence, values, out_int32, right, sorter)


def _check_out_dtype(out, out_int32):
    want = _C.int32 if out_int32 else _C.int64
    if out.dtype != want:
        raise RuntimeError(
            "torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) or "
            "Long(int64) depending on whether out_int32 flag is True, but we got output tensor's "
            f"dtype {_dt(out)} and out_int32 flag is {builtins.bool(out_int32)}")


def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):  # noqa: A002
    """The bucket of each element of ``input`` among the 1-D sorted
    ``boundaries`` (``searchsorted(boundaries, input)``).

    >>> import gradtrack
    >>> gradtrack.bucketize(gradtrack.tensor([3., 6., 9.]), gradtrack.tensor([1., 3., 5., 7., 9.]))
    tensor([1, 3, 4])
    """
    if boundaries.dim() != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.dim()})")
    if out is not None:
        _check_out_dtype(out, out_int32)
        return _out.write(out, _search(boundaries, input, out_int32, right, None), False)
    return _search(boundaries, input, out_int32, right, None)


def cummax(input, dim):  # noqa: A002
    """The running maximum along ``dim`` and the index it was last taken from (a tie
    or a NaN moves the index on).

    >>> import gradtrack
    >>> gradtrack.cummax(gradtrack.tensor([1., 3., 2., 3.]), 0)
    gradtrack.return_types.cummax(
    values=tensor([1., 3., 3., 3.]),
    indices=tensor([0, 1, 1, 3]))
    """
    return return_types.cummax(_E.cummax_cummin(input, dim, True))


def cummin(input, dim):  # noqa: A002
    """The running minimum along ``dim`` and the index it was last taken from.

    >>> import gradtrack
    >>> gradtrack.cummin(gradtrack.tensor([3., 1., 2., 1.]), 0).indices
    tensor([0, 1, 1, 3])
    """
    return return_types.cummin(_E.cummax_cummin(input, dim, False))


def logcumsumexp(input, dim):  # noqa: A002
    """log(cumsum(exp(input))) along ``dim``, computed without overflow.

    >>> import gradtrack
    >>> gradtrack.logcumsumexp(gradtrack.tensor([0., 0., 0.]), 0)
    tensor([0.0000, 0.6931, 1.0986])
    """
    return _E.logcumsumexp(input, dim)


def _isin_operand(value, position, arg):
    if isinstance(value, _C.Tensor):
        return value
    if isinstance(value, (bool, int, float)):
        return _C.tensor(value)
    raise TypeError(f"isin(): argument '{arg}' (position {position}) must be Tensor, not "
                    f"{type(value).__name__}")


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """A bool tensor shaped as ``elements``: True where the element is in
    ``test_elements`` (False when ``invert``). Either may be a number; both are compared
    in their promoted dtype.

    >>> import gradtrack
    >>> gradtrack.isin(gradtrack.tensor([1, 2, 3]), gradtrack.tensor([2, 5]))
    tensor([False,  True, False])
    """
    if not isinstance(elements, _C.Tensor) and not isinstance(test_elements, _C.Tensor):
        raise TypeError(
            "isin() received an invalid combination of arguments - got "
            f"({type(elements).__name__}, {type(test_elements).__name__}), but expected one "
            "of:\n * (Tensor elements, Tensor test_elements, *, bool assume_unique = False, "
            "bool invert = False, Tensor out = None)\n * (Number element, Tensor "
            "test_elements, *, bool assume_unique = False, bool invert = False, Tensor out = "
            "None)\n * (Tensor elements, Number test_element, *, bool assume_unique = False, "
            "bool invert = False, Tensor out = None)\n")
    a = _isin_operand(elements, 1, "elements")
    b = _isin_operand(test_elements, 2, "test_elements")
    from .._dtypes import result_type
    common = result_type(a, b)
    if common == _C.bool:
        raise RuntimeError("Unsupported input type encountered for isin(): Bool")
    a = a.detach().to(common)
    keys = b.detach().to(common).flatten().sort()[0]
    if keys.numel() == 0:
        found = _C.zeros(tuple(a.shape), dtype=_C.bool)
    else:
        at = searchsorted(keys, a.contiguous()).clamp_max(keys.numel() - 1)
        found = keys.take(at) == a
    return found.logical_not() if invert else found


def _gradient_spacing(input, spacing, dims):
    """Per dim of ``dims``: a number (the uniform step) or a 1-D tensor of coordinates."""
    n = len(dims)
    if isinstance(spacing, (list, tuple)):
        if len(spacing) != n:
            raise RuntimeError(
                "torch.gradient expected spacing to be unspecified, a scalar or it's spacing "
                f"and dim arguments to have the same length, but got a spacing argument of "
                f"length {len(spacing)} and a dim argument of length {n}.")
        return [s.item() if isinstance(s, _C.Tensor) and s.dim() == 0 else s for s in spacing]
    if isinstance(spacing, _C.Tensor):
        spacing = spacing.item()
    return [spacing] * n


def _uniform_gradient(x, d, h, edge_order):
    size = x.shape[d]
    center = (x.narrow(d, 2, size - 2) - x.narrow(d, 0, size - 2)) / (2 * h)
    if edge_order == 1:
        first = (x.narrow(d, 1, 1) - x.narrow(d, 0, 1)) / h
        last = (x.narrow(d, size - 1, 1) - x.narrow(d, size - 2, 1)) / h
    else:
        first = (x.narrow(d, 0, 1) * -1.5 + x.narrow(d, 1, 1) * 2
                 - x.narrow(d, 2, 1) * 0.5) / h
        last = (x.narrow(d, size - 3, 1) * 0.5 - x.narrow(d, size - 2, 1) * 2
                + x.narrow(d, size - 1, 1) * 1.5) / h
    return _C.cat([first, center, last], d)


def _coordinate_gradient(x, d, ax, edge_order):
    size = x.shape[d]
    shape = [1] * x.dim()
    shape[d] = -1
    dx = (ax[1:] - ax[:-1])
    dx1, dx2 = dx[:-1].reshape(shape), dx[1:].reshape(shape)
    a = -dx2 / (dx1 * (dx1 + dx2))
    b = (dx2 - dx1) / (dx1 * dx2)
    c = dx1 / (dx2 * (dx1 + dx2))
    center = (a * x.narrow(d, 0, size - 2) + b * x.narrow(d, 1, size - 2)
              + c * x.narrow(d, 2, size - 2))
    if edge_order == 1:
        first = (x.narrow(d, 1, 1) - x.narrow(d, 0, 1)) / dx[0]
        last = (x.narrow(d, size - 1, 1) - x.narrow(d, size - 2, 1)) / dx[-1]
    else:
        h1, h2 = dx[0], dx[1]
        first = (x.narrow(d, 0, 1) * (-(2 * h1 + h2) / (h1 * (h1 + h2)))
                 + x.narrow(d, 1, 1) * ((h1 + h2) / (h1 * h2))
                 + x.narrow(d, 2, 1) * (-h1 / (h2 * (h1 + h2))))
        h1, h2 = dx[-2], dx[-1]
        last = (x.narrow(d, size - 3, 1) * (h2 / (h1 * (h1 + h2)))
                + x.narrow(d, size - 2, 1) * (-(h2 + h1) / (h1 * h2))
                + x.narrow(d, size - 1, 1) * ((2 * h2 + h1) / (h2 * (h1 + h2))))
    return _C.cat([first, center, last], d)


def gradient(input, *, spacing=1, dim=None, edge_order=1):  # noqa: A002 - torch's names
    """Estimates the derivative of ``input`` along each dim of ``dim`` (all by default)
    by central differences inside and one-sided ones of order ``edge_order`` (1 or 2) at
    the edges; ``spacing``: one step for every dim, a step per dim, or a 1-D tensor of
    coordinates per dim. A tuple, one tensor per dim.

    >>> import gradtrack
    >>> gradtrack.gradient(gradtrack.tensor([1.0, 4.0, 9.0, 16.0]))
    (tensor([3., 4., 6., 7.]),)
    """
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    if dim is None:
        dims = list(builtins.range(input.dim()))
    elif isinstance(dim, int):
        dims = [wrap_dim(dim, input.dim())]
    else:
        dims = [wrap_dim(d, input.dim()) for d in dim]
    steps = _gradient_spacing(input, spacing, dims)
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least "
                               "edge_order+1")
    x = input if input.dtype.is_floating_point else input.to(_default_float())
    out = []
    for d, h in zip(dims, steps):
        if isinstance(h, _C.Tensor):
            out.append(_coordinate_gradient(x, d, h.to(x.dtype), edge_order))
        else:
            out.append(_uniform_gradient(x, d, h, edge_order))
    return tuple(out)


def _default_float():
    from .._legacy import get_default_dtype
    return get_default_dtype()


FUNCTIONS = (isin, gradient, cumsum, cumprod, diff, sort, argsort, topk, searchsorted, bucketize, msort, cummax,
             cummin, logcumsumexp)
METHODS = methods(cumsum, cumprod, diff, sort, argsort, topk, msort, cummax, cummin,
                  logcumsumexp)
