"""LKJCholesky against torch.distributions: shapes, the Beta inside, seeded draws (and
the stream after them), log_prob and its gradients, reprs and argument errors.

The draws normalize rows with ``norm``, whose float reductions may round differently
from torch's in the last bit: draws are compared within a small relative tolerance."""

import pytest
from dist_parity import agree, grads, seeded

CONC = [0.5, 1.0, 3.0]
# norm, lgamma and mvlgamma kernels may round differently from torch's in the last bit
ROUNDED = {"float32": 1e-5, "float64": 1e-13}


def _factor(lib, dtype):
    """A valid 3 x 3 correlation Cholesky factor."""
    dt = getattr(lib, dtype)
    return lib.tensor([[1.0, 0.0, 0.0], [0.6, 0.8, 0.0], [-0.36, 0.48, 0.8]], dtype=dt)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("dim", [2, 3, 5])
def test_properties_log_prob_and_gradients(torch, dtype, dim):
    def scenario(lib):
        conc = lib.tensor(CONC, dtype=getattr(lib, dtype), requires_grad=True)
        d = lib.distributions.LKJCholesky(dim, conc)
        value = lib.eye(dim, dtype=conc.dtype)
        if dim == 3:
            value = _factor(lib, dtype)
        value = value.requires_grad_()
        r = d.log_prob(value)
        return [d.batch_shape, d.event_shape, d.dim, d.has_rsample, repr(d.support),
                repr(d.arg_constraints), repr(d), repr(d._beta), d._beta.concentration1,
                d._beta.concentration0, r, grads(lib, r, [conc, value])]
    agree(scenario, ROUNDED[dtype])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("dim, shape", [(2, ()), (3, (4,)), (4, (2, 1)), (6, ())])
def test_seeded_draws_are_torchs(torch, dtype, dim, shape):
    def scenario(lib):
        d = lib.distributions.LKJCholesky(dim, lib.tensor(CONC, dtype=getattr(lib, dtype)))
        x = d.sample(shape)
        return [x, (x * x).sum(-1), d.log_prob(x), lib.rand(2)]
    agree(seeded(scenario, 3), ROUNDED[dtype])


def test_numbers_expand_and_validation(torch):
    def scenario(lib):
        D = lib.distributions
        d = D.LKJCholesky(3)
        e = D.LKJCholesky(3, lib.tensor(2.0, dtype=lib.float64)).expand([2])
        return [d.batch_shape, repr(d), d.concentration, d.sample().shape, e.batch_shape,
                repr(e), e.concentration, e._beta.batch_shape, type(e).__name__,
                str(e.sample().dtype), e.log_prob(_factor(lib, "float64"))]
    agree(seeded(scenario), 1e-13)


@pytest.mark.parametrize("args", [(1,), (0, 1.0), (3, -1.0), (3, [1.0, 0.0])])
def test_bad_parameters_raise_torchs_error(torch, args):
    def scenario(lib):
        values = [lib.tensor(a) if isinstance(a, list) else a for a in args]
        return repr(lib.distributions.LKJCholesky(*values))
    agree(scenario, raises=True)


@pytest.mark.parametrize("value", ["upper", "not_unit_rows", "wrong_event"])
def test_bad_values_raise_torchs_error(torch, value):
    def scenario(lib):
        d = lib.distributions.LKJCholesky(3, 2.0)
        v = {"upper": _factor(lib, "float32").mT, "not_unit_rows": 2 * lib.eye(3),
             "wrong_event": lib.eye(2)}[value]
        return d.log_prob(v)
    agree(scenario, raises=True)
