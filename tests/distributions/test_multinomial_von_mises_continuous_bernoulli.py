"""Multinomial, VonMises and ContinuousBernoulli against torch.distributions: values,
shapes, gradients in float32 and float64, seeded draws and the generator stream after
them (VonMises's rejection loop included), expand, reprs and argument errors."""

import pytest
from dist_parity import agree, grads, seeded

# softmax, logsumexp, lgamma, log1p, expm1 and their backwards may round differently
# from torch's kernels in the last bit
ROUNDED = {"float32": 1e-5, "float64": 1e-13}


def _multinomial(lib, by, dtype="float32", total_count=4):
    dt = getattr(lib, dtype)
    values = [[0.2, 0.3, 0.5, 0.0], [1.0, 2.0, 3.0, 4.0]] if by == "probs" \
        else [[0.5, -1.0, 2.0, 0.0], [3.0, 3.0, -4.0, 1.25]]
    param = lib.tensor(values, dtype=dt, requires_grad=True)
    return lib.distributions.Multinomial(total_count, **{by: param}), param


@pytest.mark.parametrize("by", ["probs", "logits"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_multinomial_values_and_gradients(torch, by, dtype):
    def scenario(lib):
        d, param = _multinomial(lib, by, dtype)
        value = lib.tensor([[[1.0, 1.0, 2.0, 0.0], [0.0, 0.0, 4.0, 0.0]],
                            [[4.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0]]], dtype=getattr(lib, dtype))
        out = [d.batch_shape, d.event_shape, d.param_shape, repr(d), repr(d.support),
               d.support.upper_bound, d.total_count, d.probs, d.logits, d.has_enumerate_support,
               d.has_rsample]
        # weighted: the plain sums of mean and variance have a zero gradient in the
        # logits, which softmax's backward leaves as rounding noise
        weights = lib.tensor([1.0, -2.0, 3.0, 0.5], dtype=getattr(lib, dtype))
        for r in (d.log_prob(value), d.entropy(), d.mean, d.variance):
            out += [r, grads(lib, r * weights if r.shape[-1:] == (4,) else r, [param])]
        return out
    agree(scenario, {"float32": 1e-5, "float64": 1e-11}[dtype])


def test_multinomial_impossible_categories_and_any_count_in_log_prob(torch):
    def scenario(lib):
        logits = lib.tensor([-float("inf"), 0.0, 1.0], requires_grad=True)
        d = lib.distributions.Multinomial(logits=logits, validate_args=False)
        lp = d.log_prob(lib.tensor([[0.0, 3.0, 2.0], [1.0, 0.0, 0.0]]))
        e = lib.distributions.Multinomial(probs=lib.tensor([1.0, 1.0]), validate_args=False)
        return [lp, grads(lib, lp, [logits]), e.log_prob(lib.tensor([3.0, 5.0])), e.entropy()]
    agree(scenario, 1e-6)


@pytest.mark.parametrize("by", ["probs", "logits"])
@pytest.mark.parametrize("shape", [(), (5,), (2, 3)])
@pytest.mark.parametrize("total_count", [1, 7])
def test_multinomial_seeded_sample(torch, by, shape, total_count):
    def scenario(lib):
        d, _ = _multinomial(lib, by, "float64", total_count)
        s = d.sample(shape)
        return [s, d.log_prob(s), lib.rand(2)]
    agree(seeded(scenario, 5), 1e-13)


def test_multinomial_expand(torch):
    def scenario(lib):
        d = lib.distributions.Multinomial(3, lib.tensor([0.25, 0.75]))
        e = d.expand([2, 2])
        return [e.batch_shape, e.event_shape, repr(e), e.total_count, e.probs,
                e.log_prob(lib.tensor([1.0, 2.0])), e.sample(), e._validate_args]
    agree(seeded(scenario))


@pytest.mark.parametrize("case", ["none", "both", "tensor_count", "scalar_probs", "not_integer_sum",
                                  "negative", "bad_event", "expanded_entropy"])
def test_multinomial_errors(torch, case):
    def scenario(lib):
        M = lib.distributions.Multinomial
        probs = lib.tensor([0.5, 0.5])
        return {
            "none": lambda: M(2),
            "both": lambda: M(2, probs, lib.zeros(2)),
            "tensor_count": lambda: M(lib.tensor(2), probs),
            "scalar_probs": lambda: M(2, lib.tensor(0.5)),
            "not_integer_sum": lambda: M(2, probs).log_prob(lib.tensor([2.0, 1.0])),
            "negative": lambda: M(2, probs).log_prob(lib.tensor([-1.0, 1.0])),
            "bad_event": lambda: M(2, probs).log_prob(lib.tensor([1.0, 1.0, 0.0])),
            "expanded_entropy": lambda: M(2, probs).expand([3]).entropy(),
        }[case]()
    agree(scenario, raises=True)


LOCS = [[0.5, -2.0, 3.0], [7.0, 0.0, -0.25]]
KAPPAS = [[1e-6, 0.5, 2.0], [3.75, 10.0, 80.0]]


def _von_mises(lib, dtype="float32"):
    dt = getattr(lib, dtype)
    loc = lib.tensor(LOCS, dtype=dt, requires_grad=True)
    kappa = lib.tensor(KAPPAS, dtype=dt, requires_grad=True)
    return lib.distributions.VonMises(loc, kappa), [loc, kappa]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_von_mises_values_and_gradients(torch, dtype):
    def scenario(lib):
        d, params = _von_mises(lib, dtype)
        value = lib.tensor([[0.0, 1.0, -3.0], [6.5, 2.0, 0.0]], dtype=getattr(lib, dtype),
                           requires_grad=True)
        lp = d.log_prob(value)
        out = [d.batch_shape, d.event_shape, repr(d), repr(d.support), d.has_rsample, lp,
               grads(lib, lp, params + [value])]
        for r in (d.mean, d.mode, d.variance, d.stddev):
            out += [r, grads(lib, r, params)]
        return out
    agree(scenario, ROUNDED[dtype])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(), (6,), (2, 3)])
