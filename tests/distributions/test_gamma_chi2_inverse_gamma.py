"""Gamma, Chi2 and InverseGamma against torch.distributions: values, shapes, dtypes,
grad_fns, gradients (including the pathwise gradients of rsample), seeded draws (and
the stream after them), reprs and argument errors with validation on and off."""

import pytest
from dist_parity import agree, grads, seeded

import gradtrack

CONC = [[0.3, 1.0, 2.5], [4.0, 0.05, 9.0]]
RATE = [[0.5, 1.25, 3.0], [2.0, 0.1, 0.75]]
DF = [[0.5, 1.0, 3.0], [7.0, 0.2, 20.0]]
VALUE = [[0.1, 2.0, 4.5], [1.0, 0.3, 3.0]]
# lgamma, digamma, igamma and xlogy kernels may round differently from torch's in the last bit
ROUNDED = {"float32": 1e-5, "float64": 1e-13}
NAMES = ["Gamma", "Chi2", "InverseGamma"]


def _make(lib, name, dtype="float32", requires_grad=True):
    """The distribution, its parameters and a value in its support."""
    dt = getattr(lib, dtype)
    D = lib.distributions
    value = lib.tensor(VALUE, dtype=dt, requires_grad=True)
    if name == "Chi2":
        df = lib.tensor(DF, dtype=dt, requires_grad=requires_grad)
        return D.Chi2(df), [df], value
    conc = lib.tensor(CONC, dtype=dt, requires_grad=requires_grad)
    rate = lib.tensor(RATE[1], dtype=dt, requires_grad=requires_grad)
    return getattr(D, name)(conc, rate), [conc, rate], value


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_properties_and_shapes(torch, name, dtype):
    def scenario(lib):
        d, _, _ = _make(lib, name, dtype)
        out = [d.batch_shape, d.event_shape, d.mean, d.mode, d.stddev, d.variance,
               d.entropy(), d.perplexity(), d.has_rsample, d.has_enumerate_support,
               repr(d.support), repr(d.arg_constraints), repr(d), type(d).__mro__[1].__name__,
               d.concentration, d.rate]
        if name == "Chi2":
            out.append(d.df)
        if name == "InverseGamma":
            out += [repr(d.base_dist), repr(d.transforms), d.transforms[0].exponent]
        return out
    agree(scenario, ROUNDED[dtype])


