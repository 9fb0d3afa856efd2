"""kl_divergence and register_kl against torch: each registered pair's values and
gradients, the dispatch rules (most specific pair, ambiguity warning, memoization)
and the errors."""

import pytest
from dist_parity import agree, grads

import gradtrack


def _pair(lib, kind, dtype):
    D, dt = lib.distributions, getattr(lib, dtype)

    def t(v):
        return lib.tensor(v, dtype=dt, requires_grad=True)
    if kind == "normal":
        ps = [t([0.0, 1.0, -2.0]), t([1.0, 0.5, 2.0]), t([0.5, 1.0, 0.0]), t([2.0, 0.5, 0.25])]
        return D.Normal(ps[0], ps[1]), D.Normal(ps[2], ps[3]), ps
    if kind == "bernoulli":
        ps = [t([0.0, 0.3, 1.0, 0.6, 0.5]), t([0.2, 0.0, 0.9, 1.0, 0.5])]
        return D.Bernoulli(ps[0]), D.Bernoulli(ps[1]), ps
    if kind == "bernoulli_logits":
        ps = [t([-1.0, 0.3, 4.0]), t([0.2, -3.0, 0.9])]
        return D.Bernoulli(logits=ps[0]), D.Bernoulli(logits=ps[1]), ps
    if kind == "categorical":
        ps = [t([[0.2, 0.8, 0.0], [0.3, 0.3, 0.4]]), t([[0.5, 0.5, 0.0], [0.1, 0.0, 0.9]])]
        return D.Categorical(ps[0]), D.Categorical(ps[1]), ps
    if kind == "one_hot":
        ps = [t([[0.5, -1.0, 0.0]]), t([[1.0, 1.0, 2.0]])]
        return D.OneHotCategorical(logits=ps[0]), D.OneHotCategorical(logits=ps[1]), ps
    if kind == "uniform":
        ps = [t([0.0, -1.0, 0.5]), t([1.0, 1.0, 2.0]), t([-0.5, -1.0, 1.0]), t([2.0, 0.5, 3.0])]
        return D.Uniform(ps[0], ps[1]), D.Uniform(ps[2], ps[3]), ps
    if kind == "uniform_normal":
        ps = [t([0.0, -1.0]), t([1.0, 3.0]), t([0.5, 0.0]), t([2.0, 0.5])]
        return D.Uniform(ps[0], ps[1]), D.Normal(ps[2], ps[3]), ps
    if kind == "normal_uniform":
        ps = [t([0.0, -1.0]), t([1.0, 3.0]), t([-5.0, 0.0]), t([5.0, 0.5])]
        return D.Normal(ps[0], ps[1]), D.Uniform(ps[2], ps[3]), ps
    if kind == "independent":
        ps = [t([[0.0, 1.0], [2.0, 0.5]]), t([[1.0, 2.0], [0.0, -1.0]])]
        return (D.Independent(D.Normal(ps[0], 1.5), 1),
                D.Independent(D.Normal(ps[1], 0.5), 1), ps)
    return _pair_of_newer(lib, kind, D, t)


