"""Scans and sorts: cumsum, cumprod, cummax, cummin, logcumsumexp, diff, sort, argsort,
topk, searchsorted, bucketize."""

import numpy as np

from .rows import ALL, DISTINCT, FLOAT, NUM, SIGNED, SMALL, A, Fixed, OpSpec, S, Step, T
from .samples import SCAN, SHAPE


def _acc_dtype(a):
    """cumsum/cumprod accumulate integers (and bools) in int64, as torch."""
    return a.dtype if a.dtype.kind == "f" else np.int64


def _sort(a, dim=-1, descending=False, k=None):
    order = np.argsort(-a if descending else a, axis=dim, kind="stable")
    if k is not None:
        order = np.take(order, np.arange(k), axis=dim)
    return np.take_along_axis(a, order, axis=dim), order


SORTABLE = (S("2x3", A(2, 3)), S("t", T(3, 4)), S("3d", A(2, 4, 3)), S("step", Step(2, 5)))

OPS = [
    OpSpec("cumsum", lambda lib, a: lib.cumsum(a, 1), SCAN, ALL,
           ref=lambda np_, a: np.cumsum(a, axis=1, dtype=_acc_dtype(a))),
    OpSpec("Tensor.cumsum_neg_dim", lambda lib, a: a.cumsum(dim=-1), SCAN[:3], NUM,
           ref=lambda np_, a: np.cumsum(a, axis=-1, dtype=_acc_dtype(a))),
    OpSpec("cumsum_dtype", lambda lib, a: lib.cumsum(a, 0, dtype=lib.float64), SCAN[:2], NUM,
           ref=lambda np_, a: np.cumsum(a.astype(np.float64), axis=0), gradcheck=False),
    OpSpec("cumsum_0d", lambda lib, a: lib.cumsum(a, 0), (S("0d", A()),), FLOAT,
           ref=lambda np_, a: a.copy()),
    OpSpec("cumprod", lambda lib, a: lib.cumprod(a, 1), SCAN, NUM, gradgrad=True,
           ref=lambda np_, a: np.cumprod(a, axis=1, dtype=_acc_dtype(a))),
    # zeros in the line: the gradient of the first zero skips it; after it, zero
    OpSpec("cumprod_zeros", lambda lib, a: lib.cumprod(a, -1),
           (S("zeros", Fixed([[1.5, 0.0, 2.0, 0.0, 3.0], [2.0, -1.0, 0.0, 0.5, 1.0]])),
            S("zero_first", Fixed([[0.0, 2.0, 3.0]]))), FLOAT, gradgrad=True,
           ref=lambda np_, a: np.cumprod(a, axis=-1)),
    OpSpec("sort", lambda lib, a: tuple(lib.sort(a)), SORTABLE, NUM, DISTINCT,
           ref=lambda np_, a: _sort(a)),
    OpSpec("Tensor.sort_desc_dim0", lambda lib, a: tuple(a.sort(0, descending=True)),
           SORTABLE, SIGNED, DISTINCT, ref=lambda np_, a: _sort(a, 0, True)),
    OpSpec("sort_stable_kw", lambda lib, a: tuple(lib.sort(a, dim=1, stable=True)),
           (S("ties", A(3, 5, domain=SMALL)),), FLOAT, differentiable=False,
           ref=lambda np_, a: _sort(a, 1)),
    OpSpec("argsort", lambda lib, a: lib.argsort(a, dim=1, descending=True), SORTABLE, SIGNED,
           DISTINCT, ref=lambda np_, a: _sort(a, 1, True)[1], differentiable=False),
    OpSpec("topk", lambda lib, a: tuple(lib.topk(a, 2)), SORTABLE, SIGNED, DISTINCT,
           ref=lambda np_, a: _sort(a, -1, True, 2)),
    OpSpec("Tensor.topk_smallest", lambda lib, a: tuple(a.topk(2, dim=0, largest=False)),
           SORTABLE, SIGNED, DISTINCT, ref=lambda np_, a: _sort(a, 0, False, 2)),
    OpSpec("diff", lambda lib, a: lib.diff(a), SHAPE, SIGNED, ref=lambda np_, a: np.diff(a)),
    OpSpec("gradient", lambda lib, a: lib.gradient(a),
           (S("3x4", A(3, 4)), S("t", T(3, 4)), S("3d", A(2, 3, 4))), FLOAT,
           ref=lambda np_, a: tuple(np.gradient(a))),
    OpSpec("gradient_edge2_spacing", lambda lib, a: lib.gradient(a, spacing=(2.0,), dim=1,
                                                                  edge_order=2),
           (S("3x4", A(3, 4)), S("step", Step(2, 3))), FLOAT,
           ref=lambda np_, a: (np.gradient(a, 2.0, axis=1, edge_order=2),)),
    OpSpec("Tensor.diff_n2_dim0_prepend",
           lambda lib, a, p: a.diff(2, 0, prepend=p), (S("3x4", A(3, 4), A(1, 4)),), FLOAT,
           ref=lambda np_, a, p: np.diff(a, 2, 0, prepend=p)),
    OpSpec("searchsorted",
           lambda lib, a: lib.searchsorted(lib.tensor([-1.0, 0.0, 0.5, 1.0]), a),
           (S("2x3", A(2, 3)), S("t", T(2, 3))), FLOAT,
           ref=lambda np_, a: np.searchsorted([-1.0, 0.0, 0.5, 1.0], a), differentiable=False),
    OpSpec("bucketize_right",
           lambda lib, a: lib.bucketize(a, lib.tensor([-1.0, 0.0, 0.5, 1.0]), right=True),
           (S("2x3", A(2, 3)),), FLOAT,
           ref=lambda np_, a: np.searchsorted([-1.0, 0.0, 0.5, 1.0], a, side="right"),
           differentiable=False),
]

