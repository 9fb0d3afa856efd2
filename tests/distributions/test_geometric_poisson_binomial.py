"""Geometric, Poisson and Binomial against torch.distributions: values, shapes,
dtypes, grad_fns, gradients, seeded draws (and the stream after them), the
probs/logits pair, enumerate_support, reprs and argument errors."""

import pytest
from dist_parity import agree, grads, seeded

import gradtrack

PROBS = [[0.1, 0.5, 1.0], [0.75, 0.3, 0.9]]
LOGITS = [[-2.0, 0.0, 3.0], [1.0, -0.5, 40.0]]
RATE = [[0.5, 4.0, 0.0], [20.0, 1.0, 250.0]]
COUNTS = [[0.0, 2.0, 0.0], [5.0, 1.0, 3.0]]
TOTAL = [[5.0, 10.0, 3.0], [7.0, 1.0, 3.0]]
# lgamma, xlogy, log1p and softplus kernels may round differently from torch's in the last bit
ROUNDED = {"float32": 1e-6, "float64": 1e-14}


def _make(lib, name, dtype="float32", logits=False):
    """The distribution, its parameters and a value in its support."""
    dt = getattr(lib, dtype)
    D = lib.distributions
    value = lib.tensor(COUNTS, dtype=dt)
    if name == "Poisson":
        rate = lib.tensor(RATE, dtype=dt, requires_grad=True)
        return D.Poisson(rate), [rate], value
    p = lib.tensor(LOGITS if logits else PROBS, dtype=dt, requires_grad=True)
    kw = {"logits" if logits else "probs": p}
    if name == "Geometric":
        return D.Geometric(**kw), [p], value
    total = lib.tensor(TOTAL, dtype=dt)
    return D.Binomial(total, **kw), [p], value


CASES = [("Geometric", False), ("Geometric", True), ("Poisson", False), ("Binomial", False),
         ("Binomial", True)]