@pytest.mark.parametrize("seed", [0, 11])
def test_von_mises_rejection_sampler_draws_and_stream(torch, dtype, shape, seed):
    # the loop's rounds depend on every earlier draw: the generator after it shows
    # that it ran as many rounds, of the same size, as torch's
    def scenario(lib):
        d, _ = _von_mises(lib, dtype)
        one = lib.distributions.VonMises(lib.tensor(1.0, dtype=getattr(lib, dtype)), 0.01)
        return [d.sample(shape), one.sample(shape), lib.rand(3), d._proposal_r,
                str(d._loc.dtype), d._concentration]
    agree(seeded(scenario, seed), 1e-13)


def test_von_mises_numbers_expand_and_no_rsample(torch):
    def scenario(lib):
        d = lib.distributions.VonMises(0.5, 2.0)
        e = d.expand([3])
        f = lib.distributions.VonMises(lib.zeros(2, 1), lib.ones(3)).expand([4, 2, 3])
        return [d.batch_shape, repr(d), d.log_prob(lib.tensor(1.0)), e.batch_shape, repr(e),
                e.loc, e.sample(), e._validate_args, type(e).__name__, f.batch_shape,
                f.concentration.shape]
    agree(seeded(scenario))


@pytest.mark.parametrize("case", ["zero_kappa", "negative_kappa", "rsample", "bad_value"])
def test_von_mises_errors(torch, case):
    def scenario(lib):
        V = lib.distributions.VonMises
        return {
            "zero_kappa": lambda: V(lib.tensor(0.0), lib.tensor(0.0)),
            "negative_kappa": lambda: V(0.0, -1.0),
            "rsample": lambda: V(0.0, 1.0).rsample(),
            "bad_value": lambda: V(0.0, 1.0).log_prob(0.5),
        }[case]()
    agree(scenario, raises=True)


CB_PROBS = [[0.1, 0.4995, 0.5, 0.7], [0.999, 0.3, 0.5005, 0.02]]
CB_LOGITS = [[-2.0, 0.0, 0.001, 1.5], [6.0, -0.003, 0.5, -4.0]]


