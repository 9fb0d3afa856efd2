"""kl_divergence against torch for the pairs with a Beta, ContinuousBernoulli,
Dirichlet, Gamma, Pareto or low-rank multivariate normal (of one kind and of two):
values in float32 and float64, gradients, broadcast batch shapes and infinities; the
registry in torch's order; and, for every ordered pair of distribution classes, the
same result or the same error as torch."""

import pytest
from dist_parity import agree, grads, outcome

import gradtrack

# One distribution's parameters for p and for q, each a batch of 3 chosen so that
# the pairs below meet their special cases (an infinite KL for some entries, the
# continuous Bernoulli's Taylor region near 1/2, Pareto tails without mean or
# variance, intervals inside and across [0, 1]).
P_PARAMS = {
    "Beta": [[0.5, 2.0, 3.0], [1.5, 0.7, 3.0]],
    "ContinuousBernoulli": [[0.2, 0.4995, 0.9]],
    "Exponential": [[1.0, 0.5, 2.0]],
    "Gamma": [[0.5, 2.0, 3.0], [1.0, 0.5, 2.0]],
    "Gumbel": [[0.0, 1.0, -2.0], [1.0, 0.5, 2.0]],
    "Laplace": [[0.0, 1.0, -2.0], [1.0, 0.5, 2.0]],
    "Normal": [[0.0, 1.0, -2.0], [1.0, 0.5, 2.0]],
    "Pareto": [[1.0, 0.5, 2.0], [0.5, 1.5, 3.0]],
    "Uniform": [[0.1, 0.25, -0.5], [0.9, 0.75, 2.0]],
}
Q_PARAMS = {
    "Beta": [[1.0, 0.5, 2.5], [2.0, 0.9, 1.0]],
    "ContinuousBernoulli": [[0.7, 0.3, 0.5005]],
    "Exponential": [[2.0, 0.5, 0.25]],
    "Gamma": [[1.5, 0.5, 2.0], [2.0, 1.0, 0.5]],
    "Gumbel": [[0.5, 2.0, 1.0], [2.0, 1.5, 1.0]],
    "Normal": [[0.5, 1.0, 3.0], [2.0, 0.5, 0.25]],
    "Pareto": [[0.5, 0.75, 2.5], [2.0, 1.0, 3.0]],
    "Uniform": [[0.0, -1.0, 0.2], [1.0, 0.5, 3.0]],
}

# The pairs (of distributions with one batch dimension) whose KL is compared; with
# the low-rank and Dirichlet pairs below, every pair this module is about.
PAIRS = [
    ("Beta", "Beta"), ("ContinuousBernoulli", "ContinuousBernoulli"), ("Gamma", "Gamma"),
    ("Pareto", "Pareto"),
    ("Beta", "ContinuousBernoulli"), ("Beta", "Pareto"), ("Beta", "Exponential"),
    ("Beta", "Gamma"), ("Beta", "Normal"), ("Beta", "Uniform"),
    ("ContinuousBernoulli", "Pareto"), ("ContinuousBernoulli", "Exponential"),
    ("ContinuousBernoulli", "Normal"), ("ContinuousBernoulli", "Uniform"),
    ("Exponential", "Beta"), ("Exponential", "ContinuousBernoulli"), ("Exponential", "Pareto"),
    ("Exponential", "Gamma"),
    ("Gamma", "Beta"), ("Gamma", "ContinuousBernoulli"), ("Gamma", "Pareto"),
    ("Gamma", "Uniform"), ("Gamma", "Exponential"), ("Gamma", "Gumbel"), ("Gamma", "Normal"),
    ("Gumbel", "Beta"), ("Gumbel", "ContinuousBernoulli"), ("Gumbel", "Gamma"),
    ("Gumbel", "Pareto"),
    ("Laplace", "Beta"), ("Laplace", "ContinuousBernoulli"), ("Laplace", "Gamma"),
    ("Laplace", "Pareto"),
    ("Normal", "Beta"), ("Normal", "ContinuousBernoulli"), ("Normal", "Gamma"),
    ("Normal", "Pareto"),
    ("Pareto", "Beta"), ("Pareto", "ContinuousBernoulli"), ("Pareto", "Uniform"),
    ("Pareto", "Exponential"), ("Pareto", "Gamma"), ("Pareto", "Normal"),
    ("Uniform", "Beta"), ("Uniform", "ContinuousBernoulli"), ("Uniform", "Gamma"),
    ("Uniform", "Pareto"),
]

