"""Files earlier gradtrack versions wrote (a zip of .npy arrays and JSON, no pickle) still
load, exactly, without unpickling anything; a damaged one raises a clear RuntimeError."""

import io
import json
import math
import pickle
import zipfile
from collections import OrderedDict
from pathlib import Path

import numpy as np
import pytest

import gradtrack as gt
from gradtrack import nn

FIXTURE = Path(__file__).parent.parent / "checkpoints" / "zip_of_npy_checkpoint.gt"


def test_fixture_loads_exactly():
    back = gt.load(FIXTURE)
    model = back["model"]
    assert type(model) is OrderedDict and list(model) == ["weight", "bias"]
    assert model._metadata == OrderedDict([("", {"version": 1})])
    gt.manual_seed(0)
    expected = nn.Linear(3, 2).state_dict()  # the fixture was saved from this seed
    for key in ("weight", "bias"):
        assert model[key].dtype is gt.float32
        assert model[key].numpy().tobytes() == expected[key].numpy().tobytes()
    assert (back["step"], back["loss"], back["name"]) == (7, 0.25, "linear")
    assert back["ints"].dtype is gt.int64 and back["ints"].tolist() == [0, 1, 2, 3]
    assert back["mask"].dtype is gt.bool and back["mask"].tolist() == [True, False]
    assert back["half"].dtype is gt.float16 and back["half"].tolist() == [1.5, -2.0]
    assert back["shape"] == gt.Size([2, 3]) and type(back["shape"]) is gt.Size
    assert back["nested"] == [1, (2.5, None)] and type(back["nested"][1]) is tuple
    assert type(back["param"]) is nn.Parameter and back["param"].requires_grad
    assert math.isclose(back["param"].sum().item(), 2.0)


def test_fixture_loads_into_a_model_and_without_weights_only():
    model = nn.Linear(3, 2)
    assert repr(model.load_state_dict(gt.load(FIXTURE)["model"])) == \
        "<All keys matched successfully>"
    assert gt.load(FIXTURE, weights_only=False)["step"] == 7


