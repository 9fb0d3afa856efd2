"""StudentT, FisherSnedecor and NegativeBinomial against torch.distributions: values,
shapes, dtypes, grad_fns, gradients (including the pathwise gradients of rsample in
the degrees of freedom), seeded draws (and the stream after them), the probs/logits
pair, reprs and argument errors with validation on and off."""

import pytest
from dist_parity import agree, grads, seeded

import gradtrack

DF = [[0.5, 1.0, 1.5], [2.0, 4.5, 30.0]]
LOC = [0.5, -1.25, 3.0]
SCALE = [[0.3, 1.5, 2.25], [1.0, 0.2, 4.0]]
DF2 = [[0.7, 2.0, 3.0], [4.0, 5.5, 12.0]]
REAL = [[0.1, -2.0, 4.5], [1.0, 0.25, -3.0]]
POSITIVE = [[0.1, 2.0, 4.5], [1.0, 0.25, 3.0]]
TOTAL = [[0.0, 2.0, 0.5], [5.0, 1.0, 30.0]]
PROBS = [[0.1, 0.5, 0.0], [0.75, 0.3, 0.9]]
LOGITS = [[-2.0, 0.0, 3.0], [1.0, -0.5, 10.0]]
COUNTS = [[0.0, 2.0, 0.0], [5.0, 1.0, 3.0]]
# lgamma, digamma, polygamma, log1p and logsigmoid kernels may round differently from
# torch's in the last bit; in float32 gradients a difference of digammas of nearby
# arguments makes that a few 1e-5 relative
ROUNDED = {"float32": 5e-5, "float64": 1e-13}
NAMES = ["StudentT", "FisherSnedecor", "NegativeBinomial", "NegativeBinomialLogits"]


