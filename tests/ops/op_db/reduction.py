"""Reductions: sum, mean, max/min (with indices), argmax/argmin, amax/amin, any/all, prod,
the statistics (var, std, var_mean, std_mean, logsumexp), the order statistics
(kthvalue, median), norms and count_nonzero.
"""

import numpy as np

from .reference import _f
from .rows import (ALL, AWAY0, DISTINCT, FLOAT, INT, INTB, NUM, SIGNED, SMALL, A, Fixed, OpSpec, S,
                   Step, T)
from .samples import MATRIX, RED_ALL, RED_ALL_EMPTY, RED_DIM, RED_DIM_EMPTY, STAT


def _max_dim(np_, a, dim, keepdim=False, largest=True):
    f = np.max if largest else np.min
    g = np.argmax if largest else np.argmin
    values = f(a, axis=dim, keepdims=keepdim)
    indices = g(a, axis=dim, keepdims=keepdim)
    return values, indices


def _logsumexp(a, dim, keepdim=False):
    a = _f(a)
    return np.log(np.sum(np.exp(a), axis=dim, keepdims=keepdim))


def _kth(a, k, dim=-1, keepdim=False):
    order = np.argsort(a, axis=dim, kind="stable")
    idx = np.take(order, [k - 1], axis=dim)
    values = np.take_along_axis(a, idx, axis=dim)
    if not keepdim:
        values, idx = np.squeeze(values, dim), np.squeeze(idx, dim)
    return values, idx


ODD_ROWS = (S("3x5", A(3, 5)), S("t", T(3, 5)), S("step", Step(2, 5)))

OPS = []

# ---- reductions ------------------------------------------------------------------------------

