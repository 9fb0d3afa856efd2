"""Copies and new layouts: cat/concat/stack, contiguous/clone, the casts (to, float, type_as,
...), tril/triu, flip, roll, repeat/tile, diag/diag_embed, repeat_interleave and the
stack and flip forms composed in Python (hstack, vstack, dstack, column_stack,
cartesian_prod, fliplr, flipud).
"""

import numpy as np

from .reference import _np_meshgrid_ij
from .rows import ALL, CASTABLE, FLOAT, NONNEG, NUM, SMALL, A, E, OpSpec, S, Step, T
from .samples import _CAST_SAMPLES, LOSS_PAIR, MATRIX, SHAPE, V23, V23C


def _np_block_diag(*arrays):
    mats = [np.reshape(a, (1, -1)) if np.ndim(a) < 2 else a for a in arrays]
    out = np.zeros((sum(m.shape[0] for m in mats), sum(m.shape[1] for m in mats)),
                   np.result_type(*mats))
    r = c = 0
    for m in mats:
        out[r:r + m.shape[0], c:c + m.shape[1]] = m
        r, c = r + m.shape[0], c + m.shape[1]
    return out


def _diag_embed_np(a):
    out = np.zeros(a.shape + (a.shape[-1],), a.dtype)
    idx = np.arange(a.shape[-1])
    out[..., idx, idx] = a
    return out


OPS = []

# ---- joins, contiguous, clone ---------------------------------------------------------------

OPS += [
    OpSpec("concatenate", lambda lib, a, b: lib.concatenate([a, b], 1),
           (S("2x1_2x3", A(2, 1), A(2, 3)), S("t_step", T(2, 3), Step(2, 2))), ALL,
           ref=lambda np_, a, b: np.concatenate([a, b], 1)),
    OpSpec("cat", lambda lib, a, b: lib.cat([a, b]),
           (S("2x3_1x3", A(2, 3), A(1, 3)), S("t_step", T(2, 3), Step(2, 3)),
            S("empty", A(0, 3), A(2, 3)), S("1d", A(2), A(3))), ALL,
           ref=lambda np_, a, b: np.concatenate([a, b])),
    OpSpec("cat_dim_tuple", lambda lib, a, b: lib.cat((a, b), dim=1),
           (S("2x1_2x3", A(2, 1), A(2, 3)), S("expand", E((1, 3), (2, 3)), T(2, 2))), ALL,
           ref=lambda np_, a, b: np.concatenate([a, b], 1)),
    OpSpec("cat_neg_dim_three", lambda lib, a, b, c: lib.cat([a, b, c], -1),
           (S("3d", A(2, 1, 2), A(2, 1, 1), A(2, 1, 3)),), FLOAT,
           ref=lambda np_, a, b, c: np.concatenate([a, b, c], -1)),
    OpSpec("cat_legacy_empty_1d", lambda lib, a, b: lib.cat([a, b]),
           (S("2x3_0", A(2, 3), A(0)),), FLOAT, ref=lambda np_, a, b: a),
    OpSpec("cat_promotes", lambda lib, a, b: lib.cat([a, b]),
           (S("f_i64", A(2, 3), A(1, 3, dtype="int64")),), FLOAT,
           ref=lambda np_, a, b: np.concatenate([a, b.astype(a.dtype)])),
    OpSpec("concat", lambda lib, a, b: lib.concat([a, b], 1), (S("2x3", A(2, 3), A(2, 2)),), FLOAT,
           ref=lambda np_, a, b: np.concatenate([a, b], 1)),
    OpSpec("stack", lambda lib, a, b: lib.stack([a, b]),
           (S("2x3", A(2, 3), A(2, 3)), S("t_step", T(2, 3), Step(2, 3)), S("0d", A(), A()),
            S("empty", A(0, 3), A(0, 3))), ALL, ref=lambda np_, a, b: np.stack([a, b])),
    OpSpec("stack_dim", lambda lib, a, b, c: lib.stack((a, b, c), dim=2),
           (S("2x3", A(2, 3), A(2, 3), A(2, 3)),), ALL,
           ref=lambda np_, a, b, c: np.stack([a, b, c], 2)),
    OpSpec("stack_neg_dim", lambda lib, a, b: lib.stack([a, b], -1), (S("3", A(3), A(3)),), FLOAT,
           ref=lambda np_, a, b: np.stack([a, b], -1)),
    OpSpec("contiguous", lambda lib, a: a.contiguous(), V23 + (S("0d", A()),), ALL,
           ref=lambda np_, a: a.copy()),
    OpSpec("clone", lambda lib, a: a.clone(), V23 + (S("0d", A()), S("empty", A(0, 3))), ALL,
           ref=lambda np_, a: a.copy()),
    OpSpec("clone_fn", lambda lib, a: lib.clone(a), V23C, FLOAT, ref=lambda np_, a: a.copy()),
]

