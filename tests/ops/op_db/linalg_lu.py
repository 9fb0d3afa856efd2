"""The LU factorization of torch.linalg and least squares: lu_factor (lu_factor_ex, the
legacy torch.lu), lu, lu_unpack, lu_solve (left, adjoint, the legacy torch.lu_solve)
and lstsq (its drivers, residuals, vector right-hand sides).

The LU rows factor ``A + 5 I`` with its rows reversed: well-conditioned, and partial
pivoting has rows to swap back, so the permutation is not the identity. The reference
is a plain partial-pivoting elimination (the first largest pivot, as LAPACK's getrf
picks it). The lstsq rows solve with ``a`` plus a diagonal of 5s (full rank).
"""

import warnings

import numpy as np

from .rows import FLOAT, A, OpSpec, S, T


def _diag5(lib, a):
    m, n = a.shape[-2:]
    d = 5 * np.eye(m, n)
    return a + (d if lib is np else lib.tensor(d, dtype=a.dtype))


def _pivoted(lib, a):
    """``a + 5 I`` (its leading diagonal) with its rows reversed."""
    w = _diag5(lib, a)
    return np.flip(w, -2).copy() if lib is np else w.flip(-2)


def _np_lu(a):
    """(LU, pivots) of each matrix: getrf's partial pivoting, in numpy."""
    m, n = a.shape[-2:]
    k = min(m, n)
    out = np.array(a, dtype=np.float64).reshape(-1, m, n)
    pivots = np.zeros((out.shape[0], k), dtype=np.int32)
    for b, mat in enumerate(out):
        for j in range(k):
            p = j + int(np.argmax(np.abs(mat[j:, j])))
            pivots[b, j] = p + 1
            mat[[j, p]] = mat[[p, j]]
            mat[j + 1:, j] /= mat[j, j]
            mat[j + 1:, j + 1:] -= np.outer(mat[j + 1:, j], mat[j, j + 1:])
    return out.reshape(a.shape).astype(a.dtype), pivots.reshape(a.shape[:-2] + (k,))


def _np_unpack(lu, pivots):
    m, n = lu.shape[-2:]
    k = min(m, n)
    L = np.tril(lu[..., :, :k], -1) + np.eye(m, k)  # noqa: N806
    U = np.triu(lu[..., :k, :])  # noqa: N806
    perms = []
    for row in pivots.reshape(-1, k):
        order = list(range(m))
        for i, p in enumerate(row):
            order[i], order[p - 1] = order[p - 1], order[i]
        perms.append(np.eye(m)[order].T)
    P = np.array(perms).reshape(lu.shape[:-2] + (m, m)).astype(lu.dtype)  # noqa: N806
    return P, L.astype(lu.dtype), U


def _np_plu(a):
    return _np_unpack(*_np_lu(a))


