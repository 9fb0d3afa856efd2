"""The hook-based nn.utils.weight_norm and nn.utils.stateless.functional_call against
torch: parameters, values, gradients, warnings and messages."""

import warnings

import numpy as np
import pytest

import gradtrack

torch = pytest.importorskip("torch")


def _quiet(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()


def test_legacy_weight_norm_matches_torch_and_warns():
    results = []
    x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    for lib in (gradtrack, torch):
        lib.manual_seed(0)
        layer = lib.nn.Linear(3, 2)
        with pytest.warns(FutureWarning, match="is deprecated in favor of"):
            lib.nn.utils.weight_norm(layer)
        out = layer(lib.tensor(x))
        out.sum().backward()
        names = [n for n, _ in layer.named_parameters()]
        grads = [p.grad.numpy().copy() for p in layer.parameters()]
        with pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks on the "
                                               "same parameter weight"):
            _quiet(lambda: lib.nn.utils.weight_norm(layer))
        lib.nn.utils.remove_weight_norm(layer)
        with pytest.raises(ValueError, match="weight_norm of 'weight' not found in Linear"):
            lib.nn.utils.remove_weight_norm(layer)
        results.append((out.detach().numpy(), names, grads, type(out.grad_fn).__name__,
                        [n for n, _ in layer.named_parameters()], layer.weight.detach().numpy()))
    mine, theirs = results
    np.testing.assert_allclose(mine[0], theirs[0], rtol=1e-5, atol=1e-6)
    assert mine[1] == theirs[1] and mine[3] == theirs[3] and mine[4] == theirs[4]
    for a, b in zip(mine[2], theirs[2]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mine[5], theirs[5], rtol=1e-6)


def test_functional_call_swaps_for_one_call_and_ties_weights():
    results = []
    rng = np.random.default_rng(1)
    w, x = rng.standard_normal((3, 3)), rng.standard_normal((2, 3))
    for lib in (gradtrack, torch):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(3, 3), lib.nn.Tanh(), lib.nn.Linear(3, 3))
        model[2].weight = model[0].weight  # tied
        before = model[0].weight.detach().numpy().copy()
        weight = lib.tensor(w, dtype=lib.float32, requires_grad=True)
        with pytest.warns(FutureWarning, match="stateless.functional_call"):
            out = lib.nn.utils.stateless.functional_call(model, {"0.weight": weight},
                                                         (lib.tensor(x, dtype=lib.float32),))
        (grad,) = lib.autograd.grad(out.sum(), weight)
        untied = _quiet(lambda: lib.nn.utils.stateless.functional_call(
            model, {"0.weight": weight}, lib.tensor(x, dtype=lib.float32), tie_weights=False))
        assert np.array_equal(model[0].weight.detach().numpy(), before)
        assert model[2].weight is model[0].weight
        results.append((out.detach().numpy(), grad.numpy(), untied.detach().numpy()))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_functional_call_strict_reports_missing_and_unexpected_keys():
    for lib in (gradtrack, torch):
        with pytest.raises(RuntimeError) as info:
            _quiet(lambda: lib.nn.utils.stateless.functional_call(
                lib.nn.Linear(2, 1), {"weight": lib.ones(1, 2), "extra": lib.ones(1)},
                lib.ones(1, 2), strict=True))
        assert "Unexpected key(s): 'extra'." in str(info.value)
        assert "Missing key(s): 'bias'." in str(info.value)
