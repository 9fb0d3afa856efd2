"""torch.serialization.skip_data: save writes the structure with zero-filled storage
records, load allocates storages without reading them, as torch 2.13's."""

import io
import threading
import zipfile

import pytest

import gradtrack as gt
from gradtrack import serialization

from checkpoint_helpers import (
    DTYPES, STRIDE_KINDS, assert_same_tensor, dtype_name, make_base, saved_bytes, storage_id,
)


def skipped_bytes(lib, obj, **kwargs):
    with lib.serialization.skip_data():
        return saved_bytes(lib.save, obj, **kwargs)


def records(data):
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {info.filename: info.file_size for info in archive.infolist()
                if "serialization_id" not in info.filename}


@pytest.mark.parametrize("kind", ["contiguous", "transposed", "sliced", "expanded", "empty"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_skipped_save_crosses_both_ways(torch, dtype, kind):
    ours = STRIDE_KINDS[kind](make_base(gt, dtype))
    theirs = STRIDE_KINDS[kind](make_base(torch, dtype))
    ours_data, theirs_data = skipped_bytes(gt, ours), skipped_bytes(torch, theirs)
    assert records(ours_data) == records(theirs_data)  # same records, same sizes
    for loaded in (torch.load(io.BytesIO(ours_data)), torch.load(io.BytesIO(theirs_data))):
        assert tuple(loaded.shape) == tuple(theirs.shape)
        assert tuple(loaded.stride()) == tuple(theirs.stride())
        assert loaded.storage_offset() == theirs.storage_offset()
        assert dtype_name(loaded) == dtype
        assert not loaded.ne(0).any()
    for loaded in (gt.load(io.BytesIO(ours_data)), gt.load(io.BytesIO(theirs_data))):
        assert tuple(loaded.shape) == tuple(ours.shape)
        assert tuple(loaded.stride()) == tuple(ours.stride())
        assert loaded.storage_offset() == ours.storage_offset()
        assert dtype_name(loaded) == dtype
        assert not loaded.ne(0).any()


def test_skipped_save_keeps_sharing_and_values_elsewhere(torch):
    base = gt.arange(6.0)
    data = skipped_bytes(gt, {"a": base, "b": base[2:], "n": 3, "s": "text"})
    for loaded in (torch.load(io.BytesIO(data)), gt.load(io.BytesIO(data))):
        assert storage_id(loaded["a"]) == storage_id(loaded["b"])
        assert loaded["n"] == 3 and loaded["s"] == "text"
        assert loaded["a"].tolist() == [0.0] * 6


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "bfloat16"])
def test_skipped_load_keeps_layout(torch, dtype):
    # Under skip_data the bytes are not read: layouts as torch's, values unspecified.
    base = make_base(torch, dtype)
    theirs = {"t": STRIDE_KINDS["transposed"](base), "v": base[3:9]}
    data = saved_bytes(torch.save, theirs)
    with torch.serialization.skip_data():
        by_torch = torch.load(io.BytesIO(data))
    with serialization.skip_data():
        by_us = gt.load(io.BytesIO(data))
    for key in theirs:
        assert tuple(by_us[key].shape) == tuple(by_torch[key].shape)
        assert tuple(by_us[key].stride()) == tuple(by_torch[key].stride())
        assert by_us[key].storage_offset() == by_torch[key].storage_offset()
        assert dtype_name(by_us[key]) == dtype_name(by_torch[key])
    assert storage_id(by_us["t"]) == storage_id(by_us["v"])
    # Outside the context manager the same file loads its values again.
    assert_same_tensor(gt.load(io.BytesIO(data))["v"], theirs["v"])


def test_skipped_load_of_a_path(torch, tmp_path):
    path = tmp_path / "c.pt"
    torch.save(torch.arange(4), path)
    with serialization.skip_data():
        assert gt.load(path, mmap=True).shape == (4,)
        assert gt.load(path).shape == (4,)


def test_legacy_format_refused(torch):
    message = "Cannot use skip_data=True with _use_new_zipfile_serialization=False"
    for lib in (torch, gt):
        with pytest.raises(RuntimeError, match=message):
            skipped_bytes(lib, lib.ones(2), _use_new_zipfile_serialization=False)


def test_state_is_restored_and_per_thread(torch):
    seen = []
    with serialization.skip_data(materialize_fake_tensors=True):
        with serialization.skip_data():
            assert serialization._state.skip_data
        assert serialization._state.skip_data
        assert serialization._state.materialize_fake_tensors
        thread = threading.Thread(target=lambda: seen.append(serialization._state.skip_data))
        thread.start()
        thread.join(timeout=30)
    assert seen == [False]
    assert not serialization._state.skip_data
    assert not serialization._state.materialize_fake_tensors
    assert gt.load(io.BytesIO(saved_bytes(gt.save, gt.ones(2)))).tolist() == [1.0, 1.0]
