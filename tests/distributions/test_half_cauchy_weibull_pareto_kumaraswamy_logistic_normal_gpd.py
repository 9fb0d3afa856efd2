"""HalfCauchy, Weibull, Pareto, Kumaraswamy, LogisticNormal and GeneralizedPareto
against torch: shapes, supports, reprs, moments, entropies, log densities, cdfs and
icdfs with their gradients (float32 and float64), seeded draws and the generator
stream after them, expand, and the argument and value errors."""

import pytest
from dist_parity import agree, grads, seeded

import gradtrack

LOC = [[0.5, -1.25, 3.0], [2.0, 0.0, -0.75]]
SCALE = [0.3, 1.5, 2.25]
POSITIVE = [[0.1, 2.0, 4.5], [1.0, 0.25, 3.0]]
ABOVE_SCALE = [[0.4, 2.0, 4.5], [1.0, 1.6, 3.0]]
UNIT = [[0.1, 0.5, 0.9], [0.25, 0.75, 0.01]]
SIMPLEX = [[0.1, 0.2, 0.3, 0.4], [0.05, 0.5, 0.25, 0.2]]
CONCENTRATION = [0.0, 0.5, -0.25]
ABOVE_LOC = [[0.6, 0.0, 4.0], [2.5, 1.0, 0.5]]
# exp, log, log1p, lgamma, digamma and atan kernels may round differently from torch's
ROUNDED = {"float32": 2e-5, "float64": 1e-12}


def _make(lib, name, dtype="float32"):
    """The distribution, its parameters and a value in its support."""
    dt = getattr(lib, dtype)
    D = lib.distributions

    def leaf(values):
        return lib.tensor(values, dtype=dt, requires_grad=True)
    loc, scale, positive = leaf(LOC), leaf(SCALE), leaf(POSITIVE)
    if name == "HalfCauchy":
        return D.HalfCauchy(scale), [scale], positive
    if name == "Weibull":
        concentration = leaf([[0.5, 1.0, 2.0], [3.0, 1.5, 0.8]])
        return D.Weibull(scale, concentration), [scale, concentration], positive
    if name == "Pareto":
        alpha = leaf([[0.5, 1.5, 2.5], [3.0, 1.0, 4.0]])
        return D.Pareto(scale, alpha), [scale, alpha], leaf(ABOVE_SCALE)
    if name == "Kumaraswamy":
        c1 = leaf([[0.5, 1.0, 2.0], [3.0, 1.5, 0.8]])
        return D.Kumaraswamy(c1, scale), [c1, scale], leaf(UNIT)
    if name == "LogisticNormal":
        return D.LogisticNormal(loc, scale), [loc, scale], leaf(SIMPLEX)
    if name == "GeneralizedPareto":
        concentration = leaf(CONCENTRATION)
        return (D.GeneralizedPareto(loc, scale, concentration), [loc, scale, concentration],
                leaf(ABOVE_LOC))
    raise AssertionError(name)


NAMES = ["HalfCauchy", "Weibull", "Pareto", "Kumaraswamy", "LogisticNormal", "GeneralizedPareto"]
WITH_CDF = ["HalfCauchy", "Weibull", "Pareto", "Kumaraswamy", "GeneralizedPareto"]


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
               repr(d.arg_constraints), repr(d), type(d).__mro__[1].__name__]
        if hasattr(d, "base_dist"):
            out += [type(d.base_dist).__name__, d.base_dist.batch_shape, repr(d.transforms)]
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
        lp = _try(lambda: d.log_prob(value))
        out.append(lp)
        if not isinstance(lp, tuple):
            out.append(grads(lib, lp, params + [value]))
        if name in WITH_CDF:
            c = _try(lambda: d.cdf(value))
            out.append(c)
            if not isinstance(c, tuple):
                out.append(grads(lib, c, params + [value]))
            i = d.icdf(q)
            out += [i, grads(lib, i, params + [q])]
        return out
    agree(scenario, ROUNDED[dtype])


