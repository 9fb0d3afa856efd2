"""gradtrack.func's reverse-mode transforms (grad, grad_and_value, vjp, jacrev, hessian)
against torch.func 2.13: values, result structure, requires_grad / grad_fn of results,
and the errors of the common misuses word for word."""

import pytest

import gradtrack
from helpers import same


def _x(lib):
    return lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64)


SCENARIOS = {
    "grad": lambda lib: lib.func.grad(lambda x: (x ** 3).sum())(_x(lib)),
    "grad_nested": lambda lib: lib.func.grad(lib.func.grad(lambda x: x.sin()))(lib.tensor(0.3)),
    "grad_third_order": lambda lib: lib.func.grad(lib.func.grad(lib.func.grad(
        lambda x: x ** 4)))(lib.tensor(2.0)),
    "grad_argnums_tuple": lambda lib: lib.func.grad(lambda a, b: (a * b.exp()).sum(),
                                                    argnums=(0, 1))(_x(lib), _x(lib) + 1),
    "grad_argnums_negative": lambda lib: lib.func.grad(lambda a, b: (a * b).sum(),
                                                       argnums=-1)(_x(lib), _x(lib) + 1),
    "grad_dict": lambda lib: lib.func.grad(lambda d: (d["a"] * d["b"]).sum())(
        {"a": _x(lib), "b": _x(lib) * 2}),
    "grad_nested_containers": lambda lib: lib.func.grad(
        lambda p: (p[0] * p[1]["w"]).sum() + p[1]["v"][0].sum())(
        (_x(lib), {"w": _x(lib) + 1, "v": [_x(lib)]})),
    "grad_unused_input": lambda lib: lib.func.grad(lambda a, b: a.sum(), argnums=1)(_x(lib), _x(lib)),
    "grad_has_aux": lambda lib: lib.func.grad(lambda x: ((x ** 2).sum(), {"y": x * 3}),
                                              has_aux=True)(_x(lib)),
    "grad_kwargs": lambda lib: lib.func.grad(lambda x, scale=1.0: (x * scale).sum())(
        _x(lib), scale=lib.tensor(3.0, dtype=lib.float64)),
    "grad_and_value": lambda lib: lib.func.grad_and_value(lambda x: (x ** 2).sum())(_x(lib)),
    "grad_and_value_aux": lambda lib: lib.func.grad_and_value(
        lambda x: ((x ** 2).sum(), x * 3), has_aux=True)(_x(lib)),
    "grad_input_requires_grad": lambda lib: lib.func.grad(lambda x: (x ** 3).sum())(
        _x(lib).requires_grad_()),
    "grad_value_on_requires_grad": lambda lib: lib.func.grad_and_value(
        lambda x: (x ** 2).sum())(_x(lib).requires_grad_()),
    "grad_no_grad_mode": lambda lib: _under_no_grad(lib),
    "vjp": lambda lib: _vjp_twice(lib),
    "vjp_tuple_outputs": lambda lib: lib.func.vjp(lambda x: (x.sin(), x.cos().sum()), _x(lib))[1](
        (lib.ones(3, dtype=lib.float64), lib.tensor(2.0, dtype=lib.float64))),
    "vjp_has_aux": lambda lib: lib.func.vjp(lambda x: (x * 2, x.exp()), _x(lib), has_aux=True)[::2],
    "jacrev": lambda lib: lib.func.jacrev(lambda x: x.sin() * x.sum())(_x(lib)),
    "jacrev_matrix_input": lambda lib: lib.func.jacrev(lambda m: m @ m)(
        lib.tensor([[1.0, 2.0], [3.0, 4.0]])),
    "jacrev_tuple": lambda lib: lib.func.jacrev(lambda x, y: (x * y, x.sum()), argnums=(0, 1))(
        _x(lib), _x(lib) + 1),
    "jacrev_aux": lambda lib: lib.func.jacrev(lambda x: (x ** 2, x), has_aux=True)(_x(lib)),
    "jacrev_dict_input": lambda lib: lib.func.jacrev(lambda d: d["a"] * d["b"].sum())(
        {"a": _x(lib), "b": _x(lib)}),
    "jacrev_scalar_output": lambda lib: lib.func.jacrev(lambda x: (x ** 2).sum())(_x(lib)),
    "jacrev_transposed_output": lambda lib: lib.func.jacrev(lambda m: (m * 2).t())(
        lib.tensor([[1.0, 2.0, 3.0]])),
    "jacrev_empty_output": lambda lib: lib.func.jacrev(lambda x: x[:0] * 2)(_x(lib)),
    "hessian": lambda lib: lib.func.hessian(lambda x: (x ** 3).sum() * x[0])(_x(lib)),
    "hessian_argnums": lambda lib: lib.func.hessian(lambda x, y: (x ** 2 * y).sum(),
                                                    argnums=(0, 1))(_x(lib), _x(lib) + 1),
    # errors
    "grad_nonscalar": lambda lib: lib.func.grad(lambda x: x * 2)(_x(lib)),
    "grad_returns_float": lambda lib: lib.func.grad(lambda x: 2.0)(_x(lib)),
    "grad_float_input": lambda lib: lib.func.grad(lambda x: x)(2.0),
    "grad_integer_input": lambda lib: lib.func.grad(lambda x: x.sum())(lib.arange(3)),
    "grad_has_aux_not_pair": lambda lib: lib.func.grad(lambda x: x.sum(), has_aux=True)(_x(lib)),
    "grad_aux_not_tensor": lambda lib: lib.func.grad(lambda x: (x.sum(), {"a": 3}),
                                                     has_aux=True)(_x(lib)),
    "grad_argnum_out_of_range": lambda lib: lib.func.grad(lambda x: x.sum(), argnums=1)(_x(lib)),
    "grad_no_arguments": lambda lib: lib.func.grad(lambda: lib.ones(()))(),
    "grad_argnums_float": lambda lib: lib.func.grad(lambda x: x.sum(), argnums=1.0)(_x(lib)),
    "grad_argnums_list": lambda lib: lib.func.grad(lambda x: x.sum(), argnums=[0])(_x(lib)),
    "grad_argnums_empty": lambda lib: lib.func.grad(lambda x: x.sum(), argnums=())(_x(lib)),
    "grad_argnums_repeated": lambda lib: lib.func.grad(lambda a, b: (a * b).sum(),
                                                       argnums=(0, 0))(_x(lib), _x(lib)),
    "grad_argnums_tuple_of_str": lambda lib: lib.func.grad(lambda a: a.sum(),
                                                           argnums=("a",))(_x(lib)),
    "grad_not_callable": lambda lib: lib.func.grad(3)(_x(lib)),
    "vjp_cotangent_shape": lambda lib: lib.func.vjp(lambda x: x * 2, _x(lib))[1](
        lib.ones(4, dtype=lib.float64)),
    "vjp_cotangent_structure": lambda lib: lib.func.vjp(lambda x: (x * 2, x), _x(lib))[1](
        lib.ones(3, dtype=lib.float64)),
    "vjp_float_primal": lambda lib: lib.func.vjp(lambda x: x * 2, 2.0),
    "vjp_returns_float": lambda lib: lib.func.vjp(lambda x: 2.0, _x(lib)),
    "vjp_integer_output": lambda lib: lib.func.vjp(lambda x: (x > 0).long(), _x(lib)),
    "vjp_has_aux_not_pair": lambda lib: lib.func.vjp(lambda x: x * 2, _x(lib), has_aux=True),
    "jacrev_returns_float": lambda lib: lib.func.jacrev(lambda x: 2.0)(_x(lib)),
    "jacrev_chunk_size_zero": lambda lib: lib.func.jacrev(lambda x: x, chunk_size=0)(_x(lib)),
}


