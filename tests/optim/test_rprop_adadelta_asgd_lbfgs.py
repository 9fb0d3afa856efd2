"""Rprop, Adadelta, ASGD, Adafactor, LBFGS and SparseAdam against PyTorch 2.13: parameter
trajectories over many steps (with ``maximize`` and ``weight_decay``), the state
they keep, their argument checks and messages, ``capturable`` on the CPU, and
``state_dict`` round trips."""

import numpy as np
import pytest

import gradtrack

from helpers import same


def _problem(lib, dtype_name="float32"):
    """A small least-squares problem and its parameters, identical in both libraries."""
    dtype = getattr(lib, dtype_name)
    rng = np.random.default_rng(0)
    a = lib.tensor(rng.standard_normal((6, 3)).tolist(), dtype=dtype)
    b = lib.tensor(rng.standard_normal(6).tolist(), dtype=dtype)
    w = lib.tensor([0.5, -1.0, 2.0], dtype=dtype, requires_grad=True)
    c = lib.tensor([0.1], dtype=dtype, requires_grad=True)
    m = lib.tensor([[0.3, -0.2], [1.0, 0.4], [-0.7, 0.05]], dtype=dtype, requires_grad=True)

    def loss_fn():
        return ((a @ w + c - b) ** 2).mean() + (w ** 4).sum() * 0.01 + (m ** 2).sum()

    return [w, c, m], loss_fn


def _trajectory(lib, name, kwargs, steps=40, dtype_name="float32"):
    """``steps`` optimizer steps on gradients computed in NumPy from the parameters'
    bits, so both libraries see the same gradients and only the update is compared."""
    params, _ = _problem(lib, dtype_name)
    opt = getattr(lib.optim, name)(params, **kwargs)
    out = []
    for step in range(steps):
        for i, p in enumerate(params):
            x = p.detach().numpy()
            g = (2 * (x - 0.3 * (i + 1)) + 0.1 * x ** 3) * (1.5 if step % 7 == 3 else 1.0)
            p.grad = lib.from_numpy(g.astype(x.dtype))
        opt.step()
        out.append([p.detach().clone() for p in params])
    return out, opt


CASES = [
    ("Rprop", {}),
    ("Rprop", {"lr": 0.05, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.2)}),
    ("Rprop", {"maximize": True}),
    ("Adadelta", {}),
    ("Adadelta", {"lr": 0.5, "rho": 0.8, "eps": 1e-4, "weight_decay": 0.1}),
    ("Adadelta", {"maximize": True, "foreach": False}),
    ("ASGD", {}),
    ("ASGD", {"lr": 0.05, "lambd": 1e-2, "alpha": 0.5, "t0": 10, "weight_decay": 0.05}),
    ("ASGD", {"maximize": True, "t0": 3}),
    ("Adafactor", {}),
    ("Adafactor", {"lr": 0.05, "beta2_decay": -0.5, "eps": (1e-3, 1e-2), "d": 1.5,
                   "weight_decay": 0.1}),
    ("Adafactor", {"maximize": True}),
    ("Adadelta", {"foreach": True, "weight_decay": 0.1}),
    ("ASGD", {"foreach": True, "t0": 5}),
    ("Adafactor", {"foreach": True}),
]