# ---- casts -----------------------------------------------------------------------------------

# (name, fn, numpy dtype (None: unchanged), domain, differentiable, gradcheck)
for _name, _call, _np_dtype, _dom, _diff, _gc in (
        ("to_float64", lambda lib, a: a.to(lib.float64), np.float64, CASTABLE, True, True),
        ("to_dtype_kw_float32", lambda lib, a: a.to(dtype=lib.float32), np.float32, CASTABLE,
         True, False),
        ("to_int32", lambda lib, a: a.to(lib.int32), np.int32, CASTABLE, False, False),
        ("to_uint8", lambda lib, a: a.to(lib.uint8), np.uint8, NONNEG, False, False),
        ("to_bool", lambda lib, a: a.to(lib.bool), np.bool_, SMALL, False, False),
        ("float", lambda lib, a: a.float(), np.float32, CASTABLE, True, False),
        ("double", lambda lib, a: a.double(), np.float64, CASTABLE, True, True),
        ("long", lambda lib, a: a.long(), np.int64, CASTABLE, False, False),
        ("int", lambda lib, a: a.int(), np.int32, CASTABLE, False, False),
        ("bool", lambda lib, a: a.bool(), np.bool_, SMALL, False, False),
        ("to_copy_true", lambda lib, a: a.to(a.dtype, copy=True), None, CASTABLE, True, True),
        ("to_other_tensor", lambda lib, a, b: a.to(b), np.float64, CASTABLE, True, True),
        ("type_as", lambda lib, a, b: a.type_as(b), np.float64, CASTABLE, True, True),
        ("type_dtype", lambda lib, a: a.type(lib.int64), np.int64, CASTABLE, False, False),
):
    _samples = _CAST_SAMPLES
    if _name in ("to_other_tensor", "type_as"):
        _samples = (S("2x3", A(2, 3), A(1, dtype="float64")),)
    OPS.append(OpSpec(
        "cast_" + _name, _call, _samples, ALL, _dom,
        (lambda np_, a, *rest, _d=_np_dtype: a.astype(_d if _d is not None else a.dtype)),
        differentiable=_diff, gradcheck=_gc))

# ---- tril/triu, flip, roll, repeat, tile, diag ----------------------------------------------

