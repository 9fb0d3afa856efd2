"""The decompositions of torch.linalg: svd (svdvals, the legacy torch.svd), qr (its
modes, torch.qr), eigh and eigvalsh, matrix_rank, cond, multi_dot, pinv (pinverse) and
matrix_exp.

Singular vectors and eigenvectors are unique only up to sign, so the rows of svd and
eigh return functions of them that do not depend on the signs (``U diag(S^2) Vh``,
``V diag(L^2) V^T``), compared with NumPy's decompositions. Their inputs get
well-separated singular values (eigenvalues) from the samples (``a / 8`` plus a
diagonal of 2k, ..., 4, 2), where the gradients are well-conditioned; Householder QR
is deterministic, so its rows compare Q and R themselves.
"""

import warnings

import numpy as np

from .rows import FLOAT, A, OpSpec, S, T


def _mt(lib, a):
    return np.swapaxes(a, -1, -2) if lib is np else a.transpose(-2, -1)


def _spread(lib, a):
    """``a / 8`` plus a diagonal of 2k, ..., 2: singular values about 2 apart."""
    m, n = a.shape[-2:]
    k = min(m, n)
    d = np.zeros((m, n))
    d[range(k), range(k)] = 2.0 * np.arange(k, 0, -1)
    return a / 8 + (d if lib is np else lib.tensor(d, dtype=a.dtype))


def _sym(lib, a):
    """A symmetric matrix with eigenvalues about 2 apart (one negative)."""
    s = _spread(lib, a)
    return (s + _mt(lib, s)) / 2 - 3


