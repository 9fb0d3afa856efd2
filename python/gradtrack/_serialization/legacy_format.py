"""torch's checkpoint format before 1.6 (``torch.save(...,
_use_new_zipfile_serialization=False)``): reading and writing it.

NOTE [Torch's legacy checkpoint layout]
The file is a run of pickles followed by raw storage bytes, not a zip: the magic
number ``0x1950a86a20f9469cfc6c``, the protocol version ``1001``, a dict describing
the writer (``protocol_version``, ``little_endian``, ``type_sizes``), the object
itself, then the list of storage keys, and for each key, in that order, its element
count as a little-endian int64 followed by its bytes. A storage's persistent id is
``('storage', torch.<Type>Storage, key, location, numel, view_metadata)``:
``view_metadata`` is ``None`` except in files from torch before 0.4, where it is
``(view_key, offset, size)``, a view of the storage ``key`` named ``view_key``.

The object is unpickled before the bytes are read, so each storage is allocated
when the pickle names it and filled afterwards, as torch does. Before it is
allocated, the bytes all storages declare must fit in what is left of the file, so
a file that declares terabytes is refused without allocating them (NOTE [Reading
untrusted checkpoints]).
"""

import io
import pickle
import struct

import numpy as np

from .. import _C
from . import torch_names
from .reader import _CUDA_MESSAGE, CheckpointError, _restore_location
from .unpickler import FullUnpickler, WeightsOnlyUnpickler
from .writer import TorchPickler, storage_bytes

MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
PROTOCOL_VERSION = 1001
SYS_INFO = {"protocol_version": PROTOCOL_VERSION, "little_endian": True,
            "type_sizes": {"short": 2, "int": 4, "long": 4}}


# ---- writing -------------------------------------------------------------------------------

class _LegacyPickler(TorchPickler):
    def persistent_id(self, obj):
        pid = super().persistent_id(obj)
        return None if pid is None else pid + (None,)


