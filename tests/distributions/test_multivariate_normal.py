"""MultivariateNormal against torch.distributions.MultivariateNormal, from each of its
three matrices: values, shapes, broadcasting between the batches of loc, matrix and
value, gradients, seeded draws, the lazily computed matrices, reprs and errors; and
the matrix constraints it validates with."""

import math

import pytest
from dist_parity import agree, grads, seeded

import gradtrack

LOC = [[0.5, -1.0, 2.0], [0.0, 1.5, -0.5]]
COV = [[[2.0, 0.3, -0.4], [0.3, 1.0, 0.2], [-0.4, 0.2, 1.5]],
       [[1.0, 0.0, 0.0], [0.0, 0.5, 0.1], [0.0, 0.1, 3.0]]]
VALUE = [[[1.0, 0.0, -1.0], [0.5, 0.5, 0.5]], [[-2.0, 1.0, 0.0], [0.0, 0.0, 0.0]],
         [[0.25, -0.75, 3.0], [1.0, 2.0, -2.0]], [[0.0, 0.0, 1.0], [-1.0, -1.0, 1.0]]]
# cholesky, solve_triangular and cholesky_inverse may round differently from torch's
# (LAPACK builds) in the last bits
ROUNDED = {"float32": 1e-5, "float64": 1e-13}


def _loc(lib, shape, dtype="float32"):
    """LOC's first entries, in ``shape``."""
    return lib.tensor(LOC, dtype=getattr(lib, dtype)).reshape(-1)[:math.prod(shape)].reshape(shape)


def _matrix(lib, kind, dtype, batch=True):
    dt = getattr(lib, dtype)
    cov = lib.tensor(COV if batch else COV[0], dtype=dt)
    if kind == "covariance_matrix":
        return cov
    if kind == "scale_tril":
        return lib.linalg.cholesky(cov)
    return lib.linalg.inv(cov)


def _make(lib, kind, dtype="float32", loc_shape=(2, 3), batch=True):
    loc = _loc(lib, loc_shape, dtype).requires_grad_()
    matrix = _matrix(lib, kind, dtype, batch).requires_grad_()
    return lib.distributions.MultivariateNormal(loc, **{kind: matrix}), [loc, matrix]