# Through lgamma and digamma (of Beta and Gamma parameters, in the formulas or the
# entropies), and the continuous Bernoulli's variance, whose kernels may round
# differently from torch's in the last bits; the others are bit for bit.
ROUNDED_KINDS = {"Beta", "Gamma"}
ROUNDED_PAIRS = {("ContinuousBernoulli", "Normal")}
RTOL = {"float32": 1e-5, "float64": 1e-13}


def _rtol(pair, dtype):
    return RTOL[dtype] if ROUNDED_KINDS & set(pair) or pair in ROUNDED_PAIRS else 0.0


def _build(lib, name, values, dtype, shape=None):
    dt = getattr(lib, dtype)
    params = [lib.tensor(v, dtype=dt).reshape(shape or (-1,)).requires_grad_() for v in values]
    return getattr(lib.distributions, name)(*params), params


def _finite_kl_and_grads(lib, kl, params):
    if not kl.requires_grad:  # an infinite KL that no parameter moves
        return [kl]
    finite = kl.detach().isfinite()
    return [kl, grads(lib, kl.where(finite, lib.zeros_like(kl)), params)]


@pytest.mark.parametrize("pair", PAIRS, ids="-".join)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_pair_values_and_gradients(torch, pair, dtype):
    def scenario(lib):
        p, p_params = _build(lib, pair[0], P_PARAMS[pair[0]], dtype)
        q, q_params = _build(lib, pair[1], Q_PARAMS[pair[1]], dtype)
        return _finite_kl_and_grads(lib, lib.distributions.kl_divergence(p, q), p_params + q_params)
    agree(scenario, _rtol(pair, dtype))


def _agree_as_torch(scenario, rtol):
    """agree, expecting whatever torch does (some pairs refuse to broadcast their
    infinite entries' mask)."""
    torch = pytest.importorskip("torch")
    (want, _), _ = outcome(torch, scenario)
    return agree(scenario, rtol, raises=want != "ok")


@pytest.mark.parametrize("pair", PAIRS, ids="-".join)
def test_pair_broadcasts_batch_shapes(torch, pair):
    # p's batch (3,) against q's (2, 1): a (2, 3) KL where torch gives one
    def scenario(lib):
        p, p_params = _build(lib, pair[0], P_PARAMS[pair[0]], "float64")
        q, q_params = _build(lib, pair[1], [v[:2] for v in Q_PARAMS[pair[1]]], "float64", (2, 1))
        kl = lib.distributions.kl_divergence(p, q)
        return [kl.shape] + _finite_kl_and_grads(lib, kl, p_params + q_params)
    _agree_as_torch(scenario, _rtol(pair, "float64"))


def _dirichlets(lib, dtype, q_shape):
    dt = getattr(lib, dtype)
    a = lib.tensor([[0.5, 1.0, 2.0], [3.0, 0.25, 1.5]], dtype=dt, requires_grad=True)
    b = lib.tensor([[1.0, 2.0, 0.5]], dtype=dt).reshape(q_shape).requires_grad_()
    return lib.distributions.Dirichlet(a), lib.distributions.Dirichlet(b), [a, b]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("q_shape", [(3,), (1, 1, 3)])
def test_dirichlet_dirichlet(torch, dtype, q_shape):
    def scenario(lib):
        p, q, params = _dirichlets(lib, dtype, q_shape)
        kl = lib.distributions.kl_divergence(p, q)
        return [kl, grads(lib, kl, params)]
    agree(scenario, RTOL[dtype])


def _normals(lib, kinds, dtype, batched):
    """A full or low-rank normal for p and q (kinds "full" / "lowrank"), q with a
    batch of 2 when ``batched``."""
    dt = getattr(lib, dtype)
    D = lib.distributions

    def t(v):
        return lib.tensor(v, dtype=dt, requires_grad=True)
    made, params = [], []
    for i, kind in enumerate(kinds):
        loc = t([[0.5, -1.0, 2.0], [0.0, 1.5, -0.5]] if batched and i else [0.5 * i, -1.0, 2.0])
        if kind == "full":
            tril = t([[1.0 + i, 0.0, 0.0], [0.5, 2.0, 0.0], [-1.0, 0.25, 0.5 + i]])
            made.append(D.MultivariateNormal(loc, scale_tril=tril))
            params += [loc, tril]
        else:
            factor = t([[1.0, 0.5 * i], [-0.5, 2.0], [0.25, 1.0 - i]])
            diag = t([1.5, 0.5 + i, 2.0])
            made.append(D.LowRankMultivariateNormal(loc, factor, diag))
            params += [loc, factor, diag]
    return made[0], made[1], params


