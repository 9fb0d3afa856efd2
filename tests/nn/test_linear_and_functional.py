"""nn.Linear (its default init, versions, grad_fn names, values), the first activations
and losses as modules (ReLU, Sigmoid, Tanh, Softmax, LogSoftmax, MSELoss,
CrossEntropyLoss) against NumPy, and nn.functional's losses against torch: cross
entropy of every rank and with probability targets, mse_loss, the argument errors and
warnings, softmax's dtype argument.

Tests taking the ``torch`` fixture compare with PyTorch 2.13 (skipped when it
is not installed); the others pin PyTorch's measured text and numbers, or check
against NumPy and closed forms.
"""

import math
import warnings

import numpy as np
import pytest

import gradtrack as gt
from gradtrack import nn
import gradtrack.nn.functional as F

from helpers import error_of, gradtrack_to_torch, to_np


# ---- Linear and its default init ---------------------------------------------------------

def test_linear_default_init_versions_and_bounds():
    gt.manual_seed(0)
    lin = nn.Linear(400, 300)
    assert (lin.weight._version, lin.bias._version) == (1, 1)
    assert lin.weight.is_leaf and type(lin.weight) is nn.Parameter
    bound = 1 / math.sqrt(400)
    w = to_np(lin.weight)
    assert np.abs(w).max() <= bound and np.abs(to_np(lin.bias)).max() <= bound
    # U(-b, b) has std b / sqrt(3); 120000 samples pin it within 1%.
    assert abs(w.std() - bound / math.sqrt(3)) < 0.01 * bound
    assert abs(w.mean()) < 0.01 * bound


def test_linear_versions_equal_torch(torch):
    for bias in (True, False):
        ours, theirs = nn.Linear(3, 2, bias=bias), torch.nn.Linear(3, 2, bias=bias)
        assert [p._version for p in ours.parameters()] == [p._version for p in theirs.parameters()]
        nn.init.normal_(ours.weight, std=0.01)
        torch.nn.init.normal_(theirs.weight, std=0.01)
        assert ours.weight._version == theirs.weight._version == 2


def test_linear_grad_fn_names():
    lin = nn.Linear(3, 2)
    assert lin(gt.ones(4, 3)).grad_fn.name() == "AddmmBackward0"
    assert lin(gt.ones(3)).grad_fn.name() == "ViewBackward0"
    assert lin(gt.ones(2, 4, 3)).grad_fn.name() == "ViewBackward0"
    assert nn.Linear(3, 2, bias=False)(gt.ones(4, 3)).grad_fn.name() == "MmBackward0"


def test_linear_matches_numpy_forward_and_backward():
    lin = nn.Linear(3, 2)
    x = gt.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]])
    out = lin(x)
    w, b = to_np(lin.weight), to_np(lin.bias)
    np.testing.assert_allclose(to_np(out), to_np(x) @ w.T + b, rtol=1e-6)
    out.sum().backward()
    np.testing.assert_allclose(to_np(lin.weight.grad), np.ones((2, 2)).T @ to_np(x), rtol=1e-6)
    np.testing.assert_allclose(to_np(lin.bias.grad), [2.0, 2.0])


def test_linear_dtype_and_identity():
    lin = nn.Linear(2, 2, dtype=gt.float64)
    assert lin.weight.dtype is gt.float64 and lin.bias.dtype is gt.float64
    x = gt.ones(2)
    assert nn.Identity(3, foo=1)(x) is x


# ---- activations and losses as modules -------------------------------------------------------

def test_activation_modules_match_numpy():
    x = gt.tensor([[-1.0, 0.5, 2.0]])
    a = to_np(x)
    np.testing.assert_allclose(to_np(nn.ReLU()(x)), np.maximum(a, 0))
    np.testing.assert_allclose(to_np(nn.Sigmoid()(x)), 1 / (1 + np.exp(-a)), rtol=1e-6)
    np.testing.assert_allclose(to_np(nn.Tanh()(x)), np.tanh(a), rtol=1e-6)
    e = np.exp(a - a.max())
    np.testing.assert_allclose(to_np(nn.Softmax(dim=1)(x)), e / e.sum(), rtol=1e-6)
    np.testing.assert_allclose(to_np(nn.LogSoftmax(dim=1)(x)), np.log(e / e.sum()), rtol=1e-5)
    assert nn.Flatten()(gt.zeros(2, 3, 4)).shape == gt.Size([2, 12])


def test_relu_inplace_module_writes_input():
    x = gt.tensor([-1.0, 2.0])
    assert nn.ReLU(inplace=True)(x) is x and x._version == 1
    leaf = gt.tensor([-1.0, 2.0], requires_grad=True)
    assert error_of(lambda: nn.ReLU(inplace=True)(leaf)) == (
        "RuntimeError", "a leaf Variable that requires grad is being used in an in-place "
        "operation.")


