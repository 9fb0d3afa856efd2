"""Helpers shared by the test files (imported as ``from helpers import ...``).

pyproject's ``[tool.pytest.ini_options] pythonpath`` puts ``tests/`` on ``sys.path``,
so a test file in any subfolder imports this module the same way. The ``lib`` and
``torch`` fixtures are in ``tests/conftest.py``.

Parity helpers (the autograd tests): ``lib``-parametrized tests pin the text
measured in PyTorch 2.13 with ``raises`` and ``spell``; ``same(scenario)`` runs one
scenario written against ``lib`` with both libraries and compares the outcomes
(``torch`` spelled ``gradtrack``).
"""

import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import gradtrack

# ---- parity helpers -------------------------------------------------------------------------

TRIGGERED = re.compile(r" ?\(Triggered internally at [^)]*\)\.?")


def spell(text, lib):
    """The reference text (written with ``torch``) as ``lib`` must say it."""
    return text.replace("torch", lib.__name__)


def is_tensor(v):
    return hasattr(v, "grad_fn") and hasattr(v, "dtype") and hasattr(v, "_version")


def round4(v):
    """``v`` (a float or a nested list of them) rounded to 4 decimals."""
    if isinstance(v, list):
        return [round4(i) for i in v]
    if isinstance(v, float):
        return round(v, 4)
    return v


def summary(v):
    """A plain-Python picture of a result, comparable between torch and gradtrack."""
    if isinstance(v, (list, tuple)):
        return [summary(i) for i in v]
    if isinstance(v, dict):
        return {k: summary(i) for k, i in v.items()}
    if is_tensor(v):
        try:
            fn = v.grad_fn
            name = None if fn is None else type(fn).__name__
        except RuntimeError:
            name = "<Invalid>"
        return ("tensor", str(v.dtype).split(".")[-1], list(v.shape), round4(v.detach().tolist()),
                v.requires_grad, name)
    if isinstance(v, str):
        return TRIGGERED.sub("", v).replace("torch", "gradtrack")
    if isinstance(v, float):
        return round(v, 4)
    return v


def outcome(lib, scenario):
    try:
        return ("ok", summary(scenario(lib)))
    except Exception as e:  # the error is the observable result
        return (type(e).__name__, summary(str(e)))


def same(scenario):
    """Runs ``scenario(lib)`` with torch and gradtrack; the outcomes must match."""
    torch = pytest.importorskip("torch")
    expected = outcome(torch, scenario)
    got = outcome(gradtrack, scenario)
    # (helpers is not rewritten by pytest: the message says what differed)
    assert got == expected, f"gradtrack: {got!r}\ntorch:     {expected!r}"


def raises(lib, exc, text, fn):
    """``fn()`` raises ``exc`` with the reference ``text`` as ``lib`` spells it."""
    with pytest.raises(exc) as info:
        fn()
    assert TRIGGERED.sub("", str(info.value)) == spell(text, lib)


# ---- autograd graph nodes -------------------------------------------------------------------

def name(node):
    """A grad_fn's class name (None for None)."""
    return None if node is None else type(node).__name__


def nexts(node):
    return [(name(n), i) for n, i in node.next_functions]


# ---- tensors and errors ---------------------------------------------------------------------

def to_np(t):
    return t.detach().numpy()


def float32_ulps(got, ref):
    """|got - ref| in units of the float32 spacing at ref (ref in float64)."""
    e = np.frexp(ref)[1]
    spacing = np.ldexp(1.0, np.maximum(e - 24, -149))
    return np.abs(np.asarray(got, dtype=np.float64) - ref) / spacing


def float32_bits(a):
    """The bits of float32 values, to compare signed zeros and NaNs exactly."""
    return np.asarray(a, dtype=np.float32).view(np.uint32)


def error_of(fn):
    """(exception type name, message) of what ``fn()`` raises."""
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value).__name__, str(info.value)


def both_errors(call, torch):
    """(gradtrack's message, torch's) for ``call(lib)``, which must raise in both, and
    raise the same exception type."""
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(Exception) as mine:
        call(gradtrack)
    assert type(mine.value) is type(theirs.value)
    return str(mine.value), str(theirs.value)


def raised(fn, lib):
    """(exception type name, message with ``lib``'s name as LIB) of what ``fn()`` raises;
    None when it returns."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type and text are what is compared
        return type(e).__name__, str(e).replace(lib.__name__, "LIB")
    return None


def torch_to_gradtrack(message):
    """torch's message as gradtrack spells it ('PyTorch' stays)."""
    return re.sub(r"(?<![A-Za-z])torch", "gradtrack", message)


def gradtrack_to_torch(text):
    """gradtrack's text with every "gradtrack" spelled "torch"."""
    return text.replace("gradtrack", "torch")


def env_for_rss_child():
    """The environment for a child process whose RSS growth a test measures.

    Under AddressSanitizer (README, "Sanitizers") freed blocks wait in a quarantine of
    up to 256 MB before reuse, which is RSS growth by design; with it off the process's
    own growth is measured again.
    """
    env = dict(os.environ)
    if "libasan" in env.get("LD_PRELOAD", ""):
        env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":quarantine_size_mb=0"
    return env



def kernel_paths(get, put, fast, other):
    """A fixture that runs its test on each path behind one of _bench's kernel switches:
    `fast` (switch on) where this CPU has that path, and `other` (switch off) always; the
    switch is set back after each test."""

    @pytest.fixture(params=[fast, other] if get() else [other])
    def path(request):
        saved = get()
        put(request.param == fast)
        assert get() == (request.param == fast)
        yield request.param
        put(saved)

    return path


def run_as_script_in_both(source, tmp_path):
    """``source`` (torch code) run as a script in fresh interpreters, with torch and with
    ``python -m gradtrack.as_torch``: [(stdout, stderr)] for torch then gradtrack, with
    gradtrack's stdout names read as torch's."""
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent(source))
    env = dict(os.environ, OMP_NUM_THREADS="1")
    runs = []
    for prefix in ([], ["-m", "gradtrack.as_torch"]):
        done = subprocess.run([sys.executable, *prefix, str(script)], capture_output=True,
                              text=True, timeout=100, env=env, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        runs.append((done.stdout.replace("gradtrack", "torch"), done.stderr))
    return runs