def write_legacy(obj, stream, protocol=2):
    """Writes ``obj`` in torch's legacy layout (NOTE [Torch's legacy checkpoint layout])."""
    for header in (MAGIC_NUMBER, PROTOCOL_VERSION, SYS_INFO):
        pickle.dump(header, stream, protocol=protocol)
    pickler = _LegacyPickler(stream, protocol)
    pickler.dump(obj)
    refs = sorted(pickler.storages.values(), key=lambda ref: ref.key)
    pickle.dump([ref.key for ref in refs], stream, protocol=protocol)
    for ref in refs:
        stream.write(struct.pack("<q", ref.nbytes // ref.tensor.element_size()))
        stream.write(storage_bytes(ref))


# ---- reading -------------------------------------------------------------------------------

class _View:
    """A read-only file over part of a buffer, for Python's unpickler."""

    def __init__(self, data, pos):
        self.data, self.pos = memoryview(data), pos

    def read(self, n=-1):
        end = len(self.data) if n < 0 else min(self.pos + n, len(self.data))
        chunk = bytes(self.data[self.pos:end])
        self.pos = end
        return chunk

    def readline(self):
        stop = self.data.obj.find(b"\n", self.pos)
        return self.read((len(self.data) if stop < 0 else stop + 1) - self.pos)


class LegacyReader:
    """One legacy file being loaded: its bytes, and the storages its pickle named."""

    def __init__(self, data, map_location, weights_only, allowed, user_allowed,
                 pickle_load_args, skip_data):
        self.data, self.pos = data, 0
        self.map_location, self.weights_only = map_location, weights_only
        self.allowed, self.user_allowed = allowed, user_allowed
        self.pickle_load_args, self.skip_data = pickle_load_args, skip_data
        self.storages, self.declared, self.big_endian = {}, 0, False

    def unpickle(self):
        if self.weights_only:
            unpickler = WeightsOnlyUnpickler(self.data, self.persistent_load, self.allowed,
                                             self.user_allowed)
            unpickler.pos = self.pos
            result = unpickler.load()
            self.pos = unpickler.pos
            return result
        view = _View(self.data, self.pos)
        args = dict(self.pickle_load_args or {})
        args.setdefault("encoding", "utf-8")
        result = FullUnpickler(view, self.persistent_load, self.allowed, **args).load()
        self.pos = view.pos
        return result

    def persistent_load(self, pid):
        if type(pid) is not tuple or not pid:
            raise RuntimeError(f"unsupported persistent id {pid!r:.80}")
        kind = pid[0].decode("ascii") if isinstance(pid[0], bytes) else pid[0]
        if kind == "module" and not self.weights_only and len(pid) == 4:
            return pid[1]  # torch names an nn.Module class with its source; use the class
        if kind != "storage" or len(pid) != 6:
            raise RuntimeError(f"unsupported persistent id {pid!r:.80}")
        _, storage_type, key, location, numel, view_metadata = pid
        if isinstance(location, bytes):
            location = location.decode("ascii")
        if not isinstance(storage_type, torch_names.StorageType) or type(key) is not str \
                or type(numel) is not int or numel < 0 or type(location) is not str:
            raise CheckpointError(f"malformed storage id {pid!r:.120}")
        dtype = storage_type.dtype
        if not isinstance(dtype, _C.dtype):
            raise RuntimeError(f"the checkpoint holds a torch.{dtype} storage; gradtrack has no "
                               f"dtype torch.{dtype}")
        storage = self.storages.get(key)
        if storage is None:
            storage = self.storages[key] = self._allocate(key, dtype, numel)
        elif storage.dtype is not dtype:
            raise CheckpointError(f"storage {key} is read as two different dtypes")
        if view_metadata is not None:
            storage = self._view(storage, view_metadata)
        storage, location = _restore_location(self.map_location, storage, location)
        if location.startswith("cuda"):
            raise RuntimeError(_CUDA_MESSAGE)
        if location != "cpu":
            raise RuntimeError(f"don't know how to restore data location of "
                               f"torch.storage.UntypedStorage (tagged with {location})")
        return storage

    def _allocate(self, key, dtype, numel):
        itemsize = _C.empty(0, dtype=dtype).element_size()
        self.declared += numel * itemsize + 8
        if self.declared > len(self.data) - self.pos:
            raise CheckpointError(f"storage {key} declares {numel} elements of "
                                  f"{torch_names.dtype_name(dtype)}, more than the file holds")
        # Zeros, not empty: a storage the file never fills holds no stale memory.
        return _Pending(np.zeros(numel * itemsize, dtype=np.uint8), dtype)

    def _view(self, storage, view_metadata):
        if type(view_metadata) is not tuple or len(view_metadata) != 3:
            raise CheckpointError(f"malformed storage view {view_metadata!r:.80}")
        view_key, offset, size = view_metadata
        if type(offset) is not int or type(size) is not int or offset < 0 or size < 0 or \
                offset + size > storage.numel:
            raise CheckpointError(f"storage view {view_key!r:.40} lies outside its storage")
        # A storage of its own over the same memory: rebuilt tensors' offsets count from
        # the view's start, as torch's.
        itemsize = storage.flat.element_size()
        return _Pending(storage.buffer[offset * itemsize:(offset + size) * itemsize],
                        storage.dtype)

    def read_storages(self, keys):
        if type(keys) is not list:
            raise CheckpointError("the list of storage keys is not a list")
        for key in keys:
            storage = self.storages.get(key) if type(key) is str else None
            if storage is None:
                raise CheckpointError(f"storage {key!r:.40} is not named by the checkpoint")
            count = self._take(8)
            (numel,) = struct.unpack("<q", count)
            if numel != storage.numel:
                raise CheckpointError(f"storage {key} holds {numel} elements where the "
                                      f"checkpoint declared {storage.numel}")
            raw = self._take(storage.size)
            if not self.skip_data:
                storage.buffer[:] = np.frombuffer(raw, dtype=np.uint8)
        for storage in self.storages.values():
            storage.finish(self.big_endian)

    def _take(self, n):
        end = self.pos + n
        if end > len(self.data):
            raise RuntimeError(f"unexpected EOF, expected {end - len(self.data)} more bytes. "
                               f"The file might be corrupted.")
        chunk = memoryview(self.data)[self.pos:end]
        self.pos = end
        return chunk


class _Pending(torch_names.LoadedStorage):
    """A storage allocated while unpickling and filled from the bytes after the pickle.
    Tensors view ``flat`` at once; the bytes land in the same memory later."""

    __slots__ = ("buffer", "numel", "size")

    def __init__(self, buffer, dtype):
        stored = _C.int16 if dtype is _C.bfloat16 else dtype
        flat = _C.from_numpy(buffer.view(np.dtype(torch_names.dtype_name(stored))))
        if dtype is _C.bfloat16:
            flat = flat.view(_C.bfloat16)
        super().__init__(flat)
        self.buffer, self.numel, self.size = buffer, flat.numel(), buffer.nbytes

    def finish(self, big_endian):
        if big_endian and self.flat.element_size() > 1:
            swapped = self.buffer.view(f">u{self.flat.element_size()}").astype(
                f"<u{self.flat.element_size()}")
            self.buffer[:] = swapped.view(np.uint8)


def read_legacy(stream, where, map_location, weights_only, user_allowed, pickle_load_args,
                skip_data):
    """Loads the object a legacy-format file holds (NOTE [Torch's legacy checkpoint
    layout]); the stream is read from its current position."""
    start = stream.tell()
    data = bytearray(stream.seek(0, io.SEEK_END) - start)  # read once, without a copy
    stream.seek(start)
    filled = 0
    while filled < len(data):
        count = stream.readinto(memoryview(data)[filled:])
        if not count:
            del data[filled:]
            break
        filled += count
    reader = LegacyReader(data, map_location, weights_only, torch_names.allowed_globals(),
                          user_allowed, pickle_load_args, skip_data)
    try:
        magic = reader.unpickle()
    except Exception as e:  # noqa: BLE001 - whatever a non-pickle makes the unpickler raise
        raise RuntimeError(f"gradtrack.load: {where} is not a checkpoint gradtrack reads (not "
                           f"a zip archive nor torch's legacy format); it may be truncated or "
                           f"corrupted") from e
    if magic != MAGIC_NUMBER:
        raise RuntimeError("Invalid magic number; corrupt file?")
    protocol_version = reader.unpickle()
    if protocol_version != PROTOCOL_VERSION:
        raise RuntimeError(f"Invalid protocol version: {protocol_version}")
    sys_info = reader.unpickle()
    if type(sys_info) is not dict:
        raise CheckpointError("the writer's description is not a dict")
    reader.big_endian = sys_info.get("little_endian", True) is False
    result = reader.unpickle()
    reader.read_storages(reader.unpickle())
    return result
