"""torch's checkpoint format before 1.6 (_use_new_zipfile_serialization=False): files torch
writes load in gradtrack with weights_only True and False, files gradtrack writes load in
torch, with dtypes, strides, offsets, values and storage sharing kept; damaged and hostile
files get torch's errors."""

import io
import pickle
import pickletools
from collections import OrderedDict

import numpy as np
import pytest

import gradtrack as gt

from checkpoint_helpers import (
    DTYPES, STRIDE_KINDS, assert_same_tensor, make_base, saved_bytes, storage_id,
)

LEGACY = {"_use_new_zipfile_serialization": False}


def legacy_bytes(lib, obj, **kwargs):
    return saved_bytes(lib.save, obj, **LEGACY, **kwargs)


@pytest.mark.parametrize("kind", list(STRIDE_KINDS))
@pytest.mark.parametrize("dtype", DTYPES)
def test_tensor_crosses_both_ways(torch, dtype, kind):
    ours = STRIDE_KINDS[kind](make_base(gt, dtype))
    theirs = STRIDE_KINDS[kind](make_base(torch, dtype))
    ours_data = legacy_bytes(gt, ours)
    assert ours_data[:2] == b"\x80\x02"  # a pickle, not a zip
    assert_same_tensor(torch.load(io.BytesIO(ours_data)), theirs)
    theirs_data = legacy_bytes(torch, theirs)
    for weights_only in (True, False):
        loaded = gt.load(io.BytesIO(theirs_data), weights_only=weights_only)
        assert_same_tensor(loaded, ours)
        assert type(loaded) is gt.Tensor and loaded.is_leaf


def test_sharing_parameters_and_state_dicts(torch):
    model = gt.nn.Linear(3, 2)
    base = gt.arange(8.0)
    obj = {"state": model.state_dict(), "a": base, "b": base[2:5], "c": base.view(2, 4),
           "p": gt.nn.Parameter(gt.ones(2)), "n": 7, "s": ["x", (1, 2.5)], "z": gt.empty(0)}
    by_torch = torch.load(io.BytesIO(legacy_bytes(gt, obj)))
    assert by_torch["state"]._metadata == model.state_dict()._metadata
    assert type(by_torch["state"]) is OrderedDict
    assert type(by_torch["p"]) is torch.nn.Parameter and by_torch["p"].requires_grad
    assert storage_id(by_torch["a"]) == storage_id(by_torch["b"]) == storage_id(by_torch["c"])
    assert by_torch["n"] == 7 and by_torch["s"] == ["x", (1, 2.5)]
    assert by_torch["z"].shape == (0,)
    for key in ("weight", "bias"):
        np.testing.assert_array_equal(by_torch["state"][key].numpy(),
                                      model.state_dict()[key].detach().numpy())
    # And torch's same structure back into gradtrack.
    theirs = {"state": torch.nn.Linear(3, 2).state_dict(), "a": torch.arange(8.0)}
    theirs["b"] = theirs["a"][2:5]
    for weights_only in (True, False):
        by_us = gt.load(io.BytesIO(legacy_bytes(torch, theirs)), weights_only=weights_only)
        assert by_us["state"]._metadata == theirs["state"]._metadata
        assert type(by_us["state"]["weight"]) is gt.Tensor
        assert storage_id(by_us["a"]) == storage_id(by_us["b"])
        by_us["a"][3] = 100.0  # shared after loading, as torch's
        assert by_us["b"][1].item() == 100.0


def test_numpy_values_need_weights_only_false(torch):
    data = legacy_bytes(torch, {"n": np.arange(3.0)})
    messages = []
    for lib in (torch, gt):
        with pytest.raises(pickle.UnpicklingError) as info:
            lib.load(io.BytesIO(data))
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    np.testing.assert_array_equal(gt.load(io.BytesIO(data), weights_only=False)["n"],
                                  np.arange(3.0))
    ours = legacy_bytes(gt, {"n": np.arange(3.0)})
    np.testing.assert_array_equal(torch.load(io.BytesIO(ours), weights_only=False)["n"],
                                  np.arange(3.0))