OPS += [
    OpSpec("tril", lambda lib, a: lib.tril(a), MATRIX, ALL, ref=lambda np_, a: np.tril(a),
           inplace="tril_"),
    OpSpec("Tensor.tril_offset", lambda lib, a: a.tril(-1), MATRIX, FLOAT,
           ref=lambda np_, a: np.tril(a, -1)),
    OpSpec("triu", lambda lib, a: lib.triu(a, diagonal=1), MATRIX, ALL,
           ref=lambda np_, a: np.triu(a, 1), inplace="triu_", inplace_kw=(("diagonal", 1),)),
    OpSpec("flip", lambda lib, a: lib.flip(a, (0, -1)), SHAPE, ALL,
           ref=lambda np_, a: np.flip(a, (0, -1)).copy()),
    OpSpec("Tensor.flip_varargs", lambda lib, a: a.flip(1), SHAPE, FLOAT,
           ref=lambda np_, a: np.flip(a, 1).copy()),
    OpSpec("roll", lambda lib, a: lib.roll(a, 1, 1), SHAPE, ALL,
           ref=lambda np_, a: np.roll(a, 1, 1)),
    OpSpec("roll_flat", lambda lib, a: lib.roll(a, -4), SHAPE, FLOAT,
           ref=lambda np_, a: np.roll(a, -4)),
    OpSpec("Tensor.roll_dims", lambda lib, a: a.roll((2, -1), (0, 1)), SHAPE, FLOAT,
           ref=lambda np_, a: np.roll(a, (2, -1), (0, 1))),
    OpSpec("Tensor.repeat", lambda lib, a: a.repeat(2, 1, 3), SHAPE, ALL,
           ref=lambda np_, a: np.tile(a, (2, 1, 3))),
    OpSpec("Tensor.repeat_tuple", lambda lib, a: a.repeat((1, 2)), SHAPE[:2], FLOAT,
           ref=lambda np_, a: np.tile(a, (1, 2))),
    OpSpec("tile", lambda lib, a: lib.tile(a, (2,)), SHAPE, FLOAT,
           ref=lambda np_, a: np.tile(a, (2,))),
    OpSpec("diag_embed", lambda lib, a: lib.diag_embed(a), SHAPE, FLOAT,
           ref=lambda np_, a: _diag_embed_np(a)),
    OpSpec("diag_vector", lambda lib, a: lib.diag(a, 1), (S("4", A(4)), S("step", Step(3))),
           NUM, ref=lambda np_, a: np.diag(a, 1)),
    OpSpec("diag_matrix", lambda lib, a: lib.diag(a), MATRIX[:2], NUM,
           ref=lambda np_, a: np.diag(a)),
    OpSpec("repeat_interleave", lambda lib, a: lib.repeat_interleave(a, 2, dim=0), SHAPE,
           FLOAT, ref=lambda np_, a: np.repeat(a, 2, axis=0)),
    OpSpec("Tensor.repeat_interleave_flat", lambda lib, a: a.repeat_interleave(3),
           SHAPE[:2], NUM, ref=lambda np_, a: np.repeat(a, 3)),
]

# ---- composed in Python: the stack family, cartesian_prod, fliplr/flipud -------------------

OPS += [
    OpSpec("hstack", lambda lib, a, b: lib.hstack([a, b]), LOSS_PAIR[:2], ALL,
           ref=lambda np_, a, b: np.hstack([a, b])),
    OpSpec("vstack_1d", lambda lib, a, b: lib.vstack((a, b)), (S("4", A(4), A(4)),), FLOAT,
           ref=lambda np_, a, b: np.vstack([a, b])),
    OpSpec("dstack", lambda lib, a, b: lib.dstack([a, b]), LOSS_PAIR[:2], FLOAT,
           ref=lambda np_, a, b: np.dstack([a, b])),
    OpSpec("column_stack", lambda lib, a, b: lib.column_stack([a, b]),
           (S("3_3x2", A(3), A(3, 2)),), FLOAT, ref=lambda np_, a, b: np.column_stack([a, b])),
    OpSpec("cartesian_prod", lambda lib, a, b: lib.cartesian_prod(a, b),
           (S("3_2", A(3), A(2)),), FLOAT,
           ref=lambda np_, a, b: np.stack([g.ravel() for g in _np_meshgrid_ij(a, b)], 1)),
    OpSpec("fliplr", lambda lib, a: lib.fliplr(a), MATRIX, ALL, ref=lambda np_, a: np.fliplr(a)),
    OpSpec("Tensor.flipud", lambda lib, a: a.flipud(), SHAPE, FLOAT,
           ref=lambda np_, a: np.flipud(a)),
]

# ---- diagflat, combinations, sum_to_size ----------------------------------------------


def _combinations_np(a, r, with_replacement=False):
    import itertools
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = [list(c) for c in pick(a.tolist(), r)]
    return np.asarray(rows, a.dtype).reshape(len(rows), r)


def _sum_to_np(a, size):
    lead = a.ndim - len(size)
    out = a.sum(axis=tuple(range(lead))) if lead else a
    dims = tuple(i for i, s in enumerate(size) if s == 1 and out.shape[i] != 1)
    return out.sum(axis=dims, keepdims=True) if dims else out


