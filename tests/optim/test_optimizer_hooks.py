"""The optimizer hooks: step pre/post hooks (per optimizer and global), the state_dict
and load_state_dict hooks with ``prepend=``, what their results do, their handles, and
their order, as torch 2.13 runs them (NOTE [Step hooks] in optim/optimizer.py)."""

import copy
import importlib
import pickle
import re

import pytest

import gradtrack
from gradtrack import optim
from gradtrack.optim.optimizer import (register_optimizer_step_post_hook,
                                       register_optimizer_step_pre_hook)
from gradtrack.utils.hooks import RemovableHandle

from helpers import same


def _sgd(lib, **kwargs):
    w = lib.tensor([1.0, -2.0], requires_grad=True)
    w.grad = lib.tensor([1.0, 1.0])
    return w, lib.optim.SGD([w], lr=0.5, **kwargs)


def _kinds(args):
    return [type(a).__name__ for a in args]


def _module(lib):
    """``lib.optim.optimizer`` (torch's ``optim`` does not keep it as an attribute)."""
    return importlib.import_module(lib.__name__ + ".optim.optimizer")


# ---- step hooks ---------------------------------------------------------------------------

def test_step_hooks_run_in_torchs_order_with_the_call_arguments():
    def scenario(lib):
        log = []
        module = _module(lib)
        _, opt = _sgd(lib)
        handles = [
            module.register_optimizer_step_pre_hook(
                lambda o, a, k: log.append(("global pre", _kinds(a), sorted(k)))),
            module.register_optimizer_step_post_hook(
                lambda o, a, k: log.append(("global post", _kinds(a), sorted(k)))),
            opt.register_step_post_hook(lambda o, a, k: log.append(("post", o is opt))),
            opt.register_step_pre_hook(lambda o, a, k: log.append(("pre", o is opt))),
        ]
        try:
            opt.step()
            opt.step(lambda: 2.0)
            opt.step(closure=None)
        finally:
            for h in handles:
                h.remove()
        return log
    same(scenario)


def test_step_hooks_order_without_torch():
    log = []
    _, opt = _sgd(gradtrack)
    handles = [register_optimizer_step_post_hook(lambda o, a, k: log.append("global post")),
               opt.register_step_post_hook(lambda o, a, k: log.append("post")),
               opt.register_step_pre_hook(lambda o, a, k: log.append(("pre", len(a), k))),
               register_optimizer_step_pre_hook(lambda o, a, k: log.append("global pre"))]
    try:
        opt.step(closure=None)
    finally:
        for h in handles:
            h.remove()
    assert log == ["global pre", ("pre", 1, {"closure": None}), "post", "global post"]
    opt.step()
    assert len(log) == 4  # removed hooks run no more


def test_a_pre_hook_replaces_the_arguments_of_step_and_of_later_hooks():
    def scenario(lib):
        seen = []
        w, opt = _sgd(lib)
        opt.register_step_pre_hook(lambda o, a, k: (a, {"closure": lambda: 7.0}))
        opt.register_step_pre_hook(lambda o, a, k: seen.append(sorted(k)))
        opt.register_step_post_hook(lambda o, a, k: seen.append(k["closure"]()))
        return opt.step(), seen, w
    same(scenario)
    w, opt = _sgd(gradtrack)
    opt.register_step_pre_hook(lambda o, a, k: (a, {"closure": lambda: 7.0}))
    assert opt.step() == 7.0
    assert w.tolist() == [0.5, -2.5]


@pytest.mark.parametrize("result", [5, [1, 2], (1, 2, 3), "ab"], ids=repr)
def test_a_pre_hook_returning_anything_else_raises(result):
    def scenario(lib):
        w, opt = _sgd(lib)
        opt.register_step_pre_hook(lambda o, a, k: result)
        try:
            opt.step()
        except RuntimeError as e:  # the text holds step's address
            return "RuntimeError", re.sub(r" at 0x[0-9a-f]+", "", str(e)), w
        return "ok", w
    same(scenario)
    w, opt = _sgd(gradtrack)
    opt.register_step_pre_hook(lambda o, a, k: result)
    with pytest.raises(RuntimeError, match=r"^<function SGD\.step at 0x[0-9a-f]+> must return "
                       r"None or a tuple of \(new_args, new_kwargs\), but got "):
        opt.step()
    assert w.tolist() == [1.0, -2.0]  # the step did not run


def test_post_hooks_do_not_run_when_step_raises():
    def scenario(lib):
        log = []
        _, opt = _sgd(lib)
        opt.register_step_post_hook(lambda o, a, k: log.append("post"))

        def closure():
            raise ValueError("from the closure")
        try:
            opt.step(closure)
        except ValueError as e:
            log.append(str(e))
        return log
    same(scenario)


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Rprop",
                                  "ASGD", "NAdam", "RAdam", "Adamax", "Adadelta"])
