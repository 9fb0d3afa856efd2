"""SoftplusTransform, CumulativeDistributionTransform and CorrCholeskyTransform (with
the corr_cholesky constraint, the matrix-vector helpers of utils and the registries'
entries) against torch: values, inverses, log_abs_det_jacobian and their gradients in
float32 and float64, domains, signs, shapes, reprs, equality, caching and errors."""

import pytest
from dist_parity import agree, grads

import gradtrack

X = [[-1.5, 0.0, 0.25], [2.0, -0.5, 3.0]]
POSITIVE = [[0.5, 1.0, 2.5], [3.0, 0.1, 4.0]]
# without a 0, whose round trip through erf and erfinv may end a rounding error away
NONZERO = [[-1.5, 0.375, 0.25], [2.0, -0.5, 3.0]]
# softplus, expm1, tanh, log1p, erf and erfinv kernels may round differently from torch's
ROUNDED = {"float32": 2e-5, "float64": 1e-12}


def _transform(lib, name, dtype="float32"):
    """The transform and an input in its domain."""
    D, T = lib.distributions, lib.distributions.transforms
    dt = getattr(lib, dtype)
    real = lib.tensor(X, dtype=dt, requires_grad=True)
    positive = lib.tensor(POSITIVE, dtype=dt, requires_grad=True)
    nonzero = lib.tensor(NONZERO, dtype=dt, requires_grad=True)
    return {
        "softplus": (T.SoftplusTransform(), real),
        "cdf_normal": (T.CumulativeDistributionTransform(D.Normal(lib.tensor(0.5, dtype=dt), 2.0)), nonzero),
        "cdf_exponential": (T.CumulativeDistributionTransform(
            D.Exponential(lib.tensor([1.0, 2.0, 0.5], dtype=dt))), positive),
        "cdf_cache": (T.CumulativeDistributionTransform(D.Laplace(lib.zeros(3, dtype=dt), 1.0),
                                                        cache_size=1), real),
        "corr_cholesky": (T.CorrCholeskyTransform(), real),
        "corr_cholesky_6": (T.CorrCholeskyTransform(), lib.tensor(
            [[0.3, -1.2, 0.8, 2.0, -0.1, 0.6]], dtype=dt, requires_grad=True)),
        "corr_cholesky_1": (T.CorrCholeskyTransform(), lib.tensor(
            [[0.4], [-2.0]], dtype=dt, requires_grad=True)),
    }[name]


NAMES = ["softplus", "cdf_normal", "cdf_exponential", "cdf_cache", "corr_cholesky",
         "corr_cholesky_6", "corr_cholesky_1"]


def _try(f):
    try:
        return f()
    except Exception as e:  # noqa: BLE001 - the error is compared
        return (type(e).__name__, str(e).replace("torch", "gradtrack"))


@pytest.mark.parametrize("name", NAMES)
def test_attributes_and_reprs(torch, name):
    def scenario(lib):
        t, _ = _transform(lib, name)
        inv = t.inv
        return [repr(t), repr(inv), repr(t.domain), repr(t.codomain), t.bijective,
                _try(lambda: t.event_dim), repr(inv.domain), repr(inv.codomain), inv.bijective,
                _try(lambda: t.sign), _try(lambda: inv.sign), inv.inv is t, t.inv is inv,
                t == t, t != t.inv, inv == t.inv, t._cache_size, t.with_cache(1)._cache_size,
                t.with_cache(t._cache_size) is t,
                [_try(lambda: t.forward_shape((2, 3))), _try(lambda: t.inverse_shape((2, 3)))]]
    agree(scenario)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values_inverses_and_jacobians(torch, name, dtype):
    def scenario(lib):
        t, x = _transform(lib, name, dtype)
        y = t(x)
        # not y * y: the rows of a correlation Cholesky factor have constant norms
        out = [y, grads(lib, y.exp(), [x])]
        back = t.inv(y)
        out += [back, grads(lib, back, [x]), back is x]
        ladj = t.log_abs_det_jacobian(x, y)
        iladj = t.inv.log_abs_det_jacobian(y, x)
        out += [ladj, iladj, grads(lib, ladj, [x]), bool(t.codomain.check(y).all())]
        return out
    agree(scenario, ROUNDED[dtype])


def test_softplus_stays_finite(torch):
    def scenario(lib):
        t = lib.distributions.transforms.SoftplusTransform()
        x = lib.tensor([-100.0, -20.0, 0.0, 19.0, 21.0, 100.0])
        y = t(x)
        return [y, t.inv(y), t.log_abs_det_jacobian(x, y), t.inv(lib.tensor([1e-8, 50.0]))]
    agree(scenario, 1e-6)