def _make(lib, name, dtype="float32", requires_grad=True):
    """The distribution, its parameters and a value in its support."""
    dt = getattr(lib, dtype)
    D = lib.distributions

    def t(v, grad=requires_grad):
        return lib.tensor(v, dtype=dt, requires_grad=grad)
    if name == "StudentT":
        params = [t(DF), t(LOC), t(SCALE)]
        return D.StudentT(*params), params, t(REAL, True)
    if name == "FisherSnedecor":
        params = [t(DF), t(DF2)]
        return D.FisherSnedecor(*params), params, t(POSITIVE, True)
    total = t(TOTAL, False)
    if name == "NegativeBinomial":
        p = t(PROBS)
        return D.NegativeBinomial(total, probs=p), [p], t(COUNTS, False)
    p = t(LOGITS)
    return D.NegativeBinomial(total, logits=p), [p], t(COUNTS, False)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_properties_and_shapes(torch, name, dtype):
    def scenario(lib):
        d, params, _ = _make(lib, name, dtype)
        out = [d.batch_shape, d.event_shape, d.mean, d.mode, d.stddev, d.variance,
               d.has_rsample, d.has_enumerate_support, repr(d.support),
               repr(d.arg_constraints), repr(d), type(d).__mro__[1].__name__]
        if name == "StudentT":
            out += [d.entropy(), repr(d._chi2), d._chi2.df]
        if name == "FisherSnedecor":
            out += [repr(d._gamma1), repr(d._gamma2), d._gamma1.concentration, d._gamma2.rate]
        if name.startswith("NegativeBinomial"):
            out += [d.probs, d.logits, repr(d), d.param_shape, d.total_count,
                    repr(d._gamma), d._gamma.rate, grads(lib, d.mean + d.variance, params)]
        return out
    agree(scenario, ROUNDED[dtype])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_student_t_entropy_gradient(torch, dtype):
    # d/d(df) of the entropy is a difference of nearly equal trigamma terms for large df:
    # a last-bit difference of those kernels is then a larger relative one
    def scenario(lib):
        d, params, _ = _make(lib, "StudentT", dtype)
        return grads(lib, d.entropy(), params)
    agree(scenario, {"float32": 1e-3, "float64": 1e-11}[dtype])


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_log_prob_and_its_gradients(torch, name, dtype):
    def scenario(lib):
        d, params, value = _make(lib, name, dtype)
        r = d.log_prob(value)
        inputs = params + ([value] if value.requires_grad else [])
        out = [r, grads(lib, r, inputs)]
        if name.startswith("NegativeBinomial"):
            total = lib.tensor(TOTAL, dtype=getattr(lib, dtype), requires_grad=True)
            kw = {"probs" if name == "NegativeBinomial" else "logits": params[0]}
            r = lib.distributions.NegativeBinomial(total, **kw).log_prob(value)
            out += [r, grads(lib, r, [total])]
        return out
    agree(scenario, ROUNDED[dtype])


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("shape", [(), (5,), (2, 1)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_seeded_draws_are_torchs_with_their_pathwise_gradients(torch, name, shape, dtype):
    def scenario(lib):
        d, params, _ = _make(lib, name, dtype)
        out = []
        if d.has_rsample:
            x = d.rsample(shape)
            out += [x, grads(lib, x.atan(), params)]
        return out + [d.sample(lib.Size(shape)), lib.rand(2)]
    agree(seeded(scenario, 3), ROUNDED[dtype])


def test_seeded_float64_draws_with_a_generator_stream_after(torch):
    def scenario(lib):
        out = []
        for name in NAMES:
            d, _, _ = _make(lib, name, "float64", requires_grad=False)
            out += [d.sample((3,))]
            if d.has_rsample:
                out.append(d.rsample())
        return out + [lib.rand(1, dtype=lib.float64), lib.randn(2)]
    agree(seeded(scenario, 11))


def test_numbers_give_the_default_dtype(torch):
    def scenario(lib):
        D = lib.distributions
        out = []
        for d in (D.StudentT(3.0), D.StudentT(3, 1, 2), D.FisherSnedecor(3.0, 5),
                  D.StudentT(lib.tensor([3.0], dtype=lib.float64), 1.0),
                  D.FisherSnedecor(lib.tensor([3.0, 9.0], dtype=lib.float64), 5.0),
                  D.NegativeBinomial(3, probs=lib.tensor(0.25)),
                  D.NegativeBinomial(3.0, logits=lib.tensor([0.5], dtype=lib.float64))):
            out += [d.batch_shape, repr(d), d.mean, d.variance, d.sample(), d.sample((2,))]
        return out
    agree(seeded(scenario), 1e-6)


@pytest.mark.parametrize("name", NAMES)
def test_expand(torch, name):
    def scenario(lib):
        d, _, value = _make(lib, name, requires_grad=False)
        e = d.expand([4, 2, 3])
        return [e.batch_shape, repr(e), e.mode, e.variance, e.sample(), e._validate_args,
                type(e).__name__, e.log_prob(value.detach())]
    agree(seeded(scenario), 1e-6)


# inner: the Chi2 or Gamma inside checks its own parameters, with validate_args=False too
@pytest.mark.parametrize("name, args, kwargs, inner", [
    ("StudentT", ([1.0, -1.0],), {}, True), ("StudentT", (0.0,), {}, True),
    ("StudentT", (2.0, float("nan")), {}, False), ("StudentT", (2.0, 0.0, [1.0, 0.0]), {}, False),
    ("FisherSnedecor", ([1.0, -1.0], 1.0), {}, True), ("FisherSnedecor", (1.0, 0.0), {}, True),
    ("NegativeBinomial", ([1.0, -1.0],), {"probs": [0.5]}, False),
    ("NegativeBinomial", (1.0,), {"probs": [0.5, 1.0]}, False),
    ("NegativeBinomial", (1.0,), {"logits": [0.5, float("nan")]}, False),
    ("NegativeBinomial", (1.0,), {}, True),
    ("NegativeBinomial", (1.0,), {"probs": [0.5], "logits": [0.0]}, True),
])
def test_bad_parameters_raise_torchs_error(torch, name, args, kwargs, inner):
    def build(lib, **extra):
        values = [lib.tensor(a) if isinstance(a, list) else a for a in args]
        kw = {k: lib.tensor(v) for k, v in kwargs.items()}
        return getattr(lib.distributions, name)(*values, **kw, **extra)

    agree(lambda lib: repr(build(lib)), raises=True)

    def unchecked(lib):
        d = build(lib, validate_args=False)
        return [repr(d), d.log_prob(lib.tensor(1.0))]
    agree(unchecked, 1e-6, raises=inner)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("value", ["number", "wrong_event", "not_broadcastable", "outside"])
def test_bad_values_raise_torchs_error(torch, name, value):
    def scenario(lib):
        d, _, _ = _make(lib, name, requires_grad=False)
        v = {"number": 1.0, "wrong_event": lib.ones(2), "not_broadcastable": lib.ones(4, 3, 2),
             "outside": lib.tensor([1.0, float("nan"), -1.0])}[value]
        return [d.log_prob(v)]
    agree(scenario, raises=True)


def test_negative_binomial_zero_count_and_unvalidated_values(torch):
    def scenario(lib):
        D = lib.distributions
        d = D.NegativeBinomial(lib.tensor([0.0, 0.0, 2.0]), probs=lib.tensor([0.3, 0.3, 0.3]))
        loose = D.NegativeBinomial(2.0, logits=lib.tensor(0.5), validate_args=False)
        return [d.log_prob(lib.tensor([0.0, 1.0, 0.0])), d.mode, d.sample((2,)),
                loose.log_prob(lib.tensor([0.5, -1.0])), repr(loose)]
    agree(seeded(scenario), 1e-6)


def test_gradcheck_log_prob_and_rsample_in_float64():
    dt = gradtrack.float64
    D = gradtrack.distributions
    df = gradtrack.tensor([0.7, 3.9], dtype=dt, requires_grad=True)
    df2 = gradtrack.tensor([1.3, 6.4], dtype=dt, requires_grad=True)
    value = gradtrack.tensor([1.1, 0.4], dtype=dt, requires_grad=True)
    assert gradtrack.autograd.gradcheck(lambda a, v: D.StudentT(a, 0.3, 2.0).log_prob(v),
                                        (df, value))
    assert gradtrack.autograd.gradcheck(lambda a, b, v: D.FisherSnedecor(a, b).log_prob(v),
                                        (df, df2, value))

    def rsample(loc, scale):
        gradtrack.manual_seed(7)  # the same noise on every evaluation
        return D.StudentT(df.detach(), loc, scale).rsample((3,))
    assert gradtrack.autograd.gradcheck(rsample, (value, df2))
