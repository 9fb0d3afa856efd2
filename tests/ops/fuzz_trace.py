"""A program, its trace on one library, and the first difference between two traces.

The differential fuzzers (fuzz_programs.py, fuzz_op_table.py) and the regression programs
of test_fuzz_differential.py / test_fuzz_op_table.py are built on this module.

A *program* is a tuple of Python statements over a few tensors named ``t0``,
``t1``, ... and the library module ``lib``; it reads like the repro a user
would paste into an issue::

    t0 = lib.tensor([[0.5, -1.0, 2.0]], dtype=lib.float64, requires_grad=True)
    t1 = t0 * t0
    t2 = t1[0]
    t2.mul_(2)
    with lib.no_grad():
        t1.add_(1.5)
    t1.register_hook(lambda g: g * 2)
    t1.sum().backward(retain_graph=True)

``run(program, lib)`` executes the statements one at a time (``exec`` in one
namespace, so the printed program *is* the program) and records after each one
a ``StepRecord``: the exception raised (builtin type + message with ``torch``
spelled ``gradtrack``), the warnings emitted, and for every live ``tN``: dtype,
shape, values, ``_version``, ``requires_grad``, ``is_leaf``, ``_is_view()``,
``retains_grad``, ``type(grad_fn).__name__`` with the names of its
``next_functions``, and ``.grad`` (values, dtype, shape, requires_grad, grad_fn).
Values compare with np.allclose-style tolerance per dtype (NaN equal to NaN, infinities
exact); an error ends the program and both libraries must raise the same.
``first_difference(a, b)`` compares two traces and describes the first mismatch;
``minimize`` deletes statements while a mismatch remains, so a counterexample is a
handful of lines.
"""

import ast
import math
import re
import warnings
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

# ---------------------------------------------------------------------------------------------
# The program and its interpreter
# ---------------------------------------------------------------------------------------------

# Warnings torch gives once per process (TORCH_WARN_ONCE), as gradtrack does: which program
# of a run sees one depends on which ran first, so they are not compared.
ONCE_PER_PROCESS = ("is deprecated and it is just left for JIT compatibility",
                    "is in beta and the API may change at any time")
_TRIGGERED = re.compile(r" ?\(Triggered internally at [^)]*\)\.?")
_NAME = re.compile(r"t(\d+)$")


def spell(text):
    """torch's spelling of a message as gradtrack must say it."""
    text = _TRIGGERED.sub("", text)
    text = text.replace("torch::autograd::", "gradtrack::autograd::")
    return re.sub(r"(?<![A-Za-z])torch(?![A-Za-z])", "gradtrack", text)


def nested_list_source(values, shape, fmt=repr):
    """Python source of a nested list of ``shape`` holding the flat ``values`` in order,
    each written by ``fmt`` (as a program's ``lib.tensor(...)`` states its data)."""
    if not shape:
        return fmt(values[0])
    n = math.prod(shape[1:])
    return "[" + ", ".join(nested_list_source(values[i * n:(i + 1) * n], shape[1:], fmt)
                           for i in range(shape[0])) + "]"


@dataclass(frozen=True, eq=False)
class Program:
    """A tuple of statements; ``repr`` is the program itself, one statement a line."""

    steps: tuple
    torch_trace: Optional[list] = field(default=None, compare=False)

    @classmethod
    def parse(cls, source):
        """A program from Python source: each top-level statement is one step."""
        import textwrap
        source = textwrap.dedent(source).strip("\n")
        tree = ast.parse(source)
        return cls(tuple(ast.get_source_segment(source, node) for node in tree.body))

    def source(self):
        return "\n".join(self.steps)

    def __repr__(self):
        body = "\n".join("    " + line for step in self.steps for line in step.splitlines())
        return f"Program.parse('''\n{body}\n''')"

    def without(self, i):
        return Program(self.steps[:i] + self.steps[i + 1:])


@dataclass
class StepRecord:
    error: Optional[tuple]      # (builtin exception type name, message spelled for gradtrack)
    warnings: tuple             # ((category name, message), ...)
    state: dict                 # name -> tensor record (dict) or None


def _builtin_type(exc):
    return next(c for c in type(exc).__mro__ if c.__module__ == "builtins").__name__


def _values(t):
    if getattr(t, "_is_zerotensor", lambda: False)():
        # torch's ZeroTensor (some double-backward formulas return one) refuses numpy()
        return np.zeros(tuple(t.shape), dtype=str(t.dtype).split(".")[-1])
    return np.array(t.detach().numpy(), copy=True)


def _node_name(fn):
    return None if fn is None else type(fn).__name__


def _grad_fn(t):
    """(name, names of next_functions) of ``t.grad_fn``; reading it may raise."""
    try:
        fn = t.grad_fn
    except Exception as exc:  # noqa: BLE001 - an invalid grad_fn is an observable
        return ("<raised>", _builtin_type(exc), spell(str(exc)))
    if fn is None:
        return None
    return (_node_name(fn), tuple((_node_name(n), nr) for n, nr in fn.next_functions))


