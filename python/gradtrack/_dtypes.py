"""The dtypes: their names (``gradtrack.float32``, ``gradtrack.half``, ...) and the
queries ``finfo``, ``iinfo``, ``promote_types``, ``result_type``, ``can_cast`` and
``is_floating_point``, with torch's values, reprs and argument errors.

The promotion rules themselves live in C++ (``csrc/core/dtype.cpp``); this
module only reads them.
"""

from . import _C

# (bits, eps, max, tiny, resolution) of each floating dtype, as torch reports them.
_FLOAT_INFO = {
    "float16": (16, 2.0 ** -10, 65504.0, 2.0 ** -14, 0.001),
    "bfloat16": (16, 2.0 ** -7, 3.3895313892515355e38, 2.0 ** -126, 0.01),
    "float32": (32, 2.0 ** -23, 3.4028234663852886e38, 2.0 ** -126, 1e-06),
    "float64": (64, 2.0 ** -52, 1.7976931348623157e308, 2.0 ** -1022, 1e-15),
}
_INT_INFO = {
    "uint8": (8, 0, 255),
    "int8": (8, -128, 127),
    "int16": (16, -32768, 32767),
    "int32": (32, -2 ** 31, 2 ** 31 - 1),
    "int64": (64, -2 ** 63, 2 ** 63 - 1),
}


def _key(dtype):
    return repr(dtype).rpartition(".")[2]


def _check_dtype(fn, arg, position, value):
    if not isinstance(value, _C.dtype):
        raise TypeError(f"{fn}(): argument '{arg}' (position {position}) must be "
                        f"gradtrack.dtype, not {type(value).__name__}")


class finfo:  # noqa: N801 (torch's name)
    """Machine limits of a floating dtype (torch.finfo).

    >>> import gradtrack
    >>> gradtrack.finfo(gradtrack.float16).max
    65504.0
    """

    def __init__(self, type=None):  # noqa: A002 (torch's argument name)
        if type is None:
            from ._legacy import get_default_dtype
            type = get_default_dtype()  # noqa: A001
        _check_dtype("finfo", "type", 1, type)
        key = _key(type)
        if key not in _FLOAT_INFO:
            raise TypeError("gradtrack.finfo() requires a floating point input type. Use "
                            "gradtrack.iinfo to handle 'gradtrack.finfo'")
        self.bits, self.eps, self.max, self.tiny, self.resolution = _FLOAT_INFO[key]
        self.min = -self.max
        self.smallest_normal = self.tiny
        self.dtype = key

    def __eq__(self, other):
        return isinstance(other, finfo) and self.dtype == other.dtype

    def __hash__(self):
        return hash(("finfo", self.dtype))

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:.6g}, min={self.min:.6g}, max={self.max:.6g}, "
                f"eps={self.eps:.6g}, smallest_normal={self.smallest_normal:.6g}, "
                f"tiny={self.tiny:.6g}, dtype={self.dtype})")


class iinfo:  # noqa: N801 (torch's name)
    """Machine limits of an integer dtype (torch.iinfo).

    >>> import gradtrack
    >>> gradtrack.iinfo(gradtrack.int8).min
    -128
    """

    def __init__(self, type):  # noqa: A002 (torch's argument name)
        _check_dtype("iinfo", "type", 1, type)
        key = _key(type)
        if key == "bool":
            raise TypeError("gradtrack.bool is not supported by gradtrack.iinfo")
        if key not in _INT_INFO:
            raise TypeError("gradtrack.iinfo() requires an integer input type. Use "
                            "gradtrack.finfo to handle 'gradtrack.iinfo'")
        self.bits, self.min, self.max = _INT_INFO[key]
        self.dtype = key

    def __eq__(self, other):
        return isinstance(other, iinfo) and self.dtype == other.dtype

    def __hash__(self):
        return hash(("iinfo", self.dtype))

    def __repr__(self):
        return f"iinfo(min={self.min:.6g}, max={self.max:.6g}, dtype={self.dtype})"


def promote_types(type1, type2):
    """The smallest dtype both promote to (torch.promote_types).

    >>> import gradtrack
    >>> gradtrack.promote_types(gradtrack.uint8, gradtrack.int8)
    gradtrack.int16
    """
    _check_dtype("promote_types", "type1", 1, type1)
    _check_dtype("promote_types", "type2", 2, type2)
    return _C._promote_types(type1, type2)


