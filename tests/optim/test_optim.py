"""gradtrack.optim: Optimizer bookkeeping and SGD's update rule.

The update is checked three ways: against the sequences measured on PyTorch
2.13, against a NumPy re-implementation, and (with
the ``torch`` fixture) against torch training the same models from the same
weights for 20 steps.
"""

import copy
import warnings

import numpy as np
import pytest

import gradtrack as gt
from gradtrack import optim

from helpers import error_of, to_np

SGD_OPTIONS = [
    {},
    {"momentum": 0.9},
    {"momentum": 0.9, "dampening": 0.5},
    {"weight_decay": 0.01},
    {"momentum": 0.9, "nesterov": True},
    {"maximize": True},
    {"momentum": 0.5, "dampening": 0.1, "weight_decay": 0.1, "maximize": True},
]


# ---- the update rule -----------------------------------------------------------------------

MEASURED = [  # p0 = [1, -2], loss = sum(p ** 2), lr = 0.1, measured on torch 2.13
    ({}, [[0.8, -1.6], [0.64, -1.28], [0.512, -1.024]]),
    ({"momentum": 0.9}, [[0.8, -1.6], [0.46, -0.92], [0.062, -0.124]]),
    ({"momentum": 0.9, "dampening": 0.5}, [[0.8, -1.6], [0.54, -1.08], [0.252, -0.504]]),
    ({"weight_decay": 0.01}, [[0.799, -1.598], [0.638401, -1.276802], [0.510082, -1.020165]]),
    ({"momentum": 0.9, "nesterov": True},
     [[0.62, -1.24], [0.2224, -0.4448], [-0.108352, 0.216704]]),
    ({"maximize": True}, [[1.2, -2.4], [1.44, -2.88], [1.728, -3.456]]),
]


@pytest.mark.parametrize("fused", [False, True])
@pytest.mark.parametrize("options,expected", MEASURED, ids=lambda v: str(v))
def test_sgd_matches_measured_sequences(options, expected, fused):
    w = gt.tensor([1.0, -2.0], requires_grad=True)
    opt = optim.SGD([w], lr=0.1, fused=fused, **options)
    seen = []
    for _ in range(3):
        opt.zero_grad()
        (w * w).sum().backward()
        opt.step()
        seen.append(to_np(w).tolist())
    np.testing.assert_allclose(seen, expected, rtol=1e-5, atol=1e-6)


def _numpy_sgd(p, grads_fn, steps, lr, momentum=0.0, dampening=0.0, weight_decay=0.0,
               nesterov=False, maximize=False):
    p = p.astype(np.float64)
    buf = None
    for _ in range(steps):
        g = grads_fn(p)
        g = -g if maximize else g
        g = g + weight_decay * p
        if momentum:
            buf = g.copy() if buf is None else momentum * buf + (1 - dampening) * g
            g = g + momentum * buf if nesterov else buf
        p = p - lr * g
    return p


@pytest.mark.parametrize("options", SGD_OPTIONS, ids=str)
def test_sgd_matches_numpy_on_quadratic(options):
    # loss = sum(a * p^3 / 3 + b * p): grad a * p^2 + b, so the steps are not linear.
    a = np.array([0.5, 1.0, 2.0, 0.1])
    b = np.array([1.0, -1.0, 0.5, 2.0])
    p0 = np.array([0.3, -0.2, 0.1, 0.4])
    w = gt.tensor(p0, dtype=gt.float64, requires_grad=True)
    ta, tb = gt.tensor(a), gt.tensor(b)
    opt = optim.SGD([w], lr=0.05, **options)
    for _ in range(10):
        opt.zero_grad()
        (ta * w ** 3 / 3 + tb * w).sum().backward()
        opt.step()
    expected = _numpy_sgd(p0, lambda p: a * p ** 2 + b, 10, 0.05, **options)
    np.testing.assert_allclose(to_np(w), expected, rtol=1e-12)


