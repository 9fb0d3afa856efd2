"""Checkpoints: saving and loading a 100 MB state dict (100 float32 tensors of 1000x250)
to and from a file, in torch's format in both libraries. gradtrack's save also fsyncs
and renames the file (NOTE [Atomic saves]), which torch's does not.
"""

import os
import shutil
import tempfile

from .registry import Point, seed, timed_case

GROUP_CHECKPOINT = "checkpoints"
STATE_DICT_POINT = (Point("100MB", 100, "state dict of 100 float32 tensors of 1000x250"),)


def _state_dict(T, tensors):
    seed(T)
    return {f"layer{i}.weight": T.randn(1000, 250) for i in range(tensors)}


def _in_temporary_directory(T, tensors):
    directory = tempfile.mkdtemp(prefix="gradtrack-bench-")
    path = os.path.join(directory, "state.pt")
    state = _state_dict(T, tensors)
    return state, path, lambda: shutil.rmtree(directory, ignore_errors=True)


@timed_case("save_state_dict", GROUP_CHECKPOINT, "T.save(state_dict, path)", STATE_DICT_POINT)
def save_state_dict(T, tensors):
    state, path, cleanup = _in_temporary_directory(T, tensors)
    save = T.save

    def step():
        save(state, path)

    return step, cleanup


@timed_case("load_state_dict", GROUP_CHECKPOINT, "T.load(path)", STATE_DICT_POINT)
def load_state_dict(T, tensors):
    state, path, cleanup = _in_temporary_directory(T, tensors)
    T.save(state, path)
    del state
    load = T.load

    def step():
        load(path)

    return step, cleanup
