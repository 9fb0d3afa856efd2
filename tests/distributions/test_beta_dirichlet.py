"""Beta and Dirichlet against torch.distributions: values, shapes, dtypes, grad_fns
(``_DirichletBackward`` for the reparameterized draws), gradients (including the
pathwise gradients of rsample), seeded draws (and the stream after them), modes at
the edges, reprs and argument errors with validation on and off."""

import pytest
from dist_parity import agree, grads, seeded

import gradtrack

ALPHA = [[0.3, 1.0, 2.5], [4.0, 0.5, 9.0]]
BETA = [[0.5, 1.25, 3.0], [2.0, 0.1, 0.75]]
UNIT = [[0.1, 0.5, 0.9], [1e-3, 0.3, 0.75]]
CONC = [[[0.3, 1.0, 2.5], [4.0, 0.5, 9.0]], [[0.7, 0.2, 0.9], [1.0, 1.0, 1.0]]]
SIMPLEX = [[0.2, 0.3, 0.5], [0.1, 0.6, 0.3]]
# lgamma, digamma and xlogy kernels may round differently from torch's in the last bit
ROUNDED = {"float32": 1e-5, "float64": 1e-13}
NAMES = ["Beta", "Dirichlet"]


def _make(lib, name, dtype="float32", requires_grad=True):
    """The distribution, its parameters and a value in its support."""
    dt = getattr(lib, dtype)
    D = lib.distributions
    if name == "Dirichlet":
        conc = lib.tensor(CONC, dtype=dt, requires_grad=requires_grad)
        return D.Dirichlet(conc), [conc], lib.tensor(SIMPLEX, dtype=dt, requires_grad=True)
    a = lib.tensor(ALPHA, dtype=dt, requires_grad=requires_grad)
    b = lib.tensor(BETA, dtype=dt, requires_grad=requires_grad)
    return D.Beta(a, b), [a, b], lib.tensor(UNIT, dtype=dt, requires_grad=True)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_properties_and_shapes(torch, name, dtype):
    def scenario(lib):
        d, params, _ = _make(lib, name, dtype)
        out = [d.batch_shape, d.event_shape, d.mean, d.mode, d.stddev, d.variance,
               d.entropy(), d.perplexity(), d.has_rsample, d.has_enumerate_support,
               repr(d.support), repr(d.arg_constraints), repr(d), type(d).__mro__[1].__name__]
        if name == "Beta":
            out += [d.concentration1, d.concentration0, repr(d._dirichlet),
                    d._dirichlet.concentration]
        out.append(grads(lib, d.mean + d.variance + d.mode, params))
        return out
    agree(scenario, ROUNDED[dtype])


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_log_prob_entropy_and_their_gradients(torch, name, dtype):
    def scenario(lib):
        d, params, value = _make(lib, name, dtype)
        out = []
        for r, inputs in ((d.log_prob(value), params + [value]), (d.entropy(), params),
                          (d._log_normalizer(*d._natural_params), params)):
            out += [r, grads(lib, r, inputs)]
        return out
    agree(scenario, ROUNDED[dtype])


