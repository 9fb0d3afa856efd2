"""Indexing: ``tensor[...]`` with ints, slices, None, Ellipsis, lists, index tensors and
masks; gather, scatter_add, index_select, masked_fill, masked_select, nonzero and
take_along_dim.
"""

import numpy as np

from .rows import ALL, DISTINCT, FLOAT, NUM, SIGNED, SMALL, A, Fixed, Idx, Mask, OpSpec, S, T, Tr


def _gather(a, dim, idx):
    sl = tuple(slice(0, n) if d != dim else slice(None) for d, n in enumerate(idx.shape))
    return np.take_along_axis(a[sl], idx, axis=dim)


def _scatter_add(a, dim, idx, src):
    out = a.copy()
    for pos in np.ndindex(*idx.shape):
        dst = list(pos)
        dst[dim] = idx[pos]
        out[tuple(dst)] += src[pos]
    return out


OPS = []

# ---- indexing --------------------------------------------------------------------------------

X34 = (S("3x4", A(3, 4)), S("t", T(3, 4)))
X234 = (S("2x3x4", A(2, 3, 4)), S("tr", Tr((2, 3, 4), 0, 2)))


def _ix(name, fn, samples=X34, dtypes=ALL, **kw):
    return OpSpec("getitem_" + name, fn, samples, dtypes, **kw)


OPS += [
    _ix("int", lambda lib, a: a[0]),
    _ix("neg_int", lambda lib, a: a[-1]),
    _ix("int_int", lambda lib, a: a[1, 2]),
    _ix("chained_int", lambda lib, a: a[0][-1], dtypes=FLOAT),
    _ix("colon_int", lambda lib, a: a[:, 1]),
    _ix("slice", lambda lib, a: a[1:3]),
    _ix("slice_neg", lambda lib, a: a[-2:, :-1]),
    _ix("slice_step", lambda lib, a: a[::2, 1::2]),
    _ix("slice_clamped", lambda lib, a: a[1:100, -100:2]),
    _ix("slice_empty", lambda lib, a: a[2:1]),
    _ix("ellipsis", lambda lib, a: a[..., 1], X34 + X234),
    _ix("ellipsis_only", lambda lib, a: a[...]),
    _ix("none", lambda lib, a: a[None]),
    _ix("none_mid", lambda lib, a: a[:, None, 1:]),
    _ix("none_ellipsis", lambda lib, a: a[..., None], dtypes=FLOAT),
    _ix("combo", lambda lib, a: a[1, None, ..., ::2], X234),
    _ix("0d_ellipsis", lambda lib, a: a[...], (S("0d", A()),)),
    _ix("0d_none", lambda lib, a: a[None], (S("0d", A()),)),
    _ix("list", lambda lib, a: a[[0, 2]]),
    _ix("list_dup", lambda lib, a: a[[1, 1, 0]], dtypes=FLOAT),
    _ix("list_neg", lambda lib, a: a[[-1, 0]], dtypes=FLOAT),
    _ix("two_lists", lambda lib, a: a[[0, 2], [1, 3]]),
    _ix("tensor", lambda lib, a, i: a[i], (S("3x4", A(3, 4), Idx([2, 0, 2])),
                                           S("t", T(3, 4), Idx([-1, 1])))),
    _ix("tensor_2d", lambda lib, a, i: a[i], (S("3x4", A(3, 4), Idx([[0, 1], [2, 0]])),)),
    _ix("tensor_0d", lambda lib, a, i: a[i], (S("3x4", A(3, 4), Idx(1)),)),
    _ix("tensor_int32", lambda lib, a, i: a[i], (S("3x4", A(3, 4), Idx([2, 0], dtype="int32")),),
        dtypes=FLOAT),
    _ix("slice_tensor", lambda lib, a, i: a[1:, i], (S("3x4", A(3, 4), Idx([3, 0, 3])),)),
    _ix("tensor_tensor", lambda lib, a, i, j: a[i, j],
        (S("3x4", A(3, 4), Idx([0, 2, 2]), Idx([1, 1, 3])),
         S("bcast", A(3, 4), Idx([[0], [2]]), Idx([1, 3, 0])))),
    _ix("nonadjacent", lambda lib, a, i, j: a[i, :, j],
        (S("2x3x4", A(2, 3, 4), Idx([1, 0]), Idx([3, 2])),)),
    _ix("adjacent_after_slice", lambda lib, a, i, j: a[:, i, j],
        (S("2x3x4", A(2, 3, 4), Idx([1, 0]), Idx([3, 2])),)),
    _ix("ellipsis_tensor", lambda lib, a, i: a[..., i], (S("2x3x4", A(2, 3, 4), Idx([0, 3])),)),
    _ix("none_tensor", lambda lib, a, i: a[None, i], (S("3x4", A(3, 4), Idx([1, 2])),)),
    _ix("int_tensor", lambda lib, a, i: a[1, i], (S("2x3x4", A(2, 3, 4), Idx([0, 2])),)),
    _ix("mask_full", lambda lib, a, m: a[m],
        (S("3x4", A(3, 4), Mask([[1, 0, 0, 1], [0, 0, 0, 0], [1, 1, 1, 0]])),
         S("t", T(3, 4), Mask([[0, 1, 0, 1], [1, 0, 0, 0], [0, 0, 1, 0]])))),
    _ix("mask_rows", lambda lib, a, m: a[m], (S("3x4", A(3, 4), Mask([True, False, True])),)),
    _ix("mask_cols", lambda lib, a, m: a[:, m],
        (S("3x4", A(3, 4), Mask([False, True, True, False])),)),
    _ix("mask_none_selected", lambda lib, a, m: a[m], (S("3x4", A(3, 4), Mask([0, 0, 0])),),
        dtypes=FLOAT),
    _ix("mask_from_compare", lambda lib, a: a[a > 0], X34, dtypes=FLOAT),
    _ix("mask_and_tensor", lambda lib, a, m, i: a[m, i],
        (S("3x4", A(3, 4), Mask([True, False, True]), Idx([3, 0])),), dtypes=FLOAT),
    _ix("bool_scalar", lambda lib, a: a[True], (S("3x4", A(3, 4)),), dtypes=FLOAT),
]

