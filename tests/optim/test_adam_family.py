"""The adaptive optimizers (Adam, AdamW, RMSprop, Adagrad, Adamax, NAdam, RAdam)
against torch 2.13's single-tensor path: parameter and state trajectories over
many steps, ``_version`` counts, argument errors, state_dict structure and
resuming from a saved state dict.

Both libraries see the same gradients: each step's gradient is
``p * 0.5 + noise`` computed by the library itself from its own (so far equal)
parameters, two exactly rounded ops, so any drift comes from the update alone.
"""

import io

import numpy as np
import pytest

import gradtrack as gt
from gradtrack import optim

from helpers import error_of, to_np

SHAPES = [(5, 3), (7,), (2, 3, 4), ()]
STEPS = 60

CONFIGS = [
    ("Adam", {}),
    ("Adam", {"lr": 0.01, "weight_decay": 0.1}),
    ("Adam", {"amsgrad": True, "maximize": True}),
    ("Adam", {"weight_decay": 0.05, "decoupled_weight_decay": True, "amsgrad": True}),
    ("Adam", {"betas": (0.5, 0.9), "eps": 1e-3, "lr": 0.05}),
    ("AdamW", {}),
    ("AdamW", {"lr": 0.02, "weight_decay": 0.3, "amsgrad": True, "maximize": True}),
    ("RMSprop", {}),
    ("RMSprop", {"momentum": 0.9, "centered": True, "weight_decay": 0.01}),
    ("RMSprop", {"centered": True, "alpha": 0.9, "maximize": True}),
    ("RMSprop", {"momentum": 0.5, "lr": 0.001}),
    ("Adagrad", {}),
    ("Adagrad", {"lr_decay": 0.01, "weight_decay": 0.1, "initial_accumulator_value": 0.5}),
    ("Adagrad", {"maximize": True, "eps": 1e-4}),
    ("Adamax", {}),
    ("Adamax", {"weight_decay": 0.1, "maximize": True, "betas": (0.8, 0.99)}),
    ("NAdam", {}),
    ("NAdam", {"weight_decay": 0.1, "momentum_decay": 0.01}),
    ("NAdam", {"weight_decay": 0.1, "decoupled_weight_decay": True, "maximize": True}),
    ("RAdam", {}),
    ("RAdam", {"weight_decay": 0.1, "lr": 0.01}),
    ("RAdam", {"weight_decay": 0.1, "decoupled_weight_decay": True, "betas": (0.9, 0.9)}),
]
CONFIG_IDS = [f"{name}-{options}" for name, options in CONFIGS]
TOL = {"float32": {"rtol": 2e-5, "atol": 2e-6}, "float64": {"rtol": 1e-11, "atol": 1e-13}}


def _noise(steps, seed=0):
    rng = np.random.default_rng(seed)
    return [[rng.standard_normal(s) for s in SHAPES] for _ in range(steps)]


def _params(lib, dtype, seed=1):
    rng = np.random.default_rng(seed)
    return [lib.tensor(rng.standard_normal(s), dtype=getattr(lib, dtype)).requires_grad_()
            for s in SHAPES]


def _set_grads(lib, params, noise, dtype):
    with lib.no_grad():
        for p, n in zip(params, noise):
            p.grad = p.detach() * 0.5 + lib.tensor(n, dtype=getattr(lib, dtype))


def _train(lib, name, options, dtype, steps, params=None, opt=None, noise=None):
    params = _params(lib, dtype) if params is None else params
    opt = getattr(lib.optim, name)(params, **options) if opt is None else opt
    noise = _noise(steps) if noise is None else noise
    for n in noise:
        _set_grads(lib, params, n, dtype)
        opt.step()
    return params, opt


def _state_arrays(opt, params):
    return [{k: np.asarray(v.detach().numpy()) for k, v in opt.state[p].items()}
            for p in params]


def _assert_states_close(got, want, tol):
    assert [sorted(s) for s in got] == [sorted(s) for s in want]
    for g, w in zip(got, want):
        for key in w:
            assert g[key].shape == w[key].shape, key
            np.testing.assert_allclose(g[key], w[key], err_msg=key, **tol)


# ---- trajectories ----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,options", CONFIGS, ids=CONFIG_IDS)
def test_trajectory_matches_torch(torch, name, options, dtype):
    gp, gopt = _train(gt, name, options, dtype, STEPS)
    tp, topt = _train(torch, name, dict(options, foreach=False), dtype, STEPS)
    for g, t in zip(gp, tp):
        assert g.dtype == getattr(gt, dtype) and g.is_leaf and g.requires_grad
        np.testing.assert_allclose(to_np(g), to_np(t), **TOL[dtype])
    _assert_states_close(_state_arrays(gopt, gp), _state_arrays(topt, tp), TOL[dtype])