def test_fixture_loads_without_unpickling(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("pickle used")

    monkeypatch.setattr(pickle, "loads", refuse)
    monkeypatch.setattr(pickle, "load", refuse)
    monkeypatch.setattr(pickle, "Unpickler", refuse)
    assert gt.load(FIXTURE)["nested"] == [1, (2.5, None)]


# ---- corrupted and foreign files ----------------------------------------------------------

def _saved_bytes():
    return FIXTURE.read_bytes()


def _load_bytes(data):
    return gt.load(io.BytesIO(data))


def _rezip(edit):
    """The saved archive with ``edit(name, data) -> data or None`` applied to each member."""
    src = zipfile.ZipFile(io.BytesIO(_saved_bytes()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as dst:
        for name in src.namelist():
            data = edit(name, src.read(name))
            if data is not None:
                dst.writestr(name, data)
    return out.getvalue()


def _edit_header(change):
    def edit(name, data):
        if name != "gradtrack/header.json":
            return data
        header = json.loads(data)
        change(header)
        return json.dumps(header)
    return _rezip(edit)


CORRUPTIONS = {
    "empty": lambda: b"",
    "random bytes": lambda: np.random.default_rng(0).bytes(300),
    "truncated": lambda: _saved_bytes()[:len(_saved_bytes()) // 2],
    "text file": lambda: b"weight,bias\n1,2\n",
    "header missing": lambda: _rezip(lambda n, d: None if n.endswith("header.json") else d),
    "header not json": lambda: _rezip(lambda n, d: b"{nope" if n.endswith("header.json") else d),
    "wrong format name": lambda: _edit_header(lambda h: h.update(format="other")),
    "future version": lambda: _edit_header(lambda h: h.update(version=99)),
    "bad dtype": lambda: _edit_header(lambda h: h["tensors"][0].update(dtype="complex64")),
    "shape mismatch": lambda: _edit_header(lambda h: h["tensors"][0].update(shape=[5])),
    "bad tensor index": lambda: _edit_header(lambda h: h.update(root={"$tensor": 7})),
    "unknown tag": lambda: _edit_header(lambda h: h.update(root={"$eval": "1"})),
    "tensor missing": lambda: _rezip(lambda n, d: None if n.endswith("1.npy") else d),
    "npy garbage": lambda: _rezip(lambda n, d: b"\x93NUMPY garbage" if n.endswith("0.npy") else d),
}


def _recompress(method):
    src = zipfile.ZipFile(io.BytesIO(_saved_bytes()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=method) as dst:
        for name in src.namelist():
            dst.writestr(name, src.read(name))
    return out.getvalue()


def _patch_records(member, local, central):
    """The saved archive with ``member``'s local header and central directory record
    rewritten by ``local(bytearray, at)`` / ``central(bytearray, at)`` (zip field layout)."""
    data = bytearray(_saved_bytes())
    name = member.encode()
    for signature, patch, length_at, name_at in ((b"PK\x03\x04", local, 26, 30),
                                                 (b"PK\x01\x02", central, 28, 46)):
        at = data.find(signature)
        while at >= 0:
            length = int.from_bytes(data[at + length_at:at + length_at + 2], "little")
            if data[at + name_at:at + name_at + length] == name:
                patch(data, at)
            at = data.find(signature, at + 4)
    return bytes(data)


def _set(offset, value, size=2):
    def patch(data, at):
        data[at + offset:at + offset + size] = value.to_bytes(size, "little")
    return patch


def _npy_claiming(shape, payload=b"\0" * 16):
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buffer, {"descr": "<f4", "fortran_order": False, "shape": shape})
    return buffer.getvalue() + payload


def _both_headers_claim(shape):
    def edit(name, data):
        if name.endswith("0.npy"):
            return _npy_claiming(shape)
        if name.endswith("header.json"):
            header = json.loads(data)
            header["tensors"][0]["shape"] = list(shape)
            return json.dumps(header).encode()
        return data
    return _rezip(edit)


TENSOR0 = "gradtrack/tensors/0.npy"
CORRUPTIONS.update({
    # save never compresses: a compressed member is foreign, or a zip bomb.
    "deflated members": lambda: _recompress(zipfile.ZIP_DEFLATED),
    "bzip2 members": lambda: _recompress(zipfile.ZIP_BZIP2),
    "lzma members": lambda: _recompress(zipfile.ZIP_LZMA),
    "unknown compression method": lambda: _patch_records(TENSOR0, _set(8, 99), _set(10, 99)),
    "encrypted member": lambda: _patch_records(TENSOR0, _set(6, 1), _set(8, 1)),
    "member size beyond the file": lambda: _patch_records(
        TENSOR0, lambda d, at: None,
        lambda d, at: (_set(20, 2**31, 4)(d, at), _set(24, 2**31, 4)(d, at))),
    "npy claims 2**40 elements": lambda: _both_headers_claim((2**40,)),
    "npy claims 2**62 elements": lambda: _both_headers_claim((2**31, 2**31)),
    "npy payload too long": lambda: _rezip(
        lambda n, d: d + b"\0" * 8 if n.endswith("1.npy") else d),
    "npy payload short": lambda: _rezip(lambda n, d: d[:-4] if n.endswith("1.npy") else d),
    "npy version 3.5": lambda: _rezip(
        lambda n, d: d[:6] + b"\x03\x05" + d[8:] if n.endswith("0.npy") else d),
    "tensor entry not an object": lambda: _edit_header(lambda h: h["tensors"].__setitem__(0, 5)),
    "dtype not a string": lambda: _edit_header(lambda h: h["tensors"][0].update(dtype=[1])),
    "shape not ints": lambda: _edit_header(lambda h: h["tensors"][0].update(shape=["64"])),
    "shape negative": lambda: _edit_header(lambda h: h["tensors"][0].update(shape=[-64])),
    "header not utf-8": lambda: _rezip(
        lambda n, d: b"\xff\xfe{" if n.endswith("header.json") else d),
    "header nested deep": lambda: _rezip(lambda n, d: d.replace(
        b'"root": ', b'"root": ' + b"[" * 100000 + b"]" * 100000 + b', "x": ', 1)
        if n.endswith("header.json") else d),
})


@pytest.mark.parametrize("name", list(CORRUPTIONS))
def test_corrupted_files_raise_clear_runtime_error(name):
    with pytest.raises(RuntimeError, match="gradtrack.load: .*(not a gradtrack.save file|"
                                           "corrupted|not a valid)"):
        _load_bytes(CORRUPTIONS[name]())


def test_flipped_byte_in_tensor_data_is_detected():
    data = bytearray(_saved_bytes())
    marker = gt.load(FIXTURE)["model"]["weight"].numpy().tobytes()[8:16]
    at = bytes(data).index(marker)
    data[at] ^= 0xFF
    with pytest.raises(RuntimeError, match="corrupted"):
        _load_bytes(bytes(data))


def test_pickled_object_array_is_refused():
    def edit(name, data):
        if not name.endswith("0.npy"):
            return data
        buffer = io.BytesIO()
        np.save(buffer, np.array([{"x": 1}], dtype=object), allow_pickle=True)
        return buffer.getvalue()

    with pytest.raises(RuntimeError, match="corrupted or not a valid"):
        _load_bytes(_rezip(edit))


def test_error_names_the_path(tmp_path):
    path = tmp_path / "broken.gt"
    path.write_bytes(b"not a zip")
    with pytest.raises(RuntimeError, match="broken.gt"):
        gt.load(path)


def test_unseekable_stream():
    class OneWay(io.RawIOBase):
        def __init__(self, data):
            self._inner = io.BytesIO(data)

        def readable(self):
            return True

        def seekable(self):
            return False

        def readinto(self, b):
            return self._inner.readinto(b)

    assert gt.load(OneWay(_saved_bytes()))["ints"].tolist() == [0, 1, 2, 3]
