"""Linear algebra: the matmul family (matmul, mm, bmm, mv, dot, outer), baddbmm, addmv,
cross, trace, einsum, tensordot, inner and cdist.
"""

import warnings

import numpy as np

from .rows import FLOAT, NUM, A, OpSpec, S, Step, T, Tr
from .samples import MATRIX


def _matmul(np_, a, b):
    return np.matmul(a, b)


def _cross_np(a, b):
    return np.cross(a, b, axis=-1)


def _np_cdist(a, b, p):
    d = np.abs(a[..., :, None, :] - b[..., None, :, :])
    return d.max(-1) if p == np.inf else (d ** p).sum(-1) ** (1 / p)


OPS = []

# ---- matmul family ---------------------------------------------------------------------------

MATMUL = (
    S("1d_1d", A(3), A(3)),
    S("2d_1d", A(2, 3), A(3)),
    S("1d_2d", A(3), A(3, 2)),
    S("2d_2d", A(2, 3), A(3, 4)),
    S("3d_2d", A(2, 2, 3), A(3, 4)),
    S("2d_3d", A(2, 3), A(2, 3, 4)),
    S("3d_3d", A(2, 2, 3), A(2, 3, 4)),
    S("1d_3d", A(3), A(2, 3, 4)),
    S("3d_1d", A(2, 2, 3), A(3)),
    S("4d_3d_bcast", A(2, 1, 2, 3), A(3, 3, 2)),
    S("t_t", T(2, 3), T(3, 4)),
    S("3d_tr_step", Tr((2, 2, 3), 1, 2), Step(3, 2)),
    S("empty_rows", A(0, 3), A(3, 2)),
    S("empty_inner", A(2, 0), A(0, 3)),
)
_MM_TOL = dict(rtol=1e-5, atol=1e-5)
OPS += [
    OpSpec("matmul", lambda lib, a, b: lib.matmul(a, b), MATMUL, FLOAT + ("int64",),
           ref=_matmul, gradgrad=True, **_MM_TOL),
    OpSpec("matmul_operator", lambda lib, a, b: a @ b, MATMUL[:6], FLOAT + ("int32",),
           ref=_matmul, **_MM_TOL),
    OpSpec("mm", lambda lib, a, b: lib.mm(a, b),
           (S("2d", A(2, 3), A(3, 4)), S("t_t", T(2, 3), T(3, 4)), S("step", Step(2, 3), A(3, 1)),
            S("empty", A(2, 0), A(0, 3))), FLOAT + ("int64",), ref=_matmul, **_MM_TOL),
    OpSpec("Tensor.mm", lambda lib, a, b: a.mm(b), (S("2d", A(2, 3), A(3, 4)),), FLOAT,
           ref=_matmul, **_MM_TOL),
    OpSpec("bmm", lambda lib, a, b: lib.bmm(a, b),
           (S("3d", A(2, 2, 3), A(2, 3, 4)), S("tr", Tr((2, 2, 3), 1, 2), Tr((2, 3, 4), 0, 1)),
            S("empty_batch", A(0, 2, 3), A(0, 3, 1))), FLOAT + ("int64",), ref=_matmul, **_MM_TOL),
    OpSpec("mv", lambda lib, a, b: lib.mv(a, b),
           (S("2d_1d", A(2, 3), A(3)), S("t_step", T(2, 3), Step(3))), FLOAT + ("int64",),
           ref=_matmul, **_MM_TOL),
    OpSpec("dot", lambda lib, a, b: lib.dot(a, b),
           (S("1d", A(4), A(4)), S("step", Step(3), A(3)), S("empty", A(0), A(0))),
           FLOAT + ("int64",), ref=lambda np_, a, b: np.dot(a, b), **_MM_TOL),
    OpSpec("Tensor.dot", lambda lib, a, b: a.dot(b), (S("1d", A(4), A(4)),), FLOAT,
           ref=lambda np_, a, b: np.dot(a, b), **_MM_TOL),
    OpSpec("vdot", lambda lib, a, b: lib.vdot(a, b),
           (S("1d", A(4), A(4)), S("step", Step(3), A(3)), S("empty", A(0), A(0))),
           FLOAT + ("int64",), ref=lambda np_, a, b: np.vdot(a, b), gradgrad=True, **_MM_TOL),
    OpSpec("Tensor.vdot", lambda lib, a, b: a.vdot(b), (S("1d", A(4), A(4)),), FLOAT,
           ref=lambda np_, a, b: np.vdot(a, b), **_MM_TOL),
    OpSpec("outer", lambda lib, a, b: lib.outer(a, b),
           (S("1d", A(3), A(4)), S("step", Step(2), A(3)), S("empty", A(0), A(2))),
           NUM, ref=lambda np_, a, b: np.outer(a, b)),
    OpSpec("ger", lambda lib, a, b: lib.ger(a, b), (S("1d", A(3), A(4)), S("step", Step(2), A(3))),
           NUM, ref=lambda np_, a, b: np.outer(a, b)),
    OpSpec("Tensor.ger", lambda lib, a, b: a.ger(b), (S("1d", A(3), A(4)),), FLOAT,
           ref=lambda np_, a, b: np.outer(a, b)),
]
OPS += [
    OpSpec("linalg.matmul", lambda lib, a, b: lib.linalg.matmul(a, b), MATMUL[:6], FLOAT,
           ref=_matmul, **_MM_TOL),
    OpSpec("linalg.vecdot", lambda lib, a, b: lib.linalg.vecdot(a, b),
           (S("2d", A(2, 3), A(2, 3)), S("bcast", A(3), A(2, 3)), S("t", T(3, 3), A(3, 3)),
            S("empty", A(2, 0), A(2, 0))), FLOAT, ref=lambda np_, a, b: (a * b).sum(-1),
           gradgrad=True, **_MM_TOL),
    OpSpec("linalg.vecdot_dim", lambda lib, a, b: lib.linalg.vecdot(a, b, dim=0),
           (S("2d", A(2, 3), A(2, 3)), S("step", Step(2, 3), A(1, 3))), FLOAT,
           ref=lambda np_, a, b: (a * b).sum(0), **_MM_TOL),
]