@pytest.mark.parametrize("name,options", CONFIGS, ids=CONFIG_IDS)
def test_versions_match_torch(torch, name, options):
    def versions(lib):
        params, opt = _train(lib, name, options, "float32", 3)
        return ([p._version for p in params],
                [{k: v._version for k, v in opt.state[p].items()} for p in params])

    assert versions(gt) == versions(torch)


def test_adamw_bumps_the_parameter_version_twice():
    w = gt.zeros(3, requires_grad=True)
    opt = optim.AdamW([w])
    for _ in range(2):
        w.grad = gt.ones(3)
        opt.step()
    assert w._version == 4 and w.is_leaf


def test_noncontiguous_params_grads_and_state(torch):
    """Transposed parameters and gradients take the copy-in/copy-out path, same numbers."""
    def run(lib):
        rng = np.random.default_rng(3)
        base = lib.tensor(rng.standard_normal((4, 6)), dtype=lib.float32)
        p = base.t().detach().requires_grad_()
        opt = lib.optim.Adam([p], lr=0.05, amsgrad=True)
        for _ in range(20):
            p.grad = lib.tensor(rng.standard_normal((4, 6)), dtype=lib.float32).t()
            assert not p.grad.is_contiguous()
            opt.step()
        return p, opt.state[p]

    gp, gs = run(gt)
    tp, ts = run(torch)
    assert not gp.is_contiguous() and gp._version == tp._version
    np.testing.assert_allclose(to_np(gp), to_np(tp), **TOL["float32"])
    for key in ts:
        np.testing.assert_allclose(to_np(gs[key]), to_np(ts[key]), **TOL["float32"])


def test_param_groups_and_params_without_grad(torch):
    def run(lib):
        params = _params(lib, "float32")
        opt = lib.optim.Adam([{"params": params[:2]}, {"params": params[2:], "lr": 0.1}],
                             lr=0.01)
        for n in _noise(5):
            _set_grads(lib, params, n, "float32")
            params[1].grad = None
            opt.step()
        return params, opt

    gp, gopt = run(gt)
    tp, topt = run(torch)
    assert len(gopt.state) == len(topt.state) == 3 and gp[1] not in gopt.state
    for g, t in zip(gp, tp):
        np.testing.assert_allclose(to_np(g), to_np(t), **TOL["float32"])


def test_adagrad_state_exists_from_construction(torch):
    def run(lib):
        params = _params(lib, "float32")
        opt = lib.optim.Adagrad(params, initial_accumulator_value=0.25)
        sd = opt.state_dict()["state"]
        return {i: {k: to_np(v).tolist() for k, v in s.items()} for i, s in sd.items()}

    assert run(gt) == run(torch)


def test_closure_is_run_with_grad_and_its_loss_returned():
    w = gt.tensor([1.0, 2.0], requires_grad=True)
    opt = optim.RMSprop([w])

    def closure():
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    with gt.no_grad():
        loss = opt.step(closure)
        assert not gt.is_grad_enabled()
    assert float(loss) == 5.0 and loss.grad_fn is not None
    assert to_np(w).tolist() != [1.0, 2.0] and w._version == 1


# ---- argument checks ---------------------------------------------------------------------------

def _bad(lib, name, *args, **kwargs):
    def make():
        return getattr(lib.optim, name)([lib.zeros(2, requires_grad=True)], *args, **kwargs)
    return make