def test_loss_grad_fn_chain():
    logits = gt.randn(4, 3, requires_grad=True)
    target = gt.tensor([0, 2, 1, 2])
    loss = nn.CrossEntropyLoss()(logits, target)
    assert loss.grad_fn.name() == "NllLossBackward0"
    assert loss.grad_fn.next_functions[0][0].name() == "LogSoftmaxBackward0"
    mse = nn.MSELoss()(logits, gt.zeros(4, 3))
    assert mse.grad_fn.name() == "MseLossBackward0"
    assert nn.NLLLoss()(F.log_softmax(logits, 1), target).grad_fn.name() == "NllLossBackward0"


def test_cross_entropy_matches_numpy():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((5, 4)).astype(np.float32)
    t = np.array([0, 3, 1, 1, 2])
    logits = gt.tensor(a, requires_grad=True)
    loss = F.cross_entropy(logits, gt.tensor(t))
    shifted = a - a.max(1, keepdims=True)
    logp = shifted - np.log(np.exp(shifted).sum(1, keepdims=True))
    expected = -logp[np.arange(5), t].mean()
    np.testing.assert_allclose(loss.item(), expected, rtol=1e-6)
    loss.backward()
    onehot = np.eye(4)[t]
    np.testing.assert_allclose(to_np(logits.grad), (np.exp(logp) - onehot) / 5, atol=1e-7)


def test_mse_loss_matches_numpy():
    a = gt.tensor([[1.0, 2.0], [3.0, 5.0]], requires_grad=True)
    b = gt.tensor([[0.0, 2.0], [1.0, 1.0]])
    diff = to_np(a) - to_np(b)
    assert F.mse_loss(a, b).item() == pytest.approx((diff ** 2).mean())
    assert F.mse_loss(a, b, reduction="sum").item() == pytest.approx((diff ** 2).sum())
    np.testing.assert_allclose(to_np(F.mse_loss(a, b, reduction="none")), diff ** 2)
    F.mse_loss(a, b).backward()
    np.testing.assert_allclose(to_np(a.grad), 2 * diff / 4)


# ---- functional against torch ------------------------------------------------------------------

LOSS_CASES = [
    ("cross_entropy", {}),
    ("cross_entropy", {"reduction": "sum"}),
    ("cross_entropy", {"reduction": "none"}),
    ("cross_entropy", {"weight": [1.0, 2.0, 0.5]}),
    ("cross_entropy", {"ignore_index": 1}),
    ("cross_entropy", {"weight": [1.0, 2.0, 0.5], "ignore_index": 2, "reduction": "mean"}),
    ("cross_entropy", {"label_smoothing": 0.2}),
    ("cross_entropy", {"label_smoothing": 0.1, "weight": [1.0, 2.0, 0.5], "ignore_index": 0}),
    ("cross_entropy", {"label_smoothing": 0.3, "reduction": "sum"}),
    ("nll_loss", {}),
    ("nll_loss", {"reduction": "none", "weight": [0.5, 1.0, 3.0]}),
    ("nll_loss", {"ignore_index": 0, "reduction": "sum"}),
]