# ---- cumsum_ / cumprod_: the scan written into self, in self's dtype --------------------------

OPS += [
    OpSpec("cumsum_inplace", lambda lib, a: lib.cumsum(a, 1, dtype=a.dtype), SCAN, NUM,
           ref=lambda np_, a: np.cumsum(a, axis=1, dtype=a.dtype),
           inplace="cumsum_", inplace_args=(1,)),
    OpSpec("cumprod_inplace", lambda lib, a: lib.cumprod(a, -1, dtype=a.dtype), SCAN, NUM,
           ref=lambda np_, a: np.cumprod(a, axis=-1, dtype=a.dtype),
           inplace="cumprod_", inplace_args=(-1,)),
]
OPS += [
    OpSpec("msort", lambda lib, a: lib.msort(a), SORTABLE, NUM, DISTINCT,
           ref=lambda np_, a: np.sort(a, axis=0)),
    OpSpec("Tensor.msort", lambda lib, a: a.msort(), SORTABLE[:2], FLOAT, DISTINCT,
           ref=lambda np_, a: np.sort(a, axis=0)),
]


# ---- cummax / cummin / logcumsumexp -------------------------------------------------------------

def _cum_extreme(a, axis, is_max):
    """The running extreme and the last position it was taken from (ties and NaN move it)."""
    moved = np.moveaxis(a, axis, -1)
    values, indices = np.empty_like(moved), np.zeros(moved.shape, np.int64)
    for pos in np.ndindex(*moved.shape[:-1]):
        line = moved[pos]
        best, at = None, 0
        for j, x in enumerate(line):
            x_nan = x != x
            if best is None or x_nan or (best == best and (x >= best if is_max else x <= best)):
                best, at = x, j
            values[pos + (j,)], indices[pos + (j,)] = best, at
    return np.moveaxis(values, -1, axis), np.moveaxis(indices, -1, axis)


_TIES = (S("ties", Fixed([[1.0, 3.0, 3.0, 2.0, 3.0], [2.0, 2.0, 0.0, 2.0, -1.0]])),)
OPS += [
    OpSpec("cummax", lambda lib, a: tuple(lib.cummax(a, 1)), SCAN, NUM, DISTINCT,
           ref=lambda np_, a: _cum_extreme(a, 1, True)),
    OpSpec("Tensor.cummin_neg_dim", lambda lib, a: tuple(a.cummin(-1)), SCAN, NUM, DISTINCT,
           ref=lambda np_, a: _cum_extreme(a, -1, False)),
    OpSpec("cummax_dim0", lambda lib, a: lib.cummax(a, dim=0).values, SCAN[:3], FLOAT, DISTINCT,
           ref=lambda np_, a: _cum_extreme(a, 0, True)[0]),
    # ties move the index to the later position: the gradient follows it
    OpSpec("cummax_ties", lambda lib, a: tuple(lib.cummax(a, 1)), _TIES, FLOAT, gradcheck=False,
           ref=lambda np_, a: _cum_extreme(a, 1, True)),
    OpSpec("cummin_ties", lambda lib, a: tuple(lib.cummin(a, 1)), _TIES, FLOAT, gradcheck=False,
           ref=lambda np_, a: _cum_extreme(a, 1, False)),
    OpSpec("cummax_0d", lambda lib, a: tuple(lib.cummax(a, 0)), (S("0d", A()),), FLOAT,
           ref=lambda np_, a: (a.copy(), np.zeros((), np.int64))),
    OpSpec("logcumsumexp", lambda lib, a: lib.logcumsumexp(a, 1), SCAN, FLOAT, gradgrad=True,
           ref=lambda np_, a: np.logaddexp.accumulate(a, axis=1)),
    OpSpec("Tensor.logcumsumexp_dim0", lambda lib, a: a.logcumsumexp(0), SCAN[:3], FLOAT,
           ref=lambda np_, a: np.logaddexp.accumulate(a, axis=0)),
    OpSpec("logcumsumexp_large", lambda lib, a: lib.logcumsumexp(a, -1),
           (S("large", Fixed([[800.0, -700.0, 805.0, 1.0], [-1e3, -1e3, -999.0, 2.0]])),), FLOAT,
           ref=lambda np_, a: np.logaddexp.accumulate(a, axis=-1)),
]
