"""``torch.utils.tensorboard.SummaryWriter``: the event file gradtrack writes holds the
same events as torch's for the same calls, read back with TensorBoard's own loader;
without the tensorboard package the import fails with torch's ImportError."""

import glob
import subprocess
import sys

import pytest

import gradtrack

pytest.importorskip("tensorboard")


def _events(lib, log_dir):
    import importlib
    writer_module = importlib.import_module(lib.__name__ + ".utils.tensorboard")
    from tensorboard.backend.event_processing.event_file_loader import EventFileLoader
    with writer_module.SummaryWriter(str(log_dir)) as w:
        for i in range(3):
            w.add_scalar("loss/train", lib.tensor(1.0 / (i + 1)), i, walltime=100.0 + i)
        w.add_scalar("lr", 0.1, 0, walltime=5.0, new_style=True)
        w.add_scalar("lr64", 0.1, 1, walltime=6.0, new_style=True, double_precision=True)
        w.add_text("note", "hello", 0, walltime=7.0)
        assert w.get_logdir() == str(log_dir)
    (path,) = glob.glob(str(log_dir / "events.out.tfevents.*"))
    events = []
    for event in EventFileLoader(path).Load():
        if event.HasField("file_version"):
            event.ClearField("wall_time")
        events.append(str(event))
    return events


def test_events_match_torch(tmp_path):
    torch = pytest.importorskip("torch")
    assert _events(gradtrack, tmp_path / "g") == _events(torch, tmp_path / "t")


def test_bad_scalar_and_missing_methods(tmp_path):
    from gradtrack.utils.tensorboard import SummaryWriter
    w = SummaryWriter(str(tmp_path))
    with pytest.raises(AssertionError, match="Tensor should contain one element"):
        w.add_scalar("x", gradtrack.ones(2))
    with pytest.raises(NotImplementedError, match="add_histogram"):
        w.add_histogram("h", gradtrack.ones(2))
    w.close()


def test_import_error_without_tensorboard():
    code = ("import sys; sys.modules['tensorboard'] = None\n"
            "try:\n    import gradtrack.utils.tensorboard\nexcept ImportError as e:\n    print(e)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.stdout == "TensorBoard logging requires TensorBoard version 1.15 or above\n"