ERRORS = [
    ("Adam", {"lr": -1.0}), ("Adam", {"eps": -1e-8}), ("Adam", {"betas": (1.0, 0.9)}),
    ("Adam", {"betas": (0.9, -0.1)}), ("Adam", {"betas": (0.9, 1)}),
    ("Adam", {"weight_decay": -0.1}), ("Adam", {"betas": (0, 0.999)}),
    ("Adam", {"fused": True, "differentiable": True}), ("Adam", {"fused": True, "foreach": True}),
    ("AdamW", {"lr": -0.5}), ("AdamW", {"weight_decay": -1e-2}),
    ("AdamW", {"fused": True, "foreach": True}),
    ("RMSprop", {"lr": -1}), ("RMSprop", {"eps": -1}), ("RMSprop", {"momentum": -0.9}),
    ("RMSprop", {"weight_decay": -1}), ("RMSprop", {"alpha": -0.99}),
    ("Adagrad", {"lr": -1}), ("Adagrad", {"lr_decay": -1}), ("Adagrad", {"weight_decay": -1}),
    ("Adagrad", {"initial_accumulator_value": -1}), ("Adagrad", {"eps": -1}),
    ("Adagrad", {"fused": True, "differentiable": True}),
    ("Adamax", {"lr": -1}), ("Adamax", {"eps": -1}), ("Adamax", {"betas": (1.5, 0.9)}),
    ("Adamax", {"betas": (0.9, 1.0)}), ("Adamax", {"weight_decay": -1}),
    ("NAdam", {"lr": -1}), ("NAdam", {"eps": -1}), ("NAdam", {"betas": (-0.1, 0.9)}),
    ("NAdam", {"betas": (0.9, 2.0)}), ("NAdam", {"weight_decay": -1}),
    ("NAdam", {"momentum_decay": -1}),
    ("RAdam", {"lr": -1}), ("RAdam", {"eps": -1}), ("RAdam", {"betas": (1.0, 0.9)}),
    ("RAdam", {"betas": (0.9, 1.0)}), ("RAdam", {"weight_decay": -1}),
]


@pytest.mark.parametrize("name,kwargs", ERRORS, ids=[f"{n}-{k}" for n, k in ERRORS])
def test_argument_errors_match_torch(torch, name, kwargs):
    assert error_of(_bad(gt, name, **kwargs)) == error_of(_bad(torch, name, **kwargs))


@pytest.mark.parametrize("make", [
    lambda lib: dict(lr=lib.tensor([0.1, 0.2])),
    lambda lib: dict(lr=lib.tensor(0.1), foreach=True),
    lambda lib: dict(betas=(0.9, lib.tensor(0.99))),
    lambda lib: dict(betas=(lib.tensor(0.9), lib.tensor(0.99)), foreach=True),
    lambda lib: dict(betas=(lib.tensor([0.9, 0.8]), lib.tensor(0.99))),
], ids=["lr-2-elements", "lr-tensor-foreach", "betas-mixed", "betas-foreach", "betas-2-elements"])
def test_tensor_hyperparameter_errors_match_torch(torch, make):
    assert error_of(_bad(gt, "Adam", **make(gt))) == error_of(_bad(torch, "Adam", **make(torch)))


def test_tensor_lr_and_betas_train_like_floats(torch):
    def run(lib):
        params, opt = _train(lib, "Adam", {"lr": lib.tensor(0.01),
                                           "betas": (lib.tensor([0.9]), lib.tensor([0.99]))},
                             "float64", 10)
        assert opt.param_groups[0]["betas"][0].dim() == 0
        return params

    for g, t in zip(run(gt), run(torch)):
        np.testing.assert_allclose(to_np(g), to_np(t), rtol=1e-6)


@pytest.mark.parametrize("name", ["Adam", "AdamW", "RMSprop", "Adamax", "NAdam", "RAdam"])
def test_capturable_on_cpu_raises_like_torch(torch, name):
    def run(lib):
        w = lib.zeros(2, requires_grad=True)
        w.grad = lib.ones(2)
        opt = getattr(lib.optim, name)([w], capturable=True)
        return error_of(opt.step), sorted(opt.state[w])

    assert run(gt) == run(torch)


@pytest.mark.parametrize("name", ["Adam", "AdamW", "Adagrad"])
def test_fused_runs_on_cpu_with_float32_step(torch, name):
    def run(lib):
        params, opt = _train(lib, name, {"fused": True}, "float64", 5)
        sd = opt.state_dict()
        return params, str(sd["state"][0]["step"].dtype), sd["param_groups"][0]["fused"]

    gp, gstep, gfused = run(gt)
    tp, tstep, tfused = run(torch)
    assert (gstep, gfused) == ("gradtrack.float32", True) and (tstep, tfused) == (
        "torch.float32", True)
    for g, t in zip(gp, tp):  # torch's fused kernel rounds differently: close, not equal
        np.testing.assert_allclose(to_np(g), to_np(t), rtol=1e-6)


def test_differentiable_step_on_a_leaf_raises_like_torch(torch):
    def run(lib):
        w = lib.zeros(2, requires_grad=True)
        w.grad = lib.ones(2)
        return error_of(lib.optim.Adam([w], differentiable=True).step)

    assert run(gt) == run(torch)


# ---- state dicts -------------------------------------------------------------------------------

