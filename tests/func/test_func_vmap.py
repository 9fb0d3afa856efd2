"""gradtrack.func.vmap against torch.func.vmap 2.13: in_dims / out_dims (ints, None,
negative, pytrees), nesting, kwargs, chunk_size, the randomness modes, the
per-sample-gradient idiom, and the errors of the common misuses word for word."""

import numpy as np
import pytest

import gradtrack
from helpers import same


def _m(lib):
    return lib.arange(6.0, dtype=lib.float64).reshape(2, 3)


def _rand_after_seed(lib, randomness, fn):
    lib.manual_seed(0)
    out = lib.func.vmap(fn, randomness=randomness)(lib.ones(3, 4))
    return out, lib.rand(2)  # where the generator was left


SCENARIOS = {
    "sum": lambda lib: lib.func.vmap(lib.sum)(_m(lib)),
    "in_dim_1": lambda lib: lib.func.vmap(lambda a: a * 2, in_dims=1)(_m(lib)),
    "in_dim_negative": lambda lib: lib.func.vmap(lambda a: a.sum(), in_dims=-1)(_m(lib)),
    "in_dims_none": lambda lib: lib.func.vmap(lambda a, b: a + b, in_dims=(0, None))(
        _m(lib), lib.ones(3, dtype=lib.float64)),
    "out_dims_1": lambda lib: lib.func.vmap(lambda a: a * 2, out_dims=1)(_m(lib)),
    "out_dims_negative": lambda lib: lib.func.vmap(lambda a: a * 2, out_dims=-1)(_m(lib)),
    "out_dims_tuple": lambda lib: lib.func.vmap(lambda a: (a, a.sum()), out_dims=(1, 0))(_m(lib)),
    "out_dims_none": lambda lib: lib.func.vmap(lambda a, b: (a * 2, b), in_dims=(0, None),
                                               out_dims=(0, None))(_m(lib), lib.ones(2)),
    "unbatched_output": lambda lib: lib.func.vmap(lambda a: lib.ones(2))(_m(lib)),
    "tuple_output": lambda lib: lib.func.vmap(lambda a: (a.max(), a.min()))(_m(lib)),
    "dict_output": lambda lib: lib.func.vmap(lambda a: {"s": a.sum(), "p": a.prod()})(_m(lib)),
    "dict_input": lambda lib: lib.func.vmap(lambda d: d["a"] * d["b"],
                                            in_dims=({"a": 0, "b": None},))(
        {"a": _m(lib), "b": lib.ones(1, dtype=lib.float64)}),
    "kwargs_unbatched": lambda lib: lib.func.vmap(lambda a, b=None: a + b)(
        _m(lib), b=lib.ones(3, dtype=lib.float64)),
    "nested": lambda lib: lib.func.vmap(lib.func.vmap(lambda a, b: a * b))(
        _m(lib), _m(lib) + 1),
    "nested_outer_product": lambda lib: lib.func.vmap(lib.func.vmap(lib.outer, in_dims=(0, None)),
                                                      in_dims=(None, 0))(_m(lib), _m(lib)),
    "matrix_vector": lambda lib: lib.func.vmap(lib.mv, in_dims=(None, 0))(_m(lib), _m(lib)),
    "chunk_size": lambda lib: lib.func.vmap(lambda a: a.exp(), chunk_size=1)(_m(lib)),
    "gradient_through_vmap": lambda lib: _grad_through(lib),
    "inplace_on_sample": lambda lib: _inplace(lib),
    "empty_batch": lambda lib: lib.func.vmap(lambda a: a * 2)(lib.ones(0, 3)),
    "randomness_different": lambda lib: _rand_after_seed(lib, "different", lambda a: lib.rand(3)),
    "randomness_same": lambda lib: _rand_after_seed(lib, "same", lambda a: a * lib.rand(4)),
    "randomness_dropout": lambda lib: _rand_after_seed(
        lib, "different", lambda a: lib.nn.functional.dropout(a, 0.5)),
    # compositions with the other transforms
    "vmap_jacrev": lambda lib: lib.func.vmap(lib.func.jacrev(lambda x: x.sin() * x.sum()))(_m(lib)),
    "vmap_hessian": lambda lib: lib.func.vmap(lib.func.hessian(lambda x: (x ** 3).sum()))(_m(lib)),
    "vmap_jacfwd": lambda lib: lib.func.vmap(lib.func.jacfwd(lambda x: x.exp()))(_m(lib)),
    "vmap_vjp": lambda lib: lib.func.vmap(
        lambda x, c: lib.func.vjp(lambda v: v.sin(), x)[1](c))(_m(lib), _m(lib)),
    "vmap_jvp": lambda lib: lib.func.vmap(
        lambda x, t: lib.func.jvp(lambda v: v.sin(), (x,), (t,)))(_m(lib), _m(lib)),
    "vmap_grad_and_value_aux": lambda lib: lib.func.vmap(lib.func.grad_and_value(
        lambda x: ((x ** 2).sum(), x.mean()), has_aux=True))(_m(lib)),
    "vmap_vmap_grad": lambda lib: lib.func.vmap(lib.func.vmap(lib.func.grad(lambda x: x.sin())))(
        _m(lib)),
    "grad_of_vmap": lambda lib: lib.func.grad(
        lambda w: lib.func.vmap(lambda r: (r * w).sum().tanh())(_m(lib)).sum())(_m(lib)[0]),
    "jacrev_of_vmap": lambda lib: lib.func.jacrev(
        lambda w: lib.func.vmap(lambda r: (r * w).sum())(_m(lib)))(_m(lib)[0]),
    "in_dims_nested_tuple": lambda lib: lib.func.vmap(lambda p: p[0] * p[1], in_dims=((0, None),))(
        (_m(lib), _m(lib)[0])),
    # errors
    "random_in_error_mode": lambda lib: lib.func.vmap(lambda a: a + lib.rand(()))(_m(lib)),
    "dropout_in_error_mode": lambda lib: lib.func.vmap(
        lambda a: lib.nn.functional.dropout(a, 0.5))(_m(lib)),
    "randomness_unknown": lambda lib: lib.func.vmap(lambda a: a, randomness="x")(_m(lib)),
    "in_dims_too_short": lambda lib: lib.func.vmap(lambda a, b: a + b, in_dims=(0,))(
        _m(lib), _m(lib)),
    "in_dims_string": lambda lib: lib.func.vmap(lambda a: a, in_dims="a")(_m(lib)),
    "in_dims_list": lambda lib: lib.func.vmap(lambda a: a, in_dims=[0])(_m(lib)),
    "in_dims_none_everywhere": lambda lib: lib.func.vmap(lambda a: a, in_dims=(None,))(_m(lib)),
    "in_dims_top_none": lambda lib: lib.func.vmap(lambda a: a, in_dims=None)(_m(lib)),
    "in_dim_float": lambda lib: lib.func.vmap(lambda a: a, in_dims=(0.5,))(_m(lib)),
    "in_dim_out_of_range": lambda lib: lib.func.vmap(lambda a: a, in_dims=2)(_m(lib)),
    "in_dim_scalar_tensor": lambda lib: lib.func.vmap(lambda a: a)(lib.tensor(1.0)),
    "in_dim_on_a_number": lambda lib: lib.func.vmap(lambda a, b: a, in_dims=(0, 0))(_m(lib), 2.0),
    "batch_sizes_differ": lambda lib: lib.func.vmap(lambda a, b: a)(_m(lib), lib.ones(3)),
    "dict_in_dims_other_keys": lambda lib: lib.func.vmap(lambda d: d["a"],
                                                         in_dims=({"a": 0, "c": None},))(
        {"a": _m(lib), "b": lib.ones(1)}),
    "no_inputs": lambda lib: lib.func.vmap(lambda: lib.ones(1))(),
    "returns_float": lambda lib: lib.func.vmap(lambda a: 1.0)(_m(lib)),
    "returns_none": lambda lib: lib.func.vmap(lambda a: None)(_m(lib)),
    "out_dims_too_short": lambda lib: lib.func.vmap(lambda a: (a, a), out_dims=(0,))(_m(lib)),
    "out_dims_string": lambda lib: lib.func.vmap(lambda a: a, out_dims="a")(_m(lib)),
    "out_dim_out_of_range": lambda lib: lib.func.vmap(lambda a: a.sum(), out_dims=2)(_m(lib)),
    "out_dims_none_batched": lambda lib: lib.func.vmap(lambda a: a, out_dims=None)(_m(lib)),
    "chunk_size_zero": lambda lib: lib.func.vmap(lambda a: a, chunk_size=0)(_m(lib)),
    "not_callable": lambda lib: lib.func.vmap(3)(_m(lib)),
}


