"""Wishart against torch.distributions.Wishart, from each of its three matrices and
with ``df`` a number or a (batched) tensor: values, shapes, dtypes, grad_fns,
gradients (including rsample's), seeded Bartlett draws with torch's redraw rounds
and the stream after them, expand, the lazily computed matrices, the exponential
family's natural parameters, reprs, errors and warnings."""

import warnings

import pytest
from dist_parity import agree, grads, seeded

import gradtrack

COV = [[[2.0, 0.3, -0.4], [0.3, 1.0, 0.2], [-0.4, 0.2, 1.5]],
       [[1.0, 0.0, 0.0], [0.0, 0.5, 0.1], [0.0, 0.1, 3.0]]]
VALUE = [[[1.5, 0.2, 0.1], [0.2, 2.0, -0.3], [0.1, -0.3, 0.8]],
         [[3.0, 1.0, 0.1], [1.0, 1.0, 0.3], [0.1, 0.3, 0.5]]]
# cholesky, cholesky_solve, solve_triangular, slogdet, matmul (float32), lgamma,
# mvlgamma and digamma may round differently from torch's in the last bits
ROUNDED = {"float32": 1e-5, "float64": 1e-12}
KINDS = ["scale_tril", "covariance_matrix", "precision_matrix"]


def _matrix(lib, kind, dtype="float32", batch=True):
    dt = getattr(lib, dtype)
    cov = lib.tensor(COV if batch else COV[0], dtype=dt)
    if kind == "covariance_matrix":
        return cov
    if kind == "scale_tril":
        return lib.linalg.cholesky(cov)
    return lib.linalg.inv(cov)


def _make(lib, kind, dtype="float32", df=(4.0, 3.5), batch=True):
    """The distribution and its parameters (both requiring grad)."""
    df = lib.tensor(df, dtype=getattr(lib, dtype), requires_grad=True)
    matrix = _matrix(lib, kind, dtype, batch).requires_grad_()
    return lib.distributions.Wishart(df, **{kind: matrix}), [df, matrix]


def _lazy(d):
    return sorted(k for k in KINDS if k in vars(d))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_properties_and_matrices(torch, kind, dtype):
    def scenario(lib):
        d, params = _make(lib, kind, dtype, df=(4.0, 5.0))
        out = [d.batch_shape, d.event_shape, d.df, d.has_rsample, d._mean_carrier_measure,
               repr(d.support), repr(d.arg_constraints), repr(d), _lazy(d), d._batch_dims,
               d._dist_chi2.df, repr(d._dist_chi2)]
        for name in ("mean", "variance", "mode", "stddev"):
            r = getattr(d, name)
            out += [r, grads(lib, r, params)]
        out.append(_lazy(d))
        for name in KINDS:
            m = getattr(d, name)
            out += [m, grads(lib, m, params)]
        return out + [repr(d)]
    agree(scenario, ROUNDED[dtype])


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_log_prob_entropy_and_their_gradients(torch, kind, dtype):
    def scenario(lib):
        d, params = _make(lib, kind, dtype)
        value = lib.tensor(VALUE, dtype=getattr(lib, dtype), requires_grad=True)
        lp = d.log_prob(value)
        h = d.entropy()
        return [lp, grads(lib, lp, params + [value]), h, grads(lib, h, params), _lazy(d)]
    agree(scenario, ROUNDED[dtype])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_natural_params_log_normalizer_and_family_entropy(torch, dtype):
    def scenario(lib):
        d, params = _make(lib, "covariance_matrix", dtype)
        x, y = d._natural_params
        z = d._log_normalizer(x, y)
        h = lib.distributions.ExponentialFamily.entropy(d)
        return [x, y, z, grads(lib, z, params), h, grads(lib, h, params), d.entropy()]
    # the family's entropy differentiates slogdet and mvlgamma: float32 rounds apart
    agree(scenario, {"float32": 1e-4, "float64": 1e-12}[dtype])