def test_step_bumps_version_once_and_keeps_leaf():
    w = gt.tensor([1.0, -2.0], requires_grad=True)
    opt = optim.SGD([w], lr=0.1, momentum=0.9, weight_decay=0.1, nesterov=True)
    for step in range(1, 4):
        (w * w).sum().backward()
        opt.step()
        assert w._version == step and w.is_leaf and w.grad_fn is None and w.requires_grad
    assert opt.state[w]["momentum_buffer"]._version == 4  # 0 after clone, then mul_ + add_


def test_momentum_state_after_one_step():
    w = gt.tensor([1.0, 1.0], requires_grad=True)
    opt = optim.SGD([w], lr=0.1, momentum=0.9)
    (w * w).sum().backward()
    opt.step()
    assert list(opt.state[w]) == ["momentum_buffer"]
    assert repr(opt.state[w]) == "{'momentum_buffer': tensor([2., 2.])}"


def test_param_without_grad_is_skipped_and_gets_no_state():
    w = gt.tensor([1.0, 2.0], requires_grad=True)
    v = gt.tensor([3.0], requires_grad=True)
    opt = optim.SGD([w, v], lr=0.1, momentum=0.9)
    (w * w).sum().backward()
    opt.step()
    assert v._version == 0 and v not in opt.state and w in opt.state
    assert to_np(v).tolist() == [3.0]
    plain = optim.SGD([v], lr=0.1)
    plain.step()
    assert len(plain.state) == 0


def test_no_momentum_creates_no_state():
    w = gt.tensor([1.0], requires_grad=True)
    opt = optim.SGD([w], lr=0.1)
    (w * w).sum().backward()
    opt.step()
    assert len(opt.state) == 0 and opt.state_dict()["state"] == {}


def test_step_runs_under_no_grad_and_restores_mode():
    w = gt.tensor([1.0], requires_grad=True)
    opt = optim.SGD([w], lr=0.1, weight_decay=0.5, momentum=0.9)
    (w * w).sum().backward()
    opt.step()
    assert gt.is_grad_enabled()
    assert opt.state[w]["momentum_buffer"].grad_fn is None
    with gt.no_grad():
        opt.step()
    assert gt.is_grad_enabled()


def test_closure_runs_with_grad_and_returns_loss():
    w = gt.tensor([2.0], requires_grad=True)
    opt = optim.SGD([w], lr=0.25)
    calls = []

    def closure():
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        calls.append(gt.is_grad_enabled())
        return loss

    with gt.no_grad():
        loss = opt.step(closure)
    assert loss.item() == 4.0 and calls == [True]
    assert to_np(w).tolist() == [1.0]


def test_lr_as_tensor():
    w = gt.tensor([1.0], requires_grad=True)
    opt = optim.SGD([w], lr=gt.tensor(0.5))
    (w * w).sum().backward()
    opt.step()
    assert to_np(w).tolist() == [0.0]


def test_param_groups_use_their_own_hyperparameters():
    a = gt.tensor([1.0], requires_grad=True)
    b = gt.tensor([1.0], requires_grad=True)
    opt = optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5, "momentum": 0.9}], lr=0.1)
    (a * a + b * b).sum().backward()
    opt.step()
    assert to_np(a).tolist() == pytest.approx([0.8]) and to_np(b).tolist() == pytest.approx([0.0])
    assert a not in opt.state and b in opt.state


def test_zero_grad():
    w = gt.tensor([1.0, 2.0], requires_grad=True)
    opt = optim.SGD([w], lr=0.1)
    (w * w).sum().backward()
    grad = w.grad
    opt.zero_grad(set_to_none=False)
    assert w.grad is grad and to_np(grad).tolist() == [0.0, 0.0]
    opt.zero_grad()
    assert w.grad is None


def test_differentiable_records_graph_like_torch(torch):
    def run(lib):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        opt = lib.optim.SGD([w], lr=0.1, differentiable=True)
        (w * w).sum().backward()
        return error_of(opt.step)

    assert run(gt) == run(torch)


# ---- argument errors -------------------------------------------------------------------------

