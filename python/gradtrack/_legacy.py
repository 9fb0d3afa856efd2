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
import importlib
import warnings

from . import _C
from ._dtype_names import CPP_NAME, dtype_key
from ._size import Size

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


# What torch's CPU build raises for a CUDA tensor type (its own sentence).
_NO_CUDA = ("Cannot initialize CUDA without ATen_cuda library. PyTorch splits its backend into "
            "two shared libraries: a CPU library and a CUDA library; this error has occurred "
            "because you are trying to use some CUDA functionality, but the CUDA library has not "
            "been loaded by the dynamic linker for some reason.  The CUDA library MUST be "
            "loaded, EVEN IF you don't directly use any symbols from the CUDA library! One "
            "common culprit is a lack of -Wl,--no-as-needed in your link arguments; many dynamic "
            "linkers will delete dynamic library dependencies if you don't depend on any of their symbols.  "
            "You can check if this has occurred by using ldd on your binary to see if there is "
            "a dependency on *_cuda.so library.")


def _type_target(dtype):
    """The dtype ``x.type(dtype)`` converts to, with torch's errors: a dtype, a legacy
    type (``gradtrack.DoubleTensor``; ``Tensor`` is the default type) or its full name
    (``'torch.DoubleTensor'``; ``'gradtrack.DoubleTensor'`` too)."""
    if isinstance(dtype, _C.dtype):
        return dtype
    if isinstance(dtype, str):
        module, _, name = dtype.rpartition(".")
        if module in ("torch.cuda", "gradtrack.cuda") and name in LEGACY_TYPES:
            raise RuntimeError(_NO_CUDA)
        if module not in ("torch", "gradtrack") or name not in LEGACY_TYPES:
            raise ValueError(f"invalid type: '{dtype}'")
        return LEGACY_TYPES[name].dtype
    if isinstance(dtype, _TensorType):
        return dtype.dtype
    if dtype is _C.Tensor:
        return get_default_dtype()
    if isinstance(dtype, builtins.type):
        raise ValueError(f"invalid type: '{dtype.__name__}'")
    raise TypeError("dtype must be a type, str, or dtype object")


def tensor_type(self, dtype=None, non_blocking=False, **kwargs):
    """``x.type()``: the legacy type name (``'gradtrack.FloatTensor'``);
    ``x.type(dtype)``, ``x.type('gradtrack.DoubleTensor')`` or
    ``x.type(gradtrack.DoubleTensor)``: ``x`` converted (``x`` itself when it has that
    dtype). Besides those, only ``memory_format=`` is taken, as torch takes it."""
    for key in kwargs:
        if key != "memory_format":
            raise TypeError(f"type() got an unexpected keyword argument '{key}'")
    if dtype is None:
        name = next(n for n, k in _LEGACY.items() if getattr(_C, k) is self.dtype)
        return "gradtrack." + name
    return self.to(_type_target(dtype), **kwargs)


_NEW_FORMS = ("\n * (gradtrack.Storage storage)\n * (Tensor other)\n"
              " * (tuple of ints size, *, gradtrack.device device = None)\n"
              " * (object data, *, gradtrack.device device = None)\n")


def _options(t):
    name = CPP_NAME[dtype_key(t.dtype)]
    return (f"TensorOptions(dtype={name}, device=cpu, layout=Strided, requires_grad=false "
            "(default), pinned_memory=false (default), memory_format=(nullopt))")


def _type_label(value):
    return "gradtrack.dtype" if isinstance(value, _C.dtype) else builtins.type(value).__name__