# ---- gather / scatter_add / index_select / masked_fill ---------------------------------------

OPS += [
    OpSpec("gather", lambda lib, a, i: a.gather(1, i),
           (S("3x4", A(3, 4), Idx([[0, 3], [1, 1], [2, 0]])),
            S("t_smaller", T(3, 4), Idx([[3, 3, 0], [0, 1, 2]]))), ALL,
           ref=lambda np_, a, i: _gather(a, 1, i)),
    OpSpec("gather_fn_dim0", lambda lib, a, i: lib.gather(a, 0, i),
           (S("3x4", A(3, 4), Idx([[2, 0, 1, 1], [0, 0, 2, 1]])),), FLOAT,
           ref=lambda np_, a, i: _gather(a, 0, i)),
    OpSpec("scatter_add", lambda lib, a, i, s: a.scatter_add(1, i, s),
           (S("dups", A(3, 4), Idx([[0, 0], [3, 1], [2, 2]]), A(3, 2)),
            S("t", T(3, 4), Idx([[1, 1, 1], [0, 2, 3]]), A(2, 3))), NUM,
           ref=lambda np_, a, i, s: _scatter_add(a, 1, i, s)),
    OpSpec("scatter_add_fn", lambda lib, a, i, s: lib.scatter_add(a, 0, i, s),
           (S("dups", A(3, 2), Idx([[0, 2], [0, 2]]), A(2, 2)),), FLOAT,
           ref=lambda np_, a, i, s: _scatter_add(a, 0, i, s)),
    OpSpec("index_select", lambda lib, a, i: a.index_select(1, i),
           (S("3x4", A(3, 4), Idx([3, 0, 3])), S("t", T(3, 4), Idx([1])),
            S("empty_index", A(3, 4), Idx(np.zeros(0, dtype=np.int64)))), ALL,
           ref=lambda np_, a, i: np.take(a, i, 1)),
    OpSpec("index_select_fn", lambda lib, a, i: lib.index_select(a, 0, i),
           (S("3x4", A(3, 4), Idx([2, 2, 0])), S("int32_index", A(3, 4), Idx([1, 0], "int32"))),
           FLOAT, ref=lambda np_, a, i: np.take(a, i, 0)),
    OpSpec("masked_fill", lambda lib, a, m: a.masked_fill(m, 0.5),
           (S("same", A(2, 3), Mask([[1, 0, 1], [0, 0, 1]])),
            S("bcast", A(2, 3), Mask([True, False, True])),
            S("t", T(2, 3), Mask([[0], [1]]))), FLOAT,
           ref=lambda np_, a, m: np.where(m, np.asarray(0.5, a.dtype), a)),
    OpSpec("masked_fill_int", lambda lib, a, m: lib.masked_fill(a, m, 7),
           (S("bcast", A(2, 3), Mask([True, False, True])),), ALL,
           ref=lambda np_, a, m: np.where(m, np.asarray(7).astype(a.dtype), a)),
    OpSpec("masked_fill_tensor_value", lambda lib, a, m, v: a.masked_fill(m, v),
           (S("0d_value", A(2, 3), Mask([True, False, True]), A()),), FLOAT,
           ref=lambda np_, a, m, v: np.where(m, v, a)),
]

