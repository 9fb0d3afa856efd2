"""autograd's small switches and deprecated names, as torch's: the multithreading flag (per
thread, a context manager set on construction), view replay (off, as torch's default) and
the deprecated ``autograd.variable``."""

import inspect
import threading

import pytest

import gradtrack
from gradtrack import autograd


def test_multithreading_flag_follows_torchs_context_manager(torch):
    log, torch_log = [], []
    for api, out in ((autograd, log), (torch.autograd, torch_log)):
        out.append(api.is_multithreading_enabled())
        with api.set_multithreading_enabled(False):
            out.append(api.is_multithreading_enabled())
            with api.set_multithreading_enabled(True):
                out.append(api.is_multithreading_enabled())
            out.append(api.is_multithreading_enabled())
        out.append(api.is_multithreading_enabled())
        api.set_multithreading_enabled(False)  # a plain call sets the flag and leaves it
        out.append(api.is_multithreading_enabled())
        api.set_multithreading_enabled(True)
        out.append(api.is_multithreading_enabled())
    assert log == torch_log == [True, False, True, False, True, False, True]


def test_multithreading_flag_as_decorator_is_torchs(torch):
    log, torch_log = [], []
    for api, out in ((autograd, log), (torch.autograd, torch_log)):
        @api.set_multithreading_enabled(False)
        def inside():
            return api.is_multithreading_enabled()
        # torch's quirk: creating the decorator set the flag, and nothing restores it
        out.extend([api.is_multithreading_enabled(), inside(), api.is_multithreading_enabled()])
        api.set_multithreading_enabled(True)
        out.append(api.is_multithreading_enabled())
    assert log == torch_log == [False, False, False, True]


def test_multithreading_flag_is_per_thread():
    seen = []
    with autograd.set_multithreading_enabled(False):
        thread = threading.Thread(target=lambda: seen.append(autograd.is_multithreading_enabled()))
        thread.start()
        thread.join(timeout=10)
        assert not autograd.is_multithreading_enabled()
    assert seen == [True]


def test_backward_gives_the_same_gradient_with_the_flag_off():
    x = gradtrack.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with autograd.set_multithreading_enabled(False):
        (x ** 3).sum().backward()
    assert x.grad.tolist() == [3.0, 12.0, 27.0]


@pytest.mark.parametrize("mode", [1, None, "yes"])
def test_multithreading_flag_refuses_non_bool_as_torch(torch, mode):
    with pytest.raises(TypeError) as ours:
        autograd.set_multithreading_enabled(mode)
    with pytest.raises(TypeError) as theirs:
        torch.autograd.set_multithreading_enabled(mode)
    assert str(ours.value) == str(theirs.value)
    assert autograd.is_multithreading_enabled()


def test_view_replay_is_off_and_views_regenerate_as_strided_as_torch(torch):
    assert autograd.is_view_replay_enabled() is torch.autograd.is_view_replay_enabled() is False
    names = []
    for lib in (gradtrack, torch):
        base = lib.zeros(4, requires_grad=True).clone()
        view = base[1:3]
        base.mul_(2)
        names.append(type(view.grad_fn).__name__)
    assert names[0] == names[1] == "AsStridedBackward0"


@pytest.mark.parametrize("args", [(), (1.0,), ([1.0, 2.0],)])
def test_deprecated_variable_raises_torchs_error(torch, args):
    with pytest.raises(RuntimeError) as ours:
        autograd.variable(*args, requires_grad=True)
    with pytest.raises(RuntimeError) as theirs:
        torch.autograd.variable(*args, requires_grad=True)
    assert str(ours.value) == str(theirs.value)
    assert "variable" in autograd.__all__ and "variable" in torch.autograd.__all__


@pytest.mark.parametrize("name", ["set_multithreading_enabled", "variable"])
def test_signatures_are_torchs(torch, name):
    def parameters(function):
        return [(p.name, p.default, p.kind) for p in inspect.signature(function).parameters.values()]
    assert parameters(getattr(autograd, name)) == parameters(getattr(torch.autograd, name))
