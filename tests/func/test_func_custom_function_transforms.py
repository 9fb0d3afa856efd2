"""Custom autograd.Functions under torch.func's transforms, against torch 2.13: hessian
differentiates their outputs with their ``jvp`` (forward-over-reverse), their ``vmap``
staticmethod is the batching rule vmap calls (info, in_dims, out_dims), and the
refusals (no setup_context, no vmap support, no jvp) are torch's word for word."""

import pytest

from helpers import same


def _cube_and_deriv(lib):
    """(x^3, 3x^2), whose jvp deliberately gives the second output a zero tangent."""
    class CubeAndDeriv(lib.autograd.Function):
        generate_vmap_rule = True

        @staticmethod
        def forward(x):
            return x ** 3, 3 * x ** 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0], output[1])
            ctx.save_for_forward(output[1])

        @staticmethod
        def backward(ctx, g, gd):
            x, d = ctx.saved_tensors
            return g * d + gd * 6 * x

        @staticmethod
        def jvp(ctx, xt):
            (d,) = ctx.saved_tensors
            return d * xt, lib.zeros_like(xt)
    return CubeAndDeriv


def _square(lib, log=None, jvp=True, rule=True):
    """x^2 whose jvp is deliberately ten times too large; optional vmap rule."""
    attrs = {}

    def forward(x):
        return x ** 2

    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])
        ctx.save_for_forward(inputs[0])

    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g

    def jvp_(ctx, xt):
        (x,) = ctx.saved_tensors
        return 20 * x * xt

    def vmap(info, in_dims, x):
        if log is not None:
            log.append((repr(info), info.batch_size, info.randomness, in_dims, list(x.shape)))
        return Sq.apply(x), in_dims[0]

    attrs.update(forward=staticmethod(forward), setup_context=staticmethod(setup_context),
                 backward=staticmethod(backward))
    if jvp:
        attrs["jvp"] = staticmethod(jvp_)
    if rule:
        attrs["vmap"] = staticmethod(vmap)
    else:
        attrs["generate_vmap_rule"] = True
    Sq = type("Sq", (lib.autograd.Function,), attrs)
    return Sq


def _old_style(lib):
    class NoSetup(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2
    return NoSetup


def _doubling(lib, name, **methods):
    """A new-style Function doubling its input (forward, setup_context, backward), with
    ``methods`` (jvp, vmap) added as staticmethods."""
    def forward(x):
        return x * 2

    def setup_context(ctx, inputs, output):
        pass

    def backward(ctx, g):
        return g * 2

    attrs = dict(forward=forward, setup_context=setup_context, backward=backward, **methods)
    return type(name, (lib.autograd.Function,),
                {key: staticmethod(fn) for key, fn in attrs.items()})


def _no_rule(lib):
    return _doubling(lib, "NoRule", jvp=lambda ctx, t: t * 2)


def _x(lib):
    return lib.tensor([1.0, 2.0])


SCENARIOS = {
    "hessian_uses_jvp": lambda lib: lib.func.hessian(
        lambda t: _cube_and_deriv(lib).apply(t)[0].sum())(_x(lib)),
    "hessian_jvp_through_saved_output": lambda lib: lib.func.hessian(
        lambda t: _square(lib).apply(t).pow(2).sum())(_x(lib)),
    "hessian_input_saved": lambda lib: lib.func.hessian(
        lambda t: _square(lib).apply(t).sum())(_x(lib)),
    "hessian_without_jvp": lambda lib: lib.func.hessian(
        lambda t: _square(lib, jvp=False, rule=False).apply(t).sum())(_x(lib)),
    "hessian_without_vmap_support": lambda lib: lib.func.hessian(
        lambda t: _no_rule(lib).apply(t).sum())(_x(lib)),
    "hessian_argnums_tuple": lambda lib: lib.func.hessian(
        lambda a, b: (a * a * b).sum(), argnums=(0, 1))(_x(lib), _x(lib)),
    "hessian_linear_in_argnum": lambda lib: lib.func.hessian(
        lambda a, b: (a * a * b).sum(), argnums=1)(_x(lib), _x(lib)),
    "hessian_has_aux_refused": lambda lib: lib.func.hessian(lambda a: a.sum(), has_aux=True),
    "jacfwd_uses_jvp": lambda lib: lib.func.jacfwd(_square(lib).apply)(_x(lib)),
    "jacfwd_without_vmap_support": lambda lib: lib.func.jacfwd(_no_rule(lib).apply)(_x(lib)),
    "jacrev_without_vmap_support": lambda lib: lib.func.jacrev(_no_rule(lib).apply)(_x(lib)),
    "vmap_without_vmap_support": lambda lib: lib.func.vmap(_no_rule(lib).apply)(
        lib.ones(3, 2)),
    "vmap_unbatched_call_without_vmap_support": lambda lib: lib.func.vmap(
        lambda x: _no_rule(lib).apply(lib.ones(2)) + x)(lib.ones(3, 2)),
    "vmap_generated_rule": lambda lib: lib.func.vmap(
        _square(lib, rule=False).apply)(lib.ones(3, 2)),
    "old_style_vmap": lambda lib: lib.func.vmap(_old_style(lib).apply)(lib.ones(2, 3)),
    "old_style_grad": lambda lib: lib.func.grad(
        lambda t: _old_style(lib).apply(t).sum())(lib.ones(3)),
    "old_style_jvp": lambda lib: lib.func.jvp(_old_style(lib).apply, (lib.ones(2),),
                                              (lib.ones(2),)),
    "old_style_vjp": lambda lib: lib.func.vjp(_old_style(lib).apply, lib.ones(2))[0],
    "old_style_outside_transforms": lambda lib: _old_style(lib).apply(lib.ones(2)),
    "generate_vmap_rule_default": lambda lib: lib.autograd.Function.generate_vmap_rule,
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_custom_function_under_transforms(name):
    same(SCENARIOS[name])


def _rule_calls(lib, in_dims, randomness="error"):
    log = []
    out = lib.func.vmap(_square(lib, log).apply, in_dims=in_dims, randomness=randomness)(
        lib.arange(6.0).reshape(3, 2))
    return log, out.tolist()


@pytest.mark.parametrize("in_dims,randomness", [(0, "error"), (1, "error"), (0, "same")])
def test_vmap_calls_the_vmap_staticmethod_once_with_info_and_in_dims(torch, in_dims,
                                                                      randomness):
    import gradtrack
    assert _rule_calls(gradtrack, in_dims, randomness) == _rule_calls(torch, in_dims,
                                                                      randomness)


def _bad_rule(lib, answer):
    return _doubling(lib, "Bad", vmap=lambda info, in_dims, x: answer(lib, x))


@pytest.mark.parametrize("answer", ["one_return", "incompatible_out_dims", "unbatched_output",
                                    "both_rule_and_generated"])
def test_vmap_staticmethod_answers(answer):
    answers = {
        "one_return": lambda lib, x: x * 2,
        "incompatible_out_dims": lambda lib, x: (x * 2, (0, 1)),
        "unbatched_output": lambda lib, x: (lib.ones(2), None),
        "both_rule_and_generated": lambda lib, x: (x * 2, 0),
    }

    def scenario(lib):
        cls = _bad_rule(lib, answers[answer])
        if answer == "both_rule_and_generated":
            cls.generate_vmap_rule = True
        return lib.func.vmap(cls.apply)(lib.ones(3, 2))
    same(scenario)