@pytest.mark.parametrize("name,options", CONFIGS, ids=CONFIG_IDS)
def test_state_dict_structure_matches_torch(torch, name, options):
    def structure(lib):
        params, opt = _train(lib, name, options, "float32", 2)
        sd = opt.state_dict()
        state = {i: {k: (tuple(v.shape), str(v.dtype).split(".")[-1]) for k, v in s.items()}
                 for i, s in sd["state"].items()}
        groups = [{k: (str(v) if k == "betas" else v) for k, v in g.items()}
                  for g in sd["param_groups"]]
        return state, groups, repr(opt)

    assert structure(gt) == structure(torch)


@pytest.mark.parametrize("name,options", CONFIGS, ids=CONFIG_IDS)
def test_resume_from_saved_state_is_identical(torch, name, options):
    k, n = 7, 13
    noise = _noise(k + n, seed=5)
    full_p, full_opt = _train(gt, name, options, "float32", k + n, noise=noise)

    params, opt = _train(gt, name, options, "float32", k, noise=noise[:k])
    buffer = io.BytesIO()
    gt.save({"model": [p.detach() for p in params], "optim": opt.state_dict()}, buffer)
    buffer.seek(0)
    loaded = gt.load(buffer)
    resumed = [p.clone().requires_grad_() for p in loaded["model"]]
    opt2 = getattr(optim, name)(resumed, **options)
    opt2.load_state_dict(loaded["optim"])
    _train(gt, name, options, "float32", n, params=resumed, opt=opt2, noise=noise[k:])
    for a, b in zip(resumed, full_p):
        np.testing.assert_array_equal(to_np(a), to_np(b))
    _assert_states_close(_state_arrays(opt2, resumed), _state_arrays(full_opt, full_p),
                         {"rtol": 0, "atol": 0})

    tp, _ = _train(torch, name, dict(options, foreach=False), "float32", k + n, noise=noise)
    for a, b in zip(resumed, tp):
        np.testing.assert_allclose(to_np(a), to_np(b), **TOL["float32"])


def test_load_state_dict_from_torch_values(torch):
    """A torch state dict's numbers (as plain tensors) load and continue as torch does."""
    noise = _noise(12, seed=9)
    tp, topt = _train(torch, "Adam", {"amsgrad": True}, "float32", 6, noise=noise[:6])
    tsd = topt.state_dict()
    sd = {"state": {i: {k: gt.tensor(v.numpy()) for k, v in s.items()}
                    for i, s in tsd["state"].items()},
          "param_groups": [dict(g) for g in tsd["param_groups"]]}
    params = [gt.tensor(p.detach().numpy()).requires_grad_() for p in tp]
    opt = optim.Adam(params, amsgrad=True)
    opt.load_state_dict(sd)
    assert opt.state[params[0]]["step"].dtype == gt.float32
    _train(gt, "Adam", {}, "float32", 6, params=params, opt=opt, noise=noise[6:])
    _train(torch, "Adam", {}, "float32", 6, params=tp, opt=topt, noise=noise[6:])
    for a, b in zip(params, tp):
        np.testing.assert_allclose(to_np(a), to_np(b), **TOL["float32"])


def test_old_number_steps_become_tensors():
    w = gt.zeros(2, requires_grad=True)
    opt = optim.NAdam([w])
    w.grad = gt.ones(2)
    opt.step()
    sd = opt.state_dict()
    sd["state"][0]["step"] = 1
    sd["state"][0]["mu_product"] = float(sd["state"][0]["mu_product"])
    opt2 = optim.NAdam([gt.zeros(2, requires_grad=True)])
    opt2.load_state_dict(sd)
    state = next(iter(opt2.state.values()))
    assert state["step"].dim() == 0 and state["step"].dtype == gt.float32
    assert state["mu_product"].dtype == gt.float32


# ---- save / load of nested state ---------------------------------------------------------------

