"""rrelu and gumbel_softmax draw torch's random stream: the same seed gives the same
values and gradients in both libraries, training and in place included."""

import numpy as np
import pytest

import gradtrack

torch = pytest.importorskip("torch")


def _pair(values, dtype="float64"):
    return (gradtrack.tensor(np.array(values), dtype=getattr(gradtrack, dtype)),
            torch.tensor(np.array(values), dtype=getattr(torch, dtype)))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rrelu_training_draws_match_torch(dtype):
    values = np.random.default_rng(3).uniform(-2, 2, size=(4, 7))
    values[0, 0], values[1, 1] = 0.0, np.nan
    g, t = _pair(values, dtype)
    g.requires_grad_()
    t.requires_grad_()
    gradtrack.manual_seed(11)
    torch.manual_seed(11)
    out_g = gradtrack.nn.functional.rrelu(g, 0.1, 0.6, training=True)
    out_t = torch.nn.functional.rrelu(t, 0.1, 0.6, training=True)
    np.testing.assert_array_equal(out_g.detach().numpy(), out_t.detach().numpy())
    assert out_g.grad_fn.name() == out_t.grad_fn.name() == "RreluWithNoiseBackward0"
    out_g.sum().backward()
    out_t.sum().backward()
    np.testing.assert_array_equal(g.grad.numpy(), t.grad.numpy())
    # the stream moved by the same draws
    np.testing.assert_array_equal(gradtrack.rand(3).numpy(), torch.rand(3).numpy())


def test_rrelu_in_place_and_module_match_torch():
    values = np.random.default_rng(4).uniform(-2, 2, size=(3, 5))
    results = []
    for lib in (gradtrack, torch):
        lib.manual_seed(2)
        x = lib.tensor(values, requires_grad=True)
        y = x.clone()
        out = lib.nn.functional.rrelu(y, training=True, inplace=True)
        assert out is y
        out.backward(lib.ones_like(out))
        m = lib.nn.RReLU(0.2, 0.5)
        z = m(lib.tensor(values))
        results.append((out.grad_fn.name(), y._version, out.detach().numpy(),
                        x.grad.numpy(), z.numpy(), repr(m)))
    assert results[0][:2] == results[1][:2]
    assert results[0][0] == "RreluWithNoiseBackward1"
    for a, b in zip(results[0][2:5], results[1][2:5]):
        np.testing.assert_array_equal(a, b)
    assert results[0][5] == results[1][5] == "RReLU(lower=0.2, upper=0.5)"


def test_rrelu_errors_match_torch():
    for lib in (gradtrack, torch):
        with pytest.raises(RuntimeError, match="Lower bound should be less than or equal to the "
                                               "upper bound"):
            lib.nn.functional.rrelu(lib.ones(2), 0.5, 0.2, training=True)
        with pytest.raises(NotImplementedError,
                           match="\"rrelu_with_noise_out_cpu\" not implemented for 'Long'"):
            lib.nn.functional.rrelu(lib.tensor([1, 2]), training=True)


@pytest.mark.parametrize("hard", [False, True])
def test_gumbel_softmax_matches_torch(hard):
    logits = np.random.default_rng(5).standard_normal((3, 6))
    results = []
    for lib in (gradtrack, torch):
        lib.manual_seed(8)
        x = lib.tensor(logits, requires_grad=True)
        y = lib.nn.functional.gumbel_softmax(x, tau=0.7, hard=hard)
        (y * lib.arange(6.0, dtype=y.dtype)).sum().backward()
        results.append((y.detach().numpy(), x.grad.numpy(), y.grad_fn.name()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-10, atol=1e-12)
    assert results[0][2] == results[1][2]
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated"):
        gradtrack.nn.functional.gumbel_softmax(gradtrack.zeros(2, 3), eps=1e-5)
