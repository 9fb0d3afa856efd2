"""optim.lr_scheduler against torch 2.13: the get_last_lr() sequences (exactly equal
floats), the momentum that CyclicLR / OneCycleLR cycle, state_dict keys and values,
resuming from a state_dict, initial_lr / last_epoch, warnings and error messages."""

import math
import warnings

import pytest

import gradtrack


def _optimizer(lib, momentum=0.9):
    a = lib.zeros(2, requires_grad=True)
    b = lib.zeros(3, requires_grad=True)
    return lib.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.05}], lr=0.1,
                         momentum=momentum)


def _step_params(lib, opt):
    # Real gradients, so optimizer.step() updates (and the warning logic sees a real step).
    for group in opt.param_groups:
        for p in group["params"]:
            p.grad = lib.ones(p.shape)
    opt.step()


def _trajectory(lib, make, steps, metrics=None):
    opt = _optimizer(lib)
    sched = make(lib, opt)
    lrs = [list(sched.get_last_lr())]
    momenta = [[g.get("momentum") for g in opt.param_groups]]
    for i in range(steps):
        _step_params(lib, opt)
        if metrics is None:
            sched.step()
        else:
            sched.step(metrics[i])
        lrs.append(list(sched.get_last_lr()))
        momenta.append([g.get("momentum") for g in opt.param_groups])
    groups = [{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups]
    return lrs, momenta, groups, sched


def _S(lib):
    return lib.optim.lr_scheduler


CASES = {
    "StepLR": (lambda lib, o: _S(lib).StepLR(o, step_size=3, gamma=0.7), 40),
    "MultiStepLR": (lambda lib, o: _S(lib).MultiStepLR(o, [3, 7, 7, 20], gamma=0.3), 30),
    "ExponentialLR": (lambda lib, o: _S(lib).ExponentialLR(o, gamma=0.93), 60),
    "CosineAnnealingLR": (lambda lib, o: _S(lib).CosineAnnealingLR(o, T_max=9, eta_min=0.001),
                          60),
    "CosineAnnealingWarmRestarts": (
        lambda lib, o: _S(lib).CosineAnnealingWarmRestarts(o, T_0=4, T_mult=2, eta_min=1e-3), 50),
    "LambdaLR": (lambda lib, o: _S(lib).LambdaLR(o, [lambda e: 0.9 ** e, lambda e: 1 / (e + 1)]),
                 30),
    "MultiplicativeLR": (lambda lib, o: _S(lib).MultiplicativeLR(o, lambda e: 0.95), 30),
    "LinearLR": (lambda lib, o: _S(lib).LinearLR(o, start_factor=0.2, end_factor=0.9,
                                                 total_iters=7), 20),
    "ConstantLR": (lambda lib, o: _S(lib).ConstantLR(o, factor=0.4, total_iters=6), 15),
    "PolynomialLR": (lambda lib, o: _S(lib).PolynomialLR(o, total_iters=12, power=1.7), 20),
    "OneCycleLR": (lambda lib, o: _S(lib).OneCycleLR(o, max_lr=[1.0, 0.5], total_steps=40), 40),
    "OneCycleLR-3phase-linear": (
        lambda lib, o: _S(lib).OneCycleLR(o, max_lr=0.3, epochs=5, steps_per_epoch=7,
                                          anneal_strategy="linear", three_phase=True,
                                          pct_start=0.25), 35),
    "CyclicLR": (lambda lib, o: _S(lib).CyclicLR(o, base_lr=0.01, max_lr=[0.1, 0.2],
                                                 step_size_up=4, step_size_down=6), 45),
    "CyclicLR-triangular2": (lambda lib, o: _S(lib).CyclicLR(o, 0.01, 0.1, step_size_up=3,
                                                             mode="triangular2"), 40),
    "CyclicLR-exp_range": (lambda lib, o: _S(lib).CyclicLR(o, 0.01, 0.1, step_size_up=5,
                                                           mode="exp_range", gamma=0.97), 40),
    "CyclicLR-custom-iterations": (lambda lib, o: _S(lib).CyclicLR(
        o, 0.01, 0.1, step_size_up=3, scale_fn=lambda x: 1.0 / (1.0 + 0.1 * x),
        scale_mode="iterations", base_momentum=[0.7, 0.75], max_momentum=0.95), 30),
    "CyclicLR-no-momentum": (lambda lib, o: _S(lib).CyclicLR(o, 0.01, 0.1, step_size_up=2,
                                                             cycle_momentum=False), 12),
    "SequentialLR": (lambda lib, o: _S(lib).SequentialLR(
        o, [_S(lib).LinearLR(o, start_factor=0.1, total_iters=4),
            _S(lib).ExponentialLR(o, gamma=0.9), _S(lib).StepLR(o, 2)], milestones=[5, 12]), 25),
    "ChainedScheduler": (lambda lib, o: _S(lib).ChainedScheduler(
        [_S(lib).ConstantLR(o, factor=0.5, total_iters=4), _S(lib).ExponentialLR(o, 0.9)]), 20),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_lr_and_momentum_sequences_equal_torch(torch, name):
    make, steps = CASES[name]
    lrs, momenta, groups, sched = _trajectory(gradtrack, make, steps)
    t_lrs, t_momenta, t_groups, t_sched = _trajectory(torch, make, steps)
    assert lrs == t_lrs
    assert momenta == t_momenta
    assert groups == t_groups  # initial_lr, max_lr, min_lr, max/base_momentum, ...
    assert list(sched.state_dict()) == list(t_sched.state_dict())
    assert getattr(sched, "last_epoch", None) == getattr(t_sched, "last_epoch", None)


def _plain(value):
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if callable(value):
        return "<callable>"
    return value


@pytest.mark.parametrize("name", ["StepLR", "CosineAnnealingLR", "OneCycleLR", "CyclicLR",
                                  "SequentialLR", "ChainedScheduler", "LambdaLR"])
def test_state_dict_values_equal_torch(torch, name):
    make, steps = CASES[name]
    ours = _trajectory(gradtrack, make, 7)[3].state_dict()
    theirs = _trajectory(torch, make, 7)[3].state_dict()
    assert _plain(ours) == _plain(theirs)


@pytest.mark.parametrize("name", ["StepLR", "CosineAnnealingLR", "CosineAnnealingWarmRestarts",
                                  "OneCycleLR", "CyclicLR", "SequentialLR", "ChainedScheduler",
                                  "PolynomialLR"])
def test_resume_from_state_dict_continues_the_sequence(name):
    make, steps = CASES[name]
    full = _trajectory(gradtrack, make, steps)[0]
    opt = _optimizer(gradtrack)
    sched = make(gradtrack, opt)
    for _ in range(6):
        _step_params(gradtrack, opt)
        sched.step()
    saved_opt, saved = opt.state_dict(), sched.state_dict()
    opt2 = _optimizer(gradtrack)
    sched2 = make(gradtrack, opt2)
    opt2.load_state_dict(saved_opt)
    sched2.load_state_dict(saved)
    rest = [list(sched2.get_last_lr())]
    for _ in range(steps - 6):
        _step_params(gradtrack, opt2)
        sched2.step()
        rest.append(list(sched2.get_last_lr()))
    assert rest == full[6:]


@pytest.mark.parametrize("kwargs", [
    {}, {"mode": "max", "threshold_mode": "abs", "threshold": 0.1},
    {"patience": 2, "cooldown": 2, "factor": 0.5, "min_lr": [0.02, 0.001]},
    {"patience": 0, "eps": 0.01, "min_lr": 0.03},
])
def test_reduce_lr_on_plateau_equals_torch(torch, kwargs):
    metrics = [1.0, 0.9, 0.95, 0.95, 0.95, 0.96, 0.8, 0.85, 0.85, 0.85, 0.85, 0.9, 0.9, 0.9,
               0.91, 0.92, 0.93, 0.94, 0.95, 0.96] * 2

    def make(lib, opt):
        return lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **kwargs)

    ours = _trajectory(gradtrack, make, len(metrics), [gradtrack.tensor(m) for m in metrics])
    theirs = _trajectory(torch, make, len(metrics), [torch.tensor(m) for m in metrics])
    assert ours[0] == theirs[0]
    state, t_state = ours[3].state_dict(), theirs[3].state_dict()
    assert list(state) == list(t_state)
    assert _plain(state) == _plain(t_state)


def test_initial_lr_last_epoch_and_resume_key_error(torch):
    for lib in (gradtrack, torch):
        opt = _optimizer(lib)
        opt.param_groups[0]["lr"] = 0.3
        sched = lib.optim.lr_scheduler.StepLR(opt, 2)
        assert [g["initial_lr"] for g in opt.param_groups] == [0.3, 0.05]
        assert sched.last_epoch == 0 and sched.base_lrs == [0.3, 0.05]
        assert sched._step_count == 1
    messages = []
    for lib in (gradtrack, torch):
        with pytest.raises(KeyError) as info:
            lib.optim.lr_scheduler.StepLR(_optimizer(lib), 2, last_epoch=3)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    assert "param 'initial_lr' is not specified in param_groups[0]" in messages[0]


def test_resuming_with_last_epoch_uses_initial_lr(torch):
    seqs = []
    for lib in (gradtrack, torch):
        opt = _optimizer(lib)
        for g in opt.param_groups:
            g["initial_lr"] = 1.0
        sched = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10, last_epoch=4)
        seq = [sched.get_last_lr()]
        for _ in range(5):
            _step_params(lib, opt)
            sched.step()
            seq.append(sched.get_last_lr())
        seqs.append(seq)
    assert seqs[0] == seqs[1]


