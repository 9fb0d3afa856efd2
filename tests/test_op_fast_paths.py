"""The per-op fast paths behave as the generic ones, compared with torch.

Tensor's + - * / run CPython number slots of gradtrack's own (NOTE [Number slots] in
csrc/python/bind_fast_ops.cpp) for Tensor and Python-number operands, and hand every
other operand to the bound ``__add__`` / ``__radd__``; Tensor results are made without
pybind11's registry lookups (NOTE [Tensor fast paths] in csrc/python/common.h).
"""

import contextlib
import operator

import numpy as np
import pytest
from helpers import outcome, same

import gradtrack
from gradtrack import _C

OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}
SLOT_NAMES = ["__add__", "__sub__", "__mul__", "__truediv__"]


def test_slots_are_in_place_after_import():
    # An assignment to Tensor.__add__ (etc.) after the install puts CPython's
    # generic slot back: this fails if a later import step does that.
    assert _C._active_number_slots() == SLOT_NAMES


def _tensor(lib, dtype, requires_grad=False):
    values = {"float32": [1.5, -2.0], "float64": [1.5, -2.0], "int64": [3, -4],
              "bool": [True, False]}[dtype]
    t = lib.tensor(values, dtype=getattr(lib, dtype))
    return t.requires_grad_() if requires_grad else t


OTHERS = {
    "int": lambda lib: 3,
    "negative int": lambda lib: -7,
    "float": lambda lib: 0.25,
    "True": lambda lib: True,
    "False": lambda lib: False,
    "float32 tensor": lambda lib: _tensor(lib, "float32"),
    "float64 tensor": lambda lib: _tensor(lib, "float64"),
    "int64 tensor": lambda lib: _tensor(lib, "int64"),
    "bool tensor": lambda lib: _tensor(lib, "bool"),
    "0-d float64 tensor": lambda lib: lib.tensor(2.0, dtype=lib.float64),
    "numpy float64": lambda lib: np.float64(2.5),
    "numpy float32": lambda lib: np.float32(2.5),
    "numpy int64": lambda lib: np.int64(5),
    "numpy bool": lambda lib: np.bool_(True),
    "numpy array": lambda lib: np.array([1.0, 2.0]),
}


@contextlib.contextmanager
def generic_slots():
    """CPython's generic slots (the bound __add__ / __radd__ ...) while inside."""
    tensor = gradtrack.Tensor
    for name in ("add", "sub", "mul", "truediv"):
        for method in (f"__{name}__", f"__r{name}__"):
            setattr(tensor, method, tensor.__dict__[method])
    assert _C._active_number_slots() == []
    try:
        yield
    finally:
        _C._install_number_slots()


def both_paths(scenario):
    """(fast outcome, generic outcome) of ``scenario(gradtrack)``, compared as text
    (NaN results compare equal that way)."""
    fast = repr(outcome(gradtrack, scenario))
    with generic_slots():
        generic = repr(outcome(gradtrack, scenario))
    return fast, generic


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("other", OTHERS)
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
@pytest.mark.parametrize("reflected", [False, True], ids=["tensor op other", "other op tensor"])
def test_fast_path_is_the_generic_path(op, other, dtype, reflected):
    def scenario(lib):
        t, o = _tensor(lib, dtype), OTHERS[other](lib)
        return OPS[op](o, t) if reflected else OPS[op](t, o)

    fast, generic = both_paths(scenario)
    assert fast == generic


# Where gradtrack already differed from torch before the fast path (bool tensors
# in subtraction, NumPy bools, arrays on the left), the test above holds it as it was.
TORCH_OTHERS = ["int", "negative int", "float", "float32 tensor", "float64 tensor",
                "int64 tensor", "0-d float64 tensor", "numpy float64", "numpy float32",
                "numpy int64"]


@pytest.mark.parametrize("op", ["+", "-", "*"])
@pytest.mark.parametrize("other", TORCH_OTHERS)
@pytest.mark.parametrize("dtype", ["float32", "int64"])
@pytest.mark.parametrize("reflected", [False, True], ids=["tensor op other", "other op tensor"])
def test_operands_and_promotion_as_torch(op, other, dtype, reflected):
    def scenario(lib):
        t, o = _tensor(lib, dtype), OTHERS[other](lib)
        return OPS[op](o, t) if reflected else OPS[op](t, o)

    same(scenario)


@pytest.mark.parametrize("other", ["int", "float", "True", "float32 tensor", "int64 tensor",
                                   "bool tensor", "numpy float64"])
