"""nll_loss's reductions and the reduced-float log_softmax agree with torch 2.13 bit for bit.

torch's CPU nll_loss sums in the input's own type through a cascade of partial sums
(NOTE [nll_loss sums as torch's] in csrc/ops/nn/loss.cpp), and its bfloat16 / float16
log_softmax over the last dim keeps the log of the sum in that type (NOTE [A reduced
float's log-sum is rounded] in csrc/ops/nn/activation.cpp). A more accurate sum would
differ from torch's printed losses in the last digits; these tests compare exact bits.
"""

import numpy as np
import pytest

import gradtrack

DTYPES = ["float32", "float64", "bfloat16"]


def _nll(lib, x, t, w, dt, **kw):
    X = lib.tensor(x).to(getattr(lib, dt))
    W = None if w is None else lib.tensor(w).to(getattr(lib, dt))
    out = lib.nn.functional.nll_loss(X, lib.tensor(t), weight=W, **kw)
    return out.double().numpy()


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("n", [1, 15, 16, 17, 255, 257, 4100])
@pytest.mark.parametrize("reduction", ["sum", "mean"])
@pytest.mark.parametrize("weighted", [False, True])
def test_nll_loss_reduction_bits(torch, dt, n, reduction, weighted):
    rng = np.random.RandomState(n)
    x = (rng.randn(n, 10) * 3).astype(np.float32)
    t = rng.randint(0, 10, n)
    t[::7] = 3  # ignored below: ignored samples skip the cascade's step
    w = rng.rand(10).astype(np.float32) if weighted else None
    ours = _nll(gradtrack, x, t, w, dt, reduction=reduction, ignore_index=3)
    theirs = _nll(torch, x, t, w, dt, reduction=reduction, ignore_index=3)
    assert ours.tobytes() == theirs.tobytes()


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", [(2, 5, 3, 4), (3, 4, 17, 19), (2, 4, 40)])
@pytest.mark.parametrize("reduction", ["sum", "mean", "none"])
def test_spatial_nll_loss_bits(torch, dt, shape, reduction):
    rng = np.random.RandomState(len(shape))
    x = rng.randn(*shape).astype(np.float32)
    t = rng.randint(0, shape[1], (shape[0],) + shape[2:])
    w = rng.rand(shape[1]).astype(np.float32)
    ours = _nll(gradtrack, x, t, w, dt, reduction=reduction, ignore_index=1)
    theirs = _nll(torch, x, t, w, dt, reduction=reduction, ignore_index=1)
    assert ours.tobytes() == theirs.tobytes()


def test_bfloat16_sum_is_torchs_not_the_exact_one(torch):
    # 64 log-probabilities whose bfloat16 cascade ends 4 away from the sum rounded once.
    rng = np.random.RandomState(0)
    x = torch.log_softmax(torch.tensor(rng.randn(64, 1000).astype(np.float32) * 3), 1)
    t = rng.randint(0, 1000, 64)
    xb = x.to(torch.bfloat16)
    ours = gradtrack.nn.functional.nll_loss(
        gradtrack.tensor(xb.float().numpy()).to(gradtrack.bfloat16), gradtrack.tensor(t),
        reduction="sum")
    theirs = torch.nn.functional.nll_loss(xb, torch.tensor(t), reduction="sum")
    once = -xb.float().numpy()[np.arange(64), t].astype(np.float64).sum()
    assert ours.item() == theirs.item()
    assert ours.dtype == gradtrack.bfloat16
    assert ours.item() != float(torch.tensor(once).to(torch.bfloat16))


@pytest.mark.parametrize("dt", ["bfloat16", "float16"])
@pytest.mark.parametrize("shape,dim", [((64, 1000), 1), ((64, 1000), -1), ((5, 7, 33), 2),
                                       ((5, 7, 33), 1), ((300, 20), 0), ((9,), 0)])
def test_reduced_log_softmax_bits(torch, dt, shape, dim):
    x = (np.random.RandomState(7).randn(*shape) * 3).astype(np.float32)
    ours = gradtrack.log_softmax(gradtrack.tensor(x).to(getattr(gradtrack, dt)), dim)
    theirs = torch.log_softmax(torch.tensor(x).to(getattr(torch, dt)), dim)
    assert ours.dtype == getattr(gradtrack, dt)
    assert ours.float().numpy().tobytes() == theirs.float().numpy().tobytes()


def test_reduced_cross_entropy_bits(torch):
    rng = np.random.RandomState(11)
    x = (rng.randn(32, 100) * 2).astype(np.float32)
    t = rng.randint(0, 100, 32)
    for reduction in ("mean", "sum", "none"):
        ours = gradtrack.nn.functional.cross_entropy(
            gradtrack.tensor(x).to(gradtrack.bfloat16), gradtrack.tensor(t), reduction=reduction)
        theirs = torch.nn.functional.cross_entropy(
            torch.tensor(x).to(torch.bfloat16), torch.tensor(t), reduction=reduction)
        assert ours.float().numpy().tobytes() == theirs.float().numpy().tobytes()
