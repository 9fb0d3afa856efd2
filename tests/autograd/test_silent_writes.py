"""The silent-write detector (gradtrack.autograd.detect_silent_writes, NOTE [Silent
writes]): every write to a saved tensor that its version counter cannot see is caught
before backward computes torch's silently wrong gradient; no write that leaves the
gradient right is refused; with the mode off, gradtrack's gradients are torch's,
wrong ones included.
"""

import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import gradtrack

MESSAGE = ("one of the variables needed for gradient computation has been modified without its "
           "version counter seeing it")


@pytest.fixture(autouse=True)
def _mode_off_after():
    yield
    gradtrack.autograd.detect_silent_writes(False)


def _on(lib):
    """The detector on for a block, in gradtrack; nothing in torch."""
    if lib is gradtrack:
        return gradtrack.autograd.detect_silent_writes(True)
    import contextlib
    return contextlib.nullcontext()


# Each case builds a graph under `watch` (the detector on in gradtrack), writes what the
# graph saved without a version bump, and returns (loss, leaf).
def _data_mul(lib, watch):
    X = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with watch:
        Y = X ** 2
    X.data.mul_(2)
    return Y.sum(), X


def _data_setitem(lib, watch):
    X = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with watch:
        Y = X ** 2
    X.data[0] = 5
    return Y.sum(), X


def _data_view(lib, watch):
    X = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with watch:
        Y = X.sin()
    X.data[1:].mul_(3)
    return Y.sum(), X


def _data_swap(lib, watch):
    X = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with watch:
        Y = X ** 2
    X.data = lib.tensor([7.0, 8.0, 9.0])
    return Y.sum(), X


def _from_numpy(lib, watch):
    a = np.ones(3, dtype=np.float32)
    X = lib.from_numpy(a).requires_grad_()
    with watch:
        Y = X ** 2
    a[0] = 5
    return Y.sum(), X


def _numpy_export(lib, watch):
    X = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with watch:
        Y = X ** 2
    X.detach().numpy()[0] = 5
    return Y.sum(), X


def _dlpack_export(lib, watch):
    X = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with watch:
        Y = X ** 2
    np.from_dlpack(X.detach())[2] = -1
    return Y.sum(), X


def _saved_output(lib, watch):
    X = lib.tensor([0.5, 1.0, 1.5], requires_grad=True)
    with watch:
        Y = X.exp()  # ExpBackward0 saves its result
    Y.data.mul_(2)
    return Y.sum(), X


def _old_optimizer(lib, watch):
    # The second layer's weight is saved for the hidden activation's gradient.
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(), lib.nn.Linear(4, 1))
    x = lib.ones(4, 3)
    with watch:
        loss = model(x).square().mean()
    for p in model.parameters():  # an update between forward and backward
        p.data.sub_(0.1 * lib.ones_like(p))
    return loss, model[0].weight


SILENT = {"data_mul": _data_mul, "data_setitem": _data_setitem, "data_view": _data_view,
          "data_swap": _data_swap, "from_numpy": _from_numpy, "numpy_export": _numpy_export,
          "dlpack_export": _dlpack_export, "saved_output": _saved_output,
          "old_optimizer": _old_optimizer}