@pytest.mark.parametrize("df, batch, value_shape", [
    (3.0, False, (3, 3)),                      # df a number: 0-dim, no batch
    (5, True, (2, 3, 3)),                      # an int df
    ((4.0, 3.5), False, (4, 2, 3, 3)),         # a batched df over one matrix
    ((4.0,), True, (2, 1, 3, 3)),              # df of size 1 broadcast to the batch
    (((3.0,), (6.0,)), True, (2, 2, 3, 3)),    # batches broadcast to (2, 2)
])
def test_df_forms_and_value_broadcasting(torch, df, batch, value_shape):
    def scenario(lib):
        d_ = df if isinstance(df, (int, float)) else lib.tensor(df)
        d = lib.distributions.Wishart(d_, _matrix(lib, "covariance_matrix", batch=batch))
        count = lib.Size(value_shape[:-2]).numel()
        scales = lib.arange(1.0, count + 1).reshape(value_shape[:-2] + (1, 1))
        value = lib.tensor(VALUE[0]) * scales
        return [d.batch_shape, d.df, repr(d), d.log_prob(value), d.entropy(),
                d.covariance_matrix.shape, d._batch_dims]
    agree(scenario, 1e-5)


@pytest.mark.parametrize("prop", ["mean", "mode", "variance"])
def test_a_number_df_over_a_batch_cannot_be_viewed(torch, prop):
    # a df given as a number stays 0-dim over a batch of matrices, as torch keeps it
    def scenario(lib):
        return getattr(lib.distributions.Wishart(3.0, _matrix(lib, "scale_tril")), prop)
    agree(scenario, raises=True)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("df", [(4.0, 3.5), 3.0])
def test_seeded_rsample_and_its_gradients(torch, kind, dtype, df):
    def scenario(lib):
        d, params = _make(lib, kind, dtype, df=df)
        x = d.rsample()
        return [x, grads(lib, x * x, params), lib.rand(3)]
    agree(seeded(scenario, 3), ROUNDED[dtype])


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("shape", [(), (4,), (2, 1)])
@pytest.mark.parametrize("df", [(4.0, 3.5), 5.0])
def test_seeded_draws_and_the_stream_after_them(torch, kind, shape, df):
    def scenario(lib):
        d, _ = _make(lib, kind, "float64", df=df, batch=df != 5.0)
        x = d.rsample(shape)
        s = d.sample(shape)
        return [x, s, lib.randn(3), d.log_prob(s), lib.rand(2)]
    agree(seeded(scenario, 11), ROUNDED["float64"])


def test_rsample_over_a_sample_shape_fails_backward_as_torchs():
    # torch's rsample writes into its redraw mask after indexing the draws with it: the
    # node saved the mask, so the backward of a draw over a nonempty sample shape raises
    def scenario(lib):
        d, params = _make(lib, "scale_tril")
        x = d.rsample((2,))
        return grads(lib, x, params)
    pytest.importorskip("torch")
    agree(seeded(scenario), raises=True)


def test_rsample_over_a_sample_shape_values_and_grad_fn(torch):
    def scenario(lib):
        d, _ = _make(lib, "covariance_matrix")
        x = d.rsample((3,))
        return [x, lib.randn(2)]
    agree(seeded(scenario, 5), 1e-5)


@pytest.mark.parametrize("shape", [(), (3,)])
@pytest.mark.parametrize("max_try_correction", [None, 0, 2])
def test_redraw_rounds_run_while_a_redraw_is_singular(torch, shape, max_try_correction):
    # the second matrix's factor underflows in float32: its draws are never positive
    # definite, so every round redraws, up to max_try_correction rounds
    def scenario(lib):
        L = lib.stack([lib.eye(2), lib.diag(lib.tensor([1.0, 1e-30]))])
        d = lib.distributions.Wishart(lib.tensor(3.0), scale_tril=L)
        x = d.rsample(shape, max_try_correction=max_try_correction)
        return [x, d.support.check(x), lib.rand(4)]
    # float32 matmul may round differently from torch's in the last bit
    agree(seeded(scenario, 2), 1e-6)


