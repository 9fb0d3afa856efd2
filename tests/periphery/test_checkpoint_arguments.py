"""``torch.utils.checkpoint.checkpoint``'s arguments against torch 2.13: keyword arguments
reach the function in the recomputation too, the argument checks and their ValueErrors,
``context_fn``, and the reentrant variant's refusal under ``autograd.grad`` (no ``.grad``
written)."""

import importlib
import warnings

import pytest

import gradtrack

from helpers import same


def _checkpoint(lib):
    return importlib.import_module(lib.__name__ + ".utils.checkpoint")


def test_keyword_arguments_reach_the_recomputation():
    def scenario(lib):
        a = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        out = _checkpoint(lib).checkpoint(lambda t, scale=1.0: (t * t * scale).sum(), a,
                                          scale=2.0, use_reentrant=False)
        out.backward()
        return out, a.grad
    same(scenario)


def test_preserve_rng_state_is_a_keyword_argument_not_passed_on():
    def scenario(lib):
        a = lib.ones(3, requires_grad=True)
        out = _checkpoint(lib).checkpoint(lambda t: t * 3, a, use_reentrant=False,
                                          preserve_rng_state=False)
        out.sum().backward()
        return a.grad
    same(scenario)


ARGUMENT_CASES = {
    "determinism_check_foo": dict(use_reentrant=False, determinism_check="foo"),
    "determinism_check_none": dict(use_reentrant=False, determinism_check="none"),
    "reentrant_ignores_determinism_check": dict(use_reentrant=True, determinism_check="foo"),
    "reentrant_context_fn": dict(use_reentrant=True, context_fn=lambda: (None, None)),
    "reentrant_debug": dict(use_reentrant=True, debug=True),
    "reentrant_debug_false": dict(use_reentrant=True, debug=False),
    "reentrant_kwargs_before_context_fn": dict(use_reentrant=True, scale=2,
                                               context_fn=lambda: (None, None)),
    "determinism_before_context_fn": dict(use_reentrant=False, determinism_check="foo",
                                          context_fn=5),
}


@pytest.mark.parametrize("case", sorted(ARGUMENT_CASES))
def test_argument_checks_match_torch(case):
    def scenario(lib):
        a = lib.tensor([[0.5, 1.0, 2.0]], requires_grad=True)
        return _checkpoint(lib).checkpoint(lib.sin, a, **ARGUMENT_CASES[case])
    same(scenario)


def test_argument_messages_word_for_word():
    ckpt = _checkpoint(gradtrack).checkpoint
    a = gradtrack.ones(2, requires_grad=True)
    with pytest.raises(ValueError) as info:
        ckpt(gradtrack.sin, a, use_reentrant=False, determinism_check="foo")
    assert str(info.value) == ("determinism_check should be one of ['default', 'none'], "
                               "but got foo")
    with pytest.raises(ValueError) as info:
        ckpt(gradtrack.sin, a, use_reentrant=True, debug=True)
    assert str(info.value) == ("Passing `context_fn` or `debug` is only supported when "
                               "use_reentrant=False.")


def test_default_context_fn_is_noop_context_fn(torch):
    import inspect
    for lib in (gradtrack, torch):
        module = _checkpoint(lib)
        default = inspect.signature(module.checkpoint).parameters["context_fn"].default
        assert default is module.noop_context_fn
        assert len(module.noop_context_fn()) == 2


def test_context_fn_wraps_forward_and_recomputation():
    def scenario(lib):
        import contextlib
        seen = []

        # (try/finally: torch stops the recomputation early by raising through it)
        @contextlib.contextmanager
        def mark(name):
            seen.append(name + " in")
            try:
                yield
            finally:
                seen.append(name + " out")

        def f(t):
            seen.append("f")
            return t.exp()

        a = lib.ones(2, requires_grad=True)
        out = _checkpoint(lib).checkpoint(f, a, use_reentrant=False,
                                          context_fn=lambda: (mark("forward"), mark("recompute")))
        out.sum().backward()
        return seen, a.grad
    same(scenario)


REENTRANT_GRAD = ("When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() "
                  "or passing an `inputs` parameter to .backward(). To resolve this error, you "
                  "can either set use_reentrant=False, or call .backward() without passing the "
                  "`inputs` argument.")


def test_reentrant_checkpoint_refuses_autograd_grad_and_writes_no_grad():
    def scenario(lib):
        lib.manual_seed(0)
        lin = lib.nn.Linear(3, 1)
        a = lib.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
        o = _checkpoint(lib).checkpoint(lin, a, use_reentrant=True).sum()
        try:
            lib.autograd.grad(o, a)
            error = None
        except RuntimeError as e:
            error = str(e)
        return error, lin.weight.grad, lin.bias.grad, a.grad
    same(scenario)
    lin = gradtrack.nn.Linear(3, 1)
    a = gradtrack.ones(1, 3, requires_grad=True)
    o = _checkpoint(gradtrack).checkpoint(lin, a, use_reentrant=True).sum()
    with pytest.raises(RuntimeError) as info:
        gradtrack.autograd.grad(o, a)
    assert str(info.value) == REENTRANT_GRAD


@pytest.mark.parametrize("method", [False, True])
def test_reentrant_checkpoint_refuses_backward_with_inputs(method):
    def scenario(lib):
        lin = lib.nn.Linear(3, 1)
        a = lib.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
        o = _checkpoint(lib).checkpoint(lin, a, use_reentrant=True).sum()
        try:
            o.backward(inputs=[a]) if method else lib.autograd.backward(o, inputs=[a])
            error = None
        except RuntimeError as e:
            error = str(e)
        return error, lin.weight.grad, a.grad
    same(scenario)


def test_checkpoint_validity_is_restored_after_grad(lib):
    def identity_function():
        class Seen(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 1

            @staticmethod
            def backward(ctx, g):
                seen.append(lib.autograd._is_checkpoint_valid())
                return g
        return Seen

    seen = []
    fn = identity_function()
    a = lib.ones(2, requires_grad=True)
    fn.apply(a).sum().backward()
    lib.autograd.grad(fn.apply(a).sum(), a)
    lib.autograd.backward(fn.apply(a).sum(), inputs=[a])
    fn.apply(a).sum().backward()
    assert seen == [True, False, False, True]
    assert lib.autograd._is_checkpoint_valid() is True


def test_reentrant_backward_still_works_after_a_refused_grad():
    ckpt = _checkpoint(gradtrack).checkpoint
    a = gradtrack.ones(2, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError):
            gradtrack.autograd.grad(ckpt(lambda t: t * 3, a, use_reentrant=True).sum(), a)
        ckpt(lambda t: t * 3, a, use_reentrant=True).sum().backward()
    assert a.grad.tolist() == [3.0, 3.0]