def _pair_of_newer(lib, kind, D, t):
    """The pairs of the distributions added after the first ones."""
    loc, scale = [0.0, 1.0, -2.0], [1.0, 0.5, 2.0]
    loc2, scale2 = [0.5, 1.0, 3.0], [2.0, 0.5, 0.25]
    two = {  # (p's class, q's class, p's parameters, q's parameters)
        "exponential": (D.Exponential, D.Exponential, [scale], [scale2]),
        "laplace": (D.Laplace, D.Laplace, [loc, scale], [loc2, scale2]),
        "cauchy": (D.Cauchy, D.Cauchy, [loc, scale], [loc2, scale2]),
        "gumbel": (D.Gumbel, D.Gumbel, [loc, scale], [[0.5, 2.0, 1.0], [2.0, 1.5, 1.0]]),
        "half_normal": (D.HalfNormal, D.HalfNormal, [scale], [scale2]),
        "log_normal": (D.LogNormal, D.LogNormal, [loc, scale], [loc2, scale2]),
        "poisson": (D.Poisson, D.Poisson, [[0.5, 2.0, 7.0]], [[1.0, 2.0, 0.25]]),
        "geometric": (D.Geometric, D.Geometric, [[0.2, 0.5, 0.9]], [[0.5, 0.1, 0.9]]),
        "normal_laplace": (D.Normal, D.Laplace, [loc, scale], [loc2, scale2]),
        "laplace_normal": (D.Laplace, D.Normal, [loc, scale], [loc2, scale2]),
        "exponential_normal": (D.Exponential, D.Normal, [scale], [loc2, scale2]),
        "exponential_gumbel": (D.Exponential, D.Gumbel, [scale], [loc2, scale2]),
        "gumbel_normal": (D.Gumbel, D.Normal, [loc, scale], [loc2, scale2]),
        "normal_gumbel": (D.Normal, D.Gumbel, [loc, scale], [loc2, scale2]),
        "uniform_gumbel": (D.Uniform, D.Gumbel, [loc, [1.0, 1.5, 0.0]], [loc2, scale2]),
        "uniform_exponential": (D.Uniform, D.Exponential, [[0.0, -1.0, 0.5], [1.0, 1.0, 2.0]],
                                [scale2]),
        "bernoulli_poisson": (D.Bernoulli, D.Poisson, [[0.2, 0.5, 0.9]], [[1.0, 2.0, 0.25]]),
        "normal_exponential": (D.Normal, D.Exponential, [loc, scale], [scale2]),
        "laplace_uniform": (D.Laplace, D.Uniform, [loc, scale], [[-5.0, 0.0, 1.0], loc2]),
        "gumbel_exponential": (D.Gumbel, D.Exponential, [loc, scale], [scale2]),
        "exponential_uniform": (D.Exponential, D.Uniform, [scale], [[-5.0, 0.0, 1.0], loc2]),
        "poisson_bernoulli": (D.Poisson, D.Bernoulli, [[0.5, 2.0, 7.0]], [[0.2, 0.5, 0.9]]),
    }
    if kind in two:
        P, Q, p_args, q_args = two[kind]
        ps = [t(a) for a in p_args + q_args]
        return P(*ps[:len(p_args)]), Q(*ps[len(p_args):]), ps
    if kind == "binomial":
        ps = [t([0.2, 0.5, 0.9, 0.3]), t([0.5, 0.1, 0.9, 0.3])]
        total = lib.tensor([5.0, 5.0, 3.0, 4.0])
        return D.Binomial(total, ps[0]), D.Binomial(lib.tensor([5.0, 5.0, 3.0, 2.0]), ps[1]), ps
    if kind in ("mvn", "mvn_batch"):
        cov = t([[2.0, 0.3, -0.4], [0.3, 1.0, 0.2], [-0.4, 0.2, 1.5]])
        tril = t([[1.0, 0.0, 0.0], [0.5, 2.0, 0.0], [-1.0, 0.25, 0.5]])
        locs = [t([0.5, -1.0, 2.0]), t([[0.0, 1.5, -0.5], [1.0, 1.0, 1.0]])]
        if kind == "mvn":
            return (D.MultivariateNormal(locs[0], cov), D.MultivariateNormal(locs[1][0], scale_tril=tril),
                    locs + [cov, tril])
        return (D.MultivariateNormal(locs[1], precision_matrix=cov),
                D.MultivariateNormal(locs[0], scale_tril=tril.expand(2, 3, 3)), locs + [cov, tril])
    if kind == "transformed":
        ps = [t(loc), t(scale), t(loc2), t(scale2)]
        T = D.transforms

        def chain():
            return [T.AffineTransform(1.0, 2.0), T.ExpTransform()]
        return (D.TransformedDistribution(D.Normal(ps[0], ps[1]), chain()),
                D.TransformedDistribution(D.Normal(ps[2], ps[3]), chain()), ps)
    raise AssertionError(kind)


KINDS = ["normal", "bernoulli", "bernoulli_logits", "categorical", "one_hot", "uniform",
         "uniform_normal", "normal_uniform", "independent", "exponential", "laplace", "cauchy",
         "gumbel", "half_normal", "log_normal", "poisson", "geometric", "normal_laplace",
         "laplace_normal", "exponential_normal", "exponential_gumbel", "gumbel_normal",
         "normal_gumbel", "uniform_gumbel", "uniform_exponential", "bernoulli_poisson",
         "normal_exponential", "laplace_uniform", "gumbel_exponential", "exponential_uniform",
         "poisson_bernoulli", "binomial", "mvn", "mvn_batch", "transformed"]
