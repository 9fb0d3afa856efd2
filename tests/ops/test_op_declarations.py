"""The op declarations are complete (NOTE [One declaration per op] in
python/gradtrack/_declarations): every row of the op list has each column an op
needs, and what the rows say is what the library does.

- docs: a text, an example and what it prints (tests/test_docstrings.py runs them);
- kernel and formula: the op runs, and records the node its row names, with a
  tensor, with a number and in place;
- jvp: a row without a forward-mode formula is one torch has none for either;
- out=: a row takes out= exactly where torch's function does;
- op table: every function and in-place method has a row in tests/ops/op_db/,
  so the differential tests and the fuzzers reach it.
"""

import pytest

import gradtrack
from gradtrack import _declarations as decl
from gradtrack._declarations.rows import ELEMENTWISE

import op_db

OPS = decl.pointwise_ops()
BY_NAME = {op.name: op for op in OPS}
DERIVATIVES = {d.kind: d for d in decl.derivatives()}

# Functions torch gives out= that gradtrack does not yet: the test fails when one of
# these gains out= (take it off the list) or another op lacks it.
OUT_GAPS = {
    "isposinf": "bool outputs only, a rule the out= table has for signbit alone",
    "isneginf": "bool outputs only, a rule the out= table has for signbit alone",
    "floor_divide": "torch writes out and records NotImplemented when an input requires grad",
}
# Functions whose out= comes from the out= rules table rather than the row's dtype rule.
OUT_BY_RULE = {"signbit"}


def _function(lib, op):
    """``lib.NAME``, or ``lib.special.NAME`` for a row of torch.special's own functions."""
    return getattr(lib.special, op.public_name) if op.special else getattr(lib, op.name)


def _grad_fn_name(kind):
    """The class name Python shows for a node kind (C++ names drop their namespace)."""
    return DERIVATIVES[kind].grad_fn.split("::")[-1]


def _sample(op):
    """Float inputs inside every op's domain (acosh needs >= 1, atanh and erfinv |x| < 1)."""
    x = gradtrack.tensor([1.25, 1.5, 1.75]) if op.name == "acosh" else \
        gradtrack.tensor([0.25, 0.5, 0.75])
    return x, gradtrack.tensor([0.5, 0.25, 2.0])


def _args(op, lib, requires_grad=False):
    x, y = _sample(op)
    if lib is not gradtrack:
        x, y = lib.tensor(x.tolist()), lib.tensor(y.tolist())
    if requires_grad:
        x = x.clone().requires_grad_()
        y = y.clone().requires_grad_()
    return (x, y) if op.arity == 2 else (x,)


@pytest.mark.parametrize("name", [op.name for op in OPS])
def test_row_has_a_docstring_with_an_example(name):
    op = BY_NAME[name]
    assert op.doc.strip() and op.example and op.prints.strip()
    assert ">>>" in _function(gradtrack, op).__doc__
    if op.special:
        assert not hasattr(gradtrack.Tensor, op.public_name) and not op.inplace
        return
    assert ">>>" in getattr(gradtrack.Tensor, name).__doc__
    if op.inplace:
        assert ">>>" in getattr(gradtrack.Tensor, name + "_").__doc__


@pytest.mark.parametrize("name", [op.name for op in OPS if op.differentiable])
def test_row_records_the_node_it_declares(name):
    op = BY_NAME[name]
    args = _args(op, gradtrack, requires_grad=True)
    out = _function(gradtrack, op)(*args)
    assert type(out.grad_fn).__name__ == _grad_fn_name(op.tensor_kind)
    if op.number_kind:
        out = _function(gradtrack, op)(args[0], 2.0)
        assert type(out.grad_fn).__name__ == _grad_fn_name(op.number_kind)
    if op.number_self_kind:
        out = _function(gradtrack, op)(2.0, args[1])
        assert type(out.grad_fn).__name__ == _grad_fn_name(op.number_self_kind)
    if op.inplace:
        self_ = args[0].clone()
        getattr(self_, name + "_")(*args[1:])
        assert type(self_.grad_fn).__name__ == _grad_fn_name(op.inplace_kind)


def _integers_only(name):
    return name.startswith("bitwise") or name in ("gcd", "lcm")


def _takes(fn, *args):
    """Whether ``fn(*args)`` gets past the argument parser (TypeError: it does not)."""
    try:
        fn(*args)
    except TypeError:
        return False
    except Exception:  # noqa: BLE001 - a dtype refusal comes after the arguments were taken
        return True
    return True


@pytest.mark.parametrize("name", [op.name for op in OPS if op.arity == 2])
def test_row_takes_a_number_where_torch_does(torch, name):
    """``number`` says torch takes ``op(t, 2)``; on the generated rows, ``number_self``
    says it takes ``op(2, t)`` (torch's Scalar_Self overload): gradtrack as torch."""
    op = BY_NAME[name]
    for lib in (torch, gradtrack):
        t = lib.tensor([1, 2]) if _integers_only(name) else lib.tensor([0.5, 1.5])
        fn = _function(lib, op)
        assert _takes(fn, t, 2) == (op.number is not None), (lib.__name__, "other")
        if op.generated or op.number_self is not None:
            assert _takes(fn, 2, t) == (op.number_self is not None), (lib.__name__, "self")
        if op.inplace:
            t = t.clone()
            assert _takes(getattr(t, name + "_"), 2) == (op.number is not None), lib.__name__


