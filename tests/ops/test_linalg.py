"""trace, baddbmm, addmv, cross (and linalg.cross), einsum and tensordot against torch
2.13 where the op table (tests/ops/op_db/linalg.py) does not reach: argument checks and
their messages, grad_fn names, broadcasting, beta=0, and gradients (double backward and
finite differences).
"""

import numpy as np
import pytest

import gradtrack

from helpers import same


def _x(lib, *shape, seed=0, rg=True):
    data = np.random.default_rng(seed).standard_normal(shape)
    return lib.tensor(data, dtype=lib.float64, requires_grad=rg)


def _grads(lib, out, *inputs):
    """Gradients of ``out`` (a tensor or a tuple whose first is) for a fixed upstream."""
    out = out[0] if isinstance(out, tuple) else out
    up = lib.tensor(np.linspace(-1, 1, max(out.numel(), 1)).reshape(tuple(out.shape)))
    return lib.autograd.grad([out], list(inputs), [up], allow_unused=True)


# ---- errors, in torch's words ----------------------------------------------------------------

ERRORS = {
    "trace_1d": lambda lib: lib.trace(lib.ones(3)),
    "cross_len": lambda lib: lib.cross(lib.ones(2, 4), lib.ones(2, 4), dim=1),
    "linalg_cross_len": lambda lib: lib.linalg.cross(lib.ones(3, 2), lib.ones(3, 2)),
    "addmv_sizes": lambda lib: lib.addmv(lib.ones(2), lib.ones(2, 3), lib.ones(4)),
    "baddbmm_sizes": lambda lib: lib.baddbmm(lib.ones(2, 2, 2), lib.ones(2, 2, 3),
                                             lib.ones(2, 4, 2)),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_torch(case):
    same(ERRORS[case])


# ---- values, dtypes, named results and grad_fn names -------------------------------------------

SCENARIOS = {
    "trace": lambda lib: (lib.trace(_x(lib, 3, 4)), lib.trace(lib.arange(6).view(2, 3))),
    "baddbmm_addmv": lambda lib: (lib.baddbmm(_x(lib, 2, 2, 2), _x(lib, 2, 2, 3), _x(lib, 2, 3, 2),
                                              beta=0.5, alpha=2),
                                  lib.addmv(_x(lib, 2), _x(lib, 2, 3), _x(lib, 3), beta=2)),
    "cross": lambda lib: (lib.cross(_x(lib, 2, 3), _x(lib, 2, 3, seed=1), dim=1),
                          lib.linalg.cross(_x(lib, 3, 3), _x(lib, 1, 3, seed=1))),
    "cross_ndim": lambda lib: lib.linalg.cross(lib.ones(2, 3), lib.ones(3)),
    "einsum": lambda lib: (lib.einsum("ij,jk->ik", _x(lib, 2, 3), _x(lib, 3, 4)),
                           lib.einsum("ij->j", _x(lib, 2, 3)),
                           lib.einsum("ii", _x(lib, 3, 3)),
                           lib.einsum("bij,bkj->bik", _x(lib, 2, 3, 4), _x(lib, 2, 5, 4)),
                           lib.einsum("i,j->ij", _x(lib, 2), _x(lib, 3)),
                           lib.einsum("ij,jk,kl->il", _x(lib, 2, 3), _x(lib, 3, 4), _x(lib, 4, 2))),
    "tensordot": lambda lib: (lib.tensordot(_x(lib, 2, 3, 4), _x(lib, 3, 4, 5)),
                              lib.tensordot(_x(lib, 3, 4), _x(lib, 5, 4), dims=([1], [1]))),
}


@pytest.mark.parametrize("case", sorted(SCENARIOS))
def test_values_and_grad_fn_match_torch(case):
    same(SCENARIOS[case])


# ---- gradients where the op table does not reach ---------------------------------------------

GRADIENTS = {
    "trace": lambda lib: (lambda x: _grads(lib, lib.trace(x), x))(_x(lib, 3, 4)),
    "baddbmm_broadcast": lambda lib: (lambda s, a, b: _grads(lib, lib.baddbmm(s, a, b, alpha=3),
                                                              s, a, b))(
        _x(lib, 2), _x(lib, 2, 3, 4, seed=1), _x(lib, 2, 4, 2, seed=2)),
    "addmv_beta0": lambda lib: (lambda s, m, v: _grads(lib, lib.addmv(s, m, v, beta=0), s, m, v))(
        _x(lib, 2), _x(lib, 2, 3, seed=1), _x(lib, 3, seed=2)),
    "cross_broadcast": lambda lib: (lambda a, b: _grads(lib, lib.cross(a, b, dim=-1), a, b))(
        _x(lib, 2, 3), _x(lib, 1, 3, seed=1)),
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
    fn, data = DOUBLE[case]

    def scenario(lib):
        x = lib.tensor(data, dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad([fn(lib, x).sum()], [x], create_graph=True)
        (gg,) = lib.autograd.grad([(g * g).sum()], [x])
        return g.detach(), gg

    same(scenario)


@pytest.mark.parametrize("op", ["cross"])
def test_gradcheck(op):
    """Finite differences (gradtrack.autograd.gradcheck) on float64 inputs."""
    x = _x(gradtrack, 2, 3)
    y = _x(gradtrack, 2, 3, seed=1)
    fns = {
        "cross": lambda a, b: gradtrack.cross(a, b, dim=1),
    }
    fn = fns[op]
    args = (x, y) if fn.__code__.co_argcount == 2 else (x,)
    assert gradtrack.autograd.gradcheck(fn, args)