_mean_ref = lambda np_, a, *args, **kw: np.mean(_f(a), *args, **kw)  # noqa: E731
OPS += [
    OpSpec("sum", lambda lib, a: a.sum(), RED_ALL_EMPTY, ALL, ref=lambda np_, a: np.sum(a),
           rtol=1e-5),
    OpSpec("sum_fn", lambda lib, a: lib.sum(a), RED_ALL, NUM, ref=lambda np_, a: np.sum(a),
           rtol=1e-5),
    OpSpec("sum_dim", lambda lib, a: a.sum(1), RED_DIM_EMPTY, ALL,
           ref=lambda np_, a: np.sum(a, 1), rtol=1e-5),
    OpSpec("sum_dim_neg_keepdim", lambda lib, a: lib.sum(a, dim=-1, keepdim=True), RED_DIM_EMPTY,
           NUM, ref=lambda np_, a: np.sum(a, -1, keepdims=True), rtol=1e-5),
    OpSpec("sum_dims_tuple", lambda lib, a: a.sum((0, 1)), RED_DIM, NUM,
           ref=lambda np_, a: np.sum(a, (0, 1)), rtol=1e-5),
    OpSpec("sum_dim_empty_tuple", lambda lib, a: a.sum(dim=()), RED_DIM, FLOAT,
           ref=lambda np_, a: np.sum(a), rtol=1e-5),
    OpSpec("sum_dtype", lambda lib, a: a.sum(dtype=lib.float64), RED_ALL, ALL,
           ref=lambda np_, a: np.sum(a.astype(np.float64)), gradcheck=True),
    OpSpec("sum_dim_dtype", lambda lib, a: a.sum(0, dtype=lib.int32), RED_DIM, INTB,
           ref=lambda np_, a: np.sum(a.astype(np.int32), 0), differentiable=False),
    OpSpec("mean", lambda lib, a: a.mean(), RED_ALL_EMPTY, FLOAT, ref=_mean_ref, rtol=1e-5),
    OpSpec("mean_fn_dim", lambda lib, a: lib.mean(a, 0), RED_DIM_EMPTY, FLOAT,
           ref=lambda np_, a: _mean_ref(np_, a, 0), rtol=1e-5),
    OpSpec("mean_dims_keepdim", lambda lib, a: a.mean((0, 1), keepdim=True), RED_DIM, FLOAT,
           ref=lambda np_, a: _mean_ref(np_, a, (0, 1), keepdims=True), rtol=1e-5),
    OpSpec("mean_dtype", lambda lib, a: a.mean(dtype=lib.float64), RED_ALL, NUM,
           ref=lambda np_, a: np.mean(a.astype(np.float64))),
    OpSpec("max", lambda lib, a: a.max(), RED_ALL, ALL, DISTINCT, ref=lambda np_, a: np.max(a)),
    OpSpec("min_fn", lambda lib, a: lib.min(a), RED_ALL, ALL, DISTINCT,
           ref=lambda np_, a: np.min(a)),
    OpSpec("max_dim", lambda lib, a: a.max(1), RED_DIM, NUM, DISTINCT,
           ref=lambda np_, a: _max_dim(np_, a, 1)),
    OpSpec("max_dim_keepdim_fn", lambda lib, a: lib.max(a, 0, keepdim=True), RED_DIM, NUM,
           DISTINCT, ref=lambda np_, a: _max_dim(np_, a, 0, True)),
    OpSpec("max_dim_kw", lambda lib, a: a.max(dim=-1), RED_DIM, FLOAT, DISTINCT,
           ref=lambda np_, a: _max_dim(np_, a, -1)),
    OpSpec("min_dim", lambda lib, a: a.min(0), RED_DIM, NUM, DISTINCT,
           ref=lambda np_, a: _max_dim(np_, a, 0, largest=False)),
    OpSpec("max_dim_values_attr", lambda lib, a: a.max(1).values, RED_DIM, FLOAT, DISTINCT,
           ref=lambda np_, a: np.max(a, 1)),
    OpSpec("min_dim_indices_attr", lambda lib, a: a.min(1).indices, RED_DIM, FLOAT, DISTINCT,
           ref=lambda np_, a: np.argmin(a, 1), differentiable=False),
    OpSpec("argmax", lambda lib, a: a.argmax(), RED_ALL, NUM, DISTINCT,
           ref=lambda np_, a: np.argmax(a), differentiable=False),
    OpSpec("argmax_dim", lambda lib, a: lib.argmax(a, 1), RED_DIM, NUM, DISTINCT,
           ref=lambda np_, a: np.argmax(a, 1), differentiable=False),
    OpSpec("argmax_dim_keepdim", lambda lib, a: a.argmax(dim=0, keepdim=True), RED_DIM, NUM,
           DISTINCT, ref=lambda np_, a: np.argmax(a, 0, keepdims=True), differentiable=False),
    OpSpec("argmin", lambda lib, a: lib.argmin(a), RED_ALL, NUM, DISTINCT,
           ref=lambda np_, a: np.argmin(a), differentiable=False),
    OpSpec("argmin_dim_keepdim", lambda lib, a: a.argmin(-1, keepdim=True), RED_DIM, NUM,
           DISTINCT, ref=lambda np_, a: np.argmin(a, -1, keepdims=True), differentiable=False),
    OpSpec("amax", lambda lib, a: a.amax(), RED_ALL, ALL, DISTINCT,
           ref=lambda np_, a: np.max(a)),
    OpSpec("amax_dim", lambda lib, a: lib.amax(a, 1), RED_DIM, ALL, DISTINCT,
           ref=lambda np_, a: np.max(a, 1)),
    OpSpec("amax_dims_keepdim", lambda lib, a: a.amax((0, -1), keepdim=True), RED_DIM, NUM,
           DISTINCT, ref=lambda np_, a: np.max(a, (0, -1), keepdims=True)),
    # ties: the gradient is split evenly among the maxima (no finite differences there)
    OpSpec("amax_ties", lambda lib, a: a.amax(1),
           (S("ties", Fixed([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]])),), FLOAT,
           ref=lambda np_, a: np.max(a, 1), gradcheck=False),
    OpSpec("max_ties_all", lambda lib, a: a.max(),
           (S("ties", Fixed([[1.0, 3.0, 3.0], [2.0, 0.0, 3.0]])),), FLOAT,
           ref=lambda np_, a: np.max(a), gradcheck=False),
    OpSpec("any", lambda lib, a: a.any(), RED_ALL_EMPTY, ALL, SMALL,
           ref=lambda np_, a: np.any(a), differentiable=False),
    OpSpec("any_dim", lambda lib, a: lib.any(a, 1), RED_DIM_EMPTY, ALL, SMALL,
           ref=lambda np_, a: np.any(a, 1), differentiable=False),
    OpSpec("all", lambda lib, a: lib.all(a), RED_ALL_EMPTY, ALL, SMALL,
           ref=lambda np_, a: np.all(a), differentiable=False),
    OpSpec("all_dim_keepdim", lambda lib, a: a.all(0, keepdim=True), RED_DIM_EMPTY, ALL, SMALL,
           ref=lambda np_, a: np.all(a, 0, keepdims=True), differentiable=False),
    OpSpec("prod", lambda lib, a: a.prod(), RED_ALL_EMPTY, ALL, ref=lambda np_, a: np.prod(a),
           rtol=1e-5),
    OpSpec("prod_zeros", lambda lib, a: lib.prod(a),
           (S("one_zero", Fixed([[1.5, 0.0, -2.0], [0.5, 3.0, 1.25]])),
            S("two_zeros", Fixed([[1.5, 0.0, -2.0], [0.5, 0.0, 1.25]]))), FLOAT,
           ref=lambda np_, a: np.prod(a)),
    OpSpec("prod_dim", lambda lib, a: a.prod(1), RED_DIM, NUM, ref=lambda np_, a: np.prod(a, 1),
           rtol=1e-5),
]

