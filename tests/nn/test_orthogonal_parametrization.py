"""nn.utils.parametrizations.orthogonal against torch: every orthogonal_map on square,
tall, wide and batched weights, with and without trivialization; the weight at
registration, after assignment and after optimizer steps (gradients through each map),
the state-dict keys, and the errors."""

import numpy as np
import pytest

import gradtrack

from helpers import error_of

torch = pytest.importorskip("torch")


def _train(lib, make, orthogonal_map, use_trivialization, steps=3):
    lib.manual_seed(0)
    module = make(lib).double()
    lib.nn.utils.parametrizations.orthogonal(module, orthogonal_map=orthogonal_map,
                                             use_trivialization=use_trivialization)
    start = module.weight.detach().numpy().copy()
    opt = lib.optim.SGD(module.parameters(), lr=0.3)
    shape = tuple(module.weight.shape)
    x = lib.tensor(np.linspace(-1, 1, 2 * shape[1]).reshape(2, shape[1]))
    for _ in range(steps):
        opt.zero_grad()
        module(x).pow(3).sum().backward()
        opt.step()
    return start, module.weight.detach().numpy(), list(module.state_dict())


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5)])
@pytest.mark.parametrize("orthogonal_map,use_trivialization", [
    (None, True), ("matrix_exp", True), ("cayley", True), ("householder", True),
    ("householder", False),
])
def test_orthogonal_matches_torch(shape, orthogonal_map, use_trivialization):
    def make(lib):
        return lib.nn.Linear(shape[1], shape[0])

    t = _train(torch, make, orthogonal_map, use_trivialization)
    g = _train(gradtrack, make, orthogonal_map, use_trivialization)
    np.testing.assert_allclose(g[0], t[0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(g[1], t[1], rtol=1e-9, atol=1e-10)
    assert g[2] == t[2]
    w = g[1]
    gram = w @ w.T if shape[0] <= shape[1] else w.T @ w
    np.testing.assert_allclose(gram, np.eye(min(shape)), atol=1e-10)


def test_batched_weight_and_assignment_match_torch():
    results = []
    for lib in (torch, gradtrack):
        lib.manual_seed(1)
        holder = lib.nn.Module()
        holder.weight = lib.nn.Parameter(lib.randn(2, 3, 3, dtype=lib.float64))
        lib.nn.utils.parametrizations.orthogonal(holder)
        before = holder.weight.detach().numpy().copy()
        with lib.no_grad():
            holder.weight = lib.randn(2, 3, 3, dtype=lib.float64)
        results.append((before, holder.weight.detach().numpy(),
                        holder.weight.grad_fn.name()))
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-10, atol=1e-12)
    assert results[1][2] == results[0][2]


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(2, 2), name="w"),
    lambda lib: lib.nn.utils.parametrizations.orthogonal(lib.nn.LayerNorm(3)),
    lambda lib: lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(2, 2),
                                                         orthogonal_map="qr"),
    lambda lib: setattr(lib.nn.utils.parametrizations.orthogonal(
        lib.nn.Linear(2, 2), use_trivialization=False), "weight", lib.eye(2)),
])
def test_orthogonal_errors_as_torch(call):
    assert error_of(lambda: call(gradtrack)) == error_of(lambda: call(torch))


def test_wrong_shape_assignment_as_torch():
    for lib in (torch, gradtrack):
        layer = lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(3, 2))
        with pytest.raises(ValueError) as err:
            layer.weight = lib.ones(3, 3)
        assert str(err.value) == (f"Expected a matrix or batch of matrices of shape "
                                  f"{lib.__name__}.Size([2, 3]). Got a tensor of shape "
                                  f"{lib.__name__}.Size([3, 3]).")