def _read(fn):
    """fn() or, if reading raises (e.g. is_leaf of an invalidated no-grad view), the error."""
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - the error is what is observed
        return ("<raised>", _builtin_type(exc), spell(str(exc)))


def tensor_record(t, gaps=frozenset()):
    """Everything observable about one tensor that the comparison looks at."""
    if t is None:
        return None
    rec = {
        "dtype": str(t.dtype).split(".")[-1],
        "shape": tuple(t.shape),
        "values": _values(t),
        "_version": _read(lambda: t._version),
        "requires_grad": _read(lambda: t.requires_grad),
        "is_leaf": _read(lambda: t.is_leaf),
        "is_view": _read(t._is_view),
        "retains_grad": _read(lambda: t.retains_grad),
        "grad_fn": _grad_fn(t),
    }
    if "grad_fn_edges" in gaps and isinstance(rec["grad_fn"], tuple) and \
            rec["grad_fn"][0] != "<raised>":
        # The op-table fuzzer's mask: a composite op's node names are compared, not which
        # internal nodes torch's decomposition puts behind them (gradients are compared).
        rec["grad_fn"] = rec["grad_fn"][0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # .grad of a non-leaf warns; that is not this step's
        g = _read(lambda: t.grad)
    if isinstance(g, tuple):
        rec["grad"] = g
    elif g is None:
        rec["grad"] = None
    else:
        rec["grad"] = {"dtype": str(g.dtype).split(".")[-1], "shape": tuple(g.shape),
                       "values": _values(g), "requires_grad": g.requires_grad,
                       "grad_fn": _node_name(g.grad_fn)}
    return rec


def live_names(ns):
    names = [k for k in ns if _NAME.match(k)]
    return sorted(names, key=lambda k: int(k[1:]))


class Runner:
    """Runs statements one at a time in a namespace holding ``lib``.

    ``gaps``: the KNOWN_GAPS whose observables are left out of the record (the fuzz loop
    passes KNOWN_GAPS; hand-written regression programs pass nothing and see all).
    """

    def __init__(self, lib, record=True, gaps=frozenset()):
        self.lib = lib
        self.gaps = frozenset(gaps)
        self.ns = {"lib": lib}
        self.records = []
        self.record = record
        self.failed = False

    def run(self, stmt):
        error = None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                exec(compile(stmt, "<program>", "exec"), self.ns)  # noqa: S102 - the program
            except Exception as exc:  # noqa: BLE001 - the error is the observable result
                error = (_builtin_type(exc), spell(str(exc)))
        warned = tuple((w.category.__name__, spell(str(w.message))) for w in caught
                       if not any(once in str(w.message) for once in ONCE_PER_PROCESS))
        state = {}
        if self.record:
            for name in live_names(self.ns):
                state[name] = tensor_record(self.ns[name], self.gaps)
        rec = StepRecord(error, warned, state)
        self.records.append(rec)
        self.failed = error is not None
        return rec


def run(program, lib, record=True, gaps=frozenset()):
    """The trace of ``program`` on ``lib``: one StepRecord per executed statement."""
    runner = Runner(lib, record, gaps)
    for stmt in program.steps:
        runner.run(stmt)
        if runner.failed:
            break
    return runner.records


# ---- comparison -----------------------------------------------------------------------------

TOL = {"float32": (1e-4, 1e-5), "float64": (1e-9, 1e-12)}

# The message of torch's error for a view whose base was written after the view's history
# was made (KNOWN_GAPS op_checks_before_view_history).
_VIEW_HISTORY_ERRORS = ("its base or another view of its base has been modified inplace",)


def _close(a, b, dtype, strict64=True):
    if a.shape != b.shape:
        return False
    if dtype not in TOL:
        return np.array_equal(a, b)
    # float64 values that came from float32 (or integer) arithmetic carry float32 rounding.
    rtol, atol = TOL[dtype if strict64 else "float32"]
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    if not np.array_equal(np.isnan(a64), np.isnan(b64)):
        return False
    fin = np.isfinite(a64) & np.isfinite(b64)
    if not np.array_equal(a64[~fin & ~np.isnan(a64)], b64[~fin & ~np.isnan(b64)]):
        return False
    # Sums over a few elements may round differently; scale atol by the magnitude of the
    # operands that fed them, approximated by the largest finite value in the tensor.
    scale = max(1.0, float(np.max(np.abs(a64[fin]))) if fin.any() else 1.0)
    return bool(np.allclose(a64[fin], b64[fin], rtol=rtol, atol=atol * scale))


def _fmt(v):
    if isinstance(v, np.ndarray):
        return np.array2string(v, precision=6, separator=", ")
    return repr(v)


def _diff_tensor(path, a, b, strict64=True):
    if (a is None) != (b is None):
        return f"{path}: torch {a if a is None else 'tensor'} vs gradtrack {b if b is None else 'tensor'}"
    if a is None:
        return None
    for key in a:
        x, y = a[key], b.get(key)
        if key == "grad" and isinstance(x, dict) and isinstance(y, dict):
            d = _diff_tensor(path + ".grad", x, y, strict64)
            if d:
                return d
            continue
        if key == "values":
            continue
        if x != y:
            return f"{path}.{key}: torch {_fmt(x)} vs gradtrack {_fmt(y)}"
    if not _close(a["values"], b["values"], a["dtype"], strict64):
        return f"{path} values: torch {_fmt(a['values'])} vs gradtrack {_fmt(b['values'])}"
    return None


def first_difference(expected, actual, program=None):
    """A description of the first place the gradtrack trace leaves torch's, or None."""
    strict64 = all(rec is None or rec["dtype"] == "float64"
                   for step in expected for rec in step.state.values())
    for i, (e, a) in enumerate(zip(expected, actual)):
        where = f"step {i}"
        if program is not None:
            where += ": " + program.steps[i].replace("\n", " ")
        if e.error != a.error:
            return f"{where}\n  error: torch {e.error!r}\n     vs gradtrack {a.error!r}"
        if e.warnings != a.warnings:
            return f"{where}\n  warnings: torch {e.warnings!r}\n        vs gradtrack {a.warnings!r}"
        if list(e.state) != list(a.state):
            return f"{where}\n  names: torch {list(e.state)} vs gradtrack {list(a.state)}"
        for name in e.state:
            d = _diff_tensor(name, e.state[name], a.state[name], strict64)
            if d:
                return f"{where}\n  {d}"
    if len(expected) != len(actual):
        return f"torch ran {len(expected)} steps, gradtrack {len(actual)}"
    return None


def oracle_steps(expected):
    """How many steps of a torch trace are an oracle: all, or those before a step where
    torch failed its own internal assert (a torch bug, not behaviour to copy), in the
    statement or while its state was read (e.g. ``is_leaf`` of a tensor in a broken graph)."""
    for i, step in enumerate(expected):
        if step.error and "INTERNAL ASSERT FAILED" in step.error[1]:
            return i
        if _asserted(step.state):
            return i
    return len(expected)


def _view_history_step(expected, actual):
    """The first step where torch raised a stale view's history error and gradtrack raised
    another error (KNOWN_GAPS op_checks_before_view_history), or the trace length."""
    for i, (e, a) in enumerate(zip(expected, actual)):
        if e.error and a.error and e.error != a.error and \
                any(text in e.error[1] for text in _VIEW_HISTORY_ERRORS):
            return i
    return len(expected)


def _not_implemented_step(expected, actual):
    """The first step where torch refused a derivative it does not implement (e.g. double
    backward of cdist, or of hardsigmoid: its backward op has no formula) and gradtrack
    computed it, or the trace length: torch is no oracle there (gradtrack's higher
    derivatives are checked by gradgradcheck in tests/ops)."""
    for i, (e, a) in enumerate(zip(expected, actual)):
        if e.error and a.error is None and (
                (e.error[0] == "NotImplementedError"
                 and re.match(r"the derivative for '[\w.]+' is not implemented", e.error[1]))
                or (e.error[0] == "RuntimeError"
                    and re.match(r"derivative for aten::\w+_backward is not implemented",
                                 e.error[1]))):
            return i
    return len(expected)


def _asserted(record):
    """True if reading a recorded value raised torch's INTERNAL ASSERT."""
    if isinstance(record, dict):
        return any(_asserted(v) for v in record.values())
    if isinstance(record, tuple) and record:
        if record[0] == "<raised>":
            return "INTERNAL ASSERT FAILED" in record[2]
        return any(_asserted(v) for v in record)
    return False


def difference(program, torch, gradtrack, gaps=frozenset()):
    """The first difference between the torch and gradtrack traces of ``program``."""
    expected = program.torch_trace
    if expected is None:
        expected = run(program, torch, gaps=gaps)
    actual = run(program, gradtrack, gaps=gaps)
    n = oracle_steps(expected)
    if "torch_derivative_not_implemented" in gaps:
        n = min(n, _not_implemented_step(expected, actual))
    if "op_checks_before_view_history" in gaps:
        n = min(n, _view_history_step(expected, actual))
    if n < len(expected):
        expected, actual = expected[:n], actual[:n]
    return first_difference(expected, actual, program)


def minimize(program, torch, gradtrack, gaps=frozenset()):
    """Deletes statements (last first) while torch and gradtrack still disagree."""
    changed = True
    while changed:
        changed = False
        for i in reversed(range(len(program.steps))):
            candidate = program.without(i)
            if candidate.steps and difference(candidate, torch, gradtrack, gaps):
                program = candidate
                changed = True
    return program


def assert_same(program, torch, gradtrack, shrink=True):
    """Fails with the (minimized) program and its first difference."""
    if isinstance(program, str):
        program = Program.parse(program)
    d = difference(program, torch, gradtrack)
    if d is None:
        return
    if shrink:
        small = minimize(Program(program.steps), torch, gradtrack)
        d = difference(small, torch, gradtrack)
        program = small
    raise AssertionError(f"gradtrack differs from torch\n--- program ---\n{program.source()}\n"
                         f"--- first difference ---\n{d}")