# ---- amin ----------------------------------------------------------------------------------

OPS += [
    OpSpec("amin", lambda lib, a: lib.amin(a), RED_DIM, ALL, DISTINCT,
           ref=lambda np_, a: np.min(a)),
    OpSpec("Tensor.amin_dims_keepdim", lambda lib, a: a.amin((0, -1), keepdim=True), RED_DIM,
           NUM, DISTINCT, ref=lambda np_, a: np.min(a, (0, -1), keepdims=True)),
    OpSpec("amin_ties", lambda lib, a: lib.amin(a, 1),
           (S("ties", Fixed([[1.0, -3.0, -3.0], [2.0, 2.0, 2.0]])),), FLOAT,
           ref=lambda np_, a: np.min(a, 1), gradcheck=False),  # a kink at ties: torch's split
]

# ---- statistics ----------------------------------------------------------------------------

OPS += [
    OpSpec("var", lambda lib, a: lib.var(a), STAT, FLOAT, ref=lambda np_, a: np.var(a, ddof=1)),
    OpSpec("var_dim_keepdim", lambda lib, a: lib.var(a, 1, keepdim=True), STAT, FLOAT,
           ref=lambda np_, a: np.var(a, axis=1, ddof=1, keepdims=True)),
    OpSpec("Tensor.var_unbiased_false", lambda lib, a: a.var((0, -1), False), STAT, FLOAT,
           ref=lambda np_, a: np.var(a, axis=(0, -1))),
    OpSpec("var_correction", lambda lib, a: lib.var(a, -1, correction=2), STAT, FLOAT,
           ref=lambda np_, a: np.var(a, axis=-1, ddof=2), gradgrad=True),
    OpSpec("std", lambda lib, a: lib.std(a, dim=1), STAT, FLOAT,
           ref=lambda np_, a: np.std(a, axis=1, ddof=1), gradgrad=True),
    OpSpec("Tensor.std_all", lambda lib, a: a.std(), STAT, FLOAT,
           ref=lambda np_, a: np.std(a, ddof=1)),
    OpSpec("var_mean", lambda lib, a: lib.var_mean(a, 1), STAT, FLOAT,
           ref=lambda np_, a: (np.var(a, axis=1, ddof=1), np.mean(a, axis=1))),
    OpSpec("std_mean_correction0", lambda lib, a: lib.std_mean(a, (0, 1), correction=0), STAT,
           FLOAT, ref=lambda np_, a: (np.std(a, axis=(0, 1)), np.mean(a, axis=(0, 1)))),
    OpSpec("logsumexp", lambda lib, a: lib.logsumexp(a, 1), STAT, FLOAT + INT, gradgrad=True,
           ref=lambda np_, a: _logsumexp(a, 1).astype(a.dtype if a.dtype.kind == "f"
                                                      else np.float32)),
    OpSpec("Tensor.logsumexp_dims_keepdim", lambda lib, a: a.logsumexp((0, 1), keepdim=True),
           STAT, FLOAT, ref=lambda np_, a: _logsumexp(a, (0, 1), True)),
]

# ---- order statistics, norms, count_nonzero ------------------------------------------------