# Through softplus, softmax or logsumexp, whose kernels may round differently from torch's
# in the last bit; the others are bit for bit.
ROUNDED = {"bernoulli_logits": {"float32": 1e-6, "float64": 1e-14},
           "one_hot": {"float32": 1e-6, "float64": 1e-14}}
# and through lgamma, log1p, erf, exp, cholesky and the triangular solves
ROUNDED.update({kind: {"float32": 1e-5, "float64": 1e-13} for kind in [
    "gumbel", "geometric", "normal_laplace", "exponential_gumbel", "normal_gumbel",
    "uniform_gumbel", "bernoulli_poisson", "binomial", "mvn", "mvn_batch", "log_normal",
    "transformed", "poisson", "laplace", "cauchy", "laplace_normal", "exponential_normal",
    "gumbel_normal"]})


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_registered_pairs_values_and_gradients(torch, kind, dtype):
    def scenario(lib):
        p, q, params = _pair(lib, kind, dtype)
        kl = lib.distributions.kl_divergence(p, q)
        if not kl.requires_grad:  # an infinite KL that no parameter moves
            return [kl]
        finite = kl.detach().isfinite()
        return [kl, grads(lib, kl.where(finite, lib.zeros_like(kl)), params)]
    agree(scenario, ROUNDED.get(kind, {}).get(dtype, 0.0))


def test_exponential_families_of_one_type_use_bregman(torch):
    # the generic exponential-family KL, called directly as torch registers it
    def scenario(lib):
        loc = lib.tensor([0.0, 1.0], dtype=lib.float64, requires_grad=True)
        p = lib.distributions.Normal(loc, 1.5)
        q = lib.distributions.Normal(lib.tensor([1.0, 1.0], dtype=lib.float64), 0.5)
        kl = lib.distributions.kl._kl_expfamily_expfamily(p, q)
        b = lib.distributions.kl._kl_expfamily_expfamily(
            lib.distributions.Bernoulli(lib.tensor([0.25], dtype=lib.float64)),
            lib.distributions.Bernoulli(lib.tensor([0.5], dtype=lib.float64)))
        entropy = lib.distributions.ExponentialFamily.entropy(p)
        return [kl, grads(lib, kl, [loc]), b, entropy]
    agree(scenario, rtol=1e-12)


@pytest.mark.parametrize("kind", ["normal_bernoulli", "categorical_normal", "independent_dims"])
def test_unregistered_pairs_raise_torchs_error(torch, kind):
    def scenario(lib):
        D = lib.distributions
        if kind == "normal_bernoulli":
            return D.kl_divergence(D.Normal(0.0, 1.0), D.Bernoulli(0.5))
        if kind == "categorical_normal":
            return D.kl_divergence(D.Categorical(lib.ones(2)), D.Normal(0.0, 1.0))
        return D.kl_divergence(D.Independent(D.Normal(lib.zeros(2, 2), 1.0), 1),
                               D.Independent(D.Normal(lib.zeros(2, 2), 1.0), 2))
    agree(scenario, raises=True)


@pytest.mark.parametrize("kind", ["mvn_event_shapes", "binomial_counts", "other_transforms",
                                  "half_normal_log_normal", "exponential_poisson",
                                  "gumbel_laplace", "cauchy_normal", "transformed_event_shapes"])
def test_pairs_torch_refuses_raise_its_error(torch, kind):
    def scenario(lib):
        D, T = lib.distributions, lib.distributions.transforms
        return D.kl_divergence(*{
            "mvn_event_shapes": lambda: (D.MultivariateNormal(lib.zeros(2), lib.eye(2)),
                                         D.MultivariateNormal(lib.zeros(3), lib.eye(3))),
            "binomial_counts": lambda: (D.Binomial(2, lib.tensor([0.5])),
                                        D.Binomial(3, lib.tensor([0.5]))),
            "other_transforms": lambda: (
                D.TransformedDistribution(D.Normal(0.0, 1.0), [T.ExpTransform()]),
                D.TransformedDistribution(D.Normal(0.0, 1.0), [T.TanhTransform()])),
            "half_normal_log_normal": lambda: (D.HalfNormal(1.0), D.LogNormal(0.0, 1.0)),
            "exponential_poisson": lambda: (D.Exponential(1.0), D.Poisson(1.0)),
            "gumbel_laplace": lambda: (D.Gumbel(0.0, 1.0), D.Laplace(0.0, 1.0)),
            "cauchy_normal": lambda: (D.Cauchy(0.0, 1.0), D.Normal(0.0, 1.0)),
            "transformed_event_shapes": lambda: (
                D.TransformedDistribution(D.Normal(lib.zeros(2), 1.0),
                                          [T.AffineTransform(0.0, 1.0, event_dim=1)]),
                D.TransformedDistribution(D.Normal(lib.zeros(2), 1.0), [])),
        }[kind]())
    agree(scenario, raises=True)


