"""Normal against torch.distributions.Normal: values, shapes, dtypes, grad_fns,
gradients, seeded draws, reprs and argument errors."""

import warnings

import pytest
from dist_parity import agree, grads, seeded

import gradtrack

LOC = [[0.5, -1.25, 3.0], [2.0, 0.0, -0.75]]
SCALE = [0.3, 1.5, 2.25]
VALUE = [[0.1, -2.0, 4.5], [1.0, 0.25, -3.0]]


def _params(lib, dtype="float32", requires_grad=True):
    dt = getattr(lib, dtype)
    loc = lib.tensor(LOC, dtype=dt, requires_grad=requires_grad)
    scale = lib.tensor(SCALE, dtype=dt, requires_grad=requires_grad)
    return loc, scale


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_properties_and_shapes(torch, dtype):
    def scenario(lib):
        loc, scale = _params(lib, dtype)
        d = lib.distributions.Normal(loc, scale)
        return [d.batch_shape, d.event_shape, d.loc, d.scale, d.mean, d.mode, d.stddev,
                d.variance, d.entropy(), d.perplexity(), d.has_rsample,
                d.has_enumerate_support, repr(d.support), repr(d.arg_constraints), repr(d)]
    agree(scenario)


def test_numbers_give_an_empty_batch_of_the_default_dtype(torch):
    def scenario(lib):
        d = lib.distributions.Normal(0.0, 1)
        e = lib.distributions.Normal(lib.tensor([1.0, 2.0], dtype=lib.float64), 2)
        return [d.batch_shape, d.loc, d.scale, repr(d), e.scale, e.batch_shape, repr(e)]
    agree(scenario)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_log_prob_cdf_icdf_and_their_gradients(torch, dtype):
    def scenario(lib):
        loc, scale = _params(lib, dtype)
        d = lib.distributions.Normal(loc, scale)
        value = lib.tensor(VALUE, dtype=getattr(lib, dtype), requires_grad=True)
        out = []
        for name in ("log_prob", "cdf"):
            r = getattr(d, name)(value)
            out += [r, grads(lib, r, [loc, scale, value])]
        r = d.entropy()
        out += [r, grads(lib, r, [scale])]
        return out
    agree(scenario)


@pytest.mark.parametrize("dtype, rtol", [("float32", 1e-6), ("float64", 1e-15)])
def test_icdf_and_its_gradient(torch, dtype, rtol):
    # erfinv's kernel may differ from torch's in the last bit (float64)
    def scenario(lib):
        loc, scale = _params(lib, dtype)
        q = lib.tensor([0.1, 0.5, 0.975], dtype=getattr(lib, dtype), requires_grad=True)
        r = lib.distributions.Normal(loc, scale).icdf(q)
        return [r, grads(lib, r, [loc, scale, q])]
    agree(scenario, rtol)


def test_log_prob_broadcasts_a_sample_shape(torch):
    def scenario(lib):
        loc, scale = _params(lib)
        d = lib.distributions.Normal(loc, scale)
        return d.log_prob(lib.zeros(4, 1, 3))
    agree(scenario)


@pytest.mark.parametrize("shape", [(), (5,), (2, 3)])
def test_seeded_sample_is_torchs(torch, shape):
    def scenario(lib):
        loc, scale = _params(lib)
        d = lib.distributions.Normal(loc, scale)
        first = d.sample(shape)
        return [first, d.sample(lib.Size(shape)), lib.rand(2)]  # the stream after it too
    agree(seeded(scenario))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_seeded_rsample_and_its_gradient_are_torchs(torch, dtype):
    def scenario(lib):
        loc, scale = _params(lib, dtype)
        x = lib.distributions.Normal(loc, scale).rsample((4,))
        return [x, grads(lib, x * x, [loc, scale]), lib.rand(1)]
    agree(seeded(scenario, 3))