OPS += [
    OpSpec("kthvalue", lambda lib, a: tuple(lib.kthvalue(a, 2)), ODD_ROWS, SIGNED, DISTINCT,
           ref=lambda np_, a: _kth(a, 2)),
    OpSpec("Tensor.kthvalue_dim0_keepdim", lambda lib, a: tuple(a.kthvalue(1, 0, True)),
           ODD_ROWS[:2], FLOAT, DISTINCT, ref=lambda np_, a: _kth(a, 1, 0, True)),
    OpSpec("median_all", lambda lib, a: lib.median(a), ODD_ROWS, SIGNED, DISTINCT,
           ref=lambda np_, a: np.sort(a, axis=None)[(a.size - 1) // 2]),
    OpSpec("median_dim", lambda lib, a: tuple(lib.median(a, 1)), ODD_ROWS, FLOAT, DISTINCT,
           ref=lambda np_, a: _kth(a, (a.shape[1] + 1) // 2, 1)),
    OpSpec("norm_fro", lambda lib, a: lib.norm(a), MATRIX, FLOAT,
           ref=lambda np_, a: np.sqrt(np.sum(a * a)), rtol=1e-5),
    OpSpec("norm_p1_dim", lambda lib, a: lib.norm(a, 1, dim=1), MATRIX, FLOAT, AWAY0,
           ref=lambda np_, a: np.sum(np.abs(a), axis=1), rtol=1e-5),
    OpSpec("frobenius_norm", lambda lib, a: lib.frobenius_norm(a, (0, 1)), MATRIX, FLOAT,
           ref=lambda np_, a: np.sqrt(np.sum(a * a, (0, 1))), rtol=1e-5),
    OpSpec("frobenius_norm_keepdim", lambda lib, a: lib.frobenius_norm(a, [1], True),
           MATRIX, FLOAT, ref=lambda np_, a: np.sqrt(np.sum(a * a, 1, keepdims=True)), rtol=1e-5),
    # singular values distinct and away from 0 for random inputs: a smooth sum of them
    OpSpec("nuclear_norm", lambda lib, a: lib.nuclear_norm(a), (S("3x2", A(3, 2)), S("t", T(2, 3))),
           FLOAT, ref=lambda np_, a: np.linalg.norm(a, "nuc"), rtol=1e-5),
    OpSpec("nuclear_norm_dim_keepdim", lambda lib, a: lib.nuclear_norm(a, (1, 2), True),
           (S("2x3x2", A(2, 3, 2)),), FLOAT,
           ref=lambda np_, a: np.linalg.norm(a, "nuc", axis=(1, 2))[:, None, None], rtol=1e-5),
    OpSpec("norm_except_dim", lambda lib, a: lib.norm_except_dim(a, 2, 0), (S("3x2x2", A(3, 2, 2)),),
           FLOAT, ref=lambda np_, a: np.sqrt(np.sum(a * a, (1, 2), keepdims=True)), rtol=1e-5),
    OpSpec("norm_except_dim_last", lambda lib, a: lib.norm_except_dim(a, 2, 1), MATRIX, FLOAT,
           ref=lambda np_, a: np.sqrt(np.sum(a * a, (0,) + tuple(range(2, a.ndim)), keepdims=True)),
           rtol=1e-5),
    OpSpec("count_nonzero_dim", lambda lib, a: lib.count_nonzero(a, dim=0),
           (S("2x3", A(2, 3, domain=SMALL)), S("t", T(2, 3, domain=SMALL))), ALL,
           ref=lambda np_, a: np.count_nonzero(a, axis=0), differentiable=False),
]

# ---- the trapezoid rule ----------------------------------------------------------------------


def _np_cumtrapz(y, x=None, dx=1.0, axis=-1):
    y = np.moveaxis(np.asarray(y, np.float64), axis, -1)
    gaps = dx if x is None else np.diff(np.broadcast_to(np.moveaxis(x, axis, -1) if np.ndim(x) > 1
                                                        else x, y.shape), axis=-1)
    out = np.cumsum((y[..., 1:] + y[..., :-1]) * gaps / 2, -1)
    return np.moveaxis(out, -1, axis)


OPS += [
    OpSpec("trapezoid", lambda lib, y: lib.trapezoid(y), (S("2x5", A(2, 5)), S("t", T(3, 4))),
           NUM, ref=lambda np_, y: _f(np.asarray(np.trapezoid(y)))),
    OpSpec("trapezoid_x_dim", lambda lib, y, x: lib.trapezoid(y, x, dim=0),
           (S("4x3_4", A(4, 3), A(4)), S("4x3_4x3", A(4, 3), A(4, 3))), FLOAT,
           ref=lambda np_, y, x: np.trapezoid(y, x if x.ndim > 1 else x[:, None], axis=0),
           gradgrad=True),
    OpSpec("trapz_dx", lambda lib, y: lib.trapz(y, dx=0.5), (S("2x5", A(2, 5)),), FLOAT,
           ref=lambda np_, y: np.trapezoid(y, dx=0.5)),
    OpSpec("cumulative_trapezoid", lambda lib, y: lib.cumulative_trapezoid(y),
           (S("2x5", A(2, 5)), S("t", T(3, 4))), NUM,
           ref=lambda np_, y: _np_cumtrapz(y)),
    OpSpec("cumulative_trapezoid_x", lambda lib, y, x: lib.cumulative_trapezoid(y, x),
           (S("2x5_5", A(2, 5), A(5)),), FLOAT,
           ref=lambda np_, y, x: _np_cumtrapz(y, x).astype(y.dtype)),
    OpSpec("cumulative_trapezoid_dx_dim", lambda lib, y: lib.cumulative_trapezoid(y, dx=2, dim=0),
           (S("4x2", A(4, 2)),), FLOAT,
           ref=lambda np_, y: _np_cumtrapz(y, dx=2.0, axis=0).astype(y.dtype)),
]