OPS += [
    OpSpec("diagflat", lambda lib, a: lib.diagflat(a), (S("2x3", A(2, 3)), S("t", T(2, 3)),
                                                        S("0d", A())), NUM,
           ref=lambda np_, a: np.diagflat(a)),
    OpSpec("Tensor.diagflat_offset", lambda lib, a: a.diagflat(-2), (S("3", A(3)),), FLOAT,
           ref=lambda np_, a: np.diagflat(a, -2)),
    OpSpec("combinations", lambda lib, a: lib.combinations(a), (S("4", A(4)), S("step", Step(5)),
                                                                S("1", A(1))), NUM,
           ref=lambda np_, a: _combinations_np(a, 2)),
    OpSpec("combinations_r3_with_replacement",
           lambda lib, a: lib.combinations(a, 3, with_replacement=True), (S("3", A(3)),), FLOAT,
           ref=lambda np_, a: _combinations_np(a, 3, True)),
    OpSpec("Tensor.sum_to_size", lambda lib, a: a.sum_to_size(1, 3), (S("2x3", A(2, 3)),
                                                                      S("t", T(2, 3))), NUM,
           ref=lambda np_, a: _sum_to_np(a, (1, 3))),
    OpSpec("Tensor.sum_to_size_leading", lambda lib, a: a.sum_to_size((3,)),
           (S("2x4x3", A(2, 4, 3)),), FLOAT, ref=lambda np_, a: _sum_to_np(a, (3,))),
]

# ---- rotations, block matrices, Kronecker products, Vandermonde matrices --------------------

OPS += [
    OpSpec("rot90", lambda lib, a: lib.rot90(a), (S("2x3", A(2, 3)), S("t", T(2, 3))), ALL,
           ref=lambda np_, a: np.rot90(a)),
    OpSpec("Tensor.rot90_k_dims", lambda lib, a: a.rot90(-1, (2, 0)), (S("2x3x4", A(2, 3, 4)),),
           FLOAT, ref=lambda np_, a: np.rot90(a, -1, (2, 0))),
    OpSpec("rot90_half_turn", lambda lib, a: lib.rot90(a, 2, [1, 0]), (S("3x2", A(3, 2)),), FLOAT,
           ref=lambda np_, a: np.rot90(a, 2, (1, 0))),
    OpSpec("rot90_full_turn", lambda lib, a: lib.rot90(a, 4), (S("t", T(2, 3)),), FLOAT,
           ref=lambda np_, a: a.copy()),
    OpSpec("block_diag", lambda lib, a, b, c: lib.block_diag(a, b, c),
           (S("2d_1d_0d", A(2, 3), A(2), A()), S("t_empty", T(2, 2), A(0, 2), A(1, 1))), ALL,
           ref=lambda np_, a, b, c: _np_block_diag(a, b, c)),
    OpSpec("block_diag_promotes", lambda lib, a, b: lib.block_diag(a, b),
           (S("f_i64", A(2, 2), A(1, 2, dtype="int64")),), FLOAT,
           ref=lambda np_, a, b: _np_block_diag(a, b.astype(a.dtype))),
    OpSpec("kron", lambda lib, a, b: lib.kron(a, b),
           (S("2x3_2x2", A(2, 3), A(2, 2)), S("1d_2d", A(3), A(2, 2)), S("0d_1d", A(), A(3))),
           NUM, ref=lambda np_, a, b: np.kron(a, b), gradgrad=True),
    OpSpec("Tensor.kron_3d", lambda lib, a, b: a.kron(b), (S("3d_2d", A(2, 1, 2), A(2, 3)),),
           FLOAT, ref=lambda np_, a, b: np.kron(a, b)),
    # torch.vander writes its powers in place over the product that saved them, so its
    # backward raises in torch too (tests/ops/test_shape_ops.py pins the error)
    OpSpec("vander", lambda lib, a: lib.vander(a), (S("4", A(4)),), NUM + ("bool",),
           ref=lambda np_, a: np.vander(a).astype(np.float64 if a.dtype == np.float64 else
                                                   np.float32 if a.dtype == np.float32 else
                                                   np.int64),
           differentiable=False),
    OpSpec("vander_increasing_N", lambda lib, a: lib.vander(a, N=2, increasing=True),
           (S("3", A(3)),), NUM, differentiable=False,
           ref=lambda np_, a: np.vander(a, 2, increasing=True).astype(
               a.dtype if a.dtype.kind == "f" else np.int64)),
]

