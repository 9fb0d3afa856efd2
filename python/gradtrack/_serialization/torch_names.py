"""torch's names in a checkpoint, and the gradtrack objects that stand for them.

NOTE [Torch's names in gradtrack's files]
A torch checkpoint's ``data.pkl`` names torch's functions and classes
(``torch._utils._rebuild_tensor_v2``, ``torch.FloatStorage``, ``torch.Size``...).
gradtrack writes those same names, so ``torch.load`` reads its files as its own,
and reads them back as gradtrack objects: each name maps to the gradtrack
function or class that does the same job. Writing never imports torch (it is not a
dependency): a ``TorchGlobal`` is a placeholder the pickler writes as the name.
"""

from collections import Counter, OrderedDict

from .. import _C

# gradtrack dtype name -> torch's storage class of that dtype.
STORAGE_CLASSES = {
    "float32": "FloatStorage", "float64": "DoubleStorage", "float16": "HalfStorage",
    "bfloat16": "BFloat16Storage", "int64": "LongStorage", "int32": "IntStorage",
    "int16": "ShortStorage", "int8": "CharStorage", "uint8": "ByteStorage",
    "bool": "BoolStorage",
}
DTYPES = {name: getattr(_C, name) for name in STORAGE_CLASSES}
# torch's dtypes gradtrack does not have: named in the error a file holding one gets.
FOREIGN_STORAGES = {
    "ComplexFloatStorage": "complex64", "ComplexDoubleStorage": "complex128",
    "QInt8Storage": "qint8", "QUInt8Storage": "quint8", "QInt32Storage": "qint32",
    "QUInt4x2Storage": "quint4x2", "QUInt2x4Storage": "quint2x4",
}


def dtype_name(dtype):
    return repr(dtype).split(".", 1)[1]


class TorchGlobal:
    """A name in torch (``module``, ``name``) that the pickler writes as a global."""

    __slots__ = ("module", "name")

    def __init__(self, module, name):
        self.module, self.name = module, name

    def __call__(self, *args):
        # The pickler requires a reduce function to be callable; this one only names one.
        raise RuntimeError(f"{self.module}.{self.name} is a name written into a checkpoint")


REBUILD_TENSOR_V2 = TorchGlobal("torch._utils", "_rebuild_tensor_v2")
REBUILD_PARAMETER = TorchGlobal("torch._utils", "_rebuild_parameter")
TORCH_SIZE = TorchGlobal("torch", "Size")
TORCH_DEVICE = TorchGlobal("torch", "device")
STORAGE_GLOBALS = {name: TorchGlobal("torch", cls) for name, cls in STORAGE_CLASSES.items()}
DTYPE_GLOBALS = {name: TorchGlobal("torch", name) for name in STORAGE_CLASSES}


# ---- reading: what each allowed name becomes ----------------------------------------------

class StorageType:
    """What ``torch.FloatStorage`` and its kin load as: the dtype of a storage record."""

    def __init__(self, name, dtype):
        self.name, self.dtype = name, dtype

    def __repr__(self):
        return f"StorageType(dtype={self.dtype!r})"


class LoadedStorage:
    """A storage read from a checkpoint: ``flat`` is a 1-D tensor over all of it.
    Every tensor rebuilt from it is a view of ``flat``, so tensors that shared a
    storage when saved share one after loading."""

    __slots__ = ("flat", "dtype")

    def __init__(self, flat):
        self.flat, self.dtype = flat, flat.dtype

    def nbytes(self):
        return self.flat.numel() * self.flat.element_size()


def _ints(value, what):
    if not isinstance(value, (tuple, list)) or not all(type(v) is int for v in value):
        raise RuntimeError(f"a tensor's {what} in the checkpoint is not a sequence of ints: "
                           f"{value!r:.80}")
    return tuple(value)


def _rebuild(storage, storage_offset, size, stride):
    if not isinstance(storage, LoadedStorage):
        raise RuntimeError(f"expected a storage to rebuild a tensor from, got "
                           f"{type(storage).__name__}")
    size, stride = _ints(size, "size"), _ints(stride, "stride")
    if type(storage_offset) is not int or len(size) != len(stride) or \
            any(v < 0 for v in size + stride) or storage_offset < 0:
        raise RuntimeError(f"a tensor in the checkpoint has size {size}, stride {stride} and "
                           f"storage offset {storage_offset!r}, which do not describe a tensor")
    needed = 0 if 0 in size else \
        storage_offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
    if needed > storage.flat.numel():
        # torch grows a storage it may grow; one read from a file it may not.
        raise RuntimeError("Trying to resize storage that is not resizable")
    return storage.flat.as_strided(size, stride, storage_offset).detach()


def rebuild_tensor(storage, storage_offset, size, stride):
    return _rebuild(storage, storage_offset, size, stride)


def rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                      metadata=None):
    t = _rebuild(storage, storage_offset, size, stride)
    if requires_grad:
        t.requires_grad_(True)
    return t


def rebuild_parameter(data, requires_grad, backward_hooks):
    from ..nn.parameter import Parameter
    return Parameter(data, requires_grad)


def rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    param = rebuild_parameter(data, requires_grad, backward_hooks)
    set_state(param, state)
    return param


def rebuild_from_type_v2(func, new_type, args, state):
    # torch's wrapper for a tensor with attributes of its own or of a Tensor subclass;
    # gradtrack rebuilds the tensor and restores the attributes.
    ret = func(*args)
    if new_type is not _C.Tensor and type(ret) is not new_type:
        raise RuntimeError(f"cannot rebuild a tensor of type {new_type!r} from a checkpoint")
    set_state(ret, state)
    return ret


