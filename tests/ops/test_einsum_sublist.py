"""einsum's sublist form (``einsum(op1, [0, 1], op2, [1, 2], [0, 2])``: operands
interleaved with lists of ints in [0, 52), ``Ellipsis`` for ``...``, an optional output
list last) and the equation checks every einsum call passes, with torch 2.13's results,
nodes and errors."""

import numpy as np
import pytest

import gradtrack

from helpers import same


def _t(lib, *shape):
    n = int(np.prod(shape)) if shape else 1
    return (lib.arange(float(n)) * 0.5 - 1.0).reshape(shape).requires_grad_()


# ---- the sublist form computes what the equation computes ---------------------------------

def test_sublists_give_the_equations_result():
    a = gradtrack.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    b = gradtrack.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    assert gradtrack.einsum(a, [0, 1], b, [1, 2], [0, 2]).tolist() == [[4.0, 5.0], [10.0, 11.0]]
    assert gradtrack.einsum(a, [0, 1], b, [1, 2]).tolist() == [[4.0, 5.0], [10.0, 11.0]]
    assert gradtrack.einsum(a, [0, 1], [1]).tolist() == [5.0, 7.0, 9.0]
    assert gradtrack.einsum(a, [0, 1], []).item() == 21.0
    assert gradtrack.einsum(a, [1, 0]).shape == (3, 2)  # implicit output: sorted subscripts
    assert gradtrack.einsum(a, [0, 27]).shape == (2, 3)  # 0 is A, 27 is b: "A" sorts first
    assert gradtrack.einsum(a, [27, 0]).shape == (3, 2)


E = Ellipsis
# name: (operand shapes, the call given the library and the operands)
SCENARIOS = {
    "matmul": ([(2, 3), (3, 4)], lambda L, a, b: L.einsum(a, [0, 1], b, [1, 2], [0, 2])),
    "implicit output": ([(2, 3), (3, 4)], lambda L, a, b: L.einsum(a, [0, 1], b, [1, 2])),
    "lowercase and uppercase": ([(2, 3), (3,)], lambda L, a, b: L.einsum(a, [51, 0], b, [0])),
    "implicit mixed case": ([(2, 3)], lambda L, a: L.einsum(a, [30, 3])),
    "sum to a scalar": ([(2, 3)], lambda L, a: L.einsum(a, [0, 1], [])),
    "transpose": ([(2, 3)], lambda L, a: L.einsum(a, [0, 1], [1, 0])),
    "trace": ([(3, 3)], lambda L, a: L.einsum(a, [4, 4])),
    "diagonal": ([(3, 3)], lambda L, a: L.einsum(a, [4, 4], [4])),
    "outer": ([(2,), (3,)], lambda L, a, b: L.einsum(a, [0], b, [1], [0, 1])),
    "three operands": ([(2, 3), (3, 4), (4, 2)],
                       lambda L, a, b, c: L.einsum(a, [0, 1], b, [1, 2], c, [2, 3], [0, 3])),
    "batched with ellipsis": ([(5, 2, 3), (3, 4)],
                              lambda L, a, b: L.einsum(a, [E, 0, 1], b, [E, 1, 2], [E, 0, 2])),
    "ellipsis broadcasts": ([(2, 1, 3), (4, 3)],
                            lambda L, a, b: L.einsum(a, [E, 0], b, [E, 0], [E])),
    "ellipsis in the middle": ([(2, 3, 4)], lambda L, a: L.einsum(a, [0, E, 1], [1, 0])),
    "ellipsis only in the output": ([(2, 3)], lambda L, a: L.einsum(a, [0, 1], [E, 1])),
    "tuples": ([(2, 3), (3,)], lambda L, a, b: L.einsum(a, (0, 1), b, (1,), (0,))),
    "numpy ints": ([(2, 3)],
                   lambda L, a: L.einsum(a, [np.int64(0), np.int64(1)], [np.int32(1)])),
    "bools": ([(2, 3)], lambda L, a: L.einsum(a, [False, True], [True])),
    "0-dim operand": ([(), (3,)], lambda L, a, b: L.einsum(a, [], b, [7], [7])),
    "broadcast size one": ([(1, 3), (2, 3)],
                           lambda L, a, b: L.einsum(a, [0, 1], b, [0, 1], [0, 1])),
}


@pytest.mark.parametrize("name", SCENARIOS)
def test_sublist_results_nodes_and_gradients_match_torch(name):
    shapes, call = SCENARIOS[name]

    def scenario(lib):
        operands = [_t(lib, *shape) for shape in shapes]
        out = call(lib, *operands)
        return out, lib.autograd.grad((out * out).sum(), operands)
    same(scenario)