def _grad_through(lib):
    x = _m(lib).requires_grad_()
    lib.func.vmap(lambda a: (a ** 2).sum())(x).sum().backward()
    return x.grad


def _inplace(lib):
    x = _m(lib)
    lib.func.vmap(lambda a: a.mul_(2))(x)
    return x


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_matches_torch(name):
    same(SCENARIOS[name])


def _mlp_per_sample_grads(lib, leak_check=False):
    """torch.func's per-sample-gradient tutorial: a 2-layer MLP and cross entropy."""
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(5, 8), lib.nn.ReLU(), lib.nn.Linear(8, 3))
    x, y = lib.randn(16, 5), lib.randint(0, 3, (16,))
    params = {k: v.detach() for k, v in model.named_parameters()}
    if leak_check:
        params = dict(model.named_parameters())

    def loss(p, xi, yi):
        out = lib.func.functional_call(model, p, (xi.unsqueeze(0),))
        return lib.nn.functional.cross_entropy(out, yi.unsqueeze(0))
    grads = lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0, 0))(params, x, y)
    return grads, [p.grad for p in model.parameters()]


def test_per_sample_gradients_of_an_mlp_match_torch(torch):
    ours, _ = _mlp_per_sample_grads(gradtrack)
    theirs, _ = _mlp_per_sample_grads(torch)
    assert list(ours) == list(theirs)
    for k in theirs:
        assert list(ours[k].shape) == list(theirs[k].shape)
        np.testing.assert_allclose(ours[k].numpy(), theirs[k].numpy(), rtol=1e-5, atol=1e-6)