@pytest.mark.parametrize("name,kwargs", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
def test_trajectory_matches_torch(torch, name, kwargs, dtype_name):
    ours, opt = _trajectory(gradtrack, name, kwargs, dtype_name=dtype_name)
    theirs, topt = _trajectory(torch, name, kwargs, dtype_name=dtype_name)
    # Rprop's update is exact (signs, products, clamps): bit for bit. Adadelta and
    # ASGD go through add(alpha=)/addcmul, whose elementwise kernels round once less
    # than torch's fused multiply-add in some elements: within a few ulps.
    tol = 0 if name == "Rprop" else (1e-5 if dtype_name == "float32" else 1e-13)
    if kwargs.get("foreach"):
        # gradtrack runs the single-tensor arithmetic for foreach=True too; torch's
        # multi-tensor ASGD keeps its step sizes in float32 tensors (1e-9 apart in float64).
        tol = max(tol, 1e-8)
    for step, (mine, ref) in enumerate(zip(ours, theirs)):
        for p, q in zip(mine, ref):
            np.testing.assert_allclose(p.numpy(), q.numpy(), rtol=tol, atol=tol,
                                       err_msg=f"step {step}")
    state = opt.state_dict()["state"]
    tstate = topt.state_dict()["state"]
    assert state.keys() == tstate.keys()
    for key in tstate:
        assert state[key].keys() == tstate[key].keys()
        for k, v in tstate[key].items():
            mine = state[key][k]
            assert str(mine.dtype).split(".")[-1] == str(v.dtype).split(".")[-1], k
            np.testing.assert_allclose(mine.numpy(), v.numpy(), rtol=tol, atol=tol, err_msg=k)


def test_param_groups_and_repr_keys(torch):
    for name in ("Rprop", "Adadelta", "ASGD", "LBFGS", "SparseAdam", "Adafactor"):
        ours = getattr(gradtrack.optim, name)([gradtrack.zeros(1, requires_grad=True)])
        theirs = getattr(torch.optim, name)([torch.zeros(1, requires_grad=True)])
        mine = {k: v for k, v in ours.param_groups[0].items() if k != "params"}
        ref = {k: v for k, v in theirs.param_groups[0].items() if k != "params"}
        assert mine == ref, name
        assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("call", [
    "Rprop(params, lr=-1)", "Rprop(params, etas=(1.5, 2.0))", "Rprop(params, etas=(0.5, 0.9))",
    "Rprop(params, lr=lib.tensor([1.0, 2.0]))",
    "Adadelta(params, lr=-1)", "Adadelta(params, rho=1.5)", "Adadelta(params, eps=-1)",
    "Adadelta(params, weight_decay=-1)",
    "ASGD(params, lr=-0.1)", "ASGD(params, weight_decay=-1)",
    "LBFGS(params, lr=-1)", "LBFGS([{'params': params}, {'params': [lib.zeros(1, requires_grad=True)]}])",
    "SparseAdam(params, lr=0)", "SparseAdam(params, eps=0)", "SparseAdam(params, betas=(1.0, 0.9))",
    "SparseAdam(params, betas=(0.9, -0.1))",
    "Adafactor(params, lr=-1)", "Adafactor(params, beta2_decay=0.5)",
    "Adafactor(params, eps=(-1, 1e-3))", "Adafactor(params, eps=(None, -1))",
    "Adafactor(params, d=0.5)", "Adafactor(params, weight_decay=-1)",
])
def test_argument_errors(call):
    def scenario(lib):
        params = [lib.zeros(2, requires_grad=True)]
        eval("lib.optim." + call, {"lib": lib, "params": params})

    same(scenario)


@pytest.mark.parametrize("name", ["Rprop", "Adadelta", "ASGD"])
def test_capturable_on_cpu_is_refused(name):
    def scenario(lib):
        w = lib.ones(2, requires_grad=True)
        opt = getattr(lib.optim, name)([w], capturable=True)
        w.sum().backward()
        opt.step()

    same(scenario)


def test_sparse_adam_refuses_dense_gradients():
    def scenario(lib):
        w = lib.ones(2, requires_grad=True)
        opt = lib.optim.SparseAdam([w])
        calls = []

        def closure():
            calls.append(1)
            loss = w.sum()
            loss.backward()
            return loss

        try:
            opt.step(closure)
        except RuntimeError as e:
            return str(e), calls
        return None

    same(scenario)


def test_differentiable_step_on_leaf_is_refused():
    def scenario(lib):
        w = lib.ones(2, requires_grad=True)
        opt = lib.optim.Adadelta([w], differentiable=True)
        w.sum().backward()
        opt.step()

    same(scenario)


def _lbfgs_run(lib, kwargs, steps):
    params, loss_fn = _problem(lib, "float64")
    opt = lib.optim.LBFGS(params, **kwargs)
    evals = []

    def closure():
        opt.zero_grad()
        loss = loss_fn()
        loss.backward()
        evals.append(loss.item())
        return loss

    losses = [opt.step(closure).item() for _ in range(steps)]
    return params, losses, evals, opt


@pytest.mark.parametrize("kwargs", [
    {}, {"line_search_fn": "strong_wolfe"}, {"lr": 0.5, "max_iter": 5, "history_size": 3},
    {"line_search_fn": "strong_wolfe", "history_size": 2, "max_iter": 7, "max_eval": 9},
    {"tolerance_grad": 1e-3},
])
def test_lbfgs_matches_torch(torch, kwargs):
    p, losses, evals, opt = _lbfgs_run(gradtrack, kwargs, 4)
    tp, tlosses, tevals, topt = _lbfgs_run(torch, kwargs, 4)
    assert len(evals) == len(tevals)
    np.testing.assert_allclose(evals, tevals, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(losses, tlosses, rtol=1e-12, atol=1e-14)
    for a, b in zip(p, tp):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10,
                                   atol=1e-12)
    state = opt.state[p[0]]
    tstate = topt.state[tp[0]]
    assert state["func_evals"] == tstate["func_evals"]
    assert state["n_iter"] == tstate["n_iter"]
    assert len(state["old_dirs"]) == len(tstate["old_dirs"])


def test_lbfgs_float32_rosenbrock_matches_torch(torch):
    def run(lib):
        x = lib.tensor([-1.5, 2.0], requires_grad=True)
        opt = lib.optim.LBFGS([x], line_search_fn="strong_wolfe", max_iter=50)

        def closure():
            opt.zero_grad()
            loss = (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2
            loss.backward()
            return loss

        for _ in range(3):
            opt.step(closure)
        return x.detach().numpy()

    # float32 near the minimum: both stop within rounding noise of (1, 1).
    np.testing.assert_allclose(run(gradtrack), run(torch), atol=1e-4)
    np.testing.assert_allclose(run(gradtrack), [1.0, 1.0], atol=1e-4)


def test_lbfgs_unknown_line_search():
    def scenario(lib):
        w = lib.ones(2, requires_grad=True)
        opt = lib.optim.LBFGS([w], line_search_fn="armijo")

        def closure():
            opt.zero_grad()
            loss = (w * w).sum()
            loss.backward()
            return loss

        opt.step(closure)

    same(scenario)


@pytest.mark.parametrize("name", ["Rprop", "Adadelta", "ASGD", "Adafactor"])
def test_state_dict_round_trip_continues_the_trajectory(torch, name):
    def run(lib, split):
        params, loss_fn = _problem(lib)
        opt = getattr(lib.optim, name)(params)
        for i in range(10):
            if i == split:
                saved = opt.state_dict()
                opt = getattr(lib.optim, name)(params)
                opt.load_state_dict(saved)
            opt.zero_grad()
            loss_fn().backward()
            opt.step()
        return [p.detach().numpy().copy() for p in params]

    # Saved and reloaded mid-way: the same parameters as an uninterrupted run.
    for a, b in zip(run(gradtrack, 5), run(gradtrack, 10)):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(run(gradtrack, 5), run(torch, 10)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["Rprop", "Adadelta", "ASGD", "Adafactor", "Muon"])
def test_versions_match_torch(name):
    # Each in-place write of a step bumps the parameter's and the state's counters as
    # torch's single-tensor step does.
    def scenario(lib):
        w = lib.ones(2, 3, requires_grad=True)
        opt = getattr(lib.optim, name)([w])
        for _ in range(3):
            w.grad = lib.ones(2, 3) * 0.5
            opt.step()
        return w._version, {k: getattr(v, "_version", v) for k, v in opt.state[w].items()}

    same(scenario)
