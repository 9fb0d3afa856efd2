"""Checkpoints that cross: gradtrack.save -> torch.load and torch.save -> gradtrack.load give
the same dtypes, shapes, strides, offsets, values and storage sharing, for tensors of every
dtype and stride kind, Parameters, state dicts, optimizer states and plain Python values."""

import io
import os
import pathlib
import zipfile
from collections import Counter, OrderedDict

import numpy as np
import pytest

import gradtrack as gt
from gradtrack import nn

from checkpoint_helpers import (
    DTYPES, STRIDE_KINDS, assert_same_tensor, make_base, saved_bytes, storage_id,
)


@pytest.mark.parametrize("kind", list(STRIDE_KINDS))
@pytest.mark.parametrize("dtype", DTYPES)
def test_tensor_crosses_both_ways(torch, dtype, kind):
    ours = STRIDE_KINDS[kind](make_base(gt, dtype))
    theirs = STRIDE_KINDS[kind](make_base(torch, dtype))
    assert_same_tensor(ours, theirs)  # the two libraries build the same tensor
    loaded_by_torch = torch.load(io.BytesIO(saved_bytes(gt.save, ours)))
    assert_same_tensor(loaded_by_torch, theirs)
    loaded_by_us = gt.load(io.BytesIO(saved_bytes(torch.save, theirs)))
    assert_same_tensor(loaded_by_us, ours)
    assert type(loaded_by_us) is gt.Tensor and loaded_by_us.is_leaf
    assert not loaded_by_us._is_view() and loaded_by_us._base is None


def test_same_storage_layout_as_torch(torch):
    # The records torch writes for a tensor and gradtrack writes for the same tensor
    # hold the same bytes: the whole storage, however little of it the view uses.
    ours, theirs = make_base(gt, "float32")[2:7], make_base(torch, "float32")[2:7]
    for data in (saved_bytes(gt.save, ours), saved_bytes(torch.save, theirs)):
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            assert archive.read("archive/data/0") == np.asarray(
                make_base(gt, "float32").numpy()).tobytes()
            assert archive.read("archive/byteorder") == b"little"
            assert archive.read("archive/version") == b"3\n"


def test_views_of_one_base_share_a_storage_after_loading(torch):
    base = gt.arange(12.0)
    obj = {"base": base, "t": base.reshape(3, 4).t(), "row": base.reshape(3, 4)[1],
           "other": gt.ones(2)}
    by_torch = torch.load(io.BytesIO(saved_bytes(gt.save, obj)))
    assert len({storage_id(by_torch[k]) for k in ("base", "t", "row")}) == 1
    assert storage_id(by_torch["other"]) != storage_id(by_torch["base"])
    by_torch["base"][4] = -1.0
    assert by_torch["row"][0].item() == -1.0 and by_torch["t"][0, 1].item() == -1.0

    tbase = torch.arange(12.0)
    tobj = {"base": tbase, "t": tbase.reshape(3, 4).t(), "row": tbase.reshape(3, 4)[1]}
    ours = gt.load(io.BytesIO(saved_bytes(torch.save, tobj)))
    assert len({storage_id(ours[k]) for k in ("base", "t", "row")}) == 1
    ours["base"][4] = -1.0
    assert ours["row"][0].item() == -1.0 and ours["t"][0, 1].item() == -1.0


def test_same_tensor_twice_loads_as_one_object(torch):
    t = gt.ones(3)
    back = gt.load(io.BytesIO(saved_bytes(gt.save, [t, t])))
    assert back[0] is back[1]
    tt = torch.ones(3)
    back = gt.load(io.BytesIO(saved_bytes(torch.save, [tt, tt])))
    assert back[0] is back[1]


def test_views_as_two_dtypes_are_refused_as_torch_refuses(torch):
    with pytest.raises(RuntimeError) as theirs:
        x = torch.zeros(4, dtype=torch.int32)
        torch.save([x, x.view(torch.float32)], io.BytesIO())
    x = gt.zeros(4, dtype=gt.int32)
    with pytest.raises(RuntimeError) as ours:
        gt.save([x, x.view(gt.float32)], io.BytesIO())
    assert str(ours.value) == str(theirs.value)


