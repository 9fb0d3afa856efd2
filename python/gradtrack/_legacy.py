"""Torch's calling conventions for device-portable and old scripts: the
default dtype and device, ``device`` objects, and the legacy names
(``FloatTensor`` & co., ``Tensor.type()`` strings, ``autograd.Variable``).

gradtrack computes on the CPU only: ``device="cuda"`` raises torch's
CPU-build error, and ``cuda.is_available()`` answers False.

>>> import gradtrack
>>> gradtrack.FloatTensor([1, 2])
tensor([1., 2.])
>>> isinstance(gradtrack.zeros(2), gradtrack.FloatTensor)
True
"""

import builtins

from . import _C

_E = _C._ops
_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
                 "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                 "privateuseone")


class device:
    """A device name, as ``torch.device``: ``device('cpu')``, ``device('cuda', 0)``.

    Any of torch's device types can be named (so ``device('cuda' if
    cuda.is_available() else 'cpu')`` runs); only the CPU computes.
    """

    def __init__(self, type="cpu", index=None):  # noqa: A002 - PyTorch's argument name
        if isinstance(type, device):
            type, index = type.type, type.index
        elif isinstance(type, builtins.int):
            type, index = "cuda", type
        text = str(type)
        kind, _, rest = text.partition(":")
        if kind not in _DEVICE_TYPES:
            raise RuntimeError(
                f"Expected one of {', '.join(_DEVICE_TYPES)} device type at start of device "
                f"string: {text}")
        if rest:
            index = builtins.int(rest)
        self.type = kind
        self.index = index

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        # As torch's: a device equals only a device (device('cpu') != 'cpu').
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))


def check_device(dev):
    """Raises torch's error unless ``dev`` is None or the CPU."""
    _E.check_device(dev)


def set_default_dtype(d):
    """Sets the dtype of Python floats and float factories (float32 or float64).

    >>> import gradtrack
    >>> gradtrack.set_default_dtype(gradtrack.float64)
    >>> gradtrack.tensor([1.5]).dtype
    gradtrack.float64
    >>> gradtrack.set_default_dtype(gradtrack.float32)
    """
    if not isinstance(d, _C.dtype) or not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _E.set_default_dtype(d)


def get_default_dtype():
    """The dtype of Python floats and float factories (float32 by default).

    >>> import gradtrack
    >>> gradtrack.get_default_dtype()
    gradtrack.float32
    """
    return _E.get_default_dtype()


def set_default_device(device):  # noqa: A002 - torch's argument name
    """Only the CPU (or None, which means it) can be the default device."""
    check_device(device)


def get_default_device():
    """Always ``device(type='cpu')``."""
    return globals()["device"]("cpu")


_LEGACY = {"FloatTensor": "float32", "DoubleTensor": "float64", "LongTensor": "int64",
           "IntTensor": "int32", "BoolTensor": "bool", "ByteTensor": "uint8",
           "CharTensor": "int8", "ShortTensor": "int16", "HalfTensor": "float16",
           "BFloat16Tensor": "bfloat16"}


class _TensorType(type):
    """The class of the legacy tensor types: ``isinstance(x, FloatTensor)`` is
    ``x.dtype == float32``, and calling one builds a tensor of its dtype."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, _C.Tensor) and obj.dtype is cls.dtype

    def __call__(cls, *args, device=None):
        check_device(device)
        dtype = cls.dtype
        if len(args) == 1 and not isinstance(args[0], builtins.int):
            data = args[0]
            if isinstance(data, _C.Tensor):
                if data.dtype is not dtype:
                    raise TypeError(f"expected {cls.__name__} (got {data.type()})")
                return data
            return _C.tensor(data, dtype=dtype)
        return _C.zeros(args if args else (0,), dtype=dtype)

    def __repr__(cls):
        return f"<class 'gradtrack.{cls.__name__}'>"


def _legacy_types():
    types = {}
    for name, key in _LEGACY.items():
        types[name] = _TensorType(name, (), {"dtype": getattr(_C, key),
                                             "__doc__": f"Legacy constructor of {key} tensors."})
    return types


LEGACY_TYPES = _legacy_types()


def tensor_type(self, dtype=None, non_blocking=False, **kwargs):
    """``x.type()``: the legacy type name (``'gradtrack.FloatTensor'``);
    ``x.type(dtype)``, ``x.type('gradtrack.DoubleTensor')`` or
    ``x.type(gradtrack.DoubleTensor)``: ``x`` converted."""
    if dtype is None:
        name = next(n for n, k in _LEGACY.items() if getattr(_C, k) is self.dtype)
        return "gradtrack." + name
    if isinstance(dtype, str):
        name = dtype.rsplit(".", 1)[-1]
        if name not in LEGACY_TYPES:
            raise ValueError(f"invalid type: '{dtype}'")
        dtype = LEGACY_TYPES[name].dtype
    elif isinstance(dtype, _TensorType):
        dtype = dtype.dtype
    return self.to(dtype)


class _VariableMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, _C.Tensor)


class Variable(metaclass=_VariableMeta):
    """The pre-0.4 wrapper, kept for old tutorials: ``Variable(t,
    requires_grad=True)`` is ``t.detach().requires_grad_(True)`` (sharing
    memory), and every tensor is an instance.

    >>> import gradtrack
    >>> v = gradtrack.autograd.Variable(gradtrack.ones(2), requires_grad=True)
    >>> type(v).__name__, v.requires_grad
    ('Tensor', True)
    """

    def __new__(cls, data, requires_grad=False, volatile=False):
        out = data.detach()
        if requires_grad:
            out.requires_grad_(True)
        return out


# What this module gives gradtrack.* and Tensor (NOTE [One registry] in _registry.py);
# autograd.Variable is imported by gradtrack.autograd itself.
FUNCTIONS = (set_default_dtype, get_default_dtype, set_default_device, get_default_device)
NAMES = {"device": device, **LEGACY_TYPES}
METHODS = {"type": tensor_type}
