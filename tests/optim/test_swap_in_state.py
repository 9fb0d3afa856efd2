"""optim.swap_in_optimizer_params_and_state against torch 2.13: inside the block the
optimizer steps the supplied tensors and state (the supplied state dict sees in-place
updates), on exit the live parameters, state and groups are back; torch's errors."""

import copy

import numpy as np
import pytest
import torch

import gradtrack as gt

from helpers import to_np

RNG = np.random.default_rng(7)
WEIGHT, BIAS = RNG.standard_normal((3, 4)), RNG.standard_normal(3)
OTHER_WEIGHT, OTHER_BIAS = RNG.standard_normal((3, 4)), RNG.standard_normal(3)
GRADS = [(RNG.standard_normal((3, 4)), RNG.standard_normal(3)) for _ in range(4)]

CONFIGS = [
    ("Adam", {"lr": 0.05, "betas": (0.8, 0.95)}, {"lr": 0.1}),
    ("Adam", {"lr": 0.02, "amsgrad": True, "weight_decay": 0.1}, {"lr": 0.03}),
    ("SGD", {"lr": 0.1, "momentum": 0.9}, {"lr": 0.2}),
    ("SGD", {"lr": 0.1, "momentum": 0.5, "nesterov": True, "weight_decay": 0.01}, {"lr": 0.05}),
]


def _setup(lib, name, defaults, bias_group):
    weight = lib.tensor(WEIGHT, requires_grad=True)
    bias = lib.tensor(BIAS, requires_grad=True)
    opt = getattr(lib.optim, name)([{"params": [weight]}, {"params": [bias], **bias_group}],
                                   **defaults)
    weight.grad, bias.grad = lib.tensor(GRADS[0][0]), lib.tensor(GRADS[0][1])
    opt.step()
    return opt, weight, bias


def _state_arrays(state):
    return {key: {k: to_np(v) if hasattr(v, "shape") else v for k, v in entry.items()}
            for key, entry in state.items()}


def _assert_states_close(ours, theirs):
    assert list(ours) == list(theirs)
    for key in theirs:
        assert sorted(ours[key]) == sorted(theirs[key])
        for k, v in theirs[key].items():
            np.testing.assert_allclose(np.asarray(ours[key][k]), np.asarray(v), rtol=1e-12,
                                       atol=1e-12)