def test_parameters_and_requires_grad_cross(torch):
    obj = {"p": nn.Parameter(gt.tensor([1.0, 2.0])),
           "frozen": nn.Parameter(gt.tensor([3.0]), requires_grad=False),
           "leaf": gt.tensor([4.0], requires_grad=True),
           "computed": gt.tensor([5.0], requires_grad=True) * 2}
    by_torch = torch.load(io.BytesIO(saved_bytes(gt.save, obj)))
    assert type(by_torch["p"]) is torch.nn.Parameter and by_torch["p"].requires_grad
    assert type(by_torch["frozen"]) is torch.nn.Parameter and not by_torch["frozen"].requires_grad
    assert by_torch["leaf"].requires_grad and by_torch["computed"].requires_grad
    assert by_torch["computed"].tolist() == [10.0] and by_torch["computed"].is_leaf

    tobj = {"p": torch.nn.Parameter(torch.tensor([1.0, 2.0])),
            "frozen": torch.nn.Parameter(torch.tensor([3.0]), requires_grad=False),
            "leaf": torch.tensor([4.0], requires_grad=True)}
    ours = gt.load(io.BytesIO(saved_bytes(torch.save, tobj)))
    assert type(ours["p"]) is nn.Parameter and ours["p"].requires_grad
    assert type(ours["frozen"]) is nn.Parameter and not ours["frozen"].requires_grad
    assert ours["leaf"].requires_grad and ours["leaf"].is_leaf
    assert ours["p"].tolist() == [1.0, 2.0]


PLAIN = {"int": 7, "big": 2 ** 70, "neg": -3, "float": 0.1, "inf": float("-inf"),
         "str": "héllo ✓", "none": None, "true": True, "list": [1, [2, (3, "x")]],
         "tuple": (1.5, None), "empty": [], "bytes": b"\x00\xff", "set": {1, 2},
         "complex": 1 + 2j, 3: "int key", (1, 2): "tuple key",
         "od": OrderedDict([("b", 1), ("a", 2)]), "counter": Counter({3: 2})}


def test_plain_python_values_cross(torch):
    by_torch = torch.load(io.BytesIO(saved_bytes(gt.save, PLAIN)))
    ours = gt.load(io.BytesIO(saved_bytes(torch.save, PLAIN)))
    for back in (by_torch, ours, gt.load(io.BytesIO(saved_bytes(gt.save, PLAIN)))):
        assert list(back) == list(PLAIN)
        for key, value in PLAIN.items():
            assert back[key] == value and type(back[key]) is type(value), key


def test_size_dtype_and_device_cross(torch):
    obj = {"size": gt.Size([2, 3]), "dtype": gt.float16, "bf": gt.bfloat16,
           "device": gt.device("cpu")}
    by_torch = torch.load(io.BytesIO(saved_bytes(gt.save, obj)))
    assert by_torch == {"size": torch.Size([2, 3]), "dtype": torch.float16,
                        "bf": torch.bfloat16, "device": torch.device("cpu")}
    tobj = {"size": torch.Size([2, 3]), "dtype": torch.float16, "bf": torch.bfloat16,
            "device": torch.device("cpu")}
    ours = gt.load(io.BytesIO(saved_bytes(torch.save, tobj)))
    assert ours["size"] == gt.Size([2, 3]) and type(ours["size"]) is gt.Size
    assert ours["dtype"] is gt.float16 and ours["bf"] is gt.bfloat16
    assert str(ours["device"]) == "cpu"


def _modules(lib):
    nn_ = lib.nn
    return {
        "linear": lambda: nn_.Linear(4, 3),
        "conv": lambda: nn_.Sequential(nn_.Conv2d(2, 4, 3), nn_.BatchNorm2d(4), nn_.ReLU(),
                                       nn_.Conv1d(4, 2, 2)),
        "norms": lambda: nn_.ModuleList([nn_.LayerNorm(5), nn_.GroupNorm(2, 4),
                                         nn_.BatchNorm1d(3)]),
        "embedding": lambda: nn_.ModuleDict({"e": nn_.Embedding(10, 4),
                                             "bag": nn_.EmbeddingBag(10, 3)}),
        "rnn": lambda: nn_.ModuleList([nn_.LSTM(3, 4, num_layers=2), nn_.GRU(3, 2),
                                       nn_.RNN(2, 2), nn_.LSTMCell(2, 3)]),
        "attention": lambda: nn_.MultiheadAttention(8, 2),
        "transformer": lambda: nn_.TransformerEncoderLayer(8, 2, dim_feedforward=16),
        "convtranspose": lambda: nn_.ConvTranspose2d(2, 3, 2),
        "parameters": lambda: nn_.ParameterDict({"a": nn_.Parameter(lib.ones(2))}),
    }