def test_every_optimizer_runs_its_step_hooks(name):
    def scenario(lib):
        log = []
        w = lib.tensor([1.0, -2.0], requires_grad=True)
        w.grad = lib.tensor([0.5, 0.5])
        opt = getattr(lib.optim, name)([w])
        opt.register_step_pre_hook(lambda o, a, k: log.append(("pre", w.tolist())))
        opt.register_step_post_hook(lambda o, a, k: log.append("post"))
        opt.step()
        return log, type(opt).step.hooked, type(opt).step.__name__
    same(scenario)


def test_lbfgs_runs_its_step_hooks_with_the_closure():
    def scenario(lib):
        log = []
        w = lib.tensor([1.0, -2.0], requires_grad=True)
        opt = lib.optim.LBFGS([w], max_iter=2)

        def closure():
            opt.zero_grad()
            loss = (w * w).sum()
            loss.backward()
            return loss
        opt.register_step_pre_hook(lambda o, a, k: log.append(_kinds(a)))
        opt.register_step_post_hook(lambda o, a, k: log.append("post"))
        return opt.step(closure), log
    same(scenario)


def test_a_subclass_without_a_step_of_its_own_runs_the_hooks_once():
    def scenario(lib):
        class Mine(lib.optim.SGD):
            pass

        log = []
        w = lib.ones(2, requires_grad=True)
        w.grad = lib.ones(2)
        opt = Mine([w], lr=0.1)
        opt.register_step_pre_hook(lambda o, a, k: log.append("pre"))
        opt.step()
        return log, "step" in vars(Mine), Mine.step.hooked
    same(scenario)


def test_global_hooks_see_every_optimizer_and_stop_when_removed():
    seen = []
    handle = register_optimizer_step_pre_hook(lambda o, a, k: seen.append(type(o).__name__))
    try:
        for make in (optim.SGD, optim.Adam):
            w = gradtrack.ones(1, requires_grad=True)
            w.grad = gradtrack.ones(1)
            make([w], lr=0.1).step()
    finally:
        handle.remove()
    assert seen == ["SGD", "Adam"]
    _, opt = _sgd(gradtrack)
    opt.step()
    assert seen == ["SGD", "Adam"]


def test_step_hooks_stay_after_a_profile_that_made_the_optimizer():
    from gradtrack.profiler import profile

    class Inherited(optim.SGD):
        pass

    class Own(optim.Optimizer):
        def step(self, closure=None):
            return 1.0

    log = []
    with profile() as prof:
        inherited = Inherited([gradtrack.ones(1, requires_grad=True)], lr=0.1)
        own = Own([gradtrack.ones(1, requires_grad=True)], {})
        for opt in (inherited, own):
            opt.register_step_pre_hook(lambda o, a, k: log.append(type(o).__name__))
            opt.step()
    names = [e.name for e in prof.events()]
    assert "Optimizer.step#Inherited.step" in names
    inherited.step()
    assert own.step() == 1.0
    assert log == ["Inherited", "Own", "Inherited", "Own"]
    assert Inherited.step.hooked and Own.step.hooked
    with profile() as prof:  # a later profile times them again, once each
        inherited.step()
        own.step()
    names = [e.name for e in prof.events()]
    assert names.count("Optimizer.step#Inherited.step") == 1
    assert names.count("Optimizer.step#Own.step") == 1
    assert len(log) == 6


# ---- handles ------------------------------------------------------------------------------

def test_handles_remove_once_and_work_as_context_managers():
    _, opt = _sgd(gradtrack)
    log = []
    handle = opt.register_step_pre_hook(lambda o, a, k: log.append(1))
    assert isinstance(handle, RemovableHandle)
    assert isinstance(handle.id, int)
    with opt.register_step_post_hook(lambda o, a, k: log.append(2)):
        opt.step()
    opt.step()
    handle.remove()
    handle.remove()
    opt.step()
    assert log == [1, 2, 1]
    assert len(opt._optimizer_step_pre_hooks) == len(opt._optimizer_step_post_hooks) == 0


def test_handle_ids_are_distinct_across_optimizers():
    _, a = _sgd(gradtrack)
    _, b = _sgd(gradtrack)
    ids = {a.register_state_dict_pre_hook(print).id, b.register_state_dict_pre_hook(print).id,
           a.register_step_pre_hook(print).id}
    assert len(ids) == 3


