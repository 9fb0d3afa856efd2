"""BCELoss, BCEWithLogitsLoss, L1Loss, SmoothL1Loss, HuberLoss, KLDivLoss and cross entropy
over (N, C, d1, ...) inputs, label smoothing and class probabilities, against torch 2.13:
values, gradients of input and target, double backward, grad_fn names and messages."""

import warnings

import numpy as np
import pytest

import gradtrack as gt
from gradtrack import nn
import gradtrack.nn.functional as F
from gradtrack.autograd import gradcheck, gradgradcheck

from helpers import error_of

RNG = np.random.default_rng(11)
P = RNG.uniform(0.05, 0.95, size=(4, 3))
T = RNG.uniform(0, 1, size=(4, 3))
Z = RNG.standard_normal((4, 3)) * 2
W3 = RNG.uniform(0.5, 2, size=3)

LOSSES = {
    "bce": (P, lambda F, x, t, lib: F.binary_cross_entropy(x, t)),
    "bce_weight_sum": (P, lambda F, x, t, lib: F.binary_cross_entropy(
        x, t, weight=lib.tensor(W3), reduction="sum")),
    "bce_none": (P, lambda F, x, t, lib: F.binary_cross_entropy(x, t, reduction="none")),
    "bce_logits": (Z, lambda F, x, t, lib: F.binary_cross_entropy_with_logits(x, t)),
    "bce_logits_pos_weight": (Z, lambda F, x, t, lib: F.binary_cross_entropy_with_logits(
        x, t, pos_weight=lib.tensor(W3))),
    "bce_logits_both": (Z, lambda F, x, t, lib: F.binary_cross_entropy_with_logits(
        x, t, weight=lib.tensor(W3[::-1].copy()), pos_weight=lib.tensor(W3), reduction="sum")),
    "l1": (Z, lambda F, x, t, lib: F.l1_loss(x, t)),
    "l1_none": (Z, lambda F, x, t, lib: F.l1_loss(x, t, reduction="none")),
    "l1_weight": (Z, lambda F, x, t, lib: F.l1_loss(x, t, weight=lib.tensor(P))),
    "huber_weight": (Z, lambda F, x, t, lib: F.huber_loss(x, t, weight=lib.tensor(P))),
    "smooth_l1": (Z, lambda F, x, t, lib: F.smooth_l1_loss(x, t)),
    "smooth_l1_beta": (Z, lambda F, x, t, lib: F.smooth_l1_loss(x, t, beta=0.5,
                                                                 reduction="sum")),
    "smooth_l1_beta0": (Z, lambda F, x, t, lib: F.smooth_l1_loss(x, t, beta=0.0)),
    "huber": (Z, lambda F, x, t, lib: F.huber_loss(x, t)),
    "huber_delta": (Z, lambda F, x, t, lib: F.huber_loss(x, t, delta=0.3, reduction="none")),
    "kl_batchmean": (Z, lambda F, x, t, lib: F.kl_div(x, t, reduction="batchmean")),
    "kl_sum": (Z, lambda F, x, t, lib: F.kl_div(x, t, reduction="sum")),
    "kl_none_log_target": (Z, lambda F, x, t, lib: F.kl_div(x, t.log(), reduction="none",
                                                          log_target=True)),
}


def _run(lib, name, create_graph=True):
    data, fn = LOSSES[name]
    x = lib.tensor(data, requires_grad=True)
    t = lib.tensor(T, requires_grad=True)
    loss = fn(lib.nn.functional, x, t, lib)
    out = loss if loss.dim() == 0 else (loss * lib.tensor(P)).sum()
    gx, gt_ = lib.autograd.grad(out, (x, t), create_graph=create_graph)
    (ggx,) = lib.autograd.grad((gx * gx).sum() + (gt_ * gx).sum(), x, allow_unused=True)
    return loss, gx, gt_, ggx


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_losses_match_torch(torch, name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, ref = _run(gt, name), _run(torch, name)
    assert type(ours[0].grad_fn).__name__ == type(ref[0].grad_fn).__name__
    for a, b in zip(ours, ref):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a.detach().numpy(), _np(b), rtol=1e-8, atol=1e-12)


def _np(t):
    """torch's tensor as NumPy (a ZeroTensor, torch's lazy zero gradient, as zeros)."""
    t = t.detach()
    return np.zeros(tuple(t.shape)) if t._is_zerotensor() else t.numpy()


@pytest.mark.parametrize("name", ["bce", "bce_logits_both", "smooth_l1_beta", "huber_delta",
                                  "kl_batchmean"])
def test_losses_finite_differences(name):
    data, fn = LOSSES[name]
    x = gt.tensor(data[:2], requires_grad=True)
    t = gt.tensor(T[:2], requires_grad=True)
    assert gradcheck(lambda x, t: fn(F, x, t, gt), (x, t))
    assert gradgradcheck(lambda x, t: fn(F, x, t, gt), (x, t), atol=1e-4)


MESSAGES = [
    lambda lib: lib.nn.functional.binary_cross_entropy(lib.ones(3) * 0.5, lib.ones(3, 1)),
    lambda lib: lib.nn.functional.binary_cross_entropy(lib.ones(3) * 2, lib.ones(3)),
    lambda lib: lib.nn.functional.binary_cross_entropy(lib.tensor([float("nan")]), lib.ones(1)),
    lambda lib: lib.nn.functional.binary_cross_entropy_with_logits(lib.ones(3), lib.ones(3, 1)),
    lambda lib: lib.nn.functional.l1_loss(lib.ones(2), lib.ones(2), reduction="foo"),
]


