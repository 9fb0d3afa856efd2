"""``optim.swa_utils`` against PyTorch 2.13: ``AveragedModel`` (equal weights,
``avg_fn``, ``multi_avg_fn``, ``use_buffers``), ``SWALR`` trajectories, state
dicts and errors, ``update_bn``, and the averaging functions."""

import numpy as np
import pytest

import gradtrack

from helpers import same


def _model(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.Linear(4, 1))


def _train_and_average(lib, **kwargs):
    from importlib import import_module
    swa_utils = import_module(lib.__name__ + ".optim.swa_utils")
    if kwargs.pop("ema", False):
        kwargs["multi_avg_fn"] = swa_utils.get_ema_multi_avg_fn(0.9)
    if kwargs.pop("ema_single", False):
        kwargs["avg_fn"] = swa_utils.get_ema_avg_fn(0.8)
    model = _model(lib)
    swa = swa_utils.AveragedModel(model, **kwargs)
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    rng = np.random.default_rng(1)
    for _ in range(6):
        x = lib.tensor(rng.standard_normal((5, 3)).tolist())
        opt.zero_grad()
        model(x).pow(2).mean().backward()
        opt.step()
        swa.update_parameters(model)
    return swa


@pytest.mark.parametrize("kwargs", [{}, {"use_buffers": True}, {"ema": True},
                                    {"ema_single": True}, {"ema": True, "use_buffers": True}])
def test_averaged_model_matches_torch(torch, kwargs):
    ours = _train_and_average(gradtrack, **dict(kwargs))
    theirs = _train_and_average(torch, **dict(kwargs))
    state, tstate = ours.state_dict(), theirs.state_dict()
    assert list(state) == list(tstate)
    for key in tstate:
        np.testing.assert_allclose(state[key].numpy(), tstate[key].numpy(), rtol=1e-6,
                                   atol=1e-7, err_msg=key)
        assert str(state[key].dtype).split(".")[-1] == str(tstate[key].dtype).split(".")[-1]


def test_averaged_model_refuses_both_functions():
    def scenario(lib):
        from importlib import import_module
        swa_utils = import_module(lib.__name__ + ".optim.swa_utils")
        swa_utils.AveragedModel(lib.nn.Linear(1, 1), avg_fn=swa_utils.get_swa_avg_fn(),
                                multi_avg_fn=swa_utils.get_swa_multi_avg_fn())

    same(scenario)


@pytest.mark.parametrize("decay", [-0.1, 1.5])
def test_ema_decay_checked(decay):
    def scenario(lib):
        from importlib import import_module
        swa_utils = import_module(lib.__name__ + ".optim.swa_utils")
        out = []
        for factory in (swa_utils.get_ema_avg_fn, swa_utils.get_ema_multi_avg_fn):
            try:
                factory(decay)
            except ValueError as e:
                out.append(str(e))
        return out

    same(scenario)


def test_multi_avg_fns_on_integer_tensors():
    def scenario(lib):
        from importlib import import_module
        swa_utils = import_module(lib.__name__ + ".optim.swa_utils")
        a = [lib.tensor([10, 20], dtype=lib.float64)]
        swa_utils.get_swa_multi_avg_fn()(a, [lib.tensor([0.0, 4.0], dtype=lib.float64)],
                                         lib.tensor(3))
        e = [lib.tensor([1.0, 2.0])]
        swa_utils.get_ema_multi_avg_fn(0.75)(e, [lib.tensor([5.0, 6.0])], 0)
        return a, e

    same(scenario)


@pytest.mark.parametrize("kwargs", [
    {"swa_lr": 0.05}, {"swa_lr": 0.05, "anneal_epochs": 4, "anneal_strategy": "linear"},
    {"swa_lr": [0.05, 0.5], "anneal_epochs": 0}, {"swa_lr": 0.2, "anneal_epochs": 3},
])
def test_swalr_trajectory_matches_torch(kwargs):
    def scenario(lib):
        from importlib import import_module
        swa_utils = import_module(lib.__name__ + ".optim.swa_utils")
        w1 = lib.zeros(1, requires_grad=True)
        w2 = lib.zeros(1, requires_grad=True)
        opt = lib.optim.SGD([{"params": [w1]}, {"params": [w2], "lr": 0.3}], lr=1.0)
        sched = swa_utils.SWALR(opt, **kwargs)
        lrs = [sched.get_last_lr()]
        for _ in range(15):
            opt.step()
            sched.step()
            lrs.append(sched.get_last_lr())
        state = sched.state_dict()
        return lrs, sorted(state), state["_anneal_strategy"], state["anneal_epochs"]

    same(scenario)


def test_swalr_state_dict_round_trip():
    def scenario(lib):
        from importlib import import_module
        swa_utils = import_module(lib.__name__ + ".optim.swa_utils")
        w = lib.zeros(1, requires_grad=True)
        opt = lib.optim.SGD([w], lr=1.0)
        sched = swa_utils.SWALR(opt, swa_lr=0.1, anneal_strategy="linear")
        for _ in range(3):
            opt.step()
            sched.step()
        other = swa_utils.SWALR(lib.optim.SGD([w], lr=1.0), swa_lr=0.5)
        other.load_state_dict(sched.state_dict())
        return other.anneal_func(0.25), other._anneal_strategy, other.last_epoch

    same(scenario)


@pytest.mark.parametrize("call", ["SWALR(opt, swa_lr=0.1, anneal_strategy='exp')",
                                  "SWALR(opt, swa_lr=0.1, anneal_epochs=-1)",
                                  "SWALR(opt, swa_lr=0.1, anneal_epochs=2.5)",
                                  "SWALR(opt, swa_lr=[0.1, 0.2])"])
def test_swalr_errors(call):
    def scenario(lib):
        from importlib import import_module
        swa_utils = import_module(lib.__name__ + ".optim.swa_utils")
        opt = lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=1.0)
        eval("swa_utils." + call, {"swa_utils": swa_utils, "opt": opt})

    same(scenario)


def test_update_bn_matches_torch():
    def scenario(lib):
        from importlib import import_module
        swa_utils = import_module(lib.__name__ + ".optim.swa_utils")
        model = _model(lib).eval()
        rng = np.random.default_rng(2)
        loader = [(lib.tensor(rng.standard_normal((4, 3)).tolist()), 0) for _ in range(3)]
        swa_utils.update_bn(loader, model)
        bn = model[1]
        return (model.training, bn.momentum, bn.running_mean, bn.running_var,
                bn.num_batches_tracked)

    same(scenario)


def test_update_bn_without_batch_norm_does_nothing():
    def scenario(lib):
        from importlib import import_module
        swa_utils = import_module(lib.__name__ + ".optim.swa_utils")
        model = lib.nn.Linear(2, 1).eval()
        swa_utils.update_bn([lib.ones(1, 2)], model)
        return model.training

    same(scenario)