def test_copies_and_pickles_start_without_hooks():
    def scenario(lib):
        _, opt = _sgd(lib)
        opt.register_step_pre_hook(print)
        opt.register_load_state_dict_pre_hook(print)
        copied = copy.deepcopy(opt)
        loaded = pickle.loads(pickle.dumps(opt))
        return [len(getattr(o, "_optimizer_" + t))
                for o in (opt, copied, loaded)
                for t in ("step_pre_hooks", "load_state_dict_pre_hooks")]
    same(scenario)
    _, opt = _sgd(gradtrack)
    opt.register_step_pre_hook(print)
    assert len(copy.deepcopy(opt)._optimizer_step_pre_hooks) == 0


# ---- state_dict and load_state_dict hooks -------------------------------------------------

def test_state_dict_hooks_order_prepend_and_results():
    def scenario(lib):
        log = []
        _, opt = _sgd(lib, momentum=0.9)
        opt.register_state_dict_pre_hook(lambda o: log.append("pre 1") or 5)
        opt.register_state_dict_pre_hook(lambda o: log.append("pre 0"), prepend=True)
        opt.register_state_dict_post_hook(lambda o, sd: log.append("post 1") or {"w": sd})
        opt.register_state_dict_post_hook(lambda o, sd: log.append(("post 0", sorted(sd))),
                                          prepend=True)
        opt.register_state_dict_post_hook(lambda o, sd: log.append(("post 2", sorted(sd))))
        return opt.state_dict(), log
    same(scenario)


def test_state_dict_post_hook_result_replaces_the_dict():
    _, opt = _sgd(gradtrack)
    opt.register_state_dict_post_hook(lambda o, sd: sd.setdefault("extra", 1) and None)
    assert opt.state_dict()["extra"] == 1
    handle = opt.register_state_dict_post_hook(lambda o, sd: {"replaced": True})
    assert opt.state_dict() == {"replaced": True}
    handle.remove()
    assert sorted(opt.state_dict()) == ["extra", "param_groups", "state"]


def test_load_state_dict_hooks_order_prepend_and_results():
    def scenario(lib):
        log = []
        _, opt = _sgd(lib)
        saved = opt.state_dict()
        saved["param_groups"][0]["lr"] = 0.25

        def edit(o, sd):
            log.append(("pre", sorted(sd), sd is saved))
            sd["param_groups"][0]["momentum"] = 0.5
        opt.register_load_state_dict_pre_hook(edit)
        opt.register_load_state_dict_pre_hook(lambda o, sd: log.append("pre 0"), prepend=True)
        opt.register_load_state_dict_post_hook(
            lambda o: log.append(("post", o.param_groups[0]["lr"])) or 3)
        opt.register_load_state_dict_post_hook(lambda o: log.append("post 0"), prepend=True)
        opt.load_state_dict(saved)
        return log, opt.param_groups[0]["momentum"], saved["param_groups"][0]["momentum"]
    same(scenario)


def test_load_state_dict_pre_hook_result_is_loaded_instead():
    def scenario(lib):
        _, opt = _sgd(lib)
        saved = opt.state_dict()
        opt.register_load_state_dict_pre_hook(
            lambda o, sd: {"state": {}, "param_groups": [dict(sd["param_groups"][0], lr=0.9)]})
        opt.load_state_dict(saved)
        return opt.param_groups[0]["lr"], saved["param_groups"][0]["lr"]
    same(scenario)
    _, opt = _sgd(gradtrack)
    saved = opt.state_dict()
    opt.register_load_state_dict_pre_hook(
        lambda o, sd: {"state": {}, "param_groups": [dict(sd["param_groups"][0], lr=0.9)]})
    opt.load_state_dict(saved)
    assert opt.param_groups[0]["lr"] == 0.9


def test_load_state_dict_pre_hook_returning_a_non_dict_fails_as_torch():
    def scenario(lib):
        _, opt = _sgd(lib)
        opt.register_load_state_dict_pre_hook(lambda o, sd: 5)
        opt.load_state_dict(opt.state_dict())
    same(scenario)


def test_registration_signatures_match_torch(torch):
    import inspect

    for name in ("register_step_pre_hook", "register_step_post_hook",
                 "register_state_dict_pre_hook", "register_state_dict_post_hook",
                 "register_load_state_dict_pre_hook", "register_load_state_dict_post_hook"):
        mine = inspect.signature(getattr(optim.Optimizer, name)).parameters
        theirs = inspect.signature(getattr(torch.optim.Optimizer, name)).parameters
        assert [(p.name, p.default) for p in mine.values()] \
            == [(p.name, p.default) for p in theirs.values()], name
    assert _module(gradtrack).__all__ == _module(torch).__all__
