"""TransformedDistribution, LogNormal, HalfNormal and Gumbel against torch: shapes
and event dims after the transforms, values, gradients, seeded draws (and the stream
after them), cdf flips of decreasing transforms, expand, reprs and errors."""

import pytest
from dist_parity import agree, grads, seeded

import gradtrack

LOC = [[0.5, -1.25, 3.0], [2.0, 0.0, -0.75]]
SCALE = [0.3, 1.5, 2.25]
POSITIVE = [[0.1, 2.0, 4.5], [1.0, 0.25, 3.0]]
REAL = [[0.1, -2.0, 4.5], [1.0, 0.25, -3.0]]
# exp, log, log1p, erf, erfinv and sigmoid kernels may round differently from torch's
ROUNDED = {"float32": 1e-5, "float64": 1e-13}


def _make(lib, name, dtype="float32"):
    """The distribution, its parameters and a value in its support."""
    dt = getattr(lib, dtype)
    D, T = lib.distributions, lib.distributions.transforms
    loc = lib.tensor(LOC, dtype=dt, requires_grad=True)
    scale = lib.tensor(SCALE, dtype=dt, requires_grad=True)
    positive = lib.tensor(POSITIVE, dtype=dt, requires_grad=True)
    real = lib.tensor(REAL, dtype=dt, requires_grad=True)
    if name == "LogNormal":
        return D.LogNormal(loc, scale), [loc, scale], positive
    if name == "HalfNormal":
        return D.HalfNormal(scale), [scale], positive
    if name == "Gumbel":
        return D.Gumbel(loc, scale), [loc, scale], real
    if name == "affine":  # a normal through a decreasing affine map: cdf flips
        return (D.TransformedDistribution(D.Normal(loc, scale), [T.AffineTransform(1.0, -2.0)]),
                [loc, scale], real)
    if name == "logistic":
        base = D.Uniform(lib.zeros(3, dtype=dt), lib.ones(3, dtype=dt))
        affine = T.AffineTransform(loc, scale)  # broadcasts the base's batch to (2, 3)
        return (D.TransformedDistribution(base, [T.SigmoidTransform().inv, affine]),
                [loc, scale], real)
    if name == "vector":  # an event-dim-1 transform reinterprets the base's batch dim
        return (D.TransformedDistribution(D.Normal(loc, scale),
                                          [T.AffineTransform(0.5, 2.0, event_dim=1),
                                           T.ExpTransform()]), [loc, scale], positive)
    raise AssertionError(name)


NAMES = ["LogNormal", "HalfNormal", "Gumbel", "affine", "logistic", "vector"]


def _try(f):
    try:
        return f()
    except Exception as e:  # noqa: BLE001 - the error is compared
        return (type(e).__name__, str(e).replace("torch", "gradtrack"))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_properties_and_shapes(torch, name, dtype):
    def scenario(lib):
        d, _, _ = _make(lib, name, dtype)
        out = [d.batch_shape, d.event_shape, d.has_rsample, repr(d.support),
               repr(d.arg_constraints), repr(d), type(d.base_dist).__name__,
               d.base_dist.batch_shape, repr(d.transforms)]
        for prop in ("mean", "mode", "stddev", "variance"):
            out.append(_try(lambda: getattr(d, prop)))
        out.append(_try(d.entropy))
        return out
    agree(scenario, ROUNDED[dtype])


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_log_prob_cdf_icdf_and_their_gradients(torch, name, dtype):
    def scenario(lib):
        d, params, value = _make(lib, name, dtype)
        q = lib.tensor([0.1, 0.5, 0.975], dtype=getattr(lib, dtype), requires_grad=True)
        out = []
        lp = d.log_prob(value)
        out += [lp, grads(lib, lp, params + [value])]
        if name != "vector":  # cdf and icdf need transforms of numbers
            c = d.cdf(value)
            out += [c, grads(lib, c, params + [value])]
            i = d.icdf(q)
            out += [i, grads(lib, i, params + [q])]
        return out
    agree(scenario, ROUNDED[dtype])


@pytest.mark.parametrize("name", ["LogNormal", "HalfNormal", "Gumbel"])
def test_entropy_and_moments_gradients(torch, name):
    def scenario(lib):
        d, params, _ = _make(lib, name, "float64")
        out = []
        for r in (d.entropy(), d.mean, d.variance):
            out += [r, grads(lib, r, params)]
        return out
    agree(scenario, 1e-13)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("shape", [(), (4,), (2, 1)])
def test_seeded_sample_and_rsample_are_torchs(torch, name, shape):
    def scenario(lib):
        d, params, _ = _make(lib, name)
        x = d.rsample(shape)
        return [x, grads(lib, x, params), d.sample(lib.Size(shape)), lib.rand(2)]
    agree(seeded(scenario, 8), 1e-5)