def _sgd_errors(lib):
    leaf = lib.ones(2, requires_grad=True)
    cases = [
        lambda: lib.optim.SGD([leaf], lr=-0.1),
        lambda: lib.optim.SGD([leaf], lr=0.1, momentum=-1),
        lambda: lib.optim.SGD([leaf], lr=0.1, weight_decay=-1),
        lambda: lib.optim.SGD([leaf], lr=0.1, nesterov=True),
        lambda: lib.optim.SGD([leaf], lr=0.1, momentum=0.9, dampening=0.1, nesterov=True),
        lambda: lib.optim.SGD([leaf * 2], lr=0.1),
        lambda: lib.optim.SGD(lib.ones(2), lr=0.1),
        lambda: lib.optim.SGD(lib.nn.Parameter(lib.ones(2)), lr=0.1),
        lambda: lib.optim.SGD([], lr=0.1),
        lambda: lib.optim.SGD([1], lr=0.1),
        lambda: lib.optim.SGD([{"params": {leaf}}], lr=0.1),
        lambda: lib.optim.SGD([leaf], lr=lib.ones(2)),
        lambda: lib.optim.SGD([{"params": [leaf]}, {"params": [leaf]}], lr=0.1),
        lambda: lib.optim.SGD([leaf], lr=0.1).add_param_group([leaf]),
        lambda: lib.optim.SGD([leaf], lr=0.1, fused=True, differentiable=True),
        lambda: lib.optim.SGD([leaf], lr=0.1, fused=True, foreach=True),
        lambda: lib.optim.SGD([("a", leaf), leaf], lr=0.1),
    ]
    return [error_of(case) for case in cases]


def test_sgd_argument_errors():
    errors = _sgd_errors(gt)
    assert errors[:10] == [
        ("ValueError", "Invalid learning rate: -0.1"),
        ("ValueError", "Invalid momentum value: -1"),
        ("ValueError", "Invalid weight_decay value: -1"),
        ("ValueError", "Nesterov momentum requires a momentum and zero dampening"),
        ("ValueError", "Nesterov momentum requires a momentum and zero dampening"),
        ("ValueError", "can't optimize a non-leaf Tensor"),
        ("TypeError", "params argument given to the optimizer should be an iterable of Tensors "
                      "or dicts, but got gradtrack.FloatTensor"),
        ("TypeError", "params argument given to the optimizer should be an iterable of Tensors "
                      "or dicts, but got gradtrack.FloatTensor"),
        ("ValueError", "optimizer got an empty parameter list"),
        ("TypeError", "optimizer can only optimize Tensors, but one of the params is int"),
    ]


def test_sgd_argument_errors_equal_torch(torch):
    ours = [(kind, msg.replace("gradtrack", "torch")) for kind, msg in _sgd_errors(gt)]
    assert ours == _sgd_errors(torch)


def test_duplicate_parameters_warn():
    w = gt.ones(1, requires_grad=True)
    with pytest.warns(UserWarning, match="optimizer contains a parameter group with duplicate "
                                         "parameters"):
        optim.SGD([w, w], lr=0.1)


def test_defaults_and_repr():
    w = gt.ones(1, requires_grad=True)
    opt = optim.SGD([w], lr=0.1)
    assert opt.defaults == {"lr": 0.1, "momentum": 0, "dampening": 0, "weight_decay": 0,
                            "nesterov": False, "maximize": False, "foreach": None,
                            "differentiable": False, "fused": None}
    assert optim.SGD([w]).defaults["lr"] == 0.001
    assert repr(opt) == (
        "SGD (\nParameter Group 0\n    dampening: 0\n    differentiable: False\n    foreach: None\n"
        "    fused: None\n    lr: 0.1\n    maximize: False\n    momentum: 0\n    nesterov: False\n"
        "    weight_decay: 0\n)")


def test_repr_equals_torch(torch):
    def build(lib):
        a, b = lib.ones(1, requires_grad=True), lib.ones(2, requires_grad=True)
        return lib.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1,
                             momentum=0.9, nesterov=True, weight_decay=1e-4)

    assert repr(build(gt)) == repr(build(torch))