@pytest.mark.parametrize("name", NAMES)
def test_entropy_and_moments_gradients(torch, name):
    def scenario(lib):
        d, params, _ = _make(lib, name, "float64")
        out = []
        for what in ("entropy", "mean", "variance"):
            r = _try(d.entropy if what == "entropy" else lambda: getattr(d, what))
            out.append(r)
            if not isinstance(r, tuple) and r.requires_grad:
                out.append(grads(lib, r, params))
        return out
    agree(scenario, 1e-12)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("shape", [(), (4,), (2, 1)])
def test_seeded_sample_and_rsample_are_torchs(torch, name, shape):
    def scenario(lib):
        d, params, _ = _make(lib, name)
        out = []
        if d.has_rsample:
            x = d.rsample(shape)
            out += [x, grads(lib, x, params)]
        return out + [d.sample(lib.Size(shape)), lib.rand(2)]
    agree(seeded(scenario, 8), 1e-5)


NUMBERS = {"HalfCauchy": lambda D: D.HalfCauchy(2.0), "Weibull": lambda D: D.Weibull(1.5, 2),
           "Pareto": lambda D: D.Pareto(1.0, 3.0), "Kumaraswamy": lambda D: D.Kumaraswamy(2.0, 5.0),
           "LogisticNormal": lambda D: D.LogisticNormal(0.5, 2.0),
           "GeneralizedPareto": lambda D: D.GeneralizedPareto(1.0, 2.0, 0.25)}