def test_shapes_and_equality(torch):
    def scenario(lib):
        D, T = lib.distributions, lib.distributions.transforms
        c = T.CorrCholeskyTransform()
        n = D.Normal(0.0, 1.0)
        return [c.forward_shape((4, 6)), c.forward_shape(lib.Size([3])), c.inverse_shape((2, 4, 4)),
                c.inverse_shape(lib.Size([3, 3])), _try(lambda: c.forward_shape(())),
                _try(lambda: c.forward_shape((4,))), _try(lambda: c.inverse_shape((3,))),
                _try(lambda: c.inverse_shape((3, 2))), c == T.CorrCholeskyTransform(),
                T.SoftplusTransform() == T.SoftplusTransform(), T.SoftplusTransform() == T.ExpTransform(),
                T.CumulativeDistributionTransform(n) == T.CumulativeDistributionTransform(n),
                T.CumulativeDistributionTransform(n).distribution is n,
                T.CumulativeDistributionTransform(n).with_cache().distribution is n,
                _try(lambda: T.CumulativeDistributionTransform(n, cache_size=3)),
                repr(c.with_cache()), c.with_cache()._cache_size]
    agree(scenario)


def test_corr_cholesky_constraint_and_registries(torch):
    def scenario(lib):
        D = lib.distributions
        c = D.constraints.corr_cholesky
        good = D.transforms.CorrCholeskyTransform()(lib.tensor([[0.5, -1.0, 2.0], [0.0, 0.0, 0.0]]))
        bad = lib.tensor([[1.0, 0.0], [0.6, 0.6]])
        return [repr(c), c.event_dim, c.is_discrete, c.check(good), c.check(bad),
                c.check(lib.tensor([[1.0, 0.5], [0.0, 1.0]])), c.check(lib.eye(3, dtype=lib.float64)),
                repr(D.biject_to(c)), repr(D.transform_to(c)), "corr_cholesky" in D.constraints.__all__]
    agree(scenario)


def test_tril_vec_helpers(torch):
    def scenario(lib):
        U = lib.distributions.utils
        v = lib.arange(1.0, 7.0, requires_grad=True)
        m = U.vec_to_tril_matrix(v)
        out = [m, U.tril_matrix_to_vec(m), U.vec_to_tril_matrix(v, diag=-1),
               _try(lambda: U.vec_to_tril_matrix(v[:3], 1)), _try(lambda: U.vec_to_tril_matrix(v[:2], 1)),
               U.vec_to_tril_matrix(v[:3], -1),
               U.tril_matrix_to_vec(lib.arange(9.0).view(3, 3), diag=1), grads(lib, m * m, [v]),
               U.tril_matrix_to_vec(lib.arange(18.0).view(2, 3, 3), diag=-1)]
        out.append(_try(lambda: U.vec_to_tril_matrix(v[:4])))
        out.append(_try(lambda: U.tril_matrix_to_vec(lib.zeros(3, 3), diag=3)))
        out.append(_try(lambda: U.tril_matrix_to_vec(lib.zeros(3, 3), diag=-4)))
        return out
    agree(scenario)


def test_copula_through_transformed_distribution(torch):
    def scenario(lib):
        D, T = lib.distributions, lib.distributions.transforms
        lib.manual_seed(3)
        base = D.MultivariateNormal(lib.zeros(2), lib.tensor([[1.0, 0.6], [0.6, 1.0]]))
        copula = D.TransformedDistribution(base, [T.CumulativeDistributionTransform(D.Normal(0.0, 1.0))])
        u = copula.sample((3,))
        return [copula.batch_shape, copula.event_shape, repr(copula.support), u, copula.log_prob(u),
                lib.rand(1)]
    agree(scenario, 1e-5)


def test_gradcheck_in_float64():
    T = gradtrack.distributions.transforms
    dt = gradtrack.float64
    x = gradtrack.tensor([[-0.7, 0.2, 1.1]], dtype=dt, requires_grad=True)
    cdf = T.CumulativeDistributionTransform(gradtrack.distributions.Normal(0.3, 1.7))
    for t in (T.SoftplusTransform(), cdf, T.CorrCholeskyTransform()):
        assert gradtrack.autograd.gradcheck(t, (x,))
        assert gradtrack.autograd.gradcheck(lambda a, t=t: t.log_abs_det_jacobian(a, t(a)), (x,))
        assert gradtrack.autograd.gradcheck(lambda a, t=t: t.inv(t(a)), (x,))