@pytest.mark.parametrize("name", list(_modules(gt)))
def test_state_dicts_cross_into_the_other_librarys_module(torch, name):
    gt.manual_seed(0)
    ours = _modules(gt)[name]()
    theirs = _modules(torch)[name]()
    sd = ours.state_dict()
    by_torch = torch.load(io.BytesIO(saved_bytes(gt.save, sd)))
    assert type(by_torch) is OrderedDict and list(by_torch) == list(theirs.state_dict())
    assert by_torch._metadata == sd._metadata == theirs.state_dict()._metadata
    for key in sd:
        assert_same_tensor(by_torch[key], sd[key])
    assert str(theirs.load_state_dict(by_torch)) == "<All keys matched successfully>"

    tsd = theirs.state_dict()
    back = gt.load(io.BytesIO(saved_bytes(torch.save, tsd)))
    assert type(back) is OrderedDict and back._metadata == tsd._metadata
    for key in tsd:
        assert_same_tensor(back[key], tsd[key])
    fresh = _modules(gt)[name]()
    assert str(fresh.load_state_dict(back)) == "<All keys matched successfully>"


def _adam_run(lib, model, opt, steps, x):
    for _ in range(steps):
        opt.zero_grad()
        model(x).pow(2).sum().backward()
        opt.step()


@pytest.mark.parametrize("direction", ["torch_to_gradtrack", "gradtrack_to_torch"])
def test_adam_continues_with_torchs_numbers_after_the_round_trip(torch, direction):
    x = np.random.default_rng(1).standard_normal((5, 4)).astype(np.float32)
    src_lib, dst_lib = (torch, gt) if direction == "torch_to_gradtrack" else (gt, torch)
    src_lib.manual_seed(0)
    model = src_lib.nn.Linear(4, 3)
    opt = src_lib.optim.Adam(model.parameters(), lr=0.1, amsgrad=True)
    _adam_run(src_lib, model, opt, 3, src_lib.tensor(x))
    data = saved_bytes(src_lib.save, {"model": model.state_dict(), "opt": opt.state_dict(),
                                      "epoch": 3})
    ckpt = dst_lib.load(io.BytesIO(data))
    assert ckpt["epoch"] == 3 and list(ckpt["opt"]["state"]) == [0, 1]
    assert ckpt["opt"]["param_groups"][0]["lr"] == 0.1
    assert ckpt["opt"]["param_groups"][0]["amsgrad"] is True
    resumed = dst_lib.nn.Linear(4, 3)
    resumed.load_state_dict(ckpt["model"])
    resumed_opt = dst_lib.optim.Adam(resumed.parameters(), lr=0.5)
    resumed_opt.load_state_dict(ckpt["opt"])
    _adam_run(dst_lib, resumed, resumed_opt, 2, dst_lib.tensor(x))
    _adam_run(src_lib, model, opt, 2, src_lib.tensor(x))
    for a, b in zip(resumed.parameters(), model.parameters()):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5,
                                   atol=1e-6)


def test_file_layout_matches_torchs(torch, tmp_path):
    names = {}
    for lib in (gt, torch):
        path = tmp_path / f"{lib.__name__}.ckpt.pt"
        lib.save({"w": lib.ones(3), "b": lib.zeros(2, dtype=lib.int64)}, path)
        with zipfile.ZipFile(path) as archive:
            names[lib.__name__] = [n.split("/", 1)[1] for n in archive.namelist()]
            assert all(n.startswith(f"{lib.__name__}.ckpt/") for n in archive.namelist())
            assert all(i.compress_type == zipfile.ZIP_STORED for i in archive.infolist())
            raw = path.read_bytes()
            for info in archive.infolist():  # every record's data starts 64-byte aligned
                n, e = (int.from_bytes(raw[info.header_offset + k:info.header_offset + k + 2],
                                       "little") for k in (26, 28))
                assert (info.header_offset + 30 + n + e) % 64 == 0, info.filename
    assert names["gradtrack"] == names["torch"]


def test_path_kinds_and_file_objects(torch, tmp_path):
    obj = {"w": gt.tensor([1.0, 2.0])}
    for target in (str(tmp_path / "a.pt"), tmp_path / "b.pt", pathlib.PurePath(tmp_path / "c")):
        gt.save(obj, target)
        assert gt.load(target)["w"].tolist() == [1.0, 2.0]
        assert torch.load(target)["w"].tolist() == [1.0, 2.0]
    with open(tmp_path / "d.pt", "wb") as f:
        gt.save(obj, f)
    with open(tmp_path / "d.pt", "rb") as f:
        assert gt.load(f)["w"].tolist() == [1.0, 2.0]
    for f in (5, object()):
        with pytest.raises(AttributeError) as theirs:
            torch.save(obj, f)
        with pytest.raises(AttributeError) as ours:
            gt.save(obj, f)
        assert str(ours.value) == str(theirs.value)