def _warnings_of(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [(w.category, str(w.message)) for w in caught]


def test_step_before_optimizer_step_warns_as_torch(torch):
    def scenario(lib):
        opt = _optimizer(lib)
        sched = lib.optim.lr_scheduler.StepLR(opt, 2)
        return _warnings_of(sched.step)

    ours, theirs = scenario(gradtrack), scenario(torch)
    assert ours == theirs
    assert ours[0][1].startswith("Detected call of `lr_scheduler.step()` before "
                                 "`optimizer.step()`.")


def test_no_warning_in_the_right_order_and_overridden_step_warning(torch):
    def right_order(lib):
        opt = _optimizer(lib)
        sched = lib.optim.lr_scheduler.ExponentialLR(opt, 0.5)

        def run():
            _step_params(lib, opt)
            sched.step()
        return _warnings_of(run)

    def overridden(lib):
        opt = _optimizer(lib)
        sched = lib.optim.lr_scheduler.ExponentialLR(opt, 0.5)
        opt.step = lambda: None
        return _warnings_of(sched.step)

    assert right_order(gradtrack) == right_order(torch) == []
    ours, theirs = overridden(gradtrack), overridden(torch)
    assert ours == theirs and "has been overridden" in ours[0][1]


def test_get_lr_outside_step_and_epoch_argument_warn_as_torch(torch):
    def scenario(lib):
        opt = _optimizer(lib)
        sched = lib.optim.lr_scheduler.StepLR(opt, 3, gamma=0.5)
        _step_params(lib, opt)
        first = _warnings_of(sched.get_lr)
        second = _warnings_of(lambda: sched.step(6))
        return first, second, sched.get_last_lr()

    assert scenario(gradtrack) == scenario(torch)


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return type(e), str(e)
    return None


def _step_times(sched, n):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(n):
            sched.step()


ERRORS = [
    lambda lib, o: _S(lib).StepLR(object(), 2),
    lambda lib, o: _S(lib).ConstantLR(o, factor=1.5),
    lambda lib, o: _S(lib).LinearLR(o, start_factor=0),
    lambda lib, o: _S(lib).LinearLR(o, end_factor=2),
    lambda lib, o: _S(lib).LambdaLR(o, [lambda e: 1.0]),
    lambda lib, o: _S(lib).MultiplicativeLR(o, [1.0, 2.0]),
    lambda lib, o: _S(lib).CosineAnnealingWarmRestarts(o, T_0=0),
    lambda lib, o: _S(lib).CosineAnnealingWarmRestarts(o, T_0=2, T_mult=0),
    lambda lib, o: _S(lib).CosineAnnealingWarmRestarts(o, T_0=2, eta_min="x"),
    lambda lib, o: _S(lib).CosineAnnealingWarmRestarts(o, T_0=2).step(-1),
    lambda lib, o: _S(lib).OneCycleLR(o, 0.1),
    lambda lib, o: _S(lib).OneCycleLR(o, 0.1, total_steps=0),
    lambda lib, o: _S(lib).OneCycleLR(o, 0.1, epochs=0, steps_per_epoch=2),
    lambda lib, o: _S(lib).OneCycleLR(o, 0.1, epochs=2, steps_per_epoch=-1),
    lambda lib, o: _S(lib).OneCycleLR(o, 0.1, total_steps=5, pct_start=1),
    lambda lib, o: _S(lib).OneCycleLR(o, 0.1, total_steps=5, anneal_strategy="x"),
    lambda lib, o: _S(lib).OneCycleLR(o, [0.1], total_steps=5),
    lambda lib, o: _step_times(_S(lib).OneCycleLR(o, 0.1, total_steps=2), 3),
    lambda lib, o: _S(lib).CyclicLR(o, 0.1, 1.0, mode="x"),
    lambda lib, o: _S(lib).CyclicLR(o, [0.1], 1.0),
    lambda lib, o: _S(lib).ReduceLROnPlateau(o, factor=1.0),
    lambda lib, o: _S(lib).ReduceLROnPlateau(o, mode="x"),
    lambda lib, o: _S(lib).ReduceLROnPlateau(o, threshold_mode="x"),
    lambda lib, o: _S(lib).ReduceLROnPlateau(o, min_lr=[0.1]),
    lambda lib, o: _S(lib).SequentialLR(o, [], []),
    lambda lib, o: _S(lib).SequentialLR(o, [_S(lib).StepLR(o, 2)], [3]),
    lambda lib, o: _S(lib).SequentialLR(o, [_S(lib).ReduceLROnPlateau(o)], []),
    lambda lib, o: _S(lib).SequentialLR(o, [object()], []),
    lambda lib, o: _S(lib).ChainedScheduler([]),
    lambda lib, o: _S(lib).ChainedScheduler([_S(lib).ReduceLROnPlateau(o)]),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors_equal_torch(torch, case):
    ours = _error(lambda: ERRORS[case](gradtrack, _optimizer(gradtrack)))
    theirs = _error(lambda: ERRORS[case](torch, _optimizer(torch)))
    assert ours is not None
    assert ours[0].__name__ == theirs[0].__name__ and ours[1] == theirs[1]


def test_cycle_momentum_needs_momentum_and_sets_betas(torch):
    class FakeAdam(gradtrack.optim.Optimizer):
        def __init__(self, params):
            super().__init__(params, {"lr": 0.1, "betas": (0.9, 0.999)})

    sched_cls = gradtrack.optim.lr_scheduler.OneCycleLR
    opt = FakeAdam([gradtrack.zeros(1, requires_grad=True)])
    sched_cls(opt, max_lr=1.0, total_steps=10)
    assert opt.param_groups[0]["betas"] == (0.95, 0.999)

    class NoMomentum(gradtrack.optim.Optimizer):
        def __init__(self, params):
            super().__init__(params, {"lr": 0.1})

    with pytest.raises(ValueError, match="optimizer must support momentum or beta1 with "
                                         "`cycle_momentum` option enabled"):
        sched_cls(NoMomentum([gradtrack.zeros(1, requires_grad=True)]), 1.0, total_steps=5)


def test_warm_restarts_fractional_epochs_equal_torch(torch):
    def run(lib):
        opt = _optimizer(lib)
        sched = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2)
        out = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for epoch in [0.5, 1.25, 2.0, 3.5, 7.1, 9.0, 20.3, 4.0]:
                _step_params(lib, opt)
                sched.step(epoch)
                out.append((sched.get_last_lr(), sched.T_cur, sched.T_i, sched.last_epoch))
        return out

    assert run(gradtrack) == run(torch)


def test_closed_form_with_epoch_argument_equals_torch(torch):
    def run(lib, cls, **kw):
        opt = _optimizer(lib)
        sched = getattr(lib.optim.lr_scheduler, cls)(opt, **kw)
        out = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for epoch in [3, 1, 7, 12, 5]:
                _step_params(lib, opt)
                sched.step(epoch)
                out.append(sched.get_last_lr())
        return out

    for cls, kw in [("StepLR", {"step_size": 2}), ("MultiStepLR", {"milestones": [2, 6]}),
                    ("ExponentialLR", {"gamma": 0.8}), ("CosineAnnealingLR", {"T_max": 6}),
                    ("LinearLR", {}), ("ConstantLR", {}), ("PolynomialLR", {"total_iters": 8}),
                    ("LambdaLR", {"lr_lambda": lambda e: 1.0 / (1 + e)})]:
        assert run(gradtrack, cls, **kw) == run(torch, cls, **kw), cls


def test_lambda_state_dict_keeps_callable_objects_state():
    class Factor:
        def __init__(self):
            self.base = 0.5

        def __call__(self, epoch):
            return self.base ** epoch

    opt = _optimizer(gradtrack)
    sched = gradtrack.optim.lr_scheduler.LambdaLR(opt, [Factor(), lambda e: 1.0])
    state = sched.state_dict()
    assert state["lr_lambdas"] == [{"base": 0.5}, None]
    state["lr_lambdas"][0]["base"] = 0.25
    sched.load_state_dict(state)
    assert sched.lr_lambdas[0].base == 0.25
    assert "lr_lambdas" in state


def test_tensor_lr_is_filled_in_place(torch):
    out = []
    for lib in (gradtrack, torch):
        lr = lib.tensor(0.1)
        opt = lib.optim.SGD([lib.zeros(2, requires_grad=True)], lr=lr)
        sched = lib.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
        _step_params(lib, opt)
        sched.step()
        assert opt.param_groups[0]["lr"] is lr
        last = sched.get_last_lr()[0]
        assert last is not lr
        out.append(round(float(last), 7))
    assert out[0] == out[1] == 0.05
    assert math.isclose(float(lr), 0.05, rel_tol=1e-6)


@pytest.mark.parametrize("name", ["MultiStepLR", "OneCycleLR", "CyclicLR-exp_range",
                                  "SequentialLR"])
def test_state_dict_survives_gradtrack_save_and_load(name, tmp_path):
    make, steps = CASES[name]
    full = _trajectory(gradtrack, make, steps)[0]
    opt = _optimizer(gradtrack)
    sched = make(gradtrack, opt)
    for _ in range(5):
        _step_params(gradtrack, opt)
        sched.step()
    gradtrack.save({"sched": sched.state_dict(), "opt": opt.state_dict()}, tmp_path / "ck.pt")
    saved = gradtrack.load(tmp_path / "ck.pt")
    opt2 = _optimizer(gradtrack)
    sched2 = make(gradtrack, opt2)
    opt2.load_state_dict(saved["opt"])
    sched2.load_state_dict(saved["sched"])
    rest = [list(sched2.get_last_lr())]
    for _ in range(steps - 5):
        _step_params(gradtrack, opt2)
        sched2.step()
        rest.append(list(sched2.get_last_lr()))
    assert rest == full[5:]


def test_reduce_lr_on_plateau_survives_save_and_load(tmp_path):
    opt = _optimizer(gradtrack)
    sched = gradtrack.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=1, mode="max")
    for m in [1.0, 0.5, 0.5]:
        sched.step(m)
    gradtrack.save(sched.state_dict(), tmp_path / "p.pt")
    sched2 = gradtrack.optim.lr_scheduler.ReduceLROnPlateau(_optimizer(gradtrack))
    sched2.load_state_dict(gradtrack.load(tmp_path / "p.pt"))
    assert sched2.state_dict() == sched.state_dict() and sched2.mode_worse == -math.inf