def _static_rows(rows, size, fill):
    out = np.full((size, rows.shape[1]), fill, np.int64)
    out[:min(size, len(rows))] = rows[:size]
    return out


# ---- take_along_dim, masked_select, nonzero --------------------------------------------------

OPS += [
    OpSpec("take_along_dim", lambda lib, a, i: lib.take_along_dim(a, i, 1),
           (S("3x4", A(3, 4), Idx([[0], [3], [1]])), S("bcast", A(3, 4), Idx([[2, 0]]))), ALL,
           ref=lambda np_, a, i: np.take_along_axis(a, np.broadcast_to(i, (3, i.shape[1])), 1)),
    OpSpec("take_along_dim_flat", lambda lib, a, i: lib.take_along_dim(a, i),
           (S("3x4", A(3, 4), Idx([0, 5, 11])),), FLOAT,
           ref=lambda np_, a, i: a.ravel()[i]),
    OpSpec("masked_select", lambda lib, a, m: lib.masked_select(a, m),
           (S("3x4", A(3, 4), Mask([[True, False, True, True]] * 3)),
            S("bcast_mask", T(3, 4), Mask([[True], [False], [True]])),
            S("bcast_input", A(4), Mask([[True, False, False, True], [False] * 4]))), ALL,
           ref=lambda np_, a, m: np.broadcast_to(a, np.broadcast_shapes(a.shape, m.shape))[
               np.broadcast_to(m, np.broadcast_shapes(a.shape, m.shape))]),
    OpSpec("nonzero", lambda lib, a: lib.nonzero(a), (S("specials", Fixed([[0.0, 1.5], [-0.0, 2.0]])),
                                                      S("2x3", A(2, 3, domain=SMALL))),
           ALL, ref=lambda np_, a: np.argwhere(a), differentiable=False),
    # a fixed count of rows: cut short, or filled out with fill_value
    OpSpec("nonzero_static", lambda lib, a: lib.nonzero_static(a, size=4),
           (S("2x3", A(2, 3, domain=SMALL)),), ALL,
           ref=lambda np_, a: _static_rows(np.argwhere(a), 4, -1), differentiable=False),
    OpSpec("Tensor.nonzero_static_fill", lambda lib, a: a.nonzero_static(size=1, fill_value=7),
           (S("specials", Fixed([[0.0, 1.5], [-0.0, 2.0]])),), NUM,
           ref=lambda np_, a: _static_rows(np.argwhere(a), 1, 7), differentiable=False),
    OpSpec("Tensor.nonzero_as_tuple", lambda lib, a: a.nonzero(as_tuple=True),
           (S("2x3", A(2, 3, domain=SMALL)),), NUM, ref=lambda np_, a: np.nonzero(a),
           differentiable=False),
]

# ---- indexed writes: index_add/copy/fill, take/put, masked_scatter, the view scatters ----------


def _index_add(a, dim, idx, src, alpha=1):
    out = a.copy()
    for k, i in enumerate(idx):
        sl = [slice(None)] * a.ndim
        sl[dim] = i
        ssl = [slice(None)] * a.ndim
        ssl[dim] = k
        out[tuple(sl)] += alpha * src[tuple(ssl)]
    return out


def _index_copy(a, dim, idx, src):
    out = a.copy()
    for k, i in enumerate(idx):
        sl = [slice(None)] * a.ndim
        sl[dim] = i
        ssl = [slice(None)] * a.ndim
        ssl[dim] = k
        out[tuple(sl)] = src[tuple(ssl)]
    return out


def _index_fill(a, dim, idx, value):
    out = a.copy()
    sl = [slice(None)] * a.ndim
    sl[dim] = idx
    out[tuple(sl)] = value
    return out


def _put(a, idx, src, accumulate=False):
    out = a.copy().ravel()
    if accumulate:
        np.add.at(out, idx.ravel(), src.ravel())
    else:
        out[idx.ravel()] = src.ravel()
    return out.reshape(a.shape)


