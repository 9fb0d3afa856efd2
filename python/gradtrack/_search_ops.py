"""``searchsorted``, ``bucketize`` and ``cdist`` with torch's checks and
messages; the work is ``_C._resample`` (a binary search per value, and
cdist's node ``CdistBackward0`` / ``EuclideanDistBackward0``).
"""

import builtins

from . import _C, _out

_R = _C._resample
_COMPUTE_MODES = {"use_mm_for_euclid_dist_if_necessary": 0, "use_mm_for_euclid_dist": 1,
                  "donot_use_mm_for_euclid_dist": 2}
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


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The ``p``-norm distance between each row of ``x1`` and each row of
    ``x2`` (batched over leading dims, which broadcast). For ``p=2``,
    ``compute_mode`` picks torch's matrix-multiply path (used by default when
    either side has more than 25 rows).

    >>> import gradtrack
    >>> gradtrack.cdist(gradtrack.tensor([[0., 0.]]), gradtrack.tensor([[3., 4.], [1., 0.]]))
    tensor([[5., 1.]])
    """
    if compute_mode not in _COMPUTE_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    if x1.dim() >= 2 and x2.dim() >= 2 and x1.dtype != x2.dtype and x1.shape[-1] == x2.shape[-1]:
        if x1.is_floating_point() and x2.is_floating_point():
            raise RuntimeError(f"expected scalar type {_dt(x1)} but found {_dt(x2)}")
    return _R.cdist(x1, x2, builtins.float(p), _COMPUTE_MODES[compute_mode])
