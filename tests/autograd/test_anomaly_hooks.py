"""Anomaly detection and tensor / node hooks,
compared with torch 2.13. zero_grad belongs to nn and is not tested here.

``lib``-parametrized tests pin the measured behaviour (gradtrack always runs; the
torch run checks the reference and is skipped without torch). ``same(scenario)``
tests run one scenario with both libraries and compare outcomes.
"""

import warnings

import pytest

import gradtrack

from helpers import raises, same, spell, TRIGGERED


@pytest.fixture(autouse=True)
def _anomaly_off():
    """Anomaly mode is global: every test starts and ends with it off."""
    yield
    gradtrack.autograd.set_detect_anomaly(False)
    try:
        import torch
    except ImportError:
        return
    torch.autograd.set_detect_anomaly(False)


# ============================================================================================
# §11 anomaly detection
# ============================================================================================

MODIFIED = ("one of the variables needed for gradient computation has been modified by an "
            "inplace operation: [torch.FloatTensor [2, 3]], which is output 0 of Sigmoid, is at "
            "version 1; expected version 0 instead. Hint: ")
NORMAL_HINT = ("enable anomaly detection to find the operation that failed to compute its "
               "gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).")
ANOMALY_HINT = ("the backtrace further above shows the operation that failed to compute its "
                "gradient. The variable in question was changed in there or anywhere later. "
                "Good luck!")
ENABLED_WARNING = ("Anomaly Detection has been enabled. This mode will increase the runtime and "
                   "should only be enabled for debugging.")


def sigmoid_then_inplace(lib):
    a = lib.ones(2, 3, requires_grad=True)
    b = a * 1
    c = b.sigmoid()  # the forward line the anomaly warning must show
    c.mul_(2)
    c.sum().backward()


def _run_recording(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError) as info:
            fn()
    return caught, TRIGGERED.sub("", str(info.value))


def test_without_anomaly_mode_normal_hint_and_no_warning(lib):
    caught, message = _run_recording(lambda: sigmoid_then_inplace(lib))
    assert message == spell(MODIFIED + NORMAL_HINT, lib)
    assert caught == []


def test_anomaly_mode_warns_with_forward_trace_and_replaces_hint(lib):
    with lib.autograd.set_detect_anomaly(True):
        caught, message = _run_recording(lambda: sigmoid_then_inplace(lib))
    assert message == spell(MODIFIED + ANOMALY_HINT, lib)
    assert [c.category for c in caught] == [UserWarning]
    text = str(caught[0].message)
    assert text.startswith("Error detected in SigmoidBackward0. Traceback of forward call that "
                           "caused the error:\n")
    assert f'File "{__file__}"' in text
    assert ", in sigmoid_then_inplace\n    c = b.sigmoid()" in text
    assert "c.mul_(2)" not in text  # the trace is the failing node's forward, not the write