def test_scalar_sample_and_sample_n(torch):
    def scenario(lib):
        d = lib.distributions.Normal(1.0, 2.0)
        return [d.sample(), d.rsample(), d.sample_n(3)]
    agree(seeded(scenario, 5))


def test_expand(torch):
    def scenario(lib):
        loc, scale = _params(lib, requires_grad=False)
        d = lib.distributions.Normal(loc[0], scale).expand([4, 3])
        e = lib.distributions.Normal(1.0, 2.0).expand((2,))
        return [d.batch_shape, d.loc, d.scale, type(d).__name__, repr(d), e.sample(),
                e._validate_args]
    agree(seeded(scenario))


@pytest.mark.parametrize("loc, scale", [
    ([0.0, 1.0], [1.0, -1.0]),
    ([0.0, 1.0], [1.0, 0.0]),
    ([0.0, float("nan")], [1.0, 1.0]),
    (0.0, -2.0),
])
def test_bad_parameters_raise_torchs_error(torch, loc, scale):
    def scenario(lib):
        def as_t(v):
            return lib.tensor(v) if isinstance(v, list) else v
        return lib.distributions.Normal(as_t(loc), as_t(scale))
    agree(lambda lib: repr(scenario(lib)), raises=True)


def test_infinite_loc_is_real(torch):
    agree(lambda lib: repr(lib.distributions.Normal(float("inf"), 1.0)))


def test_the_documented_message_word_for_word():
    with pytest.raises(ValueError) as info:
        gradtrack.distributions.Normal(gradtrack.tensor([0.0, float("nan")]), gradtrack.ones(2))
    assert str(info.value) == (
        "Expected parameter loc (Tensor of shape (2,)) of distribution "
        "Normal(loc: gradtrack.Size([2]), scale: gradtrack.Size([2])) to satisfy the "
        "constraint Real(), but found invalid values:\ntensor([0., nan])")


def test_validate_args_false_accepts_bad_parameters(torch):
    def scenario(lib):
        d = lib.distributions.Normal(lib.tensor([0.0]), lib.tensor([-1.0]), validate_args=False)
        return [d.scale, d.log_prob(lib.tensor([1.0])), d._validate_args]
    agree(scenario)


@pytest.mark.parametrize("value", ["number", "wrong_event", "not_broadcastable", "nan"])
def test_bad_values_raise_torchs_error(torch, value):
    def scenario(lib):
        d = lib.distributions.Normal(lib.zeros(3), lib.ones(3))
        v = {"number": 1.0, "wrong_event": lib.zeros(2), "not_broadcastable": lib.zeros(2, 4),
             "nan": lib.tensor([0.0, float("nan"), 1.0])}[value]
        return [d.log_prob(v), d.cdf(v)]
    agree(scenario, raises=True)


def test_gradcheck_log_prob_cdf_and_rsample_in_float64():
    dt = gradtrack.float64
    loc = gradtrack.tensor([0.3, -1.0], dtype=dt, requires_grad=True)
    scale = gradtrack.tensor([0.7, 1.9], dtype=dt, requires_grad=True)
    value = gradtrack.tensor([1.1, -0.4], dtype=dt, requires_grad=True)
    Normal = gradtrack.distributions.Normal
    assert gradtrack.autograd.gradcheck(lambda m, s, v: Normal(m, s).log_prob(v),
                                        (loc, scale, value))
    assert gradtrack.autograd.gradcheck(lambda m, s, v: Normal(m, s).cdf(v), (loc, scale, value))

    def rsample(m, s):
        gradtrack.manual_seed(7)  # the same noise on every evaluation
        return Normal(m, s).rsample((3,))
    assert gradtrack.autograd.gradcheck(rsample, (loc, scale))


def test_sample_n_warns_as_torch(torch):
    def scenario(lib):
        return lib.distributions.Normal(0.0, 1.0).sample_n(2).shape
    agree(seeded(scenario))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gradtrack.distributions.Normal(0.0, 1.0).sample_n(1)
    assert caught[0].category is FutureWarning and caught[0].filename == __file__
