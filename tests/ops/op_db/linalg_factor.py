"""The factorizations of torch.linalg: inv (inv_ex, inverse), det, slogdet, logdet, solve
(solve_ex, left=False, vector right-hand sides), solve_triangular, matrix_power, cholesky
(cholesky_ex, upper, the legacy torch.cholesky), cholesky_solve, and the tensor forms of
inv and solve (tensorinv, tensorsolve).

Their inputs must be invertible or positive-definite: each row builds them from the random
samples with differentiable ops (``A + 5 I`` is diagonally dominant enough for the
samples' values in [-2, 2]; ``A A^T + 3 I`` is symmetric positive-definite), so gradients
reach the raw samples through the op under test.
"""

import warnings

import numpy as np

from .rows import FLOAT, A, OpSpec, S, T, Tr


def _mt(lib, a):
    return np.swapaxes(a, -1, -2) if lib is np else a.transpose(-2, -1)


def _eye(lib, a):
    return lib.eye(a.shape[-1], dtype=a.dtype)


def _well(lib, a):
    """An invertible matrix made from ``a``."""
    return a + 5 * _eye(lib, a)


def _spd(lib, a):
    """A symmetric positive-definite matrix made from ``a``."""
    return lib.matmul(a, _mt(lib, a)) + 3 * _eye(lib, a)


def _tri(lib, a, upper):
    """A well-conditioned triangular matrix with ``a``'s other triangle kept (the solve
    must not read it)."""
    return a + 4 * _eye(lib, a)


def _np_tri(a, upper):
    return np.triu(a) if upper else np.tril(a)


def _np_solve(a, b):
    """torch's rule: b is a (batch of) vector(s) when it has a's shape without its last dim."""
    if b.ndim == 1 or b.shape == a.shape[:-1]:
        return np.linalg.solve(a, b[..., None])[..., 0]
    return np.linalg.solve(a, b)


def _np_unit_tri(a, upper):
    t = _np_tri(a, upper).copy()
    idx = np.arange(a.shape[-1])
    t[..., idx, idx] = 1
    return t


def _legacy_cholesky(lib, a):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return lib.cholesky(_spd(lib, a))


SQUARE = (S("3x3", A(3, 3)), S("t", T(3, 3)), S("batch", A(2, 3, 3)), S("1x1", A(1, 1)))
_TOL = dict(rtol=1e-4, atol=1e-4, rtol64=1e-7, atol64=1e-7)