def _masked_scatter(a, m, src):
    shape = np.broadcast_shapes(a.shape, m.shape)
    out = np.broadcast_to(a, shape).copy()
    mb = np.broadcast_to(m, shape)
    out[mb] = src.ravel()[:mb.sum()]
    return out


def _diag_set(a, src, offset=0):
    out = a.copy()
    n = min(a.shape[0], a.shape[1] - offset)
    out[np.arange(n), np.arange(n) + offset] = src
    return out


def _index_put(a, i, v, accumulate):
    out = a.copy()
    if accumulate:
        np.add.at(out, i, np.broadcast_to(v, out[i].shape))
    else:
        out[i] = v
    return out


def _scatter_view(a, src, view):
    out = a.copy()
    view(out)[...] = src
    return out


# (index_add_, index_copy_ and index_fill_ take dim first, which the in-place column cannot
# pass: tests/ops/test_indexed_writes.py runs them against torch)
OPS += [
    OpSpec("index_add", lambda lib, a, i, s: lib.index_add(a, 1, i, s, alpha=2),
           (S("dups", A(3, 4), Idx([0, 3, 0]), A(3, 3)), S("t", T(3, 4), Idx([2, 1]), A(3, 2))),
           NUM, ref=lambda np_, a, i, s: _index_add(a, 1, i, s, 2)),
    OpSpec("Tensor.index_add_dim0", lambda lib, a, i, s: a.index_add(0, i, s),
           (S("3x4", A(3, 4), Idx([2, 0]), A(2, 4)),
            S("int32_index", A(3, 4), Idx([1], "int32"), A(1, 4))), FLOAT,
           ref=lambda np_, a, i, s: _index_add(a, 0, i, s)),
    OpSpec("index_copy", lambda lib, a, i, s: lib.index_copy(a, 1, i, s),
           (S("3x4", A(3, 4), Idx([3, 0]), A(3, 2)), S("t", T(3, 4), Idx([1]), A(3, 1))), NUM,
           ref=lambda np_, a, i, s: _index_copy(a, 1, i, s)),
    OpSpec("index_fill", lambda lib, a, i: lib.index_fill(a, 0, i, -1.5),
           (S("3x4", A(3, 4), Idx([2, 0])), S("t_neg", T(3, 4), Idx([-1]))), FLOAT,
           ref=lambda np_, a, i: _index_fill(a, 0, i, -1.5)),
    OpSpec("index_fill_int", lambda lib, a, i: a.index_fill(1, i, 3),
           (S("3x4", A(3, 4), Idx([1, 3])),), NUM, ref=lambda np_, a, i: _index_fill(a, 1, i, 3)),
    OpSpec("index_fill_tensor", lambda lib, a, i, v: lib.index_fill(a, 1, i, v),
           (S("3x4", A(3, 4), Idx([1, 3]), A()),), FLOAT,
           ref=lambda np_, a, i, v: _index_fill(a, 1, i, v)),
    OpSpec("index_put", lambda lib, a, i, v: lib.index_put(a, (i,), v),
           (S("3x4", A(3, 4), Idx([2, 0]), A(2, 4)), S("t_bcast", T(3, 4), Idx([1]), A(4))), NUM,
           ref=lambda np_, a, i, v: _index_put(a, i, v, False)),
    OpSpec("Tensor.index_put_accumulate", lambda lib, a, i, v: a.index_put((i,), v, True),
           (S("dups", A(3, 4), Idx([2, 0, 2]), A(3, 4)),), FLOAT,
           ref=lambda np_, a, i, v: _index_put(a, i, v, True)),
    OpSpec("fill", lambda lib, a: lib.fill(a, 1.5), (S("3x4", A(3, 4)), S("t", T(3, 4))), NUM,
           ref=lambda np_, a: np.full_like(a, 1.5)),
    OpSpec("fill_tensor", lambda lib, a, v: lib.fill(a, v), (S("3x4", A(3, 4), A()),), FLOAT,
           ref=lambda np_, a, v: np.full_like(a, v)),
    OpSpec("take", lambda lib, a, i: lib.take(a, i),
           (S("3x4", A(3, 4), Idx([[0, 11], [5, 5]])), S("t_neg", T(3, 4), Idx([-1, 2, 7]))), ALL,
           ref=lambda np_, a, i: a.ravel()[i]),
    OpSpec("put", lambda lib, a, i, s: lib.put(a, i, s),
           (S("3x4", A(3, 4), Idx([0, 11, 5]), A(3)), S("t", T(3, 4), Idx([[1], [-2]]), A(2, 1))),
           NUM, ref=lambda np_, a, i, s: _put(a, i, s), inplace="put_"),
    OpSpec("put_accumulate", lambda lib, a, i, s: a.put(i, s, accumulate=True),
           (S("dups", A(3, 4), Idx([0, 11, 0]), A(3)),), FLOAT,
           ref=lambda np_, a, i, s: _put(a, i, s, True), inplace="put_",
           inplace_kw=(("accumulate", True),)),
    OpSpec("masked_scatter", lambda lib, a, m, s: lib.masked_scatter(a, m, s),
           (S("3x4", A(3, 4), Mask([[1, 0, 0, 1], [0, 0, 0, 0], [1, 1, 1, 0]]), A(6)),
            S("t_extra_source", T(3, 4), Mask([[0, 1, 0, 1], [1, 0, 0, 0], [0, 0, 1, 0]]), A(2, 4))),
           NUM, ref=lambda np_, a, m, s: _masked_scatter(a, m, s), inplace="masked_scatter_"),
    OpSpec("masked_scatter_bcast", lambda lib, a, m, s: a.masked_scatter(m, s),
           (S("bcast_mask", A(3, 4), Mask([True, False, True, False]), A(3, 4)),), FLOAT,
           ref=lambda np_, a, m, s: _masked_scatter(a, m, s), inplace="masked_scatter_"),
    OpSpec("select_scatter", lambda lib, a, s: lib.select_scatter(a, s, 1, -1),
           (S("3x4", A(3, 4), A(3)), S("t", T(3, 4), A(3))), ALL,
           ref=lambda np_, a, s: _scatter_view(a, s, lambda x: x[:, -1])),
    OpSpec("slice_scatter", lambda lib, a, s: lib.slice_scatter(a, s, 1, 0, None, 2),
           (S("3x4", A(3, 4), A(3, 2)), S("t", T(3, 4), A(3, 2))), ALL,
           ref=lambda np_, a, s: _scatter_view(a, s, lambda x: x[:, 0::2])),
    OpSpec("Tensor.slice_scatter_start", lambda lib, a, s: a.slice_scatter(s, start=1),
           (S("3x4", A(3, 4), A(2, 4)),), FLOAT,
           ref=lambda np_, a, s: _scatter_view(a, s, lambda x: x[1:])),
    OpSpec("diagonal_scatter", lambda lib, a, s: lib.diagonal_scatter(a, s, 1),
           (S("3x4", A(3, 4), A(3)), S("t", T(3, 4), A(3))), ALL,
           ref=lambda np_, a, s: _diag_set(a, s, 1)),
    OpSpec("fill_diagonal", lambda lib, a: a.clone().fill_diagonal_(2.5),
           (S("3x4", A(3, 4)), S("t", T(3, 4))), FLOAT,
           ref=lambda np_, a: _diag_set(a, 2.5),
           inplace="fill_diagonal_", inplace_args=(2.5,)),
    OpSpec("fill_diagonal_wrap", lambda lib, a: a.clone().fill_diagonal_(-1.0, wrap=True),
           (S("7x3", A(7, 3)),), FLOAT,
           ref=lambda np_, a: _put(a, np.arange(0, 21, 4), np.full(6, -1.0, a.dtype)),
           inplace="fill_diagonal_", inplace_args=(-1.0,), inplace_kw=(("wrap", True),)),
]