@pytest.mark.parametrize("name, logits", CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_properties_and_shapes(torch, name, logits, dtype):
    def scenario(lib):
        d, _, _ = _make(lib, name, dtype, logits)
        out = [d.batch_shape, d.event_shape, d.mean, d.mode, d.variance, d.stddev,
               d.has_rsample, d.has_enumerate_support, repr(d.support),
               repr(d.arg_constraints), repr(d)]
        if name != "Poisson":
            out += [d.probs, d.logits, repr(d)]  # the repr shows the computed one too
        if name == "Binomial":
            out += [d.param_shape, d.total_count]
        return out
    agree(scenario, ROUNDED[dtype])


@pytest.mark.parametrize("name, logits", CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_log_prob_and_its_gradient(torch, name, logits, dtype):
    def scenario(lib):
        d, params, value = _make(lib, name, dtype, logits)
        r = d.log_prob(value)
        finite = r.detach().isfinite()
        return [r, grads(lib, r.where(finite, lib.zeros_like(r)), params)]
    agree(scenario, ROUNDED[dtype])


@pytest.mark.parametrize("logits", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_geometric_entropy_and_its_gradient(torch, logits, dtype):
    def scenario(lib):
        d, params, _ = _make(lib, "Geometric", dtype, logits)
        r = d.entropy()
        return [r, grads(lib, r, params)]
    agree(scenario, ROUNDED[dtype])


def test_poisson_has_no_entropy(torch):
    # an exponential family without the mean of its carrier measure, as torch's
    agree(lambda lib: lib.distributions.Poisson(2.0).entropy(), raises=True)


@pytest.mark.parametrize("logits", [False, True])
def test_binomial_entropy_and_enumerate_support(torch, logits):
    def scenario(lib):
        p = lib.tensor([[0.1, 0.5], [0.9, 1.0]] if not logits else [[-1.0, 0.0], [2.0, 5.0]],
                       requires_grad=True)
        d = lib.distributions.Binomial(4, **{"logits" if logits else "probs": p})
        r = d.entropy()
        return [r, grads(lib, r, [p]), d.enumerate_support(), d.enumerate_support(False),
                d.log_prob(d.enumerate_support())]
    agree(scenario, 1e-6)


@pytest.mark.parametrize("call", ["entropy", "enumerate_support"])
def test_binomial_inhomogeneous_total_count_raises(torch, call):
    def scenario(lib):
        d = lib.distributions.Binomial(lib.tensor([2.0, 3.0]), lib.tensor([0.5, 0.5]))
        return getattr(d, call)()
    agree(scenario, raises=True)


@pytest.mark.parametrize("name, logits", CASES)
@pytest.mark.parametrize("shape", [(), (4,), (2, 1)])
def test_seeded_sample_is_torchs(torch, name, logits, shape):
    def scenario(lib):
        d, _, _ = _make(lib, name, "float32", logits)
        if name == "Geometric" and not logits:  # probs of 1 always give 0
            d = lib.distributions.Geometric(lib.tensor([0.05, 0.5, 0.999]))
        first = d.sample(shape)
        return [first, d.sample(lib.Size(shape)), lib.rand(2)]
    agree(seeded(scenario, 4))


@pytest.mark.parametrize("name", ["Geometric", "Poisson", "Binomial"])
def test_seeded_float64_and_scalar_draws(torch, name):
    def scenario(lib):
        D = lib.distributions
        d, _, _ = _make(lib, name, "float64")
        scalar = {"Geometric": lambda: D.Geometric(0.3), "Poisson": lambda: D.Poisson(3.0),
                  "Binomial": lambda: D.Binomial(6, lib.tensor(0.3))}[name]()
        return [d.sample((2,)), scalar.sample(), scalar.sample((3,)), scalar.batch_shape,
                repr(scalar), lib.rand(1)]
    agree(seeded(scenario, 9))


@pytest.mark.parametrize("name, logits", CASES)
def test_expand(torch, name, logits):
    def scenario(lib):
        d, _, _ = _make(lib, name, "float32", logits)
        e = d.expand([3, 2, 3])
        out = [e.batch_shape, repr(e), e.mean, e.sample(), e._validate_args, type(e).__name__]
        if name != "Poisson":
            out.append(sorted(k for k in ("probs", "logits") if k in vars(e)))
        return out
    agree(seeded(scenario), 1e-6)


@pytest.mark.parametrize("name, kwargs", [
    ("Geometric", {"probs": [0.5, 0.0]}), ("Geometric", {"probs": [0.5, 1.5]}),
    ("Geometric", {"probs": 0.0}), ("Geometric", {"logits": [0.0, float("nan")]}),
    ("Geometric", {}), ("Geometric", {"probs": 0.5, "logits": 0.0}),
    ("Poisson", {"rate": [1.0, -1.0]}), ("Poisson", {"rate": -0.5}),
    ("Binomial", {"total_count": [2.0, 2.5], "probs": [0.5, 0.5]}),
    ("Binomial", {"total_count": -1, "probs": [0.5]}),
    ("Binomial", {"total_count": 3, "probs": [0.5, 1.5]}),
    ("Binomial", {"total_count": 3}),
])
def test_bad_parameters_raise_torchs_error(torch, name, kwargs):
    def build(lib, **extra):
        args = {k: lib.tensor(v) if isinstance(v, list) else v for k, v in kwargs.items()}
        return getattr(lib.distributions, name)(**args, **extra)
    agree(lambda lib: repr(build(lib)), raises=True)
    if len(kwargs) == 1 and "total_count" not in kwargs or len(kwargs) == 2 and name == "Binomial":
        agree(lambda lib: repr(build(lib, validate_args=False)))


@pytest.mark.parametrize("name", ["Geometric", "Poisson", "Binomial"])
@pytest.mark.parametrize("value", ["number", "wrong_event", "fraction", "negative", "too_many"])
def test_bad_values_raise_torchs_error(torch, name, value):
    def scenario(lib):
        d, _, _ = _make(lib, name)
        v = {"number": 1.0, "wrong_event": lib.zeros(2), "fraction": lib.tensor([0.5, 1.0, 2.0]),
             "negative": lib.tensor([-1.0, 0.0, 1.0]), "too_many": lib.tensor([0.0, 0.0, 4.0])
             }[value]
        return d.log_prob(v)
    # only the binomial's support stops at total_count
    agree(scenario, raises=name == "Binomial" or value != "too_many", rtol=1e-6)


def test_geometric_probs_one_at_zero_and_unvalidated_values(torch):
    def scenario(lib):
        D = lib.distributions
        d = D.Geometric(lib.tensor([1.0, 1.0, 0.5]))
        p = D.Poisson(lib.tensor([0.0, 2.0]), validate_args=False)
        return [d.log_prob(lib.tensor([0.0, 2.0, 0.0])), d.entropy(),
                p.log_prob(lib.tensor([0.0, 1.5])),
                D.Binomial(2, lib.tensor(0.5), validate_args=False).log_prob(lib.tensor(3.0))]
    agree(scenario, 1e-6)


def test_gradcheck_log_prob_in_float64():
    dt = gradtrack.float64
    D = gradtrack.distributions
    p = gradtrack.tensor([0.3, 0.8], dtype=dt, requires_grad=True)
    z = gradtrack.tensor([-0.4, 1.3], dtype=dt, requires_grad=True)
    rate = gradtrack.tensor([0.7, 3.5], dtype=dt, requires_grad=True)
    k = gradtrack.tensor([2.0, 1.0], dtype=dt)
    assert gradtrack.autograd.gradcheck(lambda a: D.Geometric(a).log_prob(k), (p,))
    assert gradtrack.autograd.gradcheck(lambda a: D.Geometric(logits=a).log_prob(k), (z,))
    assert gradtrack.autograd.gradcheck(lambda a: D.Geometric(a).entropy(), (p,))
    assert gradtrack.autograd.gradcheck(lambda a: D.Poisson(a).log_prob(k), (rate,))
    assert gradtrack.autograd.gradcheck(lambda a: D.Binomial(3, a).log_prob(k), (p,))
    assert gradtrack.autograd.gradcheck(lambda a: D.Binomial(3, logits=a).log_prob(k), (z,))
    assert gradtrack.autograd.gradcheck(lambda a: D.Binomial(3, a).entropy(), (p,))
