"""The README's safetensors recipe: gradtrack tensors go into and come out of
``safetensors.numpy`` as NumPy views, with no copy on gradtrack's side, and the files
cross with torch's ``safetensors.torch``."""

import numpy as np

import gradtrack as gt
from gradtrack import nn


def test_state_dict_through_safetensors_numpy_without_copies(torch, tmp_path):
    from safetensors.numpy import load_file, save_file
    from safetensors.torch import load_file as torch_load_file
    from safetensors.torch import save_file as torch_save_file

    gt.manual_seed(0)
    state = nn.Linear(3, 2).state_dict()
    arrays = {name: t.numpy() for name, t in state.items()}
    for name, t in state.items():  # views of the tensors' memory, not copies
        assert arrays[name].ctypes.data == t.data_ptr()
    path = tmp_path / "model.safetensors"
    save_file(arrays, str(path))

    loaded = load_file(str(path))
    tensors = {name: gt.from_numpy(a) for name, a in loaded.items()}
    for name, t in tensors.items():
        assert t.data_ptr() == loaded[name].ctypes.data
        assert t.dtype is state[name].dtype
        assert t.numpy().tobytes() == state[name].numpy().tobytes()
    fresh = nn.Linear(3, 2)
    assert str(fresh.load_state_dict(tensors)) == "<All keys matched successfully>"

    by_torch = torch_load_file(str(path))
    for name, t in state.items():
        np.testing.assert_array_equal(by_torch[name].numpy(), t.numpy())

    torch_path = tmp_path / "torch.safetensors"
    torch_state = torch.nn.Linear(3, 2).state_dict()
    torch_save_file(torch_state, str(torch_path))
    ours = {name: gt.from_numpy(a) for name, a in load_file(str(torch_path)).items()}
    for name, t in torch_state.items():
        np.testing.assert_array_equal(ours[name].numpy(), t.numpy())


def test_views_are_made_contiguous_first(tmp_path):
    from safetensors.numpy import load_file, save_file

    t = gt.arange(6.0).reshape(2, 3).t()  # safetensors stores C-ordered data only
    save_file({"t": np.ascontiguousarray(t.numpy())}, str(tmp_path / "t.safetensors"))
    back = gt.from_numpy(load_file(str(tmp_path / "t.safetensors"))["t"])
    assert back.tolist() == t.tolist()


SAFETENSORS_TORCH_PROGRAM = """
import torch
from safetensors.torch import load_file, save_file

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
save_file(model.state_dict(), "model.safetensors")
loaded = load_file("model.safetensors")
fresh = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
print(fresh.load_state_dict(loaded))
x = torch.ones(1, 3)
print(torch.equal(fresh(x), model(x)), sorted((k, tuple(v.shape), str(v.dtype)) for k, v in loaded.items()))
"""


def test_safetensors_torch_api_runs_under_as_torch(torch, tmp_path):
    # safetensors.torch names torch.complex64 in its dtype tables and asks each tensor's
    # untyped_storage() for its address and size: both exist, so the torch API of the
    # package saves and loads gradtrack tensors, and prints what it prints under torch.
    import subprocess
    import sys

    script = tmp_path / "program.py"
    script.write_text(SAFETENSORS_TORCH_PROGRAM)
    runs = [subprocess.run([sys.executable, *mode, str(script)], capture_output=True, text=True,
                           cwd=tmp_path, timeout=120)
            for mode in ([], ["-m", "gradtrack.as_torch"])]
    for run in runs:
        assert run.returncode == 0, run.stderr[-2000:]
    assert runs[1].stdout == runs[0].stdout.replace("torch.", "gradtrack.")
