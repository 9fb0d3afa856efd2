"""nll_loss and cross_entropy backward given a NaN or infinite incoming gradient:
torch writes the gradient only at each sample's target (ignored samples and the other
classes stay exactly 0), so the non-finite value reaches those entries alone."""

import numpy as np
import pytest

import gradtrack

WEIGHT = [2.3, 0.0, 0.7]  # a zero weight: 0 * NaN is NaN at its targets, as in torch
TARGET = [1, 0, 2, 2]


def _grads(lib, loss, reduction, ignore_index, spatial):
    shape = (2, 3, 2, 2) if spatial else (4, 3)
    x = lib.tensor(np.linspace(-1.0, 1.0, int(np.prod(shape))).reshape(shape),
                   dtype=lib.float32, requires_grad=True)
    target = lib.tensor([[[0, 1], [2, 1]], [[1, 1], [0, 2]]] if spatial else TARGET)
    fn = getattr(lib.nn.functional, loss)
    y = fn(x, target, weight=lib.tensor(WEIGHT), ignore_index=ignore_index, reduction=reduction)
    if reduction == "none":
        flat = [1.0, float("nan"), float("inf"), -2.0] * (2 if spatial else 1)
        g = lib.tensor(flat[:y.numel()]).reshape(y.shape)
    else:
        g = lib.tensor(float("nan"))
    (gx,) = lib.autograd.grad(y, x, g)
    return gx.detach().numpy()


@pytest.mark.parametrize("spatial", [False, True])
@pytest.mark.parametrize("ignore_index", [1, -100])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("loss", ["nll_loss", "cross_entropy"])
def test_non_finite_gradient_stays_at_the_targets(torch, loss, reduction, ignore_index, spatial):
    ours = _grads(gradtrack, loss, reduction, ignore_index, spatial)
    theirs = _grads(torch, loss, reduction, ignore_index, spatial)
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-7)
    assert np.signbit(ours[ours == 0]).tolist() == np.signbit(theirs[ours == 0]).tolist()


def test_finite_entries_are_exact_zeros_away_from_the_targets():
    gx = _grads(gradtrack, "nll_loss", "sum", 1, False)
    want_nan = np.zeros((4, 3), dtype=bool)
    for row, t in enumerate(TARGET):
        want_nan[row, t] = t != 1
    np.testing.assert_array_equal(np.isnan(gx), want_nan)
    assert (gx[~want_nan] == 0).all()