def test_save_load_round_trips_nested_containers():
    obj = {"state": {0: {"step": gt.tensor(3.0), "buf": gt.ones(2, 2)}},
           "param_groups": [{"lr": 0.1, "betas": (0.9, 0.999), "foreach": None,
                             "amsgrad": False, "name": "g0", "params": [0, 1]}],
           "scheduler": {"base_lrs": [0.1], "last_epoch": 4, "_last_lr": [0.025],
                         "lr_lambdas": [None], "milestones": {2: 1, 5: 2},
                         "nested": [(1, [2.5, (None, True)]), {"k": "v"}]}}
    buffer = io.BytesIO()
    gt.save(obj, buffer)
    buffer.seek(0)
    back = gt.load(buffer)
    assert back["param_groups"] == obj["param_groups"]
    assert back["scheduler"] == obj["scheduler"]
    assert isinstance(back["param_groups"][0]["betas"], tuple)
    assert list(back["state"]) == [0]
    step = back["state"][0]["step"]
    assert step.dim() == 0 and step.dtype == gt.float32 and float(step) == 3.0
    assert to_np(back["state"][0]["buf"]).tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_save_load_round_trips_torch_scheduler_state_dicts(torch):
    """Every lr_scheduler state dict (Counter milestones, inf bests, nested
    scheduler lists) comes back equal and with the same container types."""
    sched = torch.optim.lr_scheduler

    def opt():
        return torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, momentum=0.9)

    o1, o2 = opt(), opt()
    schedulers = [
        sched.StepLR(opt(), 3), sched.MultiStepLR(opt(), [2, 5]), sched.CosineAnnealingLR(opt(), 9),
        sched.CosineAnnealingWarmRestarts(opt(), 5), sched.OneCycleLR(opt(), 1.0, total_steps=20),
        sched.CyclicLR(opt(), 0.01, 0.1), sched.ReduceLROnPlateau(opt()),
        sched.LambdaLR(opt(), lambda e: 0.9 ** e),
        sched.SequentialLR(o1, [sched.ConstantLR(o1), sched.ExponentialLR(o1, 0.9)], [2]),
        sched.ChainedScheduler([sched.ConstantLR(o2), sched.ExponentialLR(o2, 0.9)]),
    ]
    for scheduler in schedulers:
        state = scheduler.state_dict()
        buffer = io.BytesIO()
        gt.save(state, buffer)
        buffer.seek(0)
        back = gt.load(buffer)
        assert back == state, type(scheduler).__name__
        assert {k: type(v) for k, v in back.items()} == {k: type(v) for k, v in state.items()}


@pytest.mark.parametrize("name,options", [("Adam", {"amsgrad": True}), ("Adamax", {}),
                                          ("RMSprop", {"centered": True}), ("NAdam", {})])
def test_nan_and_inf_gradients_propagate_like_torch(torch, name, options):
    """NaN wins in torch.maximum (amsgrad's max, Adamax's exp_inf) and spreads as torch's."""
    def run(lib):
        w = lib.tensor([1.0, -2.0, 0.5, 3.0], requires_grad=True)
        opt = getattr(lib.optim, name)([w], **options)
        for grad in ([0.5, float("nan"), 1.0, -1.0], [1.0, 1.0, float("inf"), 2.0],
                     [float("nan"), 0.5, 0.5, 0.5]):
            w.grad = lib.tensor(grad)
            opt.step()
        return to_np(w), {k: to_np(v) for k, v in opt.state[w].items()}

    gw, gs = run(gt)
    tw, ts = run(torch)
    np.testing.assert_allclose(gw, tw, **TOL["float32"])
    for key in ts:
        np.testing.assert_allclose(gs[key], ts[key], err_msg=key, **TOL["float32"])


def _polynomial_fit(lib, init, name, steps):
    """The "Learning PyTorch with Examples" optim script's loop (sin(x) by a cubic)."""
    import math
    x = lib.linspace(-math.pi, math.pi, 2000)
    y = lib.sin(x)
    xx = x.unsqueeze(-1).pow(lib.tensor([1, 2, 3]))
    model = lib.nn.Sequential(lib.nn.Linear(3, 1), lib.nn.Flatten(0, 1))
    model.load_state_dict({k: lib.tensor(v) for k, v in init.items()})
    loss_fn = lib.nn.MSELoss(reduction="sum")
    optimizer = getattr(lib.optim, name)(model.parameters(), lr=1e-3)
    losses = []
    for _ in range(steps):
        loss = loss_fn(model(xx), y)
        losses.append(loss.item())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return np.array(losses)


@pytest.mark.parametrize("name", ["RMSprop", "Adam"])
def test_tutorial_polynomial_script_follows_torch(torch, name):
    rng = np.random.default_rng(11)
    init = {"0.weight": rng.uniform(-0.5, 0.5, (1, 3)).astype(np.float32),
            "0.bias": rng.uniform(-0.5, 0.5, (1,)).astype(np.float32)}
    got = _polynomial_fit(gt, init, name, 300)
    want = _polynomial_fit(torch, init, name, 300)
    assert got[-1] < got[0] / 2
    np.testing.assert_allclose(got, want, rtol=1e-4)
