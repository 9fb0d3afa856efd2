"""nll_loss and cross_entropy over spatial shapes, against torch 2.13: torch's
NllLoss2DBackward0 node for (N, C, d1, ...) input (a view to four dims before it for
three or five and more, the losses of reduction='none' viewed back), values, gradients,
double backward and the messages of the four-dimensional kernel."""

import numpy as np
import pytest

import gradtrack


def _graph(fn, depth=0, out=None):
    out = [] if out is None else out
    if fn is not None and depth < 4:
        out.append("  " * depth + type(fn).__name__)
        for child, _ in fn.next_functions:
            _graph(child, depth + 1, out)
    return out


@pytest.mark.parametrize("shape", [(2, 3, 4), (2, 3, 4, 5), (2, 3, 2, 2, 2)])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("op", ["nll_loss", "cross_entropy"])
def test_spatial_losses_match_torch(torch, shape, reduction, weighted, op):
    rng = np.random.default_rng(len(shape))
    x = rng.standard_normal(shape)
    target = rng.integers(0, 3, (shape[0],) + shape[2:])
    target.flat[0] = -100
    weight = rng.random(3) if weighted else None
    results = []
    for lib in (gradtrack, torch):
        leaf = lib.tensor(x, requires_grad=True)
        out = getattr(lib.nn.functional, op)(
            leaf * 1, lib.tensor(target), weight=None if weight is None else lib.tensor(weight),
            reduction=reduction)
        (grad,) = lib.autograd.grad(out.sum(), leaf, create_graph=True)
        grad2 = None  # nll_loss's gradient does not depend on its input
        if grad.requires_grad:
            (grad2,) = lib.autograd.grad((grad * grad).sum(), leaf)
        results.append((_graph(out.grad_fn), out._version, grad.requires_grad,
                        out.detach().numpy(),
                        grad.detach().numpy(), None if grad2 is None else grad2.numpy()))
    ours, theirs = results
    if op == "nll_loss":
        # KNOWN GAP constant_first_derivative (tests/ops/test_fuzz_op_table.py): torch's
        # gradient of nll_loss requires grad and its own gradient is zeros; ours is a
        # constant.
        assert theirs[2] and not ours[2] and not theirs[-1].any()
        ours, theirs = ours[:2] + ours[3:-1], theirs[:2] + theirs[3:-1]
    assert ours[:2] == theirs[:2]
    for a, b in zip(ours[2:], theirs[2:]):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_permuted_input_goes_straight_to_the_node(torch):
    graphs = []
    for lib in (gradtrack, torch):
        x = lib.randn(2, 3, 4, 5).permute(0, 1, 3, 2).requires_grad_()
        out = lib.nn.functional.nll_loss(x, lib.zeros(2, 5, 4, dtype=lib.long))
        graphs.append(_graph(out.grad_fn))
    assert graphs[0] == graphs[1] == ["NllLoss2DBackward0", "  AccumulateGrad"]


@pytest.mark.parametrize("case", ["weight", "target_high", "target_low"])
def test_four_dimensional_errors_match_torch(torch, case):
    caught = []
    for lib in (gradtrack, torch):
        x, target, weight = lib.randn(2, 3, 4, 5), lib.zeros(2, 4, 5, dtype=lib.long), None
        if case == "weight":
            weight = lib.ones(4)
        else:
            target[1, 2, 3] = 7 if case == "target_high" else -3
        with pytest.raises(Exception) as info:
            lib.nn.functional.nll_loss(x, target, weight)
        caught.append((type(info.value).__name__, str(info.value)))
    assert caught[0] == caught[1]