def _np_usv(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return (u * (s * s)[..., None, :]) @ vh


def _usv(u, s, vh):
    return (u * (s * s).unsqueeze(-2)) @ vh


def _np_vlv(a):
    w, v = np.linalg.eigh(a)
    return (v * (w * w)[..., None, :]) @ np.swapaxes(v, -1, -2)


def _np_expm(a):
    """exp(a) from the eigendecomposition of a (diagonalizable random samples), in complex."""
    w, v = np.linalg.eig(a)
    return np.real((v * np.exp(w)[..., None, :]) @ np.linalg.inv(v))


def _legacy_qr(lib, a, method=False):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return tuple(_spread(lib, a).qr() if method else lib.qr(_spread(lib, a)))


SHAPES = (S("3x3", A(3, 3)), S("t", T(3, 3)), S("tall", A(4, 2)), S("wide", A(2, 4)),
          S("batch", A(2, 3, 3)))
SQUARE = (S("3x3", A(3, 3)), S("t", T(3, 3)), S("batch", A(2, 3, 3)), S("1x1", A(1, 1)))
_TOL = dict(rtol=1e-4, atol=1e-4, rtol64=1e-7, atol64=1e-7)

OPS = [
    OpSpec("linalg.svd", lambda lib, a: _usv(*lib.linalg.svd(_spread(lib, a),
                                                             full_matrices=False)),
           SHAPES, FLOAT, ref=lambda np_, a: _np_usv(_spread(np, a)), gradgrad=True, **_TOL),
    OpSpec("linalg.svd_full", lambda lib, a: _usv(*lib.linalg.svd(_spread(lib, a))),
           SQUARE[:3], FLOAT, ref=lambda np_, a: _np_usv(_spread(np, a)), **_TOL),
    OpSpec("linalg.svd_s", lambda lib, a: lib.linalg.svd(_spread(lib, a))[1], SHAPES, FLOAT,
           ref=lambda np_, a: np.linalg.svd(_spread(np, a), compute_uv=False), **_TOL),
    OpSpec("linalg.svdvals", lambda lib, a: lib.linalg.svdvals(_spread(lib, a)), SHAPES, FLOAT,
           ref=lambda np_, a: np.linalg.svd(_spread(np, a), compute_uv=False), **_TOL),
    OpSpec("linalg.svdvals_raw", lambda lib, a: lib.linalg.svdvals(a), SHAPES[:3], FLOAT,
           ref=lambda np_, a: np.linalg.svd(a, compute_uv=False), **_TOL),
    OpSpec("svd", lambda lib, a: (lambda u, s, v: _usv(u, s, _mt(lib, v)))(
               *lib.svd(_spread(lib, a))), SHAPES, FLOAT,
           ref=lambda np_, a: _np_usv(_spread(np, a)), **_TOL),
    OpSpec("Tensor.svd", lambda lib, a: _spread(lib, a).svd()[1], SHAPES[:1], FLOAT,
           ref=lambda np_, a: np.linalg.svd(_spread(np, a), compute_uv=False), **_TOL),
    OpSpec("linalg.qr", lambda lib, a: tuple(lib.linalg.qr(_spread(lib, a))), SHAPES, FLOAT,
           ref=lambda np_, a: tuple(np.linalg.qr(_spread(np, a))), gradgrad=True, **_TOL),
    OpSpec("linalg.qr_complete",
           lambda lib, a: tuple(lib.linalg.qr(_spread(lib, a), mode="complete")),
           (S("3x3", A(3, 3)), S("wide", A(2, 4))), FLOAT,
           ref=lambda np_, a: tuple(np.linalg.qr(_spread(np, a), mode="complete")), **_TOL),
    OpSpec("linalg.qr_r", lambda lib, a: lib.linalg.qr(_spread(lib, a), mode="r")[1],
           SHAPES, FLOAT, differentiable=False,
           ref=lambda np_, a: np.linalg.qr(_spread(np, a), mode="r"), **_TOL),
    OpSpec("qr", _legacy_qr, SHAPES[:3], FLOAT,
           ref=lambda np_, a: tuple(np.linalg.qr(_spread(np, a))), **_TOL),
    OpSpec("Tensor.qr", lambda lib, a: _legacy_qr(lib, a, True), SHAPES[:1], FLOAT,
           ref=lambda np_, a: tuple(np.linalg.qr(_spread(np, a))), **_TOL),
    OpSpec("linalg.eigh", lambda lib, a: (lambda w, v: ((v * (w * w).unsqueeze(-2)) @ _mt(lib, v),
                                                        w))(*lib.linalg.eigh(_sym(lib, a))),
           SQUARE, FLOAT, ref=lambda np_, a: (_np_vlv(_sym(np, a)), np.linalg.eigvalsh(_sym(np, a))),
           gradgrad=True, **_TOL),
    OpSpec("linalg.eigh_upper",
           lambda lib, a: lib.linalg.eigh(_sym(lib, a), UPLO="U")[0], SQUARE[:3], FLOAT,
           ref=lambda np_, a: np.linalg.eigvalsh(_sym(np, a), UPLO="U"), **_TOL),
    OpSpec("linalg.eigvalsh", lambda lib, a: lib.linalg.eigvalsh(_sym(lib, a)), SQUARE, FLOAT,
           ref=lambda np_, a: np.linalg.eigvalsh(_sym(np, a)), **_TOL),
    OpSpec("linalg.matrix_rank", lambda lib, a: lib.linalg.matrix_rank(a), SHAPES, FLOAT,
           differentiable=False, ref=lambda np_, a: np.linalg.matrix_rank(a)),
    OpSpec("linalg.cond", lambda lib, a: lib.linalg.cond(_spread(lib, a)), SHAPES, FLOAT,
           ref=lambda np_, a: np.linalg.cond(_spread(np, a)), **_TOL),
    OpSpec("linalg.multi_dot",
           lambda lib, a, b, c: lib.linalg.multi_dot([a, b, c]),
           (S("mats", A(2, 3), A(3, 4), A(4, 2)), S("vectors", A(3), A(3, 4), A(4))), FLOAT,
           ref=lambda np_, a, b, c: np.linalg.multi_dot([a, b, c]), **_TOL),
    OpSpec("linalg.multi_dot_chain",
           lambda lib, a, b, c, d: lib.linalg.multi_dot([a, b, c, d]),
           (S("mats", A(5, 2), A(2, 4), A(4, 3), A(3, 1)),), FLOAT,
           ref=lambda np_, a, b, c, d: np.linalg.multi_dot([a, b, c, d]), **_TOL),
    OpSpec("linalg.pinv", lambda lib, a: lib.linalg.pinv(_spread(lib, a)), SHAPES, FLOAT,
           ref=lambda np_, a: np.linalg.pinv(_spread(np, a)), gradgrad=True, **_TOL),
    OpSpec("linalg.pinv_hermitian", lambda lib, a: lib.linalg.pinv(_sym(lib, a), hermitian=True),
           SQUARE[:3], FLOAT, ref=lambda np_, a: np.linalg.pinv(_sym(np, a)), **_TOL),
    OpSpec("pinverse", lambda lib, a: lib.pinverse(_spread(lib, a)), SHAPES[:3], FLOAT,
           ref=lambda np_, a: np.linalg.pinv(_spread(np, a)), **_TOL),
    OpSpec("linalg.matrix_exp", lambda lib, a: lib.linalg.matrix_exp(a), SQUARE, FLOAT,
           ref=lambda np_, a: _np_expm(a), gradgrad=True, **_TOL),
    OpSpec("linalg.matrix_exp_large", lambda lib, a: lib.linalg.matrix_exp(a * 3), SQUARE[:1],
           FLOAT, ref=lambda np_, a: _np_expm(a * 3), **_TOL),
    OpSpec("matrix_exp", lambda lib, a: lib.matrix_exp(a), SQUARE[:1], FLOAT,
           ref=lambda np_, a: _np_expm(a), **_TOL),
    OpSpec("Tensor.matrix_exp", lambda lib, a: a.matrix_exp(), SQUARE[:1], FLOAT,
           ref=lambda np_, a: _np_expm(a), **_TOL),
]
