"""The examples run (in a short mode) and print what they promise."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def run_example(name, *args, timeout=300):
    done = subprocess.run([sys.executable, str(EXAMPLES / name), *args], capture_output=True,
                          text=True, timeout=timeout, env=dict(os.environ))
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    return done.stdout


def _recovered(out):
    ws = [[float(v) for v in m.split(",")] for m in re.findall(r"recovered w = \[([^\]]*)\]", out)]
    bs = [float(m) for m in re.findall(r"recovered b = (\S+)", out)]
    return ws, bs


# ---- linear_regression.py ------------------------------------------------------------------

def test_linear_regression_short_run():
    out = run_example("linear_regression.py", "--steps", "20")
    assert "p.detach().sub_(p.grad, alpha=0.1), 20 steps" in out
    assert "optim.SGD(net.parameters(), lr=0.1), 20 steps" in out
    ws, bs = _recovered(out)
    assert len(ws) == len(bs) == 2
    assert ws[0] == ws[1] and bs[0] == bs[1]  # the manual step and optim.SGD agree
    assert abs(ws[0][0] - 2.0) < 0.1 and abs(ws[0][1] + 3.4) < 0.1 and abs(bs[0] - 4.2) < 0.1
    # normal_ twice (init) + one in-place update per step, and still a leaf
    assert out.count("weight: is_leaf=True, grad_fn=None, _version=22") == 2


def test_linear_regression_full_run_recovers_parameters():
    out = run_example("linear_regression.py")
    ws, bs = _recovered(out)
    for w, b in zip(ws, bs):
        assert w == pytest.approx([2.0, -3.4], abs=5e-3) and b == pytest.approx(4.2, abs=5e-3)
    assert "true w = [2.0, -3.4]" in out and "true b = 4.2" in out


# ---- mlp_digits.py -------------------------------------------------------------------------

def _accuracy(out):
    match = re.search(r"test accuracy: ([0-9.]+)", out)
    assert match, out
    return float(match.group(1))


def test_mlp_digits_short_run():
    pytest.importorskip("sklearn")
    pytest.importorskip("tqdm")
    out = run_example("mlp_digits.py", "--epochs", "3", "--no-progress")
    assert "Linear(in_features=64, out_features=128, bias=True)" in out
    assert _accuracy(out) >= 0.9  # chance is 0.1; three epochs already get most digits


def test_mlp_digits_full_run_reaches_95_percent():
    pytest.importorskip("sklearn")
    pytest.importorskip("tqdm")
    done = subprocess.run([sys.executable, str(EXAMPLES / "mlp_digits.py")], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert _accuracy(done.stdout) >= 0.95
    assert "training" in done.stderr and "30/30" in done.stderr  # the tqdm bar


# ---- inplace_pitfalls.py -----------------------------------------------------------------

PITFALL_LINES = [
    "w -= 0.1 * w.grad -> RuntimeError: a leaf Variable that requires grad is being used in an "
    "in-place operation.",
    "w._version after the refused write: 0",
    "w.is_leaf, w._version: (True, 2)",
    "X.grad: tensor([ 4.,  8., 12.])",
    "X._version: 0",
    "Y.sum().backward() -> RuntimeError: one of the variables needed for gradient computation "
    "has been modified by an inplace operation: [gradtrack.FloatTensor [3]] is at version 1; "
    "expected version 0 instead.",
    "with a clone: X.grad: tensor([2., 4., 6.])",
    "(b * 2).sum().backward() -> RuntimeError: element 0 of tensors does not require grad and "
    "does not have a grad_fn",
    "detach_() on a view (a * 3)[0] -> RuntimeError: Can't detach views in-place.",
    "y.grad: None",
    "after y.retain_grad(): y.grad: tensor([ 4.,  8., 12.])",
    "p.is_leaf: False",
    "optim.SGD([p], lr=0.1) -> ValueError: can't optimize a non-leaf Tensor",
    "loss.backward() -> RuntimeError: one of the variables needed for gradient computation has "
    "been modified by an inplace operation: [gradtrack.FloatTensor [4, 1]], which is output 0 "
    "of AsStrided, is at version 2; expected version 1 instead.",
    "weight versions: [3, 3, 3, 3]",
    "loss.backward() again -> RuntimeError: Trying to backward through the graph a second time",
    "retain_graph=True, then backward again: x.grad: tensor([ 4.,  8., 12.])",
]


def test_inplace_pitfalls_show_each_error_and_fix():
    out = run_example("inplace_pitfalls.py")
    position = 0
    for line in PITFALL_LINES:
        found = out.find(line, position)
        assert found >= 0, f"missing or out of order: {line}\n\n{out}"
        position = found
    assert len(re.findall(r"^\d\. ", out, flags=re.M)) == 8


def _source_line(path, text):
    """The 1-based line number of the only line of ``path`` containing ``text``."""
    (number,) = [i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line]
    return number


def test_inplace_pitfalls_show_provenance_notes_and_explain():
    out = run_example("inplace_pitfalls.py")
    path = EXAMPLES / "inplace_pitfalls.py"
    where = f"{path}:"
    saved = _source_line(path, "X.detach().mul_(2)") - 1  # Y = X ** 2 just above
    block = "\n".join([
        "   explain(Y) before backward: the graph, and what each node saved",
        f"      | PowBackward0  <- {where}{saved}",
        "      |   | saved an input [3]: version 0 when saved, 1 now (MODIFIED: backward will fail)",
        "      |     AccumulateGrad",
        "   Y.sum().backward() -> RuntimeError: one of the variables"])
    assert block in out
    assert (f"      note: It was saved by PowBackward0 for the call at {where}{saved}, then changed "
            f"in place by mul_ (through a detach() alias) at {where}{saved + 1}.\n") in out
    step = _source_line(path, "opt.step()                 # ...")
    assert (f"      note: It was saved by AddmmBackward0 for the call at {where}{step - 1}, then "
            f"changed in place by SGD.step at {where}{step}.\n") in out
    again = _source_line(path, 'attempt("loss.backward() again"')  # after forward, backward
    assert (f"      note: The saved tensors of MulBackward0 (built by the call at {where}{again - 2})"
            f" were freed by the backward called at {where}{again - 1}; pass retain_graph=True to "
            f"that call to keep them.\n") in out
    assert out.count("      note: To change a parameter without recording the change") == 1


def _comparable(out, lib):
    lines = []
    for line in out.replace(lib, "<mod>").splitlines():
        if line.strip().startswith(("note:", "explain(", "| ")) or \
                line.startswith("In-place pitfalls"):
            continue  # gradtrack's notes and explain() output, the version banner
        if "zero_grad, forward, backward, step: loss" in line:
            continue  # random initial weights differ between the libraries
        lines.append(line)
    return lines


def test_inplace_pitfalls_print_the_same_as_torch(torch):
    ours = _comparable(run_example("inplace_pitfalls.py"), "gradtrack")
    theirs = _comparable(run_example("inplace_pitfalls.py", "--lib", "torch"), "torch")
    assert ours == theirs


# ---- custom_function.py --------------------------------------------------------------------

def test_custom_function_example():
    out = run_example("custom_function.py")
    assert "grad_fn: SoftClampExpBackward" in out
    assert "recovered rate = 0.700" in out
    assert "gradcheck: True" in out


# ---- cnn_digits.py -------------------------------------------------------------------------

def test_cnn_digits_short_run():
    pytest.importorskip("sklearn")
    pytest.importorskip("tqdm")
    out = run_example("cnn_digits.py", "--epochs", "6", "--no-progress")
    assert "Conv2d(1, 32, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))" in out
    assert "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)" in out
    assert _accuracy(out) >= 0.85  # chance is 0.1


def test_cnn_digits_full_run_reaches_98_percent():
    pytest.importorskip("sklearn")
    pytest.importorskip("tqdm")
    done = subprocess.run([sys.executable, str(EXAMPLES / "cnn_digits.py")], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert _accuracy(done.stdout) >= 0.98
    assert "training" in done.stderr and "25/25" in done.stderr  # the tqdm bar