def test_per_sample_gradients_equal_one_backward_per_sample():
    grads, _ = _mlp_per_sample_grads(gradtrack)
    gradtrack.manual_seed(0)
    model = gradtrack.nn.Sequential(gradtrack.nn.Linear(5, 8), gradtrack.nn.ReLU(),
                                    gradtrack.nn.Linear(8, 3))
    x, y = gradtrack.randn(16, 5), gradtrack.randint(0, 3, (16,))
    for i in (0, 7, 15):
        model.zero_grad()
        gradtrack.nn.functional.cross_entropy(model(x[i:i + 1]), y[i:i + 1]).backward()
        np.testing.assert_allclose(grads["0.weight"][i].numpy(), model[0].weight.grad.numpy(),
                                   rtol=1e-6, atol=1e-7)


def test_grad_inside_vmap_leaves_the_parameters_grad_alone(torch):
    for lib in (gradtrack, torch):
        grads, dot_grads = _mlp_per_sample_grads(lib, leak_check=True)
        assert dot_grads == [None] * 4
        assert grads["2.bias"].shape[0] == 16


def test_ensemble_with_stack_module_state_matches_torch(torch):
    def run(lib):
        lib.manual_seed(0)
        models = [lib.nn.Linear(3, 2) for _ in range(4)]
        params, buffers = lib.func.stack_module_state(models)
        base = models[0]
        x = lib.randn(5, 3)
        out = lib.func.vmap(lambda p, b, x: lib.func.functional_call(base, (p, b), (x,)),
                            in_dims=(0, 0, None))(params, buffers, x)
        return out.detach().numpy(), params["weight"].requires_grad
    (ours, rg), (theirs, rg_t) = run(gradtrack), run(torch)
    assert rg == rg_t
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-7)
