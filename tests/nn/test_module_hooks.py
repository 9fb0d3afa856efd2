"""Module hooks against PyTorch 2.13: forward (pre-)hooks with ``with_kwargs``,
``always_call`` and ``prepend``; full backward hooks and backward pre-hooks (the
gradients they see and replace); the deprecated ``register_backward_hook`` and
its warnings; the global ``register_module_*`` hooks.

Every scenario is written once against ``lib`` and run with both libraries
(``helpers.same``); the outcomes (values, gradients, messages) must match.
"""

import warnings

import pytest

import gradtrack

from helpers import same


def _linear(lib):
    lib.manual_seed(0)
    return lib.nn.Linear(3, 2)


def test_forward_pre_hook_with_kwargs_replaces_args_and_kwargs():
    def scenario(lib):
        class Scale(lib.nn.Module):
            def forward(self, x, *, factor=1.0):
                return x * factor

        m = Scale()
        m.register_forward_pre_hook(lambda mod, args, kwargs: ((args[0] + 1,), {"factor": 3.0}),
                                    with_kwargs=True)
        return m(lib.ones(2), factor=2.0)

    same(scenario)


def test_forward_pre_hook_with_kwargs_bad_result_message():
    def scenario(lib):
        m = lib.nn.ReLU()
        m.register_forward_pre_hook(lambda mod, args, kwargs: args, with_kwargs=True)
        return m(lib.ones(2))

    same(scenario)


def test_forward_hook_with_kwargs_and_prepend_order():
    def scenario(lib):
        calls = []

        class Scale(lib.nn.Module):
            def forward(self, x, factor=1.0):
                return x * factor

        m = Scale()
        m.register_forward_hook(lambda mod, args, out: calls.append("a"))
        m.register_forward_hook(lambda mod, args, kwargs, out: calls.append(("b", kwargs)),
                                with_kwargs=True)
        m.register_forward_hook(lambda mod, args, out: calls.append("c"), prepend=True)
        m.register_forward_pre_hook(lambda mod, args: calls.append("pre1"))
        m.register_forward_pre_hook(lambda mod, args: calls.append("pre0"), prepend=True)
        out = m(lib.ones(1), factor=2.0)
        return calls, out

    same(scenario)


def test_always_call_hook_runs_when_forward_raises():
    def scenario(lib):
        calls = []

        class Boom(lib.nn.Module):
            def forward(self, x):
                raise ValueError("boom")

        m = Boom()
        m.register_forward_hook(lambda mod, args, out: calls.append(("always", out)),
                                always_call=True)
        m.register_forward_hook(lambda mod, args, out: calls.append("normal"))
        try:
            m(lib.ones(1))
        except ValueError as e:
            calls.append(str(e))
        return calls

    same(scenario)


