"""``torch.amp`` against torch 2.13: the autocast state (regions torch disables, nesting,
defaults, errors) and ``GradScaler`` (scaling, unscaling, inf checks, skipped steps,
``update()``, the state dict, the misuse errors)."""

import warnings

import pytest

from helpers import same


def _warned(fn):
    def scenario(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = fn(lib)
        return result, [(w.category.__name__, str(w.message).split(" (Triggered")[0])
                        for w in caught]
    return scenario


def _inside(region, fn):
    with region:
        return fn()


AUTOCAST = {
    "defaults": lambda lib: (lib.is_autocast_enabled(), lib.is_autocast_enabled("cpu"),
                             str(lib.get_autocast_dtype("cpu")),
                             str(lib.get_autocast_dtype("cuda")), lib.is_autocast_cache_enabled(),
                             lib.amp.is_autocast_available("cpu"),
                             lib.amp.is_autocast_available("cuda"),
                             lib.amp.is_autocast_available("meta")),
    "disabled_cpu": lambda lib: _inside(lib.autocast("cpu", enabled=False),
                                        lambda: lib.is_autocast_enabled("cpu")),
    "cuda_disables_itself": lambda lib: (lambda a: (a.__enter__() is a,
                                                    lib.is_autocast_enabled("cuda"),
                                                    a.__exit__(None, None, None)))(
        lib.autocast("cuda")),
    "cpu_float64_disables": lambda lib: (lambda a: (a.__enter__() is a,
                                                    lib.is_autocast_enabled("cpu"),
                                                    a.__exit__(None, None, None)))(
        lib.autocast("cpu", dtype=lib.float64)),
    "nested_other_device": lambda lib: (lambda a: (a.__enter__(), lib.is_autocast_enabled("mps"),
                                                   str(lib.get_autocast_dtype("mps")),
                                                   a.__exit__(None, None, None),
                                                   lib.is_autocast_enabled("mps"))[1:])(
        lib.autocast("mps", dtype=lib.bfloat16)),
    "bad_device": lambda lib: lib.autocast("foo"),
    "device_not_str": lambda lib: lib.autocast(3),
    "bad_dtype_query": lambda lib: lib.get_autocast_dtype("foo"),
    "deprecated_queries": lambda lib: (lib.is_autocast_cpu_enabled(),
                                       str(lib.get_autocast_cpu_dtype())),
    "decorator_disabled": lambda lib: lib.autocast("cpu", enabled=False)(
        lambda: lib.is_autocast_enabled("cpu"))(),
    "matmul_in_disabled_region": lambda lib: _inside(lib.autocast("cpu", enabled=False),
                                                     lambda: lib.ones(2, 2) @ lib.ones(2, 2)),
}


@pytest.mark.parametrize("case", sorted(AUTOCAST))
def test_autocast_state_matches_torch(case):
    same(_warned(AUTOCAST[case]))


def _training(lib):
    w = lib.nn.Parameter(lib.ones(2))
    opt = lib.optim.SGD([w], lr=0.1)
    s = lib.amp.GradScaler("cpu", init_scale=8.0, growth_interval=2)
    seen = [s.scale(lib.tensor(1.5)), s.scale([lib.tensor(1.0), (lib.tensor(2.0),)]),
            type(s.scale(iter([lib.tensor(1.0)]))).__name__]
    for bad in (False, True, False, False, False):
        opt.zero_grad()
        s.scale((w * (float("inf") if bad else 3.0)).sum()).backward()
        seen.append((s.step(opt), s.get_scale(), s._get_growth_tracker(), w.tolist()))
        s.update()
        seen.append((s.get_scale(), s._get_growth_tracker()))
    seen.append(s.state_dict())
    opt.zero_grad()
    s.scale((w * 2).sum()).backward()
    s.unscale_(opt)
    seen.append(w.grad)
    s.update(4.0)
    seen.append(s.get_scale())
    s.update(lib.tensor(2.0))
    seen.append(s.get_scale())
    return seen


def test_grad_scaler_training_matches_torch():
    same(_training)


def _stage_error(calls):
    def scenario(lib):
        w = lib.nn.Parameter(lib.ones(2))
        opt = lib.optim.SGD([w], lr=0.1)
        s = lib.amp.GradScaler("cpu")
        s.scale((w * 2).sum()).backward()
        for call in calls:
            getattr(s, call)(opt) if call != "update" else s.update()
    return scenario


SCALER_ERRORS = {
    "unscale_twice": _stage_error(["unscale_", "unscale_"]),
    "step_twice": _stage_error(["step", "step"]),
    "unscale_after_step": _stage_error(["step", "unscale_"]),
    "step_before_scale": lambda lib: lib.amp.GradScaler("cpu").step(
        lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=0.1)),
    "update_before_scale": lambda lib: lib.amp.GradScaler("cpu").update(),
    "update_without_checks": lambda lib: (lambda s: (s.scale(lib.ones(1)), s.update()))(
        lib.amp.GradScaler("cpu")),
    "growth_factor": lambda lib: lib.amp.GradScaler("cpu", growth_factor=1.0),
    "backoff_factor": lambda lib: lib.amp.GradScaler("cpu", backoff_factor=1.0),
    "closure": lambda lib: (lambda s: (s.scale(lib.ones(1)), s.step(
        lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=0.1), closure=lambda: 0)))(
        lib.amp.GradScaler("cpu")),
    "empty_state": lambda lib: lib.amp.GradScaler("cpu").load_state_dict({}),
    "scale_not_tensor": lambda lib: lib.amp.GradScaler("cpu").scale(3),
    "fp16_grads": lambda lib: (lambda h: (lambda s: (s.scale(h.float().sum()).backward(),
                                                     s.unscale_(lib.optim.SGD([h], lr=0.1))))(
        lib.amp.GradScaler("cpu")))(lib.nn.Parameter(lib.ones(2, dtype=lib.float16))),
}