@pytest.mark.parametrize("name", [op.name for op in OPS if not op.differentiable])
def test_row_without_a_node_records_nothing(name):
    op = BY_NAME[name]
    integers_only = _integers_only(name)
    args = _args(op, gradtrack, requires_grad=not integers_only)
    if integers_only:
        args = (gradtrack.tensor([1, 2, 3]), gradtrack.tensor([3, 1, 2]))[:op.arity]
    out = getattr(gradtrack, name)(*args)
    assert out.grad_fn is None and not out.requires_grad


@pytest.mark.parametrize("name", [op.name for op in OPS if op.differentiable])
def test_row_has_a_jvp_where_torch_has_forward_ad(torch, name):
    op = BY_NAME[name]
    import torch.autograd.forward_ad as fwad
    args = _args(op, torch)
    with fwad.dual_level():
        duals = [fwad.make_dual(a, torch.ones_like(a)) for a in args]
        try:
            _function(torch, op)(*duals)
            torch_has = True
        except (NotImplementedError, RuntimeError):
            torch_has = False
    assert (DERIVATIVES[op.tensor_kind].jvp is not None) == torch_has


def _torch_takes_out(torch, name):
    """From the signature line of torch's docstring (``out=None`` or ``out: Optional[Tensor]``)."""
    fn = _function(torch, BY_NAME[name]) if name in BY_NAME else getattr(torch, name)
    first_line = (fn.__doc__ or "").strip().split("\n")[0]
    return "out=None" in first_line or "out: Optional" in first_line


@pytest.mark.parametrize("name", [op.name for op in OPS])
def test_row_takes_out_where_torch_does(torch, name):
    op = BY_NAME[name]
    ours = op.out is not None or name in OUT_BY_RULE
    if name in OUT_GAPS:
        assert _torch_takes_out(torch, name) and not ours, "close the gap: drop it from OUT_GAPS"
    else:
        assert ours == _torch_takes_out(torch, name)


@pytest.mark.parametrize("name", [op.name for op in OPS])
def test_out_column_is_what_the_function_accepts(name):
    op = BY_NAME[name]
    x = _args(op, gradtrack)
    out = gradtrack.empty(0, dtype=gradtrack.bool if name in OUT_BY_RULE else None)
    if name.startswith("bitwise") or name in ("gcd", "lcm"):
        x = (gradtrack.tensor([1, 2, 3]), gradtrack.tensor([3, 1, 2]))[:op.arity]
        out = gradtrack.empty(0, dtype=gradtrack.int64)
    try:
        result = _function(gradtrack, op)(*x, out=out)
    except TypeError:
        accepted = False
    else:
        accepted = result is out
    assert accepted == (op.out is not None or name in OUT_BY_RULE)


def test_every_row_has_op_table_rows():
    names = {spec.name for spec in op_db.OPS}
    in_place = {spec.inplace for spec in op_db.OPS}
    missing = [op.name for op in OPS
               if not any(n == op.name or n.startswith(op.name + "_")
                          or n == "Tensor." + op.name or n.startswith(f"Tensor.{op.name}_")
                          for n in names)]
    missing += [op.name + "_" for op in OPS if op.inplace and op.name + "_" not in in_place]
    assert not missing, f"op list rows without an op-table row in tests/ops/op_db/: {missing}"


def test_every_derivative_kind_is_declared_once_and_jvps_are_named_or_derived():
    rows = decl.derivatives()
    assert len({d.kind for d in rows}) == len(rows)
    for d in rows:
        assert d.jvp is None or d.jvp == ELEMENTWISE or d.jvp.endswith("_jvp"), d.kind
        assert d.backward.endswith("_bw"), d.kind
        assert all(set(g) <= set("012") for g in d.saves.values()), d.kind


# Ops that nothing else in the library uses: the files that name one are exactly the
# ones adding it took (its row, its kernel, its backward formula).
PLACES_UNARY = ["deg2rad", "rad2deg"]
# (atan2 is left out: _ops/pointwise.py names it too, giving torch's other name arctan2;
# erfinv, erfc and sinc too: gradtrack/special.py gives them under torch.special's names)
PLACES_BINARY = ["hypot", "logaddexp2"]


def _library_files_naming(name):
    """The library files (csrc/ and python/, stubs left out) that name the op: the word
    itself, or its formulas (NAME_bw, NAME_jvp); std::NAME is C's, not the op."""
    import pathlib
    import re
    root = pathlib.Path(__file__).resolve().parents[2]
    word = re.compile(rf"(?<!std::)\b{name}(_bw|_jvp|_inplace_bw)?\b", re.IGNORECASE)
    files = []
    for part in ("csrc", "python"):
        for path in (root / part).rglob("*"):
            if path.is_file() and path.suffix in {".py", ".cpp", ".h"} \
                    and "__pycache__" not in path.parts and word.search(path.read_text()):
                files.append(str(path.relative_to(root)))
    return sorted(files)


def _stated_places():
    """The numbers docs/ARCHITECTURE.md gives: 'A unary op touches N library files,
    a binary op M'."""
    import pathlib
    import re
    text = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "ARCHITECTURE.md").read_text()
    m = re.search(r"A unary op touches (\d) library files, a binary op (\d)", text)
    assert m, "docs/ARCHITECTURE.md no longer states the places an op takes"
    return int(m.group(1)), int(m.group(2))


@pytest.mark.parametrize("name", PLACES_UNARY + PLACES_BINARY)
def test_an_op_takes_the_files_this_page_says(name):
    unary, binary = _stated_places()
    files = _library_files_naming(name)
    assert len(files) <= (unary if name in PLACES_UNARY else binary), files
    assert "python/gradtrack/_declarations/pointwise.py" in files