# ---- baddbmm, addmv, cross, trace, einsum, tensordot, inner, cdist ---------------------------

OPS += [
    OpSpec("trace", lambda lib, a: lib.trace(a), MATRIX[:2], FLOAT,
           ref=lambda np_, a: np.trace(a)),
    OpSpec("baddbmm", lambda lib, c, a, b: lib.baddbmm(c, a, b, beta=0.5, alpha=2),
           (S("2x3x4", A(2, 3, 2), A(2, 3, 4), A(2, 4, 2)),
            S("bcast", A(3, 2), A(2, 3, 4), Tr((2, 4, 2), 1, 2))), FLOAT,
           ref=lambda np_, c, a, b: 0.5 * c + 2 * (a @ b), rtol=1e-5),
    OpSpec("addmv", lambda lib, c, m, v: lib.addmv(c, m, v),
           (S("3x4", A(3), A(3, 4), A(4)), S("t", A(3), T(3, 4), A(4))), FLOAT,
           ref=lambda np_, c, m, v: c + m @ v, rtol=1e-5),
    OpSpec("cross", lambda lib, a, b: lib.cross(a, b, dim=-1),
           (S("2x3", A(2, 3), A(2, 3)), S("t", T(4, 3), A(4, 3))), FLOAT,
           ref=lambda np_, a, b: _cross_np(a, b), rtol=1e-5),
    OpSpec("einsum_matmul", lambda lib, a, b: lib.einsum("ij,jk->ik", a, b),
           (S("3x4", A(3, 4), A(4, 2)), S("t", T(3, 4), A(4, 2))), FLOAT,
           ref=lambda np_, a, b: np.einsum("ij,jk->ik", a, b), rtol=1e-5),
    OpSpec("einsum_bmm", lambda lib, a, b: lib.einsum("bij,bjk->bik", a, b),
           (S("2x3x4", A(2, 3, 4), A(2, 4, 2)),), FLOAT,
           ref=lambda np_, a, b: np.einsum("bij,bjk->bik", a, b), rtol=1e-5),
    # (a diagonal with an outer product, "bii,bj->bj", computes the same values and
    # gradients but ends in MulBackward0 where torch's graph ends in ViewBackward0)
    OpSpec("einsum_implicit", lambda lib, a, b: lib.einsum("ij,kj", a, b),
           (S("2x3", A(2, 3), A(4, 3)),), FLOAT,
           ref=lambda np_, a, b: np.einsum("ij,kj", a, b), rtol=1e-5),
    OpSpec("tensordot", lambda lib, a, b: lib.tensordot(a, b, dims=([1, 2], [0, 1])),
           (S("2x3x4", A(2, 3, 4), A(3, 4, 2)),), FLOAT,
           ref=lambda np_, a, b: np.tensordot(a, b, axes=([1, 2], [0, 1])), rtol=1e-5),
    OpSpec("tensordot_int_dims", lambda lib, a, b: lib.tensordot(a, b, 1),
           (S("2x3", A(2, 3), A(3, 4)), S("t", T(2, 3), A(3, 4))), FLOAT,
           ref=lambda np_, a, b: np.tensordot(a, b, 1), rtol=1e-5),
    OpSpec("inner", lambda lib, a, b: lib.inner(a, b), (S("3x4_2x4", A(3, 4), A(2, 4)),
                                                        S("vec", A(4), A(4))), FLOAT,
           ref=lambda np_, a, b: np.inner(a, b), rtol=1e-5),
    OpSpec("cdist_p2", lambda lib, a, b: lib.cdist(a, b), (S("2d", A(3, 4), A(5, 4)),
                                                          S("batch", A(2, 3, 4), A(5, 4))),
           FLOAT, ref=lambda np_, a, b: _np_cdist(a, b, 2), rtol=1e-5),
    OpSpec("cdist_p1", lambda lib, a, b: lib.cdist(a, b, p=1), (S("2d", A(3, 4), A(5, 4)),),
           FLOAT, ref=lambda np_, a, b: _np_cdist(a, b, 1), rtol=1e-5),
    OpSpec("cdist_pinf", lambda lib, a, b: lib.cdist(a, b, p=float("inf")),
           (S("2d", A(3, 4), A(5, 4)),), FLOAT, ref=lambda np_, a, b: _np_cdist(a, b, np.inf)),
    OpSpec("cdist_p3", lambda lib, a, b: lib.cdist(a, b, p=3), (S("2d", A(3, 4), A(5, 4)),),
           FLOAT, ref=lambda np_, a, b: _np_cdist(a, b, 3), rtol=1e-5),
]