# ---- state_dict ---------------------------------------------------------------------------

def _trained_opt(lib, steps=2):
    model = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.ReLU(), lib.nn.Linear(2, 1))
    with lib.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(lib.linspace(-1, 1, p.numel()).reshape(p.shape) * (i + 1))
    params = list(model.parameters())
    opt = lib.optim.SGD([{"params": params[:2]}, {"params": params[2:], "lr": 0.01}], lr=0.1,
                        momentum=0.9)
    x = lib.ones(4, 3)
    for _ in range(steps):
        opt.zero_grad()
        model(x).pow(2).mean().backward()
        opt.step()
    return model, opt


def _structure(sd):
    state = {k: {n: v.detach().numpy().tolist() for n, v in s.items()}
             for k, s in sd["state"].items()}
    return state, sd["param_groups"]


def test_state_dict_format():
    _, opt = _trained_opt(gt)
    sd = opt.state_dict()
    assert list(sd) == ["state", "param_groups"]
    assert list(sd["state"]) == [0, 1, 2, 3]
    assert [g["params"] for g in sd["param_groups"]] == [[0, 1], [2, 3]]
    assert list(sd["param_groups"][1]) == ["lr", "momentum", "dampening", "weight_decay",
                                           "nesterov", "maximize", "foreach", "differentiable",
                                           "fused", "params"]
    assert sd["param_groups"][1]["lr"] == 0.01
    assert sd["state"][0]["momentum_buffer"] is opt.state[opt.param_groups[0]["params"][0]][
        "momentum_buffer"]


def test_state_dict_equals_torch(torch):
    ours = _structure(_trained_opt(gt)[1].state_dict())
    theirs = _structure(_trained_opt(torch)[1].state_dict())
    assert ours[1] == theirs[1]
    assert ours[0].keys() == theirs[0].keys()
    for k in ours[0]:
        np.testing.assert_allclose(ours[0][k]["momentum_buffer"],
                                   theirs[0][k]["momentum_buffer"], rtol=1e-5)


def test_load_state_dict_restores_training():
    model, opt = _trained_opt(gt)
    sd = copy.deepcopy(opt.state_dict())
    twin = copy.deepcopy(model)
    params = list(twin.parameters())
    twin_opt = optim.SGD([{"params": params[:2]}, {"params": params[2:]}], lr=0.5)
    twin_opt.load_state_dict(sd)
    assert twin_opt.param_groups[1]["lr"] == 0.01 and twin_opt.param_groups[1]["momentum"] == 0.9
    assert twin_opt.param_groups[0]["params"][0] is params[0]
    x = gt.ones(4, 3)
    for m, o in ((model, opt), (twin, twin_opt)):
        o.zero_grad()
        m(x).pow(2).mean().backward()
        o.step()
    for p, q in zip(model.parameters(), twin.parameters()):
        np.testing.assert_array_equal(to_np(p), to_np(q))


def test_load_state_dict_casts_buffers_to_param_dtype():
    w = gt.tensor([1.0, 2.0], dtype=gt.float64, requires_grad=True)
    opt = optim.SGD([w], lr=0.1, momentum=0.9)
    opt.load_state_dict({"state": {0: {"momentum_buffer": gt.ones(2)}},
                         "param_groups": [dict(opt.state_dict()["param_groups"][0])]})
    assert opt.state[w]["momentum_buffer"].dtype is gt.float64


def test_load_state_dict_errors_equal_torch_text():
    _, opt = _trained_opt(gt)
    sd = opt.state_dict()
    sd["param_groups"] = sd["param_groups"][:1]
    assert error_of(lambda: opt.load_state_dict(sd)) == (
        "ValueError", "loaded state dict has a different number of parameter groups")
    sd = opt.state_dict()
    sd["param_groups"][0]["params"] = [0]
    assert error_of(lambda: opt.load_state_dict(sd)) == (
        "ValueError", "loaded state dict contains a parameter group that doesn't match the size "
                      "of optimizer's group")


