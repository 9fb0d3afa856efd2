"""Reading torch's checkpoint format (NOTE [Torch's checkpoint layout] in ``writer.py``).

NOTE [Reading untrusted checkpoints]
Nothing in a file is trusted before it is checked. The zip's members must be stored
(not compressed), unencrypted, and each must lie inside the file without
overlapping another. A storage's record must hold at least the bytes its declared
element count needs before anything is allocated for it, so memory follows the
file's real size, not what it claims; a tensor must lie inside its storage
(``as_strided`` checks). ``data.pkl`` is read by the weights-only unpickler unless the
caller opts out (NOTE [The weights-only unpickler]).

NOTE [Reading storages into the allocator's memory]
A storage's bytes are read straight into a tensor from gradtrack's caching
allocator (NOTE [Caching allocator]), not into a NumPy array the tensor then wraps.
Loading 100 MB of 1 MB storages was bound by the page faults of that fresh
memory: NumPy's blocks go back to the system when freed, so every load faulted
all of it in again (61 ms against torch's 27 ms on an Intel Xeon, 2 cores); the
allocator's blocks are handed out again, as every other tensor's are. The
tensor owns its memory, writable and independent of the file, as torch's default
load gives. The write goes through a ``ctypes`` view of the tensor's memory,
which nothing keeps (``Tensor.numpy()`` would mark the storage as reachable
outside its version counter, NOTE [Silent writes]). Big-endian records (swapped
after reading) and bool records (whose bytes ``from_numpy`` makes 0 or 1, NOTE
[Bool bytes are 0 or 1]) still go through NumPy.
"""

import ctypes
import io
import struct
import zipfile

import numpy as np

from .. import _C
from . import torch_names
from .unpickler import FullUnpickler, WeightsOnlyUnpickler

_CUDA_MESSAGE = ("Attempting to deserialize object on a CUDA device but "
                 "torch.cuda.is_available() is False. If you are running on a CPU-only machine, "
                 "please use torch.load with map_location=torch.device('cpu') to map your "
                 "storages to the CPU.")


class CheckpointError(RuntimeError):
    """A file that is not a well-formed checkpoint."""


def _records(archive, file_size, stream):
    """``{name: (data offset, size)}`` for every member, after the checks above."""
    spans, records = [], {}
    for info in archive.infolist():
        if info.compress_type != zipfile.ZIP_STORED:
            raise CheckpointError(f"record {info.filename!r} is compressed (method "
                                  f"{info.compress_type}); checkpoints store records uncompressed")
        if info.flag_bits & 0x1:
            raise CheckpointError(f"record {info.filename!r} is encrypted")
        stream.seek(info.header_offset)
        header = stream.read(30)
        if len(header) != 30 or header[:4] != b"PK\x03\x04":
            raise CheckpointError(f"record {info.filename!r} has no local header where the "
                                  f"zip directory says")
        name_length, extra_length = struct.unpack("<HH", header[26:30])
        start = info.header_offset + 30 + name_length + extra_length
        if info.file_size != info.compress_size or start + info.file_size > file_size:
            raise CheckpointError(f"record {info.filename!r} declares {info.file_size} bytes, "
                                  f"more than the file holds")
        spans.append((info.header_offset, start + info.file_size, info.filename))
        records[info.filename] = (start, info.file_size)
    spans.sort()
    for (_, end, name), (begin, _, other) in zip(spans, spans[1:]):
        if begin < end:
            raise CheckpointError(f"records {name!r} and {other!r} overlap in the file")
    return records


def _folder(names):
    for name in names:
        folder, _, rest = name.partition("/")
        if rest == "data.pkl":
            return folder
    return None


def _restore_location(map_location, storage, location):
    if map_location is None:
        return storage, location
    if isinstance(map_location, dict):
        return storage, map_location.get(location, location)
    if isinstance(map_location, (str, bytes)):
        return storage, map_location.decode() if isinstance(map_location, bytes) else map_location
    if callable(map_location) and not hasattr(map_location, "type"):
        result = map_location(storage, location)
        if result is None:
            return storage, location
        if not isinstance(result, torch_names.LoadedStorage):
            raise RuntimeError(f"map_location returned {type(result).__name__}; gradtrack "
                               f"expects the storage it was given (or None)")
        return result, "cpu"
    return storage, str(map_location)