@pytest.mark.parametrize("reflected", [False, True], ids=["tensor op other", "other op tensor"])
def test_division_and_bools_as_torch(other, reflected):
    def scenario(lib):
        t, o = lib.tensor([1.5, -2.0]), OTHERS[other](lib)
        out = [o / t, o + t, o * t] if reflected else [t / o, t + o, t * o]
        return [repr(r.tolist()) for r in out], [str(r.dtype) for r in out]

    same(scenario)


# (torch refuses a bool in subtraction, gradtrack computes it: not compared here)
@pytest.mark.parametrize("op,other", [(op, other) for op in OPS
                                      for other in ("tensor", "int", "float", "True")
                                      if (op, other) != ("-", "True")])
@pytest.mark.parametrize("reflected", [False, True])
def test_requires_grad_result_and_gradients(op, other, reflected):
    def scenario(lib):
        a = lib.tensor([1.5, -2.0], requires_grad=True)
        b = lib.tensor([0.5, 4.0], requires_grad=True)
        o = {"tensor": b, "int": 3, "float": 0.5, "True": True}[other]
        out = OPS[op](o, a) if reflected else OPS[op](a, o)
        out.sum().backward()
        return out, a.grad, b.grad

    same(scenario)


@pytest.mark.parametrize("op", OPS)
def test_result_is_a_new_tensor_and_versions_stay(op):
    def scenario(lib):
        a = lib.tensor([1.0, 2.0])
        b = lib.tensor([3.0, 4.0])
        out = OPS[op](a, b)
        scalar_out = OPS[op](a, 1)
        return (out is not a, out is not b, scalar_out is not a, a._version, b._version,
                out._version, scalar_out._version)

    same(scenario)


def test_result_identity_is_kept():
    a, b = gradtrack.ones(3), gradtrack.ones(3)
    out = a + b
    assert out.requires_grad_() is out
    assert out[1:]._base is out
    leaf = gradtrack.ones(2, requires_grad=True)
    (leaf * 2).sum().backward()
    assert leaf.grad is leaf.grad


def test_in_place_operators_keep_the_object():
    def scenario(lib):
        a = lib.tensor([1.0, 2.0])
        before = a
        a += 1
        a -= lib.tensor([0.5, 0.5])
        a *= 2
        a /= 4
        return a is before, a, a._version

    same(scenario)


UNSUPPORTED = {"str": "x", "None": None, "list of str": ["a"], "object": object(),
               "complex": 1j}


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("other", ["str", "None", "object"])
@pytest.mark.parametrize("reflected", [False, True])
def test_unsupported_operands_raise_pythons_type_error(op, other, reflected):
    def scenario(lib):
        t, o = lib.tensor([1.0, 2.0]), UNSUPPORTED[other]
        return OPS[op](o, t) if reflected else OPS[op](t, o)

    same(scenario)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("reflected", [False, True])
def test_complex_numbers_as_the_generic_path(op, reflected):
    # torch promotes to a complex tensor; gradtrack has no complex dtype. The
    # operator must do exactly what the bound method does.
    t = gradtrack.tensor([1.0, 2.0])
    name = {"+": "add", "-": "sub", "*": "mul", "/": "truediv"}[op]
    method = getattr(gradtrack.Tensor, f"__r{name}__" if reflected else f"__{name}__")
    assert method(t, 1j) is NotImplemented
    with pytest.raises(TypeError, match="unsupported operand type"):
        OPS[op](1j, t) if reflected else OPS[op](t, 1j)


def test_errors_of_the_fast_path():
    same(lambda lib: lib.ones(2) + lib.ones(3))
    same(lambda lib: lib.ones(2, dtype=lib.bool) - lib.ones(2, dtype=lib.bool))
    same(lambda lib: lib.ones(2, dtype=lib.int64) / 0)
    same(lambda lib: lib.ones(2) + 2 ** 70)
    same(lambda lib: 2 ** 64 * lib.ones(2, dtype=lib.int64))


@pytest.mark.parametrize("op", OPS)
def test_parameter_operands(op):
    def scenario(lib):
        p = lib.nn.Parameter(lib.tensor([1.0, 2.0]))
        t = lib.tensor([3.0, 5.0])
        results = [OPS[op](p, t), OPS[op](t, p), OPS[op](p, p), OPS[op](2, p), OPS[op](p, 2)]
        return [(type(r).__name__, r) for r in results]

    same(scenario)


def _user_subclass(lib):
    class Sub(lib.Tensor):
        def __add__(self, other):
            return "Sub.__add__"

        def __radd__(self, other):
            return "Sub.__radd__"

        def __rmul__(self, other):
            return "Sub.__rmul__"

    return Sub