def test_always_call_hook_failure_is_a_warning():
    def scenario(lib):
        class Boom(lib.nn.Module):
            def forward(self, x):
                raise ValueError("boom")

        def bad(mod, args, out):
            raise KeyError("hook")

        m = Boom()
        m.register_forward_hook(bad, always_call=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                m(lib.ones(1))
            except ValueError:
                pass
        return [str(w.message) for w in caught]

    same(scenario)


def test_full_backward_hook_sees_input_and_output_grads():
    def scenario(lib):
        m = _linear(lib)
        seen = []
        m.register_full_backward_hook(lambda mod, gi, go: seen.append((gi, go)))
        x = lib.arange(6.0).reshape(2, 3).requires_grad_()
        (m(x) * lib.tensor([1.0, -2.0])).sum().backward()
        return seen, x.grad, m.weight.grad

    same(scenario)


def test_full_backward_hook_replaces_grad_input():
    def scenario(lib):
        m = _linear(lib)
        m.register_full_backward_hook(lambda mod, gi, go: (gi[0] * 10,))
        x = lib.ones(2, 3, requires_grad=True)
        m(x).sum().backward()
        return x.grad, m.bias.grad

    same(scenario)


def test_backward_pre_hook_replaces_grad_output():
    def scenario(lib):
        m = _linear(lib)
        seen = []
        m.register_full_backward_pre_hook(lambda mod, go: (go[0] * 2,))
        m.register_full_backward_hook(lambda mod, gi, go: seen.append(go))
        x = lib.ones(1, 3, requires_grad=True)
        m(x).sum().backward()
        return seen, x.grad, m.weight.grad, m.bias.grad

    same(scenario)


def test_full_backward_hook_when_no_input_requires_grad():
    def scenario(lib):
        m = _linear(lib)
        seen = []
        m.register_full_backward_hook(lambda mod, gi, go: seen.append((gi, go)))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            m(lib.ones(1, 3)).sum().backward()
        return seen, m.bias.grad, [(w.category.__name__, str(w.message)) for w in caught]

    same(scenario)


def test_full_backward_hook_no_input_grad_may_not_return_values():
    def scenario(lib):
        m = _linear(lib)
        m.register_full_backward_hook(lambda mod, gi, go: (lib.ones(1, 3),))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m(lib.ones(1, 3)).sum().backward()

    same(scenario)


def test_full_backward_hook_wrong_count_message():
    def scenario(lib):
        m = _linear(lib)
        m.register_full_backward_hook(lambda mod, gi, go: (gi[0], gi[0]))
        m(lib.ones(1, 3, requires_grad=True)).sum().backward()

    same(scenario)


def test_backward_pre_hook_wrong_count_message():
    def scenario(lib):
        m = _linear(lib)
        m.register_full_backward_pre_hook(lambda mod, go: (go[0], go[0]))
        m(lib.ones(1, 3, requires_grad=True)).sum().backward()

    same(scenario)


def test_tuple_inputs_and_outputs_with_non_tensors():
    def scenario(lib):
        class Pair(lib.nn.Module):
            def forward(self, a, scale, b):
                return a * scale, b.exp()

        m = Pair()
        seen = []
        m.register_full_backward_hook(lambda mod, gi, go: seen.append((gi, go)))
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([0.5], requires_grad=True)
        x, y = m(a, 3.0, b)
        (x.sum() + y.sum()).backward()
        return seen, a.grad, b.grad

    same(scenario)


def test_mixing_backward_hook_kinds_is_refused():
    def scenario(lib):
        m = lib.nn.ReLU()
        m.register_full_backward_hook(lambda mod, gi, go: None)
        m.register_backward_hook(lambda mod, gi, go: None)

    same(scenario)


def test_mixing_backward_hook_kinds_is_refused_other_order():
    def scenario(lib):
        m = lib.nn.ReLU()
        m.register_backward_hook(lambda mod, gi, go: None)
        m.register_full_backward_hook(lambda mod, gi, go: None)

    same(scenario)


def test_legacy_backward_hook_values_and_warning():
    def scenario(lib):
        m = _linear(lib)
        seen = []
        m.register_backward_hook(lambda mod, gi, go: seen.append((gi, go)))
        x = lib.ones(2, 3, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = m(x)
        out.sum().backward()
        messages = [(w.category.__name__, str(w.message)) for w in caught]
        return messages, [len(gi) for gi, _ in seen], [go for _, go in seen]

    same(scenario)


def test_legacy_backward_hook_on_single_node_module():
    def scenario(lib):
        m = lib.nn.ReLU()
        seen = []
        m.register_backward_hook(lambda mod, gi, go: seen.append((gi, go)))
        x = lib.tensor([1.0, -1.0], requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = m(x)
        out.sum().backward()
        return [str(w.message) for w in caught], seen, x.grad

    same(scenario)


def test_legacy_backward_hook_on_conv_tutorial():
    # The tutorial idiom: Conv2d.register_backward_hook printing grad shapes.
    def scenario(lib):
        lib.manual_seed(0)
        conv = lib.nn.Conv2d(1, 2, 3)
        shapes = []

        def printgradnorm(self, grad_input, grad_output):
            shapes.append([None if g is None else tuple(g.shape) for g in grad_input])
            shapes.append([tuple(g.shape) for g in grad_output])

        conv.register_backward_hook(printgradnorm)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = conv(lib.ones(1, 1, 5, 5, requires_grad=True))
        out.sum().backward()
        return shapes

    same(scenario)


def test_hooks_removed_restore_plain_call():
    def scenario(lib):
        m = _linear(lib)
        h1 = m.register_forward_hook(lambda mod, args, out: out * 0)
        h2 = m.register_full_backward_hook(lambda mod, gi, go: None)
        h1.remove()
        h2.remove()
        h2.remove()
        out = m(lib.ones(1, 3, requires_grad=True))
        return out, type(out.grad_fn).__name__

    same(scenario)
    m = gradtrack.nn.Linear(2, 2)
    m.register_forward_hook(lambda mod, args, out: None).remove()
    m(gradtrack.ones(2))  # the first call without hooks puts the fast path back
    assert "_has_hooks" not in m.__dict__


def test_global_forward_hooks_apply_to_every_module():
    def scenario(lib):
        from importlib import import_module
        mm = import_module(lib.__name__ + ".nn.modules.module")
        calls = []
        h1 = mm.register_module_forward_pre_hook(lambda mod, args: calls.append(
            ("pre", type(mod).__name__)))
        h2 = mm.register_module_forward_hook(lambda mod, args, out: calls.append(
            ("post", type(mod).__name__)))
        try:
            seq = lib.nn.Sequential(lib.nn.ReLU(), lib.nn.Tanh())
            out = seq(lib.ones(1))
        finally:
            h1.remove()
            h2.remove()
        seq(lib.ones(1))
        return calls, out

    same(scenario)
    assert not gradtrack.nn.Module._has_hooks


def test_global_full_backward_hook_and_kind_clash():
    def scenario(lib):
        from importlib import import_module
        mm = import_module(lib.__name__ + ".nn.modules.module")
        seen = []
        h = mm.register_module_full_backward_hook(
            lambda mod, gi, go: seen.append(type(mod).__name__))
        try:
            m = _linear(lib)
            m(lib.ones(1, 3, requires_grad=True)).sum().backward()
            try:
                mm.register_module_backward_hook(lambda mod, gi, go: None)
            except RuntimeError as e:
                seen.append(str(e))
        finally:
            h.remove()
        return seen

    same(scenario)


def test_global_registration_hooks_replace_values():
    def scenario(lib):
        from importlib import import_module
        mm = import_module(lib.__name__ + ".nn.modules.module")
        names = []
        handles = [
            mm.register_module_parameter_registration_hook(
                lambda mod, name, p: names.append(("param", name))),
            mm.register_module_buffer_registration_hook(lambda mod, name, b: b + 1),
            mm.register_module_module_registration_hook(
                lambda mod, name, sub: names.append(("module", name))),
        ]
        try:
            m = lib.nn.Module()
            m.register_buffer("b", lib.zeros(2))
            m.child = lib.nn.ReLU()
            m.w = lib.nn.Parameter(lib.ones(1))
        finally:
            for h in handles:
                h.remove()
        return names, m.b

    same(scenario)


@pytest.mark.parametrize("bad", ["none_output", "dict_output"])
def test_backward_hook_output_kinds_warn(bad):
    def scenario(lib):
        class Odd(lib.nn.Module):
            def forward(self, x):
                return {"y": x * 2} if bad == "dict_output" else [x * 2]

        m = Odd()
        m.register_full_backward_hook(lambda mod, gi, go: None)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            m(lib.ones(1, requires_grad=True))
        return [str(w.message) for w in caught]

    same(scenario)


def test_full_backward_hook_with_inplace_module_is_refused():
    # The hook's identity node returns its input as a view; an in-place layer then
    # writes into it, which torch forbids with a message that says how to fix it.
    def scenario(lib):
        m = lib.nn.ReLU(inplace=True)
        m.register_full_backward_hook(lambda mod, gi, go: None)
        x = lib.tensor([1.0, -1.0], requires_grad=True)
        m(x * 1).sum().backward()

    same(scenario)


def test_full_backward_hook_under_double_backward():
    def scenario(lib):
        m = _linear(lib)
        seen = []
        m.register_full_backward_hook(lambda mod, gi, go: seen.append(gi))
        x = lib.tensor([[1.0, -1.0, 0.5]], requires_grad=True)
        (g,) = lib.autograd.grad(m(x).pow(2).sum(), x, create_graph=True)
        g.sum().backward()
        return seen, x.grad

    same(scenario)


def test_backward_pre_hook_output_node():
    def scenario(lib):
        m = _linear(lib)
        m.register_full_backward_pre_hook(lambda mod, go: None)
        y = m(lib.ones(1, 3, requires_grad=True))
        return y._version, y.grad_fn.name(), y.grad_fn.next_functions[0][0].name()

    same(scenario)
