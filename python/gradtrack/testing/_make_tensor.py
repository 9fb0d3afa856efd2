"""``make_tensor``: a tensor of uniformly drawn values, with torch's draws.

NOTE [make_tensor's draws]
Measured against torch 2.13, whose generator gradtrack's matches: a floating tensor is
``empty(shape).uniform_(low, high)`` (``uniform_(low / 2, high / 2).mul_(2)`` when
``high - low`` reaches the dtype's largest value), an integer or boolean one
``randint(ceil(low), ceil(high), shape)`` (int64 below its largest value at most).
A noncontiguous tensor of two or more elements is every second element (from the second)
of a draw twice as long in the last dim; ``memory_format`` clones the contiguous draw;
``exclude_zero`` then writes the dtype's smallest normal number (floating) or 1 over
every zero. So the same seed gives torch's tensor, and torch's generator state after it.

>>> import gradtrack
>>> from gradtrack.testing import make_tensor
>>> _ = gradtrack.manual_seed(0)
>>> make_tensor(2, 3, dtype=gradtrack.float32, device="cpu", low=-1, high=1)
tensor([[-0.0075,  0.5364, -0.8230],
        [-0.7359, -0.3852,  0.2682]])
"""

import math
import warnings
from collections.abc import Sequence

import gradtrack

_INTEGERS = ("uint8", "int8", "int16", "int32", "int64")
_FLOATS = ("float16", "bfloat16", "float32", "float64")


def _kind(dtype):
    """'bool', 'int' or 'float' for the dtypes make_tensor draws; TypeError for others."""
    if dtype is gradtrack.bool:
        return "bool"
    if any(dtype is getattr(gradtrack, name) for name in _INTEGERS):
        return "int"
    if any(dtype is getattr(gradtrack, name) for name in _FLOATS):
        return "float"
    raise TypeError(f"The requested dtype '{dtype}' is not supported by gradtrack.testing.make_tensor(). "
                    f"To request support, file an issue at: https://github.com/pytorch/pytorch/issues")


def _defaults(kind):
    """torch's ``(low, high)`` before clamping: uint8's ``[0, 10)`` is ``[-9, 10)`` clamped."""
    return {"float": (-9, 9), "bool": (0, 2)}.get(kind, (-9, 10))


def _supported(dtype, kind):
    """The interval ``[lowest, highest)`` of the values ``dtype`` holds, as torch states it."""
    if kind == "float":
        info = gradtrack.finfo(dtype)
        return info.min, info.max
    if kind == "bool":
        return 0, 2
    info = gradtrack.iinfo(dtype)
    # int64's largest value + 1 is past what randint takes: torch stops at the largest
    return info.min, info.max if dtype is gradtrack.int64 else info.max + 1


def _bounds(dtype, kind, low, high):
    """``low`` and ``high`` checked in torch's order and words, then clamped into what
    ``dtype`` holds (and rounded up, for integers)."""
    default_low, default_high = _defaults(kind)
    low = default_low if low is None else low
    high = default_high if high is None else high
    if low != low or high != high:  # NaN (and not a TypeError for a non-number)
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    lowest, highest = _supported(dtype, kind)
    if low == high and kind == "float":
        warnings.warn("Passing `low==high` to `gradtrack.testing.make_tensor` for floating or complex "
                      "types is deprecated since 2.1 and will be removed in 2.3. Use "
                      "`gradtrack.full(...)` instead.", FutureWarning, stacklevel=3)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), "
                         f"but {dtype} only supports [{lowest}, {highest})")
    low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
    if kind != "float":
        low, high = math.ceil(low), math.ceil(high)
    return low, high


def _elements(shape):
    """The number of elements of ``shape``; 0 for a shape the factory will refuse."""
    if not all(isinstance(size, int) for size in shape):
        return 0
    return math.prod(shape)


def _draw(shape, dtype, kind, device, low, high):
    if kind != "float":
        return gradtrack.randint(low, high, shape, dtype=dtype, device=device)
    result = gradtrack.empty(shape, dtype=dtype, device=device)
    if high - low >= gradtrack.finfo(dtype).max:
        # the width itself would overflow the dtype: draw half of it and double
        return result.uniform_(low / 2, high / 2).mul_(2)
    return result.uniform_(low, high)


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False, noncontiguous=False,
                exclude_zero=False, memory_format=None):
    """A tensor of ``shape`` (integers, or one sequence of them) with values drawn
    uniformly from ``[low, high)``, as ``torch.testing.make_tensor``: the same values
    as torch's after the same seed (NOTE [make_tensor's draws]).

    The defaults: bool ``[0, 2)``, uint8 ``[0, 10)``, other integers ``[-9, 10)``,
    floating dtypes ``[-9, 9)``. Bounds beyond what the dtype holds are clamped to it;
    an interval entirely outside it, ``low >= high``, a NaN bound, ``requires_grad=True``
    for an integer or boolean dtype, and both ``noncontiguous`` and ``memory_format``
    raise ValueError; a dtype make_tensor does not draw (complex) TypeError.
    ``noncontiguous=True`` gives a strided view when there are two elements or more;
    ``exclude_zero=True`` replaces zeros with 1 (integers, bool) or the dtype's smallest
    normal number.

    >>> import gradtrack
    >>> from gradtrack.testing import make_tensor
    >>> _ = gradtrack.manual_seed(0)
    >>> make_tensor((2, 3), dtype=gradtrack.int64, device="cpu", low=0, high=5)
    tensor([[4, 4, 3],
            [0, 3, 4]])
    >>> x = make_tensor(2, 3, dtype=gradtrack.float64, device="cpu", noncontiguous=True,
    ...                 requires_grad=True)
    >>> x.is_contiguous(), x.stride(), x.is_leaf, x.requires_grad
    (False, (6, 2), True, True)
    """
    if noncontiguous and memory_format is not None:
        raise ValueError(f"The parameters `noncontiguous` and `memory_format` are mutually exclusive, "
                         f"but got noncontiguous={noncontiguous} and memory_format={memory_format}")
    kind = _kind(dtype)
    if requires_grad and kind != "float":
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral dtypes, "
                         f"but got dtype={dtype}")
    if len(shape) == 1 and isinstance(shape[0], Sequence):
        shape = shape[0]
    shape = tuple(shape)
    low, high = _bounds(dtype, kind, low, high)
    if noncontiguous and _elements(shape) > 1:
        doubled = shape[:-1] + (2 * shape[-1],)
        result = _draw(doubled, dtype, kind, device, low, high)[..., 1::2]
    else:
        result = _draw(shape, dtype, kind, device, low, high)
    if memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        replacement = gradtrack.finfo(dtype).tiny if kind == "float" else 1
        result.masked_fill_(result == 0, replacement)
    if requires_grad:
        result.requires_grad_(True)
    return result