def test_the_sublist_form_is_the_equation_form():
    for shapes, call in SCENARIOS.values():
        operands = [_t(gradtrack, *shape) for shape in shapes]
        out = call(gradtrack, *operands)
        assert out.requires_grad
        assert np.isfinite(out.detach().numpy()).all()
    a, b = _t(gradtrack, 5, 2, 3), _t(gradtrack, 3, 4)
    by_list = gradtrack.einsum(a, [E, 0, 1], b, [E, 1, 2], [E, 0, 2])
    by_text = gradtrack.einsum("...AB,...BC->...AC", a, b)
    assert by_list.tolist() == by_text.tolist()
    assert type(by_list.grad_fn).__name__ == type(by_text.grad_fn).__name__


# ---- errors -------------------------------------------------------------------------------

ERRORS = {
    "only an operand": lambda L: L.einsum(_t(L, 2)),
    "nothing": lambda L: L.einsum(),
    "subscript 52": lambda L: L.einsum(_t(L, 2), [52]),
    "negative subscript": lambda L: L.einsum(_t(L, 2), [-1]),
    "output subscript 52": lambda L: L.einsum(_t(L, 2), [0], [52]),
    "string subscript": lambda L: L.einsum(_t(L, 2), ["a"]),
    "float subscript": lambda L: L.einsum(_t(L, 2), [1.5]),
    "None subscript": lambda L: L.einsum(_t(L, 2), [None]),
    "an int for a sublist": lambda L: L.einsum(_t(L, 2), 5),
    "too few subscripts": lambda L: L.einsum(_t(L, 2, 3), [0]),
    "too many subscripts": lambda L: L.einsum(_t(L, 2), [0, 1]),
    "too many with ellipsis": lambda L: L.einsum(_t(L, 2), [0, Ellipsis, 1]),
    "output repeats": lambda L: L.einsum(_t(L, 2), [0], [0, 0]),
    "output not in the inputs": lambda L: L.einsum(_t(L, 2), [0], [1]),
    "two ellipses": lambda L: L.einsum(_t(L, 2, 3), [Ellipsis, 0, Ellipsis]),
    "two ellipses in the output": lambda L: L.einsum(_t(L, 2, 3), [Ellipsis, 0],
                                                     [Ellipsis, Ellipsis]),
    "repeated subscript sizes differ": lambda L: L.einsum(_t(L, 2, 3), [0, 0]),
    "sizes do not broadcast": lambda L: L.einsum(_t(L, 2), [0], _t(L, 3), [0]),
    "ellipses do not broadcast": lambda L: L.einsum(_t(L, 4, 3), [Ellipsis], _t(L, 5),
                                                    [Ellipsis], [Ellipsis]),
    "a sublist where an operand goes": lambda L: L.einsum(_t(L, 2), [0], [0], _t(L, 2), [0]),
    "a tensor for the output sublist": lambda L: L.einsum(_t(L, 2), [0], _t(L, 2, 2)),
}


@pytest.mark.parametrize("name", ERRORS)
def test_sublist_errors_match_torch(name):
    same(ERRORS[name])


def test_sublist_errors_without_torch():
    x = gradtrack.ones(2, 3)
    with pytest.raises(ValueError, match=r"^einsum\(\): subscript in subscript list is not "
                                         r"within the valid range \[0, 52\)$"):
        gradtrack.einsum(x, [0, 52])
    with pytest.raises(RuntimeError, match="^einsum\\(\\): output subscript A appears more "
                                           "than once in the output$"):
        gradtrack.einsum(x, [0, 1], [0, 0])
    with pytest.raises(RuntimeError, match="^einsum\\(\\): output subscript C does not appear "
                                           "in the equation for any input operand$"):
        gradtrack.einsum(x, [0, 1], [2])
    with pytest.raises(ValueError, match="must specify the equation string"):
        gradtrack.einsum(x)


# ---- the equation form gets the same checks -----------------------------------------------

EQUATIONS = {
    "invalid subscript": ("i1", (2, 2)),
    "invalid subscript after spaces": ("i j1", (2, 2)),
    "invalid output subscript": ("ij -> j1", (2, 2)),
    "a second arrow": ("ij->j->i", (2, 2)),
    "a dot": ("i.", (2,)),
    "a dot in the output": ("ij->.", (2, 3)),
    "fewer operands": ("ij,jk", (2, 3)),
    "more operands": ("ij", (2, 3), (3, 2)),
    "ellipsis sizes, right-aligned": ("...,...->...", (5,), (4, 3)),
    "ellipsis after named dims": ("ij...,ij...->", (2, 2, 3), (2, 2, 4)),
    "a size-1 dim broadcasts": ("ij,ij->ij", (1, 3), (2, 3)),
    "spaces": (" i j -> j ", (2, 3)),
    "an empty subscript list": (",ij", (), (2, 3)),
}


@pytest.mark.parametrize("name", EQUATIONS)
def test_equation_checks_match_torch(name):
    equation, *shapes = EQUATIONS[name]
    same(lambda lib: lib.einsum(equation, *[_t(lib, *s) for s in shapes]))


def test_equation_that_is_not_a_string_matches_torch():
    same(lambda lib: lib.einsum(5, _t(lib, 2)))
    same(lambda lib: lib.einsum("i,i", _t(lib, 2), [1.0, 2.0]))