def test_all_singular_draws_are_not_redrawn(torch):
    def scenario(lib):
        L = lib.diag(lib.tensor([1.0, 1e-30]))
        d = lib.distributions.Wishart(3.0, scale_tril=L)
        return [d.rsample((2,)), d.sample(), lib.rand(3)]
    agree(seeded(scenario, 4))


def test_low_df_warns_and_draws(torch):
    def scenario(lib):
        dt = lib.float64
        d = lib.distributions.Wishart(lib.tensor([1.25, 2.5], dtype=dt), lib.eye(2, dtype=dt))
        x = d.sample((3,))
        return [x, d.support.check(x), d.log_prob(x), lib.rand(2)]
    # the draws for df close to 1 are nearly singular: slogdet amplifies rounding
    agree(seeded(scenario, 1), 1e-10)


@pytest.mark.parametrize("kind", KINDS)
def test_expand(torch, kind):
    def scenario(lib):
        d, _ = _make(lib, kind, df=3.5, batch=False)
        d.variance  # noqa: B018 - computes (and stores) the covariance first
        e = d.expand([4, 2])
        return [e.batch_shape, e.event_shape, repr(e), e.df, _lazy(e), e._batch_dims,
                e._unbroadcasted_scale_tril.shape, e._dist_chi2.df, e.sample().shape,
                e.log_prob(lib.tensor(VALUE[1])), e.mean, e.entropy(), e._validate_args,
                lib.rand(2)]
    agree(seeded(scenario), 1e-5)


def test_expand_of_a_batch_keeps_validation_off(torch):
    def scenario(lib):
        d = lib.distributions.Wishart(lib.tensor([3.0, 4.0]), _matrix(lib, "precision_matrix"),
                                      validate_args=False)
        e = d.expand([3, 2])
        return [repr(e), e._validate_args, e.precision_matrix, e.rsample().shape,
                e.log_prob(-lib.eye(3))]
    agree(seeded(scenario), 1e-5)


@pytest.mark.parametrize("case", [
    "none", "two", "three", "cov_1d", "tril_0d", "df_low", "df_low_tensor", "df_equal",
    "df_not_broadcastable", "df_list", "not_lower", "negative_diagonal", "not_symmetric",
    "not_positive_definite", "not_pd_unvalidated", "nan_df", "nan_df_unvalidated"])
def test_bad_parameters_raise_torchs_error(torch, case):
    def scenario(lib):
        W = lib.distributions.Wishart
        eye = lib.eye(2)
        bad = lib.tensor([[1.0, 2.0], [2.0, 1.0]])
        return repr({
            "none": lambda: W(3.0),
            "two": lambda: W(3.0, eye, scale_tril=eye),
            "three": lambda: W(3.0, eye, eye, eye),
            "cov_1d": lambda: W(3.0, lib.ones(2)),
            "tril_0d": lambda: W(3.0, scale_tril=lib.tensor(1.0)),
            "df_low": lambda: W(0.5, eye),
            "df_low_tensor": lambda: W(lib.tensor([0.5, 3.0]), eye),
            "df_equal": lambda: W(lib.tensor(2.0), lib.eye(3)),
            "df_not_broadcastable": lambda: W(lib.tensor([1.5, 3.0]), eye.expand(3, 2, 2)),
            "df_list": lambda: W([3.0], eye),
            "not_lower": lambda: W(3.0, scale_tril=lib.ones(2, 2)),
            "negative_diagonal": lambda: W(3.0, scale_tril=-eye),
            "not_symmetric": lambda: W(3.0, lib.tensor([[1.0, 0.5], [0.0, 1.0]])),
            "not_positive_definite": lambda: W(3.0, precision_matrix=bad),
            "not_pd_unvalidated": lambda: W(3.0, bad, validate_args=False),
            "nan_df": lambda: W(lib.tensor(float("nan")), eye),
            "nan_df_unvalidated": lambda: W(lib.tensor(float("nan")), eye, validate_args=False),
        }[case]())
    agree(scenario, raises=True)


