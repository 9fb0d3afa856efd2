"""Categorical against torch.distributions.Categorical: normalization, values,
gradients, seeded draws (the multinomial stream), enumeration, reprs and errors."""

import pytest
from dist_parity import agree, grads, seeded

import gradtrack

PROBS = [[0.2, 0.3, 0.5, 0.0], [1.0, 2.0, 3.0, 4.0]]
LOGITS = [[0.5, -1.0, 2.0, 0.0], [3.0, 3.0, -4.0, 1.25]]
# From logits, probs go through sigmoid or softmax (and log_prob, entropy through
# softplus or logsumexp), whose kernels may round differently from torch's in the last
# bit; from probs, everything is bit for bit.
_ROUNDED = {"float32": 1e-6, "float64": 1e-14}


def _dist(lib, by, dtype="float32"):
    dt = getattr(lib, dtype)
    param = lib.tensor(PROBS if by == "probs" else LOGITS, dtype=dt, requires_grad=True)
    return lib.distributions.Categorical(**{by: param}), param


@pytest.mark.parametrize("by", ["probs", "logits"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_properties_values_and_gradients(torch, by, dtype):
    def scenario(lib):
        d, param = _dist(lib, by, dtype)
        value = lib.tensor([[2, 0], [1, 3]]).unsqueeze(-1).expand(2, 2, 1)[..., 0]
        out = [d.batch_shape, d.event_shape, d.param_shape, repr(d), d.probs, d.logits,
               d.mean, d.mode, d.variance, repr(d.support), d.has_enumerate_support,
               d._num_events]
        for r in (d.log_prob(value), d.log_prob(lib.tensor([3, 1])), d.entropy(),
                  d.perplexity()):
            out += [r, grads(lib, r, [param])]
        return out
    agree(scenario, _ROUNDED[dtype] if by == "logits" else 0.0)


def test_a_single_distribution_and_float_values(torch):
    def scenario(lib):
        d = lib.distributions.Categorical(lib.tensor([0.25, 0.25, 0.5]))
        return [d.batch_shape, repr(d), d.log_prob(lib.tensor([0.0, 2.0, 1.0])), d.entropy(),
                d.enumerate_support(), d.enumerate_support(False), d.mean]
    agree(scenario)


def test_entropy_with_impossible_categories(torch):
    # a -inf logit (a probability of 0) adds 0 to the entropy, not NaN
    def scenario(lib):
        logits = lib.tensor([[-float("inf"), 0.0, 1.0], [2.0, -float("inf"), -float("inf")]],
                            requires_grad=True)
        h = lib.distributions.Categorical(logits=logits).entropy()
        p = lib.distributions.Categorical(lib.tensor([0.0, 0.25, 0.75])).entropy()
        return [h, grads(lib, h, [logits]), p]
    agree(scenario, 1e-6)


@pytest.mark.parametrize("shape", [(), (6,), (2, 3)])
@pytest.mark.parametrize("by", ["probs", "logits"])
def test_seeded_sample_is_torchs(torch, shape, by):
    def scenario(lib):
        d, _ = _dist(lib, by)
        one = lib.distributions.Categorical(logits=lib.tensor([0.1, 0.2, 0.3, 0.4, 0.5]))
        return [d.sample(shape), one.sample(shape), d.sample(lib.Size(shape)), lib.rand(2)]
    agree(seeded(scenario, 11))


def test_enumerate_support_and_expand(torch):
    def scenario(lib):
        d, _ = _dist(lib, "logits")
        e = d.expand([3, 2])
        return [d.enumerate_support(), d.enumerate_support(expand=False), e.batch_shape,
                e.logits, e.param_shape, e._num_events, e.enumerate_support().shape,
                e.log_prob(lib.tensor([1, 2])), repr(e)]
    agree(scenario)


@pytest.mark.parametrize("case", ["neither", "both", "probs0d", "logits0d", "negative",
                                  "nan_logits", "bad_value", "float_value", "value_shape"])
def test_bad_arguments_raise_torchs_error(torch, case):
    def scenario(lib):
        C = lib.distributions.Categorical
        p = lib.tensor([0.5, 0.5])
        if case == "neither":
            return repr(C())
        if case == "both":
            return repr(C(p, p))
        if case == "probs0d":
            return repr(C(lib.tensor(1.0)))
        if case == "logits0d":
            return repr(C(logits=lib.tensor(1.0)))
        if case == "negative":
            return repr(C(lib.tensor([-0.5, 1.0, 0.5])))
        if case == "nan_logits":
            return repr(C(logits=lib.tensor([0.0, float("nan")])))
        if case == "bad_value":
            return C(p).log_prob(lib.tensor([2]))
        if case == "float_value":
            return C(p).log_prob(lib.tensor([0.5]))
        return C(lib.ones(3, 2)).log_prob(lib.tensor([0, 1]))
    agree(scenario, raises=True)


def test_gradcheck_log_prob_and_entropy_in_float64():
    Categorical = gradtrack.distributions.Categorical
    logits = gradtrack.tensor([[0.3, -1.0, 2.0], [1.0, 0.5, 0.0]], dtype=gradtrack.float64,
                              requires_grad=True)
    probs = gradtrack.tensor([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]], dtype=gradtrack.float64,
                             requires_grad=True)
    value = gradtrack.tensor([2, 0])
    assert gradtrack.autograd.gradcheck(lambda z: Categorical(logits=z).log_prob(value), (logits,))
    assert gradtrack.autograd.gradcheck(lambda p: Categorical(p).log_prob(value), (probs,))
    assert gradtrack.autograd.gradcheck(lambda z: Categorical(logits=z).entropy(), (logits,))
