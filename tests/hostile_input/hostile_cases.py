"""The machinery of the hostile-input cases (tests/hostile_input/test_*.py).

Each case is a few lines of source that use ``lib`` (torch or gradtrack) and ``np`` and
leave their result in ``out``. torch runs them in the test process (it is the oracle);
gradtrack runs all the cases of a test file in ONE child process (its
``gradtrack_outcomes`` fixture, ``run_gradtrack_cases`` here), so a segfault or an abort
is recorded as the outcome ``("DIED", <signal>)`` of that case, the child is restarted
after it, and the session survives. The outcomes compared are ``("ok", summary(out))``
or ``(exception type, message)`` with ``torch`` spelled ``gradtrack``.

Modes: ``exact`` (default) compares everything; ``type`` compares only the builtin
exception type (the messages are compared, all together, by
``test_argument_error_messages_match`` in test_arguments.py, the file of every ``type``
case); ``own`` compares the type only, the text being gradtrack's own by design (CPU
only, no float16/int8/complex dtypes) or torch's being build-specific; ``alloc``
compares the type and the message without torch's build-specific ``[enforce fail at
alloc_cpu.cpp:NNN] err == 0.`` prefix.

A test file makes its ``CASES`` and ``case`` with ``case_table()``, lists its cases with
``case(name, source, mode)``, and its ``test_hostile_case`` checks each with
``check_case(torch, CASES[name], gradtrack_outcomes[name])``; the ``gradtrack_outcomes``
fixture (tests/hostile_input/conftest.py) runs the file's ``CASES`` in the child.
"""

import inspect
import json
import math
import re
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

# ---- outcome of one case (this source also runs in the gradtrack child) ---------------------

def summary(v):
    """A JSON-able picture of a result; floats by repr so that nan/inf/-0.0 compare."""
    if hasattr(v, "dtype") and hasattr(v, "shape") and hasattr(v, "tolist"):
        if not isinstance(v, np.ndarray) and type(v).__module__.split(".")[0] == "numpy":
            return summary(v.item())
        return ["tensor", str(v.dtype).split(".")[-1], list(v.shape), summary(v.tolist())]
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, (list, tuple)):
        return [summary(i) for i in v]
    if isinstance(v, (bool, int, type(None))):
        return v
    if isinstance(v, str):
        return re.sub(r"(?<![A-Za-z])torch(?![A-Za-z])", "gradtrack", v)
    if type(v).__name__ == "dtype":
        return str(v).split(".")[-1]
    return "<" + type(v).__name__ + ">"


def outcome(source, lib):
    """("ok", summary(out)) or (builtin exception type, message spelled for gradtrack)."""
    ns = {"lib": lib, "np": np, "math": math}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            exec(textwrap.dedent(source), ns)  # noqa: S102 - the case's own source
            return ["ok", summary(ns.get("out"))]
        except BaseException as exc:  # noqa: BLE001 - KeyboardInterrupt is an outcome too
            kind = next(c for c in type(exc).__mro__ if c.__module__ == "builtins").__name__
            msg = re.sub(r" ?\(Triggered internally at [^)]*\)\.?", "", str(exc))
            return [kind, re.sub(r"(?<![A-Za-z])torch(?![A-Za-z])", "gradtrack", msg)]


_CHILD = """
import json, math, os, re, resource, sys, textwrap, warnings
# A case that eats memory fails here with MemoryError instead of taking the machine.
# (Not under AddressSanitizer: its shadow memory needs the address space, and its
# allocator refuses absurd sizes itself.)
if "libasan" not in os.environ.get("LD_PRELOAD", ""):
    resource.setrlimit(resource.RLIMIT_AS, (3 << 29, resource.getrlimit(resource.RLIMIT_AS)[1]))
import numpy as np
import gradtrack
{summary}
{outcome}
cases = json.loads(sys.stdin.read())
for name, source in cases:
    print("START " + name, flush=True)
    print("RESULT " + json.dumps([name, outcome(source, gradtrack)]), flush=True)
"""


