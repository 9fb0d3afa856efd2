"""Random autograd programs, run on torch and gradtrack, compared after every step.

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

``programs()`` is the hypothesis strategy. It *builds* a program statement by
statement while running it on torch (the oracle) so that every choice fits the
current state: shapes broadcast, matmul dims agree, view targets have the right
numel, in-place operands broadcast to the target, backward starts from a tensor
that requires grad. The torch trace made while building is kept on the program,
so a fuzz example runs torch once and gradtrack once.

Documented differences between gradtrack and torch are never generated: no
float16/bfloat16/complex dtypes (gradtrack has float32/float64 and a few integer
types; programs use float32, float64 and int64), no inference_mode (gradtrack's is
no_grad), no devices. Strides are not recorded; their observable effects are
(``.view`` errors, ``.reshape``/``.contiguous`` copying or not, ``_is_view()``).

``KNOWN_GAPS`` lists the differences the fuzzer found that are gradtrack bugs: each has
failing regression programs in tests/ops/test_fuzz_differential.py, and while its name is
listed the generator steers around it (or the record leaves that observable out), so
that the fuzz slice keeps finding *new* differences. Remove a name once it is fixed.

Run the loop alone: ``PYTHONPATH=python python tests/ops/fuzz_programs.py --examples 5000
[--seed N]`` (prints each distinct difference, minimized, and counts).
"""

import ast
import math
import re
import warnings
from dataclasses import dataclass, field
from typing import Optional

import numpy as np
from hypothesis import strategies as st

from gradtrack import _C

# ---------------------------------------------------------------------------------------------
# The program and its interpreter
# ---------------------------------------------------------------------------------------------

_TRIGGERED = re.compile(r" ?\(Triggered internally at [^)]*\)\.?")
_NAME = re.compile(r"t(\d+)$")