@pytest.mark.parametrize("call", MESSAGES)
def test_messages_match_torch(torch, call):
    ours, ref = error_of(lambda: call(gt)), error_of(lambda: call(torch))
    assert ours == (ref[0], ref[1].replace("torch.", "gradtrack."))


def test_bce_clamps_log_at_minus_100(torch):
    for lib in (gt, torch):
        loss = lib.nn.functional.binary_cross_entropy(lib.tensor([0.0, 1.0]), lib.tensor([1.0, 0.0]))
        assert loss.item() == pytest.approx(100.0)


def test_kl_div_mean_warns(torch):
    with pytest.warns(UserWarning, match="'batchmean' divides only by the batch size"):
        F.kl_div(gt.zeros(2), gt.ones(2))


@pytest.mark.parametrize("ctor", [
    lambda nn, lib: nn.BCELoss(), lambda nn, lib: nn.BCELoss(weight=lib.ones(3)),
    lambda nn, lib: nn.BCEWithLogitsLoss(pos_weight=lib.ones(3)), lambda nn, lib: nn.L1Loss(),
    lambda nn, lib: nn.SmoothL1Loss(beta=0.5), lambda nn, lib: nn.HuberLoss(delta=2.0),
    lambda nn, lib: nn.KLDivLoss(reduction="batchmean", log_target=True),
])
def test_loss_modules_match_torch(torch, ctor):
    ours, ref = ctor(nn, gt), ctor(torch.nn, torch)
    assert repr(ours) == repr(ref)
    assert list(ours.state_dict()) == list(ref.state_dict())
    x = RNG.uniform(0.1, 0.9, size=(2, 3))
    lo = ours(gt.tensor(x, requires_grad=True), gt.tensor(T[:2]))
    lr = ref(torch.tensor(x, requires_grad=True), torch.tensor(T[:2]))
    assert lo.item() == pytest.approx(lr.item(), rel=1e-12)


# ---- cross entropy / nll over (N, C, d1, ...) ------------------------------------------------

LOGITS = RNG.standard_normal((2, 4, 3, 2))
TARGET = RNG.integers(0, 4, size=(2, 3, 2))
PROBS = RNG.dirichlet(np.ones(4), size=(2, 3, 2)).transpose(0, 3, 1, 2).copy()

CE = {
    "spatial": lambda F, x, lib: F.cross_entropy(x, lib.tensor(TARGET)),
    "spatial_weight_ignore": lambda F, x, lib: F.cross_entropy(
        x, lib.tensor(np.where(TARGET == 1, -100, TARGET)), weight=lib.tensor(np.arange(1.0, 5))),
    "spatial_none": lambda F, x, lib: F.cross_entropy(x, lib.tensor(TARGET), reduction="none"),
    "label_smoothing": lambda F, x, lib: F.cross_entropy(x, lib.tensor(TARGET),
                                                        label_smoothing=0.2),
    "label_smoothing_weight": lambda F, x, lib: F.cross_entropy(
        x, lib.tensor(TARGET), weight=lib.tensor(np.arange(1.0, 5)), label_smoothing=0.1,
        reduction="sum"),
    "probabilities": lambda F, x, lib: F.cross_entropy(x, lib.tensor(PROBS)),
    "probabilities_smoothing": lambda F, x, lib: F.cross_entropy(x, lib.tensor(PROBS),
                                                                label_smoothing=0.3),
    "nll_spatial": lambda F, x, lib: F.nll_loss(F.log_softmax(x, 1), lib.tensor(TARGET)),
}


@pytest.mark.parametrize("name", sorted(CE))
def test_cross_entropy_spatial_matches_torch(torch, name):
    def run(lib):
        x = lib.tensor(LOGITS, requires_grad=True)
        loss = CE[name](lib.nn.functional, x, lib)
        out = loss if loss.dim() == 0 else (loss * loss).sum()
        (g,) = lib.autograd.grad(out, x, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), x)
        return loss, g, gg
    for a, b in zip(run(gt), run(torch)):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10,
                                   atol=1e-12)


def test_cross_entropy_module_spatial(torch):
    ours = nn.CrossEntropyLoss(label_smoothing=0.1)(gt.tensor(LOGITS), gt.tensor(TARGET))
    ref = torch.nn.CrossEntropyLoss(label_smoothing=0.1)(torch.tensor(LOGITS),
                                                        torch.tensor(TARGET))
    assert ours.item() == pytest.approx(ref.item(), rel=1e-12)


def test_multi_margin_loss_counts_nan_terms_as_zero(torch):
    # torch's kernel adds the terms with margin - x[y] + x[j] > 0: a NaN term adds nothing
    # (found by the op-table fuzzer), while clamp_min(0) would carry the NaN on
    x = [[float("nan"), 1.0, 2.0], [0.0, float("nan"), 1.0], [0.5, -1.0, 3.0]]
    for p in (1, 2):
        ours = gt.tensor(x, requires_grad=True)
        theirs = torch.tensor(x, requires_grad=True)
        out = F.multi_margin_loss(ours, gt.tensor([0, 0, 2]), p=p, reduction="none")
        ref = torch.nn.functional.multi_margin_loss(theirs, torch.tensor([0, 0, 2]), p=p,
                                                    reduction="none")
        np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-6)
        out.sum().backward()
        ref.sum().backward()
        np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-6)