def test_dispatch_takes_the_most_specific_pair_and_warns_when_ambiguous(torch):
    def scenario(lib):
        D = lib.distributions
        register = D.register_kl

        class LeftNormal(D.Normal):
            pass

        class RightNormal(D.Normal):
            pass

        register(LeftNormal, D.Normal)(lambda p, q: lib.tensor(1.0))
        register(D.Normal, RightNormal)(lambda p, q: lib.tensor(2.0))
        try:
            n, left, right = D.Normal(0.0, 1.0), LeftNormal(0.0, 1.0), RightNormal(0.0, 1.0)
            return [D.kl_divergence(left, n), D.kl_divergence(n, right),
                    D.kl_divergence(left, right), D.kl_divergence(left, right),
                    D.kl_divergence(n, n)]
        finally:
            for pair in [(LeftNormal, D.Normal), (D.Normal, RightNormal)]:
                D.kl._KL_REGISTRY.pop(pair)
            D.kl._KL_MEMOIZE.clear()
    agree(scenario)


def test_registering_clears_the_memo_and_refuses_non_classes(torch):
    def scenario(lib):
        D = lib.distributions

        class Mine(D.Uniform):
            pass
        before = D.kl_divergence(Mine(0.0, 1.0), Mine(0.0, 2.0))
        D.register_kl(Mine, Mine)(lambda p, q: lib.tensor(-1.0))
        try:
            after = D.kl_divergence(Mine(0.0, 1.0), Mine(0.0, 2.0))
        finally:
            D.kl._KL_REGISTRY.pop((Mine, Mine))
            D.kl._KL_MEMOIZE.clear()
        return [before, after, D.register_kl(Mine, int) is not None]
    agree(scenario)
    agree(lambda lib: lib.distributions.register_kl(1, lib.distributions.Normal), raises=True)
    agree(lambda lib: lib.distributions.register_kl(lib.distributions.Normal, "Normal"), raises=True)


def test_gradcheck_kl_in_float64():
    D, dt = gradtrack.distributions, gradtrack.float64
    a = gradtrack.tensor([0.2, -0.7], dtype=dt, requires_grad=True)
    b = gradtrack.tensor([1.2, 0.4], dtype=dt, requires_grad=True)
    assert gradtrack.autograd.gradcheck(
        lambda m, s: D.kl_divergence(D.Normal(m, s), D.Normal(0.5, 1.5)), (a, b))
    assert gradtrack.autograd.gradcheck(
        lambda z: D.kl_divergence(D.Categorical(logits=z), D.Categorical(logits=-z)), (a,))
    assert gradtrack.autograd.gradcheck(
        lambda z: D.kl_divergence(D.Bernoulli(logits=z), D.Bernoulli(0.3)), (a,))
    for P, Q in ((D.Laplace, D.Laplace), (D.Normal, D.Laplace), (D.Gumbel, D.Gumbel),
                 (D.LogNormal, D.LogNormal), (D.Cauchy, D.Cauchy)):
        assert gradtrack.autograd.gradcheck(
            lambda m, s, P=P, Q=Q: D.kl_divergence(P(m, s), Q(0.5, 1.5)), (a, b))
    assert gradtrack.autograd.gradcheck(
        lambda r: D.kl_divergence(D.Exponential(r), D.Exponential(2.0)), (b,))
    assert gradtrack.autograd.gradcheck(
        lambda r: D.kl_divergence(D.Poisson(r), D.Poisson(gradtrack.tensor([1.0, 3.0],
                                                                            dtype=dt))), (b,))
    L = gradtrack.tensor([[1.2, 0.0], [-0.3, 0.7]], dtype=dt, requires_grad=True)
    assert gradtrack.autograd.gradcheck(
        lambda m, s: D.kl_divergence(D.MultivariateNormal(m, scale_tril=s.tril()),
                                     D.MultivariateNormal(-m, gradtrack.eye(2, dtype=dt) * 2)),
        (a, L))
