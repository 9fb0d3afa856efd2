"""tril/triu (in place too), flip, roll, repeat and tile, repeat_interleave, diag,
diag_embed and diagonal against torch 2.13 where the op table (tests/ops/op_db/shape.py,
views.py) does not reach: argument checks and their messages, grad_fn names, empty
shapes, views and versions, gradients and out=.
"""

import numpy as np
import pytest

import gradtrack

from area_checks import grads, randn
from helpers import same


# ---- errors, in torch's words ----------------------------------------------------------------

ERRORS = {
    "tril_1d": lambda lib: lib.tril(lib.ones(3)),
    "triu_1d": lambda lib: lib.ones(3).triu(),
    "flip_dup": lambda lib: lib.flip(lib.ones(2, 3), (0, 0)),
    "flip_range": lambda lib: lib.flip(lib.ones(2, 3), (3,)),
    "roll_align": lambda lib: lib.roll(lib.ones(2, 3), (1, 2), (0,)),
    "roll_empty": lambda lib: lib.roll(lib.ones(2, 3), (), ()),
    "roll_range": lambda lib: lib.roll(lib.ones(2, 3), 1, 5),
    "repeat_fewer": lambda lib: lib.ones(2, 3).repeat(2),
    "repeat_negative": lambda lib: lib.ones(2, 3).repeat(-1, 1),
    "repeat_none": lambda lib: lib.ones(2).repeat(),
    "diag_3d": lambda lib: lib.diag(lib.ones(2, 2, 2)),
    "diagonal_same_dims": lambda lib: lib.diagonal(lib.zeros(2, 3), 0, 1, 1),
    "diag_embed_same_dims": lambda lib: lib.diag_embed(lib.ones(2), 1, 0, 0),
    "repeat_interleave_sizes": lambda lib: lib.repeat_interleave(lib.ones(2, 3), lib.tensor([1, 2, 3]),
                                                                 dim=0),
    "repeat_interleave_negative": lambda lib: lib.repeat_interleave(lib.ones(2), -1),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_torch(case):
    same(ERRORS[case])


# ---- values, dtypes, named results and grad_fn names -------------------------------------------

SCENARIOS = {
    "tril_grad_fn": lambda lib: (lib.tril(randn(lib, 3, 3)), lib.triu(randn(lib, 3, 3), -1)),
    "tril_inplace": lambda lib: (lambda y: (y.tril_(1), y._version))(randn(lib, 3, 4) * 1),
    "triu_inplace_leaf": lambda lib: randn(lib, 3, 3).triu_(),
    "flip_roll_repeat_grad_fn": lambda lib: (lib.flip(randn(lib, 2, 3), (0,)),
                                             lib.roll(randn(lib, 2, 3), 1),
                                             randn(lib, 2, 3).repeat(2, 1),
                                             lib.tile(randn(lib, 2, 3), (2,))),
    "repeat_empty": lambda lib: lib.ones(2, 0).repeat(3, 2),
    "diagonal_view": lambda lib: (lambda x: (lib.diagonal(x, 1), lib.diagonal(x, 1)._base is x))(
        randn(lib, 3, 4)),
    "diagonal_dims": lambda lib: lib.diagonal(lib.arange(24.0).view(2, 3, 4), -1, 2, 0),
    "diagonal_beyond": lambda lib: lib.diagonal(lib.zeros(2, 3), 5),
    "diag_embed": lambda lib: lib.diag_embed(randn(lib, 2, 3), -1, 0, 2),
    "diag_1d_2d": lambda lib: (lib.diag(randn(lib, 3), 1), lib.diag(randn(lib, 3, 4), -1)),
    "repeat_interleave": lambda lib: (randn(lib, 2, 3).repeat_interleave(2),
                                      lib.repeat_interleave(randn(lib, 2, 3), 3, dim=1),
                                      lib.repeat_interleave(randn(lib, 2, 3), lib.tensor([1, 2]), dim=0),
                                      lib.repeat_interleave(randn(lib, 2, 3), lib.tensor([0, 2, 1]), 1),
                                      lib.repeat_interleave(lib.tensor([0, 2, 0, 3]))),
}


@pytest.mark.parametrize("case", sorted(SCENARIOS))
def test_values_and_grad_fn_match_torch(case):
    same(SCENARIOS[case])


# ---- gradients where the op table does not reach ---------------------------------------------

GRADIENTS = {
    "diagonal_offsets": lambda lib: (lambda x: grads(lib, lib.diagonal(x, -1, 2, 0), x))(
        randn(lib, 3, 2, 4)),
    "diag_embed": lambda lib: (lambda x: grads(lib, lib.diag_embed(x, 1), x))(randn(lib, 2, 3)),
    "repeat_interleave": lambda lib: (lambda x: (
        grads(lib, x.repeat_interleave(2, dim=0), x),
        grads(lib, x.repeat_interleave(lib.tensor([2, 0, 1]), dim=1), x)))(randn(lib, 2, 3)),
}


@pytest.mark.parametrize("case", sorted(GRADIENTS))
def test_gradients_match_torch(case):
    same(GRADIENTS[case])


def test_tril_inplace_version_and_gradient():
    torch = pytest.importorskip("torch")

    def run(lib):
        x = randn(lib, 3, 3)
        y = x * 2
        view = y[1:]
        view.triu_()
        return y._version, type(y.grad_fn).__name__, grads(lib, y, x)

    gv, gn, gg = run(gradtrack)
    tv, tn, tg = run(torch)
    assert (gv, gn) == (tv, tn)
    np.testing.assert_allclose(gg[0].numpy(), tg[0].numpy())


# ---- out= (NOTE [out= rules] in gradtrack/_out.py) ------------------------------------------

OUT = {
    "out_requires_grad": lambda lib: lib.tril(lib.ones(2, 2), out=lib.ones(2, 2, requires_grad=True)),
}


@pytest.mark.parametrize("case", sorted(OUT))
def test_out_matches_torch(case):
    same(OUT[case])
