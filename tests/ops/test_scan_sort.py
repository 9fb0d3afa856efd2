"""Scans and sorts against torch 2.13 where the op table (tests/ops/op_db/scan_sort.py)
does not reach: cumsum and cumprod (integer and bool accumulation, zeros), sort, argsort
and topk (NaN, ties, ``stable=``, k=0, 0-d inputs) and unique. Argument checks and their
messages, grad_fn names, named results, keyword forms, gradients (double backward and
finite differences) and out=.
"""

import pytest

import gradtrack

from area_checks import double_backward, gradcheck_on_float64, grads, randn
from helpers import same


# ---- errors, in torch's words ----------------------------------------------------------------

ERRORS = {
    "cumsum_dim": lambda lib: lib.cumsum(lib.ones(2, 3), 2),
    "sort_dim": lambda lib: lib.sort(lib.tensor(3.0), 1),
    "topk_k_big": lambda lib: lib.topk(lib.ones(2, 3), 4),
    "topk_k_neg": lambda lib: lib.topk(lib.ones(3), -1),
    "topk_0d_k2": lambda lib: lib.topk(lib.tensor(3.0), 2),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_torch(case):
    same(ERRORS[case])


# ---- values, dtypes, named results and grad_fn names -------------------------------------------

SCENARIOS = {
    "cumsum_int32_to_int64": lambda lib: lib.cumsum(lib.tensor([1, 2, 3], dtype=lib.int32), 0),
    "cumsum_bool": lambda lib: lib.tensor([True, False, True]).cumsum(0),
    "cumsum_dtype_kw": lambda lib: lib.cumsum(lib.ones(2, 3), dim=0, dtype=lib.int32),
    "cumprod_grad_fn": lambda lib: lib.cumprod(randn(lib, 2, 3), 1),
    "sort_named": lambda lib: lib.sort(lib.tensor([2.0, 3.0, 1.0]), descending=True),
    # NaN != NaN in the comparison: NaN is shown as 99
    "sort_nan_last": lambda lib: [t.nan_to_num(99.0) for t in lib.sort(
        lib.tensor([2.0, float("nan"), 1.0]))],
    "sort_nan_first_desc": lambda lib: [t.nan_to_num(99.0) for t in lib.sort(
        lib.tensor([2.0, float("nan"), 1.0]), 0, True)],
    "sort_bool": lambda lib: lib.sort(lib.tensor([True, False])),
    "sort_0d": lambda lib: lib.sort(lib.tensor(3.0), 0),
    "sort_stable_ties": lambda lib: lib.sort(lib.tensor([1, 0, 1, 0, 1]), stable=True),
    # any stable= (None included) takes torch's sort.stable overload: SortBackward1
    "sort_stable_grad_fn": lambda lib: (lib.sort(randn(lib, 4), stable=True),
                                        lib.sort(randn(lib, 4), stable=None),
                                        randn(lib, 4).sort(0, True), randn(lib, 4).sort(stable=False)),
    "argsort": lambda lib: lib.argsort(lib.tensor([[3, 1, 2], [0, 5, 4]]), dim=1),
    "topk_named": lambda lib: lib.topk(randn(lib, 3, 4), 2, dim=0, largest=False),
    "topk_0d": lambda lib: lib.topk(lib.tensor(3.0), 1),
    "topk_k0": lambda lib: lib.topk(lib.ones(2, 3), 0),
    "unique": lambda lib: (lib.unique(lib.tensor([[3, 1], [3, 2]])),
                           lib.unique(lib.tensor([2.5, -1.0, 2.5, 0.0, -1.0]), return_inverse=True,
                                      return_counts=True),
                           lib.tensor([True, False, True]).unique(return_counts=True),
                           lib.unique(lib.zeros(0), return_inverse=True, return_counts=True),
                           lib.unique(randn(lib, 2, 3, rg=False))),
}


@pytest.mark.parametrize("case", sorted(SCENARIOS))
def test_values_and_grad_fn_match_torch(case):
    same(SCENARIOS[case])


# ---- gradients where the op table does not reach ---------------------------------------------

GRADIENTS = {
    "cumprod_zeros": lambda lib: (lambda x: grads(lib, lib.cumprod(x, 1), x))(
        lib.tensor([[0.0, 2.0, 0.0, 3.0], [1.5, -2.0, 0.0, 4.0]], dtype=lib.float64,
                   requires_grad=True)),
    "sort_ties": lambda lib: (lambda x: grads(lib, lib.sort(x, stable=True), x))(
        lib.tensor([1.0, 0.0, 1.0, 0.0], dtype=lib.float64, requires_grad=True)),
}


@pytest.mark.parametrize("case", sorted(GRADIENTS))
def test_gradients_match_torch(case):
    same(GRADIENTS[case])


DOUBLE = {
    "cumprod_zeros": (lambda lib, x: lib.cumprod(x, 0), [[0.0, 2.0], [1.5, 0.0], [2.0, 3.0]]),
    "sort": (lambda lib, x: lib.sort(x, 1).values * lib.arange(2.0), [[3.0, 1.0], [0.5, 2.0]]),
}


@pytest.mark.parametrize("case", sorted(DOUBLE))
def test_double_backward_matches_torch(case):
    """create_graph=True gradients, then the gradient of their sum."""
    same(double_backward(*DOUBLE[case]))


GRADCHECK = {
    "cumprod": lambda a: gradtrack.cumprod(a, 1),
}


@pytest.mark.parametrize("op", list(GRADCHECK))
def test_gradcheck(op):
    """Finite differences (gradtrack.autograd.gradcheck) on float64 inputs."""
    assert gradcheck_on_float64(GRADCHECK[op])


# ---- out= (NOTE [out= rules] in gradtrack/_out.py) ------------------------------------------

OUT = {
    "cumsum_into_view": lambda lib: (lambda base: (lib.cumsum(lib.ones(3), 0, out=base[:3]), base,
                                                   base._version))(lib.zeros(5)),
    "cumsum_resize_empty": lambda lib: (lambda o: (lib.cumsum(lib.ones(2, 2), 1, out=o), o.shape,
                                                   o._version))(lib.empty(0)),
    "cumsum_cast_int_out": lambda lib: lib.cumsum(lib.ones(3), 0, out=lib.empty(3, dtype=lib.int64)),
    "sort_tuple": lambda lib: lib.sort(lib.tensor([2.0, 1.0]),
                                       out=(lib.empty(2), lib.empty(2, dtype=lib.int64))),
    "topk_tuple": lambda lib: lib.topk(lib.tensor([2.0, 1.0, 3.0]), 2,
                                       out=(lib.empty(2), lib.empty(2, dtype=lib.int64))),
    "requires_grad": lambda lib: lib.cumsum(lib.ones(3, requires_grad=True), 0, out=lib.empty(3)),
}


@pytest.mark.parametrize("case", sorted(OUT))
def test_out_matches_torch(case):
    same(OUT[case])


def test_out_resize_warns_as_torch():
    torch = pytest.importorskip("torch")
    for lib in (gradtrack, torch):
        o = lib.zeros(2)
        with pytest.warns(UserWarning, match=r"had shape \[2\], which does not match the "
                                             r"required output shape \[3\]"):
            lib.cumsum(lib.ones(3), 0, out=o)
        assert o.tolist() == [1.0, 2.0, 3.0]