def test_pickle_protocols(torch):
    for protocol in (2, 3, 4, 5):
        data = saved_bytes(gt.save, {"w": gt.arange(3.0), "n": [1, "a"]},
                           pickle_protocol=protocol)
        assert torch.load(io.BytesIO(data), weights_only=False)["w"].tolist() == [0.0, 1.0, 2.0]
        back = gt.load(io.BytesIO(data), weights_only=protocol == 2)
        assert back["w"].tolist() == [0.0, 1.0, 2.0] and back["n"] == [1, "a"]


def test_mmap_maps_storages_copy_on_write(torch, tmp_path):
    path = tmp_path / "m.pt"
    torch.save({"w": torch.arange(6.0).reshape(2, 3), "i": torch.arange(3)}, path)
    before = path.read_bytes()
    back = gt.load(path, mmap=True)
    assert back["w"].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert back["i"].dtype is gt.int64 and back["i"].tolist() == [0, 1, 2]
    back["w"].add_(1)  # a private mapping: the file does not change
    assert back["w"][0, 0].item() == 1.0 and path.read_bytes() == before
    with pytest.raises(ValueError) as theirs:
        torch.load(io.BytesIO(before), mmap=True)
    with pytest.raises(ValueError) as ours:
        gt.load(io.BytesIO(before), mmap=True)
    assert str(ours.value) == str(theirs.value)


def _cuda_tagged_checkpoint():
    """A checkpoint whose storage says it was saved from cuda:0."""
    from gradtrack._serialization import writer
    buffer = io.BytesIO()
    original = writer._StorageRef.pid

    def on_cuda(self):
        pid = original(self)
        return pid[:3] + ("cuda:0",) + pid[4:]

    writer._StorageRef.pid = on_cuda
    try:
        gt.save({"w": gt.tensor([1.0, 2.0])}, buffer)
    finally:
        writer._StorageRef.pid = original
    return buffer.getvalue()


@pytest.mark.parametrize("map_location", [
    "cpu", "cpu:0", "meta:1", {"cuda:0": "cpu"}, lambda storage, location: storage,
    lambda storage, location: None, "device",
], ids=["str", "str_index", "unknown", "dict", "callable", "callable_none", "device"])
def test_map_location_forms(torch, map_location):
    data = _cuda_tagged_checkpoint()
    outcome = {}
    for lib in (torch, gt):
        where = lib.device("cpu") if map_location == "device" else map_location
        try:
            outcome[lib] = lib.load(io.BytesIO(data), map_location=where)["w"].tolist()
        except RuntimeError as e:
            outcome[lib] = str(e)
    assert outcome[gt] == outcome[torch]


def test_cuda_checkpoint_without_map_location_raises_torchs_error(torch):
    data = _cuda_tagged_checkpoint()
    with pytest.raises(RuntimeError) as theirs:
        torch.load(io.BytesIO(data))
    with pytest.raises(RuntimeError) as ours:
        gt.load(io.BytesIO(data))
    assert str(ours.value) == str(theirs.value)


def test_numpy_arrays_and_scalars_save_like_torch(torch, tmp_path):
    obj = {"a": np.arange(6.0).reshape(2, 3), "s": np.float32(2.5), "i": np.int64(4),
           "w": gt.ones(2)}
    tobj = dict(obj, w=torch.ones(2))
    ours_path, theirs_path = tmp_path / "ours.pt", tmp_path / "theirs.pt"
    gt.save(obj, ours_path)
    torch.save(tobj, theirs_path)
    for path in (ours_path, theirs_path):
        messages = []
        for lib in (torch, gt):
            with pytest.raises(Exception) as refused:
                lib.load(path)
            assert type(refused.value).__name__ == "UnpicklingError"
            messages.append(str(refused.value))
        assert messages[0] == messages[1]
        assert "numpy._core.multiarray._reconstruct" in messages[0]
        for lib in (torch, gt):
            back = lib.load(path, weights_only=False)
            np.testing.assert_array_equal(back["a"], obj["a"])
            assert back["s"] == np.float32(2.5) and type(back["s"]) is np.float32
            assert back["i"] == 4 and back["w"].tolist() == [1.0, 1.0]


