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
from . import methods, wrap_dim

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
    descending), and equal values keep their order (every sort is stable).

    >>> import gradtrack
    >>> gradtrack.sort(gradtrack.tensor([2, 3, 1])).indices
    tensor([2, 0, 1])
    """
    return return_types.sort(_E.sort(input, dim, descending, stable is not _UNSET))


def msort(input):  # noqa: A002
    """``input`` sorted along its first dim (the values of ``sort(input, 0)``, SortBackward0).

    >>> import gradtrack
    >>> gradtrack.msort(gradtrack.tensor([[2., 1.], [1., 3.]]))
    tensor([[1., 1.],
            [2., 3.]])
    """
    return _E.sort(input, 0, False, False)[0]


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


# ---- binary search -----------------------------------------------------------------------

_DT_NAME = {"bool": "Bool", "uint8": "Byte", "int32": "Int", "int64": "Long", "float32": "Float",
            "float64": "Double"}


def _dt(t):
    return _DT_NAME[repr(t.dtype).split(".", 1)[1]]


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


FUNCTIONS = (cumsum, cumprod, diff, sort, argsort, topk, searchsorted, bucketize, msort, cummax,
             cummin, logcumsumexp)
METHODS = methods(cumsum, cumprod, diff, sort, argsort, topk, msort, cummax, cummin,
                  logcumsumexp)
