"""Damaged and hostile checkpoints in torch's format get exceptions, never a crash, code
execution or memory the file does not hold."""

import io
import pickle
import random
import struct
import tracemalloc
import warnings
import zipfile
from collections import OrderedDict

import pytest

import gradtrack as gt
from checkpoint_helpers import checkpoint, saved_bytes


class _Storage:
    def __init__(self, pid):
        self.pid = pid


class _TensorReduce:
    def __init__(self, rebuild, storage, offset, size, stride):
        self.args = (storage, offset, size, stride, False, OrderedDict())
        self.rebuild = rebuild

    def __reduce__(self):
        return self.rebuild, self.args


class _Pickler(pickle.Pickler):
    def persistent_id(self, obj):
        return obj.pid if isinstance(obj, _Storage) else None


def tensor_checkpoint(torch, numel, record, offset=0, size=(4,), stride=(1,)):
    """A checkpoint of one float32 tensor over a storage declaring ``numel`` elements,
    whose record holds ``record`` bytes."""
    storage = _Storage(("storage", torch.FloatStorage, "0", "cpu", numel))
    buffer = io.BytesIO()
    _Pickler(buffer, protocol=2).dump(
        {"t": _TensorReduce(torch._utils._rebuild_tensor_v2, storage, offset, size, stride)})
    return checkpoint(buffer.getvalue(), {"0": record})


def test_the_crafted_checkpoint_is_valid(torch):
    data = tensor_checkpoint(torch, 4, struct.pack("<4f", 1, 2, 3, 4))
    assert torch.load(io.BytesIO(data))["t"].tolist() == [1.0, 2.0, 3.0, 4.0]
    assert gt.load(io.BytesIO(data))["t"].tolist() == [1.0, 2.0, 3.0, 4.0]


def test_storage_declaring_terabytes_allocates_nothing(torch):
    data = tensor_checkpoint(torch, 2 ** 40, b"\0" * 16)
    tracemalloc.start()
    try:
        with pytest.raises(RuntimeError, match="declares 1099511627776 elements"):
            gt.load(io.BytesIO(data))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 10 * 2 ** 20


def test_record_shorter_than_its_storage(torch):
    with pytest.raises(RuntimeError, match="its record holds 8 bytes"):
        gt.load(io.BytesIO(tensor_checkpoint(torch, 4, b"\0" * 8)))


@pytest.mark.parametrize("offset, size, stride", [
    (2, (4,), (1,)), (0, (2, 3), (3, 1)), (0, (2,), (5,)),
], ids=["offset_past_the_end", "size_past_the_end", "stride_past_the_end"])
def test_tensor_past_the_end_of_its_storage_gets_torchs_error(torch, offset, size, stride):
    data = tensor_checkpoint(torch, 4, b"\0" * 16, offset, size, stride)
    errors = []
    for lib in (torch, gt):
        with pytest.raises(RuntimeError) as error:
            lib.load(io.BytesIO(data))
        errors.append(str(error.value))
    assert errors[0] == errors[1]


@pytest.mark.parametrize("offset, size, stride", [
    (-1, (2,), (1,)), (0, (-2,), (1,)), (0, (2,), (-1,)), (0, (2, 2), (1,)),
    (0, ("2",), (1,)), (0.5, (2,), (1,)),
])
def test_malformed_geometry_raises(torch, offset, size, stride):
    with pytest.raises(RuntimeError):
        gt.load(io.BytesIO(tensor_checkpoint(torch, 4, b"\0" * 16, offset, size, stride)))


@pytest.mark.parametrize("pid", [
    ("storage", "FloatStorage", "0", "cpu", 4),   # a string where the storage type goes
    ("storage", None, "0", "cpu", -4),
    ("storage", None, "9", "cpu", 4),             # no such record
    ("storage", None, "0", "cpu", "4"),
    ("storage", None, "0"),
])
def test_malformed_storage_ids_raise(torch, pid):
    pid = tuple(torch.FloatStorage if p is None else p for p in pid)
    buffer = io.BytesIO()
    _Pickler(buffer, protocol=2).dump(
        _TensorReduce(torch._utils._rebuild_tensor_v2, _Storage(pid), 0, (1,), (1,)))
    with pytest.raises(RuntimeError):
        gt.load(io.BytesIO(checkpoint(buffer.getvalue(), {"0": b"\0" * 16})))


def test_a_dtype_gradtrack_lacks_is_named(torch):
    data = io.BytesIO()
    torch.save(torch.ones(2, dtype=torch.complex64), data)
    with pytest.raises(RuntimeError, match="gradtrack has no dtype torch.complex64"):
        gt.load(io.BytesIO(data.getvalue()))


def _torch_bytes(torch):
    buffer = io.BytesIO()
    torch.save({"w": torch.arange(64.0), "b": torch.ones(3)}, buffer)
    return buffer.getvalue()