# ---- scatter_reduce / index_reduce: every reduce, with and without self -----------------------

_REDUCE_ID = {"sum": 0.0, "prod": 1.0, "mean": 0.0, "amax": -np.inf, "amin": np.inf}


def _reduce_into(out, places, values, reduce, include_self):
    """``out`` (a float64 copy) with each value reduced into its place, in order."""
    counts = np.ones(out.shape) if include_self else np.zeros(out.shape)
    seen = np.zeros(out.shape, bool)
    for place, v in zip(places, values):
        if not include_self and not seen[place]:
            out[place], seen[place] = v, True
        elif reduce in ("sum", "mean"):
            out[place] += v
        elif reduce == "prod":
            out[place] *= v
        elif reduce == "amax":
            out[place] = max(out[place], v)
        else:
            out[place] = min(out[place], v)
        counts[place] += 1
    if reduce == "mean":
        out = out / np.maximum(counts, 1)
    return out


def _scatter_reduce(a, dim, idx, src, reduce, include_self=True):
    places, values = [], []
    for pos in np.ndindex(*idx.shape):
        place = list(pos)
        place[dim] = idx[pos]
        places.append(tuple(place))
        values.append(src[pos])
    out = _reduce_into(a.astype(np.float64), places, values, reduce, include_self)
    return _cast_like(out, a, reduce)


