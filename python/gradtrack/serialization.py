"""``gradtrack.save`` / ``gradtrack.load``: state_dicts on disk without pickle.

NOTE [Save format]
A file is a zip archive (stored, not compressed) holding

* ``gradtrack/header.json``: ``{"format": "gradtrack.save", "version": 1,
  "root": <node>, "tensors": [{"dtype", "shape", "requires_grad",
  "parameter"}, ...]}``, and
* ``gradtrack/tensors/<i>.npy``: tensor ``i`` in NumPy's ``.npy`` format.

A node is a JSON value: ``null``, booleans, ints, finite floats and strings
stand for themselves; everything else is a one-key tagged object
(``{"$list": [...]}``, ``{"$tuple": [...]}``, ``{"$dict": [[key, value], ...]}``,
``{"$odict": [...], "metadata": node}``, ``{"$tensor": i}``,
``{"$float": "nan"}``, ``{"$size": [...]}``, ``{"$dtype": "float32"}``).
Loading never unpickles anything (``allow_pickle=False``), so a file can only
produce these types; it cannot run code. The same tensor object saved twice
loads as one object.
"""

import io
import json
import math
import os
import zipfile
from collections import OrderedDict

import numpy as np

from . import _C
from ._size import Size

__all__ = ["save", "load"]

_FORMAT = "gradtrack.save"
_VERSION = 1
_HEADER = "gradtrack/header.json"
_TENSOR_PATH = "gradtrack/tensors/{}.npy"
_Tensor = _C.Tensor
_DTYPES = {"float32": _C.float32, "float64": _C.float64, "int64": _C.int64, "int32": _C.int32,
           "uint8": _C.uint8, "bool": _C.bool}
_NP_DTYPES = {name: np.dtype(name) for name in _DTYPES}
_SUPPORTED = "tensors, None, bools, ints, floats, strings, dicts, lists and tuples"


def _dtype_name(dtype):
    return repr(dtype).split(".", 1)[1]


# ---- writing -------------------------------------------------------------------------------

class _Encoder:
    """Turns an object tree into JSON nodes, collecting tensors on the side."""

    def __init__(self):
        self.tensors = []      # (tensor, header entry)
        self.tensor_ids = {}   # id(tensor) -> index: a tensor saved twice is stored once
        self.active = set()    # ids of containers being encoded, to refuse cycles

    def encode(self, obj):
        if obj is None or isinstance(obj, (bool, str)):
            return obj
        if isinstance(obj, int):
            return int(obj)
        if isinstance(obj, float):
            return float(obj) if math.isfinite(obj) else {"$float": repr(float(obj))}
        if isinstance(obj, _Tensor):
            return {"$tensor": self._tensor_index(obj)}
        if isinstance(obj, _C.dtype):
            return {"$dtype": _dtype_name(obj)}
        if isinstance(obj, np.generic) and isinstance(obj.item(), (bool, int, float)):
            return self.encode(obj.item())
        if isinstance(obj, (list, tuple, dict)):
            return self._container(obj)
        raise TypeError(f"gradtrack.save cannot store an object of type "
                        f"{type(obj).__module__}.{type(obj).__qualname__}; it stores {_SUPPORTED}")

    def _container(self, obj):
        if id(obj) in self.active:
            raise ValueError("gradtrack.save cannot store a container that contains itself")
        self.active.add(id(obj))
        try:
            if isinstance(obj, Size):
                return {"$size": [int(s) for s in obj]}
            if isinstance(obj, dict):
                items = [[self.encode(k), self.encode(v)] for k, v in obj.items()]
                if not isinstance(obj, OrderedDict):
                    return {"$dict": items}
                node = {"$odict": items}
                metadata = getattr(obj, "_metadata", None)
                if metadata is not None:
                    node["metadata"] = self.encode(metadata)
                return node
            kind = "$tuple" if isinstance(obj, tuple) else "$list"
            return {kind: [self.encode(v) for v in obj]}
        finally:
            self.active.discard(id(obj))

    def _tensor_index(self, t):
        index = self.tensor_ids.get(id(t))
        if index is None:
            from .nn.parameter import Parameter
            index = len(self.tensors)
            self.tensor_ids[id(t)] = index
            entry = {"dtype": _dtype_name(t.dtype), "shape": list(t.shape),
                     "requires_grad": bool(t.requires_grad),
                     "parameter": isinstance(t, Parameter)}
            self.tensors.append((t, entry))
        return index


def save(obj, f):
    """Saves ``obj`` (a state_dict, or any tree of tensors, numbers, strings,
    bools, None, dicts, lists and tuples) to the path or binary file ``f``.

    >>> import os, tempfile, gradtrack
    >>> from gradtrack import nn
    >>> path = os.path.join(tempfile.mkdtemp(), "model.gt")
    >>> gradtrack.save(nn.Linear(2, 1).state_dict(), path)
    >>> list(gradtrack.load(path))
    ['weight', 'bias']
    """
    encoder = _Encoder()
    header = {"format": _FORMAT, "version": _VERSION, "root": encoder.encode(obj)}
    header["tensors"] = [entry for _, entry in encoder.tensors]
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as stream:
            _write_archive(stream, header, encoder.tensors)
    else:
        _write_archive(f, header, encoder.tensors)


def _write_archive(stream, header, tensors):
    with zipfile.ZipFile(stream, "w", compression=zipfile.ZIP_STORED) as archive:
        archive.writestr(_HEADER, json.dumps(header, allow_nan=False))
        for index, (t, _) in enumerate(tensors):
            buffer = io.BytesIO()
            array = t.detach().numpy()
            # copy() gives C order; np.ascontiguousarray would turn a 0-dim array into 1-dim.
            array = array if array.flags.c_contiguous else array.copy()
            np.lib.format.write_array(buffer, array, allow_pickle=False)
            archive.writestr(_TENSOR_PATH.format(index), buffer.getvalue())