@pytest.mark.parametrize("case", sorted(SILENT))
def test_mode_off_gives_torchs_silently_wrong_gradient(torch, case):
    import contextlib
    loss, leaf = SILENT[case](gradtrack, contextlib.nullcontext())
    loss.backward()
    t_loss, t_leaf = SILENT[case](torch, contextlib.nullcontext())
    t_loss.backward()
    # the same wrong gradient (to float rounding: sin's cos may differ in the last bit)
    np.testing.assert_allclose(leaf.grad.numpy(), t_leaf.grad.numpy(), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("case", sorted(SILENT))
def test_mode_on_refuses_the_silently_wrong_gradient(case):
    loss, leaf = SILENT[case](gradtrack, _on(gradtrack))
    with pytest.raises(RuntimeError, match="^" + MESSAGE) as info:
        loss.backward()
    assert "gradtrack.autograd.detect_silent_writes caught it" in str(info.value)
    assert leaf.grad is None
    assert info.value.__notes__[0].startswith("It was saved by ")


def _note(case):
    loss, _ = SILENT[case](gradtrack, _on(gradtrack))
    with pytest.raises(RuntimeError) as info:
        loss.backward()
    return info.value.__notes__[0]


def test_the_note_names_the_write_and_its_alias():
    here = os.path.basename(__file__)
    note = _note("data_mul")
    assert note.startswith("It was saved by PowBackward0 for the call at ")
    assert "Then written by mul_ (through .data) at " in note and here in note
    assert "Then written by __setitem__ (through .data) at " in _note("data_setitem")
    assert "Then written by mul_ (through a view of .data) at " in _note("data_view")
    assert "Then its .data was replaced at " in _note("data_swap")
    assert "(`t.data = other`)" in _note("data_swap")
    assert "saved by ExpBackward0" in _note("saved_output")


def test_a_write_outside_gradtrack_is_said_to_be_so_with_its_aliases():
    assert "The memory changed outside gradtrack: it is shared through from_numpy" in \
        _note("from_numpy")
    assert "it is shared through numpy()" in _note("numpy_export")
    assert "__dlpack__" in _note("dlpack_export")


def test_the_message_names_the_tensor():
    loss, _ = _data_mul(gradtrack, _on(gradtrack))
    with pytest.raises(RuntimeError) as info:
        loss.backward()
    assert str(info.value) == (
        MESSAGE + ": [gradtrack.FloatTensor [3]] is still at version 0 but its memory changed "
        "after it was saved, so backward would compute a wrong gradient with no error. "
        "gradtrack.autograd.detect_silent_writes caught it; nothing was accumulated.")


# ---- no false alarms ---------------------------------------------------------------------

def _same_bytes(watch):
    X = gradtrack.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with watch:
        Y = X ** 2
    X.data.mul_(1)
    X.data[0] = 1.0
    return Y.sum(), X, [2.0, 4.0, 6.0]


def _nothing_saved(watch):
    X = gradtrack.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with watch:
        Y = X + 1  # saves nothing
    X.data.mul_(2)
    return Y.sum(), X, [1.0, 1.0, 1.0]


def _other_region(watch):
    base = gradtrack.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    X = base[:2]
    with watch:
        Y = X ** 2
    base.data[2:].mul_(10)  # memory no node reads
    return Y.sum(), base, [2.0, 4.0, 0.0, 0.0]


def _numpy_read_only(watch):
    a = np.ones(3, dtype=np.float32)
    X = gradtrack.from_numpy(a).requires_grad_()
    with watch:
        Y = X ** 2
    _ = a.sum()  # reading the shared memory changes nothing
    return Y.sum(), X, [2.0, 2.0, 2.0]


CLEAN = {"same_bytes": _same_bytes, "nothing_saved": _nothing_saved,
         "other_region": _other_region, "numpy_read_only": _numpy_read_only}


@pytest.mark.parametrize("case", sorted(CLEAN))
def test_a_write_that_leaves_backward_right_is_not_refused(case):
    loss, leaf, grad = CLEAN[case](_on(gradtrack))
    loss.backward()
    np.testing.assert_array_equal(leaf.grad.numpy(), np.array(grad, dtype=np.float32))


def test_sgd_through_data_after_backward_trains_as_torch(torch):
    def train(lib):
        w = lib.tensor([1.0, -2.0, 0.5], requires_grad=True)
        for _ in range(5):
            loss = (w ** 2).sum() + (w * 3).sum()
            loss.backward()
            w.data.sub_(0.1 * w.grad)  # after backward: the graph is freed
            w.grad = None
        return w.detach().numpy().copy()
    with gradtrack.autograd.detect_silent_writes():
        ours = train(gradtrack)
    np.testing.assert_array_equal(ours, train(torch))


def test_training_with_batch_norm_twice_per_step_is_not_refused(torch):
    # The running statistics are written by every training-mode call; the node of the
    # first call may hold them, but its backward never reads them.
    def run(lib):
        lib.manual_seed(0)
        bn = lib.nn.BatchNorm1d(3)
        x = lib.randn(8, 3, requires_grad=True)
        out = bn(x).sum() + bn(x * 2).sum()
        out.backward()
        return x.grad.numpy().copy(), bn.running_mean.detach().numpy().copy()
    with gradtrack.autograd.detect_silent_writes():
        ours = run(gradtrack)
    theirs = run(torch)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-5, atol=1e-7)


def test_a_write_the_version_counter_sees_keeps_torchs_error():
    X = gradtrack.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with gradtrack.autograd.detect_silent_writes():
        Z = X * 1
        Y = Z ** 2
    Z.detach().mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        Y.sum().backward()


# ---- what the refusal leaves, and where the mode comes from --------------------------------

def test_a_refused_backward_accumulates_nothing_on_any_leaf():
    a = gradtrack.tensor([1.0, 2.0], requires_grad=True)
    b = gradtrack.tensor([3.0, 4.0], requires_grad=True)
    with gradtrack.autograd.detect_silent_writes():
        loss = (a * 2).sum() + (b ** 2).sum() + (a * a).sum()
    b.data.mul_(2)
    with pytest.raises(RuntimeError, match=MESSAGE):
        loss.backward(retain_graph=True)
    assert a.grad is None and b.grad is None


