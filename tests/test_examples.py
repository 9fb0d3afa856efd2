"""The examples run (in a short mode) and print what they promise."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def run_example(name, *args, timeout=300, env=None):
    done = subprocess.run([sys.executable, str(EXAMPLES / name), *args], capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, **(env or {})})
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

def _flat(text):
    """Whitespace collapsed: the example wraps its output to the width of its prose."""
    return " ".join(text.split())


# Each snippet, then what it gives, in order (compared with whitespace collapsed).
PITFALL_STEPS = [
    ">>> w -= 0.1 * w.grad RuntimeError: a leaf Variable that requires grad is being used in an "
    "in-place operation.",
    ">>> w._version # the refused write changed nothing 0",
    ">>> with no_grad(): w -= 0.1 * w.grad tensor([0.8000, 1.6000, 2.4000], requires_grad=True)",
    ">>> w.detach().sub_(w.grad, alpha=0.1) tensor([0.8000, 1.6000, 2.4000], requires_grad=True)",
    ">>> w.is_leaf, w._version # after either fix alike (True, 1)",
    ">>> X.grad tensor([ 4., 8., 12.])",
    ">>> X._version 0",
    ">>> Y.sum().backward() RuntimeError: one of the variables needed for gradient computation "
    "has been modified by an inplace operation: [gradtrack.FloatTensor [3]] is at version 1; "
    "expected version 0 instead.",
    ">>> X.grad # X untouched, a clone doubled tensor([2., 4., 6.])",
    ">>> (b * 2).sum().backward() RuntimeError: element 0 of tensors does not require grad and "
    "does not have a grad_fn",
    ">>> (a * 3)[0].detach_() # a view RuntimeError: Can't detach views in-place. Use detach() "
    "instead. (...)",
    ">>> y.grad None",
    ">>> y.grad # after y.retain_grad() tensor([ 4., 8., 12.])",
    ">>> p.is_leaf False",
    ">>> optim.SGD([p], lr=0.1) ValueError: can't optimize a non-leaf Tensor",
    ">>> loss.backward() RuntimeError: one of the variables needed for gradient computation has "
    "been modified by an inplace operation: [gradtrack.FloatTensor [4, 1]], which is output 0 "
    "of AsStrided, is at version 2; expected version 1 instead.",
    ">>> [p._version for p in model.parameters()] [3, 3, 3, 3]",
    ">>> loss.backward() # again RuntimeError: Trying to backward through the graph a second time",
    ">>> x.grad # backward(retain_graph=True), then backward tensor([ 4., 8., 12.])",
]


def test_inplace_pitfalls_show_each_snippet_then_its_outcome():
    out = run_example("inplace_pitfalls.py")
    flat, position = _flat(out), 0
    for step in PITFALL_STEPS:
        found = flat.find(step, position)
        assert found >= 0, f"missing or out of order: {step}\n\n{out}"
        position = found
    assert len(re.findall(r"^\d\. ", out, flags=re.M)) == 8
    # Everything wraps to the prose's width; torch's DDP advice is left out.
    assert max(len(line) for line in out.splitlines() if not line.startswith("      |")) <= 84
    assert "DistributedDataParallel" not in out


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
        "   >>> Y.sum().backward()",
        "   RuntimeError: one of the variables"])
    assert block in out
    flat = _flat(out)
    assert _flat(f"note: It was saved by PowBackward0 for the call at {where}{saved}, then changed "
                 f"in place by mul_ (through a detach() alias) at {where}{saved + 1}.") in flat
    step = _source_line(path, "opt.step()                 # ...")
    assert _flat(f"note: It was saved by AddmmBackward0 for the call at {where}{step - 1}, then "
                 f"changed in place by SGD.step at {where}{step}.") in flat
    again = _source_line(path, 'attempt("loss.backward()  # again"')  # after forward, backward
    assert _flat(f"note: The saved tensors of MulBackward0 (built by the call at "
                 f"{where}{again - 2}) were freed by the backward called at {where}{again - 1}; "
                 f"pass retain_graph=True to that call to keep them.") in flat
    assert out.count("   note: To change a parameter without recording the change") == 1


def _comparable(out, lib):
    """The output without gradtrack's notes, explain() and the banner, whitespace collapsed."""
    kept, in_note = [], False
    for line in out.splitlines():
        in_note = line.startswith("   note: ") or (in_note and line.startswith(" " * 9))
        if in_note or line.strip().startswith(("explain(", "| ")) or \
                line.startswith(("In-place pitfalls", "   [gradtrack] ")):
            continue
        kept.append(line)
    # The library's name, not inside another word (torch's warning links to "pytorch").
    return _flat(re.sub(rf"(?<![A-Za-z]){lib}", "<mod>", "\n".join(kept)))


def test_inplace_pitfalls_print_the_same_as_torch(torch):
    # Seeded weights are torch's too (same generator), so even the trained loss agrees.
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
    assert ("BatchNorm2d(32, eps=1e-05, momentum=0.1, affine=True, bias=True, "
            "track_running_stats=True)") in out
    assert "Dropout(p=0.25, inplace=False)" in out
    assert _accuracy(out) >= 0.85  # chance is 0.1


