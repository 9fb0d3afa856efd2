"""Independent and OneHotCategorical (and its straight-through variant) against torch."""

import pytest
from dist_parity import agree, grads, seeded

import gradtrack


def _normal(lib, dtype="float32"):
    dt = getattr(lib, dtype)
    loc = lib.tensor([[0.5, -1.0, 2.0], [0.0, 1.0, -0.25]], dtype=dt, requires_grad=True)
    scale = lib.tensor([[1.0, 0.5, 2.0], [0.3, 1.5, 1.0]], dtype=dt, requires_grad=True)
    return lib.distributions.Normal(loc, scale), loc, scale


@pytest.mark.parametrize("ndims", [0, 1, 2])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_independent_normal(torch, ndims, dtype):
    def scenario(lib):
        base, loc, scale = _normal(lib, dtype)
        d = lib.distributions.Independent(base, ndims)
        value = lib.tensor([[0.0, 1.0, 2.0], [3.0, -1.0, 0.5]], dtype=getattr(lib, dtype))
        out = [d.batch_shape, d.event_shape, repr(d), repr(d.support), d.has_rsample,
               d.has_enumerate_support, d.mean, d.mode, d.variance, d.stddev,
               d.reinterpreted_batch_ndims]
        for r in (d.log_prob(value), d.entropy(), d.rsample((2,))):
            out += [r, grads(lib, r, [loc, scale])]
        return out + [d.sample(), d.expand(lib.Size([4]) + d.batch_shape).batch_shape]
    agree(seeded(scenario))


def test_independent_bernoulli_enumeration_and_expand(torch):
    def scenario(lib):
        base = lib.distributions.Bernoulli(lib.full((2, 3), 0.25))
        zero = lib.distributions.Independent(base, 0)
        one = lib.distributions.Independent(base, 1)
        e = one.expand([5, 2])
        return [zero.enumerate_support(), zero.enumerate_support(False), e.batch_shape,
                e.event_shape, e.base_dist.batch_shape, repr(e), one.has_enumerate_support,
                e.log_prob(lib.ones(3)).shape]
    agree(scenario)


@pytest.mark.parametrize("case", ["too_many_dims", "enumerate", "bad_value", "no_rsample"])
def test_independent_errors(torch, case):
    def scenario(lib):
        base = lib.distributions.Bernoulli(lib.full((2, 3), 0.25))
        if case == "too_many_dims":
            return lib.distributions.Independent(base, 3)
        d = lib.distributions.Independent(base, 1)
        if case == "enumerate":
            return d.enumerate_support()
        if case == "bad_value":
            return d.log_prob(lib.full((2, 3), 0.5))
        return d.rsample()
    agree(scenario, raises=True)


@pytest.mark.parametrize("by", ["probs", "logits"])
def test_one_hot_categorical(torch, by):
    def scenario(lib):
        param = lib.tensor([[0.2, 0.3, 0.5], [2.0, 1.0, 1.0]], requires_grad=True)
        d = lib.distributions.OneHotCategorical(**{by: param})
        value = lib.tensor([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
        out = [d.batch_shape, d.event_shape, d.param_shape, repr(d), repr(d.support), d.probs,
               d.logits, d.mean, d.mode, d.variance, d.enumerate_support(),
               d.enumerate_support(False), d.sample((4,)), d.expand([3, 2]).batch_shape]
        for r in (d.log_prob(value), d.entropy()):
            out += [r, grads(lib, r, [param])]
        return out
    agree(seeded(scenario, 4), 1e-6 if by == "logits" else 0.0)  # softmax may round differently


def test_one_hot_categorical_value_errors(torch):
    def scenario(lib):
        d = lib.distributions.OneHotCategorical(lib.tensor([0.5, 0.5]))
        return d.log_prob(lib.tensor([1.0, 1.0]))
    agree(scenario, raises=True)


def test_straight_through_rsample(torch):
    def scenario(lib):
        logits = lib.tensor([[0.5, 1.0, -1.0], [0.0, 0.0, 3.0]], requires_grad=True)
        d = lib.distributions.OneHotCategoricalStraightThrough(logits=logits)
        x = d.rsample((2,))
        w = lib.tensor([1.0, 2.0, 3.0])
        return [x, grads(lib, x * w, [logits]), d.has_rsample]
    agree(seeded(scenario, 9), rtol=1e-6)  # softmax's backward may round differently


def test_gradcheck_independent_log_prob_in_float64():
    Normal, Independent = gradtrack.distributions.Normal, gradtrack.distributions.Independent
    loc = gradtrack.tensor([[0.1, 0.2], [0.3, -0.4]], dtype=gradtrack.float64, requires_grad=True)
    value = gradtrack.tensor([[1.0, 0.0], [0.5, 0.5]], dtype=gradtrack.float64)
    assert gradtrack.autograd.gradcheck(
        lambda m: Independent(Normal(m, 2.0), 1).log_prob(value), (loc,))
    logits = gradtrack.tensor([0.3, -1.0, 2.0], dtype=gradtrack.float64, requires_grad=True)
    onehot = gradtrack.tensor([0.0, 1.0, 0.0], dtype=gradtrack.float64)
    OneHot = gradtrack.distributions.OneHotCategorical
    assert gradtrack.autograd.gradcheck(lambda z: OneHot(logits=z).log_prob(onehot), (logits,))