def spell(text):
    """torch's spelling of a message as gradtrack must say it."""
    text = _TRIGGERED.sub("", text)
    text = text.replace("torch::autograd::", "gradtrack::autograd::")
    return re.sub(r"(?<![A-Za-z])torch(?![A-Za-z])", "gradtrack", text)


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
        warned = tuple((w.category.__name__, spell(str(w.message))) for w in caught)
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
    backward of cdist) and gradtrack computed it, or the trace length: torch is no oracle
    there (gradtrack's higher derivatives are checked by gradgradcheck in tests/ops)."""
    for i, (e, a) in enumerate(zip(expected, actual)):
        if e.error and e.error[0] == "NotImplementedError" and a.error is None and \
                re.match(r"the derivative for '[\w.]+' is not implemented", e.error[1]):
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


# ---------------------------------------------------------------------------------------------
# The generator
# ---------------------------------------------------------------------------------------------

SHAPES = ((3,), (2, 3), (), (1, 3), (3, 1), (2, 1, 3), (1,), (4,), (2, 2), (3, 2), (0,), (2, 0))
SCALARS = ("2", "0.5", "-1.5", "0", "3.0", "-1", "1")
VALUE = st.integers(-12, 12).map(lambda k: k / 4)      # exact in binary, prints short
INT_VALUE = st.integers(-3, 3)
HOOKS = ("lambda g: g * 2", "lambda g: g + 1", "lambda g: None", "lambda g: -g",
         "lambda g: g.clone()")

# KNOWN_GAPS: behaviours where gradtrack is known to differ from torch. Each has a failing
# regression test in tests/ops/test_fuzz_differential.py; the generator steers around it (so the
# fuzz test keeps finding *other* differences) only while the name is listed here. Remove a
# name once the lead has fixed the gap.
KNOWN_GAPS = {
    # An integer tensor made to require grad by an indexed write of a tensor that requires
    # grad (t[mask] = t0, IndexPutBackward0 in both): torch then refuses every
    # differentiable op on it ("Autograd not support dtype: Long"), gradtrack records them.
    # Steer: no values that require grad written into integer tensors.
    "int_tensor_requires_grad",
    # An out-of-place op on a view whose history is stale (a multi-output or no-grad view
    # whose base was written) that also fails its own check (`.max()` of an empty tensor):
    # torch reads the view's history first and raises the view error; gradtrack checks the
    # op's arguments first and raises the op's error. In-place ops read histories first.
    # Mask: such a step (both raise, torch's error is the view error) ends the comparison.
    "op_checks_before_view_history",
}

_VIEW_HISTORY_ERRORS = ("its base or another view of its base has been modified inplace",)


def _fmt_value(v):
    return repr(float(v)) if isinstance(v, float) else repr(v)


def _nested(values, shape):
    if not shape:
        return _fmt_value(values[0])
    n = math.prod(shape[1:])
    return "[" + ", ".join(_nested(values[i * n:(i + 1) * n], shape[1:])
                           for i in range(shape[0])) + "]"


class State:
    """The torch namespace while a program is being built: what each name holds."""

    def __init__(self, runner):
        self.ns = runner.ns
        self.counter = 0

    def new_name(self):
        while f"t{self.counter}" in self.ns:
            self.counter += 1
        name = f"t{self.counter}"
        self.counter += 1
        return name

    def names(self, pred=lambda t: True):
        """Live names whose torch value satisfies pred (a pred that raises means no)."""
        out = []
        for n in live_names(self.ns):
            t = self.ns[n]
            try:
                ok = t is not None and pred(t)
            except Exception:  # noqa: BLE001 - e.g. is_leaf of an invalidated no-grad view
                ok = False
            if ok:
                out.append(n)
        return out

    def eval(self, expr):
        """The torch value of ``expr`` (a view expression), or None if it raises."""
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return eval(expr, dict(self.ns))  # noqa: S307 - our own generated expression
        except Exception:  # noqa: BLE001
            return None


def _is_float(t):
    return t.dtype.is_floating_point


def _rg(t):
    return t.requires_grad


def _leaf_guarded(t):
    """True if an in-place write to t in grad mode raises the (view of a) leaf error."""
    if t.is_leaf and t.requires_grad:
        return True
    base = t._base
    return base is not None and base.is_leaf and base.requires_grad


def _broadcast(a, b):
    try:
        return tuple(np.broadcast_shapes(tuple(a), tuple(b)))
    except ValueError:
        return None


def _matmul_ok(a, b):
    a, b = tuple(a), tuple(b)
    if not a or not b:
        return False
    if len(a) == 1 and len(b) == 1:
        return a == b
    if len(b) == 1:
        return a[-1] == b[0]
    if len(a) == 1:
        return len(b) <= 2 and a[0] == b[-2]
    if a[-1] != b[-2]:
        return False
    return _broadcast(a[:-2], b[:-2]) is not None


def _maybe_no_grad(draw, code, weight=4):
    """Wraps a statement in ``with lib.no_grad():`` one time in ``weight``."""
    if draw(st.integers(0, weight - 1)) == 0:
        return "with lib.no_grad():\n    " + code
    return code


# ---- one generator per kind of statement; each returns the statement or None (infeasible) ----

def gen_leaf(draw, s):
    shape = draw(st.sampled_from(SHAPES))
    n = math.prod(shape)
    kind = draw(st.sampled_from(("float32", "float64", "float32", "int64")))
    name = s.new_name()
    if kind == "int64":
        values = draw(st.lists(INT_VALUE, min_size=n, max_size=n))
        rg = ""
    else:
        values = draw(st.lists(VALUE, min_size=n, max_size=n))
        rg = ", requires_grad=True" if draw(st.integers(0, 2)) > 0 else ""
    dtype = "" if kind == "float32" else f", dtype=lib.{kind}"
    if n == 0:
        args = ", ".join(map(str, shape))
        return f"{name} = lib.zeros({args}{dtype}{rg})"
    return f"{name} = lib.tensor({_nested(values, shape)}{dtype}{rg})"


BINARY = ("+", "-", "*", "/", "**")


def gen_binary(draw, s):
    names = s.names()
    a = draw(st.sampled_from(names))
    sa = s.ns[a].shape
    partners = [n for n in names if _broadcast(sa, s.ns[n].shape) is not None]
    op = draw(st.sampled_from(BINARY))
    form = draw(st.integers(0, 5))
    name = s.new_name()
    if form <= 2:
        b = draw(st.sampled_from(partners))
        code = f"{name} = {a} {op} {b}"
    elif form == 3:
        code = f"{name} = {a} {op} {draw(st.sampled_from(SCALARS))}"
    elif form == 4:
        code = f"{name} = {draw(st.sampled_from(SCALARS))} {op} {a}"
    else:
        b = draw(st.sampled_from(partners))
        fn = draw(st.sampled_from(("add", "sub", "mul", "div")))
        alpha = ", alpha=2" if fn in ("add", "sub") and draw(st.booleans()) else ""
        code = f"{name} = lib.{fn}({a}, {b}{alpha})"
    return _maybe_no_grad(draw, code, 6)


UNARY = ("exp()", "LOG", "sigmoid()", "tanh()", "relu()", "neg()", "abs()", "sin()",
         "clamp(-1, 1)", "SQRT", "square()")


def gen_unary(draw, s):
    a = draw(st.sampled_from(s.names()))
    op = draw(st.sampled_from(UNARY))
    name = s.new_name()
    if op == "LOG":
        code = f"{name} = ({a}.abs() + 1).log()"
    elif op == "SQRT":
        code = f"{name} = {a}.abs().sqrt()"
    elif draw(st.integers(0, 3)) == 0 and op.endswith("()") and op != "square()":
        code = f"{name} = lib.{op[:-2]}({a})"
    else:
        code = f"{name} = {a}.{op}"
    return _maybe_no_grad(draw, code, 6)


def gen_reduce(draw, s):
    a = draw(st.sampled_from(s.names()))
    t = s.ns[a]
    fn = draw(st.sampled_from(("sum", "mean", "sum", "max", "prod")))
    name = s.new_name()
    if t.dim() == 0 or fn in ("max", "prod") or draw(st.integers(0, 2)) == 0:
        return f"{name} = {a}.{fn}()"
    d = draw(st.integers(-t.dim(), t.dim() - 1))
    keep = ", keepdim=True" if draw(st.booleans()) else ""
    if t.dim() >= 2 and draw(st.integers(0, 3)) == 0:
        return f"{name} = {a}.{fn}(({d}, {(d + 1) % t.dim()}){keep})"
    return f"{name} = {a}.{fn}({d}{keep})"


def gen_matmul(draw, s):
    names = s.names()
    pairs = [(a, b) for a in names for b in names
             if _matmul_ok(s.ns[a].shape, s.ns[b].shape)]
    if not pairs:
        return None
    a, b = draw(st.sampled_from(pairs))
    name = s.new_name()
    form = draw(st.sampled_from((f"{a} @ {b}", f"lib.matmul({a}, {b})", f"{a}.matmul({b})")))
    return _maybe_no_grad(draw, f"{name} = {form}", 6)


def _view_shapes(shape):
    n = math.prod(shape)
    out = [(-1,), (n,), (1, n), (n, 1), (1, -1)]
    if n % 2 == 0 and n:
        out += [(2, -1), (-1, 2), (2, n // 2, 1)]
    if n == 1:
        out += ["()", ""]
    return out


def _index_exprs(a, shape):
    """Basic (view) indexing expressions of a tensor of ``shape``."""
    out = []
    if shape:
        s0 = shape[0]
        out += [f"{a}[{i}]" for i in range(-s0, s0)]
        out += [f"{a}[1:]", f"{a}[:1]", f"{a}[::2]", f"{a}[..., 0]" if shape[-1] else f"{a}[...]"]
    if len(shape) >= 2:
        out += [f"{a}[:, {i}]" for i in range(-shape[1], shape[1])] + [f"{a}[:, 1:]"]
    out += [f"{a}[None]", f"{a}[...]"]
    return out


def _view_exprs(draw, s, a):
    """Expressions that are views of name ``a`` (plus a few copies and detaches)."""
    t = s.ns[a]
    shape, nd = tuple(t.shape), t.dim()
    kind = draw(st.sampled_from(("index", "view", "reshape", "t", "transpose", "unsqueeze",
                                 "squeeze", "expand", "permute", "detach", "data", "adv",
                                 "copy")))
    if kind == "index":
        return draw(st.sampled_from(_index_exprs(a, shape)))
    if kind in ("view", "reshape"):
        target = draw(st.sampled_from(_view_shapes(shape)))
        if isinstance(target, str):
            return f"{a}.{kind}({target})"
        return f"{a}.{kind}({', '.join(map(str, target))})"
    if kind == "t":
        return f"{a}.t()" if nd <= 2 else f"{a}.transpose(0, -1)"
    if kind == "transpose":
        if nd == 0:
            return f"{a}.transpose(0, -1)"
        d0 = draw(st.integers(-nd, nd - 1))
        d1 = draw(st.integers(-nd, nd - 1))
        return f"{a}.transpose({d0}, {d1})"
    if kind == "unsqueeze":
        return f"{a}.unsqueeze({draw(st.integers(-nd - 1, nd))})"
    if kind == "squeeze":
        if nd == 0 or draw(st.booleans()):
            return f"{a}.squeeze()"
        return f"{a}.squeeze({draw(st.integers(-nd, nd - 1))})"
    if kind == "expand":
        sizes = [draw(st.sampled_from((1, 2, -1))) if d == 1 else
                 draw(st.sampled_from((d, -1))) for d in shape]
        if draw(st.booleans()) or not sizes:
            sizes = [2] + sizes
        return f"{a}.expand({', '.join(map(str, sizes))})"
    if kind == "permute":
        perm = draw(st.permutations(range(nd)))
        return f"{a}.permute({', '.join(map(str, perm))})"
    if kind == "detach":
        return f"{a}.detach()"
    if kind == "data":
        return f"{a}.data"
    if kind == "adv":
        if not shape or shape[0] == 0:
            return f"{a}[{a} > 0]"
        return draw(st.sampled_from((f"{a}[[0, -1]]", f"{a}[{a} > 0]",
                                     f"{a}[lib.tensor([0, 0])]")))
    return draw(st.sampled_from((f"{a}.clone()", f"{a}.contiguous()", f"{a}.double()",
                                 f"{a}.float()", f"{a}.to(lib.float64)")))


def gen_view(draw, s):
    a = draw(st.sampled_from(s.names()))
    expr = _view_exprs(draw, s, a)
    return _maybe_no_grad(draw, f"{s.new_name()} = {expr}", 6)


INPLACE_UNARY = ("zero_()", "exp_()", "relu_()", "sigmoid_()", "clamp_(-1, 1)", "neg_()",
                 "abs_()", "tanh_()")
INPLACE_BINARY = ("add_", "sub_", "mul_", "div_", "copy_", "fill_", "pow_")
# The op list's binary in-place variants (bitwise ones refuse the float targets drawn
# here) and the clamp forms with one bound; atan2_ and hypot_ take tensors only.
LIST_INPLACE_BINARY = tuple(
    f"{name}_" for name, (_, operands) in _C._inplace.ops.items()
    if operands and not name.startswith("bitwise")) + ("true_divide_", "clamp_min_", "clamp_max_")
TENSOR_ONLY = ("atan2_", "hypot_")
AUGMENTED = ("+=", "-=", "*=", "/=")


def _strip_leading_ones(shape):
    shape = tuple(shape)
    while shape and shape[0] == 1:
        shape = shape[1:]
    return shape


def _fitting(s, a, target_shape, setitem=False):
    """Names whose value may be written into ``a``'s target of ``target_shape``: it
    broadcasts *to* the target (for setitem after dropping leading size-1 dims, as torch
    does), minus the combinations listed in KNOWN_GAPS."""
    if target_shape is None:
        return []
    target_shape = tuple(target_shape)
    target = s.ns[a]
    out = []
    for n in s.names():
        shape = tuple(s.ns[n].shape)
        if _broadcast(shape, target_shape) != target_shape:
            if not setitem or _broadcast(_strip_leading_ones(shape), target_shape) != target_shape:
                continue
        if "int_tensor_requires_grad" in KNOWN_GAPS and s.ns[n].requires_grad and \
                not target.dtype.is_floating_point:
            continue
        out.append(n)
    return out


def _operand(draw, s, a, target_shape):
    """A scalar or a tensor name broadcastable *to* target_shape."""
    fits = _fitting(s, a, target_shape)
    if fits and draw(st.integers(0, 2)) > 0:
        return draw(st.sampled_from(fits))
    return draw(st.sampled_from(SCALARS))


def _inplace_target(draw, s):
    """(expression, torch value) of an in-place target, preferring writable ones."""
    names = s.names()
    # Writes to a leaf that requires grad (or a view of one) end the program with the leaf
    # error; keep them rare so that programs go on past the first in-place step.
    safe = s.names(lambda t: not _leaf_guarded(t) and _is_float(t))
    pool = safe if safe and draw(st.integers(0, 7)) > 0 else names
    if not pool:
        return None, None
    a = draw(st.sampled_from(pool))
    how = draw(st.sampled_from(("name", "name", "name", "view", "detach", "data")))
    if how == "name":
        return a, a
    if how == "detach":
        return a, f"{a}.detach()"
    if how == "data":
        return a, f"{a}.data"
    t = s.ns[a]
    exprs = _index_exprs(a, tuple(t.shape)) + [f"{a}.view(-1)"]
    if t.dim() <= 2:
        exprs.append(f"{a}.t()")
    return a, draw(st.sampled_from(exprs))


def gen_inplace(draw, s):
    a, target = _inplace_target(draw, s)
    if a is None:
        return None
    value = s.eval(target)
    tshape = None if value is None else tuple(value.shape)
    form = draw(st.integers(0, 4))
    if form == 0:
        code = f"{target}.{draw(st.sampled_from(INPLACE_UNARY))}"
    elif form <= 2:
        op = draw(st.sampled_from(INPLACE_BINARY))
        if op == "fill_":
            code = f"{target}.fill_({draw(st.sampled_from(SCALARS))})"
        elif op == "copy_":
            fits = _fitting(s, a, tshape)
            if not fits:
                return None
            code = f"{target}.copy_({draw(st.sampled_from(fits))})"
        elif op == "pow_":
            code = f"{target}.pow_({draw(st.sampled_from(('2', '0.5', '3')))})"
        else:
            code = f"{target}.{op}({_operand(draw, s, a, tshape)})"
    else:
        op = draw(st.sampled_from(AUGMENTED))
        if target != a and not target.startswith(f"{a}["):
            # `x.detach() += 1` is not Python.
            target, tshape = a, tuple(s.ns[a].shape)
        code = f"{target} {op} {_operand(draw, s, a, tshape)}"
    return _maybe_no_grad(draw, code, 3)


def gen_setitem(draw, s):
    names = s.names()
    safe = s.names(lambda t: not _leaf_guarded(t))
    pool = safe if safe and draw(st.integers(0, 7)) > 0 else names
    if not pool:
        return None
    a = draw(st.sampled_from(pool))
    shape = tuple(s.ns[a].shape)
    basic = ["..."]
    advanced = []
    if shape and shape[0]:
        basic += ["0", "-1", ":1", "1:"]
        advanced += ["[0, -1]", "lib.tensor([0])"]
    advanced.append(f"{a} > 0")
    if len(shape) >= 2 and shape[1]:
        basic += [":, 0", "..., -1", "0, 0"]
    idx = draw(st.sampled_from(basic + advanced))
    target = s.eval(f"{a}[{idx}]")
    tshape = None if target is None else tuple(target.shape)
    fits = _fitting(s, a, tshape, setitem=True)
    if fits and draw(st.integers(0, 2)) > 0:
        value = draw(st.sampled_from(fits))
    else:
        value = draw(st.sampled_from(SCALARS))
    return _maybe_no_grad(draw, f"{a}[{idx}] = {value}", 3)


def gen_graph(draw, s):
    rg = s.names(_rg)
    kind = draw(st.sampled_from(("hook", "retain_grad", "requires_grad_", "grad_none",
                                 "detach_", "grad_ref")))
    if kind == "grad_ref":
        # A reference to .grad: later backward calls accumulate into this very object.
        have = s.names(lambda t: t.is_leaf and t.grad is not None)
        if not have:
            return None
        return f"{s.new_name()} = {draw(st.sampled_from(have))}.grad"
    if kind == "requires_grad_":
        leaves = s.names(lambda t: t.is_leaf and _is_float(t) and not t.requires_grad)
        if not leaves:
            return None
        return f"{draw(st.sampled_from(leaves))}.requires_grad_()"
    if kind == "detach_":
        cands = s.names(lambda t: not t.is_leaf)
        if not cands:
            return None
        return f"{draw(st.sampled_from(cands))}.detach_()"
    if not rg and draw(st.integers(0, 7)) > 0:
        return None  # hooks / retain_grad on tensors without grad: an error, now and then
    pool = rg if rg and draw(st.integers(0, 7)) > 0 else s.names()
    a = draw(st.sampled_from(pool))
    if kind == "hook":
        return f"{a}.register_hook({draw(st.sampled_from(HOOKS))})"
    if kind == "retain_grad":
        return f"{a}.retain_grad()"
    return f"{a}.grad = None"


def _root(draw, s, a):
    t = s.ns[a]
    form = draw(st.integers(0, 4))
    if form == 0 and t.numel() == 1:
        return a, None
    if form == 1:
        return a, f"lib.ones_like({a})"
    if form == 2:
        return f"({a} * {a}).sum()", None
    if form == 3:
        # The pair the engine may fuse (NOTE [Fused relu backward]).
        b = draw(st.sampled_from([n for n in s.names() if s.ns[n].shape == t.shape]))
        return f"({a} * {b}).relu().sum()", None
    return f"{a}.sum()", None


def _rg_root(draw, s):
    """(tensors requiring grad, a root made from one of them, its grad or None), or
    None when nothing requires grad."""
    rg = s.names(_rg)
    if not rg:
        return None
    return (rg, *_root(draw, s, draw(st.sampled_from(rg))))


def gen_backward(draw, s):
    picked = _rg_root(draw, s)
    if picked is None:
        return None
    rg, root, grad = picked
    args = [] if grad is None else [grad]
    if draw(st.booleans()):
        args.append("retain_graph=True")
    if draw(st.integers(0, 4)) == 0:
        args.append(f"inputs=[{draw(st.sampled_from(rg))}]")
    return f"{root}.backward({', '.join(args)})"


def gen_autograd_grad(draw, s):
    picked = _rg_root(draw, s)
    if picked is None:
        return None
    rg, root, grad = picked
    inputs = draw(st.lists(st.sampled_from(rg), min_size=1, max_size=2))
    args = [root, "[" + ", ".join(inputs) + "]"]
    if grad is not None:
        args.append(f"grad_outputs={grad}")
    if draw(st.booleans()):
        args.append("retain_graph=True")
    if draw(st.integers(0, 5)) == 0:
        args.append("create_graph=True")
    if draw(st.integers(0, 5)) > 0:
        args.append("allow_unused=True")
    outs = [s.new_name() for _ in inputs]
    return f"{', '.join(outs)}, = lib.autograd.grad({', '.join(args)})"


# ---- the wider op set: more unary and binary ops, joins, multi-output views, in-place
# view ops and nn.init (each of these has its own autograd node and its own rules) ----

# The op list's unary ops (the in-place ones just below come from the same list).
EXTRA_UNARY = tuple(f"{name}()" for name, (_, operands) in _C._inplace.ops.items()
                    if not operands)
# Every unary in-place variant of the op list (NOTE [The op list]), and clamp_.
EXTRA_INPLACE = tuple(f"{name}_()" for name, (_, operands) in _C._inplace.ops.items()
                      if not operands) + ("clamp_(min=0)",)
INIT = ("zeros_", "ones_", "constant_")


def _dims(t):
    """Dims valid for an op that takes one (a 0-d tensor takes 0 and -1)."""
    nd = max(t.dim(), 1)
    return list(range(-nd, nd))


def _sized_dims(t):
    """Dims of t with at least one element along them."""
    return [d for d in range(t.dim()) if t.shape[d] > 0]


def _ext_unary(draw, s, a, t):
    op = draw(st.sampled_from(EXTRA_UNARY + ("SOFTMAX", "LOG_SOFTMAX")))
    if op in ("SOFTMAX", "LOG_SOFTMAX"):
        fn = op.lower()
        d = draw(st.sampled_from(_dims(t)))
        return draw(st.sampled_from((f"{a}.{fn}({d})", f"lib.{fn}({a}, dim={d})")))
    return f"{a}.{op}"


def _ext_binary(draw, s, a, t):
    names = s.names()
    partners = [n for n in names if _broadcast(t.shape, s.ns[n].shape) is not None]
    form = draw(st.sampled_from(("maximum", "minimum", "where", "masked_fill", "outer", "dot",
                                 "mv")))
    if form in ("maximum", "minimum"):
        return f"lib.{form}({a}, {draw(st.sampled_from(partners))})"
    if form == "where":
        b = draw(st.sampled_from(partners))
        c = draw(st.sampled_from(names))
        return f"lib.where({c} > 0, {a}, {b})"
    if form == "masked_fill":
        masks = [n for n in names
                 if _broadcast(s.ns[n].shape, t.shape) == tuple(t.shape)]
        return f"{a}.masked_fill({draw(st.sampled_from(masks))} > 0, " \
               f"{draw(st.sampled_from(SCALARS))})"
    vectors = [n for n in names if s.ns[n].dim() == 1]
    if form == "outer" and t.dim() == 1 and vectors:
        return f"lib.outer({a}, {draw(st.sampled_from(vectors))})"
    if form == "dot" and t.dim() == 1:
        same = [n for n in vectors if tuple(s.ns[n].shape) == tuple(t.shape)]
        return f"lib.dot({a}, {draw(st.sampled_from(same))})"
    if form == "mv" and t.dim() == 2:
        fit = [n for n in vectors if s.ns[n].shape[0] == t.shape[1]]
        if fit:
            return f"lib.mv({a}, {draw(st.sampled_from(fit))})"
    return None


def _ext_reduce(draw, s, a, t):
    form = draw(st.sampled_from(("amax", "min", "max_dim", "argmax", "min_dim")))
    if form == "min" or t.dim() == 0:
        return f"{a}.{'argmax' if form == 'argmax' else 'min'}()"
    d = draw(st.sampled_from(_dims(t)))
    keep = ", keepdim=True" if draw(st.booleans()) else ""
    if form == "amax":
        return f"{a}.amax({d}{keep})"
    if form == "argmax":
        return f"{a}.argmax({d}{keep})"
    fn = form[:3]
    return draw(st.sampled_from((f"{a}.{fn}({d}{keep})[0]", f"{a}.{fn}({d}{keep}).values",
                                 f"lib.{fn}({a}, {d}{keep}).values")))


def _ext_join(draw, s, a, t):
    if t.dim() == 0:
        return None
    d = draw(st.integers(-t.dim(), t.dim() - 1))
    dd = d % t.dim()
    if draw(st.booleans()):
        fit = [n for n in s.names() if s.ns[n].dim() == t.dim() and all(
            s.ns[n].shape[i] == t.shape[i] for i in range(t.dim()) if i != dd)]
        others = draw(st.lists(st.sampled_from(fit), min_size=1, max_size=2))
        fn = draw(st.sampled_from(("cat", "cat", "concat")))
        return f"lib.{fn}([{', '.join([a] + others)}], {d})"
    same = s.names(lambda x: x.shape == t.shape)
    d = draw(st.integers(-t.dim() - 1, t.dim()))
    return f"lib.stack([{a}, {draw(st.sampled_from(same))}], {d})"


def _ext_view(draw, s, a, t):
    dims = _sized_dims(t)
    if not dims:
        return None
    d = draw(st.sampled_from(dims))
    k = draw(st.sampled_from((0, -1)))
    form = draw(st.sampled_from(("split", "chunk", "unbind", "narrow", "select", "gather")))
    if form == "split":
        return f"{a}.split({draw(st.sampled_from((1, 2)))}, {d})[{k}]"
    if form == "chunk":
        return f"{a}.chunk(2, {d})[{k}]"
    if form == "unbind":
        return draw(st.sampled_from((f"{a}.unbind({d})[{k}]", f"lib.unbind({a}, {d})[{k}]")))
    if form == "narrow":
        return f"{a}.narrow({d}, {t.shape[d] - 1}, 1)"
    if form == "select":
        return f"{a}.select({d}, {k})"
    index = f"lib.zeros_like({a}, dtype=lib.int64)"
    if draw(st.booleans()):
        return f"{a}.gather({d}, {index})"
    same = s.names(lambda x: x.shape == t.shape)
    fn = draw(st.sampled_from(("scatter_add", "scatter", "scatter_value")))
    if fn == "scatter_value":
        return f"{a}.scatter({d}, {index}, {draw(st.sampled_from(SCALARS))})"
    return f"{a}.{fn}({d}, {index}, {draw(st.sampled_from(same))})"


def _ext_inplace(draw, s):
    form = draw(st.sampled_from(("op", "op", "list_binary", "view_op", "masked_fill_", "alpha",
                                 "init", "scatter_")))
    if form == "init":
        # nn.init writes under no_grad, so leaves that require grad are its usual target.
        leaves = s.names(lambda t: t.is_leaf and t.requires_grad)
        pool = leaves if leaves and draw(st.integers(0, 3)) > 0 else s.names()
        init = draw(st.sampled_from(INIT))
        args = ", 0.5" if init == "constant_" else ""
        return f"lib.nn.init.{init}({draw(st.sampled_from(pool))}{args})"
    a, target = _inplace_target(draw, s)
    if a is None:
        return None
    t = s.ns[a]
    if form == "op":
        return f"{target}.{draw(st.sampled_from(EXTRA_INPLACE))}"
    if form == "list_binary":
        op = draw(st.sampled_from(LIST_INPLACE_BINARY))
        value = s.eval(target)
        tshape = None if value is None else tuple(value.shape)
        fits = _fitting(s, a, tshape)
        if op in TENSOR_ONLY:
            if not fits:
                return None
            return f"{target}.{op}({draw(st.sampled_from(fits))})"
        return f"{target}.{op}({_operand(draw, s, a, tshape)})"
    if form == "view_op":
        # Metadata-changing in-place ops act on the name itself.
        ops = ["squeeze_()", f"unsqueeze_({draw(st.integers(-t.dim() - 1, t.dim()))})"]
        if t.dim() <= 2:
            ops.append("t_()")
        if t.dim():
            ops.append(f"squeeze_({draw(st.integers(-t.dim(), t.dim() - 1))})")
        return f"{a}.{draw(st.sampled_from(ops))}"
    if form == "masked_fill_":
        return f"{target}.masked_fill_({target} > 0, {draw(st.sampled_from(SCALARS))})"
    if form == "scatter_":
        value = s.eval(target)
        if value is None or not any(value.shape):
            return None
        d = draw(st.sampled_from([k for k in range(value.dim()) if value.shape[k] > 0]))
        index = f"lib.zeros_like({target}, dtype=lib.int64)"
        # A src sharing the target's memory is refused (overlap); keep that rare.
        mem = value.untyped_storage().data_ptr()
        fits = s.names(lambda x: x.shape == value.shape and x.untyped_storage().data_ptr() != mem)
        src = draw(st.sampled_from(fits + list(SCALARS[:2])))
        op = "scatter_" if src in SCALARS or draw(st.booleans()) else "scatter_add_"
        return f"{target}.{op}({d}, {index}, {src})"
    value = s.eval(target)
    fits = _fitting(s, a, None if value is None else tuple(value.shape))
    if not fits:
        return None
    op = draw(st.sampled_from(("add_", "sub_")))
    alpha = draw(st.sampled_from(("2", "0.5", "-1")))
    return f"{target}.{op}({draw(st.sampled_from(fits))}, alpha={alpha})"


def gen_extra(draw, s):
    kind = draw(st.sampled_from(("unary", "binary", "reduce", "join", "view", "inplace",
                                 "inplace")))
    if kind == "inplace":
        code = _ext_inplace(draw, s)
        return None if code is None else _maybe_no_grad(draw, code, 3)
    a = draw(st.sampled_from(s.names()))
    make = {"unary": _ext_unary, "binary": _ext_binary, "reduce": _ext_reduce,
            "join": _ext_join, "view": _ext_view}[kind]
    expr = make(draw, s, a, s.ns[a])
    if expr is None:
        return None
    return _maybe_no_grad(draw, f"{s.new_name()} = {expr}", 6)


def gen_nn(draw, s):
    """nn.functional ops, an SGD step or zero_grad on leaves, and `.data =` assignment."""
    floats = s.names(_is_float)
    if not floats:
        return None
    a = draw(st.sampled_from(floats))
    t = s.ns[a]
    form = draw(st.sampled_from(("mse", "linear", "cross_entropy", "relu_", "sgd", "sgd",
                                 "zero_grad", "data")))
    F = "lib.nn.functional"
    if form == "mse":
        fits = [n for n in floats if _broadcast(t.shape, s.ns[n].shape) is not None]
        reduction = draw(st.sampled_from(("mean", "sum", "none")))
        code = f"{s.new_name()} = {F}.mse_loss({a}, {draw(st.sampled_from(fits))}, " \
               f"reduction='{reduction}')"
    elif form == "linear":
        if t.dim() == 0:
            return None
        weights = [n for n in floats if s.ns[n].dim() == 2 and s.ns[n].shape[1] == t.shape[-1]]
        if not weights:
            return None
        w = draw(st.sampled_from(weights))
        biases = [n for n in floats if s.ns[n].dim() == 1 and s.ns[n].shape[0] == s.ns[w].shape[0]]
        bias = f", {draw(st.sampled_from(biases))}" if biases and draw(st.booleans()) else ""
        code = f"{s.new_name()} = {F}.linear({a}, {w}{bias})"
    elif form == "cross_entropy":
        if t.dim() != 2:
            return None
        code = f"{s.new_name()} = {F}.cross_entropy({a}, lib.zeros({t.shape[0]}, dtype=lib.int64))"
    elif form == "relu_":
        code = f"{F}.relu_({a})"
    elif form in ("sgd", "zero_grad"):
        leaves = s.names(lambda x: x.is_leaf and x.requires_grad)
        if not leaves:
            return None
        params = ", ".join(draw(st.lists(st.sampled_from(leaves), min_size=1, max_size=2,
                                         unique=True)))
        if form == "zero_grad":
            return f"lib.optim.SGD([{params}], lr=0.1).zero_grad()"
        opts = draw(st.sampled_from(("", ", momentum=0.9", ", weight_decay=0.5",
                                     ", momentum=0.5, nesterov=True")))
        return f"lib.optim.SGD([{params}], lr=0.1{opts}).step()"
    else:
        others = [n for n in floats if s.ns[n].dtype == t.dtype]
        return f"{a}.data = {draw(st.sampled_from(others))}"
    return _maybe_no_grad(draw, code, 6)


GENERATORS = {
    "leaf": gen_leaf, "binary": gen_binary, "unary": gen_unary, "reduce": gen_reduce,
    "matmul": gen_matmul, "view": gen_view, "inplace": gen_inplace, "setitem": gen_setitem,
    "graph": gen_graph, "backward": gen_backward, "grad": gen_autograd_grad,
    "extra": gen_extra, "nn": gen_nn,
}
# Leaf first (what shrinking tends towards); repeats weight the draw.
KINDS = ("leaf", "binary", "view", "inplace", "backward", "unary", "inplace", "reduce",
         "setitem", "matmul", "graph", "view", "grad", "binary", "backward", "leaf",
         "backward", "unary", "extra", "extra", "nn")


@st.composite
def programs(draw, max_steps=14):
    """A Program built against torch; its torch trace rides along."""
    import torch
    runner = Runner(torch, gaps=KNOWN_GAPS)
    s = State(runner)
    steps = []
    n_steps = draw(st.integers(2, max_steps))
    while len(steps) < n_steps and not runner.failed:
        kind = "leaf" if not s.names() else draw(st.sampled_from(KINDS))
        stmt = GENERATORS[kind](draw, s)
        if stmt is None:
            continue
        runner.run(stmt)
        steps.append(stmt)
    return Program(tuple(steps), runner.records)


# ---------------------------------------------------------------------------------------------
# The fuzz loop (run in a child process by tests/ops/test_fuzz_differential.py, so that a crash
# of gradtrack is reported instead of taking the test session down)
# ---------------------------------------------------------------------------------------------

def _signature(diff):
    """The kind of a first difference, without names and numbers (to group failures)."""
    line = diff.splitlines()[1] if "\n" in diff else diff
    return re.sub(r"[-+\d.e\[\], ]+", "#", re.sub(r"\bt\d+\b", "tN", line))[:120]


def fuzz(examples, seed=None, last_program=None, max_reports=5):
    """Runs ``examples`` generated programs on torch and gradtrack.

    Returns (failures, stats): a list of (program, difference) for distinct failures,
    each minimized (empty: no difference), and counts of what the programs reached.
    Before gradtrack runs a program its source goes to ``last_program`` (a path), so a
    parent process can tell which program crashed.
    """
    import torch
    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as with_seed

    import gradtrack

    failures = {}
    stats = {"programs": 0, "steps": 0, "ended_in_error": 0, "backward_ok": 0,
             "inplace_ok": 0}

    @settings(max_examples=examples, derandomize=seed is None, deadline=None, database=None,
              suppress_health_check=list(HealthCheck), print_blob=False,
              report_multiple_bugs=False)
    @given(programs())
    def check(program):
        if last_program:
            with open(last_program, "w") as f:
                f.write(program.source())
        _count(stats, program)
        diff = difference(program, torch, gradtrack, KNOWN_GAPS)
        if diff:
            key = _signature(diff)
            old = failures.get(key)
            if old is None or len(program.steps) <= len(old.steps):
                failures[key] = program
            # Keep going (no raise): one run reports every kind of difference it met.

    if seed is not None:
        check = with_seed(seed)(check)
    check()
    out = []
    for program in sorted(failures.values(), key=lambda p: len(p.steps))[:max_reports]:
        small = minimize(Program(program.steps), torch, gradtrack, KNOWN_GAPS)
        out.append((small, difference(small, torch, gradtrack, KNOWN_GAPS)))
    return out, stats


_INPLACE = re.compile(r"\w_\(|[-+*/]= |\] = ")


def _count(stats, program):
    """Counts what the torch run of a generated program reached (not vacuous?)."""
    trace = program.torch_trace
    ok = [stmt for stmt, rec in zip(program.steps, trace) if rec.error is None]
    stats["programs"] += 1
    stats["steps"] += len(program.steps)
    stats["ended_in_error"] += trace[-1].error is not None
    stats["backward_ok"] += any("backward(" in x or "autograd.grad(" in x for x in ok)
    stats["inplace_ok"] += any(_INPLACE.search(x) for x in ok)


def runs_clean(program_source, lib_name="gradtrack", timeout=120):
    """Runs a program in a fresh interpreter; returns (returncode, output). Exceptions
    raised by statements are caught, so a non-zero code means the process died."""
    import subprocess
    import sys
    runner = (
        "import sys, ast\n"
        f"import {lib_name} as lib\n"
        "src = sys.stdin.read()\n"
        "ns = {'lib': lib}\n"
        "for node in ast.parse(src).body:\n"
        "    try:\n"
        "        exec(compile(ast.Module([node], []), '<program>', 'exec'), ns)\n"
        "    except Exception as e:\n"
        "        print(type(e).__name__, e)\n"
        "        break\n"
    )
    proc = subprocess.run([sys.executable, "-c", runner], input=program_source, text=True,
                          capture_output=True, timeout=timeout)
    return proc.returncode, proc.stdout + proc.stderr


def exec_capture(program_source, lib):
    """What runs_clean prints, but run in this process (for torch, which does not crash
    here), with torch spelled gradtrack."""
    import contextlib
    import io
    out = io.StringIO()
    ns = {"lib": lib}
    with contextlib.redirect_stdout(out):
        for node in ast.parse(program_source).body:
            try:
                exec(compile(ast.Module([node], []), "<program>", "exec"), ns)  # noqa: S102
            except Exception as e:  # noqa: BLE001 - printed as runs_clean prints it
                print(type(e).__name__, e)
                break
    return spell(out.getvalue())


def minimize_crash(program):
    """Deletes statements while the gradtrack process still dies."""
    changed = True
    while changed:
        changed = False
        for i in reversed(range(len(program.steps))):
            candidate = program.without(i)
            if candidate.steps and runs_clean(candidate.source())[0] < 0:
                program = candidate
                changed = True
    return program


def main(argv=None):
    import argparse
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=500)
    parser.add_argument("--seed", type=int, default=None,
                        help="explore with this seed (default: the fixed, derandomized slice)")
    parser.add_argument("--last-program", default=None)
    args = parser.parse_args(argv)
    found, stats = fuzz(args.examples, args.seed, args.last_program)
    for program, diff in found:
        print("=== program ===")
        print(program.source())
        print("=== first difference ===")
        print(diff)
    print(f"{len(found)} distinct difference(s) in {args.examples} programs")
    import json
    print(json.dumps(stats))
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