# ---- addr, addbmm, and the in-place forms of the beta/alpha products --------------------------

OPS += [
    OpSpec("addr", lambda lib, c, a, b: lib.addr(c, a, b, beta=0.5, alpha=2),
           (S("2x3", A(2, 3), A(2), A(3)), S("bcast", A(3), A(2), Step(3)),
            S("t", T(2, 3), A(2), A(3))), FLOAT,
           ref=lambda np_, c, a, b: 0.5 * c + 2 * np.outer(a, b), inplace="addr_",
           inplace_kw=(("beta", 0.5), ("alpha", 2)), gradgrad=True, **_MM_TOL),
    OpSpec("addr_int", lambda lib, c, a, b: lib.addr(c, a, b, alpha=3),
           (S("2x3", A(2, 3), A(2), A(3)),), NUM,
           ref=lambda np_, c, a, b: (c + 3 * np.outer(a, b)).astype(c.dtype),
           inplace="addr_", inplace_kw=(("alpha", 3),)),
    OpSpec("Tensor.addr", lambda lib, c, a, b: c.addr(a, b), (S("2x3", A(2, 3), A(2), A(3)),),
           FLOAT, ref=lambda np_, c, a, b: c + np.outer(a, b), **_MM_TOL),
    OpSpec("addbmm", lambda lib, c, a, b: lib.addbmm(c, a, b, beta=0.5, alpha=2),
           (S("2x3", A(2, 2), A(3, 2, 4), A(3, 4, 2)), S("tr", A(2, 2), A(3, 2, 4), Tr((3, 4, 2), 1, 2)),
            S("empty_batch", A(2, 2), A(0, 2, 3), A(0, 3, 2))), FLOAT,
           ref=lambda np_, c, a, b: 0.5 * c + 2 * (a @ b).sum(0),
           inplace="addbmm_", inplace_kw=(("beta", 0.5), ("alpha", 2)), gradgrad=True, **_MM_TOL),
    # (torch's addbmm_ resizes a self of another shape instead of refusing it: not followed)
    OpSpec("Tensor.addbmm", lambda lib, c, a, b: c.addbmm(a, b),
           (S("bcast", A(2), A(3, 2, 4), A(3, 4, 2)),), FLOAT,
           ref=lambda np_, c, a, b: c + (a @ b).sum(0), **_MM_TOL),
    OpSpec("addmm_inplace", lambda lib, c, a, b: lib.addmm(c, a, b, beta=2, alpha=0.5),
           (S("2d", A(2, 4), A(2, 3), A(3, 4)), S("t_t", T(2, 4), T(2, 3), T(3, 4))), FLOAT,
           ref=lambda np_, c, a, b: 2 * c + 0.5 * (a @ b),
           inplace="addmm_", inplace_kw=(("beta", 2), ("alpha", 0.5)), **_MM_TOL),
    OpSpec("Tensor.addmm", lambda lib, c, a, b: c.addmm(a, b, beta=0.5, alpha=3),
           (S("2d", A(2, 4), A(2, 3), A(3, 4)), S("bcast", A(4), T(2, 3), A(3, 4))), FLOAT,
           ref=lambda np_, c, a, b: 0.5 * c + 3 * (a @ b), **_MM_TOL),
    OpSpec("baddbmm_inplace", lambda lib, c, a, b: lib.baddbmm(c, a, b, beta=0.5, alpha=2),
           (S("2x3x4", A(2, 3, 2), A(2, 3, 4), A(2, 4, 2)),
            S("tr", Tr((2, 3, 2), 1, 2), A(2, 3, 4), Tr((2, 4, 2), 1, 2))), FLOAT,
           ref=lambda np_, c, a, b: 0.5 * c + 2 * (a @ b),
           inplace="baddbmm_", inplace_kw=(("beta", 0.5), ("alpha", 2)), **_MM_TOL),
    OpSpec("addmv_inplace", lambda lib, c, m, v: lib.addmv(c, m, v, beta=3, alpha=-1),
           (S("3x4", A(3), A(3, 4), A(4)), S("t_step", Step(3), T(3, 4), A(4))), FLOAT,
           ref=lambda np_, c, m, v: 3 * c - m @ v,
           inplace="addmv_", inplace_kw=(("beta", 3), ("alpha", -1)), **_MM_TOL),
]