@pytest.mark.parametrize("value", ["number", "wrong_event", "not_broadcastable", "not_pd",
                                   "not_symmetric"])
def test_bad_values_raise_torchs_error(torch, value):
    def scenario(lib):
        d, _ = _make(lib, "scale_tril")
        v = {"number": 1.0, "wrong_event": lib.eye(2), "not_broadcastable": lib.eye(3).expand(3, 3, 3),
             "not_pd": lib.zeros(3, 3), "not_symmetric": lib.tensor(VALUE[0]).triu()}[value]
        return d.log_prob(v)
    agree(scenario, raises=True)


def test_numbers_as_df_and_validation_off(torch):
    def scenario(lib):
        W = lib.distributions.Wishart
        one = W(True, lib.eye(1) * 2)
        three = W(3, scale_tril=lib.tensor([[1.0, 5.0], [0.5, 2.0]]), validate_args=False)
        return [one.df, repr(one), one.log_prob(lib.eye(1)), one.entropy(), three.df,
                repr(three), three.log_prob(-lib.eye(2)), three.variance, three.entropy()]
    agree(scenario, 1e-6)


def test_low_df_warning_and_singular_sample_warning(torch):
    def scenario(lib):
        d = lib.distributions.Wishart(1.5, lib.eye(2))
        return [repr(d), d.rsample(max_try_correction=0).shape]
    agree(seeded(scenario))


def test_mvdigamma_domain():
    from gradtrack.distributions.wishart import _mvdigamma
    with pytest.raises(AssertionError, match="Wrong domain for multivariate digamma"):
        _mvdigamma(gradtrack.tensor([0.4, 2.0]), 2)


def test_gradcheck_log_prob_entropy_and_rsample_in_float64():
    W = gradtrack.distributions.Wishart
    dt = gradtrack.float64
    df = gradtrack.tensor(4.5, dtype=dt, requires_grad=True)
    A = gradtrack.tensor([[1.5, 0.2], [0.2, 0.8]], dtype=dt, requires_grad=True)
    L = gradtrack.tensor([[1.2, 0.0], [-0.3, 0.7]], dtype=dt, requires_grad=True)
    value = gradtrack.tensor([[2.1, -0.4], [-0.4, 1.0]], dtype=dt, requires_grad=True)
    for kind, m in (("covariance_matrix", A), ("precision_matrix", A), ("scale_tril", L)):
        def shaped(m):  # the matrix's perturbations must keep it in its constraint
            return (m + m.mT) / 2 if kind != "scale_tril" else m.tril()

        def symmetric_value(v):
            return (v + v.mT) / 2
        assert gradtrack.autograd.gradcheck(
            lambda d, m, v: W(d, **{kind: shaped(m)}).log_prob(symmetric_value(v)),
            (df, m, value))
        assert gradtrack.autograd.gradcheck(lambda d, m: W(d, **{kind: shaped(m)}).entropy(),
                                            (df, m))

        def rsample(m):
            gradtrack.manual_seed(7)  # the same noise on every evaluation
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return W(df.detach(), **{kind: shaped(m)}).rsample()
        assert gradtrack.autograd.gradcheck(rsample, (m,))


@pytest.mark.parametrize("other", ["Wishart", "Normal"])
def test_kl_divergence_of_the_exponential_family_only(torch, other):
    # between two Wisharts: the family's Bregman divergence of the log normalizer
    def scenario(lib):
        D = lib.distributions
        p = D.Wishart(lib.tensor([4.0, 6.0], dtype=lib.float64), _matrix(lib, "covariance_matrix",
                                                                         "float64"))
        q = D.Wishart(lib.tensor(5.0, dtype=lib.float64), scale_tril=lib.eye(3, dtype=lib.float64))
        if other == "Normal":
            q = D.Normal(0.0, 1.0)
        return D.kl_divergence(p, q)
    agree(scenario, 1e-10, raises=other == "Normal")
