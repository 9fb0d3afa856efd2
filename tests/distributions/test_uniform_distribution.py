"""Uniform against torch.distributions.Uniform: values, gradients, seeded draws,
the bounds' mutual constraints and their messages."""

import pytest
from dist_parity import agree, grads, seeded

import gradtrack

LOW = [[0.0, -1.5, 2.0], [0.5, -3.0, 0.25]]
HIGH = [1.0, 0.5, 7.0]
VALUE = [[0.5, -1.5, 6.9], [1.25, 0.25, 7.0]]


def _params(lib, dtype="float32"):
    dt = getattr(lib, dtype)
    return (lib.tensor(LOW, dtype=dt, requires_grad=True),
            lib.tensor(HIGH, dtype=dt, requires_grad=True))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_properties_values_and_gradients(torch, dtype):
    def scenario(lib):
        low, high = _params(lib, dtype)
        d = lib.distributions.Uniform(low, high, validate_args=False)
        value = lib.tensor(VALUE, dtype=getattr(lib, dtype), requires_grad=True)
        out = [d.batch_shape, d.event_shape, repr(d), d.mean, d.mode, d.stddev, d.variance,
               repr(d.support), repr(d.arg_constraints), d.has_rsample]
        for r in (d.log_prob(value), d.cdf(value), d.icdf(value.clamp(0, 1)), d.entropy(),
                  d.perplexity()):
            out += [r, grads(lib, r, [low, high, value])]
        return out
    agree(scenario)


@pytest.mark.parametrize("shape", [(), (3,), (2, 2)])
def test_seeded_rsample_sample_and_gradient(torch, shape):
    def scenario(lib):
        low, high = _params(lib)
        d = lib.distributions.Uniform(low, high)
        x = d.rsample(shape)
        return [x, grads(lib, x, [low, high]), d.sample(shape),
                lib.distributions.Uniform(0.0, 2.0).sample(shape), lib.rand(1)]
    agree(seeded(scenario, 2))


def test_expand_and_numbers(torch):
    def scenario(lib):
        d = lib.distributions.Uniform(-1.0, 1).expand([2, 3])
        return [d.batch_shape, d.low, d.high, repr(d), d.log_prob(lib.zeros(3)), d.entropy()]
    agree(scenario)


@pytest.mark.parametrize("low, high", [(1.0, 0.0), ([0.0, 1.0], [1.0, 1.0]),
                                       ([0.0, float("nan")], [1.0, 2.0]), (0.0, 0.0)])
def test_bad_bounds_raise_torchs_error(torch, low, high):
    def scenario(lib):
        def as_t(v):
            return lib.tensor(v) if isinstance(v, list) else v
        return repr(lib.distributions.Uniform(as_t(low), as_t(high)))
    agree(scenario, raises=True)


def test_values_outside_the_support_raise(torch):
    def scenario(lib):
        d = lib.distributions.Uniform(lib.zeros(2), lib.ones(2))
        return [d.cdf(lib.tensor([0.5, 1.5]))]
    agree(scenario, raises=True)


def test_gradcheck_log_prob_cdf_and_rsample_in_float64():
    Uniform = gradtrack.distributions.Uniform
    low = gradtrack.tensor([0.0, -2.0], dtype=gradtrack.float64, requires_grad=True)
    high = gradtrack.tensor([1.5, 3.0], dtype=gradtrack.float64, requires_grad=True)
    value = gradtrack.tensor([0.7, 1.0], dtype=gradtrack.float64, requires_grad=True)
    assert gradtrack.autograd.gradcheck(lambda a, b, v: Uniform(a, b).log_prob(v), (low, high, value))
    assert gradtrack.autograd.gradcheck(lambda a, b, v: Uniform(a, b).cdf(v), (low, high, value))

    def rsample(a, b):
        gradtrack.manual_seed(1)
        return Uniform(a, b).rsample((2,))
    assert gradtrack.autograd.gradcheck(rsample, (low, high))