@pytest.mark.parametrize("name,defaults,bias_group", CONFIGS)
def test_steps_act_on_the_swapped_in_tensors(name, defaults, bias_group):
    runs = {}
    for lib in (torch, gt):
        opt, weight, bias = _setup(lib, name, defaults, bias_group)
        live_groups = list(opt.param_groups)
        live_contents = [dict(g) for g in live_groups]
        live_params = [g["params"] for g in opt.param_groups]
        live_state = opt.state
        live_values = _state_arrays({i: s for i, s in enumerate(live_state.values())})
        supplied = copy.deepcopy(opt.state_dict())
        supplied["param_groups"][0]["lr"] = defaults["lr"] / 2  # hyper-parameters swap too
        other_weight = lib.tensor(OTHER_WEIGHT, requires_grad=True)
        other_bias = lib.tensor(OTHER_BIAS, requires_grad=True)
        trajectory = []
        with lib.optim.swap_in_optimizer_params_and_state(
                opt, {"weight": other_weight, "bias": other_bias}, supplied):
            assert opt.param_groups[0]["params"][0] is other_weight
            assert opt.param_groups[1]["params"][0] is other_bias
            assert opt.param_groups[0]["lr"] == defaults["lr"] / 2
            for grad_w, grad_b in GRADS[1:]:
                other_weight.grad, other_bias.grad = lib.tensor(grad_w), lib.tensor(grad_b)
                opt.step()
                trajectory.append((to_np(other_weight.detach()), to_np(other_bias.detach()),
                                   _state_arrays(supplied["state"])))
        # the live optimizer is back: same group dicts, same params lists, same state
        assert [dict(g) for g in opt.param_groups] == live_contents
        assert all(a is b for a, b in zip(opt.param_groups, live_groups))
        assert all(g["params"] is p for g, p in zip(opt.param_groups, live_params))
        assert opt.state is live_state
        assert opt.param_groups[0]["params"][0] is weight
        assert opt.param_groups[0]["lr"] == defaults["lr"]
        _assert_states_close(_state_arrays({i: s for i, s in enumerate(live_state.values())}),
                             live_values)
        np.testing.assert_array_equal(to_np(weight.detach()), to_np(_setup(
            lib, name, defaults, bias_group)[1].detach()))
        runs[lib] = trajectory, to_np(bias.detach())
    for (t_w, t_b, t_state), (g_w, g_b, g_state) in zip(runs[torch][0], runs[gt][0]):
        np.testing.assert_allclose(g_w, t_w, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(g_b, t_b, rtol=1e-12, atol=1e-12)
        _assert_states_close(g_state, t_state)
    np.testing.assert_allclose(runs[gt][1], runs[torch][1], rtol=1e-12)


def test_new_state_entries_stay_inside_the_block():
    for lib in (torch, gt):
        opt, _, _ = _setup(lib, "SGD", {"lr": 0.1, "momentum": 0.9}, {})
        supplied = copy.deepcopy(opt.state_dict())
        del supplied["state"][1]  # the bias gets fresh state inside the block
        params = {"w": lib.tensor(OTHER_WEIGHT, requires_grad=True),
                  "b": lib.tensor(OTHER_BIAS, requires_grad=True)}
        with lib.optim.swap_in_optimizer_params_and_state(opt, params, supplied):
            for p, g in zip(params.values(), GRADS[1]):
                p.grad = lib.tensor(g)
            opt.step()
            assert len(opt.state) == 2
        assert sorted(supplied["state"]) == [0]


def _errors(case):
    """The exception each library raises for ``case`` (a function of the library, the
    optimizer and its parameters returning the arguments)."""
    out = []
    for lib in (torch, gt):
        opt, weight, bias = _setup(lib, "Adam", {"lr": 0.1}, {"lr": 0.2})
        params, optim_state = case(lib, opt, weight, bias)
        before = [dict(g) for g in opt.param_groups], opt.state
        with pytest.raises(Exception) as info:
            with lib.optim.swap_in_optimizer_params_and_state(opt, params, optim_state):
                pass
        assert [dict(g) for g in opt.param_groups] == before[0] and opt.state is before[1]
        out.append((type(info.value), str(info.value)))
    return out


def _sd(opt, edit):
    sd = copy.deepcopy(opt.state_dict())
    edit(sd)
    return sd


def _params(lib):
    return {"w": lib.zeros(3, 4), "b": lib.zeros(3)}


ERROR_CASES = {
    "not a dict": lambda lib, o, w, b: (_params(lib), [1]),
    "state not a dict": lambda lib, o, w, b: (_params(lib), _sd(o, lambda s: s.update(state=[]))),
    "state keyed by tensors": lambda lib, o, w, b: (_params(lib), {"state": {w: {}},
                                                                   "param_groups": []}),
    "state entry not a dict": lambda lib, o, w, b: (_params(lib), _sd(
        o, lambda s: s["state"].update({0: 5}))),
    "groups not a list": lambda lib, o, w, b: (_params(lib), _sd(
        o, lambda s: s.update(param_groups=tuple(s["param_groups"])))),
    "group count": lambda lib, o, w, b: (_params(lib), _sd(o, lambda s: s["param_groups"].pop())),
    "group not a dict": lambda lib, o, w, b: (_params(lib), _sd(
        o, lambda s: s["param_groups"].__setitem__(1, [1]))),
    "params not ids": lambda lib, o, w, b: (_params(lib), _sd(
        o, lambda s: s["param_groups"][0].update(params=["0"]))),
    "param count in a group": lambda lib, o, w, b: (_params(lib), _sd(
        o, lambda s: s["param_groups"][1].update(params=[1, 2]))),
    "group keys": lambda lib, o, w, b: (_params(lib), _sd(
        o, lambda s: (s["param_groups"][1].pop("eps"), s["param_groups"][1].update(x=1)))),
    "too few tensors": lambda lib, o, w, b: ({"w": lib.zeros(3, 4)}, _sd(o, lambda s: None)),
    "extra state keys": lambda lib, o, w, b: (_params(lib), _sd(
        o, lambda s: s["state"].update({7: {}, "x": {}}))),
}


@pytest.mark.parametrize("case", sorted(ERROR_CASES))
def test_errors_match_torch(case):
    theirs, ours = _errors(ERROR_CASES[case])
    assert ours == theirs


def test_uninitialized_state_is_refused():
    results = []
    for lib in (torch, gt):
        weight = lib.zeros(2, requires_grad=True)
        opt = lib.optim.SGD([weight], lr=0.1)
        with pytest.raises(RuntimeError) as info:
            with lib.optim.swap_in_optimizer_params_and_state(opt, {"w": weight},
                                                              opt.state_dict()):
                pass
        results.append(str(info.value))
    assert results[0] == results[1]