OPS = [
    OpSpec("linalg.inv", lambda lib, a: lib.linalg.inv(_well(lib, a)), SQUARE, FLOAT,
           gradgrad=True, **_TOL),
    OpSpec("linalg.inv_ex", lambda lib, a: lib.linalg.inv_ex(_well(lib, a))[0], SQUARE[:3], FLOAT,
           ref=lambda np_, a: np.linalg.inv(_well(np, a)), **_TOL),
    OpSpec("inverse", lambda lib, a: lib.inverse(_well(lib, a)), SQUARE[:1], FLOAT,
           ref=lambda np_, a: np.linalg.inv(_well(np, a)), **_TOL),
    OpSpec("Tensor.inverse", lambda lib, a: _well(lib, a).inverse(), SQUARE[:1], FLOAT,
           ref=lambda np_, a: np.linalg.inv(_well(np, a)), **_TOL),
    # (torch's gradient of a 1x1 det does not require grad: no double backward there)
    OpSpec("linalg.det", lambda lib, a: lib.linalg.det(_well(lib, a)), SQUARE[:3], FLOAT,
           gradgrad=True, **_TOL),
    OpSpec("linalg.det_1x1", lambda lib, a: lib.linalg.det(_well(lib, a)), SQUARE[3:], FLOAT,
           ref=lambda np_, a: np.linalg.det(_well(np, a)), **_TOL),
    OpSpec("linalg.det_raw", lambda lib, a: lib.linalg.det(a), SQUARE[:3], FLOAT,
           ref=lambda np_, a: np.linalg.det(a), **_TOL),
    OpSpec("det", lambda lib, a: lib.det(_well(lib, a)), SQUARE[:1], FLOAT,
           ref=lambda np_, a: np.linalg.det(_well(np, a)), **_TOL),
    OpSpec("Tensor.det", lambda lib, a: _well(lib, a).det(), SQUARE[:1], FLOAT,
           ref=lambda np_, a: np.linalg.det(_well(np, a)), **_TOL),
    OpSpec("linalg.slogdet", lambda lib, a: lib.linalg.slogdet(_well(lib, a) * -1)[1], SQUARE,
           FLOAT, gradgrad=True, **_TOL),
    OpSpec("linalg.slogdet_sign", lambda lib, a: lib.linalg.slogdet(a)[0], SQUARE[:3], FLOAT,
           differentiable=False, ref=lambda np_, a: np.linalg.slogdet(a)[0]),
    OpSpec("slogdet", lambda lib, a: lib.slogdet(_well(lib, a))[1], SQUARE[:1], FLOAT,
           ref=lambda np_, a: np.linalg.slogdet(_well(np, a))[1], **_TOL),
    OpSpec("logdet", lambda lib, a: lib.logdet(_spd(lib, a)), SQUARE, FLOAT,
           ref=lambda np_, a: np.linalg.slogdet(_spd(np, a))[1], gradgrad=True, **_TOL),
    OpSpec("Tensor.logdet", lambda lib, a: _spd(lib, a).logdet(), SQUARE[:1], FLOAT,
           ref=lambda np_, a: np.linalg.slogdet(_spd(np, a))[1], **_TOL),
    OpSpec("linalg.solve", lambda lib, a, b: lib.linalg.solve(_well(lib, a), b),
           (S("3x3_3x2", A(3, 3), A(3, 2)), S("t", T(3, 3), T(3, 2)),
            S("batch_bcast", A(2, 3, 3), A(3, 4)), S("bcast_a", A(3, 3), A(2, 3, 1)),
            S("vector", A(3, 3), A(3)), S("batch_vector", A(2, 3, 3), A(2, 3))), FLOAT,
           ref=lambda np_, a, b: _np_solve(_well(np, a), b), gradgrad=True, **_TOL),
    OpSpec("linalg.solve_right", lambda lib, a, b: lib.linalg.solve(_well(lib, a), b, left=False),
           (S("2x3_3x3", A(3, 3), A(2, 3)), S("batch", A(2, 3, 3), A(2, 4, 3))), FLOAT,
           ref=lambda np_, a, b: b @ np.linalg.inv(_well(np, a)), gradgrad=True, **_TOL),
    OpSpec("linalg.solve_ex", lambda lib, a, b: lib.linalg.solve_ex(_well(lib, a), b)[0],
           (S("3x3_3x2", A(3, 3), A(3, 2)),), FLOAT,
           ref=lambda np_, a, b: np.linalg.solve(_well(np, a), b), **_TOL),
]

for _upper in (True, False):
    _name = "upper" if _upper else "lower"
    OPS += [
        OpSpec(f"linalg.solve_triangular_{_name}",
               lambda lib, a, b, u=_upper: lib.linalg.solve_triangular(_tri(lib, a, u), b, upper=u),
               (S("3x3_3x2", A(3, 3), A(3, 2)), S("t", T(3, 3), A(3, 4)),
                S("batch_bcast", A(2, 3, 3), A(3, 2)), S("tr", Tr((2, 3, 3), 1, 2), A(2, 3, 1))),
               FLOAT, ref=lambda np_, a, b, u=_upper: np.linalg.solve(
                   _np_tri(a + 4 * np.eye(3), u), b), gradgrad=True, **_TOL),
        OpSpec(f"linalg.solve_triangular_{_name}_right_unit",
               lambda lib, a, b, u=_upper: lib.linalg.solve_triangular(
                   _tri(lib, a, u), b, upper=u, left=False, unitriangular=True),
               (S("2x3_3x3", A(3, 3), A(2, 3)), S("batch", A(2, 3, 3), A(2, 4, 3))), FLOAT,
               ref=lambda np_, a, b, u=_upper: b @ np.linalg.inv(_np_unit_tri(a, u)),
               gradgrad=True, **_TOL),
    ]

# matrix_power: torch's order of products, for each path (identity, clone, inverse, bits)
for _n in (0, 1, 2, 3, 5, -1, -3):
    OPS.append(OpSpec(f"linalg.matrix_power_{_n}".replace("-", "neg"),
                      lambda lib, a, n=_n: lib.linalg.matrix_power(_well(lib, a) / 5, n),
                      SQUARE[:3], FLOAT,
                      ref=lambda np_, a, n=_n: np.linalg.matrix_power(_well(np, a) / 5, n),
                      gradgrad=_n in (3, -3), **_TOL))