def _index_reduce(a, dim, idx, src, reduce, include_self=True):
    places, values = [], []
    for pos in np.ndindex(*src.shape):
        place = list(pos)
        place[dim] = idx[pos[dim]]
        places.append(tuple(place))
        values.append(src[pos])
    out = _reduce_into(a.astype(np.float64), places, values, reduce, include_self)
    return _cast_like(out, a, reduce)


def _cast_like(out, a, reduce):
    if a.dtype.kind != "f" and reduce == "mean":
        out = np.floor(out)
    return out.astype(a.dtype)


_SCATTER = (S("3x4", A(3, 4), Idx([[0, 1, 2, 0], [0, 0, 1, 2], [1, 0, 0, 2]]), A(3, 4)),
            S("t_small_index", T(3, 4), Idx([[2, 2, 0], [1, 2, 2]]), A(2, 3)))
_INDEX = (S("dups", A(3, 4), Idx([0, 2, 0, 0]), A(4, 4)),
          S("t", T(3, 4), Idx([2, 1]), A(2, 4)))
for _reduce in ("sum", "prod", "mean", "amax", "amin"):
    for _self in (True, False):
        _tag = "" if _self else "_exclude_self"
        OPS += [
            OpSpec(f"scatter_reduce_{_reduce}{_tag}",
                   lambda lib, a, i, s, r=_reduce, k=_self: a.scatter_reduce(
                       0, i, s, r, include_self=k),
                   _SCATTER, SIGNED, DISTINCT,
                   ref=lambda np_, a, i, s, r=_reduce, k=_self: _scatter_reduce(a, 0, i, s, r, k)),
        ]
        if _reduce != "sum":
            OPS += [
                OpSpec(f"index_reduce_{_reduce}{_tag}",
                       lambda lib, a, i, s, r=_reduce, k=_self: lib.index_reduce(
                           a, 0, i, s, r, include_self=k),
                       _INDEX, SIGNED, DISTINCT,
                       ref=lambda np_, a, i, s, r=_reduce, k=_self: _index_reduce(
                           a, 0, i, s, r, k)),
            ]
OPS += [
    # zeros among the factors: a lone zero's gradient is the product of the others
    OpSpec("scatter_reduce_prod_zeros", lambda lib, a, i, s: lib.scatter_reduce(a, 1, i, s, "prod"),
           (S("zeros", Fixed([[1.5, 0.0, 2.0], [0.5, -1.0, 3.0]]), Idx([[0, 0, 1, 2], [2, 2, 0, 1]]),
              Fixed([[2.0, 0.0, 1.5, -1.0], [0.0, 0.0, 2.0, 0.5]])),), FLOAT,
           ref=lambda np_, a, i, s: _scatter_reduce(a, 1, i, s, "prod")),
    OpSpec("index_reduce_prod_zeros", lambda lib, a, i, s: a.index_reduce(1, i, s, "prod"),
           (S("zeros", Fixed([[1.5, 0.0, 2.0], [0.5, -1.0, 3.0]]), Idx([0, 0, 2]),
              Fixed([[2.0, 0.0, 1.5], [0.0, 1.0, 2.0]])),), FLOAT,
           ref=lambda np_, a, i, s: _index_reduce(a, 1, i, s, "prod")),
    # ties: amax/amin share a place's gradient among self and the values equal to it
    OpSpec("scatter_reduce_amax_ties", lambda lib, a, i, s: a.scatter_reduce(0, i, s, "amax"),
           (S("ties", A(2, 4, domain=SMALL), Idx([[0, 1, 1, 0], [0, 0, 1, 1]]),
              A(2, 4, domain=SMALL)),), FLOAT, gradcheck=False,
           ref=lambda np_, a, i, s: _scatter_reduce(a, 0, i, s, "amax")),
    OpSpec("index_reduce_amin_ties", lambda lib, a, i, s: a.index_reduce(0, i, s, "amin"),
           (S("ties", A(2, 4, domain=SMALL), Idx([1, 1, 0]), A(3, 4, domain=SMALL)),), FLOAT,
           gradcheck=False, ref=lambda np_, a, i, s: _index_reduce(a, 0, i, s, "amin")),
]