@pytest.mark.parametrize("kinds", [("lowrank", "lowrank"), ("full", "lowrank"), ("lowrank", "full")],
                         ids="-".join)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("batched", [False, True])
def test_low_rank_normal_pairs(torch, kinds, dtype, batched):
    def scenario(lib):
        p, q, params = _normals(lib, kinds, dtype, batched)
        kl = lib.distributions.kl_divergence(p, q)
        return [kl, grads(lib, kl, params)]
    # float32 gradients near 0 that cancel in the last bit of larger terms
    agree(scenario, {"float32": 1e-4, "float64": 1e-12}[dtype])


@pytest.mark.parametrize("kinds", [("lowrank", "lowrank"), ("full", "lowrank"), ("lowrank", "full")],
                         ids="-".join)
def test_low_rank_normal_pairs_refuse_other_event_shapes(torch, kinds):
    def scenario(lib):
        D = lib.distributions

        def make(kind, n):
            if kind == "full":
                return D.MultivariateNormal(lib.zeros(n), lib.eye(n))
            return D.LowRankMultivariateNormal(lib.zeros(n), lib.ones(n, 1), lib.ones(n))
        return D.kl_divergence(make(kinds[0], 2), make(kinds[1], 3))
    agree(scenario, raises=True)


def test_kl_through_subclasses_and_independent(torch):
    # Chi2 is a Gamma; Independent sums its bases' KL over the reinterpreted dims
    def scenario(lib):
        D = lib.distributions
        df = lib.tensor([[1.5, 3.0]], dtype=lib.float64, requires_grad=True)
        conc = lib.tensor([[0.5, 2.0], [1.0, 4.0]], dtype=lib.float64, requires_grad=True)
        chi_gamma = D.kl_divergence(D.Chi2(df), D.Gamma(conc, 0.5))
        beta_beta = D.kl_divergence(D.Independent(D.Beta(conc, conc.flip(0)), 1),
                                    D.Independent(D.Beta(conc.flip(1), conc), 1))
        return [chi_gamma, beta_beta, grads(lib, chi_gamma + beta_beta.sum(), [df, conc])]
    agree(scenario, rtol=1e-13)


def test_gradcheck_in_float64():
    D, dt = gradtrack.distributions, gradtrack.float64
    a = gradtrack.tensor([0.7, 2.5], dtype=dt, requires_grad=True)
    b = gradtrack.tensor([1.2, 0.4], dtype=dt, requires_grad=True)
    alpha = gradtrack.tensor([3.2, 2.4], dtype=dt, requires_grad=True)  # finite against a Normal
    for p_args, q in (((D.Beta, a, b), D.Beta(3.0, 1.5)), ((D.Gamma, a, b), D.Gamma(3.0, 1.5)),
                      ((D.Gamma, a, b), D.Normal(3.0, 1.5)), ((D.Beta, a, b), D.Gamma(3.0, 1.5)),
                      ((D.Gamma, a, b), D.Gumbel(3.0, 1.5)), ((D.Pareto, a, alpha), D.Pareto(0.25, 3.0)),
                      ((D.Pareto, a, alpha), D.Normal(3.0, 1.5))):
        P, x, y = p_args
        assert gradtrack.autograd.gradcheck(lambda x, y, P=P, q=q: D.kl_divergence(P(x, y), q), (x, y))
    assert gradtrack.autograd.gradcheck(
        lambda x: D.kl_divergence(D.Dirichlet(x), D.Dirichlet(x.flip(0) + 1)), (a,))
    assert gradtrack.autograd.gradcheck(
        lambda x: D.kl_divergence(D.ContinuousBernoulli(x.sigmoid()), D.ContinuousBernoulli(0.3)), (b,))


def test_registry_lists_torchs_pairs_in_torchs_order(torch):
    # the order decides ties; which pairs share one function must match too
    def listing(lib):
        registry = lib.distributions.kl._KL_REGISTRY
        shared = {}
        return [(p.__name__, q.__name__, shared.setdefault(id(f), len(shared)))
                for (p, q), f in registry.items()]
    assert listing(gradtrack) == listing(torch)


