"""``optim.Muon`` against PyTorch 2.13: trajectories of 2-D parameters (the
Newton-Schulz iteration runs in bfloat16 in both libraries, so they agree to
bfloat16 rounding), the learning-rate adjustments, and the argument checks."""

import numpy as np
import pytest

import gradtrack

from helpers import same


def _run(lib, kwargs, shape, steps=8):
    rng = np.random.default_rng(3)
    w = lib.tensor(rng.standard_normal(shape).tolist(), requires_grad=True)
    opt = lib.optim.Muon([w], **kwargs)
    out = []
    for step in range(steps):
        x = w.detach().numpy()
        w.grad = lib.from_numpy((2 * (x - 0.5) + 0.1 * step).astype(np.float32))
        opt.step()
        out.append(w.detach().clone().numpy())
    return out, opt.state[w]["momentum_buffer"].numpy()


@pytest.mark.parametrize("kwargs", [
    {}, {"lr": 0.02, "nesterov": False}, {"adjust_lr_fn": "match_rms_adamw", "weight_decay": 0},
    {"ns_steps": 3, "momentum": 0.5, "lr": 0.05},
])
@pytest.mark.parametrize("shape", [(4, 6), (6, 4)])
def test_muon_matches_torch(torch, kwargs, shape):
    ours, buf = _run(gradtrack, kwargs, shape)
    theirs, tbuf = _run(torch, kwargs, shape)
    for step, (a, b) in enumerate(zip(ours, theirs)):
        # bfloat16 Newton-Schulz: an update element may differ by a bfloat16 ulp.
        np.testing.assert_allclose(a, b, rtol=2e-2, atol=2e-3, err_msg=f"step {step}")
    np.testing.assert_allclose(buf, tbuf, rtol=2e-2, atol=2e-3)


def test_muon_update_is_orthogonal_up_to_bfloat16():
    w = gradtrack.zeros(3, 5, requires_grad=True)
    opt = gradtrack.optim.Muon([w], lr=1.0, weight_decay=0, momentum=0.0, nesterov=False)
    # a fixed gradient: for about one random 3 x 5 gradient in ten five steps leave a
    # singular value outside the range below, in torch's Muon too
    w.grad = gradtrack.tensor(np.random.default_rng(0).standard_normal((3, 5)).tolist())
    opt.step()
    u = w.detach().neg().double()  # lr 1, ratio 1 for a wide matrix
    gram = (u @ u.t()).numpy()
    # Five quintic steps bring the singular values into roughly [0.7, 1.2].
    assert np.all(np.abs(np.diag(gram) - 1.0) < 0.5)


@pytest.mark.parametrize("call", [
    "Muon([w], lr=-1)", "Muon([w], momentum=-0.1)", "Muon([w], weight_decay=-1)",
    "Muon([w], adjust_lr_fn='other')", "Muon([lib.zeros(3, requires_grad=True)])",
    "Muon([lib.zeros(2, 2, 2, requires_grad=True)])",
])
def test_muon_argument_errors(call):
    def scenario(lib):
        w = lib.zeros(2, 3, requires_grad=True)
        eval("lib.optim." + call, {"lib": lib, "w": w})

    same(scenario)


def test_muon_param_group_defaults():
    def scenario(lib):
        opt = lib.optim.Muon([lib.zeros(2, 3, requires_grad=True)])
        return sorted((k, v) for k, v in opt.param_groups[0].items() if k != "params")

    same(scenario)