def test_anomaly_trace_names_the_failing_node_matches_torch():
    def scenario(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        with L.autograd.set_detect_anomaly(True):
            e = x.exp()
            e.add_(1)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    e.sum().backward()
                except RuntimeError as err:
                    msg = str(err)
        heads = [str(c.message).split("\n")[0] for c in caught]
        return heads, msg

    same(scenario)


def test_detect_anomaly_warns_on_entry_set_detect_anomaly_does_not(lib):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with lib.autograd.detect_anomaly():
            assert lib.is_anomaly_enabled() is True
        with lib.autograd.set_detect_anomaly(True):
            pass
    assert [(c.category, str(c.message)) for c in caught] == [(UserWarning, ENABLED_WARNING)]


def test_detect_anomaly_context_replaces_hint(lib):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with lib.autograd.detect_anomaly():
            caught, message = _run_recording(lambda: sigmoid_then_inplace(lib))
    assert message == spell(MODIFIED + ANOMALY_HINT, lib)
    assert len(caught) == 1


def test_anomaly_flags_and_restoration(lib):
    ag = lib.autograd
    assert (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()) == (False, True)
    with ag.set_detect_anomaly(True, check_nan=False):
        assert (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()) == (True, False)
    assert (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()) == (False, True)
    ag.set_detect_anomaly(True)  # a plain call switches it on for good
    assert lib.is_anomaly_enabled() is True
    ag.set_detect_anomaly(False)
    assert lib.is_anomaly_enabled() is False


def test_top_level_set_anomaly_enabled(lib):
    """``torch.set_anomaly_enabled`` (no context manager, check_nan defaults to True)."""
    lib.set_anomaly_enabled(True, False)
    assert (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()) == (True, False)
    lib.set_anomaly_enabled(True)
    assert (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()) == (True, True)
    lib.set_anomaly_enabled(False)
    assert lib.is_anomaly_enabled() is False
    assert not hasattr(lib, "set_detect_anomaly")  # only under autograd, as torch


def _sqrt_at_zero(lib):
    x = lib.tensor([0.0, 1.0], requires_grad=True)
    (x.sqrt() * 0).sum().backward()
    return x


def test_check_nan_raises_on_nan_gradient(lib):
    with lib.autograd.set_detect_anomaly(True):
        caught, message = _run_recording(lambda: _sqrt_at_zero(lib))
    assert message == "Function 'SqrtBackward0' returned nan values in its 0th output."
    assert [str(c.message).split("\n")[0] for c in caught] == [
        "Error detected in SqrtBackward0. Traceback of forward call that caused the error:"]


def test_check_nan_off_lets_nan_through(lib):
    with lib.autograd.set_detect_anomaly(True, check_nan=False):
        x = _sqrt_at_zero(lib)
    g = x.grad.tolist()
    assert g[0] != g[0] and g[1] == 0.0


def test_no_nan_check_outside_anomaly_mode(lib):
    x = _sqrt_at_zero(lib)
    assert x.grad.tolist()[0] != x.grad.tolist()[0]


def test_nan_check_in_other_nodes_matches_torch():
    def scenario(L):
        out = []
        for make in (lambda x: (x.log() * 0).sum(), lambda x: (x / x).sum(),
                     lambda x: (x ** 0.5 * 0).sum(), lambda x: (x.rsqrt() * 0).sum()):
            x = L.tensor([0.0, 1.0], requires_grad=True)
            with L.autograd.set_detect_anomaly(True):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        make(x).backward()
                        out.append([str(v) for v in x.grad.tolist()])
                    except RuntimeError as e:
                        out.append(str(e))
        return out

    same(scenario)


# ============================================================================================
# §12 tensor hooks
# ============================================================================================

def test_leaf_hook_sees_grad_before_accumulation(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    seen = []
    h = x.register_hook(lambda g: seen.append(g.tolist()))
    (x * 2).sum().backward()
    assert seen == [[2.0, 2.0, 2.0]] and x.grad.tolist() == [2.0, 2.0, 2.0]
    (x * 2).sum().backward()
    assert seen == [[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]] and x.grad.tolist() == [4.0, 4.0, 4.0]
    h.remove()
    (x * 2).sum().backward()
    assert len(seen) == 2


def test_leaf_hook_return_value_replaces_grad(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x.register_hook(lambda g: g * 10)
    (x * 2).sum().backward()
    assert x.grad.tolist() == [20.0, 20.0, 20.0]


def test_hooks_chain_in_registration_order(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    seen = []
    y.register_hook(lambda g: seen.append(("first", g.tolist())))
    y.register_hook(lambda g: g + 100)
    y.register_hook(lambda g: seen.append(("third", g.tolist())))
    y.sum().backward()
    assert seen == [("first", [1.0, 1.0, 1.0]), ("third", [101.0, 101.0, 101.0])]
    assert x.grad.tolist() == [202.0, 202.0, 202.0]


@pytest.mark.parametrize("order", ["retain_first", "hook_first"])
def test_retain_grad_sees_value_after_all_hooks(lib, order):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    if order == "retain_first":
        y.retain_grad()
        y.register_hook(lambda g: g * 3)
    else:
        y.register_hook(lambda g: g * 3)
        y.retain_grad()
    y.sum().backward()
    assert y.grad.tolist() == [3.0, 3.0]
    assert x.grad.tolist() == [6.0, 6.0]


def test_hook_modifying_grad_in_place(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: g.mul_(5))
    (x * 2).sum().backward()
    assert x.grad.tolist() == [10.0, 10.0]


def test_non_leaf_hook_in_place_modification_matches_torch():
    def scenario(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.register_hook(lambda g: g.mul_(5))
        (y * y).sum().backward()
        return x.grad

    same(scenario)


def test_register_hook_on_tensor_without_grad(lib):
    raises(lib, RuntimeError, "cannot register a hook on a tensor that doesn't require gradient",
           lambda: lib.ones(2).register_hook(lambda g: g))


@pytest.mark.parametrize("where", ["leaf", "non_leaf"])
def test_hook_changing_size(lib, where):
    def bad(g):
        return lib.ones(5)

    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x if where == "leaf" else x * 2
    y.register_hook(bad)
    raises(lib, RuntimeError, "hook 'bad' has changed the size of value",
           lambda: (y * 2).sum().backward())


def test_hook_changing_dtype(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: g.double())
    raises(lib, RuntimeError,
           "hook '<lambda>' has changed the type of value (was torch.FloatTensor got "
           "torch.DoubleTensor)", lambda: y.sum().backward())


def test_hook_returning_wrong_type_matches_torch():
    def scenario(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2

        def weird(g):
            return [1.0, 2.0]

        y.register_hook(weird)
        y.sum().backward()

    same(scenario)


def test_post_accumulate_grad_hook(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    x.register_post_accumulate_grad_hook(lambda p: seen.append((p is x, p.grad.tolist())))
    (x * 2).sum().backward()
    (x * 3).sum().backward()
    assert seen == [(True, [2.0, 2.0]), (True, [5.0, 5.0])]


def test_post_accumulate_grad_hook_rules_match_torch():
    def scenario(L):
        out = []
        x = L.tensor([1.0, 2.0], requires_grad=True)
        for target in (x * 2, L.ones(2)):
            try:
                target.register_post_accumulate_grad_hook(lambda p: None)
                out.append("ok")
            except RuntimeError as e:
                out.append(str(e))
        h = x.register_post_accumulate_grad_hook(lambda p: out.append("called"))
        h.remove()
        (x * 2).sum().backward()
        return out

    same(scenario)


def _detach_leaf_during_backward(L, where):
    """A hook that calls ``x.requires_grad_(False)`` while backward runs: on ``x``
    itself, on a tensor computed from ``x``, or on another leaf."""
    x = L.ones(3, requires_grad=True)
    w = L.ones(3, requires_grad=True)
    y = x * 2
    calls = []
    x.register_post_accumulate_grad_hook(lambda t: calls.append(t.grad))
    target = {"leaf": x, "result": y, "other": w}[where]
    target.register_hook(lambda g: (x.requires_grad_(False), None)[1])
    (y.sum() + (w * 3).sum()).backward()
    return x.grad, x.requires_grad, w.grad, calls


@pytest.mark.parametrize("where", ["leaf", "result", "other"])
def test_requires_grad_false_in_hook_stops_accumulation_like_torch(where):
    # torch leaves .grad None; the post-accumulate hook still runs and sees None.
    same(lambda L: _detach_leaf_during_backward(L, where))


def test_requires_grad_false_in_hook_keeps_earlier_grad_like_torch():
    def scenario(L):
        x = L.ones(3, requires_grad=True)
        (x * 2).sum().backward()
        y = x * 3
        y.register_hook(lambda g: (x.requires_grad_(False), None)[1])
        y.sum().backward()
        return x.grad, x.requires_grad

    same(scenario)


class _Returns5:
    def __call__(self, tensor):
        return 5


@pytest.mark.parametrize("hook", [
    lambda t: 5, lambda t: "s", lambda t: [t], lambda t: 1.5, lambda t: True, _Returns5(),
    lambda t: t.double(), lambda t: t.detach(), lambda t: t.grad, lambda t: t.view(3),
    lambda t: t * 0, lambda t: t.new_ones(1, 3), lambda t: t, lambda t: None,
], ids=["int", "str", "list", "float", "bool", "callable-object", "other-dtype", "detach",
        "grad", "view", "new-tensor", "other-shape", "itself", "none"])
def test_post_accumulate_grad_hook_return_value_matches_torch(hook):
    def scenario(L):
        x = L.ones(3, requires_grad=True)
        x.register_post_accumulate_grad_hook(hook)
        try:
            (x * 2).sum().backward()
        finally:
            # The error comes after the accumulation, as in torch.
            grad = x.grad
        return grad

    same(scenario)


def test_hook_registered_before_and_after_inplace(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    seen = {}
    y.register_hook(lambda g: seen.__setitem__("before", g.tolist()))
    y.retain_grad()
    y.mul_(3)
    y.register_hook(lambda g: seen.__setitem__("after", g.tolist()))
    (y * lib.tensor([1.0, 10.0])).sum().backward()
    assert seen == {"before": [3.0, 30.0], "after": [1.0, 10.0]}
    assert y.grad.tolist() == [1.0, 10.0]
    assert x.grad.tolist() == [3.0, 30.0]


def test_hook_on_tensor_used_twice_sees_summed_grad(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    seen = []
    y.register_hook(lambda g: seen.append(g.tolist()))
    (y * 2 + y * 3).sum().backward()
    assert seen == [[5.0, 5.0]]


def test_handle_remove_is_idempotent_and_selective(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    h1 = x.register_hook(lambda g: seen.append("a"))
    x.register_hook(lambda g: seen.append("b"))
    h1.remove()
    h1.remove()
    (x * 2).sum().backward()
    assert seen == ["b"]


def test_hook_on_view_and_after_view_inplace_matches_torch():
    def scenario(L):
        x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 1
        seen = []
        v = y[1:]
        v.register_hook(lambda g: seen.append(("v", g.tolist())))
        y.register_hook(lambda g: seen.append(("y", g.tolist())))
        v.mul_(2)
        y.register_hook(lambda g: seen.append(("y2", g.tolist())))
        (y * L.tensor([1.0, 2.0, 3.0])).sum().backward()
        return seen, x.grad

    same(scenario)


def test_hooks_with_autograd_grad_match_torch():
    def scenario(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        seen = []
        y.register_hook(lambda g: seen.append(g.tolist()) or g * 2)
        x.register_hook(lambda g: seen.append(("x", g.tolist())))
        (g,) = L.autograd.grad(y.sum(), x)
        return seen, g, x.grad

    same(scenario)