def test_overlapping_zip_entries_are_refused(torch):
    data = bytearray(_torch_bytes(torch))
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as archive:
        infos = {i.filename: i for i in archive.infolist()}
    # Point data/1's directory entry at data/0's local header (and its sizes).
    target = infos["archive/data/0"]
    at = data.find(b"PK\x01\x02")
    while at >= 0:
        length = int.from_bytes(data[at + 28:at + 30], "little")
        if data[at + 46:at + 46 + length] == b"archive/data/1":
            data[at + 42:at + 46] = target.header_offset.to_bytes(4, "little")
        at = data.find(b"PK\x01\x02", at + 4)
    with pytest.raises(RuntimeError):
        gt.load(io.BytesIO(bytes(data)))


@pytest.mark.parametrize("cut", [0.1, 0.5, 0.9, 0.99])
def test_truncated_archives_raise(torch, cut):
    data = _torch_bytes(torch)
    with pytest.raises(RuntimeError, match="gradtrack.load"):
        gt.load(io.BytesIO(data[:int(len(data) * cut)]))


def test_compressed_records_are_refused(torch):
    src = zipfile.ZipFile(io.BytesIO(_torch_bytes(torch)))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as dst:
        for name in src.namelist():
            dst.writestr(name, src.read(name))
    with pytest.raises(RuntimeError, match="compressed"):
        gt.load(io.BytesIO(out.getvalue()))


def test_zip_without_data_pkl(torch):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("archive/version", b"3\n")
    with pytest.raises(RuntimeError, match="data.pkl"):
        gt.load(io.BytesIO(buffer.getvalue()))


def test_deeply_nested_pickle_loads_without_recursion():
    depth = 100_000
    data = b"\x80\x02" + b"]" * depth + b"a" * (depth - 1) + b"."
    back = gt.load(io.BytesIO(checkpoint(data)))
    for _ in range(depth - 1):
        back = back[0]
    assert back == []


@pytest.mark.parametrize("data", [
    b"\x80\x02X\xff\xff\xff\xff.",      # a string claiming 4 GiB
    b"\x80\x02K",                       # cut inside an opcode
    b"\x80\x02",                        # no STOP
    b"\x80\x02c__builtin__\nlis",       # a name without its newline
    b"\x80\x02h\x05.",                  # a memo entry never stored
    b"\x80\x02.",                       # STOP with nothing on the stack
    b"\x80\x02t.",                      # TUPLE without a MARK
])
def test_malformed_pickles_raise(data):
    tracemalloc.start()
    try:
        with pytest.raises(Exception) as error:
            gt.load(io.BytesIO(checkpoint(data)))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert isinstance(error.value, (pickle.UnpicklingError, EOFError, IndexError))
    assert peak < 10 * 2 ** 20


def test_flipped_bytes_never_crash(torch):
    buffer = io.BytesIO()
    gt.save({"w": gt.arange(16.0).reshape(4, 4).t(), "n": [1, "a"], "p": gt.nn.Parameter(
        gt.ones(2))}, buffer)
    data = buffer.getvalue()
    rng = random.Random(0)
    for _ in range(300):
        damaged = bytearray(data)
        for _ in range(rng.randint(1, 3)):
            damaged[rng.randrange(len(damaged))] = rng.randrange(256)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # a flipped protocol byte warns
                gt.load(io.BytesIO(bytes(damaged)))
        except Exception:  # noqa: BLE001 - any exception is fine; a crash is not
            pass


@pytest.mark.parametrize("data", [
    b"\x80\x02ctorch\nTensor\nJ\x00\x00\x00@\x85R.",        # torch.Tensor(2**30)
    b"\x80\x02c__builtin__\nbytearray\nJ\x00\x00\x00@\x85R.",  # bytearray(2**30)
])
def test_allocations_the_file_does_not_hold_are_refused(data):
    tracemalloc.start()
    try:
        with pytest.raises((pickle.UnpicklingError, RuntimeError)):
            gt.load(io.BytesIO(checkpoint(data)))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 10 * 2 ** 20


def test_bytes_and_bytearrays_from_contents_still_load(torch):
    obj = {"b": b"\x00\x01", "ba": bytearray(b"xy")}
    for lib in (torch, gt):
        back = gt.load(io.BytesIO(saved_bytes(lib.save, obj)))
        assert back == obj and type(back["ba"]) is bytearray


class _ParameterWithState:
    def __init__(self, rebuild, data, state):
        self.rebuild, self.args = rebuild, (data, True, OrderedDict(), state)

    def __reduce__(self):
        return self.rebuild, self.args


def test_state_may_not_set_dunder_attributes(torch):
    storage = _Storage(("storage", torch.FloatStorage, "0", "cpu", 1))
    data = _TensorReduce(torch._utils._rebuild_tensor_v2, storage, 0, (1,), (1,))
    buffer = io.BytesIO()
    _Pickler(buffer, protocol=2).dump(_ParameterWithState(
        torch._utils._rebuild_parameter_with_state, data, {"__class__": OrderedDict}))
    with pytest.raises(RuntimeError, match="may not set the attribute '__class__'"):
        gt.load(io.BytesIO(checkpoint(buffer.getvalue(), {"0": b"\0" * 4})))