@pytest.mark.parametrize("name", ["Gamma", "Chi2"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_exponential_family_entropy_matches(torch, name, dtype):
    def scenario(lib):
        d, params, _ = _make(lib, name, dtype)
        r = lib.distributions.ExponentialFamily.entropy(d)
        return [r, grads(lib, r, params), d._natural_params, d._mean_carrier_measure]
    agree(scenario, ROUNDED[dtype])


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_log_prob_cdf_entropy_and_their_gradients(torch, name, dtype):
    def scenario(lib):
        d, params, value = _make(lib, name, dtype)
        out = []
        for r, inputs in ((d.log_prob(value), params + [value]), (d.entropy(), params)):
            out += [r, grads(lib, r, inputs)]
        # igamma has no derivative in its first argument: cdf is differentiated in the rest
        plain, rest, value = _make(lib, name, dtype, requires_grad=False)
        c = plain.cdf(value)
        out += [c, grads(lib, c, [value])]
        if name == "Gamma":
            rate = lib.tensor(RATE[0], dtype=getattr(lib, dtype), requires_grad=True)
            c = lib.distributions.Gamma(rest[0], rate).cdf(value)
            out += [c, grads(lib, c, [rate, value])]
        return out
    agree(scenario, ROUNDED[dtype])


def test_cdf_has_no_gradient_in_concentration(torch):
    def scenario(lib):
        d, params, value = _make(lib, "Gamma")
        return grads(lib, d.cdf(value), params[:1])
    agree(scenario, raises=True)


@pytest.mark.parametrize("name", NAMES)
def test_log_prob_takes_numbers_and_broadcasts(torch, name):
    def scenario(lib):
        d, _, _ = _make(lib, name)
        out = [d.log_prob(lib.ones(4, 1, 3))]
        if name == "Gamma":
            out += [d.log_prob(2.0), d.log_prob(0.0), lib.distributions.Gamma(
                lib.tensor([1.0, 2.0], dtype=lib.float64), 1.0).log_prob(1.5)]
        return out
    agree(scenario, 1e-6)


@pytest.mark.parametrize("name", NAMES)
def test_numbers_give_an_empty_batch_of_the_default_dtype(torch, name):
    def scenario(lib):
        D = lib.distributions
        args = (3.0,) if name == "Chi2" else (2.0, 3)
        d = getattr(D, name)(*args)
        wide = getattr(D, name)(*[lib.tensor([a, a], dtype=lib.float64) if i == 0 else a
                                  for i, a in enumerate(args)])
        return [d.batch_shape, repr(d), d.mean, d.variance, d.sample().shape, d.sample(),
                wide.batch_shape, repr(wide), wide.stddev, wide.sample((2,))]
    agree(seeded(scenario))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("shape", [(), (5,), (2, 1)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_seeded_sample_and_rsample_are_torchs_with_their_pathwise_gradients(torch, name,
                                                                            shape, dtype):
    def scenario(lib):
        d, params, _ = _make(lib, name, dtype)
        x = d.rsample(shape)
        return [x, grads(lib, x * x, params), grads(lib, x.log(), params),
                d.sample(lib.Size(shape)), lib.rand(2)]
    agree(seeded(scenario, 3), ROUNDED[dtype])


def test_rsample_never_returns_zero(torch):
    def scenario(lib):
        conc = lib.tensor([1e-3, 1e-2, 0.02], requires_grad=True)
        x = lib.distributions.Gamma(conc, 1.0).rsample((50,))
        return [x.min() > 0, x.min(), grads(lib, x, [conc])]
    agree(seeded(scenario, 5), 1e-5)


def test_seeded_float64_draws_with_a_generator_stream_after(torch):
    def scenario(lib):
        out = []
        for name in NAMES:
            d, _, _ = _make(lib, name, "float64", requires_grad=False)
            out += [d.sample((3,)), d.rsample()]
        return out + [lib.rand(1, dtype=lib.float64), lib.randn(2)]
    agree(seeded(scenario, 11))


@pytest.mark.parametrize("name", NAMES)
def test_expand(torch, name):
    def scenario(lib):
        d, _, _ = _make(lib, name, requires_grad=False)
        e = d.expand([4, 2, 3])
        return [e.batch_shape, repr(e), e.mean, e.variance, e.sample(), e._validate_args,
                type(e).__name__, e.log_prob(lib.ones(3))]
    agree(seeded(scenario), 1e-6)


@pytest.mark.parametrize("name, args", [
    ("Gamma", ([1.0, -1.0], 1.0)), ("Gamma", ([1.0, 0.0], [1.0, 1.0])), ("Gamma", (1.0, -2.0)),
    ("Gamma", ([1.0, float("nan")], 1.0)),
    ("Chi2", ([1.0, -1.0],)), ("Chi2", (0.0,)),
    ("InverseGamma", ([1.0, 2.0], [1.0, 0.0])), ("InverseGamma", (-1.0, 1.0)),
])
def test_bad_parameters_raise_torchs_error(torch, name, args):
    def scenario(lib):
        values = [lib.tensor(a) if isinstance(a, list) else a for a in args]
        return repr(getattr(lib.distributions, name)(*values))
    agree(scenario, raises=True)

    def unchecked(lib):
        values = [lib.tensor(a) if isinstance(a, list) else a for a in args]
        d = getattr(lib.distributions, name)(*values, validate_args=False)
        return [repr(d), d.log_prob(lib.tensor(1.0))]
    agree(unchecked, 1e-6)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("value", ["wrong_event", "not_broadcastable", "outside"])
def test_bad_values_raise_torchs_error(torch, name, value):
    def scenario(lib):
        d, _, _ = _make(lib, name, requires_grad=False)
        v = {"wrong_event": lib.zeros(2), "not_broadcastable": lib.ones(4, 3, 2),
             "outside": lib.tensor([1.0, float("nan"), -1.0])}[value]
        return [d.log_prob(v)]
    agree(scenario, raises=True)


def test_cdf_validates_and_numbers_raise(torch):
    def scenario(lib):
        return lib.distributions.Gamma(1.0, 1.0).cdf(lib.tensor(-1.0))
    agree(scenario, raises=True)

    def inverse(lib):
        return lib.distributions.InverseGamma(2.0, 1.0).cdf(lib.tensor([0.5, 2.0]))
    agree(inverse, 1e-6)

    def unvalidated(lib):
        d = lib.distributions.InverseGamma(lib.tensor([1.0, 3.0]), 1.0, validate_args=False)
        return [d.log_prob(lib.tensor(-1.0)), d.mean, d.variance]
    agree(unvalidated, 1e-6)


def test_gradcheck_log_prob_and_rsample_in_float64():
    dt = gradtrack.float64
    conc = gradtrack.tensor([0.7, 3.9], dtype=dt, requires_grad=True)
    rate = gradtrack.tensor([1.3, 0.4], dtype=dt, requires_grad=True)
    value = gradtrack.tensor([1.1, 0.4], dtype=dt, requires_grad=True)
    Gamma = gradtrack.distributions.Gamma
    assert gradtrack.autograd.gradcheck(lambda c, r, v: Gamma(c, r).log_prob(v),
                                        (conc, rate, value))

    def rsample(r):
        gradtrack.manual_seed(7)  # the same noise on every evaluation
        return Gamma(conc.detach(), r).rsample((3,))
    assert gradtrack.autograd.gradcheck(rsample, (rate,))
