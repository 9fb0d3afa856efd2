"""Tensors made from other objects: ``asarray`` (tensors, NumPy arrays, sequences,
numbers), ``frombuffer`` (an object with the buffer protocol, memory shared) and
``scalar_tensor`` (a number as a 0-dim tensor).

>>> import gradtrack
>>> gradtrack.asarray([1, 2])
tensor([1, 2])
"""

import numbers
import warnings

from .. import _C
from .._legacy import get_default_dtype as _default_dtype

_ASARRAY_GRAD_WARNING = (
    "torch.asarray: unspecified requires_grad now defaults to obj.requires_grad instead of "
    "False. Pass requires_grad=False explicitly to get the old behavior and silence this "
    "warning.")
_NOT_WRITABLE = (
    "The given buffer is not writable, and PyTorch does not support non-writable tensors. "
    "This means you can write to the underlying (supposedly non-writable) buffer using the "
    "tensor. You may want to copy the buffer to protect its data or make it writable before "
    "converting it to a tensor. This type of warning will be suppressed for the rest of this "
    "program.")
_warned_not_writable = [False]


# torch's scalar type names, as its aliasing errors print them
_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
          "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
          "bool": "Bool"}


def _dtype_name(dtype):
    return _NAMES[str(dtype).split(".")[-1]]


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=None):
    """``obj`` as a tensor, sharing memory where it can: a tensor of ``dtype`` is returned
    as it is, a NumPy array is viewed; ``copy=True`` always copies, ``copy=False`` refuses
    to.

    >>> import gradtrack, numpy
    >>> a = numpy.arange(3.0)
    >>> t = gradtrack.asarray(a)
    >>> a[0] = 7
    >>> t
    tensor([7., 1., 2.], dtype=gradtrack.float64)
    """
    import numpy as np

    _C._ops.check_device(device)
    if isinstance(obj, _C.Tensor):
        if requires_grad is None:
            if obj.requires_grad:
                warnings.warn(_ASARRAY_GRAD_WARNING, UserWarning, stacklevel=2)
            requires_grad = obj.requires_grad
        same = dtype is None or dtype == obj.dtype
        if copy is False and not same:
            raise ValueError(f"can't alias tensor with dtype '{_dtype_name(obj.dtype)}' into "
                             f"dtype '{_dtype_name(dtype)}'.")
        if same and not copy:
            out = obj
        elif same:
            out = obj.clone()
        else:
            out = obj.to(dtype)
        if requires_grad and not out.requires_grad:
            out.requires_grad_(True)
        return out
    if isinstance(obj, np.ndarray):
        from_numpy = _C.from_numpy(obj)
        same = dtype is None or dtype == from_numpy.dtype
        if copy is False and not same:
            raise ValueError(f"can't alias tensor with dtype '{_dtype_name(from_numpy.dtype)}' "
                             f"into dtype '{_dtype_name(dtype)}'.")
        out = from_numpy if same and not copy else from_numpy.to(
            dtype if dtype is not None else from_numpy.dtype, copy=True)
    else:
        if copy is False:
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        if isinstance(obj, str):
            raise TypeError("new(): invalid data type 'str'")
        out = _C.tensor(obj, dtype=dtype)
    if requires_grad:
        out.requires_grad_(True)
    return out


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-D tensor of ``dtype`` over the memory of ``buffer`` (an object with the buffer
    protocol): ``count`` elements (-1: all) from byte ``offset``. Writes through either
    are seen by the other.

    >>> import gradtrack
    >>> data = bytearray(b"\\x01\\x00\\x02\\x00")
    >>> gradtrack.frombuffer(data, dtype=gradtrack.int16)
    tensor([1, 2], dtype=gradtrack.int16)
    """
    import numpy as np

    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    length = view.nbytes
    size = _C.empty((0,), dtype=dtype).element_size()
    if length == 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if offset < 0 or offset >= length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than "
                         f"buffer length ({length} bytes) minus 1")
    if count < 0:
        if (length - offset) % size:
            raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} "
                             f"bytes) must be a multiple of element size ({size})")
        count = (length - offset) // size
    elif offset + count * size > length:
        raise ValueError(f"requested buffer length ({count} * {size} bytes) after offset "
                         f"({offset} bytes) must not be greater than actual buffer length "
                         f"({length} bytes)")
    if view.readonly and not _warned_not_writable[0]:
        _warned_not_writable[0] = True
        warnings.warn(_NOT_WRITABLE, UserWarning, stacklevel=2)
    raw = np.frombuffer(view.cast("B"), dtype=np.uint8, count=count * size, offset=offset)
    if view.readonly:
        raw = raw.view()
        raw.flags.writeable = False
    # bfloat16 has no NumPy dtype: its bits are read as int16, then viewed
    bits = _C.int16 if dtype == _C.bfloat16 else dtype
    array = raw.view(_C.empty((0,), dtype=bits).numpy().dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NumPy's own non-writable warning: torch's above
        out = _C.from_numpy(array)
    if bits != dtype:
        out = out.view(dtype)
    if requires_grad:
        out.requires_grad_(True)
    return out


def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False):
    """The number ``s`` as a 0-dim tensor of ``dtype`` (default: the default float dtype,
    whatever the number's kind).

    >>> import gradtrack
    >>> gradtrack.scalar_tensor(3)
    tensor(3.)
    """
    if not isinstance(s, numbers.Number) or isinstance(s, complex):
        raise TypeError(f"scalar_tensor(): argument 's' (position 1) must be Number, not "
                        f"{type(s).__name__}")
    _C._ops.check_device(device)
    out = _C.full((), s, dtype=_default_dtype() if dtype is None else dtype)
    if requires_grad:
        out.requires_grad_(True)
    return out


FUNCTIONS = (asarray, frombuffer, scalar_tensor)
