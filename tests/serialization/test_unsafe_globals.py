"""get_unsafe_globals_in_checkpoint: the globals a checkpoint names beyond the
weights_only allow-list, as torch 2.13 lists them for the same bytes, read without
running the file."""

import collections
import io
import os
import pickle

import numpy as np
import pytest

import gradtrack as gt
from gradtrack import serialization
from gradtrack._serialization.torch_names import TORCH_ALLOWED_NAMES

from checkpoint_helpers import checkpoint, saved_bytes


class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y


def both(torch, data):
    """(torch's list, gradtrack's list), each sorted, for the same checkpoint bytes."""
    return (sorted(torch.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(data))),
            sorted(serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(data))))


def test_allow_list_names_are_torchs(torch):
    from torch import _weights_only_unpickler
    assert TORCH_ALLOWED_NAMES == set(_weights_only_unpickler._get_allowed_globals())


def test_torch_checkpoint_with_foreign_globals(torch):
    obj = {"w": torch.ones(2), "n": np.zeros(3), "d": collections.defaultdict(int),
           "p": Point(1, 2), "o": collections.OrderedDict(a=1), "s": {1, 2}, "c": 1j,
           "dev": torch.device("cpu"), "dt": torch.float16, "size": torch.Size([2]),
           "param": torch.nn.Parameter(torch.zeros(1))}
    theirs, ours = both(torch, saved_bytes(torch.save, obj))
    assert ours == theirs
    assert ours == sorted(["builtins.int", "collections.defaultdict", "numpy.dtype",
                           "numpy.ndarray", "numpy._core.multiarray._reconstruct",
                           f"{__name__}.Point"])


def test_torch_module_checkpoint(torch):
    theirs, ours = both(torch, saved_bytes(torch.save, torch.nn.Sequential(torch.nn.Linear(2, 2))))
    assert ours == theirs and "torch.nn.modules.linear.Linear" in ours


def test_gradtrack_checkpoints(torch):
    state = gt.nn.Linear(3, 2).state_dict()
    theirs, ours = both(torch, saved_bytes(gt.save, state))
    assert ours == theirs == []
    theirs, ours = both(torch, saved_bytes(gt.save, [np.arange(3), Point(0, 1)]))
    assert ours == theirs and f"{__name__}.Point" in ours


def test_names_marked_safe_are_left_out(torch):
    data = saved_bytes(torch.save, {"d": collections.defaultdict(int), "p": Point(1, 2)})
    with torch.serialization.safe_globals([collections.defaultdict]), \
            serialization.safe_globals([collections.defaultdict]):
        theirs, ours = both(torch, data)
    assert ours == theirs == sorted(["builtins.int", f"{__name__}.Point"])
    serialization.add_safe_globals([Point, int])
    try:
        assert serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(data)) == \
            ["collections.defaultdict"]
    finally:
        serialization.clear_safe_globals()


def test_hostile_pickle_is_listed_not_run(torch, tmp_path):
    marker = tmp_path / "ran"
    data = checkpoint(b"\x80\x02cposix\nsystem\nX" + len(f"touch {marker}").to_bytes(4, "little")
                      + f"touch {marker}".encode() + b"\x85R.")
    theirs, ours = both(torch, data)
    assert ours == theirs == ["posix.system"]
    assert not marker.exists()


def test_paths_and_files(torch, tmp_path):
    path = tmp_path / "c.pt"
    torch.save({"n": np.float64(1.0)}, path)
    expected = sorted(torch.serialization.get_unsafe_globals_in_checkpoint(path))
    assert sorted(serialization.get_unsafe_globals_in_checkpoint(path)) == expected
    assert sorted(serialization.get_unsafe_globals_in_checkpoint(str(path))) == expected
    with open(path, "rb") as f:
        assert sorted(serialization.get_unsafe_globals_in_checkpoint(f)) == expected


@pytest.mark.parametrize("data", [b"hello world", b"", "legacy"])
def test_not_a_zip_checkpoint(torch, data):
    if data == "legacy":
        data = saved_bytes(torch.save, torch.ones(2), _use_new_zipfile_serialization=False)
    message = "Expected input to be a checkpoint returned by torch.save"
    with pytest.raises(ValueError, match=message):
        torch.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(data))
    with pytest.raises(ValueError, match=message):
        serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(data))


def test_unsupported_opcode(torch):
    # Protocol 4 writes opcodes torch's scan does not walk: the same refusal.
    data = saved_bytes(torch.save, {"a": [1, 2]}, pickle_protocol=4)
    errors = []
    for lib in (torch, gt):
        with pytest.raises(pickle.UnpicklingError) as info:
            lib.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(data))
        errors.append(str(info.value))
    assert errors[0] == errors[1]


def test_earlier_gradtrack_archive_names_nothing():
    fixture = os.path.join(os.path.dirname(__file__), "..", "checkpoints",
                           "zip_of_npy_checkpoint.gt")
    assert serialization.get_unsafe_globals_in_checkpoint(fixture) == []