@pytest.mark.parametrize("case", sorted(SCALER_ERRORS))
def test_grad_scaler_errors_match_torch(case):
    same(SCALER_ERRORS[case])


def test_state_dict_round_trip():
    def scenario(lib):
        s = lib.amp.GradScaler("cpu", init_scale=16.0, growth_interval=3)
        s.scale(lib.ones(1))
        t = lib.amp.GradScaler("cpu")
        t.load_state_dict(s.state_dict())
        disabled = lib.amp.GradScaler("cpu", enabled=False)
        disabled.load_state_dict({})
        return (t.state_dict(), t.get_scale(), t.get_growth_interval(), disabled.state_dict(),
                disabled.get_scale(), disabled.is_enabled())
    same(scenario)


def test_cuda_scaler_disables_itself():
    same(_warned(lambda lib: (lambda s: (s.is_enabled(), s.get_scale(), s.state_dict(),
                                         s.scale(lib.tensor(2.0))))(lib.amp.GradScaler("cuda"))))


def _found_inf(lib):
    m = lib.nn.Linear(2, 1)
    opt = lib.optim.SGD(m.parameters(), lr=0.1)
    s = lib.amp.GradScaler("cpu")

    def seen(o):
        # {device: 0-dim flag}: the key's type and str, the flag's value and identity
        return [(type(k).__name__, str(k), v.item(), v.dim()) for k, v in
                s._found_inf_per_device(o).items()]

    out = [seen(opt)]
    s.scale(m(lib.ones(1, 2)).sum()).backward()
    s.unscale_(opt)
    out.append(seen(opt))
    s.step(opt)
    out.append(seen(opt))
    s.update()
    out.append(seen(opt))
    opt.zero_grad()
    s.scale(m(lib.ones(1, 2)).sum() * float("inf")).backward()
    s.unscale_(opt)
    out.append(seen(opt))
    no_grads = lib.optim.SGD([lib.nn.Parameter(lib.ones(2))], lr=0.1)
    s.unscale_(no_grads)
    out.append(seen(no_grads))
    try:
        s.step(no_grads)
    except AssertionError as e:
        out.append(str(e))
    return out


def test_found_inf_per_device_matches_torch():
    same(_found_inf)