def _instances(lib):
    """One distribution of each class, float64, with a batch of 2 where the class
    has batches (the event shapes agree between the multivariate ones)."""
    D, T = lib.distributions, lib.distributions.transforms

    def t(v):
        return lib.tensor(v, dtype=lib.float64)
    half, two, pos = t([0.3, 0.6]), t([2.0, 3.0]), t([0.5, 1.5])
    probs = t([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])
    tril = t([[1.0, 0.0, 0.0], [0.5, 2.0, 0.0], [-1.0, 0.25, 0.5]])
    made = {
        "Bernoulli": D.Bernoulli(half), "Beta": D.Beta(two, pos), "Binomial": D.Binomial(5, half),
        "Categorical": D.Categorical(probs), "Cauchy": D.Cauchy(pos, two), "Chi2": D.Chi2(two),
        "ContinuousBernoulli": D.ContinuousBernoulli(half), "Dirichlet": D.Dirichlet(probs * 4),
        "Exponential": D.Exponential(two), "FisherSnedecor": D.FisherSnedecor(two, pos),
        "Gamma": D.Gamma(two, pos), "GeneralizedPareto": D.GeneralizedPareto(pos, two, half),
        "Geometric": D.Geometric(half), "Gumbel": D.Gumbel(pos, two), "HalfCauchy": D.HalfCauchy(two),
        "HalfNormal": D.HalfNormal(two), "Independent": D.Independent(D.Normal(probs, 1.0), 1),
        "InverseGamma": D.InverseGamma(two, pos), "Kumaraswamy": D.Kumaraswamy(two, pos),
        "LKJCholesky": D.LKJCholesky(3, two), "Laplace": D.Laplace(pos, two),
        "LogNormal": D.LogNormal(pos, two), "LogisticNormal": D.LogisticNormal(probs[:, :2], 1.0),
        "LowRankMultivariateNormal": D.LowRankMultivariateNormal(probs, probs.unsqueeze(-1), t([1.0] * 3)),
        "MixtureSameFamily": D.MixtureSameFamily(D.Categorical(probs), D.Normal(probs, 1.0)),
        "Multinomial": D.Multinomial(4, probs), "MultivariateNormal": D.MultivariateNormal(probs, scale_tril=tril),
        "NegativeBinomial": D.NegativeBinomial(two, half), "Normal": D.Normal(pos, two),
        "OneHotCategorical": D.OneHotCategorical(probs),
        "OneHotCategoricalStraightThrough": D.OneHotCategoricalStraightThrough(probs),
        "Pareto": D.Pareto(pos, two), "Poisson": D.Poisson(two),
        "RelaxedBernoulli": D.RelaxedBernoulli(t(0.5), half),
        "RelaxedOneHotCategorical": D.RelaxedOneHotCategorical(t(0.5), probs),
        "StudentT": D.StudentT(two, pos), "TransformedDistribution": D.TransformedDistribution(
            D.Normal(pos, two), [T.AffineTransform(1.0, 2.0), T.ExpTransform()]),
        "Uniform": D.Uniform(-pos, two), "VonMises": D.VonMises(pos, two), "Weibull": D.Weibull(two, pos),
    }
    if hasattr(D, "Wishart"):
        made["Wishart"] = D.Wishart(t(4.0), scale_tril=tril)
    return made


def _classes(lib):
    D = lib.distributions
    abstract = {"Distribution", "ExponentialFamily"}
    return sorted(n for n in D.__all__ if n not in abstract and isinstance(getattr(D, n), type)
                  and issubclass(getattr(D, n), D.Distribution))


def test_every_distribution_class_has_an_instance_below():
    assert sorted(_instances(gradtrack)) == _classes(gradtrack)


@pytest.mark.parametrize("p_name", _classes(gradtrack))
def test_every_ordered_pair_of_classes_as_torch(torch, p_name):
    # a value as torch's, or torch's exception type (and message), for each q
    names = [n for n in _classes(gradtrack) if hasattr(torch.distributions, n)]
    if p_name not in names:
        pytest.skip(f"torch has no {p_name}")
    for q_name in names:
        def scenario(lib, q_name=q_name):
            made = _instances(lib)
            return lib.distributions.kl_divergence(made[p_name], made[q_name])
        try:
            _agree_as_torch(scenario, rtol=1e-10)
        except AssertionError as e:
            raise AssertionError(f"KL({p_name} || {q_name}): {e}") from None
