"""scatter_ and gradtrack.scatter with torch's older ``reduce=`` argument ("add",
"multiply"; NOTE [scatter with reduce] in _ops/scatter_with_reduce.py): values for
every dtype, the version bump, torch 2.13's errors and their order, the once-a-process
deprecation warning of the tensor ``src`` form, and the NotImplemented node."""

import subprocess
import sys
import textwrap
import warnings

import pytest

import gradtrack

from helpers import name, nexts, same

DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "int16", "int32", "int64",
          "uint8", "bool"]


def _quiet(scenario):
    """``scenario`` with the deprecation warning silenced (it is once a process)."""
    def run(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return scenario(lib)
    return run


def _index(lib):
    return lib.tensor([0, 2, 0])


# ---- values -------------------------------------------------------------------------------

def test_in_place_values_without_torch():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x = gradtrack.ones(3)
        assert x.scatter_(0, _index(gradtrack), 2.0, reduce="add") is x
        assert x.tolist() == [5.0, 1.0, 3.0]
        x.scatter_(0, _index(gradtrack), gradtrack.tensor([2.0, 3.0, 4.0]), reduce="multiply")
        assert x.tolist() == [40.0, 1.0, 9.0]
        b = gradtrack.tensor([True, False, True])
        b.scatter_(0, gradtrack.tensor([0, 1]), gradtrack.tensor([False, True]), reduce="add")
        assert b.tolist() == [True, True, True]  # add is or
        b.scatter_(0, gradtrack.tensor([2]), gradtrack.tensor([False]), reduce="multiply")
        assert b.tolist() == [True, True, False]  # multiply is and
        u = gradtrack.tensor([250, 1], dtype=gradtrack.uint8)
        u.scatter_(0, gradtrack.tensor([0]), 10, reduce="add")
        assert u.tolist() == [4, 1]  # wraps, as torch's kernel
        i = gradtrack.ones(2, dtype=gradtrack.int64)
        i.scatter_(0, gradtrack.tensor([1]), 2.5, reduce="add")
        assert i.tolist() == [1, 3]  # the value converts to the dtype first


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduce", ["add", "multiply"])
@pytest.mark.parametrize("form", ["src", "value"])
def test_in_place_values_match_torch(dtype, reduce, form):
    def scenario(lib):
        dt = getattr(lib, dtype)
        x = lib.tensor([[1, 2, 3], [4, 5, 6]]).to(dt)
        index = lib.tensor([[0, 1, 0], [1, 1, 0]])
        src = lib.tensor([[2, 3, 1], [1, 2, 3]]).to(dt)
        v0 = x._version
        out = x.scatter_(0, index, src if form == "src" else 3, reduce=reduce)
        return out is x, x, x._version - v0
    same(_quiet(scenario))


@pytest.mark.parametrize("case", ["dim 1", "dim -1", "0-dim self", "0-dim index",
                                  "int32 index", "empty index", "transposed self",
                                  "index longer than self along dim", "value keyword",
                                  "bool value", "numpy value", "0-dim tensor value",
                                  "nan into a float", "complex without imaginary part",
                                  "infinity into float16"])
def test_in_place_cases_match_torch(case):
    def scenario(lib):
        x = lib.arange(1.0, 7.0).reshape(2, 3)
        if case == "dim 1":
            return x.scatter_(1, lib.tensor([[2, 2], [0, 1]]), lib.ones(2, 2) * 2, reduce="add")
        if case == "dim -1":
            return x.scatter_(-1, lib.tensor([[2, 2], [0, 1]]), 3.0, reduce="multiply")
        if case == "0-dim self":
            return lib.tensor(2.0).scatter_(0, lib.tensor(0), 5.0, reduce="multiply")
        if case == "0-dim index":
            return lib.ones(3).scatter_(0, lib.tensor(1), 5.0, reduce="add")
        if case == "int32 index":
            return lib.ones(3).scatter_(0, _index(lib).int(), 5.0, reduce="add")
        if case == "empty index":
            return lib.ones(3).scatter_(0, lib.tensor([], dtype=lib.int64), lib.ones(1),
                                        reduce="add")
        if case == "transposed self":
            return x.t().scatter_(0, lib.tensor([[0, 2], [1, 1]]), lib.ones(2, 2) * 3,
                                  reduce="multiply")
        if case == "index longer than self along dim":
            return lib.ones(3).scatter_(0, lib.tensor([0, 0, 0, 0, 0]), lib.ones(5),
                                        reduce="add")
        if case == "value keyword":
            return lib.ones(3).scatter_(0, _index(lib), value=2.0, reduce="add")
        if case == "bool value":
            return lib.ones(3).scatter_(0, _index(lib), True, reduce="add")
        if case == "numpy value":
            import numpy as np
            return lib.ones(3).scatter_(0, _index(lib), np.float64(2.0), reduce="add")
        if case == "0-dim tensor value":
            return lib.ones(3).scatter_(0, _index(lib), value=lib.tensor(2.0), reduce="add")
        if case == "nan into a float":
            out = lib.ones(3).scatter_(0, _index(lib), float("nan"), reduce="multiply")
            return out.isnan(), out.nan_to_num(7.0)
        if case == "complex without imaginary part":
            return lib.ones(3).scatter_(0, _index(lib), complex(2, 0), reduce="multiply")
        return lib.ones(3, dtype=lib.float16).scatter_(0, _index(lib), float("inf"),
                                                       reduce="add")
    same(_quiet(scenario))


@pytest.mark.parametrize("form", ["src", "value", "value keyword"])
def test_the_function_form_matches_torch(form):
    def scenario(lib):
        x = lib.tensor([1.0, 2.0, 3.0])
        if form == "src":
            out = lib.scatter(x, 0, _index(lib), lib.tensor([2.0, 3.0, 4.0]), reduce="multiply")
        elif form == "value":
            out = lib.scatter(x, 0, _index(lib), 2.0, reduce="add")
        else:
            out = lib.scatter(x, 0, _index(lib), value=2.0, reduce="add")
        return out, out._version, x
    same(_quiet(scenario))


def test_the_function_form_takes_out():
    def scenario(lib):
        out = lib.empty(3)
        result = lib.scatter(lib.ones(3), 0, _index(lib), 2.0, reduce="multiply", out=out)
        return result is out, out
    same(_quiet(scenario))
    same(_quiet(lambda lib: lib.scatter(lib.ones(3), 0, _index(lib), 2.0, reduce="add",
                                        out=lib.empty(3, dtype=lib.float64))))


def test_without_reduce_scatter_is_unchanged():
    x = gradtrack.zeros(3)
    assert gradtrack.scatter(x, 0, _index(gradtrack), 1.0).tolist() == [1.0, 0.0, 1.0]
    assert x.scatter_(0, gradtrack.tensor([1]), gradtrack.tensor([4.0])).tolist() == [0.0, 4.0,
                                                                                      0.0]


# ---- versions -----------------------------------------------------------------------------

def test_the_in_place_form_bumps_the_version_once_and_a_failure_not_at_all():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for src, want in ((2.0, [4.0, 1.0, 2.0]), (gradtrack.ones(3), [1.0, 1.0, 1.0])):
            x = gradtrack.ones(3)
            x.scatter_(0, _index(gradtrack), src, reduce="multiply")
            assert x._version == 1
            with pytest.raises(RuntimeError):
                x.scatter_(0, gradtrack.tensor([7]), src, reduce="add")
            with pytest.raises(RuntimeError):
                x.scatter_(0, _index(gradtrack), src, reduce="max")
            assert x._version == 1
            assert x.tolist() == want


# ---- errors -------------------------------------------------------------------------------

ERRORS = {
    "unknown reduce, src": lambda L: L.ones(3).scatter_(0, _index(L), L.ones(3), reduce="max"),
    "unknown reduce, value": lambda L: L.ones(3).scatter_(0, _index(L), 1.0, reduce="sum"),
    "unknown reduce, function": lambda L: L.scatter(L.ones(3), 0, _index(L), 1.0,
                                                    reduce="mean"),
    "reduce not a str": lambda L: L.ones(3).scatter_(0, _index(L), L.ones(3), reduce=1),
    "reduce not a str, function": lambda L: L.scatter(L.ones(3), 0, _index(L), L.ones(3),
                                                      reduce=1),
    "src a list": lambda L: L.ones(3).scatter_(0, _index(L), [1.0], reduce="add"),
    "value a str": lambda L: L.ones(3).scatter_(0, _index(L), value="a", reduce="add"),
    "dim a float": lambda L: L.ones(3).scatter_(0.5, _index(L), 1.0, reduce="add"),
    "src dtype differs": lambda L: L.ones(3).scatter_(0, _index(L), L.ones(3).double(),
                                                      reduce="add"),
    "float index": lambda L: L.ones(3).scatter_(0, _index(L).float(), 1.0, reduce="add"),
    "index dims": lambda L: L.ones(3).scatter_(0, L.tensor([[0]]), 1.0, reduce="add"),
    "src too small": lambda L: L.ones(3).scatter_(0, L.tensor([0, 1]), L.ones(1), reduce="add"),
    "index out of bounds": lambda L: L.ones(3).scatter_(0, L.tensor([5]), 1.0, reduce="add"),
    "dim out of range": lambda L: L.ones(3).scatter_(1, L.tensor([0]), 1.0, reduce="add"),
    "value overflows int8": lambda L: L.ones(3, dtype=L.int8).scatter_(0, L.tensor([0]), 200,
                                                                       reduce="multiply"),
    "value overflows float16": lambda L: L.ones(3, dtype=L.float16).scatter_(
        0, L.tensor([0]), 1e6, reduce="add"),
    "value overflows bfloat16": lambda L: L.ones(3, dtype=L.bfloat16).scatter_(
        0, L.tensor([0]), 3.39e38, reduce="add"),
    "nan into an int": lambda L: L.ones(3, dtype=L.int64).scatter_(0, L.tensor([0]),
                                                                   float("nan"), reduce="add"),
    "complex value": lambda L: L.ones(3).scatter_(0, L.tensor([0]), 1j, reduce="add"),
    "complex value into int": lambda L: L.ones(3, dtype=L.int32).scatter_(
        0, L.tensor([0]), 1j, reduce="add"),
    # torch's order when two things are wrong
    "unknown reduce and src dtype": lambda L: L.ones(3).scatter_(
        0, L.tensor([0]), L.ones(1).double(), reduce="max"),
    "unknown reduce and float index": lambda L: L.ones(3).scatter_(
        0, L.tensor([0.0]), L.ones(1), reduce="max"),
    "unknown reduce and index out of bounds": lambda L: L.ones(3).scatter_(
        0, L.tensor([7]), L.ones(1), reduce="max"),
    "unknown reduce and dim out of range": lambda L: L.ones(3).scatter_(
        5, L.tensor([0]), L.ones(1), reduce="max"),
    "unknown reduce and overflow": lambda L: L.ones(3, dtype=L.int8).scatter_(
        0, L.tensor([0]), 1000, reduce="max"),
    "overflow and index out of bounds": lambda L: L.ones(3, dtype=L.int8).scatter_(
        0, L.tensor([7]), 1000, reduce="add"),
    "leaf that requires grad": lambda L: L.ones(3, requires_grad=True).scatter_(
        0, _index(L), 1.0, reduce="add"),
    "view of a leaf that requires grad": lambda L: L.ones(3, requires_grad=True)[:2].scatter_(
        0, L.tensor([0]), 1.0, reduce="add"),
}


@pytest.mark.parametrize("case", ERRORS)
def test_errors_match_torch(case):
    same(_quiet(ERRORS[case]))


def test_errors_without_torch():
    x = gradtrack.ones(3)
    with pytest.raises(RuntimeError, match=r"^reduce argument must be either add or multiply\.$"):
        x.scatter_(0, _index(gradtrack), 1.0, reduce="max")
    with pytest.raises(TypeError) as info:
        x.scatter_(0, _index(gradtrack), 1.0, reduce=3)
    assert str(info.value) == (
        "scatter_() received an invalid combination of arguments - got (int, Tensor, float, "
        "reduce=int), but expected one of:\n"
        " * (int dim, Tensor index, Tensor src)\n"
        " * (int dim, Tensor index, Tensor src, *, str reduce)\n"
        " * (int dim, Tensor index, Number value)\n"
        " * (int dim, Tensor index, Number value, *, str reduce)\n")
    with pytest.raises(RuntimeError, match="value cannot be converted to type c10::Half without "
                                           "overflow"):
        gradtrack.ones(2, dtype=gradtrack.float16).scatter_(0, gradtrack.tensor([0]), 7e4,
                                                            reduce="add")
    assert x._version == 0


# ---- autograd -----------------------------------------------------------------------------

@pytest.mark.parametrize("case", ["non-leaf self, value", "non-leaf self, src",
                                  "src requires grad", "under no_grad", "view of a non-leaf",
                                  "view, src requires grad", "function, input requires grad",
                                  "function, src requires grad", "function, nothing requires grad",
                                  "function under no_grad"])
def test_the_graph_matches_torch(case):
    def scenario(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        s = lib.tensor([2.0, 3.0, 4.0], requires_grad=True)
        if case == "non-leaf self, value":
            y = x * 1
            out = y.scatter_(0, _index(lib), 2.0, reduce="add")
        elif case == "non-leaf self, src":
            y = x * 1
            out = y.scatter_(0, _index(lib), s, reduce="multiply")
        elif case == "src requires grad":
            y = lib.zeros(3)
            out = y.scatter_(0, _index(lib), s, reduce="add")
        elif case == "under no_grad":
            y = x * 1
            with lib.no_grad():
                out = y.scatter_(0, _index(lib), s, reduce="add")
        elif case in ("view of a non-leaf", "view, src requires grad"):
            # the base's node (the view's own: test_the_view_gets_the_new_history)
            y = x * 1 if case == "view of a non-leaf" else lib.zeros(3)
            src = 5.0 if case == "view of a non-leaf" else s[:1]
            y[1:].scatter_(0, lib.tensor([0]), src, reduce="add")
            out = y
        else:
            y = x if case != "function, nothing requires grad" else x.detach()
            src = s if case == "function, src requires grad" else 3.0
            if case == "function under no_grad":
                with lib.no_grad():
                    out = lib.scatter(y, 0, _index(lib), src, reduce="multiply")
            else:
                out = lib.scatter(y, 0, _index(lib), src, reduce="multiply")
        node = out.grad_fn
        graph = (name(node), nexts(node) if node is not None else None, out.requires_grad,
                 out.is_leaf, y._version)
        try:
            (out * 1).sum().backward()
        except RuntimeError as e:
            return graph, str(e)
        return graph, x.grad, s.grad
    same(_quiet(scenario))


def test_the_view_gets_the_new_history():
    x = gradtrack.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    v = y[1:]
    v.scatter_(0, gradtrack.tensor([0]), 5.0, reduce="add")
    assert nexts(v.grad_fn) == [("CopySlices", 0)]


def test_backward_through_scatter_with_reduce_raises():
    x = gradtrack.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    y.scatter_(0, _index(gradtrack), 2.0, reduce="add")
    assert type(y.grad_fn).__name__ == "NotImplemented"
    assert y._version == 1
    with pytest.raises(RuntimeError, match=r"^derivative for aten::scatter_ is not implemented$"):
        y.sum().backward()
    out = gradtrack.scatter(x, 0, _index(gradtrack), 2.0, reduce="multiply")
    assert type(out.grad_fn).__name__ == "NotImplemented"
    assert out._version == 0 and x._version == 0
    with pytest.raises(RuntimeError, match=r"^derivative for aten::scatter is not implemented$"):
        out.sum().backward()


def test_a_saved_tensor_written_by_scatter_with_reduce_refuses_backward():
    x = gradtrack.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    z = y * y
    y.scatter_(0, _index(gradtrack), 2.0, reduce="add")
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


# ---- the deprecation warning --------------------------------------------------------------

_WARNINGS = """
import warnings
import {lib} as lib
warnings.simplefilter("always")
log = []
i = lib.tensor([0, 2, 0])
steps = [
    ("value", lambda: lib.ones(3).scatter_(0, i, 2.0, reduce="add")),
    ("function value", lambda: lib.scatter(lib.ones(3), 0, i, 2.0, reduce="add")),
    ("leaf", lambda: lib.ones(3, requires_grad=True).scatter_(0, i, lib.ones(3),
                                                              reduce="add")),
    ("src", lambda: lib.ones(3).scatter_(0, i, lib.ones(3), reduce="multiply")),
    ("src again", lambda: lib.ones(3).scatter_(0, i, lib.ones(3), reduce="add")),
    ("function src", lambda: lib.scatter(lib.ones(3), 0, i, lib.ones(3), reduce="add")),
]
for step, call in steps:
    with warnings.catch_warnings(record=True) as caught:
        try:
            call()
        except RuntimeError:
            pass
    log.append((step, [(w.category.__name__, str(w.message).split(" (Triggered")[0],
                        w.filename == __file__) for w in caught]))
print(log)
"""


def _warnings_of(lib_name, tmp_path):
    script = tmp_path / f"warn_{lib_name}.py"
    script.write_text(textwrap.dedent(_WARNINGS.format(lib=lib_name)))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          check=True)
    return done.stdout.replace("torch", "gradtrack")


TEXT = ("The reduce argument of torch.scatter with Tensor src is deprecated and will be removed "
        "in a future PyTorch release. Use torch.scatter_reduce instead for more reduction "
        "options.")


def test_the_src_form_warns_once_a_process(tmp_path):
    got = eval(_warnings_of("gradtrack", tmp_path))  # noqa: S307 - our own script's repr
    assert got == [("value", []), ("function value", []), ("leaf", []),
                   ("src", [("UserWarning", TEXT.replace("torch", "gradtrack"), True)]),
                   ("src again", []), ("function src", [])]


@pytest.mark.parametrize("out", ["", ", out=gradtrack.empty(3)"], ids=["plain", "out"])
def test_the_function_forms_warning_points_at_the_caller(tmp_path, out):
    script = tmp_path / "warn_function.py"
    script.write_text("import warnings\nimport gradtrack\nwarnings.simplefilter('always')\n"
                      "with warnings.catch_warnings(record=True) as caught:\n"
                      "    gradtrack.scatter(gradtrack.ones(3), 0, gradtrack.tensor([0]), "
                      f"gradtrack.ones(1), reduce='add'{out})\n"
                      "print([(w.filename == __file__, w.lineno) for w in caught])\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "[(True, 5)]"


def test_the_warnings_match_torch(tmp_path):
    pytest.importorskip("torch")
    assert _warnings_of("gradtrack", tmp_path) == _warnings_of("torch", tmp_path)


# ---- the method ----------------------------------------------------------------------------

def test_the_out_of_place_method_takes_reduce(torch):
    def run(lib):
        x = lib.ones(3)
        return [x.scatter(0, _index(lib), 2.0, reduce="add"),
                x.scatter(0, _index(lib), lib.full((3,), 3.0), reduce="multiply"),
                x.scatter(0, _index(lib), 2.0), x]
    same(_quiet(run))