@pytest.mark.parametrize("name,kwargs", LOSS_CASES, ids=lambda v: str(v))
def test_class_losses_match_torch(torch, name, kwargs):
    rng = np.random.default_rng(2)
    a = rng.standard_normal((6, 3)).astype(np.float32)
    t = np.array([0, 1, 2, 1, 1, 0])

    def run(lib):
        x = lib.tensor(a, requires_grad=True)
        args = dict(kwargs)
        if "weight" in args:
            args["weight"] = lib.tensor(args["weight"])
        inp = x if name == "cross_entropy" else lib.log_softmax(x, 1)
        fn = getattr(F if lib is gt else torch.nn.functional, name)
        loss = fn(inp, lib.tensor(t), **args)
        loss.sum().backward()
        return loss.detach().numpy(), x.grad.numpy()

    (l1, g1), (l2, g2) = run(gt), run(torch)
    np.testing.assert_allclose(l1, l2, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(g1, g2, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("shape,target_shape", [((3,), ()), ((2, 3, 4), (2, 4)),
                                                ((2, 3, 2, 2), (2, 2, 2))])
@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_cross_entropy_other_ranks_match_torch(torch, shape, target_shape, reduction):
    rng = np.random.default_rng(3)
    a = rng.standard_normal(shape).astype(np.float32)
    t = rng.integers(0, 3, target_shape)

    def run(lib, fn):
        x = lib.tensor(a, requires_grad=True)
        loss = fn(x, lib.tensor(t), reduction=reduction)
        loss.sum().backward()
        return loss.detach().numpy(), x.grad.numpy()

    (l1, g1) = run(gt, F.cross_entropy)
    (l2, g2) = run(torch, torch.nn.functional.cross_entropy)
    assert l1.shape == l2.shape
    np.testing.assert_allclose(l1, l2, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(g1, g2, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kwargs", [{}, {"reduction": "sum"}, {"label_smoothing": 0.2}])
def test_cross_entropy_probability_targets_match_torch(torch, kwargs):
    rng = np.random.default_rng(4)
    a = rng.standard_normal((4, 3)).astype(np.float32)
    p = rng.random((4, 3)).astype(np.float32)
    p /= p.sum(1, keepdims=True)

    def run(lib, fn):
        x = lib.tensor(a, requires_grad=True)
        loss = fn(x, lib.tensor(p), **kwargs)
        loss.backward()
        return loss.item(), x.grad.numpy()

    (l1, g1), (l2, g2) = run(gt, F.cross_entropy), run(torch, torch.nn.functional.cross_entropy)
    assert l1 == pytest.approx(l2, rel=1e-5)
    np.testing.assert_allclose(g1, g2, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_loss_matches_torch(torch, reduction):
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((2, 3, 4)).astype(np.float32)

    def run(lib, fn):
        x = lib.tensor(a, requires_grad=True)
        loss = fn(x, lib.tensor(b), reduction=reduction)
        loss.sum().backward()
        return loss.detach().numpy(), x.grad.numpy(), loss.grad_fn.name()

    ours, theirs = run(gt, F.mse_loss), run(torch, torch.nn.functional.mse_loss)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-6)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-6)
    assert ours[2] == theirs[2] == "MseLossBackward0"


def test_functional_argument_errors_match_torch(torch):
    def run(lib, fmod):
        x = lib.zeros(4, 3, requires_grad=True)
        lp = fmod.log_softmax(x, 1)
        cases = [
            lambda: fmod.nll_loss(lp, lib.tensor([0.0, 1.0, 1.0, 0.0])),
            lambda: fmod.cross_entropy(x, lib.tensor([0.0, 1.0, 1.0, 0.0])),
            lambda: fmod.nll_loss(lp, lib.tensor([0, 1, 1, 0], dtype=lib.int32)),
            lambda: fmod.nll_loss(lp, lib.tensor([0, 5, 1, 0])),
            lambda: fmod.nll_loss(lp, lib.tensor([0, 1, 0])),
            lambda: fmod.nll_loss(lp, lib.tensor([0, 1, 1, 0]), reduction="foo"),
            lambda: fmod.mse_loss(x, lib.zeros(4, 3), reduction="avg"),
            lambda: fmod.nll_loss(lp, lib.tensor([0, 1, 1, 0]), weight=lib.ones(2)),
            lambda: fmod.nll_loss(lp, lib.tensor([0, 1, 1, 0]),
                                  weight=lib.ones(3, dtype=lib.float64)),
            lambda: fmod.nll_loss(lib.tensor(1.0), lib.tensor(0)),
            lambda: fmod.nll_loss(lib.zeros(2, 3, 4), lib.zeros(2, 3, dtype=lib.int64)),
            lambda: fmod.cross_entropy(x, lib.tensor([0, 1, 1, 0]), label_smoothing=1.5),
            lambda: fmod.linear(x, lib.zeros(2, 4)),
            lambda: fmod.softmax(x, 5),
        ]
        return [error_of(case) for case in cases]

    ours = run(gt, F)
    theirs = run(torch, torch.nn.functional)
    assert [(k, gradtrack_to_torch(m)) for k, m in ours] == theirs


def test_functional_warnings_match_torch(torch):
    def run(lib, fmod):
        texts = []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fmod.mse_loss(lib.zeros(4, 3), lib.zeros(3))
            fmod.softmax(lib.zeros(2, 3))
            fmod.log_softmax(lib.zeros(3))
            fmod.mse_loss(lib.zeros(2), lib.zeros(2), size_average=False)
        texts = [str(w.message) for w in caught]
        return texts

    assert [gradtrack_to_torch(t) for t in run(gt, F)] == run(torch, torch.nn.functional)


def test_weighted_mse_matches_torch(torch):
    rng = np.random.default_rng(6)
    a, b, w = rng.random((3, 5)).astype(np.float32)
    for reduction in ("mean", "sum", "none"):
        ours = F.mse_loss(gt.tensor(a), gt.tensor(b), reduction=reduction, weight=gt.tensor(w))
        theirs = torch.nn.functional.mse_loss(torch.tensor(a), torch.tensor(b),
                                              reduction=reduction, weight=torch.tensor(w))
        np.testing.assert_allclose(to_np(ours), theirs.numpy(), rtol=1e-6)


def test_softmax_dtype_argument():
    out = F.softmax(gt.zeros(2, 2), dim=1, dtype=gt.float64)
    assert out.dtype is gt.float64 and out.grad_fn is None