OPS += [
    OpSpec("matrix_power", lambda lib, a: lib.matrix_power(a, 2), SQUARE[:1], FLOAT + ("int64",),
           ref=lambda np_, a: np.linalg.matrix_power(a, 2), **_TOL),
    OpSpec("Tensor.matrix_power", lambda lib, a: a.matrix_power(4), SQUARE[:1], FLOAT,
           ref=lambda np_, a: np.linalg.matrix_power(a, 4), **_TOL),
]

OPS += [
    OpSpec("linalg.cholesky", lambda lib, a: lib.linalg.cholesky(_spd(lib, a)), SQUARE, FLOAT,
           ref=lambda np_, a: np.linalg.cholesky(_spd(np, a)), gradgrad=True, **_TOL),
    OpSpec("linalg.cholesky_upper", lambda lib, a: lib.linalg.cholesky(_spd(lib, a), upper=True),
           SQUARE[:3], FLOAT,
           ref=lambda np_, a: np.swapaxes(np.linalg.cholesky(_spd(np, a)), -1, -2), **_TOL),
    OpSpec("linalg.cholesky_ex", lambda lib, a: lib.linalg.cholesky_ex(_spd(lib, a))[0],
           SQUARE[:1], FLOAT, ref=lambda np_, a: np.linalg.cholesky(_spd(np, a)), **_TOL),
    OpSpec("cholesky", _legacy_cholesky, SQUARE[:3], FLOAT,
           ref=lambda np_, a: np.linalg.cholesky(_spd(np, a)), **_TOL),
    OpSpec("cholesky_solve",
           lambda lib, b, a: lib.cholesky_solve(b, lib.linalg.cholesky(_spd(lib, a))),
           (S("3x2_3x3", A(3, 2), A(3, 3)), S("batch_bcast", A(2, 3, 1), A(3, 3))), FLOAT,
           ref=lambda np_, b, a: np.linalg.solve(_spd(np, a), b), gradgrad=True, **_TOL),
    OpSpec("cholesky_solve_upper",
           lambda lib, b, a: lib.cholesky_solve(b, lib.linalg.cholesky(_spd(lib, a), upper=True),
                                                upper=True),
           (S("3x2_3x3", A(3, 2), A(3, 3)),), FLOAT,
           ref=lambda np_, b, a: np.linalg.solve(_spd(np, a), b), gradgrad=True, **_TOL),
    OpSpec("cholesky_inverse", lambda lib, a: lib.cholesky_inverse(lib.linalg.cholesky(_spd(lib, a))),
           SQUARE[:3], FLOAT, ref=lambda np_, a: np.linalg.inv(_spd(np, a)), gradgrad=True, **_TOL),
    OpSpec("Tensor.cholesky_inverse_upper",
           lambda lib, a: lib.linalg.cholesky(_spd(lib, a), upper=True).cholesky_inverse(True),
           SQUARE[:1], FLOAT, ref=lambda np_, a: np.linalg.inv(_spd(np, a)), **_TOL),
    OpSpec("Tensor.cholesky_solve",
           lambda lib, b, a: b.cholesky_solve(lib.linalg.cholesky(_spd(lib, a))),
           (S("3x2_3x3", A(3, 2), A(3, 3)),), FLOAT,
           ref=lambda np_, b, a: np.linalg.solve(_spd(np, a), b), **_TOL),
    # the tensor forms: a 6x6 well-conditioned matrix read as (2, 3, 6) or (6, 2, 3) dims
    OpSpec("linalg.tensorinv", lambda lib, a: lib.linalg.tensorinv(
        _well(lib, a).reshape(2, 3, 6), ind=2), (S("6x6", A(6, 6)), S("t", T(6, 6))), FLOAT,
        ref=lambda np_, a: np.linalg.tensorinv(_well(np, a).reshape(2, 3, 6), ind=2),
        gradgrad=True, **_TOL),
    OpSpec("linalg.tensorsolve", lambda lib, a, b: lib.linalg.tensorsolve(
        _well(lib, a).reshape(2, 3, 2, 3), b), (S("6x6_2x3", A(6, 6), A(2, 3)),), FLOAT,
        ref=lambda np_, a, b: np.linalg.tensorsolve(_well(np, a).reshape(2, 3, 2, 3), b),
        **_TOL),
    OpSpec("linalg.tensorsolve_dims", lambda lib, a, b: lib.linalg.tensorsolve(
        _well(lib, a).reshape(2, 3, 2, 3), b, dims=(0,)), (S("6x6_3x2", A(6, 6), A(3, 2)),),
        FLOAT, ref=lambda np_, a, b: np.linalg.tensorsolve(_well(np, a).reshape(2, 3, 2, 3), b,
                                                             axes=(0,)), **_TOL),
]
