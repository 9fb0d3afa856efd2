"""Statistics: nansum, nanmean, nanmedian, aminmax, dist, renorm, the quantiles, the
histograms (histc, histogram, bincount), cov and corrcoef.
"""

import numpy as np

from .reference import _f
from .rows import DISTINCT, FLOAT, NUM, POS, SMALL, A, Arg, Fixed, Idx, OpSpec, S, T
from .samples import BINARY_SMALL, RED_ALL, RED_DIM, STAT

NAN = float("nan")
WITH_NAN = (S("nan", Fixed([[1.5, NAN, -2.0, 0.25], [NAN, 3.0, -1.0, 0.75]])),)
ALL_NAN_LINE = (S("nan_line", Fixed([[NAN, NAN, NAN], [0.5, NAN, -1.5]])),)


def _sum_dtype(a):
    return a.dtype if a.dtype.kind == "f" else np.int64


def _nanmedian(a, axis=None, keepdims=False):
    """The lower median of the numbers and its position (a line of NaN: NaN at 0)."""
    if axis is None:
        flat = a.ravel()
        nums = np.sort(flat[~np.isnan(flat)]) if flat.dtype.kind == "f" else np.sort(flat)
        return nums[(len(nums) - 1) // 2] if len(nums) else np.array(np.nan, a.dtype)
    moved = np.moveaxis(a, axis, -1)
    values = np.empty(moved.shape[:-1], a.dtype)
    indices = np.empty(moved.shape[:-1], np.int64)
    for pos in np.ndindex(*moved.shape[:-1]):
        line = moved[pos]
        ok = ~np.isnan(line) if line.dtype.kind == "f" else np.ones(line.shape, bool)
        order = [i for i in np.argsort(line, kind="stable") if ok[i]]
        pick = order[(len(order) - 1) // 2] if order else 0
        values[pos], indices[pos] = line[pick], pick
    if keepdims:
        values, indices = np.expand_dims(values, axis), np.expand_dims(indices, axis)
    return values, indices


def _renorm(a, p, dim, maxnorm):
    others = tuple(d for d in range(a.ndim) if d != dim)
    norm = np.sum(np.abs(a) ** p, axis=others, keepdims=True) ** (1.0 / p)
    factor = np.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0)
    return (a * factor).astype(a.dtype)


def _dist(a, b, p):
    d = (a - b).ravel()
    if p == 0:
        return np.asarray(np.count_nonzero(d), a.dtype)
    return np.asarray(np.linalg.norm(d, ord=p), a.dtype)


def _nanquantile(a, q, axis=None, keepdims=False, method="linear", nan=False):
    f = np.nanquantile if nan else np.quantile
    return np.asarray(f(a, q, axis=axis, keepdims=keepdims, method=method)).astype(a.dtype)


def _histc(a, bins):
    lo, hi = (float(a.min()), float(a.max())) if a.size else (0.0, 0.0)
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    return np.histogram(a, bins, range=(lo, hi))[0].astype(a.dtype)


def _cov(a, correction=1, fweights=None, aweights=None):
    return np.asarray(np.cov(a, ddof=correction, fweights=fweights, aweights=aweights)).astype(
        a.dtype)


OPS = [
    OpSpec("nansum", lambda lib, a: lib.nansum(a), RED_ALL, NUM,
           ref=lambda np_, a: np.nansum(a, dtype=_sum_dtype(a)), rtol=1e-5),
    OpSpec("nansum_nan", lambda lib, a: a.nansum(), WITH_NAN, FLOAT,
           ref=lambda np_, a: np.nansum(a)),
    OpSpec("nansum_dim_keepdim", lambda lib, a: lib.nansum(a, 1, keepdim=True),
           RED_DIM + WITH_NAN, FLOAT, ref=lambda np_, a: np.nansum(a, 1, keepdims=True)),
    OpSpec("nansum_dtype", lambda lib, a: lib.nansum(a, (0, 1), dtype=lib.float64), RED_DIM, NUM,
           ref=lambda np_, a: np.nansum(a.astype(np.float64), (0, 1))),
    OpSpec("nanmean", lambda lib, a: lib.nanmean(a), RED_ALL + WITH_NAN, FLOAT,
           ref=lambda np_, a: np.nanmean(a), rtol=1e-5),
    OpSpec("nanmean_dim", lambda lib, a: a.nanmean(dim=1), RED_DIM + WITH_NAN, FLOAT,
           ref=lambda np_, a: np.nanmean(a, 1), rtol=1e-5),
    OpSpec("nanmedian", lambda lib, a: lib.nanmedian(a), RED_ALL + WITH_NAN, NUM, DISTINCT,
           ref=lambda np_, a: _nanmedian(a)),
    OpSpec("nanmedian_dim", lambda lib, a: tuple(a.nanmedian(1)), RED_DIM + WITH_NAN, NUM,
           DISTINCT, ref=lambda np_, a: _nanmedian(a, 1)),
    # (finite differences cannot step through a NaN median)
    OpSpec("nanmedian_dim_all_nan_line", lambda lib, a: tuple(a.nanmedian(1)), ALL_NAN_LINE,
           FLOAT, gradcheck=False, ref=lambda np_, a: _nanmedian(a, 1)),
    OpSpec("nanmedian_dim_keepdim", lambda lib, a: tuple(lib.nanmedian(a, 0, keepdim=True)),
           RED_DIM, FLOAT, DISTINCT, ref=lambda np_, a: _nanmedian(a, 0, True)),
    OpSpec("aminmax", lambda lib, a: tuple(lib.aminmax(a)), RED_ALL, NUM, DISTINCT,
           ref=lambda np_, a: (np.min(a), np.max(a))),
    OpSpec("aminmax_dim", lambda lib, a: tuple(a.aminmax(dim=1)), RED_DIM, NUM, DISTINCT,
           ref=lambda np_, a: (np.min(a, 1), np.max(a, 1))),
    OpSpec("aminmax_dim_keepdim", lambda lib, a: tuple(lib.aminmax(a, dim=-1, keepdim=True)),
           RED_DIM, FLOAT, DISTINCT,
           ref=lambda np_, a: (np.min(a, -1, keepdims=True), np.max(a, -1, keepdims=True))),
    # ties: each of min and max shares its gradient evenly (no finite differences there)
    OpSpec("aminmax_ties", lambda lib, a: tuple(lib.aminmax(a, dim=1)),
           (S("ties", A(3, 5, domain=SMALL)),), FLOAT, gradcheck=False,
           ref=lambda np_, a: (np.min(a, 1), np.max(a, 1))),
    OpSpec("aminmax_ties_max", lambda lib, a: lib.aminmax(a).max,
           (S("ties", Fixed([[1.0, 3.0, 3.0], [2.0, 0.0, 3.0]])),), FLOAT, gradcheck=False,
           ref=lambda np_, a: np.max(a)),
    OpSpec("dist", lambda lib, a, b: lib.dist(a, b), BINARY_SMALL, FLOAT,
           ref=lambda np_, a, b: _dist(a, b, 2), gradgrad=True),
    OpSpec("dist_p1", lambda lib, a, b: a.dist(b, 1), BINARY_SMALL, FLOAT,
           ref=lambda np_, a, b: _dist(a, b, 1)),
    OpSpec("dist_p3", lambda lib, a, b: lib.dist(a, b, p=3), BINARY_SMALL, FLOAT,
           ref=lambda np_, a, b: _dist(a, b, 3), gradgrad=True),
    OpSpec("dist_inf", lambda lib, a, b: lib.dist(a, b, float("inf")), BINARY_SMALL, FLOAT,
           ref=lambda np_, a, b: _dist(a, b, np.inf)),
    # p = 0 has no gradient (torch's backward raises for other: tests/ops/test_statistics.py)
    OpSpec("dist_p0", lambda lib, a, b: lib.dist(a, b, 0), BINARY_SMALL, FLOAT,
           ref=lambda np_, a, b: _dist(a, b, 0), differentiable=False),
    OpSpec("renorm", lambda lib, a: lib.renorm(a, 2, 0, 1.5), STAT, FLOAT,
           ref=lambda np_, a: _renorm(a, 2, 0, 1.5), gradgrad=True,
           inplace="renorm_", inplace_args=(2, 0, 1.5)),
    OpSpec("Tensor.renorm_p1_dim1", lambda lib, a: a.renorm(1, 1, 2.0), STAT, FLOAT,
           ref=lambda np_, a: _renorm(a, 1, 1, 2.0), inplace="renorm_",
           inplace_args=(1, 1, 2.0)),
    OpSpec("renorm_p3_last", lambda lib, a: lib.renorm(a, 3, -1, 1.0), STAT, FLOAT,
           ref=lambda np_, a: _renorm(a, 3, a.ndim - 1, 1.0)),
]

# ---- quantiles: every interpolation, q a number or a tensor ---------------------------------

_Q = Fixed([0.0, 0.3, 0.5, 0.95, 1.0], requires_grad=False)
for _method in ("linear", "lower", "higher", "midpoint", "nearest"):
    OPS += [
        OpSpec(f"quantile_{_method}",
               lambda lib, a, m=_method: lib.quantile(a, 0.3, interpolation=m),
               RED_ALL, FLOAT, DISTINCT,
               ref=lambda np_, a, m=_method: _nanquantile(a, 0.3, method=m)),
        OpSpec(f"quantile_{_method}_dim_q_tensor",
               lambda lib, a, q, m=_method: a.quantile(q, dim=1, keepdim=True, interpolation=m),
               (S("2x3", A(2, 3), _Q), S("t", T(3, 4), _Q), S("3d", A(2, 3, 4), _Q)), FLOAT,
               DISTINCT, ref=lambda np_, a, q, m=_method: _nanquantile(a, q, 1, True, m)),
        OpSpec(f"nanquantile_{_method}",
               lambda lib, a, m=_method: lib.nanquantile(a, 0.6, dim=-1, interpolation=m),
               RED_DIM + WITH_NAN, FLOAT, DISTINCT,
               ref=lambda np_, a, m=_method: _nanquantile(a, 0.6, -1, method=m, nan=True)),
    ]
OPS += [
    OpSpec("quantile_nan_line", lambda lib, a: lib.quantile(a, 0.5, dim=1), WITH_NAN, FLOAT,
           ref=lambda np_, a: _nanquantile(a, 0.5, 1), gradcheck=False),
    OpSpec("nanquantile_all_nan_line", lambda lib, a, q: lib.nanquantile(a, q, 1),
           (S("nan_line", ALL_NAN_LINE[0].args[0], Fixed([0.25, 0.75], requires_grad=False)),),
           FLOAT, ref=lambda np_, a, q: _nanquantile(a, q, 1, nan=True), gradcheck=False),
]

# ---- histograms and counts (no gradient) ------------------------------------------------------
# (torch's histogram and weighted bincount have no derivative: on inputs that require grad
# their results require grad through a NotImplemented node, whose backward raises)

def _plain(arg):
    return Arg(arg.base, arg.view, arg.dtype, arg.domain, arg.values, requires_grad=False)


_NO_GRAD_DIM = tuple(S(s.id, *map(_plain, s.args)) for s in RED_DIM)

OPS += [
    OpSpec("histc", lambda lib, a: lib.histc(a, bins=5), RED_ALL, FLOAT, differentiable=False,
           ref=lambda np_, a: _histc(a, 5)),
    OpSpec("Tensor.histc_range", lambda lib, a: a.histc(4, min=-1, max=1), RED_DIM, FLOAT,
           differentiable=False,
           ref=lambda np_, a: np.histogram(a, 4, range=(-1, 1))[0].astype(a.dtype)),
    OpSpec("histogram", lambda lib, a: tuple(lib.histogram(a, 5)), _NO_GRAD_DIM, FLOAT,
           differentiable=False,
           ref=lambda np_, a: tuple(x.astype(a.dtype) for x in np.histogram(a, 5))),
    OpSpec("histogram_of_grad", lambda lib, a: tuple(lib.histogram(a, 5)), RED_DIM, FLOAT,
           differentiable=False,
           ref=lambda np_, a: tuple(x.astype(a.dtype) for x in np.histogram(a, 5))),
    OpSpec("histogram_edges_weight_density",
           lambda lib, a, e, w: tuple(a.histogram(e, weight=w, density=True)),
           (S("3x4", A(3, 4, requires_grad=False),
              Fixed([-1.5, -0.2, 0.1, 1.0, 1.8], requires_grad=False),
              A(3, 4, domain=POS, requires_grad=False)),),
           FLOAT, differentiable=False,
           ref=lambda np_, a, e, w: (np.histogram(a, e, weights=w, density=True)[0].astype(a.dtype),
                                     e)),
    OpSpec("histogram_range", lambda lib, a: lib.histogram(a, 3, range=(-2.0, 0.0)).hist,
           _NO_GRAD_DIM, FLOAT, differentiable=False,
           ref=lambda np_, a: np.histogram(a, 3, range=(-2.0, 0.0))[0].astype(a.dtype)),
    OpSpec("bincount", lambda lib, i: lib.bincount(i),
           (S("ints", Idx([1, 4, 1, 0, 4, 4])), S("empty", Idx(np.zeros(0, np.int64)))), FLOAT,
           differentiable=False, ref=lambda np_, i: np.bincount(i)),
    OpSpec("bincount_weights_minlength", lambda lib, i, w: i.bincount(w, minlength=7),
           (S("ints", Idx([1, 4, 1, 0, 4, 4]), A(6, requires_grad=False)),
            S("ints_grad", Idx([1, 4, 1, 0, 4, 4]), A(6))), FLOAT,
           differentiable=False,
           ref=lambda np_, i, w: np.bincount(i, w, minlength=7).astype(w.dtype)),
]

# ---- covariance ------------------------------------------------------------------------------

_OBS = (S("3x5", A(3, 5)), S("t", T(3, 5)), S("1d", A(6)))
OPS += [
    OpSpec("cov", lambda lib, a: lib.cov(a), _OBS, FLOAT, ref=lambda np_, a: _cov(a),
           gradgrad=True),
    OpSpec("Tensor.cov_correction0", lambda lib, a: a.cov(correction=0), _OBS, FLOAT,
           ref=lambda np_, a: _cov(a, 0)),
    OpSpec("cov_fweights_aweights",
           lambda lib, a, f, w: lib.cov(a, correction=2, fweights=f, aweights=w),
           (S("3x5", A(3, 5), Idx([1, 3, 2, 1, 4]), A(5, domain=POS)),), FLOAT,
           ref=lambda np_, a, f, w: _cov(a, 2, f, w)),
    OpSpec("cov_int", lambda lib, a: lib.cov(a), (S("3x5", A(3, 5)),), ("int64",),
           ref=lambda np_, a: _cov(_f(a)).astype(np.float32), differentiable=False),
    OpSpec("corrcoef", lambda lib, a: lib.corrcoef(a), _OBS, FLOAT,
           ref=lambda np_, a: np.asarray(np.corrcoef(a)).astype(a.dtype)),
]