@pytest.mark.parametrize("name", ["LogNormal", "HalfNormal", "Gumbel"])
def test_numbers_and_float64_draws(torch, name):
    def scenario(lib):
        D = lib.distributions
        d = {"LogNormal": lambda: D.LogNormal(0.5, 2.0), "HalfNormal": lambda: D.HalfNormal(2.0),
             "Gumbel": lambda: D.Gumbel(1.0, 2)}[name]()
        wide, _, _ = _make(lib, name, "float64")
        return [d.batch_shape, repr(d), d.sample(), d.sample((3,)), d.mean, d.entropy(),
                wide.sample((2,)), lib.rand(1)]
    agree(seeded(scenario, 12), 1e-13)


@pytest.mark.parametrize("name", NAMES)
def test_expand(torch, name):
    def scenario(lib):
        d, _, _ = _make(lib, name)
        e = d.expand([4, 2] + ([] if name == "vector" else [3]))
        return [e.batch_shape, e.event_shape, repr(e), type(e).__name__, e.base_dist.batch_shape,
                e.sample().shape, e._validate_args, e.transforms is d.transforms]
    agree(seeded(scenario))


@pytest.mark.parametrize("case", ["lognormal_scale", "lognormal_loc", "halfnormal_scale",
                                  "gumbel_scale", "gumbel_nan", "not_transforms", "not_a_list",
                                  "base_too_small"])
def test_bad_parameters_raise_torchs_error(torch, case):
    def scenario(lib):
        D, T = lib.distributions, lib.distributions.transforms
        return repr({
            "lognormal_scale": lambda: D.LogNormal(lib.zeros(2), lib.tensor([1.0, -1.0])),
            "lognormal_loc": lambda: D.LogNormal(lib.tensor([float("nan")]), 1.0),
            "halfnormal_scale": lambda: D.HalfNormal(lib.tensor([1.0, 0.0])),
            "gumbel_scale": lambda: D.Gumbel(0.0, -1.0),
            "gumbel_nan": lambda: D.Gumbel(lib.tensor([0.0, float("nan")]), 1.0),
            "not_transforms": lambda: D.TransformedDistribution(D.Normal(0.0, 1.0), [1]),
            "not_a_list": lambda: D.TransformedDistribution(D.Normal(0.0, 1.0),
                                                            (T.ExpTransform(),)),
            "base_too_small": lambda: D.TransformedDistribution(
                D.Normal(0.0, 1.0), [T.AffineTransform(0.0, 1.0, event_dim=1)]),
        }[case]())
    agree(scenario, raises=True)


@pytest.mark.parametrize("name", ["LogNormal", "HalfNormal", "affine", "logistic"])
@pytest.mark.parametrize("value", ["number", "wrong_event", "outside"])
def test_bad_values_raise_torchs_error(torch, name, value):
    def scenario(lib):
        d, _, _ = _make(lib, name)
        v = {"number": 1.0, "wrong_event": lib.zeros(2),
             "outside": lib.tensor([1.0, -1.0, float("nan")])}[value]
        return [d.log_prob(v), d.cdf(v)]
    agree(scenario, raises=True)


def test_validate_args_false_and_values_outside(torch):
    def scenario(lib):
        D = lib.distributions
        h = D.HalfNormal(lib.tensor([1.0, 2.0]), validate_args=False)
        g = D.Gumbel(0.0, -1.0, validate_args=False)
        n = D.LogNormal(0.0, 1.0, validate_args=False)
        return [h.log_prob(lib.tensor([-1.0, 1.0])), repr(g), g.log_prob(lib.tensor(0.5)),
                n.log_prob(lib.tensor([-1.0, 0.0])), n.cdf(lib.tensor(0.0)), repr(n)]
    agree(scenario, 1e-6)


def test_empty_transforms_are_the_base(torch):
    def scenario(lib):
        D = lib.distributions
        d = D.TransformedDistribution(D.Bernoulli(lib.tensor([0.25, 0.5])), [])
        return [repr(d.support), d.log_prob(lib.tensor([1.0, 0.0])), d.has_rsample,
                d.batch_shape, d.sample((2,)), d.cdf.__name__]
    agree(seeded(scenario))


def test_gradcheck_log_prob_and_rsample_in_float64():
    D = gradtrack.distributions
    dt = gradtrack.float64
    loc = gradtrack.tensor([0.3, -1.0], dtype=dt, requires_grad=True)
    scale = gradtrack.tensor([0.7, 1.9], dtype=dt, requires_grad=True)
    value = gradtrack.tensor([1.1, 0.4], dtype=dt, requires_grad=True)
    makers = {"LogNormal": lambda m, s: D.LogNormal(m, s), "HalfNormal": lambda m, s: D.HalfNormal(s),
              "Gumbel": lambda m, s: D.Gumbel(m, s),
              "logistic": lambda m, s: D.TransformedDistribution(
                  D.Uniform(gradtrack.zeros(2, dtype=dt), gradtrack.ones(2, dtype=dt)),
                  [D.SigmoidTransform().inv, D.AffineTransform(m, s)])}
    for make in makers.values():
        assert gradtrack.autograd.gradcheck(lambda m, s, v, f=make: f(m, s).log_prob(v),
                                            (loc, scale, value))

        def rsample(m, s, f=make):
            gradtrack.manual_seed(7)  # the same noise on every evaluation
            return f(m, s).rsample((3,))
        assert gradtrack.autograd.gradcheck(rsample, (loc, scale))
