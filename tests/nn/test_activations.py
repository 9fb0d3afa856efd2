"""Activations with parameters (GELU, SiLU, LeakyReLU, ELU, SELU, CELU, Softplus, Hardtanh,
ReLU6, Mish, Hardswish, LogSigmoid, Softmin): values, gradients, double backward, grad_fn
names, in-place forms, messages and reprs against torch 2.13, plus finite differences."""

import numpy as np
import pytest

import gradtrack as gt
from gradtrack import nn
import gradtrack.nn.functional as F
from gradtrack.autograd import gradcheck, gradgradcheck

from helpers import error_of, torch_to_gradtrack

# name -> f(F, x): the same call spelled for either library.
CASES = {
    "gelu": lambda F, x: F.gelu(x),
    "gelu_tanh": lambda F, x: F.gelu(x, approximate="tanh"),
    "silu": lambda F, x: F.silu(x),
    "leaky_relu": lambda F, x: F.leaky_relu(x, 0.2),
    "elu": lambda F, x: F.elu(x, 0.7),
    "selu": lambda F, x: F.selu(x),
    "celu": lambda F, x: F.celu(x, 1.5),
    "softplus": lambda F, x: F.softplus(x),
    "softplus_beta": lambda F, x: F.softplus(x, beta=2.0, threshold=1.5),
    "hardtanh": lambda F, x: F.hardtanh(x, -0.5, 1.2),
    "relu6": lambda F, x: F.relu6(x * 4),
    "mish": lambda F, x: F.mish(x),
    "hardswish": lambda F, x: F.hardswish(x * 3),
    "logsigmoid": lambda F, x: F.logsigmoid(x),
    "softmin": lambda F, x: F.softmin(x, dim=1),
}

INPLACE = {
    "silu": lambda F, x: F.silu(x, inplace=True),
    "leaky_relu": lambda F, x: F.leaky_relu(x, 0.2, inplace=True),
    "leaky_relu_": lambda F, x: F.leaky_relu_(x, 0.3),
    "elu": lambda F, x: F.elu(x, 0.7, inplace=True),
    "elu_": lambda F, x: F.elu_(x),
    "selu": lambda F, x: F.selu(x, inplace=True),
    "celu": lambda F, x: F.celu(x, 1.5, inplace=True),
    "hardtanh_": lambda F, x: F.hardtanh_(x, -0.5, 1.2),
    "relu6": lambda F, x: F.relu6(x, inplace=True),
    "mish": lambda F, x: F.mish(x, inplace=True),
    "hardswish": lambda F, x: F.hardswish(x, inplace=True),
}

RNG = np.random.default_rng(18)
# Away from the kinks (0, the hardtanh bounds, +-3 for hardswish) so finite differences hold.
X = RNG.uniform(-4, 4, size=(3, 5))
X[np.abs(X) < 0.05] += 0.2
V = RNG.standard_normal((3, 5))


def _run(lib, fn, create_graph=False, dtype="float64"):
    x = lib.tensor(X, dtype=getattr(lib, dtype), requires_grad=True)
    y = fn(lib.nn.functional, x)
    (g,) = lib.autograd.grad((y * lib.tensor(V, dtype=y.dtype)).sum(), x, create_graph=True)
    gg = None
    if create_graph:
        (gg,) = lib.autograd.grad((g * lib.tensor(V, dtype=g.dtype)).sum(), x)
    return y, g, gg


@pytest.mark.parametrize("name", sorted(CASES))
def test_forward_gradient_double_backward_match_torch(torch, name):
    ours = _run(gt, CASES[name], create_graph=True)
    ref = _run(torch, CASES[name], create_graph=True)
    for a, b in zip(ours, ref):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)
    assert type(ours[0].grad_fn).__name__ == type(ref[0].grad_fn).__name__