def test_whole_module_with_weights_only_false(torch):
    model = gt.nn.Sequential(gt.nn.Linear(2, 3), gt.nn.ReLU())
    loaded = gt.load(io.BytesIO(legacy_bytes(gt, model)), weights_only=False)
    x = gt.randn(4, 2)
    np.testing.assert_array_equal(loaded(x).detach().numpy(), model(x).detach().numpy())


def test_pickle_protocol(torch):
    data = legacy_bytes(gt, {"w": gt.arange(3)}, pickle_protocol=4)
    assert torch.load(io.BytesIO(data), weights_only=False)["w"].tolist() == [0, 1, 2]
    theirs = legacy_bytes(torch, {"w": torch.arange(3)}, pickle_protocol=4)
    assert gt.load(io.BytesIO(theirs), weights_only=False)["w"].tolist() == [0, 1, 2]


@pytest.mark.parametrize("weights_only", [True, False])
def test_storage_views_of_files_before_torch_0_4(torch, weights_only):
    # Such files name a view (view_key, offset, size) of a storage in the persistent id.
    data = legacy_bytes(torch, torch.arange(6.0)[:3])
    viewed = _replace(data, b"K\x06N", b"K\x06(X\x01\x00\x00\x00vK\x02K\x03t")
    expected = torch.load(io.BytesIO(viewed), weights_only=weights_only)
    assert expected.tolist() == [2.0, 3.0, 4.0]
    assert_same_tensor(gt.load(io.BytesIO(viewed), weights_only=weights_only), expected)
    outside = _replace(data, b"K\x06N", b"K\x06(X\x01\x00\x00\x00vK\x05K\x03t")
    for lib in (torch, gt):
        with pytest.raises(RuntimeError):
            lib.load(io.BytesIO(outside), weights_only=weights_only)


def test_paths_and_map_location(torch, tmp_path):
    path = tmp_path / "legacy.pt"
    gt.save(gt.arange(4), path, **LEGACY)
    assert torch.load(path).tolist() == [0, 1, 2, 3]
    for location in ("cpu", {"cpu": "cpu"}, lambda storage, loc: storage):
        assert gt.load(path, map_location=location).tolist() == [0, 1, 2, 3]


def outcomes(torch, data, weights_only):
    found = []
    for lib in (torch, gt):
        try:
            lib.load(io.BytesIO(data), weights_only=weights_only)
            found.append(("ok", None))
        except Exception as e:  # noqa: BLE001 - compared, whatever it is
            found.append((type(e).__name__, str(e)))
    return found


@pytest.mark.parametrize("weights_only", [True, False])
@pytest.mark.parametrize("cut", [5, 12, 20, 30])
def test_truncated_storages(torch, cut, weights_only):
    data = legacy_bytes(torch, {"a": torch.arange(6.0), "b": torch.arange(3, dtype=torch.int16)})
    theirs, ours = outcomes(torch, data[:-cut], weights_only)
    assert ours == theirs and ours[0] == "RuntimeError"


@pytest.mark.parametrize("weights_only", [True, False])
def test_bad_magic_number(torch, weights_only):
    data = pickle.dumps(123, protocol=2) + legacy_bytes(torch, torch.ones(1))[15:]
    theirs, ours = outcomes(torch, data, weights_only)
    assert ours == theirs == ("RuntimeError", "Invalid magic number; corrupt file?")


def test_mmap_refused(torch, tmp_path):
    path = tmp_path / "legacy.pt"
    torch.save(torch.ones(2), path, **LEGACY)
    messages = []
    for lib in (torch, gt):
        with pytest.raises(RuntimeError) as info:
            lib.load(str(path), mmap=True)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_not_a_checkpoint_names_the_file(tmp_path):
    path = tmp_path / "broken.pt"
    path.write_bytes(b"hello world")
    with pytest.raises(RuntimeError, match="broken.pt"):
        gt.load(path)


def _replace(data, old, new):
    assert data.count(old) == 1
    return data.replace(old, new)