def test_cnn_digits_full_run_reaches_98_percent():
    pytest.importorskip("sklearn")
    pytest.importorskip("tqdm")
    done = subprocess.run([sys.executable, str(EXAMPLES / "cnn_digits.py")], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert _accuracy(done.stdout) >= 0.98
    assert "training" in done.stderr and "25/25" in done.stderr  # the tqdm bar


# ---- tiny_transformer.py ------------------------------------------------------------------

def test_tiny_transformer_short_run_learns_and_samples():
    pytest.importorskip("tqdm")
    out = run_example("tiny_transformer.py", "--steps", "25", "--sample-length", "20",
                      "--no-progress")
    assert "corpus: docstrings of 15 standard-library modules" in out
    first, last = (float(v) for v in re.search(r"loss ([0-9.]+) -> ([0-9.]+)", out).groups())
    assert last < first - 0.3  # 25 steps already leave the uniform guess behind
    samples = [m[1] for m in re.findall(r"sample: (['\"])(.*)\1$", out, flags=re.M)]
    assert len(samples) == 3 and samples[0].startswith("Return a ")
    assert all(len(s) > 20 for s in samples)


# ---- char_rnn.py ---------------------------------------------------------------------------

def test_char_rnn_short_run_learns_and_samples():
    pytest.importorskip("tqdm")
    out = run_example("char_rnn.py", "--steps", "25", "--chars", "40000", "--sample-length",
                      "40", "--no-progress", timeout=600)
    assert "(lstm): LSTM(32, 128, num_layers=2, batch_first=True, dropout=0.1)" in out
    match = re.search(r"final loss ([0-9.]+) \(uniform guessing: ([0-9.]+)\)", out)
    assert match, out
    assert float(match.group(1)) < float(match.group(2)) - 0.5  # already better than chance
    sample = out.split("sample:\n", 1)[1]
    assert sample.startswith("Return the ") and len(sample.rstrip("\n")) >= len("Return the ") + 40


def test_char_rnn_names_what_to_install_when_tqdm_is_missing(tmp_path):
    # A tqdm that fails to import stands in for a missing one.
    (tmp_path / "tqdm.py").write_text("raise ImportError(\"No module named 'tqdm'\")\n")
    env = dict(os.environ, PYTHONPATH=f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    done = subprocess.run([sys.executable, str(EXAMPLES / "char_rnn.py")], capture_output=True,
                          text=True, timeout=120, env=env)
    assert done.returncode == 1
    assert 'pip install "gradtrack[examples]"' in done.stderr and "tqdm" in done.stderr


# ---- hogwild_blobs.py ------------------------------------------------------------------------

@pytest.mark.parametrize("method", ["spawn", "fork"])
def test_hogwild_workers_train_the_parents_model(method):
    # The parent takes no step: the accuracy it reports after is what the workers wrote
    # into the shared weights.
    out = run_example("hogwild_blobs.py", "--workers", "2", "--epochs", "3", "--samples", "1000",
                      "--start-method", method, timeout=120)
    before = float(re.search(r"before: test accuracy ([0-9.]+)", out).group(1))
    after = float(re.search(rf"after 2 workers x 3 epochs \({method}\): test accuracy ([0-9.]+)",
                            out).group(1))
    assert before < 0.3 and after > 0.9, out


# ---- every example under the silent-write detector ------------------------------------------

DETECTOR = {"GRADTRACK_DETECT_SILENT_WRITES": "1"}


def test_inplace_pitfalls_under_the_detector_show_pitfall_two_and_its_catch():
    out = run_example("inplace_pitfalls.py", env=DETECTOR)
    # pitfall 2 still shows torch's silent gradient (the detector is off for it)...
    assert ">>> X.grad\n   tensor([ 4.,  8., 12.])" in out
    # ...then gradtrack's catch, in marked lines torch's run does not have
    flat = _flat(out)
    assert _flat("[gradtrack] >>> Y.sum().backward() [gradtrack] RuntimeError: one of the "
                 "variables needed for gradient computation") in flat
    assert "(through .data) at" in flat
    assert _flat("[gradtrack] >>> X.grad # nothing was accumulated [gradtrack] None") in flat
    assert out == run_example("inplace_pitfalls.py")  # the detector changes nothing else


@pytest.mark.parametrize("name, args", [
    ("linear_regression.py", ("--steps", "20")),
    ("custom_function.py", ()),
    ("mlp_digits.py", ("--epochs", "2", "--no-progress")),
    ("cnn_digits.py", ("--epochs", "1", "--no-progress")),
    ("tiny_transformer.py", ("--steps", "5", "--sample-length", "5", "--no-progress")),
    ("char_rnn.py", ("--steps", "5", "--chars", "20000", "--sample-length", "5",
                     "--no-progress")),
])
def test_examples_train_under_the_detector_without_an_alarm(name, args):
    if name != "custom_function.py" and name != "linear_regression.py":
        pytest.importorskip("tqdm")
    if "digits" in name:
        pytest.importorskip("sklearn")
    run_example(name, *args, env=DETECTOR, timeout=600)


def test_the_tutorial_tests_pass_under_the_detector():
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "gradtrack.detect_silent_writes",
         "-p", "no:cacheprovider", "tests/nn/test_lenet_tutorial.py",
         "tests/nn/test_rnn_tutorials.py", "tests/optim"],
        capture_output=True, text=True, timeout=900, cwd=EXAMPLES.parent)
    assert done.returncode == 0, done.stdout[-3000:]