# ---- reading -------------------------------------------------------------------------------

class _Decoder:
    """Rebuilds the object tree from JSON nodes; any malformed node is an error."""

    def __init__(self, tensors):
        self.tensors = tensors

    def decode(self, node):
        if node is None or isinstance(node, (bool, int, float, str)):
            return node
        if not isinstance(node, dict) or not node:
            raise ValueError(f"unexpected node {node!r:.60}")
        tag = next(iter(node))
        value = node[tag]
        if tag == "$tensor":
            if not isinstance(value, int) or not 0 <= value < len(self.tensors):
                raise ValueError(f"bad tensor index {value!r}")
            return self.tensors[value]
        if tag == "$float":
            if value not in ("nan", "inf", "-inf"):
                raise ValueError(f"bad float {value!r}")
            return float(value)
        if tag == "$dtype":
            return _DTYPES[value]
        if tag in ("$list", "$tuple", "$size"):
            items = [self.decode(v) for v in _as_list(value)]
            return {"$list": list, "$tuple": tuple, "$size": Size}[tag](items)
        if tag in ("$dict", "$odict"):
            return self._mapping(tag, value, node)
        raise ValueError(f"unknown tag {tag!r}")

    def _mapping(self, tag, items, node):
        pairs = []
        for pair in _as_list(items):
            if not isinstance(pair, list) or len(pair) != 2:
                raise ValueError("a dict entry is not a [key, value] pair")
            pairs.append((self.decode(pair[0]), self.decode(pair[1])))
        if tag == "$dict":
            return dict(pairs)
        result = OrderedDict(pairs)
        if "metadata" in node:
            result._metadata = self.decode(node["metadata"])
        return result


def _as_list(value):
    if not isinstance(value, list):
        raise ValueError(f"expected a JSON list, got {type(value).__name__}")
    return value


def _read_tensor(archive, index, entry):
    from .nn.parameter import Parameter
    dtype_name, shape = entry["dtype"], entry["shape"]
    if dtype_name not in _NP_DTYPES:
        raise ValueError(f"unsupported dtype {dtype_name!r}")
    with archive.open(_TENSOR_PATH.format(index)) as member:
        array = np.lib.format.read_array(io.BytesIO(member.read()), allow_pickle=False)
    expected = _NP_DTYPES[dtype_name]
    if array.dtype.newbyteorder("=") != expected.newbyteorder("=") or list(array.shape) != shape:
        raise ValueError(f"tensor {index} is {array.dtype}{list(array.shape)}, the header says "
                         f"{dtype_name}{shape}")
    t = _C.tensor(array.astype(expected, copy=False))
    if entry.get("parameter"):
        return Parameter(t, requires_grad=bool(entry["requires_grad"]))
    if entry["requires_grad"]:
        t.requires_grad_(True)
    return t


def _describe(f):
    return repr(os.fspath(f)) if isinstance(f, (str, os.PathLike)) else "the given file"


def _read_archive(stream, where):
    try:
        archive = zipfile.ZipFile(stream)
    except zipfile.BadZipFile as e:
        raise RuntimeError(f"gradtrack.load: {where} is not a gradtrack.save file (not a zip "
                           f"archive: {e}); it may be truncated or corrupted") from e
    with archive:
        names = archive.namelist()
        if _HEADER not in names:
            hint = ("; it looks like a torch.save (pickle) file, which gradtrack does not read"
                    if any(n.endswith("data.pkl") for n in names) else "")
            raise RuntimeError(f"gradtrack.load: {where} is a zip archive but not a "
                               f"gradtrack.save file (no {_HEADER}){hint}")
        try:
            header = json.loads(archive.read(_HEADER).decode("utf-8"))
            if not isinstance(header, dict) or header.get("format") != _FORMAT:
                raise ValueError("the header does not name the gradtrack.save format")
            if header.get("version") != _VERSION:
                raise ValueError(f"format version {header.get('version')!r} is not supported "
                                 f"(this gradtrack reads version {_VERSION})")
            tensors = [_read_tensor(archive, i, entry)
                       for i, entry in enumerate(_as_list(header["tensors"]))]
            return _Decoder(tensors).decode(header["root"])
        except (ValueError, KeyError, TypeError, EOFError, OSError, RecursionError,
                zipfile.BadZipFile) as e:
            raise RuntimeError(f"gradtrack.load: {where} is corrupted or not a valid "
                               f"gradtrack.save file: {type(e).__name__}: {e}") from e


def load(f, map_location=None, *, weights_only=True, mmap=None):
    """Loads what :func:`save` wrote to the path or binary file ``f``.

    Tensors come back with their dtype, shape, values and ``requires_grad``;
    ``OrderedDict`` stays ``OrderedDict``. A corrupted or foreign file raises
    ``RuntimeError`` saying so. ``map_location`` may only name the CPU.

    >>> import io, gradtrack
    >>> buffer = io.BytesIO()
    >>> gradtrack.save({"step": 3, "w": gradtrack.tensor([1.5, 2.0])}, buffer)
    >>> _ = buffer.seek(0)
    >>> gradtrack.load(buffer)
    {'step': 3, 'w': tensor([1.5000, 2.0000])}
    """
    if map_location is not None and not callable(map_location) \
            and str(map_location) not in ("cpu", "cpu:0"):
        raise RuntimeError(f"gradtrack runs on the CPU only, got map_location={map_location!r}")
    where = _describe(f)
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as stream:
            return _read_archive(stream, where)
    if not (hasattr(f, "seekable") and f.seekable()):
        f = io.BytesIO(f.read())
    return _read_archive(f, where)
