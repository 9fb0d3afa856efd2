"""Bernoulli against torch.distributions.Bernoulli: given by probs or by logits,
values, gradients, seeded draws, enumeration, reprs and argument errors."""

import pytest
from dist_parity import agree, grads, seeded

import gradtrack

PROBS = [[0.1, 0.5, 0.0], [0.75, 1.0, 0.3]]
LOGITS = [[-2.0, 0.0, 3.5], [0.25, -0.5, 8.0]]
VALUE = [[1.0, 0.0, 0.0], [1.0, 1.0, 0.0]]
# From logits, probs go through sigmoid or softmax (and log_prob, entropy through
# softplus or logsumexp), whose kernels may round differently from torch's in the last
# bit; from probs, everything is bit for bit.
_ROUNDED = {"float32": 1e-6, "float64": 1e-14}


def _dist(lib, by, dtype="float32"):
    dt = getattr(lib, dtype)
    param = lib.tensor(PROBS if by == "probs" else LOGITS, dtype=dt, requires_grad=True)
    return lib.distributions.Bernoulli(**{by: param}), param


@pytest.mark.parametrize("by", ["probs", "logits"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_properties_values_and_gradients(torch, by, dtype):
    def scenario(lib):
        d, param = _dist(lib, by, dtype)
        value = lib.tensor(VALUE, dtype=getattr(lib, dtype))
        out = [d.batch_shape, d.event_shape, d.param_shape, repr(d), d.probs, d.logits,
               d.mean, d.mode, d.variance, d.stddev, repr(d.support), d.has_rsample,
               sorted(vars(d))]
        for r in (d.log_prob(value), d.entropy(), d.perplexity()):
            out += [r, grads(lib, r, [param])]
        return out
    agree(scenario, _ROUNDED[dtype] if by == "logits" else 0.0)


def test_numbers_and_broadcast_values(torch):
    def scenario(lib):
        d = lib.distributions.Bernoulli(0.25)
        e = lib.distributions.Bernoulli(logits=1)
        return [d.batch_shape, d.probs, repr(d), e.logits, e.probs, repr(e),
                d.log_prob(lib.tensor([[1.0], [0.0]])), e.entropy()]
    agree(scenario)


@pytest.mark.parametrize("shape", [(), (4,), (3, 2)])
@pytest.mark.parametrize("by", ["probs", "logits"])
def test_seeded_sample_is_torchs(torch, shape, by):
    def scenario(lib):
        d, _ = _dist(lib, by)
        return [d.sample(shape), d.sample(shape), lib.rand(2)]
    agree(seeded(scenario))


def test_scalar_sample(torch):
    agree(seeded(lambda lib: [lib.distributions.Bernoulli(0.6).sample((5,)),
                              lib.distributions.Bernoulli(0.6).sample()]))


def test_no_rsample(torch):
    agree(lambda lib: lib.distributions.Bernoulli(0.5).rsample(), raises=True)


@pytest.mark.parametrize("expand", [True, False])
def test_enumerate_support_and_expand(torch, expand):
    def scenario(lib):
        d, _ = _dist(lib, "probs", "float64")
        e = d.expand([4, 2, 3])
        f = lib.distributions.Bernoulli(logits=lib.tensor([0.5])).expand((3,))
        return [d.enumerate_support(expand), e.batch_shape, e.probs, repr(e), f.logits,
                f.probs, e.enumerate_support(expand).shape, "logits" in vars(e)]
    agree(scenario)


@pytest.mark.parametrize("kwargs", [
    {}, {"probs": 0.5, "logits": 0.0}, {"probs": [0.5, 1.5]}, {"probs": [-0.1]},
    {"logits": [float("nan"), 0.0]}, {"probs": "0.5"}, {"probs": 2.0},
])
def test_bad_arguments_raise_torchs_error(torch, kwargs):
    def scenario(lib):
        args = {k: lib.tensor(v) if isinstance(v, list) else v for k, v in kwargs.items()}
        return repr(lib.distributions.Bernoulli(**args))
    agree(scenario, raises=True)


@pytest.mark.parametrize("validate", [True, False])
def test_values_outside_the_support(torch, validate):
    def scenario(lib):
        d = lib.distributions.Bernoulli(lib.tensor([0.3, 0.6]), validate_args=validate)
        return d.log_prob(lib.tensor([0.5, 1.0]))
    agree(scenario, raises=validate)


def test_gradcheck_log_prob_and_entropy_in_float64():
    Bernoulli = gradtrack.distributions.Bernoulli
    logits = gradtrack.tensor([-1.5, 0.2, 2.0], dtype=gradtrack.float64, requires_grad=True)
    probs = gradtrack.tensor([0.2, 0.5, 0.9], dtype=gradtrack.float64, requires_grad=True)
    value = gradtrack.tensor([1.0, 0.0, 1.0], dtype=gradtrack.float64)
    assert gradtrack.autograd.gradcheck(lambda z: Bernoulli(logits=z).log_prob(value), (logits,))
    assert gradtrack.autograd.gradcheck(lambda p: Bernoulli(p).log_prob(value), (probs,))
    assert gradtrack.autograd.gradcheck(lambda p: Bernoulli(p).entropy(), (probs,))