def test_autograd_grad_is_checked_the_same_way():
    X = gradtrack.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with gradtrack.autograd.detect_silent_writes():
        Y = X ** 2
    X.data.mul_(2)
    with pytest.raises(RuntimeError, match=MESSAGE):
        gradtrack.autograd.grad(Y.sum(), X)


def test_a_custom_functions_saved_tensors_are_checked():
    class Cube(gradtrack.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * x ** 2 * g

    X = gradtrack.tensor([1.0, 2.0], requires_grad=True)
    with gradtrack.autograd.detect_silent_writes():
        Y = Cube.apply(X)
    X.data.mul_(2)
    with pytest.raises(RuntimeError, match=MESSAGE):
        Y.sum().backward()


def test_the_mode_when_saved_decides():
    # On when saved, off at backward: still checked.
    loss, _ = _data_mul(gradtrack, _on(gradtrack))
    assert not gradtrack.autograd.is_detect_silent_writes_enabled()
    with pytest.raises(RuntimeError, match=MESSAGE):
        loss.backward()
    # Off when saved, on at backward: torch's silent gradient.
    import contextlib
    loss, leaf = _data_mul(gradtrack, contextlib.nullcontext())
    with gradtrack.autograd.detect_silent_writes():
        loss.backward()
    np.testing.assert_array_equal(leaf.grad.numpy(), [4.0, 8.0, 12.0])


def test_call_sets_the_mode_and_the_context_restores_the_previous_one():
    mode = gradtrack.autograd
    assert not mode.is_detect_silent_writes_enabled()
    mode.detect_silent_writes()
    assert mode.is_detect_silent_writes_enabled()
    with mode.detect_silent_writes(False):
        assert not mode.is_detect_silent_writes_enabled()
    assert mode.is_detect_silent_writes_enabled()
    mode.detect_silent_writes(False)
    assert not mode.is_detect_silent_writes_enabled()
    assert repr(mode.detect_silent_writes(False)) == "detect_silent_writes(mode=False)"


def test_the_mode_is_global_across_threads():
    seen, errors = [], []

    def worker():
        seen.append(gradtrack.autograd.is_detect_silent_writes_enabled())
        try:
            for _ in range(50):
                X = gradtrack.tensor([1.0, 2.0, 3.0], requires_grad=True)
                Y = X ** 2
                X.data.mul_(2)
                Y.sum().backward()
        except RuntimeError as e:
            errors.append(str(e))

    with gradtrack.autograd.detect_silent_writes():
        threads = [threading.Thread(target=worker) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
    assert seen == [True] * 4
    assert len(errors) == 4 and all(e.startswith(MESSAGE) for e in errors)


def _run(code, env=None, timeout=120):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, **(env or {})})


def test_the_environment_variable_turns_it_on_at_import():
    code = """
        import gradtrack
        print(gradtrack.autograd.is_detect_silent_writes_enabled())
    """
    assert _run(code, {"GRADTRACK_DETECT_SILENT_WRITES": "1"}).stdout.strip() == "True"
    assert _run(code, {"GRADTRACK_DETECT_SILENT_WRITES": "0"}).stdout.strip() == "False"


def test_the_pytest_plugin_runs_a_suite_with_it_on(tmp_path):
    (tmp_path / "test_pitfall.py").write_text(textwrap.dedent("""
        import gradtrack

        def test_pitfall_two():
            X = gradtrack.tensor([1.0, 2.0, 3.0], requires_grad=True)
            Y = X ** 2
            X.data.mul_(2)
            Y.sum().backward()
    """))
    with_plugin = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "gradtrack.detect_silent_writes",
         "-p", "no:cacheprovider", str(tmp_path)], capture_output=True, text=True, timeout=300,
        cwd=tmp_path)
    assert "1 failed" in with_plugin.stdout and "detect_silent_writes caught it" in \
        with_plugin.stdout
    without = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                              str(tmp_path)], capture_output=True, text=True, timeout=300,
                             cwd=tmp_path)
    assert "1 passed" in without.stdout


def test_explain_marks_the_tensor_before_backward():
    loss, _ = _data_mul(gradtrack, _on(gradtrack))
    text = gradtrack.autograd.explain(loss)
    assert "version 0 when saved, 0 now (changed by mul_ (through .data) at " in text
    assert ": backward would be wrong)" in text
    dot = gradtrack.autograd.explain(loss, format="dot")
    assert "backward would be wrong" in dot and "color=red" in dot