def can_cast(from_, to):
    """Whether a value of dtype ``from_`` may be written into ``to`` under
    torch's same-kind rule (torch.can_cast).

    >>> import gradtrack
    >>> gradtrack.can_cast(gradtrack.float16, gradtrack.int8)
    False
    """
    _check_dtype("can_cast", "from_", 1, from_)
    _check_dtype("can_cast", "to", 2, to)
    return _C._can_cast(from_, to)


def _operand(value, position, name):
    if isinstance(value, _C.Tensor):
        return (value.dtype, 1 if value.dim() == 0 else 0)
    if isinstance(value, bool):
        return (_C.bool, 2)
    if isinstance(value, int):
        return (_C.int64, 2)
    if isinstance(value, float):
        return (_C.float32, 2)
    raise TypeError(f"result_type(): argument '{name}' (position {position}) must be Tensor, "
                    f"not {type(value).__name__}")


def result_type(tensor, other):
    """The dtype an arithmetic op on ``tensor`` and ``other`` returns
    (torch.result_type): tensors with dims, then 0-dim tensors, then Python
    numbers, each tier raising only the category.

    >>> import gradtrack
    >>> gradtrack.result_type(gradtrack.ones(2, dtype=gradtrack.int8), 2.5)
    gradtrack.float32
    """
    return _C._result_type([_operand(tensor, 1, "tensor"), _operand(other, 2, "other")])


def is_floating_point(input):  # noqa: A002
    """True if ``input`` has a floating-point dtype."""
    return input.dtype.is_floating_point


def is_signed(input):  # noqa: A002
    """True if ``input``'s dtype holds negative values (every dtype but bool and uint8).

    >>> import gradtrack
    >>> gradtrack.is_signed(gradtrack.tensor([1], dtype=gradtrack.uint8))
    False
    """
    return input.dtype.is_signed


# What this module gives gradtrack.* (NOTE [One registry] in _registry.py). The dtype
# names shadow Python builtins in gradtrack's namespace (gradtrack.float, gradtrack.int,
# gradtrack.bool), as torch's do.
FUNCTIONS = (promote_types, can_cast, result_type, is_floating_point, is_signed)


def _is_signed_method(self):
    """True if the dtype holds negative values (every dtype but bool and uint8).

    >>> import gradtrack
    >>> gradtrack.tensor([1, -1]).is_signed()
    True
    """
    return self.dtype.is_signed


_is_signed_method.__name__ = "is_signed"
class _ComplexDtype:
    """A complex dtype's name (``gradtrack.complex64`` & co.), so that programs and
    libraries that name it (safetensors' dtype tables, ``x.dtype.is_complex`` checks)
    import and run; gradtrack computes in real dtypes only, so no tensor has it, and a
    factory given it raises a TypeError that says so.

    >>> import gradtrack
    >>> gradtrack.complex64, gradtrack.cfloat is gradtrack.complex64
    (gradtrack.complex64, True)
    >>> gradtrack.complex64.is_complex, gradtrack.complex64.itemsize
    (True, 8)
    """

    is_complex = True
    is_floating_point = False
    is_signed = True

    def __init__(self, name, itemsize):
        self.__module__ = "gradtrack"  # pickled by name, as gradtrack.<name> (torch's too)
        self._name = name
        self.itemsize = itemsize
        # read by the C++ dtype parser for its error (bind_dtype.cpp)
        self._no_tensors_message = (f"gradtrack: {name} tensors are not supported (gradtrack "
                                    "computes in real dtypes only)")

    def __repr__(self):
        return "gradtrack." + self._name

    def __reduce__(self):
        return self._name


_COMPLEX = {name: _ComplexDtype(name, size)
            for name, size in (("complex32", 4), ("complex64", 8), ("complex128", 16))}

METHODS = {"is_signed": _is_signed_method}
NAMES = {
    **_COMPLEX, "chalf": _COMPLEX["complex32"], "cfloat": _COMPLEX["complex64"],
    "cdouble": _COMPLEX["complex128"],
    "dtype": _C.dtype, "finfo": finfo, "iinfo": iinfo,
    "float32": _C.float32, "float": _C.float32, "float64": _C.float64, "double": _C.float64,
    "float16": _C.float16, "half": _C.float16, "bfloat16": _C.bfloat16,
    "int64": _C.int64, "long": _C.int64, "int32": _C.int32, "int": _C.int32,
    "int16": _C.int16, "short": _C.int16, "int8": _C.int8, "uint8": _C.uint8, "bool": _C.bool,
}