def _continuous_bernoulli(lib, by, dtype="float32"):
    dt = getattr(lib, dtype)
    param = lib.tensor(CB_PROBS if by == "probs" else CB_LOGITS, dtype=dt, requires_grad=True)
    return lib.distributions.ContinuousBernoulli(**{by: param}), param


@pytest.mark.parametrize("by", ["probs", "logits"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_continuous_bernoulli_values_and_gradients(torch, by, dtype):
    def scenario(lib):
        d, param = _continuous_bernoulli(lib, by, dtype)
        dt = getattr(lib, dtype)
        value = lib.tensor([[0.0, 0.25, 0.5, 1.0], [0.9, 0.1, 0.75, 0.3]], dtype=dt,
                           requires_grad=True)
        u = lib.tensor([[0.0, 0.1, 0.6, 1.0], [0.5, 0.99, 0.2, 0.3]], dtype=dt)
        out = [d.batch_shape, d.event_shape, d.param_shape, repr(d), d.probs, d.logits,
               repr(d.support), d.has_rsample, d._lims]
        for r in (d.log_prob(value), d.cdf(value)):
            out += [r, grads(lib, r, [param, value])]
        for r in (d.icdf(u), d.mean, d.variance, d.stddev, d.entropy()):
            out += [r, grads(lib, r, [param])]
        return out
    # the closed-form variance cancels two terms near p = 1/2, and its gradient more so
    agree(scenario, {"float32": 1e-5, "float64": 1e-10}[dtype])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_continuous_bernoulli_exponential_family_entropy(torch, dtype):
    # the entropy from the log normalizer (and its Taylor expansion near 0)
    def scenario(lib):
        d, param = _continuous_bernoulli(lib, "logits", dtype)
        h = lib.distributions.ExponentialFamily.entropy(d)
        return [d._log_normalizer(d.logits), h, grads(lib, h, [param])]
    agree(scenario, 1e-4 if dtype == "float32" else 1e-11)


@pytest.mark.parametrize("by", ["probs", "logits"])
@pytest.mark.parametrize("shape", [(), (3,), (2, 1)])
def test_continuous_bernoulli_seeded_draws(torch, by, shape):
    def scenario(lib):
        d, param = _continuous_bernoulli(lib, by)
        x = d.rsample(shape)
        return [x, grads(lib, x, [param]), d.sample(shape), lib.rand(2)]
    agree(seeded(scenario, 8), 1e-5)


def test_continuous_bernoulli_numbers_lims_and_expand(torch):
    def scenario(lib):
        CB = lib.distributions.ContinuousBernoulli
        d = CB(0.3, lims=(0.4, 0.6))
        e = CB(logits=lib.tensor([0.5, -0.5])).expand([3, 2])
        v = CB(lib.tensor([0.2, 0.8]), validate_args=False)
        return [d.batch_shape, repr(d), d.log_prob(lib.tensor(0.5)), d.mean, d._lims,
                e.batch_shape, repr(e), e.logits, e.sample(), e._validate_args, e._lims,
                v.probs, v.log_prob(lib.tensor([2.0, -1.0])), v.cdf(lib.tensor([2.0, -1.0])),
                CB(lib.tensor([0.0, 1.0])).probs,
                # clamped before the arguments are validated: no error
                CB(lib.tensor([0.5, 1.5])).probs]
    agree(seeded(scenario), 1e-6)


@pytest.mark.parametrize("case", ["none", "both", "bad_probs_checked_early", "bad_value",
                                  "bad_cdf_value"])
def test_continuous_bernoulli_errors(torch, case):
    def scenario(lib):
        CB = lib.distributions.ContinuousBernoulli
        return {
            "none": lambda: CB(),
            "both": lambda: CB(0.5, 0.0),
            "bad_probs_checked_early": lambda: CB(lib.tensor([0.5, 1.5]), validate_args=True),
            "bad_value": lambda: CB(0.5).log_prob(lib.tensor(1.5)),
            "bad_cdf_value": lambda: CB(0.5).cdf(lib.tensor(-0.5)),
        }[case]()
    agree(scenario, raises=True)
