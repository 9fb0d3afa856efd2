"""load(weights_only=True), the default: torch 2.13's allow-list, its refusals and messages word
for word, and the allow-list a user extends (add_safe_globals, safe_globals)."""

import io
import os
import pickle

import pytest

import gradtrack as gt
from gradtrack import serialization

from checkpoint_helpers import checkpoint


def outcomes(torch, data, **kwargs):
    """What torch.load and gradtrack.load give for the same bytes: (type name, message)
    or ("ok", None)."""
    found = []
    for lib in (torch, gt):
        try:
            lib.load(io.BytesIO(data), **kwargs)
            found.append(("ok", None))
        except Exception as e:  # noqa: BLE001 - compared, whatever it is
            found.append((type(e).__name__, str(e)))
    return found


class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y


class Shell:
    def __init__(self, command):
        self.command = command

    def __reduce__(self):
        return os.system, (self.command,)


class Evaluate:
    def __reduce__(self):
        return eval, ("1 + 1",)


@pytest.fixture(autouse=True)
def _no_marked_globals():
    serialization.clear_safe_globals()
    yield
    serialization.clear_safe_globals()


def test_os_system_is_refused_with_torchs_message_and_never_runs(torch, tmp_path):
    marker = tmp_path / "ran"
    data = checkpoint(pickle.dumps(Shell(f"touch {marker}"), protocol=2))
    theirs, ours = outcomes(torch, data)
    assert ours == theirs and ours[0] == "UnpicklingError"
    assert "whose module posix is blocked" in ours[1]
    assert not marker.exists()


@pytest.mark.parametrize("payload", [
    Evaluate(), Point(1, 2), {"a": [Point(3, 4)]}, print, pickle.Pickler,
], ids=["eval", "class", "nested_class", "builtin_function", "class_object"])
def test_refusals_match_torchs_word_for_word(torch, payload):
    data = checkpoint(pickle.dumps(payload, protocol=2))
    theirs, ours = outcomes(torch, data)
    assert ours == theirs and ours[0] == "UnpicklingError"


def test_unsupported_opcode_and_persistent_ids_match_torch(torch):
    cases = [
        b"\x80\x02(c__builtin__\nlist\no.",              # INST-like OBJ opcode
        b"\x80\x02X\x03\x00\x00\x00abcQ.",              # a persistent id that is a str
        b"\x80\x02X\x03\x00\x00\x00abc\x85Q.",          # a tuple that does not name storage
        b"\x80\x02]q\x00K\x01K\x02s.",                  # SETITEM on a list
        b"\x80\x02}K\x01a.",                            # APPEND on a dict
    ]
    for data in cases:
        theirs, ours = outcomes(torch, checkpoint(data))
        assert ours == theirs and ours[0] == "UnpicklingError", data


def test_safe_globals_allows_a_class_as_torch_does(torch):
    data = checkpoint(pickle.dumps({"p": Point(1, 2)}, protocol=2))
    for allow in ([Point], [(Point, f"{Point.__module__}.Point")]):
        for lib in (torch, gt):
            with lib.serialization.safe_globals(allow):
                assert allow[0] in lib.serialization.get_safe_globals()
                back = lib.load(io.BytesIO(data))
            assert type(back["p"]) is Point and (back["p"].x, back["p"].y) == (1, 2)
            assert allow[0] not in lib.serialization.get_safe_globals()


def test_add_safe_globals_then_clear(torch):
    data = checkpoint(pickle.dumps(Point(5, 6), protocol=2))
    serialization.add_safe_globals([Point])
    assert serialization.get_safe_globals() == [Point]
    assert gt.load(io.BytesIO(data)).x == 5
    serialization.clear_safe_globals()
    with pytest.raises(pickle.UnpicklingError, match="GLOBAL .*Point was not an allowed"):
        gt.load(io.BytesIO(data))


def test_numpy_array_loads_once_its_globals_are_allowed(torch):
    import numpy as np
    array = np.arange(4.0)
    data = io.BytesIO()
    gt.save({"a": array}, data)
    allow = [np._core.multiarray._reconstruct, np.ndarray, np.dtype, type(array.dtype)]
    results = []
    for lib in (torch, gt):
        with lib.serialization.safe_globals(allow):
            results.append(lib.load(io.BytesIO(data.getvalue()))["a"])
    for back in results:
        np.testing.assert_array_equal(back, array)


def test_weights_only_false_runs_pickle(tmp_path):
    data = checkpoint(pickle.dumps({"p": Point(7, 8)}, protocol=2))
    back = gt.load(io.BytesIO(data), weights_only=False)
    assert back["p"].y == 8


def test_explicit_pickle_module_and_weights_only_match_torch(torch):
    data = checkpoint(pickle.dumps({"a": 1}, protocol=2))
    theirs, ours = outcomes(torch, data, pickle_module=pickle, weights_only=True)
    assert ours == theirs and ours[0] == "RuntimeError"
    # An explicit pickle_module without weights_only means weights_only=False.
    assert gt.load(io.BytesIO(checkpoint(pickle.dumps(Point(1, 1), protocol=2))),
                   pickle_module=pickle).x == 1


def test_default_is_weights_only(torch):
    import inspect
    assert inspect.signature(gt.load).parameters["weights_only"].default is None
    data = checkpoint(pickle.dumps(Point(1, 2), protocol=2))
    with pytest.raises(pickle.UnpicklingError):
        gt.load(io.BytesIO(data))


@pytest.mark.parametrize("protocol", [3, 4, 5])
def test_other_protocols_warn_and_load_or_fail_as_torch(torch, protocol):
    data = checkpoint(pickle.dumps({"a": 1, "b": b"xy"}, protocol=protocol))
    seen = []
    for lib in (torch, gt):
        with pytest.warns(UserWarning) as record:
            try:
                outcome = ("ok", lib.load(io.BytesIO(data)))
            except pickle.UnpicklingError as e:
                outcome = ("UnpicklingError", str(e))
        seen.append((outcome, [str(w.message) for w in record]))
    assert seen[0] == seen[1]
