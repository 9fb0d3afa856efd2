"""The LU family (lu_factor, lu_factor_ex, lu, lu_unpack, lu_solve and torch's older
lu and lu_solve), lstsq and frexp against torch 2.13 where the op table
(tests/ops/op_db/linalg_lu.py, pointwise.py) does not reach: argument checks and their
messages, singular and empty input, the drivers' named results, rank-deficient least
squares, gradients of rectangular factorizations, forward-mode tangents, double
backward, warnings, named results and out=.
"""

import warnings

import numpy as np
import pytest

import gradtrack

from area_checks import double_backward, grads, randn
from helpers import same


def _lu(lib, a):
    return lib.linalg.lu_factor(a)


def _legacy(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()


ERRORS = {
    "lu_factor_1d": lambda lib: lib.linalg.lu_factor(lib.ones(3)),
    "lu_factor_int": lambda lib: lib.linalg.lu_factor(lib.ones(3, 3, dtype=lib.int64)),
    "lu_factor_int_1d": lambda lib: lib.linalg.lu_factor(lib.ones(3, dtype=lib.int64)),
    "lu_factor_half": lambda lib: lib.linalg.lu_factor(lib.ones(3, 3, dtype=lib.float16)),
    "lu_factor_singular": lambda lib: lib.linalg.lu_factor(lib.zeros(3, 3)),
    "lu_factor_singular_batch": lambda lib: lib.linalg.lu_factor(
        lib.stack([lib.eye(3), lib.zeros(3, 3)])),
    "lu_factor_no_pivot": lambda lib: lib.linalg.lu_factor(lib.eye(3), pivot=False),
    "lu_factor_ex_check": lambda lib: lib.linalg.lu_factor_ex(lib.zeros(2, 3, 3),
                                                              check_errors=True),
    "lu_1d": lambda lib: lib.linalg.lu(lib.ones(3)),
    "lu_int": lambda lib: lib.linalg.lu(lib.ones(3, 3, dtype=lib.int64)),
    "lu_no_pivot": lambda lib: lib.linalg.lu(lib.eye(3), pivot=False),
    "lu_solve_shapes": lambda lib: lib.linalg.lu_solve(*_lu(lib, lib.eye(3)), lib.ones(2, 2)),
    "lu_solve_right_shapes": lambda lib: lib.linalg.lu_solve(*_lu(lib, lib.eye(3)),
                                                             lib.ones(3, 2), left=False),
    "lu_solve_dtype": lambda lib: lib.linalg.lu_solve(*_lu(lib, lib.eye(3)),
                                                      lib.ones(3, 2, dtype=lib.float64)),
    "lu_solve_rect": lambda lib: lib.linalg.lu_solve(*_lu(lib, lib.ones(4, 2)), lib.ones(4, 1)),
    "lu_solve_B_1d": lambda lib: lib.linalg.lu_solve(*_lu(lib, lib.eye(3)), lib.ones(3)),
    "lu_solve_LU_1d": lambda lib: lib.linalg.lu_solve(lib.ones(3), lib.ones(3, dtype=lib.int32),
                                                      lib.ones(3, 1)),
    "lu_solve_int": lambda lib: lib.linalg.lu_solve(lib.ones(3, 3, dtype=lib.int64),
                                                    lib.ones(3, dtype=lib.int32),
                                                    lib.ones(3, 1, dtype=lib.int64)),
    "lu_solve_pivot_dtype": lambda lib: lib.linalg.lu_solve(
        _lu(lib, lib.eye(3))[0], lib.ones(3, dtype=lib.int64), lib.ones(3, 1)),
    "lu_solve_pivot_count": lambda lib: lib.linalg.lu_solve(
        _lu(lib, lib.eye(3))[0], lib.ones(2, dtype=lib.int32), lib.ones(3, 1)),
    "lu_solve_pivot_batch": lambda lib: lib.linalg.lu_solve(
        lib.eye(3).expand(2, 3, 3), lib.ones(3, dtype=lib.int32), lib.ones(3, 1)),
    "lu_solve_half": lambda lib: lib.linalg.lu_solve(
        lib.eye(3, dtype=lib.float16), lib.ones(3, dtype=lib.int32),
        lib.ones(3, 1, dtype=lib.float16)),
    "lu_unpack_1d": lambda lib: lib.lu_unpack(lib.ones(3), lib.ones(3, dtype=lib.int32)),
    "lu_unpack_pivot_dtype": lambda lib: lib.lu_unpack(lib.eye(3), lib.ones(3, dtype=lib.int64)),
    "lu_unpack_pivot_range": lambda lib: lib.lu_unpack(
        lib.eye(3), lib.tensor([5, 1, 1], dtype=lib.int32)),
    "lstsq_1d": lambda lib: lib.linalg.lstsq(lib.ones(3), lib.ones(3)),
    "lstsq_0d_b": lambda lib: lib.linalg.lstsq(lib.ones(3, 3), lib.tensor(1.0)),
    "lstsq_rows": lambda lib: lib.linalg.lstsq(lib.ones(3, 3), lib.ones(2, 3)),
    "lstsq_dtype": lambda lib: lib.linalg.lstsq(lib.ones(3, 3),
                                                lib.ones(3, 3, dtype=lib.float64)),
    "lstsq_dims": lambda lib: lib.linalg.lstsq(lib.ones(4, 3), lib.ones(2, 2, 4, 1)),
    "lstsq_driver": lambda lib: lib.linalg.lstsq(lib.eye(3), lib.ones(3, 1), driver="foo"),
    "lstsq_int": lambda lib: lib.linalg.lstsq(lib.ones(3, 3, dtype=lib.int64),
                                              lib.ones(3, 3, dtype=lib.int64)),
    "lstsq_half": lambda lib: lib.linalg.lstsq(lib.ones(3, 3, dtype=lib.float16),
                                               lib.ones(3, 1, dtype=lib.float16)),
    # (a zero on R's diagonal that every LAPACK finds exactly)
    "lstsq_gels_rank_deficient": lambda lib: lib.linalg.lstsq(
        lib.eye(4, 3) * lib.tensor([1.0, 1.0, 0.0]), lib.ones(4, 2), driver="gels"),
    "lstsq_gels_rank_deficient_batch": lambda lib: lib.linalg.lstsq(
        lib.stack([lib.eye(4, 3), lib.zeros(4, 3)]), lib.ones(4, 2), driver="gels"),
    "frexp_int": lambda lib: lib.frexp(lib.tensor([1, 2])),
    "frexp_bool": lambda lib: lib.frexp(lib.tensor([True])),
    "frexp_out_mantissa": lambda lib: lib.frexp(lib.tensor([1.0]), out=(
        lib.empty(0, dtype=lib.float16), lib.empty(0, dtype=lib.int32))),
    "frexp_out_exponent": lambda lib: lib.frexp(lib.tensor([1.0]), out=(
        lib.empty(0), lib.empty(0, dtype=lib.int64))),
    "frexp_out_grad": lambda lib: lib.frexp(lib.tensor([1.0], requires_grad=True), out=(
        lib.empty(0), lib.empty(0, dtype=lib.int32))),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_torch(case):
    same(lambda lib: _legacy(lambda: ERRORS[case](lib)))


SCENARIOS = {
    "lu_factor_shapes": lambda lib: [tuple(lib.linalg.lu_factor(randn(lib, *s, rg=False)))
                                     for s in ((3, 3), (4, 2), (2, 4), (2, 3, 3), (0, 0),
                                               (2, 0, 3), (3, 0))],
    "lu_factor_ex_singular": lambda lib: tuple(lib.linalg.lu_factor_ex(
        lib.stack([lib.eye(3), lib.zeros(3, 3), lib.ones(3, 3)]))),
    "lu_factor_ex_nan": lambda lib: [t.isnan() if t.is_floating_point() else t
                                     for t in lib.linalg.lu_factor_ex(
                                         lib.full((2, 2), float("nan")))],
    "lu_shapes": lambda lib: [tuple(lib.linalg.lu(randn(lib, *s))) for s in (
        (3, 3), (5, 2), (2, 5), (2, 4, 3), (0, 0), (2, 0, 3), (3, 0))],
    "lu_singular": lambda lib: tuple(lib.linalg.lu(lib.ones(3, 3, requires_grad=True))),
    "lu_unpack_rect": lambda lib: [tuple(lib.lu_unpack(*_lu(lib, randn(lib, *s))))
                                   for s in ((4, 2), (2, 4), (2, 3, 3))],
    "lu_unpack_flags": lambda lib: [
        tuple(lib.lu_unpack(*_lu(lib, randn(lib, 3, 3)), unpack_data=False)),
        tuple(lib.lu_unpack(*_lu(lib, randn(lib, 3, 3)), unpack_pivots=False)),
        tuple(lib.lu_unpack(*_lu(lib, randn(lib, 3, 3)), False, False))],
    "lu_unpack_half": lambda lib: tuple(lib.lu_unpack(
        lib.ones(3, 3, dtype=lib.float16), lib.tensor([3, 3, 3], dtype=lib.int32))),
    "lu_solve": lambda lib: [
        lib.linalg.lu_solve(*_lu(lib, randn(lib, 2, 3, 3)), randn(lib, 4, 1, 3, 2, seed=1)),
        lib.linalg.lu_solve(*_lu(lib, randn(lib, 3, 3)), randn(lib, 2, 3, seed=1), left=False),
        lib.linalg.lu_solve(*_lu(lib, randn(lib, 3, 3)), randn(lib, 3, 0, seed=1)),
        lib.linalg.lu_solve(*_lu(lib, randn(lib, 0, 0)), randn(lib, 0, 2, seed=1)),
        lib.linalg.lu_solve(*_lu(lib, randn(lib, 3, 3)), randn(lib, 3, 2, seed=1), adjoint=True,
                            left=False)],
    "legacy_lu": lambda lib: _legacy(lambda: [
        lib.lu(randn(lib, 3, 3)), lib.lu(randn(lib, 2, 3, 3), get_infos=True),
        lib.lu(lib.zeros(3, 3)), randn(lib, 3, 3).lu(get_infos=True)]),
    "legacy_lu_solve": lambda lib: _legacy(lambda: [
        lib.lu_solve(randn(lib, 3, 2, seed=1), *_lu(lib, randn(lib, 3, 3))),
        randn(lib, 3, 1, seed=2).lu_solve(*_lu(lib, randn(lib, 3, 3)))]),
    "lstsq_drivers": lambda lib: [tuple(lib.linalg.lstsq(randn(lib, *a), randn(lib, *b, seed=1),
                                                         driver=d))
                                  for d in ("gels", "gelsy", "gelsd", "gelss")
                                  for a, b in (((5, 3), (5, 2)), ((3, 5), (3, 2)), ((3, 3), (3, 1)),
                                               ((2, 5, 3), (2, 5, 2)))],
    "lstsq_vector": lambda lib: [tuple(lib.linalg.lstsq(randn(lib, 5, 3), randn(lib, 5, seed=1),
                                                        driver=d)) for d in ("gelsy", "gelsd")],
    "lstsq_rank_deficient": lambda lib: [
        tuple(lib.linalg.lstsq(lib.ones(4, 3), lib.ones(4, 2), driver=d))
        for d in ("gelsy", "gelsd", "gelss")],
    # (float64: float32's rounding of the tiny values is LAPACK's own; gelsy's cut is
    # test_gelsy_rcond_keeps_the_leading_columns)
    "lstsq_rcond": lambda lib: tuple(lib.linalg.lstsq(
        lib.diag(lib.tensor([1.0, 1e-3, 1e-9], dtype=lib.float64)),
        lib.ones(3, 1, dtype=lib.float64), rcond=1e-2, driver="gelss")),
    "lstsq_empty": lambda lib: [
        tuple(lib.linalg.lstsq(lib.zeros(0, 3), lib.zeros(0, 2))),
        tuple(lib.linalg.lstsq(lib.zeros(3, 0), lib.zeros(3, 2), driver="gelsd"))],
    "lstsq_float32": lambda lib: tuple(lib.linalg.lstsq(
        randn(lib, 5, 3).float(), randn(lib, 5, 2, seed=1).float(), driver="gelsd")),
    "frexp": lambda lib: [
        tuple(lib.frexp(lib.tensor([0.0, -0.0, 1.0, -3.5, float("inf"), -float("inf"),
                                    1e-40, 3e38]))),
        [t.isnan() if t.is_floating_point() else t for t in lib.frexp(lib.tensor([float("nan")]))],
        tuple(lib.frexp(lib.tensor([5e-324, 1e300, -2.5], dtype=lib.float64))),
        tuple(lib.frexp(lib.tensor([1.0, 1000.0, -0.1], dtype=lib.float16))),
        tuple(lib.frexp(lib.tensor([1.0, 1e30, -0.1], dtype=lib.bfloat16))),
        tuple(lib.frexp(lib.tensor(8.0))), tuple(lib.tensor([[8.0]]).frexp())],
    "frexp_out": lambda lib: (lambda m, e: (tuple(lib.frexp(lib.tensor([8.0, 0.75]), out=(m, e))),
                                            m, e, type(lib.frexp(lib.tensor([1.0]), out=(
                                                lib.empty(0), lib.empty(0, dtype=lib.int32))))
                                            .__name__))(
        lib.empty(0), lib.empty(0, dtype=lib.int32)),
}


@pytest.mark.parametrize("case", sorted(SCENARIOS))
def test_values_and_grad_fn_match_torch(case):
    same(SCENARIOS[case])


def test_gelsy_rcond_keeps_the_leading_columns():
    # NOTE: not compared with torch. torch 2.13 hands gelsy a pivot array it never
    # fills (at::empty), and a nonzero entry forces that column to the front. When
    # rcond cuts the rank, which columns survive then depends on stale memory: one
    # call in about 2000 returned [0, 0, 1e9] here instead of [1, 0, 0]. gradtrack
    # passes zeros, so gelsy pivots on the column norms alone: the 1 stays.
    a = gradtrack.diag(gradtrack.tensor([1.0, 1e-3, 1e-9], dtype=gradtrack.float64))
    for _ in range(200):
        x, residuals, rank, s = gradtrack.linalg.lstsq(
            a, gradtrack.ones(3, 1, dtype=gradtrack.float64), rcond=1e-2, driver="gelsy")
        assert x.tolist() == [[1.0], [0.0], [0.0]]
        assert rank.item() == 1 and residuals.numel() == 0 and s.numel() == 0
    # no cut: every column kept, the exact solution
    x = gradtrack.linalg.lstsq(a, gradtrack.ones(3, 1, dtype=gradtrack.float64), rcond=1e-12,
                               driver="gelsy").solution
    np.testing.assert_allclose(x.reshape(-1).numpy(), [1.0, 1e3, 1e9], rtol=1e-12)


def _factor_loss(lib, x):
    _, lower, upper = lib.linalg.lu(x)
    weights = lib.arange(lower.shape[-1] * 1.0, dtype=x.dtype)
    return (lower * weights).sum() + upper.pow(2).sum()


GRADS = {
    "lu_tall": lambda lib: (lambda x: grads(lib, _factor_loss(lib, x), x))(randn(lib, 5, 3)),
    "lu_wide": lambda lib: (lambda x: grads(lib, _factor_loss(lib, x), x))(randn(lib, 2, 3, 5)),
    "lu_l_only": lambda lib: (lambda x: grads(lib, lib.linalg.lu(x).L.sum(), x))(
        randn(lib, 4, 4)),
    "lu_factor_wide": lambda lib: (lambda x: grads(lib, lib.linalg.lu_factor(x).LU.pow(2).sum(),
                                                   x))(randn(lib, 3, 5)),
    "lu_factor_tall": lambda lib: (lambda x: grads(lib, lib.linalg.lu_factor(x).LU.pow(2).sum(),
                                                   x))(randn(lib, 5, 3)),
    "lu_unpack_rect": lambda lib: (lambda x: grads(lib, sum(t.pow(2).sum() for t in lib.lu_unpack(
        x, _lu(lib, x.detach())[1])[1:]), x))(randn(lib, 4, 2)),
    "lu_solve_lu_grad": lambda lib: (lambda x, b: grads(lib, lib.linalg.lu_solve(
        *_lu(lib, x), b, adjoint=True), x, b))(randn(lib, 2, 3, 3), randn(lib, 3, 2, seed=1)),
    "lstsq_wide": lambda lib: (lambda x, b: grads(lib, lib.linalg.lstsq(x, b).solution, x, b))(
        randn(lib, 2, 4), randn(lib, 2, 3, seed=1)),
    "lstsq_residuals": lambda lib: (lambda x, b: grads(lib, lib.linalg.lstsq(
        x, b, driver="gels").residuals, x, b))(randn(lib, 5, 3), randn(lib, 5, 2, seed=1)),
    "lstsq_vector_batch": lambda lib: (lambda x, b: grads(lib, lib.linalg.lstsq(
        x, b).solution, x, b))(randn(lib, 2, 4, 3), randn(lib, 2, 4, seed=1)),
    "frexp": lambda lib: (lambda x: grads(lib, lib.frexp(x).mantissa, x))(
        lib.tensor([3.0, 0.1, 0.0, 1e300, 1e-300], dtype=lib.float64, requires_grad=True)),
    "frexp_half": lambda lib: (lambda x: grads(lib, lib.frexp(x).mantissa, x))(
        lib.tensor([1e4, 3.0], dtype=lib.float16, requires_grad=True)),
    "pinv_rank_deficient": lambda lib: (lambda x: grads(lib, lib.linalg.pinv(x), x))(
        lib.tensor([[1.0, 2.0], [2.0, 4.0], [0.0, 0.0]], dtype=lib.float64, requires_grad=True)),
}


@pytest.mark.parametrize("case", sorted(GRADS))
def test_gradients_match_torch(case):
    same(GRADS[case])


DOUBLE = {
    "lu_tall": lambda lib, x: _factor_loss(lib, x[:, :2]),
    "lu_wide": lambda lib, x: _factor_loss(lib, x[:2]),
    "lu_factor": lambda lib, x: lib.linalg.lu_factor(x).LU.pow(2),
    "lu_solve": lambda lib, x: lib.linalg.lu_solve(*_lu(lib, x), x.mT, left=False),
    "lstsq_tall": lambda lib, x: lib.linalg.lstsq(x[:, :2], x[:, 2:], driver="gelsd").residuals,
    "lstsq": lambda lib, x: lib.linalg.lstsq(x, x.pow(2)).solution,
}


@pytest.mark.parametrize("case", sorted(DOUBLE))
def test_double_backward_matches_torch(case):
    data = np.random.default_rng(3).standard_normal((3, 3))
    same(double_backward(DOUBLE[case], data))


FORWARD_AD = {
    "lu_tall": lambda lib, x: tuple(lib.linalg.lu(x[:, :2]))[1:],
    "lu_wide": lambda lib, x: tuple(lib.linalg.lu(x[:2]))[1:],
    "lu_factor_tall": lambda lib, x: lib.linalg.lu_factor(x[:, :2]).LU,
    "lu_factor_wide": lambda lib, x: lib.linalg.lu_factor(x[:2]).LU,
    "lu_unpack": lambda lib, x: tuple(lib.lu_unpack(x, lib.tensor([3, 3, 3],
                                                                  dtype=lib.int32)))[1:],
    "lu_solve": lambda lib, x: lib.linalg.lu_solve(*_lu(lib, x), x.mT, adjoint=True),
    "lstsq": lambda lib, x: tuple(lib.linalg.lstsq(x[:, :2], x, driver="gelsd")[:2]),
    "lstsq_wide": lambda lib, x: lib.linalg.lstsq(x[:2], x[:2, :1]).solution,
    "frexp": lambda lib, x: lib.frexp(x * 5).mantissa,
    "pinv": lambda lib, x: lib.linalg.pinv(x[:2]),
    "matrix_exp": lambda lib, x: lib.linalg.matrix_exp(x),
}


@pytest.mark.parametrize("case", sorted(FORWARD_AD))
def test_forward_ad_matches_torch(case):
    rng = np.random.default_rng(5)
    data, tangent = rng.standard_normal((3, 3)), rng.standard_normal((3, 3))

    def run(lib):
        fwad = lib.autograd.forward_ad
        with fwad.dual_level():
            x = fwad.make_dual(lib.tensor(data), lib.tensor(tangent))
            out = FORWARD_AD[case](lib, x)
            outs = out if isinstance(out, tuple) else (out,)
            return [fwad.unpack_dual(o).tangent for o in outs]
    same(run)


def test_legacy_functions_warn_as_torch():
    a = gradtrack.tensor([[2.0, 1.0], [1.0, 3.0]])
    with pytest.warns(UserWarning, match="torch.lu is deprecated in favor of "
                                         "torch.linalg.lu_factor"):
        lu, pivots = gradtrack.lu(a)
    with pytest.warns(UserWarning, match="torch.lu_solve is deprecated in favor of "
                                         "torch.linalg.lu_solveand"):
        gradtrack.lu_solve(gradtrack.ones(2, 1), lu, pivots)


def test_named_results_print_as_torch(torch):
    a = [[2.0, 1.0], [1.0, 3.0]]
    for fn in (lambda lib: lib.linalg.lu_factor(lib.tensor(a)),
               lambda lib: lib.linalg.lu_factor_ex(lib.tensor(a)),
               lambda lib: lib.linalg.lu(lib.tensor(a)),
               lambda lib: lib.lu_unpack(*lib.linalg.lu_factor(lib.tensor(a))),
               lambda lib: lib.linalg.lstsq(lib.tensor([[2.0, 0.0], [0.0, 4.0], [0.0, 0.0]]),
                                            lib.tensor([[2.0, 4.0], [4.0, 8.0], [1.0, 1.0]]),
                                            driver="gelsd"),
               lambda lib: lib.frexp(lib.tensor(a)),
               lambda lib: _legacy(lambda: lib.lu(lib.tensor(a), get_infos=True))):
        ours, theirs = fn(gradtrack), fn(torch)
        assert type(ours).__name__ == type(theirs).__name__
        assert repr(ours) == repr(theirs).replace("torch", "gradtrack")
    r = gradtrack.linalg.lstsq(gradtrack.tensor(a), gradtrack.tensor(a))
    assert r.solution is r[0] and r.rank is r[2]


OUT = {
    "lu_factor": lambda lib, a: lib.linalg.lu_factor(a, out=(lib.empty(0),
                                                             lib.empty(0, dtype=lib.int32))),
    "lu_factor_ex": lambda lib, a: lib.linalg.lu_factor_ex(
        a, out=(lib.empty(0), lib.empty(0, dtype=lib.int32), lib.empty(0, dtype=lib.int32))),
    "lu": lambda lib, a: lib.linalg.lu(a, out=(lib.empty(0), lib.empty(0), lib.empty(0))),
    "lu_unpack": lambda lib, a: lib.lu_unpack(*lib.linalg.lu_factor(a), out=(
        lib.empty(0), lib.empty(0), lib.empty(0))),
    "lu_solve": lambda lib, a: lib.linalg.lu_solve(*lib.linalg.lu_factor(a), a,
                                                   out=lib.empty(0)),
    "legacy_lu_solve": lambda lib, a: _legacy(lambda: lib.lu_solve(
        a, *lib.linalg.lu_factor(a), out=lib.empty(0))),
}


@pytest.mark.parametrize("case", sorted(OUT))
def test_out_matches_torch(case):
    def run(lib):
        r = OUT[case](lib, lib.tensor([[1.0, 2.0], [3.0, 1.0]]))
        parts = r if isinstance(r, tuple) else (r,)
        return [(str(p.dtype), tuple(p.shape), np.round(p.numpy().astype(float), 4).tolist())
                for p in parts]
    same(run)


@pytest.mark.parametrize("shape", [(65, 65), (130, 130), (257, 257), (2, 100, 100), (90, 140),
                                   (140, 90)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_blocked_lu_factor_matches_torch(torch, shape, dtype):
    # Square matrices past 64 columns take the blocked factorization (NOTE [Square LU
    # on the blocked factorization]): getrf's pivots, and factors equal to torch's to
    # rounding; rectangular ones stay LAPACK's. Permuted rows make it pivot.
    rng = np.random.default_rng(sum(shape))
    a = rng.standard_normal(shape).astype(dtype)
    a = a[..., rng.permutation(shape[-2]), :]
    ours = gradtrack.linalg.lu_factor(gradtrack.tensor(a))
    theirs = torch.linalg.lu_factor(torch.tensor(a))
    assert np.array_equal(ours.pivots.numpy(), theirs.pivots.numpy())

    def residual(lu, pivots):  # max |P L U - A| in float64
        p, low, up = torch.lu_unpack(torch.tensor(lu, dtype=torch.float64),
                                     torch.tensor(pivots))
        return (p @ low @ up - torch.tensor(a, dtype=torch.float64)).abs().max().item()

    mine = residual(ours.LU.numpy(), ours.pivots.numpy())
    assert mine <= 2 * residual(theirs.LU.numpy(), theirs.pivots.numpy()) + 1e-300
    assert mine <= (1e-4 if dtype == "float32" else 1e-12) * np.abs(a).max()
