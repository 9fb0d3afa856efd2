"""Reading the files earlier gradtrack versions wrote: a zip of ``.npy`` arrays and a JSON
structure, no pickle. ``save`` now writes torch's format; ``load`` still reads these.

NOTE [The zip-of-npy format]
A file is a zip archive (stored, not compressed) holding

* ``gradtrack/header.json``: ``{"format": "gradtrack.save", "version": 1,
  "root": <node>, "tensors": [{"dtype", "shape", "requires_grad",
  "parameter"}, ...]}``, and
* ``gradtrack/tensors/<i>.npy``: tensor ``i`` in NumPy's ``.npy`` format.

A node is a JSON value: ``null``, booleans, ints, finite floats and strings
stand for themselves; everything else is a one-key tagged object
(``{"$list": [...]}``, ``{"$tuple": [...]}``, ``{"$dict": [[key, value], ...]}``,
``{"$odict": [...], "metadata": node}``, ``{"$counter": [...]}``, ``{"$tensor": i}``,
``{"$float": "nan"}``, ``{"$size": [...]}``, ``{"$dtype": "float32"}``).
Reading never unpickles anything (``allow_pickle=False``), so a file can only
produce these types. The same tensor object saved twice loads as one object.
"""

import io
import json
import math
import zipfile
from collections import Counter, OrderedDict

import numpy as np

from .. import _C
from .._size import Size

_FORMAT = "gradtrack.save"
_VERSION = 1
HEADER = "gradtrack/header.json"
_TENSOR_PATH = "gradtrack/tensors/{}.npy"
_DTYPES = {"float32": _C.float32, "float64": _C.float64, "int64": _C.int64, "int32": _C.int32,
           "uint8": _C.uint8, "bool": _C.bool, "int8": _C.int8, "int16": _C.int16,
           "float16": _C.float16}
_NP_DTYPES = {name: np.dtype(name) for name in _DTYPES}


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
        if tag in ("$dict", "$odict", "$counter"):
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
        if tag == "$counter":
            return Counter(dict(pairs))
        result = OrderedDict(pairs)
        if "metadata" in node:
            result._metadata = self.decode(node["metadata"])
        return result


def _as_list(value):
    if not isinstance(value, list):
        raise ValueError(f"expected a JSON list, got {type(value).__name__}")
    return value


# NOTE [Reading untrusted files]
# A file to load may be damaged or made to hurt, so nothing in it is trusted
# before it is checked: every member must be stored (save never compresses,
# so a compressed member is either foreign or a zip bomb), unencrypted, and
# lie inside the file with its declared size; a member is read up to that
# size and no further; a tensor's .npy header must agree with the JSON header
# and its payload must be exactly the bytes its shape needs before anything
# is allocated for it. Whatever else goes wrong while reading (zipfile's,
# numpy's or json's own exceptions, MemoryError included) becomes the one
# RuntimeError that names the file.

def _check_members(archive, file_size):
    for info in archive.infolist():
        if info.compress_type != zipfile.ZIP_STORED:
            raise ValueError(f"member {info.filename!r} is compressed (method "
                             f"{info.compress_type}); gradtrack.save stores members uncompressed")
        if info.flag_bits & 0x1:
            raise ValueError(f"member {info.filename!r} is encrypted")
        if info.file_size != info.compress_size or \
                info.header_offset + info.compress_size > file_size:
            raise ValueError(f"member {info.filename!r} declares {info.file_size} bytes, more "
                             f"than the file holds")


def _read_member(archive, name):
    info = archive.getinfo(name)
    with archive.open(info) as member:
        data = member.read(info.file_size + 1)
    if len(data) != info.file_size:
        raise ValueError(f"member {name!r} holds {len(data)} bytes, its entry says "
                         f"{info.file_size}")
    return data


def _shape(value):
    shape = _as_list(value)
    if not all(type(s) is int and s >= 0 for s in shape):
        raise ValueError(f"shape {shape!r:.80} is not a list of non-negative ints")
    return shape


def _read_npy(data, index, expected, shape):
    """The array a .npy member holds, checked against the header's dtype and shape
    before its payload is looked at."""
    stream = io.BytesIO(data)
    version = np.lib.format.read_magic(stream)
    if version not in ((1, 0), (2, 0)):
        raise ValueError(f"tensor {index} has .npy format version {version}")
    read_header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                   else np.lib.format.read_array_header_2_0)
    npy_shape, fortran_order, dtype = read_header(stream)
    if dtype.newbyteorder("=") != expected.newbyteorder("=") or list(npy_shape) != shape:
        raise ValueError(f"tensor {index} is {dtype}{list(npy_shape)}, the header says "
                         f"{expected}{shape}")
    count = math.prod(shape)
    payload = len(data) - stream.tell()
    if payload != count * dtype.itemsize:
        raise ValueError(f"tensor {index} holds {payload} bytes of data, its shape "
                         f"{shape} needs {count * dtype.itemsize}")
    array = np.frombuffer(data, dtype=dtype, count=count, offset=stream.tell())
    return array.reshape(shape, order="F" if fortran_order else "C")


def _read_tensor(archive, index, entry):
    from ..nn.parameter import Parameter
    if not isinstance(entry, dict):
        raise ValueError(f"tensor entry {index} is not an object")
    dtype_name, shape = entry["dtype"], _shape(entry["shape"])
    if not isinstance(dtype_name, str) or dtype_name not in _NP_DTYPES:
        raise ValueError(f"unsupported dtype {dtype_name!r}")
    expected = _NP_DTYPES[dtype_name]
    array = _read_npy(_read_member(archive, _TENSOR_PATH.format(index)), index, expected, shape)
    t = _C.tensor(array.astype(expected, copy=False))
    if entry.get("parameter"):
        return Parameter(t, requires_grad=bool(entry["requires_grad"]))
    if entry["requires_grad"]:
        t.requires_grad_(True)
    return t


def read_archive(archive, file_size, where):
    """Loads what an earlier gradtrack's ``save`` wrote (the archive is open)."""
    try:
        _check_members(archive, file_size)
        header = json.loads(_read_member(archive, HEADER).decode("utf-8"))
        if not isinstance(header, dict) or header.get("format") != _FORMAT:
            raise ValueError("the header does not name the gradtrack.save format")
        if header.get("version") != _VERSION:
            raise ValueError(f"format version {header.get('version')!r} is not supported "
                             f"(this gradtrack reads version {_VERSION})")
        tensors = [_read_tensor(archive, i, entry)
                   for i, entry in enumerate(_as_list(header["tensors"]))]
        return _Decoder(tensors).decode(header["root"])
    except Exception as e:  # noqa: BLE001 - see NOTE [Reading untrusted files]
        raise RuntimeError(f"gradtrack.load: {where} is corrupted or not a valid "
                           f"gradtrack.save file: {type(e).__name__}: {e}") from e