def run_gradtrack_cases(cases, timeout=600):
    """{name: outcome} of each (name, source) run by gradtrack in child processes; a case
    that kills its child gets ("DIED", returncode) and the next child starts after it."""
    child = _CHILD.format(summary=inspect.getsource(summary), outcome=inspect.getsource(outcome))
    results, pending = {}, list(cases)
    while pending:
        proc = subprocess.run([sys.executable, "-c", child], input=json.dumps(pending),
                              capture_output=True, text=True, timeout=timeout)
        started = None
        for line in proc.stdout.splitlines():
            if line.startswith("START "):
                started = line[6:]
            elif line.startswith("RESULT "):
                name, result = json.loads(line[7:])
                results[name] = result
        done = [c for c in pending if c[0] in results]
        if proc.returncode != 0 and started is not None and started not in results:
            results[started] = ["DIED", proc.returncode, proc.stderr[-500:]]
        elif proc.returncode != 0:
            raise RuntimeError(f"gradtrack child failed before any case: {proc.stderr[-2000:]}")
        names = [c[0] for c in pending]
        pending = pending[names.index(started) + 1:] if started in names else []
        pending = [c for c in pending if c[0] not in results]
        assert done or pending != cases, "no progress"
    return results


# Refused in-place ops must leave the tensor as it was: `refused(x, fn)` gives the exception
# type, the values and the version change.
REFUSED = """
def refused(x, fn):
    v, before = x._version, x.tolist()
    try:
        fn()
        return ("no error", x.tolist(), x._version - v)
    except Exception as e:
        return (type(e).__name__, x.tolist() == before, x._version - v)
"""


# ---- comparing outcomes --------------------------------------------------------------------

_ENFORCE = re.compile(r"^\[enforce fail at [^\]]*\] [^.]*\. ")


def _as_float(v):
    try:
        return float(v) if isinstance(v, str) else None
    except ValueError:
        return None


def _close(a, b):
    """Equal summaries, with float reprs compared to 1e-5 relative / 1e-6 absolute
    (float32 kernels may round differently) and NaN equal to NaN."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    fa, fb = _as_float(a), _as_float(b)
    if fa is not None and fb is not None:
        return (math.isnan(fa) and math.isnan(fb)) or fa == fb or \
            math.isclose(fa, fb, rel_tol=1e-5, abs_tol=1e-6)
    return a == b


def _compare(expected, actual, mode):
    if actual[0] == "DIED":
        pytest.fail(f"gradtrack crashed (exit code {actual[1]}); torch gave {expected!r}\n"
                    f"{actual[2]}")
    if mode in ("type", "own") and expected[0] != "ok":
        assert actual[0] == expected[0], \
            f"\n    torch {str(expected)[:400]}\ngradtrack {str(actual)[:400]}"
        return
    if mode == "alloc":
        assert expected[0] in ("RuntimeError", "MemoryError"), expected
        expected = [expected[0], _ENFORCE.sub("", expected[1])]
    assert _close(actual, expected), \
        f"\n    torch {str(expected)[:400]}\ngradtrack {str(actual)[:400]}"


# ---- a test file's cases and their check -----------------------------------------------------

def case_table():
    """A test file's ``CASES`` (name -> (source, mode)) and ``case(name, source,
    mode="exact")``, which adds one under a name not yet taken."""
    cases = {}

    def case(name, source, mode="exact"):
        assert name not in cases, name
        cases[name] = (source, mode)

    return cases, case


def check_case(torch, source_and_mode, actual):
    """torch's outcome of a case (never a crash) compared, in the case's mode, with
    gradtrack's ``actual`` one."""
    source, mode = source_and_mode
    expected = outcome(source, torch)
    assert expected[0] != "DIED"
    _compare(expected, actual, mode)