def set_state(obj, state):
    if isinstance(state, tuple) and len(state) == 2:
        state, slots = state
        _set_attributes(obj, slots)
    _set_attributes(obj, state)


def _set_attributes(obj, attributes):
    for key, value in (attributes or {}).items():
        if not isinstance(key, str) or key.startswith("__"):
            # __class__ and its kin would change what the object is.
            raise RuntimeError(f"a checkpoint may not set the attribute {key!r:.60}")
        setattr(obj, key, value)


def get_layout(name):
    from .._ops.creation import strided
    if name != "torch.strided":
        raise RuntimeError(f"gradtrack has only the strided layout; the checkpoint holds {name}")
    return strided


def _encode(value, encoding="latin1"):
    # _codecs.encode: how protocol 2 writes bytes; only the text-to-bytes use is allowed.
    if not isinstance(value, str) or encoding not in ("latin1", "latin-1"):
        raise RuntimeError("_codecs.encode in a checkpoint may only encode text to latin1 bytes")
    return value.encode("latin1")


def _bytearray(*args):
    # bytearray(n) would allocate n bytes the file does not hold: only contents are taken.
    if args and isinstance(args[0], int):
        raise RuntimeError("a checkpoint may only build a bytearray from its contents")
    return bytearray(*args)


def _device(*args):
    from .._legacy import device
    return device(*args)


def allowed_globals():
    """Every name ``load(weights_only=True)`` accepts by default, and its gradtrack object:
    torch 2.13's allow-list, less what gradtrack has no counterpart for."""
    from .._size import Size
    from ..nn.parameter import Parameter
    table = {
        "collections.OrderedDict": OrderedDict, "collections.Counter": Counter,
        "torch.nn.parameter.Parameter": Parameter, "torch.Size": Size,
        "torch.Tensor": _C.Tensor, "torch.device": _device,
        "torch.serialization._get_layout": get_layout, "_codecs.encode": _encode,
        "builtins.bytearray": _bytearray, "builtins.set": set, "builtins.complex": complex,
        "torch._utils._rebuild_tensor": rebuild_tensor,
        "torch._utils._rebuild_tensor_v2": rebuild_tensor_v2,
        "torch._utils._rebuild_parameter": rebuild_parameter,
        "torch._utils._rebuild_parameter_with_state": rebuild_parameter_with_state,
        "torch._tensor._rebuild_from_type_v2": rebuild_from_type_v2,
    }
    for name, dtype in DTYPES.items():
        table[f"torch.{name}"] = dtype
        table[f"torch.{STORAGE_CLASSES[name]}"] = StorageType(STORAGE_CLASSES[name], dtype)
    table["torch.UntypedStorage"] = StorageType("UntypedStorage", _C.uint8)
    for cls, name in FOREIGN_STORAGES.items():
        table[f"torch.{cls}"] = StorageType(cls, name)
    return table


# ---- torch's allow-list, by name -----------------------------------------------------------

def _torch_allowed_names():
    kinds = ["BFloat16", "Bool", "Byte", "Char", "Double", "Float", "Half", "Int", "Long",
             "Short"]
    names = {"_codecs.encode", "builtins.bytearray", "builtins.complex", "builtins.set",
             "collections.Counter", "collections.OrderedDict", "torch.Size", "torch.Tensor",
             "torch.device", "torch.nn.parameter.Parameter", "torch.serialization._get_layout",
             "torch.storage.TypedStorage", "torch.storage.UntypedStorage",
             "torch._tensor._rebuild_from_type_v2"}
    for prefix in ("torch.", "torch.cuda."):
        names.update(f"{prefix}{k}{what}" for k in kinds for what in ("Storage", "Tensor"))
        names.update(f"{prefix}Complex{k}Storage" for k in ("Double", "Float"))
    for prefix in ("torch.sparse.", "torch.cuda.sparse."):
        names.update(f"{prefix}{k}Tensor" for k in kinds if k != "Bool")
    names.update(f"torch.{k}Storage" for k in ("QInt32", "QInt8", "QUInt2x4", "QUInt4x2",
                                                 "QUInt8"))
    names.update(f"torch._utils._rebuild_{f}" for f in (
        "device_tensor_from_cpu_tensor", "device_tensor_from_numpy", "meta_tensor_no_storage",
        "nested_tensor", "parameter", "parameter_with_state", "qtensor", "sparse_tensor",
        "tensor", "tensor_v2", "tensor_v3", "wrapper_subclass"))
    dtypes = ["bfloat16", "bits16", "bits1x8", "bits2x4", "bits4x2", "bits8", "bool",
              "complex128", "complex32", "complex64", "float16", "float32",
              "float4_e2m1fn_x2", "float64", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2",
              "float8_e5m2fnuz", "float8_e8m0fnu", "int16", "int32", "int64", "int8", "qint32",
              "qint8", "quint2x4", "quint4x2", "quint8", "uint16", "uint32", "uint64", "uint8"]
    dtypes += [f"int{n}" for n in range(1, 8)] + [f"uint{n}" for n in range(1, 8)]
    names.update(f"torch.{d}" for d in dtypes)
    names.update(f"torch.per_{q}" for q in ("channel_affine", "channel_affine_float_qparams",
                                            "channel_symmetric", "tensor_affine",
                                            "tensor_symmetric"))
    return frozenset(names)


# Every name torch 2.13's ``load(weights_only=True)`` accepts by default, whether or not
# gradtrack can rebuild it: what ``get_unsafe_globals_in_checkpoint`` does not report.
TORCH_ALLOWED_NAMES = _torch_allowed_names()