def test_named_params_give_param_names():
    w = gt.ones(1, requires_grad=True)
    sd = optim.SGD([("w", w)], lr=0.1).state_dict()
    assert sd["param_groups"][0]["param_names"] == ["w"]
    assert list(sd["param_groups"][0])[0] == "param_names"


# ---- training parity with torch --------------------------------------------------------------

def _copy_weights(lib, model, weights):
    with lib.no_grad():
        for p, w in zip(model.parameters(), weights):
            p.copy_(lib.tensor(w))


def _train(lib, build, weights, x, y, loss_name, options, steps=20):
    model = build(lib)
    _copy_weights(lib, model, weights)
    loss_fn = getattr(lib.nn, loss_name)()
    opt = lib.optim.SGD(model.parameters(), lr=0.05, **options)
    xs, ys = lib.tensor(x), lib.tensor(y)
    versions = []
    for _ in range(steps):
        opt.zero_grad()
        loss = loss_fn(model(xs), ys)
        loss.backward()
        opt.step()
        versions.append([p._version for p in model.parameters()])
    buffers = [opt.state[p]["momentum_buffer"]._version for p in model.parameters()
               if "momentum_buffer" in opt.state[p]]
    return [p.detach().numpy().copy() for p in model.parameters()], versions, buffers, loss


def _linear(lib):
    return lib.nn.Linear(3, 1)


def _mlp(lib):
    nn_ = lib.nn
    return nn_.Sequential(nn_.Linear(6, 16), nn_.ReLU(), nn_.Linear(16, 4))


@pytest.mark.parametrize("options", SGD_OPTIONS, ids=str)
@pytest.mark.parametrize("case", ["linear_mse", "mlp_cross_entropy"])
def test_twenty_steps_equal_torch(torch, case, options):
    rng = np.random.default_rng(7)
    if case == "linear_mse":
        build, loss_name = _linear, "MSELoss"
        weights = [rng.standard_normal((1, 3)).astype(np.float32),
                   rng.standard_normal(1).astype(np.float32)]
        x = rng.standard_normal((32, 3)).astype(np.float32)
        y = (x @ np.array([[1.5], [-2.0], [0.5]]) + 0.3).astype(np.float32)
    else:
        build, loss_name = _mlp, "CrossEntropyLoss"
        weights = [rng.standard_normal(s).astype(np.float32) * 0.3
                   for s in ((16, 6), (16,), (4, 16), (4,))]
        x = rng.standard_normal((32, 6)).astype(np.float32)
        y = rng.integers(0, 4, 32)
    ours = _train(gt, build, weights, x, y, loss_name, options)
    theirs = _train(torch, build, weights, x, y, loss_name, options)
    for a, b in zip(ours[0], theirs[0]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert ours[1] == theirs[1]  # each parameter's _version after each step
    assert ours[2] == theirs[2]  # the momentum buffers' _version
    assert ours[3].grad_fn.name() == theirs[3].grad_fn.name()


def test_fused_path_matches_default():
    rng = np.random.default_rng(8)
    weights = [rng.standard_normal(s).astype(np.float32) * 0.3
               for s in ((16, 6), (16,), (4, 16), (4,))]
    x = rng.standard_normal((32, 6)).astype(np.float32)
    y = rng.integers(0, 4, 32)
    for options in SGD_OPTIONS:
        default = _train(gt, _mlp, weights, x, y, "CrossEntropyLoss", options)
        fused = _train(gt, _mlp, weights, x, y, "CrossEntropyLoss", dict(options, fused=True))
        for a, b in zip(default[0], fused[0]):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
        assert default[1] == fused[1]


def test_reassigning_parameter_out_of_place_is_caught():
    w = gt.tensor([1.0, 2.0], requires_grad=True)
    (w * w).sum().backward()
    w = w - 0.1 * w.grad  # the trap: w is now a non-leaf
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert w.grad is None
    assert error_of(lambda: optim.SGD([w], lr=0.1)) == (
        "ValueError", "can't optimize a non-leaf Tensor")
