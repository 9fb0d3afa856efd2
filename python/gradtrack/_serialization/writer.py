"""Writing torch's checkpoint format: a pickle naming torch's rebuild functions, and a
zip archive holding it and one record per storage.

NOTE [Torch's checkpoint layout]
``torch.save`` writes a zip archive (members stored, not compressed) whose members
sit under one folder, the file's name without its extension (``archive`` for a
file object): ``data.pkl`` (the object, pickled with protocol 2 by default),
``.format_version`` (``1``), ``.storage_alignment`` (``64``), ``byteorder``
(``little``), ``data/<key>`` (the bytes of each storage, all of it, however little
of it the tensors use), ``version`` (``3``) and ``.data/serialization_id``. Each
record's data starts at a multiple of 64 in the file (the local header's extra field
pads it), which is what lets ``torch.load(mmap=True)`` map storages in place. A
tensor pickles as ``_rebuild_tensor_v2(storage, offset, size, stride,
requires_grad, OrderedDict())`` where the storage is a persistent id
``('storage', torch.<Type>Storage, key, 'cpu', numel)``; views of one base name one
storage, so they share it again after loading.
"""

import pickle
import secrets
import struct
import zipfile
from collections import OrderedDict

from .. import _C
from .._legacy import device as _device
from .._size import Size
from . import torch_names as names

ALIGNMENT = 64
_PAD_HEADER_ID = 0x4246  # "FB", the id torch's writer gives its padding field


class _StorageRef:
    """A storage met while pickling: its record key, dtype and one tensor over it."""

    __slots__ = ("key", "dtype", "tensor", "nbytes")

    def __init__(self, key, tensor, nbytes):
        self.key, self.dtype, self.tensor, self.nbytes = key, tensor.dtype, tensor, nbytes

    def pid(self):
        name = names.dtype_name(self.dtype)
        numel = self.nbytes // self.tensor.element_size()
        return ("storage", names.STORAGE_GLOBALS[name], self.key, "cpu", numel)


class TorchPickler(pickle._Pickler):
    """The pure-Python pickler, because only it lets a name be written without
    importing the object it names (NOTE [Torch's names in gradtrack's files])."""

    dispatch = pickle._Pickler.dispatch.copy()

    def __init__(self, file, protocol):
        super().__init__(file, protocol)
        self.storages = {}  # storage identity -> _StorageRef, in the order first met

    def persistent_id(self, obj):
        return obj.pid() if type(obj) is _StorageRef else None

    def reducer_override(self, obj):
        if isinstance(obj, _C.Tensor):
            return self._reduce_tensor(obj)
        if isinstance(obj, Size):
            return names.TORCH_SIZE, (tuple(int(s) for s in obj),)
        if isinstance(obj, _device):
            return names.TORCH_DEVICE, (str(obj),)
        return NotImplemented

    def _reduce_tensor(self, t):
        from ..nn.parameter import Parameter
        if isinstance(t, Parameter):
            return names.REBUILD_PARAMETER, (t.detach(), t.requires_grad, OrderedDict())
        return names.REBUILD_TENSOR_V2, (self._storage_of(t), t.storage_offset(),
                                         tuple(t.shape), tuple(t.stride()),
                                         t.requires_grad, OrderedDict())

    def _storage_of(self, t):
        nbytes = t._storage_nbytes()
        # Every empty storage may sit at the same (null) address: each is its own.
        identity = (t.untyped_storage_ptr(), nbytes) if nbytes else ("empty", id(t))
        ref = self.storages.get(identity)
        if ref is None:
            ref = self.storages[identity] = _StorageRef(str(len(self.storages)), t, nbytes)
        elif ref.dtype is not t.dtype:
            raise RuntimeError("Cannot save multiple tensors or storages that view the same "
                               "data as different types")
        return ref

    def save_torch_global(self, obj):
        if self.proto >= 4:
            self.save(obj.module)
            self.save(obj.name)
            self.write(pickle.STACK_GLOBAL)
        else:
            self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode("utf-8"))
        self.memoize(obj)

    def save_dtype(self, obj):
        self.save(names.DTYPE_GLOBALS[names.dtype_name(obj)])

    dispatch[names.TorchGlobal] = save_torch_global
    dispatch[_C.dtype] = save_dtype


def storage_bytes(ref):
    """The bytes of a whole storage, without copying them."""
    if ref.nbytes == 0:
        return b""
    flat = ref.tensor.detach().as_strided((ref.nbytes // ref.tensor.element_size(),), (1,), 0)
    if flat.dtype is _C.bfloat16:  # NumPy has no bfloat16: its bits as int16
        flat = flat.view(_C.int16)
    return memoryview(flat.numpy()).cast("B")


class ArchiveWriter:
    """torch's zip layout: records under ``folder/``, each one's data 64-byte aligned."""

    def __init__(self, stream, folder):
        self.zip = zipfile.ZipFile(stream, "w", compression=zipfile.ZIP_STORED,
                                   allowZip64=True)
        self.folder = folder

    def write(self, name, data, size=None):
        """Writes the record ``name``: ``data``, or ``size`` zero bytes when it is None."""
        info = zipfile.ZipInfo(f"{self.folder}/{name}", date_time=(1980, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_STORED
        info.file_size = size = len(data) if data is not None else size
        zip64 = size * 1.05 > zipfile.ZIP64_LIMIT
        # Where the data would start with no padding: header, name, zip64 sizes.
        start = self.zip.start_dir + 30 + len(info.filename.encode("utf-8")) + 20 * zip64
        pad = -start % ALIGNMENT
        if 0 < pad < 4:  # an extra field is at least its 4-byte header
            pad += ALIGNMENT
        if pad:
            info.extra = struct.pack("<HH", _PAD_HEADER_ID, pad - 4) + b"Z" * (pad - 4)
        with self.zip.open(info, "w", force_zip64=zip64) as member:
            if data is not None:
                member.write(data)
                return
            zeros = bytes(min(size, 1 << 20))
            for start in range(0, size, len(zeros) or 1):
                member.write(zeros[:size - start])

    def close(self):
        self.zip.close()


def write_checkpoint(obj, stream, folder, protocol=2, byteorder_record=True, skip_data=False):
    """Pickles ``obj`` and writes it, with every storage it names, in torch's layout.
    With ``skip_data`` each storage's record is written at its full size but holds
    zeros, as under ``torch.serialization.skip_data``."""
    import io
    buffer = io.BytesIO()
    pickler = TorchPickler(buffer, protocol)
    pickler.dump(obj)
    archive = ArchiveWriter(stream, folder)
    try:
        archive.write("data.pkl", buffer.getbuffer())
        archive.write(".format_version", b"1")
        archive.write(".storage_alignment", b"64")
        if byteorder_record:
            archive.write("byteorder", b"little")
        for ref in pickler.storages.values():
            if skip_data:
                archive.write(f"data/{ref.key}", None, ref.nbytes)
            else:
                archive.write(f"data/{ref.key}", storage_bytes(ref))
        archive.write("version", b"3\n")
        archive.write(".data/serialization_id", f"{secrets.randbits(128):040d}".encode())
    finally:
        archive.close()
