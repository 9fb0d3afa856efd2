"""Numbers going bad mid-training: an optimizer step whose gradients hold NaN or
infinity leaves the parameters (and the step after it) exactly as torch's does, for
every optimizer and its main options; anomaly mode names the backward function that
made a NaN in a training step, as torch's does; float16 and bfloat16 overflow to
infinity where torch's do."""

import math
import warnings

import pytest

import gradtrack

NAN, INF = float("nan"), float("inf")

OPTIMIZERS = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.01}),
    ("Adam", {"lr": 0.01}),
    ("Adam", {"lr": 0.01, "amsgrad": True, "weight_decay": 0.05}),
    ("AdamW", {"lr": 0.01}),
    ("Adamax", {"lr": 0.01}),
    ("NAdam", {"lr": 0.01}),
    ("RAdam", {"lr": 0.01}),
    ("Adagrad", {"lr": 0.1}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.5, "centered": True}),
]

GRADS = {
    "nan": [0.5, NAN, -1.0, 2.0],
    "inf": [0.5, INF, -INF, 2.0],
    "all_nan": [NAN] * 4,
}


def _same(a, b):
    return all((math.isnan(x) and math.isnan(y)) or x == pytest.approx(y, rel=1e-6, abs=1e-7)
               for x, y in zip(a, b))


def _steps(lib, name, options, bad):
    p = lib.nn.Parameter(lib.tensor([1.0, -2.0, 3.0, 0.25]))
    opt = getattr(lib.optim, name)([p], **options)
    seen = []
    for grad in ([0.1, 0.2, -0.3, 0.4], GRADS[bad], [0.3, -0.1, 0.2, -0.2]):
        p.grad = lib.tensor(grad)
        opt.step()
        seen.append(p.detach().tolist())
    return seen


@pytest.mark.parametrize("bad", sorted(GRADS))
@pytest.mark.parametrize("name,options", OPTIMIZERS, ids=lambda v: v if isinstance(v, str)
                         else "-".join(f"{k}={v}" for k, v in v.items()))
def test_step_with_nonfinite_gradients_matches_torch(torch, name, options, bad):
    ours, theirs = _steps(gradtrack, name, options, bad), _steps(torch, name, options, bad)
    for a, b in zip(ours, theirs):
        assert _same(a, b), (ours, theirs)


def _training_step(lib):
    """A tiny model whose loss takes log(0)*0 on one sample: NaN appears in backward."""
    lib.manual_seed(0)
    w = lib.nn.Parameter(lib.tensor([[0.5, -1.0], [2.0, 0.0]]))
    x = lib.tensor([[1.0, 2.0], [0.0, 0.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with lib.autograd.detect_anomaly():
            h = (x @ w).relu()
            loss = (h.sqrt() * h).sum()  # sqrt's backward at 0 is inf, times 0 is nan
            try:
                loss.backward()
            except RuntimeError as e:
                return str(e)
    return None


def test_anomaly_mode_names_the_function_that_made_nan_in_training(torch):
    ours = _training_step(gradtrack)
    assert ours is not None and ours == _training_step(torch)
    assert "SqrtBackward0" in ours


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("case", [
    lambda L, t: (t * t).tolist(),
    lambda L, t: (t + t).tolist(),
    lambda L, t: t.exp().tolist(),
    lambda L, t: t.sum().tolist(),
    lambda L, t: (t @ t.reshape(-1, 1)).tolist(),
    lambda L, t: L.tensor([70000.0, 1e39]).to(t.dtype).tolist(),
    lambda L, t: (t.float() * 1e4).to(t.dtype).tolist(),
    lambda L, t: t.pow(3).tolist(),
    lambda L, t: (-t * t).tolist(),
], ids=["mul", "add", "exp", "sum", "matmul", "cast", "cast_from_float", "pow", "neg_mul"])
def test_half_precision_overflow_is_inf_like_torch(torch, dtype, case):
    def run(L):
        t = L.tensor([60000.0, 300.0, -2.0, 1e38 if dtype == "bfloat16" else 65504.0],
                     dtype=getattr(L, dtype))
        return case(L, t)
    ours, theirs = run(gradtrack), run(torch)
    assert _same(ours if isinstance(ours, list) else [ours],
                 theirs if isinstance(theirs, list) else [theirs]), (ours, theirs)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_overflow_in_backward_is_inf_like_torch(torch, dtype):
    def run(L):
        x = L.tensor([200.0, 3.0e4, -1.0], dtype=getattr(L, dtype), requires_grad=True)
        (x * x * x).sum().backward()
        return x.grad.tolist()
    assert _same(run(gradtrack), run(torch))
