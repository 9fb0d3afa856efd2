"""nan_to_num, lerp and isclose/allclose against torch 2.13 where the op table
(tests/ops/op_db/pointwise.py) does not reach: argument checks and their messages,
dtypes, NaN and infinities, broadcast weights, gradients (finite differences too) and
out= that cannot cast.
"""

import pytest

import gradtrack

from area_checks import gradcheck_on_float64, grads, randn
from helpers import same


# ---- errors, in torch's words ----------------------------------------------------------------

ERRORS = {
    "lerp_dtype": lambda lib: lib.lerp(lib.ones(2), lib.ones(2, dtype=lib.float64), 0.5),
    "lerp_int": lambda lib: lib.lerp(lib.ones(2, dtype=lib.int64), lib.ones(2, dtype=lib.int64),
                                     0.5),
    "isclose_dtypes": lambda lib: lib.isclose(lib.tensor([1]), lib.tensor([1.0])),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_torch(case):
    same(ERRORS[case])


# ---- values, dtypes, named results and grad_fn names -------------------------------------------

SCENARIOS = {
    "nan_to_num": lambda lib: lib.nan_to_num(
        lib.tensor([float("nan"), float("inf"), -float("inf"), 1.0], requires_grad=True)),
    "nan_to_num_values": lambda lib: lib.nan_to_num(
        lib.tensor([float("nan"), float("inf"), -float("inf")], dtype=lib.float64), 1.0, 2.0, -3.0),
    "nan_to_num_int": lambda lib: lib.nan_to_num(lib.tensor([1, 2])),
    "lerp": lambda lib: (lib.lerp(randn(lib, 3), randn(lib, 3, seed=1), 0.25),
                         lib.lerp(randn(lib, 3), randn(lib, 3, seed=1), randn(lib, 3, seed=2)),
                         lib.lerp(lib.tensor([1.0]), lib.tensor([3.0]), 1.0)),
    "isclose": lambda lib: (lib.isclose(lib.tensor([1.0, float("nan"), 2.0]),
                                        lib.tensor([1.0 + 1e-9, float("nan"), 2.1])),
                            lib.isclose(lib.tensor([float("nan")]), lib.tensor([float("nan")]),
                                        equal_nan=True),
                            lib.isclose(lib.tensor([float("inf")]), lib.tensor([float("inf")])),
                            lib.allclose(lib.tensor([1.0]), lib.tensor([1.0 + 1e-9])),
                            lib.allclose(lib.tensor([1.0]), lib.tensor([1.1]))),
}


@pytest.mark.parametrize("case", sorted(SCENARIOS))
def test_values_and_grad_fn_match_torch(case):
    same(SCENARIOS[case])


# ---- gradients where the op table does not reach ---------------------------------------------

GRADIENTS = {
    "nan_to_num": lambda lib: (lambda x: grads(lib, lib.nan_to_num(x), x))(
        lib.tensor([float("nan"), float("inf"), 2.0], dtype=lib.float64, requires_grad=True)),
    "lerp_broadcast": lambda lib: (lambda a, b, w: grads(lib, lib.lerp(a, b, w), a, b, w))(
        randn(lib, 2, 3), randn(lib, 3, seed=1), randn(lib, 2, 1, seed=2)),
}


@pytest.mark.parametrize("case", sorted(GRADIENTS))
def test_gradients_match_torch(case):
    same(GRADIENTS[case])


GRADCHECK = {
    "lerp": lambda a, b: gradtrack.lerp(a, b, a.sigmoid()),
}


@pytest.mark.parametrize("op", list(GRADCHECK))
def test_gradcheck(op):
    """Finite differences (gradtrack.autograd.gradcheck) on float64 inputs."""
    assert gradcheck_on_float64(GRADCHECK[op])


# ---- out= (NOTE [out= rules] in gradtrack/_out.py) ------------------------------------------

OUT = {
    "lerp_cast_refused": lambda lib: lib.lerp(lib.ones(2), lib.ones(2), 0.5,
                                              out=lib.empty(2, dtype=lib.int64)),
}


@pytest.mark.parametrize("case", sorted(OUT))
def test_out_matches_torch(case):
    same(OUT[case])


def test_isclose_never_takes_an_infinite_error_as_close(torch):
    """torch's isclose needs a finite |a - b|: inf against 1.5 is not close even with an
    infinite atol; equal infinities are (they are equal)."""
    def run(lib):
        inf, nan = float("inf"), float("nan")
        a = lib.tensor([inf, -inf, inf, 1.0, nan, 1e38])
        b = lib.tensor([1.5, inf, inf, 1.0, 1.0, -1e38])
        return (lib.isclose(a, b, atol=inf).tolist(), lib.isclose(a, b, rtol=inf).tolist(),
                lib.allclose(a[:1], b[:1], atol=inf))
    assert run(gradtrack) == run(torch)