@pytest.mark.parametrize("name", NAMES)
def test_numbers_and_float64_draws(torch, name):
    def scenario(lib):
        d = NUMBERS[name](lib.distributions)
        wide, _, _ = _make(lib, name, "float64")
        return [d.batch_shape, d.event_shape, repr(d), d.sample(), d.sample((3,)), _try(lambda: d.mean),
                _try(d.entropy), wide.sample((2,)), lib.rand(1)]
    agree(seeded(scenario, 12), 1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_expand(torch, name):
    def scenario(lib):
        d, _, _ = _make(lib, name)
        e = d.expand([4, 2] + ([] if name == "LogisticNormal" else [3]))
        out = [e.batch_shape, e.event_shape, repr(e), type(e).__name__, e.sample().shape,
               e._validate_args, repr(e.support) if name != "GeneralizedPareto" else e.support.lower_bound]
        if hasattr(e, "base_dist"):
            out += [e.base_dist.batch_shape, len(e.transforms)]
        return out + [_try(lambda: e.mean)]
    agree(seeded(scenario), 1e-6)


@pytest.mark.parametrize("case", [
    "halfcauchy_scale", "weibull_scale", "weibull_concentration", "pareto_alpha", "pareto_scale",
    "kumaraswamy_c1", "kumaraswamy_nan", "logistic_normal_scale", "logistic_normal_loc",
    "gpd_scale", "gpd_concentration", "not_numbers"])
def test_bad_parameters_raise_torchs_error(torch, case):
    def scenario(lib):
        D = lib.distributions
        bad = lib.tensor([1.0, -1.0])
        return repr({
            "halfcauchy_scale": lambda: D.HalfCauchy(bad),
            "weibull_scale": lambda: D.Weibull(bad, 1.0),
            "weibull_concentration": lambda: D.Weibull(1.0, 0.0),
            "pareto_alpha": lambda: D.Pareto(1.0, bad),
            "pareto_scale": lambda: D.Pareto(lib.zeros(2), 1.0),
            "kumaraswamy_c1": lambda: D.Kumaraswamy(bad, 2.0),
            "kumaraswamy_nan": lambda: D.Kumaraswamy(1.0, lib.tensor([float("nan")])),
            "logistic_normal_scale": lambda: D.LogisticNormal(lib.zeros(2), bad),
            "logistic_normal_loc": lambda: D.LogisticNormal(lib.tensor([float("nan"), 0.0]), 1.0),
            "gpd_scale": lambda: D.GeneralizedPareto(0.0, bad, 0.5),
            "gpd_concentration": lambda: D.GeneralizedPareto(0.0, 1.0, lib.tensor([float("nan")])),
            "not_numbers": lambda: D.Weibull("1", 2.0),
        }[case]())
    agree(scenario, raises=True)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("value", ["number", "wrong_event", "outside"])
def test_bad_values_raise_torchs_error(torch, name, value):
    def scenario(lib):
        d, _, _ = _make(lib, name)
        v = {"number": 1.0, "wrong_event": lib.zeros(5),
             "outside": lib.full((2, 4 if name == "LogisticNormal" else 3), -1.0)}[value]
        return [d.log_prob(v), d.cdf(v)]
    agree(scenario, raises=True)


def test_validate_args_false_and_values_outside(torch):
    def scenario(lib):
        D = lib.distributions
        h = D.HalfCauchy(lib.tensor([1.0, 2.0]), validate_args=False)
        w = D.Weibull(1.0, -1.0, validate_args=False)
        p = D.Pareto(lib.tensor([1.0, 2.0]), 1.0, validate_args=False)
        k = D.Kumaraswamy(2.0, 3.0, validate_args=False)
        g = D.GeneralizedPareto(0.0, 1.0, lib.tensor([0.5, -0.5]), validate_args=False)
        outside = lib.tensor([-1.0, 0.5])
        return [h.log_prob(outside), h.cdf(outside), repr(w), p.log_prob(outside),
                k.log_prob(lib.tensor([1.5, -0.5])), g.log_prob(lib.tensor([-1.0, 3.0])),
                g.cdf(lib.tensor([-1.0, 3.0])), g.log_survival_function(lib.tensor([0.5, 1.0])),
                g.log_cdf(lib.tensor([0.5, 1.0]))]
    agree(scenario, 1e-6)


def test_generalized_pareto_branches(torch):
    def scenario(lib):
        D = lib.distributions
        c = lib.tensor([0.0, 1e-9, -1.0, 1.0, 2.0, 0.5], requires_grad=True)
        d = D.GeneralizedPareto(lib.zeros(6), 1.0, c)
        v = lib.tensor([0.5, 0.5, 0.5, 0.5, 0.5, 0.5])
        lp = d.log_prob(v)
        return [lp, grads(lib, lp, [c]), d.cdf(v), d.icdf(lib.full((6,), 0.3)), d.mean, d.variance,
                d.entropy(), repr(d.support), d.mode, grads(lib, d.mean, [c])]
    agree(scenario, 1e-6)


def test_subclass_expand_and_kumaraswamy_mode(torch):
    def scenario(lib):
        D = lib.distributions

        class Mine(D.Weibull):
            def __init__(self, scale):
                super().__init__(scale, 2.0)
        k = D.Kumaraswamy(lib.tensor([2.0, 0.5, 1.0]), lib.tensor([1.0, 0.5, 0.75]))
        return [_try(lambda: Mine(1.0).expand([2])), k.mode, D.Weibull(1.0, 0.5).mode,
                D.Pareto(1.0, lib.tensor([1.0, 2.0, 3.0])).variance]
    agree(scenario)


def test_gradcheck_log_prob_and_rsample_in_float64():
    D = gradtrack.distributions
    dt = gradtrack.float64
    a = gradtrack.tensor([0.7, 1.9], dtype=dt, requires_grad=True)
    b = gradtrack.tensor([1.3, 2.4], dtype=dt, requires_grad=True)
    unit = gradtrack.tensor([0.3, 0.6], dtype=dt, requires_grad=True)
    above = gradtrack.tensor([2.5, 3.1], dtype=dt, requires_grad=True)
    makers = {"HalfCauchy": (lambda s, c: D.HalfCauchy(s), above),
              "Weibull": (lambda s, c: D.Weibull(s, c), above),
              "Pareto": (lambda s, c: D.Pareto(s, c), above),
              "Kumaraswamy": (lambda s, c: D.Kumaraswamy(s, c), unit)}
    for make, value in makers.values():
        assert gradtrack.autograd.gradcheck(lambda s, c, v, f=make: f(s, c).log_prob(v), (a, b, value))

        def rsample(s, c, f=make):
            gradtrack.manual_seed(7)  # the same noise on every evaluation
            return f(s, c).rsample((3,))
        if make(a, b).has_rsample:
            assert gradtrack.autograd.gradcheck(rsample, (a, b))