def new(self, *args, **kwargs):
    """The legacy constructor, as torch's ``Tensor.new``: a tensor of ``self``'s dtype.

    ``x.new()`` is empty; ``x.new(2, 3)`` or ``x.new(gradtrack.Size([2, 3]))`` has that
    shape (its values unspecified); ``x.new([1, 2])`` (any sequence, a tuple included)
    holds that data; ``x.new(t)`` is an alias of ``t``, which must have ``self``'s dtype.
    Only ``device=`` (the CPU) may be given by keyword.

    >>> import gradtrack
    >>> x = gradtrack.zeros(2, dtype=gradtrack.float64)
    >>> x.new([1, 2]), x.new(2, 3).shape
    (tensor([1., 2.], dtype=gradtrack.float64), gradtrack.Size([2, 3]))
    """
    device = kwargs.pop("device", None)
    if kwargs:
        got = ", ".join([_type_label(a) for a in args]
                        + [f"{k}={_type_label(v)}" for k, v in kwargs.items()])
        raise TypeError(f"new() received an invalid combination of arguments - got ({got}), but "
                        "expected one of:\n * (*, gradtrack.device device = None)\n      didn't "
                        "match because some of the keywords were incorrect: "
                        f"{', '.join(kwargs)}{_NEW_FORMS}")
    if device is not None and str(device).partition(":")[0] != "cpu":
        kind = str(device).partition(":")[0]
        raise RuntimeError(f"legacy constructor expects device type: cpu but device type: {kind} "
                           "was passed")
    if not args:
        return _C.empty(0, dtype=self.dtype)
    sizes = all(isinstance(a, builtins.int) and not isinstance(a, builtins.bool) for a in args)
    if sizes or (len(args) == 1 and isinstance(args[0], Size)):
        return _C.empty(args[0] if not sizes else args, dtype=self.dtype)
    if len(args) > 1:
        got = ", ".join(_type_label(a) for a in args)
        marked = ", ".join(f"!{_type_label(a)}!" for a in args)
        raise TypeError(f"new() received an invalid combination of arguments - got ({got}), but "
                        "expected one of:\n * (*, gradtrack.device device = None)\n      didn't "
                        f"match because some of the arguments have invalid types: ({marked})"
                        f"{_NEW_FORMS}")
    data = args[0]
    if isinstance(data, _C.Tensor):
        if data.dtype is not self.dtype:
            raise TypeError(f"expected {_options(self)} (got {_options(data)})")
        return data[...]  # an alias: AliasBackward0 when data requires grad
    if isinstance(data, str):
        raise TypeError("new(): invalid data type 'str'")
    if not hasattr(data, "__len__") and not hasattr(data, "__array__"):
        raise TypeError(f"new(): data must be a sequence (got {builtins.type(data).__name__})")
    return _C.tensor(data, dtype=self.dtype)


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
_WARNED_TENSOR_TYPE = False


def set_default_tensor_type(t):
    """torch's older form of :func:`set_default_dtype`: ``t`` a floating tensor type
    (``gradtrack.DoubleTensor``) or its dotted name (``'torch.DoubleTensor'``); warns that
    it is deprecated, as torch does.

    >>> import gradtrack, warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     gradtrack.set_default_tensor_type(gradtrack.DoubleTensor)
    >>> gradtrack.ones(1).dtype
    gradtrack.float64
    >>> gradtrack.set_default_dtype(gradtrack.float32)
    """
    if isinstance(t, str):
        module, _, name = t.rpartition(".")
        t = getattr(importlib.import_module(module or name), name) if module else \
            importlib.import_module(name)
    global _WARNED_TENSOR_TYPE
    if not _WARNED_TENSOR_TYPE:  # once a process, as torch's C++ warning
        _WARNED_TENSOR_TYPE = True
        warnings.warn("gradtrack.set_default_tensor_type() is deprecated as of PyTorch 2.1, "
                      "please use gradtrack.set_default_dtype() and "
                      "gradtrack.set_default_device() as alternatives.", UserWarning,
                      stacklevel=2)
    if not isinstance(t, _TensorType):
        raise TypeError("invalid type object: only floating-point types are supported as the "
                        "default type")
    if not t.dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    set_default_dtype(t.dtype)


class OutOfMemoryError(RuntimeError):
    """torch.OutOfMemoryError (also ``gradtrack.cuda.OutOfMemoryError``): what a failed
    device allocation raises in torch. gradtrack runs on the CPU, where torch and
    gradtrack raise a RuntimeError; the class is here for programs that catch it.

    >>> import gradtrack
    >>> issubclass(gradtrack.cuda.OutOfMemoryError, RuntimeError)
    True
    """

    __module__ = "gradtrack"


FUNCTIONS = (set_default_dtype, get_default_dtype, set_default_device, get_default_device,
             set_default_tensor_type)
NAMES = {"device": device, "OutOfMemoryError": OutOfMemoryError, **LEGACY_TYPES}
METHODS = {"type": tensor_type, "new": new}