def _legacy(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()


def _np_lstsq(a, b):
    """The minimum-norm least-squares solution of each pair (b a vector batch when it
    has one dim fewer than a)."""
    vector = b.ndim == a.ndim - 1
    bm = b[..., None] if vector else b
    x = np.linalg.pinv(a) @ bm
    return x[..., 0] if vector else x


def _np_residuals(a, b):
    return ((a @ _np_lstsq(a, b) - b) ** 2).sum(-2)


_SHAPES = (S("3x3", A(3, 3)), S("t", T(3, 3)), S("tall", A(4, 2)), S("wide", A(2, 4)),
           S("batch", A(2, 3, 3)))
_TOL = dict(rtol=1e-4, atol=1e-4, rtol64=1e-7, atol64=1e-7)
_SOLVE = (S("3x3_3x2", A(3, 3), A(3, 2)), S("batch_bcast", A(2, 3, 3), A(3, 2)),
          S("t", T(3, 3), A(3, 1)))
_RIGHT = (S("2x3_3x3", A(3, 3), A(2, 3)), S("batch", A(2, 3, 3), A(2, 4, 3)))


def _lu_solve(lib, a, b, **kw):
    return lib.linalg.lu_solve(*lib.linalg.lu_factor(_pivoted(lib, a)), b, **kw)


def _np_solve_with(a, b, left, adjoint):
    w = _pivoted(np, a)
    w = np.swapaxes(w, -1, -2) if adjoint else w
    return np.linalg.solve(w, b) if left else b @ np.linalg.inv(w)


OPS = [
    OpSpec("linalg.lu_factor", lambda lib, a: tuple(lib.linalg.lu_factor(_pivoted(lib, a))),
           _SHAPES, FLOAT, ref=lambda np_, a: _np_lu(_pivoted(np, a)), gradgrad=True, **_TOL),
    OpSpec("linalg.lu_factor_ex",
           lambda lib, a: tuple(lib.linalg.lu_factor_ex(_pivoted(lib, a))), _SHAPES[:3], FLOAT,
           ref=lambda np_, a: _np_lu(_pivoted(np, a)) + (np.zeros((), np.int32),), **_TOL),
    OpSpec("lu", lambda lib, a: _legacy(lambda: tuple(lib.lu(_pivoted(lib, a)))), _SHAPES[:1],
           FLOAT, ref=lambda np_, a: _np_lu(_pivoted(np, a)), **_TOL),
    OpSpec("Tensor.lu", lambda lib, a: _legacy(lambda: tuple(_pivoted(lib, a).lu())),
           _SHAPES[:1], FLOAT, ref=lambda np_, a: _np_lu(_pivoted(np, a)), **_TOL),
    OpSpec("linalg.lu", lambda lib, a: tuple(lib.linalg.lu(_pivoted(lib, a))), _SHAPES, FLOAT,
           ref=lambda np_, a: _np_plu(_pivoted(np, a)), **_TOL),
    # (P is float and not differentiable: double backward runs through L and U alone)
    OpSpec("linalg.lu_factors", lambda lib, a: tuple(lib.linalg.lu(_pivoted(lib, a)))[1:],
           _SHAPES[2:], FLOAT, ref=lambda np_, a: _np_plu(_pivoted(np, a))[1:], gradgrad=True,
           **_TOL),
    OpSpec("lu_unpack", lambda lib, a: tuple(lib.lu_unpack(
               a, lib.linalg.lu_factor(_pivoted(lib, a.detach()))[1])), _SHAPES, FLOAT,
           ref=lambda np_, a: _np_unpack(a, _np_lu(_pivoted(np, a))[1]), **_TOL),
    OpSpec("linalg.lu_solve", _lu_solve, _SOLVE, FLOAT,
           ref=lambda np_, a, b: _np_solve_with(a, b, True, False), gradgrad=True, **_TOL),
    OpSpec("linalg.lu_solve_adjoint", lambda lib, a, b: _lu_solve(lib, a, b, adjoint=True),
           _SOLVE[:2], FLOAT, ref=lambda np_, a, b: _np_solve_with(a, b, True, True),
           gradgrad=True, **_TOL),
    OpSpec("linalg.lu_solve_right", lambda lib, a, b: _lu_solve(lib, a, b, left=False), _RIGHT,
           FLOAT, ref=lambda np_, a, b: _np_solve_with(a, b, False, False), **_TOL),
    OpSpec("linalg.lu_solve_right_adjoint",
           lambda lib, a, b: _lu_solve(lib, a, b, left=False, adjoint=True), _RIGHT, FLOAT,
           ref=lambda np_, a, b: _np_solve_with(a, b, False, True), **_TOL),
    OpSpec("lu_solve", lambda lib, a, b: _legacy(
               lambda: lib.lu_solve(b, *lib.linalg.lu_factor(_pivoted(lib, a)))),
           _SOLVE[:1], FLOAT, ref=lambda np_, a, b: _np_solve_with(a, b, True, False), **_TOL),
    OpSpec("Tensor.lu_solve", lambda lib, a, b: _legacy(
               lambda: b.lu_solve(*lib.linalg.lu_factor(_pivoted(lib, a)))),
           _SOLVE[:1], FLOAT, ref=lambda np_, a, b: _np_solve_with(a, b, True, False), **_TOL),
]

_LSTSQ = (S("tall", A(4, 3), A(4, 2)), S("wide", A(2, 4), A(2, 3)), S("3x3", A(3, 3), A(3, 1)),
          S("batch", A(2, 4, 3), A(2, 4, 2)), S("t", T(4, 3), A(4, 2)))
for _driver in ("gels", "gelsy", "gelsd", "gelss"):
    OPS.append(OpSpec(f"linalg.lstsq_{_driver}", lambda lib, a, b, d=_driver: lib.linalg.lstsq(
                          _diag5(lib, a), b, driver=d).solution,
                      _LSTSQ if _driver != "gelsd" else _LSTSQ[:3], FLOAT,
                      ref=lambda np_, a, b: _np_lstsq(_diag5(np, a), b),
                      gradgrad=_driver == "gelsy", **_TOL))
OPS += [
    OpSpec("linalg.lstsq", lambda lib, a, b: lib.linalg.lstsq(_diag5(lib, a), b).solution,
           (S("vector", A(4, 3), A(4)), S("batch_vector", A(2, 3, 3), A(2, 3)),
            S("bcast", A(2, 4, 3), A(1, 4, 2))), FLOAT,
           ref=lambda np_, a, b: _np_lstsq(_diag5(np, a), b), **_TOL),
    OpSpec("linalg.lstsq_residuals",
           lambda lib, a, b: tuple(lib.linalg.lstsq(_diag5(lib, a), b, driver="gelsd")[:2]),
           (S("tall", A(4, 2), A(4, 2)), S("batch", A(2, 5, 3), A(2, 5, 1))), FLOAT,
           ref=lambda np_, a, b: (_np_lstsq(_diag5(np, a), b), _np_residuals(_diag5(np, a), b)),
           gradgrad=True, **_TOL),
]