KINDS = ["scale_tril", "covariance_matrix", "precision_matrix"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_properties_and_matrices(torch, kind, dtype):
    def scenario(lib):
        d, params = _make(lib, kind, dtype)
        out = [d.batch_shape, d.event_shape, d.mean, d.mode, d.variance, d.stddev,
               d.entropy(), d.has_rsample, repr(d.support), repr(d.arg_constraints), repr(d),
               sorted(k for k in ("scale_tril", "covariance_matrix", "precision_matrix")
                      if k in vars(d))]
        for name in ("scale_tril", "covariance_matrix", "precision_matrix"):
            m = getattr(d, name)
            out += [m, grads(lib, m, params)]
        return out
    agree(scenario, ROUNDED[dtype])


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_log_prob_entropy_and_their_gradients(torch, kind, dtype):
    def scenario(lib):
        d, params = _make(lib, kind, dtype)
        value = lib.tensor(VALUE, dtype=getattr(lib, dtype), requires_grad=True)
        lp = d.log_prob(value)
        h = d.entropy()
        return [lp, grads(lib, lp, params + [value]), h, grads(lib, h, params)]
    agree(scenario, ROUNDED[dtype])


@pytest.mark.parametrize("loc_shape, batch, value_shape", [
    ((3,), True, (2, 3)),          # loc broadcast over the matrices' batch
    ((2, 3), False, (5, 2, 3)),    # one matrix for a batch of locs
    ((2, 1, 3), True, (2, 2, 3)),  # batches broadcast to (2, 2)
    ((3,), False, (4, 1, 3)),      # value with sample dims of size 1
    ((3,), False, (3,)),
])
def test_batch_shapes_broadcast_in_log_prob(torch, loc_shape, batch, value_shape):
    def scenario(lib):
        cov = _matrix(lib, "covariance_matrix", "float32", batch)
        d = lib.distributions.MultivariateNormal(_loc(lib, loc_shape), cov)
        value = lib.arange(float(lib.Size(value_shape).numel())).reshape(value_shape) / 7
        return [d.batch_shape, d.log_prob(value), d.entropy(), d.variance, d.loc.shape,
                d.covariance_matrix.shape]
    agree(scenario, 1e-5)


@pytest.mark.parametrize("matrix_batch, loc_shape, value_shape", [
    ((2, 3), (3,), (4, 2, 3, 3)),
    ((2, 1), (2, 3, 3), (5, 2, 3, 3)),
    ((3, 2, 1), (2, 4, 3), (3, 2, 4, 3)),
])
def test_mahalanobis_over_several_batch_dims(torch, matrix_batch, loc_shape, value_shape):
    # the matrices' batch dims are matched to the value's, after broadcasting, in order
    def scenario(lib):
        count = math.prod(matrix_batch)
        a = (lib.arange(count * 9.0).reshape(matrix_batch + (3, 3)) % 7 - 3) / 4
        cov = a @ a.mT + lib.eye(3)
        loc = lib.arange(float(math.prod(loc_shape))).reshape(loc_shape) / 5
        value = lib.arange(float(math.prod(value_shape))).reshape(value_shape).cos()
        d = lib.distributions.MultivariateNormal(loc, cov)
        return [d.batch_shape, d.log_prob(value), d.entropy()]
    agree(scenario, 1e-5)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("shape", [(), (4,), (2, 1)])
def test_seeded_rsample_sample_and_gradients(torch, kind, shape):
    def scenario(lib):
        d, params = _make(lib, kind)
        x = d.rsample(shape)
        return [x, grads(lib, x * x, params), d.sample(shape), lib.rand(2)]
    # a float32 gradient through cholesky's backward, with cancellation in one entry
    agree(seeded(scenario, 6), 1e-4)


def test_scale_tril_draws_are_bit_for_bit(torch):
    def scenario(lib):
        L = lib.tensor([[1.5, 0.0], [-0.5, 0.25]], dtype=lib.float64)
        d = lib.distributions.MultivariateNormal(lib.tensor([1.0, 2.0], dtype=lib.float64),
                                                 scale_tril=L)
        return [d.sample((3,)), d.rsample(), d.log_prob(lib.tensor([0.5, 0.5], dtype=lib.float64))]
    agree(seeded(scenario, 2), 1e-15)


@pytest.mark.parametrize("kind", KINDS)
def test_expand(torch, kind):
    def scenario(lib):
        d, _ = _make(lib, kind, loc_shape=(3,), batch=False)
        e = d.expand([4, 2])
        return [e.batch_shape, e.event_shape, repr(e), e.loc.shape, getattr(e, kind).shape,
                sorted(k for k in ("scale_tril", "covariance_matrix", "precision_matrix")
                       if k in vars(e)), e.sample().shape, e.log_prob(lib.zeros(3)),
                e.covariance_matrix.shape, e._validate_args]
    agree(seeded(scenario), 1e-5)


@pytest.mark.parametrize("case", ["scalar_loc", "none", "two", "tril_1d", "cov_1d", "prec_1d",
                                  "not_lower", "negative_diagonal", "not_symmetric",
                                  "not_positive_definite", "nan_loc"])
def test_bad_parameters_raise_torchs_error(torch, case):
    def scenario(lib):
        MVN = lib.distributions.MultivariateNormal
        eye = lib.eye(2)
        loc = lib.zeros(2)
        return repr({
            "scalar_loc": lambda: MVN(lib.tensor(0.0), eye),
            "none": lambda: MVN(loc),
            "two": lambda: MVN(loc, eye, scale_tril=eye),
            "tril_1d": lambda: MVN(loc, scale_tril=lib.ones(2)),
            "cov_1d": lambda: MVN(loc, lib.ones(2)),
            "prec_1d": lambda: MVN(loc, precision_matrix=lib.ones(2)),
            "not_lower": lambda: MVN(loc, scale_tril=lib.ones(2, 2)),
            "negative_diagonal": lambda: MVN(loc, scale_tril=-eye),
            "not_symmetric": lambda: MVN(loc, lib.tensor([[1.0, 0.5], [0.0, 1.0]])),
            "not_positive_definite": lambda: MVN(loc, precision_matrix=lib.tensor(
                [[1.0, 2.0], [2.0, 1.0]])),
            "nan_loc": lambda: MVN(lib.tensor([0.0, float("nan")]), eye),
        }[case]())
    agree(scenario, raises=True)


def test_validate_args_false_takes_a_lower_triangle_as_given(torch):
    def scenario(lib):
        d = lib.distributions.MultivariateNormal(
            lib.zeros(2), scale_tril=lib.tensor([[1.0, 5.0], [0.5, 2.0]]), validate_args=False)
        return [repr(d), d.log_prob(lib.ones(2)), d.variance, d.entropy()]
    agree(scenario, 1e-6)


@pytest.mark.parametrize("value", ["number", "wrong_event", "not_broadcastable", "nan"])
def test_bad_values_raise_torchs_error(torch, value):
    def scenario(lib):
        d, _ = _make(lib, "scale_tril")
        v = {"number": 1.0, "wrong_event": lib.zeros(2, 2), "not_broadcastable": lib.zeros(3, 3),
             "nan": lib.tensor([0.0, float("nan"), 1.0])}[value]
        return d.log_prob(v)
    agree(scenario, raises=True)


MATRICES = [[[2.0, 0.0], [1.0, 1.0]], [[1.0, 2.0], [2.0, 1.0]], [[1.0, 0.5], [0.5, 1.0]],
            [[1.0, 1.0], [1.0, 1.0]], [[-1.0, 0.0], [0.0, 2.0]], [[1.0, 1e-7], [0.0, 1.0]]]


@pytest.mark.parametrize("name", ["lower_triangular", "lower_cholesky", "square", "symmetric",
                                  "positive_semidefinite", "positive_definite"])
def test_matrix_constraints(torch, name):
    def scenario(lib):
        c = getattr(lib.distributions.constraints, name)
        symmetric = lib.tensor([m for m in MATRICES if m[0][1] == m[1][0]])
        return [repr(c), c.is_discrete, c.event_dim, c.check(lib.tensor(MATRICES)),
                c.check(symmetric), c.check(lib.zeros(2, 3)), c.check(lib.eye(3)),
                isinstance(c, lib.distributions.constraints.Constraint)]
    agree(scenario)


def test_gradcheck_log_prob_and_rsample_in_float64():
    MVN = gradtrack.distributions.MultivariateNormal
    dt = gradtrack.float64
    loc = gradtrack.tensor([0.3, -1.0], dtype=dt, requires_grad=True)
    A = gradtrack.tensor([[1.5, 0.2], [0.2, 0.8]], dtype=dt, requires_grad=True)
    L = gradtrack.tensor([[1.2, 0.0], [-0.3, 0.7]], dtype=dt, requires_grad=True)
    value = gradtrack.tensor([[1.1, -0.4], [0.0, 2.0]], dtype=dt, requires_grad=True)
    for kind, m in (("covariance_matrix", A), ("precision_matrix", A), ("scale_tril", L)):
        def symmetric(m):  # the matrix's perturbations must keep it in its constraint
            return (m + m.mT) / 2 if kind != "scale_tril" else m.tril()
        assert gradtrack.autograd.gradcheck(
            lambda a, m, v: MVN(a, **{kind: symmetric(m)}).log_prob(v), (loc, m, value))

        def rsample(a, m):
            gradtrack.manual_seed(7)  # the same noise on every evaluation
            return MVN(a, **{kind: symmetric(m)}).rsample((3,))
        assert gradtrack.autograd.gradcheck(rsample, (loc, m))