def test_whole_module_round_trips_with_weights_only_false(tmp_path):
    gt.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    path = tmp_path / "model.pt"
    gt.save(model, path)
    with pytest.raises(Exception) as refused:
        gt.load(path)
    assert type(refused.value).__name__ == "UnpicklingError"
    assert "GLOBAL gradtrack.nn.modules.container.Sequential was not an allowed global" \
        in str(refused.value)
    back = gt.load(path, weights_only=False)
    assert type(back) is nn.Sequential and type(back[0].weight) is nn.Parameter
    x = gt.randn(5, 3)
    assert gt.equal(back(x), model(x))
    assert len({storage_id(p) for p in back.parameters()}) == 4


def test_torch_whole_module_loads_with_weights_only_false(torch, tmp_path):
    path = tmp_path / "tmodel.pt"
    torch.save(torch.nn.Linear(2, 1), path)
    back = gt.load(path, weights_only=False)
    assert type(back).__name__ == "Linear" and isinstance(back.weight, gt.Tensor)


def test_new_file_is_not_the_old_format(tmp_path):
    path = tmp_path / "x.pt"
    gt.save({"w": gt.ones(1)}, path)
    with zipfile.ZipFile(path) as archive:
        assert "x/data.pkl" in archive.namelist()
        assert not any(n.startswith("gradtrack/") for n in archive.namelist())
    assert os.path.exists(path)


def test_big_endian_checkpoint_loads_as_torch_loads_it(torch):
    # A checkpoint written on a big-endian machine: byteorder says "big" and each
    # record holds its elements' bytes swapped.
    tobj = {"f": torch.tensor([1.5, -2.25]), "h": torch.tensor([7, -300], dtype=torch.int16),
            "bf": torch.tensor([0.5, 3.0], dtype=torch.bfloat16)}
    src = zipfile.ZipFile(io.BytesIO(saved_bytes(torch.save, tobj)))
    itemsizes = {"0": 4, "1": 2, "2": 2}
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as dst:
        for name in src.namelist():
            data = src.read(name)
            if name == "archive/byteorder":
                data = b"big"
            elif name.startswith("archive/data/"):
                size = itemsizes[name.rsplit("/", 1)[1]]
                data = np.frombuffer(data, f"<u{size}").astype(f">u{size}").tobytes()
            dst.writestr(name, data)
    by_torch = torch.load(io.BytesIO(out.getvalue()))
    ours = gt.load(io.BytesIO(out.getvalue()))
    for key in tobj:
        assert_same_tensor(by_torch[key], tobj[key])
        assert_same_tensor(ours[key], tobj[key])


def test_default_load_owns_writable_memory_apart_from_the_file(torch, tmp_path):
    # Without mmap, a loaded tensor's memory is its own: writes to it stay out of the
    # file and out of other loads, and the file may change or go after loading.
    path = tmp_path / "own.pt"
    torch.save({"w": torch.arange(6.0), "h": torch.arange(4.0).to(torch.bfloat16),
                "c": torch.arange(3), "b": torch.tensor([True, False])},
               path)
    before = path.read_bytes()
    results = {}
    for lib in (torch, gt):
        first, second = lib.load(path), lib.load(path)
        first["w"].add_(1)
        first["h"].mul_(2)
        first["c"].sub_(1)
        first["b"][1] = True
        assert path.read_bytes() == before
        assert first["w"].data_ptr() != second["w"].data_ptr()
        results[lib] = [first[k].tolist() for k in "whcb"] + [second[k].tolist() for k in "whcb"]
    path.write_bytes(b"rewritten")
    assert results[gt] == results[torch]
    assert [first[k].tolist() for k in "whcb"] == results[gt][:4]


def test_bool_bytes_other_than_one_load_as_true(torch):
    # A bool record may hold any nonzero byte for True; the loaded tensor reads as
    # torch's does (NOTE [Bool bytes are 0 or 1]).
    data = saved_bytes(torch.save, torch.tensor([True, False, True]))
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        info = next(i for i in archive.infolist() if i.filename.endswith("/data/0"))
    header = info.header_offset
    name_length, extra_length = int.from_bytes(data[header + 26:header + 28], "little"), \
        int.from_bytes(data[header + 28:header + 30], "little")
    at = header + 30 + name_length + extra_length
    assert data[at:at + 3] == b"\x01\x00\x01"
    data = data[:at] + b"\x02\x00\x07" + data[at + 3:]
    ours = gt.load(io.BytesIO(data))
    assert ours.tolist() == [True, False, True]
    assert ours.sum().item() == 2 and ours.eq(gt.tensor(True)).tolist() == [True, False, True]
