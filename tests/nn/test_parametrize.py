"""nn.utils.parametrize and parametrizations.weight_norm against torch: the layer computes
with the parametrized tensor, gradients reach the originals, state dicts, reprs, caching,
right_inverse on assignment, removal and messages are torch's."""

import numpy as np
import pytest

import gradtrack

torch = pytest.importorskip("torch")


def _symmetric(nn):
    class Symmetric(nn.Module):
        def forward(self, x):
            return x.triu() + x.triu(1).transpose(-1, -2)

        def right_inverse(self, a):
            return a.triu()

    return Symmetric()


def _scale(nn):
    class Scale(nn.Module):
        def forward(self, x):
            return x * 3

    return Scale()


def _pair(make):
    gradtrack.manual_seed(0)
    torch.manual_seed(0)
    return make(gradtrack.nn), make(torch.nn)


def _step(lib, layer, x):
    out = layer(lib.tensor(x))
    out.pow(2).sum().backward()
    return out.detach().numpy()


def _np(t):
    return t.detach().numpy()


def test_registered_parametrization_is_what_forward_computes_with():
    g, t = _pair(lambda nn: nn.Linear(3, 3))
    for lib, layer in ((gradtrack, g), (torch, t)):
        lib.nn.utils.parametrize.register_parametrization(layer, "weight", _symmetric(lib.nn))
        lib.nn.utils.parametrize.register_parametrization(layer, "weight", _scale(lib.nn))
    assert repr(g) == repr(t)
    assert type(g).__name__ == "ParametrizedLinear"
    assert list(g.state_dict()) == list(t.state_dict())
    x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    np.testing.assert_allclose(_step(gradtrack, g, x), _step(torch, t, x), rtol=1e-5, atol=1e-6)
    for (name, gp), (_, tp) in zip(g.named_parameters(), t.named_parameters()):
        np.testing.assert_allclose(_np(gp.grad), _np(tp.grad), rtol=1e-5, atol=1e-5,
                                   err_msg=name)
    assert type(g.weight.grad_fn).__name__ == type(t.weight.grad_fn).__name__


def test_weight_norm_values_nodes_state_and_training_match_torch():
    g, t = _pair(lambda nn: nn.Conv1d(2, 3, 3))
    for lib, layer in ((gradtrack, g), (torch, t)):
        lib.nn.utils.parametrizations.weight_norm(layer)
    assert repr(g) == repr(t)
    g_state, t_state = g.state_dict(), t.state_dict()
    assert list(g_state) == list(t_state)
    for key in t_state:
        np.testing.assert_allclose(_np(g_state[key]), _np(t_state[key]), rtol=1e-6, err_msg=key)
    assert type(g.weight.grad_fn).__name__ == type(t.weight.grad_fn).__name__ \
        == "WeightNormInterfaceBackward0"
    x = np.random.default_rng(1).standard_normal((2, 2, 7)).astype(np.float32)
    opts = [lib.optim.SGD(layer.parameters(), lr=0.1) for lib, layer in ((gradtrack, g),
                                                                          (torch, t))]
    for _ in range(3):
        for opt in opts:
            opt.zero_grad()
        outs = [_step(gradtrack, g, x), _step(torch, t, x)]
        np.testing.assert_allclose(outs[0], outs[1], rtol=1e-4, atol=1e-5)
        for opt in opts:
            opt.step()
    np.testing.assert_allclose(_np(g.weight), _np(t.weight), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_dims(dim):
    g, t = _pair(lambda nn: nn.Linear(4, 3))
    for lib, layer in ((gradtrack, g), (torch, t)):
        lib.nn.utils.parametrizations.weight_norm(layer, dim=dim)
    for key, value in t.state_dict().items():
        np.testing.assert_allclose(_np(g.state_dict()[key]), _np(value), rtol=1e-6)
    x = np.random.default_rng(2).standard_normal((2, 4)).astype(np.float32)
    np.testing.assert_allclose(_step(gradtrack, g, x), _step(torch, t, x), rtol=1e-5, atol=1e-6)
    g_grads = [_np(p.grad) for p in g.parameters()]
    t_grads = [_np(p.grad) for p in t.parameters()]
    for a, b in zip(g_grads, t_grads):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_assignment_calls_right_inverse_and_cached_computes_once():
    layer = gradtrack.nn.Linear(3, 3)
    gradtrack.nn.utils.parametrize.register_parametrization(layer, "weight",
                                                            _symmetric(gradtrack.nn))
    a = gradtrack.arange(9.0).reshape(3, 3)
    layer.weight = a
    np.testing.assert_array_equal(_np(layer.parametrizations.weight.original), _np(a.triu()))
    assert layer.weight is not layer.weight
    with gradtrack.nn.utils.parametrize.cached():
        assert layer.weight is layer.weight
    assert layer.weight is not layer.weight


@pytest.mark.parametrize("leave", [True, False])
def test_remove_parametrizations_restores_the_class_and_a_parameter(leave):
    g, t = _pair(lambda nn: nn.Linear(3, 3))
    results = []
    for lib, layer in ((gradtrack, g), (torch, t)):
        parametrize = lib.nn.utils.parametrize
        parametrize.register_parametrization(layer, "weight", _symmetric(lib.nn))
        assert parametrize.is_parametrized(layer) and parametrize.is_parametrized(layer,
                                                                                  "weight")
        assert parametrize.type_before_parametrizations(layer) is lib.nn.Linear
        parametrize.remove_parametrizations(layer, "weight", leave_parametrized=leave)
        assert type(layer) is lib.nn.Linear
        assert not hasattr(layer, "parametrizations")
        assert isinstance(layer.weight, lib.nn.Parameter)
        results.append(_np(layer.weight))
    np.testing.assert_allclose(results[0], results[1], rtol=1e-6)


def _message(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - compared with torch's
        return type(e).__name__, str(e).replace("torch.", "LIB.").replace("gradtrack.", "LIB.")
    return None


def test_messages_match_torch():
    def cases(lib):
        nn = lib.nn
        parametrize = nn.utils.parametrize

        class Shrink(nn.Module):
            def forward(self, x):
                return x[:2]

        class ToDouble(nn.Module):
            def forward(self, x):
                return x.double()

        return [
            lambda: parametrize.register_parametrization(nn.Linear(3, 3), "bias", Shrink()),
            lambda: parametrize.register_parametrization(nn.Linear(2, 2), "weight", ToDouble()),
            lambda: parametrize.register_parametrization(nn.Linear(2, 2), "foo", Shrink()),
            lambda: parametrize.remove_parametrizations(nn.Linear(2, 2), "weight"),
        ]
    for mine, theirs in zip(cases(gradtrack), cases(torch)):
        assert _message(mine) == _message(theirs)
