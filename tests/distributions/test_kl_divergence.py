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
    raise AssertionError(kind)


KINDS = ["normal", "bernoulli", "bernoulli_logits", "categorical", "one_hot", "uniform",
         "uniform_normal", "normal_uniform", "independent"]
# Through softplus, softmax or logsumexp, whose kernels may round differently from torch's
# in the last bit; the others are bit for bit.
ROUNDED = {"bernoulli_logits": {"float32": 1e-6, "float64": 1e-14},
           "one_hot": {"float32": 1e-6, "float64": 1e-14}}


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
