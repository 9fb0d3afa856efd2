"""trace, baddbmm, addmv, cross (and linalg.cross), linalg.vecdot, einsum and tensordot against torch
2.13 where the op table (tests/ops/op_db/linalg.py) does not reach: argument checks and
their messages, grad_fn names, broadcasting, beta=0, and gradients (double backward and
finite differences).
"""

import pytest

import gradtrack

from area_checks import double_backward, gradcheck_on_float64, grads, randn
from helpers import same


# ---- errors, in torch's words ----------------------------------------------------------------

ERRORS = {
    "trace_1d": lambda lib: lib.trace(lib.ones(3)),
    "cross_len": lambda lib: lib.cross(lib.ones(2, 4), lib.ones(2, 4), dim=1),
    "linalg_cross_len": lambda lib: lib.linalg.cross(lib.ones(3, 2), lib.ones(3, 2)),
    "addmv_sizes": lambda lib: lib.addmv(lib.ones(2), lib.ones(2, 3), lib.ones(4)),
    "baddbmm_sizes": lambda lib: lib.baddbmm(lib.ones(2, 2, 2), lib.ones(2, 2, 3),
                                             lib.ones(2, 4, 2)),
    "vecdot_int": lambda lib: lib.linalg.vecdot(lib.ones(3, dtype=lib.int32), lib.ones(3)),
    "vecdot_dtypes": lambda lib: lib.linalg.vecdot(lib.ones(3), lib.ones(3, dtype=lib.float64)),
    "vecdot_sizes": lambda lib: lib.linalg.vecdot(lib.ones(2, 3), lib.ones(2, 4)),
    "vecdot_dim": lambda lib: lib.linalg.vecdot(lib.ones(2, 3), lib.ones(2, 3), dim=2),
    "vecdot_out_dtype": lambda lib: lib.linalg.vecdot(lib.ones(2, 3), lib.ones(2, 3),
                                                      out=lib.empty(2, dtype=lib.float64)),
    "vecdot_out_grad": lambda lib: lib.linalg.vecdot(lib.ones(2, 3, requires_grad=True),
                                                     lib.ones(2, 3), out=lib.empty(2)),
    "norm_fro_three_dims": lambda lib: lib.norm(lib.ones(2, 3, 4, 5), p="fro", dim=[0, 2, 3]),
    "norm_nuc_all_dims": lambda lib: lib.norm(lib.ones(2, 3, 4), p="nuc"),
    "norm_bad_order": lambda lib: lib.norm(lib.ones(2, 2), "bad"),
    "matrix_norm_three_dims": lambda lib: lib.linalg.matrix_norm(lib.ones(2, 3, 4), "fro",
                                                                 (0, 1, 2)),
    "matrix_norm_one_dim": lambda lib: lib.linalg.matrix_norm(lib.ones(2, 3), "fro", [0]),
    "linalg_norm_three_dims": lambda lib: lib.linalg.norm(lib.ones(2, 3, 4), 2, (0, 1, 2)),
    "linalg_norm_no_dims": lambda lib: lib.linalg.norm(lib.ones(2, 3), None, ()),
    "linalg_matmul_out_grad": lambda lib: lib.linalg.matmul(
        lib.ones(2, 3, requires_grad=True), lib.ones(3, 2), out=lib.empty(2, 2)),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_torch(case):
    same(ERRORS[case])


# ---- values, dtypes, named results and grad_fn names -------------------------------------------

SCENARIOS = {
    "trace": lambda lib: (lib.trace(randn(lib, 3, 4)), lib.trace(lib.arange(6).view(2, 3))),
    "baddbmm_addmv": lambda lib: (lib.baddbmm(randn(lib, 2, 2, 2), randn(lib, 2, 2, 3), randn(lib, 2, 3, 2),
                                              beta=0.5, alpha=2),
                                  lib.addmv(randn(lib, 2), randn(lib, 2, 3), randn(lib, 3), beta=2)),
    "cross": lambda lib: (lib.cross(randn(lib, 2, 3), randn(lib, 2, 3, seed=1), dim=1),
                          lib.linalg.cross(randn(lib, 3, 3), randn(lib, 1, 3, seed=1))),
    "cross_ndim": lambda lib: lib.linalg.cross(lib.ones(2, 3), lib.ones(3)),
    "vecdot_out": lambda lib: (lambda out: (lib.linalg.vecdot(randn(lib, 2, 3), randn(lib, 3, seed=1),
                                                              out=out) is out, out, out._version))(
        lib.empty(2)),
    "norm_string_orders": lambda lib: (lambda m: (
        lib.norm(m, p="nuc"), lib.norm(m, p="nuc", dim=(0, 1), keepdim=True),
        lib.norm(lib.ones(2, 3, 4), p="fro", dim=(1, 2)), lib.norm(lib.ones(2, 3), p="fro", dim=1),
        lib.norm(lib.ones(2, 3, 4), p="fro")))(lib.tensor([[3.0, 0.0], [0.0, -2.0]],
                                                          requires_grad=True)),
    "linalg_matmul_diagonal": lambda lib: (
        lib.linalg.matmul(randn(lib, 2, 3), randn(lib, 3, seed=1)),
        lib.linalg.diagonal(randn(lib, 2, 3, 4), offset=1, dim1=0, dim2=2),
        lib.linalg.diagonal(randn(lib, 3, 3))._is_view()),
    "einsum": lambda lib: (lib.einsum("ij,jk->ik", randn(lib, 2, 3), randn(lib, 3, 4)),
                           lib.einsum("ij->j", randn(lib, 2, 3)),
                           lib.einsum("ii", randn(lib, 3, 3)),
                           lib.einsum("bij,bkj->bik", randn(lib, 2, 3, 4), randn(lib, 2, 5, 4)),
                           lib.einsum("i,j->ij", randn(lib, 2), randn(lib, 3)),
                           lib.einsum("ij,jk,kl->il", randn(lib, 2, 3), randn(lib, 3, 4), randn(lib, 4, 2))),
    "tensordot": lambda lib: (lib.tensordot(randn(lib, 2, 3, 4), randn(lib, 3, 4, 5)),
                              lib.tensordot(randn(lib, 3, 4), randn(lib, 5, 4), dims=([1], [1]))),
}


@pytest.mark.parametrize("case", sorted(SCENARIOS))
def test_values_and_grad_fn_match_torch(case):
    same(SCENARIOS[case])


# ---- gradients where the op table does not reach ---------------------------------------------

GRADIENTS = {
    "trace": lambda lib: (lambda x: grads(lib, lib.trace(x), x))(randn(lib, 3, 4)),
    "baddbmm_broadcast": lambda lib: (lambda s, a, b: grads(lib, lib.baddbmm(s, a, b, alpha=3),
                                                             s, a, b))(
        randn(lib, 2), randn(lib, 2, 3, 4, seed=1), randn(lib, 2, 4, 2, seed=2)),
    "addmv_beta0": lambda lib: (lambda s, m, v: grads(lib, lib.addmv(s, m, v, beta=0), s, m, v))(
        randn(lib, 2), randn(lib, 2, 3, seed=1), randn(lib, 3, seed=2)),
    "cross_broadcast": lambda lib: (lambda a, b: grads(lib, lib.cross(a, b, dim=-1), a, b))(
        randn(lib, 2, 3), randn(lib, 1, 3, seed=1)),
}


@pytest.mark.parametrize("case", sorted(GRADIENTS))
def test_gradients_match_torch(case):
    same(GRADIENTS[case])


DOUBLE = {
    "diagonal_trace": (lambda lib, x: lib.trace(x * x) + lib.diagonal(x, 1).sum() ** 2,
                       [[3.0, 1.0], [0.5, -2.0]]),
    "cross": (lambda lib, x: lib.cross(x, x * x, dim=1), [[3.0, 1.0, 2.0], [0.5, -2.0, 1.0]]),
}


@pytest.mark.parametrize("case", sorted(DOUBLE))
def test_double_backward_matches_torch(case):
    """create_graph=True gradients, then the gradient of their sum."""
    same(double_backward(*DOUBLE[case]))


GRADCHECK = {
    "cross": lambda a, b: gradtrack.cross(a, b, dim=1),
}


@pytest.mark.parametrize("op", list(GRADCHECK))
def test_gradcheck(op):
    """Finite differences (gradtrack.autograd.gradcheck) on float64 inputs."""
    assert gradcheck_on_float64(GRADCHECK[op])
