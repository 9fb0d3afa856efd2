"""Spectral normalization against PyTorch 2.13, in both forms:
``nn.utils.parametrizations.spectral_norm`` and the legacy hook-based
``nn.utils.spectral_norm`` / ``remove_spectral_norm``. Same seed, same layer:
the power-iteration vectors, the normalized weights, the outputs over several
training steps, the gradients, the state-dict keys and the messages match."""

import numpy as np
import pytest

import gradtrack

from helpers import same


def _close(a, b, tol=1e-5):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


def _layer(lib, kind):
    lib.manual_seed(0)
    if kind == "linear":
        return lib.nn.Linear(4, 3), lib.ones(2, 4)
    if kind == "conv":
        return lib.nn.Conv2d(2, 3, 3), lib.ones(1, 2, 4, 4)
    return lib.nn.ConvTranspose2d(2, 3, 3), lib.ones(1, 2, 3, 3)


def _run(lib, kind, legacy, steps=3):
    layer, x = _layer(lib, kind)
    if legacy:
        lib.nn.utils.spectral_norm(layer, n_power_iterations=2)
    else:
        lib.nn.utils.parametrizations.spectral_norm(layer, n_power_iterations=2)
    outs = []
    for _ in range(steps):
        out = layer(x * 0.5)
        (out ** 2).sum().backward()
        outs.append(out.detach().clone())
    layer.eval()
    outs.append(layer(x).detach().clone())
    state = layer.state_dict()
    if legacy:
        grad = layer.weight_orig.grad
    else:
        grad = layer.parametrizations.weight.original.grad
    return outs, state, grad


@pytest.mark.parametrize("kind", ["linear", "conv", "transposed"])
@pytest.mark.parametrize("legacy", [False, True], ids=["parametrization", "legacy"])
def test_matches_torch(torch, kind, legacy):
    outs, state, grad = _run(gradtrack, kind, legacy)
    touts, tstate, tgrad = _run(torch, kind, legacy)
    for a, b in zip(outs, touts):
        _close(a, b)
    assert list(state) == list(tstate)
    for key in tstate:
        _close(state[key], tstate[key])
    _close(grad, tgrad, 1e-4)


def test_legacy_metadata_version_and_remove():
    def scenario(lib):
        layer, x = _layer(lib, "linear")
        lib.nn.utils.spectral_norm(layer)
        meta = dict(layer.state_dict()._metadata[""])
        lib.nn.utils.remove_spectral_norm(layer)
        return meta, list(layer.state_dict()), type(layer.weight).__name__

    same(scenario)


def test_legacy_load_restores_u_and_v():
    def scenario(lib):
        a, x = _layer(lib, "linear")
        lib.nn.utils.spectral_norm(a)
        a(x)
        b, _ = _layer(lib, "linear")
        lib.nn.utils.spectral_norm(b)
        result = b.load_state_dict(a.state_dict())
        return repr(result), b.weight_u, b.eval()(x)

    same(scenario)


def test_legacy_errors():
    def scenario(lib):
        out = []
        layer, _ = _layer(lib, "linear")
        lib.nn.utils.spectral_norm(layer)
        for fn in (lambda: lib.nn.utils.spectral_norm(layer),
                   lambda: lib.nn.utils.remove_spectral_norm(layer, "bias"),
                   lambda: lib.nn.utils.spectral_norm(lib.nn.Linear(2, 2), n_power_iterations=0),
                   lambda: lib.nn.utils.spectral_norm(lib.nn.Linear(2, 2, bias=False), "bias")):
            try:
                fn()
            except (RuntimeError, ValueError) as e:
                out.append((type(e).__name__, str(e)))
        return out

    same(scenario)


@pytest.mark.parametrize("call", [
    "spectral_norm(lib.nn.Linear(2, 2), n_power_iterations=0)",
    "spectral_norm(lib.nn.Linear(2, 2), dim=2)",
    "spectral_norm(lib.nn.Linear(2, 2), name='nope')",
])
def test_parametrization_errors(call):
    def scenario(lib):
        eval("lib.nn.utils.parametrizations." + call, {"lib": lib})

    same(scenario)


def test_parametrization_of_a_vector_normalizes_it():
    def scenario(lib):
        layer, x = _layer(lib, "linear")
        lib.nn.utils.parametrizations.spectral_norm(layer, "bias")
        return layer.bias, layer(x)

    same(scenario)