def test_storage_declaring_terabytes_is_refused(torch):
    data = legacy_bytes(torch, torch.ones(3))
    # numel 3 as BININT1 right before the NONE that ends the persistent id.
    huge = _replace(data, b"K\x03N", b"J\xff\xff\xff\x7fN")
    with pytest.raises(RuntimeError, match="more than the file holds"):
        gt.load(io.BytesIO(huge))


def test_hostile_global_is_refused_and_not_run(torch, tmp_path):
    marker = tmp_path / "ran"
    command = f"touch {marker}".encode()
    payload = b"\x80\x02cposix\nsystem\nX" + len(command).to_bytes(4, "little") + command + \
        b"\x85R."
    data = legacy_bytes(torch, 1)
    stream = io.BytesIO(data)
    for _ in range(3):  # magic number, protocol version, the writer's description
        pickle.load(stream)
    header = data[:stream.tell()]
    assert header == legacy_bytes(gt, 1)[:len(header)]  # gradtrack writes torch's header
    hostile = header + payload + pickle.dumps([], protocol=2)
    theirs, ours = outcomes(torch, hostile, True)
    assert ours == theirs and ours[0] == "UnpicklingError"
    assert not marker.exists()


def _sections(data):
    """The five pickles of a legacy file, and the storage bytes after them."""
    stream, ends = io.BytesIO(data), [0]
    for _ in range(5):
        for _ in pickletools.genops(stream):  # walked to its STOP, not run
            pass
        ends.append(stream.tell())
    return [data[a:b] for a, b in zip(ends, ends[1:])], data[ends[-1]:]


@pytest.mark.parametrize("keys", [[[1]], ["nope"], "0"])
def test_malformed_storage_key_lists(torch, keys):
    pickles, storages = _sections(legacy_bytes(gt, gt.arange(3.0)))
    assert pickle.loads(pickles[4]) == ["0"]
    data = b"".join(pickles[:4]) + pickle.dumps(keys, protocol=2) + storages
    with pytest.raises(RuntimeError, match="corrupted or not a valid checkpoint"):
        gt.load(io.BytesIO(data), weights_only=False)


def test_storage_count_that_disagrees(torch):
    pickles, storages = _sections(legacy_bytes(gt, gt.arange(3.0)))
    data = b"".join(pickles) + (2).to_bytes(8, "little") + storages[8:]
    with pytest.raises(RuntimeError, match="holds 2 elements where the checkpoint declared 3"):
        gt.load(io.BytesIO(data))


@pytest.mark.parametrize("legacy", [True, False])
def test_full_unpickler_reads_a_storage_type_by_its_name_alone(torch, legacy):
    # torch's full unpickler takes any module's "<Type>Storage" for torch's storage
    # type; its restricted one refuses the unknown module
    kwargs = LEGACY if legacy else {}
    data = saved_bytes(torch.save, {"w": torch.arange(6.0).reshape(2, 3)}, **kwargs)
    if not legacy:  # the zip format keeps its pickle in data.pkl: rewrite it there
        import zipfile
        src, out = zipfile.ZipFile(io.BytesIO(data)), io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as dst:
            for info in src.infolist():
                body = src.read(info)
                if info.filename.endswith("data.pkl"):
                    body = body.replace(b"ctorch\nFloatStorage", b"cdorch\nFloatStorage")
                dst.writestr(info, body)
        renamed = out.getvalue()
    else:
        renamed = data.replace(b"ctorch\nFloatStorage", b"cdorch\nFloatStorage")
    assert renamed != data
    theirs = torch.load(io.BytesIO(renamed), weights_only=False)
    ours = gt.load(io.BytesIO(renamed), weights_only=False)
    np.testing.assert_array_equal(ours["w"].numpy(), theirs["w"].numpy())
    with pytest.raises(pickle.UnpicklingError) as t_err:
        torch.load(io.BytesIO(renamed))
    with pytest.raises(pickle.UnpicklingError) as g_err:
        gt.load(io.BytesIO(renamed))
    assert "dorch" in str(t_err.value) and "dorch" in str(g_err.value)