@pytest.mark.parametrize("name", sorted(CASES))
def test_float32_matches_torch(torch, name):
    ours = _run(gt, CASES[name], dtype="float32")
    ref = _run(torch, CASES[name], dtype="float32")
    for a, b in zip(ours[:2], ref[:2]):
        assert a.dtype == gt.float32
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(CASES))
def test_finite_differences(name):
    x = gt.tensor(X[:2, :3], dtype=gt.float64, requires_grad=True)
    assert gradcheck(lambda t: CASES[name](F, t), (x,))
    assert gradgradcheck(lambda t: CASES[name](F, t), (x,))


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_forms_match_torch(torch, name):
    def run(lib):
        x = lib.tensor(X, dtype=lib.float64, requires_grad=True)
        y = x * 1
        out = INPLACE[name](lib.nn.functional, y)
        assert out is y
        (g,) = lib.autograd.grad((out * lib.tensor(V, dtype=out.dtype)).sum(), x)
        return out, g, y._version, type(out.grad_fn).__name__
    ours, ref = run(gt), run(torch)
    np.testing.assert_allclose(ours[0].detach().numpy(), ref[0].detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(ours[1].numpy(), ref[1].numpy(), rtol=1e-10, atol=1e-12)
    assert ours[2:] == ref[2:]


def test_inplace_on_leaf_refused(lib):
    x = lib.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        lib.nn.functional.silu(x, inplace=True)


def test_inplace_on_strided_view_writes_through(torch):
    def run(lib):
        base = lib.tensor(X, dtype=lib.float64)
        lib.nn.functional.elu_(base.t()[1:3], 0.5)
        return base.numpy()
    np.testing.assert_allclose(run(gt), run(torch), rtol=1e-12)


def test_inplace_result_saved_is_version_checked(torch):
    def run(lib):
        x = lib.tensor([-1.0, 2.0], requires_grad=True)
        y = lib.nn.functional.leaky_relu(x * 1, 0.1, inplace=True)
        y.mul_(2)
        return error_of(lambda: y.sum().backward())
    ours, ref = run(gt), run(torch)
    assert ours[0] == ref[0]
    assert ours[1].split(";")[0] == torch_to_gradtrack(ref[1]).split(";")[0]


@pytest.mark.parametrize("call", [
    lambda F, x: F.leaky_relu(x, -0.1, inplace=True),
    lambda F, x: F.elu(x, -0.5, inplace=True),
])
def test_inplace_negative_slope_refused_at_backward(torch, call):
    def run(lib):
        x = lib.tensor([-1.0, 2.0], requires_grad=True)
        y = call(lib.nn.functional, x * 1)
        return error_of(lambda: y.sum().backward())
    assert run(gt) == run(torch)


@pytest.mark.parametrize("name", ["gelu", "silu", "leaky_relu", "elu", "selu", "celu", "softplus",
                                  "mish", "hardswish", "logsigmoid"])
def test_integer_input_message(torch, name):
    def run(lib):
        return error_of(lambda: CASES[name](lib.nn.functional, lib.tensor([1, -2])))
    assert run(gt) == run(torch)


def test_hardtanh_and_relu6_clamp_integers(torch):
    for lib_call in (lambda F, x: F.hardtanh(x), lambda F, x: F.relu6(x)):
        ours = lib_call(F, gt.tensor([1, -2, 9]))
        ref = lib_call(torch.nn.functional, torch.tensor([1, -2, 9]))
        assert ours.tolist() == ref.tolist() and ours.dtype == gt.int64


def test_argument_errors(torch):
    for call in (lambda F, x: F.gelu(x, approximate="foo"),
                 lambda F, x: F.hardtanh(x, 2.0, 1.0),
                 lambda F, x: F.celu(x, 0.0)):
        assert error_of(lambda: call(F, gt.ones(2))) == error_of(
            lambda: call(torch.nn.functional, torch.ones(2)))


def test_saves_input_not_result(torch):
    # Out-of-place forms save their input: writing the output afterwards is fine.
    for lib in (gt, torch):
        x = lib.tensor([-1.0, 2.0], requires_grad=True)
        y = lib.nn.functional.silu(x)
        y.add_(1)
        y.sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), [0.0723, 1.0908], atol=1e-4)


MODULES = [
    ("GELU", (), {}), ("GELU", ("tanh",), {}), ("SiLU", (), {}), ("SiLU", (True,), {}),
    ("Mish", (), {}), ("Mish", (True,), {}), ("Hardswish", (), {}), ("Hardswish", (True,), {}),
    ("SELU", (), {}), ("SELU", (True,), {}), ("CELU", (0.5,), {}), ("ReLU6", (), {}),
    ("ReLU6", (True,), {}), ("LeakyReLU", (), {}), ("LeakyReLU", (0.2, True), {}),
    ("ELU", (), {}), ("ELU", (), {"inplace": True}), ("Softplus", (2.0, 10.0), {}),
    ("Hardtanh", (), {}), ("Hardtanh", (-2, 2), {}), ("LogSigmoid", (), {}),
    ("Softmin", (1,), {}),
]


@pytest.mark.parametrize("name, args, kwargs", MODULES)
def test_modules_match_torch(torch, name, args, kwargs):
    ours = getattr(nn, name)(*args, **kwargs)
    ref = getattr(torch.nn, name)(*args, **kwargs)
    assert repr(ours) == repr(ref)
    x = X + 0.0
    y_ours = ours(gt.tensor(x) * 1)
    y_ref = ref(torch.tensor(x) * 1)
    np.testing.assert_allclose(y_ours.detach().numpy(), y_ref.detach().numpy(), rtol=1e-12,
                               atol=1e-15)


def test_hardtanh_module_bounds_message(torch):
    assert error_of(lambda: nn.Hardtanh(2, 1)) == error_of(lambda: torch.nn.Hardtanh(2, 1))


def test_extreme_inputs_stay_finite(torch):
    big = [-1000.0, -50.0, 50.0, 1000.0]
    for name in ("softplus", "logsigmoid", "mish", "silu", "gelu", "elu"):
        ours = CASES[name](F, gt.tensor(big, dtype=gt.float64))
        ref = CASES[name](torch.nn.functional, torch.tensor(big, dtype=torch.float64))
        np.testing.assert_allclose(ours.numpy(), ref.numpy(), rtol=1e-12)