# ---- chains of products and Vandermonde matrices ---------------------------------------------


def _chain_matmul(lib, *mats):
    # both libraries warn once per process: the rows keep the warning out of the traces the
    # fuzzers compare, whose order of runs decides which call is first
    # (tests/ops/test_shape_ops.py pins the warning)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return lib.chain_matmul(*mats)


OPS += [
    OpSpec("chain_matmul_three", lambda lib, a, b, c: _chain_matmul(lib, a, b, c),
           (S("2x3_3x4_4x1", A(2, 3), A(3, 4), A(4, 1)), S("t", T(3, 2), A(2, 5), A(5, 2))),
           FLOAT, ref=lambda np_, a, b, c: a @ b @ c, gradgrad=True),
    OpSpec("chain_matmul_four", lambda lib, a, b, c, d: _chain_matmul(lib, a, b, c, d),
           (S("mixed", A(5, 1), A(1, 4), A(4, 3), A(3, 2)),), FLOAT,
           ref=lambda np_, a, b, c, d: a @ b @ c @ d),
    OpSpec("chain_matmul_one", lambda lib, a: _chain_matmul(lib, a), (S("2x3", A(2, 3)),), FLOAT,
           ref=lambda np_, a: a.copy()),
    OpSpec("linalg.vander", lambda lib, a: lib.linalg.vander(a), (S("3", A(3)), S("2x4", A(2, 4))),
           NUM, ref=lambda np_, a: _np_vander(a, a.shape[-1]), gradgrad=True),
    OpSpec("linalg.vander_N", lambda lib, a: lib.linalg.vander(a, N=4), (S("0d", A()),), FLOAT,
           ref=lambda np_, a: _np_vander(np.reshape(a, 1), 4)),
]


def _np_vander(a, n):
    out = np.stack([np.asarray(a) ** j for j in range(n)], -1)
    return out.astype(a.dtype if a.dtype.kind == "f" else np.int64)

