"""Exponential, Laplace and Cauchy against torch.distributions: values, shapes,
dtypes, grad_fns, gradients, seeded draws (and the stream after them), reprs and
argument errors with validation on and off."""

import pytest
from dist_parity import agree, grads, seeded

import gradtrack

LOC = [[0.5, -1.25, 3.0], [2.0, 0.0, -0.75]]
SCALE = [0.3, 1.5, 2.25]
VALUE = [[0.1, -2.0, 4.5], [1.0, 0.25, -3.0]]
RATE = [[0.5, 1.25, 3.0], [2.0, 0.1, 0.75]]
POSITIVE = [[0.1, 2.0, 4.5], [1.0, 0.0, 3.0]]


def _make(lib, name, dtype="float32", requires_grad=True):
    """The distribution, its parameters and a value in its support."""
    dt = getattr(lib, dtype)
    D = lib.distributions
    if name == "Exponential":
        rate = lib.tensor(RATE, dtype=dt, requires_grad=requires_grad)
        return D.Exponential(rate), [rate], lib.tensor(POSITIVE, dtype=dt, requires_grad=True)
    loc = lib.tensor(LOC, dtype=dt, requires_grad=requires_grad)
    scale = lib.tensor(SCALE, dtype=dt, requires_grad=requires_grad)
    value = lib.tensor(VALUE, dtype=dt, requires_grad=True)
    return getattr(D, name)(loc, scale), [loc, scale], value


NAMES = ["Exponential", "Laplace", "Cauchy"]
# kernels (atan, tan, log1p, expm1) that may round differently from torch's in the last bit
ROUNDED = {"float32": 1e-6, "float64": 1e-15}


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_properties_and_shapes(torch, name, dtype):
    def scenario(lib):
        d, _, _ = _make(lib, name, dtype)
        return [d.batch_shape, d.event_shape, d.mean, d.mode, d.stddev, d.variance,
                d.entropy(), d.perplexity(), d.has_rsample, d.has_enumerate_support,
                repr(d.support), repr(d.arg_constraints), repr(d), type(d).__mro__[1].__name__]
    agree(scenario)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_log_prob_cdf_icdf_entropy_and_their_gradients(torch, name, dtype):
    def scenario(lib):
        d, params, value = _make(lib, name, dtype)
        q = lib.tensor([0.1, 0.5, 0.975], dtype=getattr(lib, dtype), requires_grad=True)
        out = []
        for r, inputs in ((d.log_prob(value), params + [value]),
                          (d.cdf(value), params + [value]),
                          (d.icdf(q), params + [q]),
                          (d.entropy(), params)):
            out += [r, grads(lib, r, inputs)]
        return out
    agree(scenario, ROUNDED[dtype])


@pytest.mark.parametrize("name", NAMES)
def test_numbers_give_an_empty_batch_of_the_default_dtype(torch, name):
    def scenario(lib):
        D = lib.distributions
        args = (2.0,) if name == "Exponential" else (1.0, 2)
        d = getattr(D, name)(*args)
        wide = getattr(D, name)(*[lib.tensor([a, a], dtype=lib.float64) if i == 0 else a
                                  for i, a in enumerate(args)])
        return [d.batch_shape, repr(d), d.mean, d.variance, d.sample().shape, wide.batch_shape,
                repr(wide), wide.stddev]
    agree(seeded(scenario))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("shape", [(), (5,), (2, 1)])
def test_seeded_sample_and_rsample_are_torchs(torch, name, shape):
    def scenario(lib):
        d, params, _ = _make(lib, name)
        x = d.rsample(shape)
        return [x, grads(lib, x * x, params), d.sample(lib.Size(shape)), lib.rand(2)]
    agree(seeded(scenario, 3))


@pytest.mark.parametrize("name", NAMES)
def test_seeded_float64_draws(torch, name):
    def scenario(lib):
        d, _, _ = _make(lib, name, "float64", requires_grad=False)
        return [d.sample((3,)), d.rsample(), lib.rand(1, dtype=lib.float64)]
    agree(seeded(scenario, 11))


@pytest.mark.parametrize("name", NAMES)
def test_expand(torch, name):
    def scenario(lib):
        d, _, _ = _make(lib, name, requires_grad=False)
        e = d.expand([4, 2, 3])
        return [e.batch_shape, repr(e), e.mean if name != "Cauchy" else e.mode, e.sample(),
                e._validate_args, type(e).__name__]
    agree(seeded(scenario))


@pytest.mark.parametrize("name, args", [
    ("Exponential", ([1.0, -1.0],)), ("Exponential", ([1.0, 0.0],)), ("Exponential", (-2.0,)),
    ("Laplace", ([0.0, 1.0], [1.0, -1.0])), ("Laplace", ([0.0, float("nan")], [1.0, 1.0])),
    ("Laplace", (0.0, 0.0)),
    ("Cauchy", ([0.0, 1.0], [1.0, 0.0])), ("Cauchy", (float("nan"), 1.0)),
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
    agree(unchecked)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("value", ["number", "wrong_event", "not_broadcastable", "outside"])
def test_bad_values_raise_torchs_error(torch, name, value):
    def scenario(lib):
        d, _, _ = _make(lib, name, requires_grad=False)
        v = {"number": 1.0, "wrong_event": lib.zeros(2), "not_broadcastable": lib.zeros(4, 3, 2),
             "outside": lib.tensor([0.0, float("nan"), -1.0])}[value]
        return [d.log_prob(v), d.cdf(v)]
    agree(scenario, raises=True)


def test_log_prob_broadcasts_and_needs_no_validation(torch):
    def scenario(lib):
        out = []
        for name in NAMES:
            d, _, _ = _make(lib, name)
            out.append(d.log_prob(lib.ones(4, 1, 3)))
            out.append(getattr(lib.distributions, name)(
                *([1.0] if name == "Exponential" else [0.0, 1.0]),
                validate_args=False).log_prob(lib.tensor([-1.0])))
        return out
    agree(scenario, 1e-6)


@pytest.mark.parametrize("name", NAMES)
def test_gradcheck_log_prob_cdf_and_rsample_in_float64(name):
    dt = gradtrack.float64
    D = getattr(gradtrack.distributions, name)
    params = ([gradtrack.tensor([0.7, 1.9], dtype=dt, requires_grad=True)] if name == "Exponential"
              else [gradtrack.tensor([0.3, -1.0], dtype=dt, requires_grad=True),
                    gradtrack.tensor([0.7, 1.9], dtype=dt, requires_grad=True)])
    value = gradtrack.tensor([1.1, 0.4], dtype=dt, requires_grad=True)
    assert gradtrack.autograd.gradcheck(lambda *a: D(*a[:-1]).log_prob(a[-1]), (*params, value))
    assert gradtrack.autograd.gradcheck(lambda *a: D(*a[:-1]).cdf(a[-1]), (*params, value))

    def rsample(*a):
        gradtrack.manual_seed(7)  # the same noise on every evaluation
        return D(*a).rsample((3,))
    assert gradtrack.autograd.gradcheck(rsample, tuple(params))