@pytest.mark.parametrize("name", NAMES)
def test_no_carrier_measure_so_no_exponential_family_entropy(torch, name):
    def scenario(lib):
        d, _, _ = _make(lib, name)
        return lib.distributions.ExponentialFamily.entropy(d)
    agree(scenario, raises=True)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("shape", [(), (5,), (2, 1)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_seeded_sample_and_rsample_are_torchs_with_their_pathwise_gradients(torch, name,
                                                                            shape, dtype):
    def scenario(lib):
        d, params, _ = _make(lib, name, dtype)
        x = d.rsample(shape)
        w = lib.linspace(-1.0, 2.0, x.numel(), dtype=x.dtype).view(x.shape)
        return [x, grads(lib, x * w, params), grads(lib, x.log(), params),
                d.sample(lib.Size(shape)), lib.rand(2)]
    agree(seeded(scenario, 3), ROUNDED[dtype])


def test_dirichlet_rsample_node_and_backward_helper(torch):
    def scenario(lib):
        conc = lib.tensor([[0.5, 2.0, 1.0], [3.0, 3.0, 0.1]], requires_grad=True)
        x = lib.distributions.Dirichlet(conc).rsample()
        node = x.grad_fn
        mod = getattr(lib.distributions, "dirichlet")
        g = mod._Dirichlet_backward(x.detach(), conc.detach(), lib.ones_like(x))
        (gx,) = lib.autograd.grad(x[:, 0].sum(), conc, create_graph=True)
        return [type(node).__name__, len(node.next_functions),
                type(node.next_functions[0][0]).__name__, g, gx, gx.requires_grad]
    agree(seeded(scenario, 1), 1e-6)


def test_dirichlet_backward_is_once_differentiable(torch):
    def scenario(lib):
        conc = lib.tensor([0.5, 2.0, 1.0], requires_grad=True)
        x = lib.distributions.Dirichlet(conc).rsample()
        (gx,) = lib.autograd.grad(x[0], conc, create_graph=True)
        return lib.autograd.grad(gx.sum(), conc)
    agree(seeded(scenario, 1), raises=True)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_modes_at_the_edges(torch, dtype):
    def scenario(lib):
        dt = getattr(lib, dtype)
        D = lib.distributions
        conc = lib.tensor([[0.5, 0.5, 0.5], [0.2, 0.9, 0.5], [2.0, 0.5, 0.5], [1.0, 1.0, 1.0],
                           [0.9, 2.0, 3.0]], dtype=dt)
        beta = D.Beta(lib.tensor([0.5, 0.2, 2.0, 1.0, 5.0], dtype=dt),
                      lib.tensor([0.5, 0.9, 0.5, 1.0, 0.3], dtype=dt))
        return [D.Dirichlet(conc).mode, beta.mode, D.Beta(1.0, 1.0).mode]
    agree(scenario)


def test_numbers_give_an_empty_batch_of_the_default_dtype(torch):
    def scenario(lib):
        D = lib.distributions
        b = D.Beta(2.0, 3)
        wide = D.Beta(lib.tensor([2.0, 1.0], dtype=lib.float64), 0.5)
        return [b.batch_shape, b.event_shape, repr(b), b.mean, b.variance, b.concentration1,
                b.sample(), b.sample((2,)), wide.batch_shape, repr(wide), wide.stddev,
                wide.sample(), D.Dirichlet(lib.tensor([1.0, 2.0])).batch_shape]
    agree(seeded(scenario))


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
        d, _, value = _make(lib, name, requires_grad=False)
        e = d.expand([3, 2, 2] if name == "Dirichlet" else [4, 2, 3])
        return [e.batch_shape, e.event_shape, repr(e), e.mean, e.variance, e.sample(),
                e._validate_args, type(e).__name__, e.log_prob(value.detach())]
    agree(seeded(scenario), 1e-6)


@pytest.mark.parametrize("name, args", [
    ("Beta", ([1.0, -1.0], 1.0)), ("Beta", (1.0, 0.0)), ("Beta", ([1.0, float("nan")], [1.0, 1.0])),
    ("Dirichlet", ([1.0, -1.0],)), ("Dirichlet", ([[1.0, 1.0], [0.0, 2.0]],)),
    ("Dirichlet", (1.0,)),
])
def test_bad_parameters_raise_torchs_error(torch, name, args):
    def scenario(lib):
        values = [lib.tensor(a) if isinstance(a, list) or name == "Dirichlet" else a for a in args]
        return repr(getattr(lib.distributions, name)(*values))
    agree(scenario, raises=True)

    def unchecked(lib):
        values = [lib.tensor(a) if isinstance(a, list) or name == "Dirichlet" else a for a in args]
        d = getattr(lib.distributions, name)(*values, validate_args=False)
        v = lib.tensor(0.5) if name == "Beta" else lib.full(d.event_shape, 0.5)
        return [repr(d), d.log_prob(v)]
    if args != (1.0,):
        agree(unchecked, 1e-6)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("value", ["number", "wrong_event", "not_broadcastable", "outside"])
def test_bad_values_raise_torchs_error(torch, name, value):
    def scenario(lib):
        d, _, _ = _make(lib, name, requires_grad=False)
        v = {"number": 0.5, "wrong_event": lib.full((2,), 0.5),
             "not_broadcastable": lib.full((4, 3, 2), 0.5),
             "outside": (lib.tensor([0.5, 1.5, 0.5]) if name == "Beta"
                         else lib.tensor([0.5, 0.6, 0.1]))}[value]
        return [d.log_prob(v)]
    agree(scenario, raises=True)


def test_log_prob_broadcasts(torch):
    def scenario(lib):
        b, _, _ = _make(lib, "Beta")
        d, _, _ = _make(lib, "Dirichlet")
        return [b.log_prob(lib.full((4, 1, 3), 0.25)), d.log_prob(lib.full((3, 1, 1, 3), 1 / 3)),
                d.log_prob(lib.tensor([1.0, 0.0, 0.0]))]
    agree(scenario, 1e-6)


def test_gradcheck_log_prob_in_float64():
    dt = gradtrack.float64
    a = gradtrack.tensor([0.7, 3.9], dtype=dt, requires_grad=True)
    b = gradtrack.tensor([1.3, 0.4], dtype=dt, requires_grad=True)
    value = gradtrack.tensor([0.1, 0.4], dtype=dt, requires_grad=True)
    Beta = gradtrack.distributions.Beta
    assert gradtrack.autograd.gradcheck(lambda x, y, v: Beta(x, y).log_prob(v), (a, b, value))
    Dirichlet = gradtrack.distributions.Dirichlet
    conc = gradtrack.tensor([0.7, 3.9, 1.5], dtype=dt, requires_grad=True)
    assert gradtrack.autograd.gradcheck(lambda c: Dirichlet(c).entropy(), (conc,))