@pytest.mark.parametrize("case", ["t + s", "s + t", "2 + s", "s + 2", "t * s", "2 * s"])
def test_user_subclass_overrides_win_in_pythons_order(case):
    def scenario(lib):
        s = _user_subclass(lib)([1.0, 2.0])
        t = lib.tensor([3.0, 4.0])
        out = eval(case, {"s": s, "t": t})
        return type(out).__name__, out if isinstance(out, str) else out.tolist()

    same(scenario)


@pytest.mark.parametrize("case", ["t - s", "s - t", "2 - s", "s - 2", "t / s", "s * t", "s + s"])
def test_user_subclass_without_overrides(case):
    # torch keeps the subclass through __torch_function__ (gradtrack has none):
    # the values and the fast path's agreement with the generic one are checked.
    def scenario(lib):
        s = _user_subclass(lib)([1.0, 2.0])
        t = lib.tensor([3.0, 4.0])
        out = eval(case, {"s": s, "t": t})
        return out if isinstance(out, str) else out.tolist()

    same(scenario)
    fast, generic = both_paths(scenario)
    assert fast == generic


def test_a_python_assignment_to_the_operator_takes_effect():
    tensor = gradtrack.Tensor
    original = tensor.__dict__["__add__"]
    try:
        tensor.__add__ = lambda self, other: "patched"
        assert "__add__" not in _C._active_number_slots()
        assert gradtrack.ones(1) + 1 == "patched"
    finally:
        tensor.__add__ = original
        _C._install_number_slots()
    assert _C._active_number_slots() == SLOT_NAMES
    assert (gradtrack.ones(1) + 1).tolist() == [2.0]


@pytest.mark.parametrize("args", [(), (0,), (1,), (1, True), (-1, False)])
@pytest.mark.parametrize("name", ["max", "min"])
def test_max_min_bound_directly(name, args):
    def scenario(lib):
        a = lib.tensor([[1.0, 5.0, -2.0], [7.0, 0.5, 3.0]], requires_grad=True)
        out = getattr(a, name)(*args)
        values = out if isinstance(out, lib.Tensor) else out.values
        values.sum().backward()
        return type(out).__name__, repr(out) if not isinstance(out, lib.Tensor) else out, a.grad

    same(scenario)


def test_max_min_forms_and_errors():
    same(lambda lib: lib.tensor([1.0, 3.0]).max(lib.tensor([2.0, 2.0])))
    same(lambda lib: lib.tensor([1.0, 3.0]).min(lib.tensor([2.0, 2.0])))
    same(lambda lib: lib.max(lib.tensor([[1.0, 3.0]]), dim=1, keepdim=True).indices)
    same(lambda lib: lib.tensor([[1.0, 3.0]]).max(dim=1).values)
    same(lambda lib: lib.tensor([[1.0, 3.0]]).max(keepdim=True, dim=0))
    same(lambda lib: lib.tensor([1.0, 3.0]).max(2))
    same(lambda lib: lib.tensor([]).max())


ONE_ELEMENT_VALUES = [0.1, -0.0, 0.0, 3.0, 7.0 / 3, -1e-40, 1e38, float("inf"), float("nan")]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", OPS)
def test_one_element_results_bit_for_bit(dtype, op):
    # 1-element operands skip the loop plan (kernels/pointwise.cpp): the same bits
    # as torch, for 1-element and 0-d tensors, in place and through a view.
    def scenario(lib):
        dt = getattr(lib, dtype)
        out = []
        for x in ONE_ELEMENT_VALUES:
            for y in ONE_ELEMENT_VALUES:
                a, b = lib.tensor([x], dtype=dt), lib.tensor(y, dtype=dt)
                out.append(repr(OPS[op](a, b).tolist()))
                base = lib.tensor([5.0, x], dtype=dt)
                view = base[1:]
                {"+": view.add_, "-": view.sub_, "*": view.mul_, "/": view.div_}[op](b)
                out.append(repr(base.tolist()))
        return out

    same(scenario)


def test_one_element_with_alpha_and_mixed_dtypes():
    same(lambda lib: lib.tensor([1.5]).add(lib.tensor([0.1]), alpha=3).tolist())
    same(lambda lib: lib.tensor([1.5]).sub(lib.tensor([0.1]), alpha=0.5).tolist())
    same(lambda lib: (lib.tensor([1.5]) + lib.tensor([0.1], dtype=lib.float64)).tolist())
    same(lambda lib: (lib.tensor([3]) / lib.tensor([2])).tolist())
    same(lambda lib: (lib.tensor([True]) * lib.tensor([0.5])).tolist())
