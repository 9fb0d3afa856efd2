"""Second derivatives of the piecewise activations and losses, on the boundaries of their
pieces, against torch 2.13 (NOTE [Where a second derivative stops] in
csrc/autograd/formulas/nn.cpp).

torch's first derivatives take one piece's formula on a boundary (ELU's exponential at
0, softplus's sigmoid at its threshold, Huber's linear piece at delta), while its second
derivatives mask with a strict inequality, so they are 0 there. A wrong second
derivative raises nothing: these compare values. The gradient of a create_graph gradient
must also stay a node of the input's graph where torch's is (prelu, rrelu), with zeros.
"""

import numpy as np
import pytest

import gradtrack

# inputs on every boundary: 0, the softplus thresholds (beta * x == threshold), +-1 for
# Huber's delta, -1.5 (hardswish's slope crosses zero there), +-3
POINTS = [-3.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0, 4.0]


def _second(lib, fn):
    """(gradient, its requires_grad, second derivative) of fn(x).sum() at POINTS."""
    x = lib.tensor(POINTS, requires_grad=True)
    g, = lib.autograd.grad(fn(lib, x).sum(), x, create_graph=True)
    if not g.requires_grad:
        return g.detach().numpy(), False, None
    h, = lib.autograd.grad((g * lib.arange(1.0, 11.0)).sum(), x, allow_unused=True)
    return g.detach().numpy(), True, None if h is None else h.numpy()


def _f(lib):
    return lib.nn.functional


CASES = {
    "elu": lambda lib, x: _f(lib).elu(x),
    "elu_alpha": lambda lib, x: _f(lib).elu(x, alpha=0.5),
    "elu_inplace": lambda lib, x: _f(lib).elu_(x * 1),
    "selu": lambda lib, x: _f(lib).selu(x),
    "celu": lambda lib, x: _f(lib).celu(x, alpha=2.0),
    "elu_module": lambda lib, x: lib.nn.ELU(0.5)(x),
    "softplus_threshold": lambda lib, x: _f(lib).softplus(x, beta=2.0, threshold=2.0),
    "softplus_default": lambda lib, x: _f(lib).softplus(x),
    "softplus_threshold_one": lambda lib, x: _f(lib).softplus(x, beta=1.0, threshold=1.0),
    "huber": lambda lib, x: _f(lib).huber_loss(x, lib.zeros(10), delta=1.0, reduction="sum"),
    "huber_delta": lambda lib, x: _f(lib).huber_loss(x, lib.zeros(10) + 0.5, delta=0.5),
    "smooth_l1": lambda lib, x: _f(lib).smooth_l1_loss(x, lib.zeros(10), beta=1.0),
    "hardswish": lambda lib, x: _f(lib).hardswish(x),
    "leaky_relu": lambda lib, x: _f(lib).leaky_relu(x, 0.2),
    "hardtanh": lambda lib, x: _f(lib).hardtanh(x, -1.0, 1.0),
    "relu6": lambda lib, x: _f(lib).relu6(x),
    "mish": lambda lib, x: _f(lib).mish(x),
    "silu": lambda lib, x: _f(lib).silu(x),
    "prelu": lambda lib, x: _f(lib).prelu(x, lib.tensor([0.25])),
    "rrelu_eval": lambda lib, x: _f(lib).rrelu(x, 0.1, 0.3),
}


@pytest.mark.parametrize("name", CASES)
def test_second_derivative_matches_torch(torch, name):
    got, want = _second(gradtrack, CASES[name]), _second(torch, CASES[name])
    np.testing.assert_allclose(got[0], want[0], rtol=1e-6, atol=1e-7)
    assert got[1] == want[1]
    if want[2] is None:
        assert got[2] is None
    else:
        np.testing.assert_allclose(got[2], want[2], rtol=1e-5, atol=1e-6)


def test_boundaries_without_torch():
    """The values torch gives, written out."""
    elu = _second(gradtrack, CASES["elu"])[2]
    assert elu[POINTS.index(0.0)] == 0.0  # the exponential's 1 was taken at 0
    # (each point's second derivative is weighted by its place, 1 to 10)
    assert elu[POINTS.index(-1.0)] == pytest.approx(3 * np.exp(-1.0), rel=1e-6)
    huber = _second(gradtrack, CASES["huber"])[2]
    assert huber[POINTS.index(1.0)] == 0.0 and huber[POINTS.index(-1.0)] == 0.0
    assert huber[POINTS.index(0.5)] == 6.0 and huber[POINTS.index(-0.5)] == 4.0
    softplus = _second(gradtrack, CASES["softplus_threshold_one"])[2]
    assert softplus[POINTS.index(1.0)] == 0.0
    hardswish = _second(gradtrack, CASES["hardswish"])[2]
    assert hardswish[POINTS.index(-1.5)] == pytest.approx(2 / 3)
    g, requires_grad, h = _second(gradtrack, CASES["prelu"])
    assert requires_grad and not h.any()


def test_prelu_second_derivatives_of_every_input(torch):
    """Both of prelu's gradients through PreluKernelBackwardBackward0, differentiated
    with respect to the input, the weight and the incoming gradient."""
    def run(lib):
        x = lib.tensor([[-1.0, 0.5, 0.0], [2.0, -3.0, 1.0]], requires_grad=True)
        w = lib.tensor([0.25, 0.5, 0.1], requires_grad=True)
        go = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        gx, gw = lib.autograd.grad(lib.nn.functional.prelu(x, w), (x, w), go, create_graph=True)
        v = (gx * lib.arange(6.0).view(2, 3)).sum() + (gw * lib.tensor([1.0, -1.0, 2.0])).sum()
        return ([t.detach().numpy() for t in (gx, gw)] + [gx.grad_fn.name()]
                + [t.numpy() for t in lib.autograd.grad(v, (x, w, go))])
    got, want = run(gradtrack), run(torch)
    assert got[2] == want[2] == "PreluKernelBackwardBackward0"
    for a, b in zip(got[:2] + got[3:], want[:2] + want[3:]):
        np.testing.assert_allclose(a, b, rtol=1e-6)


@pytest.mark.parametrize("name", ["softshrink", "hardshrink", "threshold"])
def test_create_graph_gradient_has_no_negative_zero(torch, name):
    """The zeros of a create_graph gradient are +0.0, as torch prints them ("0.", not
    "-0."), where the input is negative."""
    def run(lib):
        fn = {"softshrink": lambda t: lib.nn.functional.softshrink(t),
              "hardshrink": lambda t: lib.nn.functional.hardshrink(t),
              "threshold": lambda t: lib.nn.functional.threshold(t, 0.1, 20.0)}[name]
        x = lib.tensor([-2.0, -0.3, 0.0, 0.4], requires_grad=True)
        g, = lib.autograd.grad(fn(x).sum(), x, create_graph=True)
        return np.signbit(g.detach().numpy()).tolist(), g.detach().numpy().tolist()
    assert run(gradtrack) == run(torch)