class CheckpointReader:
    """One torch-format archive being loaded: its records and the storages read so far."""

    def __init__(self, stream, folder, map_location, mmap_path, skip_data=False):
        self.stream, self.folder, self.skip_data = stream, folder, skip_data
        self.map_location, self.mmap_path = map_location, mmap_path
        self.storages = {}
        self.big_endian = False

    def open(self, archive, file_size):
        self.records = _records(archive, file_size, self.stream)
        order = self.records.get(f"{self.folder}/byteorder")
        if order is not None:
            value = self.read_record(*order).decode("ascii", "replace")
            if value not in ("little", "big"):
                raise CheckpointError(f"unknown byteorder {value!r}")
            self.big_endian = value == "big"

    def read_record(self, start, size):
        self.stream.seek(start)
        data = self.stream.read(size)
        if len(data) != size:
            raise CheckpointError("a record is shorter than its zip entry says")
        return data

    def data_pkl(self):
        return self.read_record(*self.records[f"{self.folder}/data.pkl"])

    def persistent_load(self, pid):
        if type(pid) is not tuple or len(pid) != 5:
            raise RuntimeError(f"unsupported persistent id {pid!r:.80}")
        kind, storage_type, key, location, numel = pid
        if isinstance(key, bytes):
            key, location = key.decode("ascii"), location.decode("ascii")
        if not isinstance(storage_type, torch_names.StorageType) or type(key) is not str \
                or type(numel) is not int or numel < 0 or type(location) is not str:
            raise CheckpointError(f"malformed storage id {pid!r:.120}")
        if not isinstance(storage_type.dtype, _C.dtype):
            raise RuntimeError(f"the checkpoint holds a torch.{storage_type.dtype} storage; "
                               f"gradtrack has no dtype torch.{storage_type.dtype}")
        storage = self.storages.get(key)
        if storage is None:
            storage = self.storages[key] = self._read_storage(key, storage_type.dtype, numel)
        elif storage.dtype is not storage_type.dtype:
            raise CheckpointError(f"storage {key} is read as two different dtypes")
        storage, location = _restore_location(self.map_location, storage, location)
        if location.startswith("cuda"):
            raise RuntimeError(_CUDA_MESSAGE)
        if location != "cpu":
            raise RuntimeError(f"don't know how to restore data location of "
                               f"torch.storage.UntypedStorage (tagged with {location})")
        return storage

    def _read_storage(self, key, dtype, numel):
        name = f"{self.folder}/data/{key}"
        if name not in self.records:
            raise CheckpointError(f"PytorchStreamReader failed locating file data/{key}: "
                                  f"file not found")
        start, size = self.records[name]
        itemsize = _C.empty(0, dtype=dtype).element_size()
        nbytes = numel * itemsize
        if nbytes > size:
            raise CheckpointError(f"storage {key} declares {numel} elements of "
                                  f"{torch_names.dtype_name(dtype)} ({nbytes} bytes) but its "
                                  f"record holds {size} bytes")
        stored = _C.int16 if dtype is _C.bfloat16 else dtype
        np_dtype = np.dtype(torch_names.dtype_name(stored))
        if self.big_endian:
            np_dtype = np_dtype.newbyteorder(">")
        if self.skip_data:
            # torch.serialization.skip_data: the storage is allocated, its bytes not read.
            array = np.empty(nbytes, dtype=np.uint8).view(np_dtype)
        elif self.mmap_path is not None and nbytes:
            array = np.memmap(self.mmap_path, dtype=np.uint8, mode="c", offset=start,
                              shape=(nbytes,)).view(np_dtype)
        elif not self.big_endian and dtype is not _C.bool:
            return torch_names.LoadedStorage(self._read_into_tensor(key, start, dtype, numel,
                                                                    nbytes))
        else:
            # np.empty, not bytearray: the bytes are read straight into unfilled memory.
            buffer = np.empty(nbytes, dtype=np.uint8)
            self.stream.seek(start)
            if self.stream.readinto(memoryview(buffer)) != nbytes:
                raise CheckpointError(f"storage {key} is shorter than its record says")
            array = buffer.view(np_dtype)
        if self.big_endian:
            array = array.astype(np_dtype.newbyteorder("="))
        flat = _C.from_numpy(array)
        if dtype is _C.bfloat16:
            flat = flat.view(_C.bfloat16)
        return torch_names.LoadedStorage(flat)

    def _read_into_tensor(self, key, start, dtype, numel, nbytes):
        # NOTE [Reading storages into the allocator's memory]
        flat = _C.empty(numel, dtype=dtype)
        if nbytes:
            memory = memoryview((ctypes.c_char * nbytes).from_address(flat.data_ptr())).cast("B")
            self.stream.seek(start)
            if self.stream.readinto(memory) != nbytes:
                raise CheckpointError(f"storage {key} is shorter than its record says")
        return flat


def is_zip(stream):
    start = stream.tell()
    magic = stream.read(4)
    stream.seek(start)
    return magic == b"PK\x03\x04"


def _open_reader(stream, archive, map_location, mmap_path, skip_data):
    file_size = stream.seek(0, io.SEEK_END)
    folder = _folder(archive.namelist())
    if folder is None:
        raise CheckpointError("PytorchStreamReader failed locating file data.pkl: file not found")
    reader = CheckpointReader(stream, folder, map_location, mmap_path, skip_data)
    reader.open(archive, file_size)
    return reader


def archive_pickle(stream, archive):
    """The bytes of a torch-format archive's ``data.pkl``."""
    return _open_reader(stream, archive, None, None, False).data_pkl()


def read_checkpoint(stream, archive, map_location, weights_only, mmap_path, user_allowed,
                    pickle_module=None, pickle_load_args=None, skip_data=False):
    """Loads the object a torch-format archive holds."""
    reader = _open_reader(stream, archive, map_location, mmap_path, skip_data)
    data = reader.data_pkl()
    allowed = torch_names.allowed_globals()
    if weights_only:
        return WeightsOnlyUnpickler(data, reader.persistent_load, allowed, user_allowed).load()
    args = dict(pickle_load_args or {})
    args.setdefault("encoding", "utf-8")
    if pickle_module is not None and pickle_module.__name__ != "pickle":
        unpickler = pickle_module.Unpickler(io.BytesIO(data), **args)
        unpickler.persistent_load = reader.persistent_load
        return unpickler.load()
    return FullUnpickler(io.BytesIO(data), reader.persistent_load, allowed, **args).load()