def _under_no_grad(lib):
    with lib.no_grad():
        return lib.func.grad(lambda x: (x ** 3).sum())(_x(lib))


def _vjp_twice(lib):
    out, fn = lib.func.vjp(lambda x, y: x * y.sin(), _x(lib), _x(lib) + 1)
    return out, fn(lib.ones(3, dtype=lib.float64)), fn(_x(lib))


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_matches_torch(name):
    same(SCENARIOS[name])


def _captured(lib):
    w = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    g = lib.func.grad(lambda x: (w * x ** 2).sum())(lib.tensor([1.0, 1.0, 2.0]))
    g.sum().backward()
    return g, w.grad


def test_a_captured_parameter_keeps_its_graph():
    # torch's result carries the graph to w (its gradient is 2 * x), and only an explicit
    # backward of that result reaches w.grad
    same(_captured)


def test_grad_never_writes_dot_grad():
    w = gradtrack.tensor([1.0, 2.0], requires_grad=True)
    x = gradtrack.tensor([3.0, 4.0], requires_grad=True)
    g = gradtrack.func.grad(lambda w, x: (w * x).sum())(w, x)
    assert g.tolist() == [3.0, 4.0]
    assert w.grad is None and x.grad is None


def test_grad_of_grad_through_an_outer_backward():
    # the gradient a transform returns for an input that requires grad is differentiable
    x = gradtrack.tensor([0.5, 1.5], requires_grad=True)
    g = gradtrack.func.grad(lambda x: (x ** 3).sum())(x)
    g.sum().backward()
    assert x.grad.tolist() == pytest.approx([3.0, 9.0])


def test_hessian_of_an_mlp_matches_torch(torch):
    import numpy as np
    rng = np.random.default_rng(0)
    w1, w2, x = rng.standard_normal((4, 3)), rng.standard_normal((1, 4)), rng.standard_normal(3)

    def run(lib):
        W1, W2 = lib.tensor(w1), lib.tensor(w2)
        return lib.func.hessian(lambda v: (W2 @ (W1 @ v).tanh()).sum())(lib.tensor(x)).numpy()
    np.testing.assert_allclose(run(gradtrack), run(torch), rtol=1e-10, atol=1e-12)


# Forward-over-reverse answered zeros with no error (the reverse transform detached the
# dual input and dropped its tangent); it is refused until the backward formulas carry
# tangents, and hessian gives the second derivatives.
@pytest.mark.parametrize("call", [
    lambda f, x: gradtrack.func.jacfwd(gradtrack.func.jacrev(f))(x),
    lambda f, x: gradtrack.func.jvp(gradtrack.func.grad(f), (x,), (gradtrack.ones(2),)),
])
def test_forward_over_reverse_is_refused_not_zero(call):
    with pytest.raises(NotImplementedError, match="forward-over-reverse"):
        call(lambda t: (t ** 3).sum(), gradtrack.tensor([1.0, 2.0]))
    h = gradtrack.func.hessian(lambda t: (t ** 3).sum())(gradtrack.tensor([1.0, 2.0]))
    assert h.tolist() == [[6.0, 0.0], [0.0, 12.0]]
