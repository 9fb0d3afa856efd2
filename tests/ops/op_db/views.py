"""Views: view/reshape, transposes, permute, (un)squeeze, expand, flatten, select/narrow,
split/chunk/unbind, as_strided, view(dtype), diagonal, and the view ops composed in Python
(broadcast_to, movedim, atleast_3d, meshgrid, ravel, unflatten, tensor_split, hsplit).
"""

import numpy as np

from .reference import _np_meshgrid_ij
from .rows import ALL, FLOAT, NUM, A, E, OpSpec, S, T
from .samples import _CAST_SAMPLES, MATRIX, SHAPE, UNARY_SMALL, V23, V23C, V234


def _split(a, size_or_sizes, dim):
    n = a.shape[dim]
    if isinstance(size_or_sizes, int):
        cuts = list(range(size_or_sizes, n, size_or_sizes))
    else:
        cuts = list(np.cumsum(size_or_sizes)[:-1])
    return tuple(np.split(a, cuts, axis=dim))


def _chunk(a, chunks, dim):
    size = -(-a.shape[dim] // chunks)
    return _split(a, size, dim)


def _unbind(a, dim):
    return tuple(np.moveaxis(a, dim, 0))


_np_t = lambda a: a.T if a.ndim == 2 else a  # noqa: E731

OPS = [
    OpSpec("view", lambda lib, a: a.view(3, 2), V23C + (S("2x3x1", A(2, 3, 1)),), ALL,
           ref=lambda np_, a: a.reshape(3, 2)),
    OpSpec("view_infer", lambda lib, a: a.view(-1), V23C + (S("0d", A()), S("empty", A(0, 3))),
           ALL, ref=lambda np_, a: a.reshape(-1)),
    OpSpec("view_tuple", lambda lib, a: a.view((1, 6, 1)), V23C, ALL,
           ref=lambda np_, a: a.reshape(1, 6, 1)),
    OpSpec("view_0d_to_1", lambda lib, a: a.view(1, 1), (S("0d", A()),), ALL,
           ref=lambda np_, a: a.reshape(1, 1)),
    OpSpec("view_empty", lambda lib, a: a.view(3, 0, 2), (S("empty", A(0, 3)),), FLOAT,
           ref=lambda np_, a: a.reshape(3, 0, 2)),
    OpSpec("view_as", lambda lib, a, b: a.view_as(b), (S("2x3", A(2, 3), A(3, 2)),), FLOAT,
           ref=lambda np_, a, b: a.reshape(b.shape)),
    OpSpec("view_expand_split_dim", lambda lib, a: a.view(2, 1, 3), (S("expand", E((3,), (2, 3))),),
           FLOAT, ref=lambda np_, a: a.reshape(2, 1, 3)),
    OpSpec("reshape", lambda lib, a: a.reshape(3, 2), V23, ALL,
           ref=lambda np_, a: a.reshape(3, 2)),
    OpSpec("reshape_fn_infer", lambda lib, a: lib.reshape(a, (-1,)), V23 + (S("0d", A()),), ALL,
           ref=lambda np_, a: a.reshape(-1)),
    OpSpec("reshape_as", lambda lib, a, b: a.reshape_as(b), (S("t", T(2, 3), A(6)),), FLOAT,
           ref=lambda np_, a, b: a.reshape(b.shape)),
    OpSpec("t", lambda lib, a: a.t(), V23 + (S("1d", A(3)), S("0d", A())), ALL,
           ref=lambda np_, a: _np_t(a)),
    OpSpec("t_fn", lambda lib, a: lib.t(a), V23C, ALL, ref=lambda np_, a: a.T),
    OpSpec("T_property", lambda lib, a: a.T, V23C + V234[:1], FLOAT,
           ref=lambda np_, a: a.T),
    OpSpec("mT_property", lambda lib, a: a.mT, V234, FLOAT,
           ref=lambda np_, a: np.swapaxes(a, -1, -2)),
    OpSpec("transpose", lambda lib, a: a.transpose(0, 1), V23 + V234, ALL,
           ref=lambda np_, a: np.swapaxes(a, 0, 1)),
    OpSpec("transpose_neg_fn", lambda lib, a: lib.transpose(a, -1, 0), V234, ALL,
           ref=lambda np_, a: np.swapaxes(a, -1, 0)),
    OpSpec("swapaxes", lambda lib, a: lib.swapaxes(a, 0, 2), V234, FLOAT),
    OpSpec("permute", lambda lib, a: a.permute(2, 0, 1), V234, ALL,
           ref=lambda np_, a: np.transpose(a, (2, 0, 1))),
    OpSpec("permute_tuple_neg", lambda lib, a: a.permute((1, -1, 0)), V234, FLOAT,
           ref=lambda np_, a: np.transpose(a, (1, 2, 0))),
    OpSpec("permute_fn", lambda lib, a: lib.permute(a, (1, 0)), V23, ALL,
           ref=lambda np_, a: a.T),
    OpSpec("unsqueeze", lambda lib, a: a.unsqueeze(0), V23 + (S("0d", A()),), ALL,
           ref=lambda np_, a: np.expand_dims(a, 0)),
    OpSpec("unsqueeze_neg_fn", lambda lib, a: lib.unsqueeze(a, -1), V23 + (S("empty", A(0, 3)),),
           ALL, ref=lambda np_, a: np.expand_dims(a, -1)),
    OpSpec("unsqueeze_mid", lambda lib, a: a.unsqueeze(1), V23, FLOAT,
           ref=lambda np_, a: np.expand_dims(a, 1)),
    OpSpec("squeeze", lambda lib, a: a.squeeze(), (S("2x1x3x1", A(2, 1, 3, 1)), S("1x1", A(1, 1)),
                                                   S("0d", A()), S("2x3", A(2, 3))), ALL,
           ref=lambda np_, a: np.squeeze(a)),
    OpSpec("squeeze_dim", lambda lib, a: a.squeeze(1), (S("2x1x3", A(2, 1, 3)),
                                                        S("noop", A(2, 3))), ALL,
           ref=lambda np_, a: np.squeeze(a, 1) if a.shape[1] == 1 else a),
    OpSpec("squeeze_fn_neg", lambda lib, a: lib.squeeze(a, -1), (S("2x3x1", A(2, 3, 1)),), FLOAT,
           ref=lambda np_, a: np.squeeze(a, -1)),
    OpSpec("squeeze_dims_tuple", lambda lib, a: a.squeeze((1, 3)), (S("2x1x3x1", A(2, 1, 3, 1)),),
           FLOAT, ref=lambda np_, a: np.squeeze(a, (1, 3))),
    OpSpec("expand", lambda lib, a: a.expand(2, 3), (S("1x3", A(1, 3)), S("3", A(3)),
                                                    S("0d", A())), ALL,
           ref=lambda np_, a: np.broadcast_to(a, (2, 3))),
    OpSpec("expand_new_dims_keep", lambda lib, a: a.expand(4, -1, 3), (S("2x1", A(2, 1)),), ALL,
           ref=lambda np_, a: np.broadcast_to(a, (4, 2, 3))),
    OpSpec("expand_tuple", lambda lib, a: a.expand((2, 2, 3)), (S("t_1", T(1, 3)),), FLOAT,
           ref=lambda np_, a: np.broadcast_to(a, (2, 2, 3))),
    OpSpec("expand_as", lambda lib, a, b: a.expand_as(b), (S("bcast", A(3, 1), A(3, 4)),), FLOAT,
           ref=lambda np_, a, b: np.broadcast_to(a, b.shape)),
    OpSpec("flatten", lambda lib, a: a.flatten(), V23 + V234 + (S("0d", A()),), ALL,
           ref=lambda np_, a: a.reshape(-1)),
    OpSpec("flatten_start", lambda lib, a: a.flatten(1), V234, ALL,
           ref=lambda np_, a: a.reshape(a.shape[0], -1)),
    OpSpec("flatten_fn_range", lambda lib, a: lib.flatten(a, 0, 1), V234, FLOAT,
           ref=lambda np_, a: a.reshape(-1, a.shape[2])),
    OpSpec("select", lambda lib, a: a.select(1, -1), V23 + V234, ALL,
           ref=lambda np_, a: a[:, -1]),
    OpSpec("select_fn", lambda lib, a: lib.select(a, 0, 1), V23, ALL,
           ref=lambda np_, a: a[1]),
    OpSpec("narrow", lambda lib, a: a.narrow(1, 1, 2), V23 + V234, ALL,
           ref=lambda np_, a: a[:, 1:3]),
    OpSpec("narrow_fn_neg_start", lambda lib, a: lib.narrow(a, 0, -1, 1), V23, FLOAT,
           ref=lambda np_, a: a[-1:]),
    OpSpec("split", lambda lib, a: a.split(2), (S("5x2", A(5, 2)), S("t", T(3, 2))), ALL,
           ref=lambda np_, a: _split(a, 2, 0)),
    OpSpec("split_dim", lambda lib, a: a.split(2, dim=1), V23 + V234, ALL,
           ref=lambda np_, a: _split(a, 2, 1)),
    OpSpec("split_sizes", lambda lib, a: a.split([1, 2], 1), V23, ALL,
           ref=lambda np_, a: _split(a, [1, 2], 1)),
    OpSpec("split_fn", lambda lib, a: lib.split(a, 1), V23, FLOAT,
           ref=lambda np_, a: _split(a, 1, 0)),
    OpSpec("chunk", lambda lib, a: a.chunk(2), (S("3x2", A(3, 2)), S("4x2", A(4, 2)),
                                               S("t", T(3, 2))), ALL,
           ref=lambda np_, a: _chunk(a, 2, 0)),
    OpSpec("chunk_dim_fn", lambda lib, a: lib.chunk(a, 3, 1), V23 + V234, ALL,
           ref=lambda np_, a: _chunk(a, 3, 1)),
    OpSpec("chunk_uneven", lambda lib, a: a.chunk(4, 1), (S("1x6", A(1, 6)),), FLOAT,
           ref=lambda np_, a: _chunk(a, 4, 1)),
    OpSpec("unbind", lambda lib, a: a.unbind(), V23 + V234, ALL,
           ref=lambda np_, a: _unbind(a, 0)),
    OpSpec("unbind_fn_dim", lambda lib, a: lib.unbind(a, 1), V23, ALL,
           ref=lambda np_, a: _unbind(a, 1)),
    OpSpec("as_strided", lambda lib, a: a.as_strided((2, 2), (1, 2)), (S("2x3", A(2, 3)),), FLOAT,
           ref=lambda np_, a: np.lib.stride_tricks.as_strided(
               a, (2, 2), (a.itemsize, 2 * a.itemsize))),
]

# view(dtype): the same bytes read as another dtype, detached (no grad_fn, requires_grad False)
OPS += [
    OpSpec("view_dtype_same_size",
           lambda lib, a: a.view(lib.int32 if a.dtype == lib.float32 else lib.int64),
           _CAST_SAMPLES, FLOAT,
           ref=lambda np_, a: a.view(np.int32 if a.dtype == np.float32 else np.int64),
           differentiable=False),
    OpSpec("view_dtype_half_size",
           lambda lib, a: a.view(lib.int16 if a.dtype == lib.float32 else lib.float32),
           (S("2x3", A(2, 3)), S("2x2x4", A(2, 2, 4))), FLOAT,
           ref=lambda np_, a: np.ascontiguousarray(a).view(
               np.int16 if a.dtype == np.float32 else np.float32),
           differentiable=False),
]

# ---- diagonal and the view ops composed in Python -------------------------------------------

OPS += [
    OpSpec("diagonal", lambda lib, a: lib.diagonal(a), MATRIX, ALL,
           ref=lambda np_, a: np.diagonal(a, 0, 0, 1)),
    OpSpec("Tensor.diagonal_offset_dims", lambda lib, a: a.diagonal(1, -2, -1), MATRIX, FLOAT,
           ref=lambda np_, a: np.diagonal(a, 1, -2, -1)),
    OpSpec("linalg.diagonal", lambda lib, a: lib.linalg.diagonal(a), MATRIX, ALL,
           ref=lambda np_, a: np.diagonal(a, 0, -2, -1)),
    OpSpec("linalg.diagonal_offset_dims",
           lambda lib, a: lib.linalg.diagonal(a, offset=-1, dim1=-1, dim2=0), MATRIX, FLOAT,
           ref=lambda np_, a: np.diagonal(a, -1, -1, 0)),
    OpSpec("broadcast_to", lambda lib, a: lib.broadcast_to(a, (2, 3, 4)),
           (S("3x4", A(3, 4)), S("t", T(3, 4)), S("1x4", A(1, 4))), ALL,
           ref=lambda np_, a: np.broadcast_to(a, (2, 3, 4))),
    OpSpec("broadcast_tensors", lambda lib, a, b: lib.broadcast_tensors(a, b),
           (S("3x1_4", A(3, 1), A(4)),), FLOAT,
           ref=lambda np_, a, b: tuple(np.broadcast_arrays(a, b))),
    OpSpec("movedim", lambda lib, a: lib.movedim(a, (0, 1), (2, 0)), (S("2x3x4", A(2, 3, 4)),),
           ALL, ref=lambda np_, a: np.moveaxis(a, (0, 1), (2, 0))),
    OpSpec("Tensor.moveaxis", lambda lib, a: a.moveaxis(-1, 0), SHAPE, FLOAT,
           ref=lambda np_, a: np.moveaxis(a, -1, 0)),
    OpSpec("atleast_3d", lambda lib, a: lib.atleast_3d(a), UNARY_SMALL + (S("1d", A(4)),), FLOAT,
           ref=lambda np_, a: np.atleast_3d(a) if a.ndim != 2 else a[..., None]),
    OpSpec("meshgrid_ij", lambda lib, a, b: lib.meshgrid(a, b, indexing="ij"),
           (S("3_4", A(3), A(4)),), ALL, ref=lambda np_, a, b: _np_meshgrid_ij(a, b)),
    OpSpec("meshgrid_xy", lambda lib, a, b: lib.meshgrid(a, b, indexing="xy"),
           (S("3_4", A(3), A(4)),), FLOAT,
           ref=lambda np_, a, b: tuple(np.meshgrid(a, b, indexing="xy"))),
    OpSpec("ravel", lambda lib, a: lib.ravel(a), SHAPE, ALL, ref=lambda np_, a: np.ravel(a)),
    OpSpec("unflatten", lambda lib, a: lib.unflatten(a, 0, (1, 3)),
           (S("3x4", A(3, 4)), S("t", T(3, 4))), ALL, ref=lambda np_, a: a.reshape(1, 3, 4)),
    OpSpec("Tensor.unflatten", lambda lib, a: a.unflatten(1, (2, -1)),
           (S("3x4", A(3, 4)), S("t", T(3, 4))), FLOAT,
           ref=lambda np_, a: a.reshape(3, 2, 2)),
    OpSpec("tensor_split_sections", lambda lib, a: lib.tensor_split(a, 3, dim=1),
           (S("2x5", A(2, 5)), S("t", T(2, 5))), ALL,
           ref=lambda np_, a: tuple(np.array_split(a, 3, axis=1))),
    OpSpec("Tensor.tensor_split_indices", lambda lib, a: a.tensor_split([1, 3], 1),
           (S("2x5", A(2, 5)),), FLOAT, ref=lambda np_, a: tuple(np.split(a, [1, 3], axis=1))),
    OpSpec("hsplit", lambda lib, a: lib.hsplit(a, 2), (S("3x4", A(3, 4)),), FLOAT,
           ref=lambda np_, a: tuple(np.hsplit(a, 2))),
]

# ---- split_with_sizes and the conjugate transposes -------------------------------------------

OPS += [
    OpSpec("split_with_sizes", lambda lib, a: lib.split_with_sizes(a, [1, 2], 1),
           (S("2x3", A(2, 3)), S("t", T(2, 3))), ALL,
           ref=lambda np_, a: tuple(np.split(a, [1], axis=1))),
    OpSpec("Tensor.split_with_sizes", lambda lib, a: a.split_with_sizes([2, 0, 1]),
           (S("3x2", A(3, 2)),), FLOAT, ref=lambda np_, a: tuple(np.split(a, [2, 2], axis=0))),
    OpSpec("adjoint", lambda lib, a: lib.adjoint(a), (S("2x3", A(2, 3)), S("2x3x4", A(2, 3, 4))),
           ALL, ref=lambda np_, a: np.swapaxes(a, -2, -1)),
    OpSpec("Tensor.mH", lambda lib, a: a.mH, (S("2x3x4", A(2, 3, 4)), S("t", T(2, 3))), NUM,
           ref=lambda np_, a: np.swapaxes(a, -2, -1)),
    OpSpec("Tensor.H", lambda lib, a: a.H, (S("2x3", A(2, 3)),), NUM,
           ref=lambda np_, a: a.T),
]

# ---- unfold: overlapping windows (step < size), gapped ones (step > size) ---------------------


def _np_unfold(a, dim, size, step):
    a = np.asarray(a)
    if a.ndim == 0:
        return a.reshape(1)[:size]
    windows = (a.shape[dim] - size) // step + 1
    parts = [np.take(a, range(w * step, w * step + size), axis=dim) for w in range(windows)]
    return np.moveaxis(np.stack(parts, axis=dim), dim + 1, -1)


OPS += [
    OpSpec("Tensor.unfold_overlapping", lambda lib, a: a.unfold(1, 2, 1),
           (S("3x4", A(3, 4)), S("t", T(4, 3)), S("2x5x2", A(2, 5, 2))), ALL,
           ref=lambda np_, a: _np_unfold(a, 1, 2, 1)),
    OpSpec("Tensor.unfold_gapped_last", lambda lib, a: a.unfold(-1, 2, 3),
           (S("3x7", A(3, 7)), S("1d", A(8))), FLOAT,
           ref=lambda np_, a: _np_unfold(a, a.ndim - 1, 2, 3)),
    OpSpec("Tensor.unfold_0d", lambda lib, a: a.unfold(0, 1, 2), (S("0d", A()),), FLOAT,
           ref=lambda np_, a: _np_unfold(a, 0, 1, 2)),
    OpSpec("Tensor.unfold_empty_window", lambda lib, a: a.unfold(0, 0, 2), (S("3", A(3)),),
           FLOAT, ref=lambda np_, a: np.zeros((2, 0), a.dtype)),
]


# ---- the *_copy functions: the view's values in a new tensor, one node named as torch's --------


def _as_strided_2x2(a):
    flat = np.ascontiguousarray(a).ravel()
    return np.array([[flat[1 + i + 2 * j] for j in range(2)] for i in range(2)], a.dtype)


def _as_strided_2x2_scatter(a, src):
    flat = np.ascontiguousarray(a).ravel().copy()
    for i in range(2):
        for j in range(2):
            flat[1 + i + 2 * j] = src[i, j]
    return flat.reshape(a.shape)


_SQUEEZABLE = (S("2x1x3", A(2, 1, 3)), S("1x3_t", T(3, 1)))
OPS += [
    OpSpec("expand_copy", lambda lib, a: lib.expand_copy(a, (2, 2, 3)), V23, ALL,
           ref=lambda np_, a: np.broadcast_to(a, (2, 2, 3)).copy()),
    OpSpec("permute_copy", lambda lib, a: lib.permute_copy(a, (2, 0, 1)), V234, ALL,
           ref=lambda np_, a: np.transpose(a, (2, 0, 1)).copy()),
    OpSpec("select_copy", lambda lib, a: lib.select_copy(a, 1, -1), V23, ALL,
           ref=lambda np_, a: a[:, -1].copy()),
    OpSpec("slice_copy", lambda lib, a: lib.slice_copy(a, 1, 0, 3, 2), V23, ALL,
           ref=lambda np_, a: a[:, 0:3:2].copy()),
    OpSpec("squeeze_copy", lambda lib, a: lib.squeeze_copy(a), _SQUEEZABLE, ALL,
           ref=lambda np_, a: np.squeeze(a).copy()),
    OpSpec("squeeze_copy_dim", lambda lib, a: lib.squeeze_copy(a, 1), _SQUEEZABLE, ALL,
           ref=lambda np_, a: np.squeeze(a, 1).copy()),
    OpSpec("squeeze_copy_dims", lambda lib, a: lib.squeeze_copy(a, (0, 1)), _SQUEEZABLE, ALL,
           ref=lambda np_, a: np.squeeze(a, tuple(d for d in (0, 1) if a.shape[d] == 1)).copy()),
    OpSpec("unsqueeze_copy", lambda lib, a: lib.unsqueeze_copy(a, 1), V23, ALL,
           ref=lambda np_, a: np.expand_dims(a, 1).copy()),
    OpSpec("t_copy", lambda lib, a: lib.t_copy(a), V23, ALL, ref=lambda np_, a: a.T.copy()),
    OpSpec("transpose_copy", lambda lib, a: lib.transpose_copy(a, 0, 2), V234, ALL,
           ref=lambda np_, a: np.swapaxes(a, 0, 2).copy()),
    OpSpec("view_copy", lambda lib, a: lib.view_copy(a, (3, 2)), V23C, ALL,
           ref=lambda np_, a: a.reshape(3, 2).copy()),
    OpSpec("diagonal_copy", lambda lib, a: lib.diagonal_copy(a, 1), V23, ALL,
           ref=lambda np_, a: np.diagonal(a, 1).copy()),
    # torch's view_copy takes layouts view refuses (an expanded input), as reshape does
    OpSpec("view_copy_expanded", lambda lib, a: lib.view_copy(a, (3, 2)),
           (S("expand", E((1, 3), (2, 3))), S("t", T(2, 3))), ALL,
           ref=lambda np_, a: np.reshape(a, (3, 2)).copy()),
    OpSpec("alias_copy", lambda lib, a: lib.alias_copy(a), V23, ALL,
           ref=lambda np_, a: a.copy()),
    OpSpec("unbind_copy", lambda lib, a: lib.unbind_copy(a, 1), V23, ALL,
           ref=lambda np_, a: tuple(x.copy() for x in _unbind(a, 1))),
    OpSpec("split_copy", lambda lib, a: lib.split_copy(a, 2, 1), V23, ALL,
           ref=lambda np_, a: tuple(x.copy() for x in _split(a, 2, 1))),
    OpSpec("split_with_sizes_copy", lambda lib, a: lib.split_with_sizes_copy(a, [1, 2], 1), V23,
           ALL, ref=lambda np_, a: tuple(x.copy() for x in _split(a, [1, 2], 1))),
    OpSpec("unfold_copy", lambda lib, a: lib.unfold_copy(a, 1, 2, 1), V23, ALL,
           ref=lambda np_, a: np.lib.stride_tricks.sliding_window_view(a, 2, axis=1).copy()),
    OpSpec("as_strided_copy", lambda lib, a: lib.as_strided_copy(a, (2, 2), (1, 2), 1), V23C,
           ALL, ref=lambda np_, a: _as_strided_2x2(a)),
    # the input's gradient is left out: torch's is wrong (it keeps the written entries and
    # zeroes the rest; its own gradcheck fails), test_native_layer_functions_... pins ours
    OpSpec("as_strided_scatter", lambda lib, a, s: lib.as_strided_scatter(a, s, (2, 2), (1, 2), 1),
           (S("2x3", A(2, 3, requires_grad=False), A(2, 2)),
            S("src_t", A(2, 3, requires_grad=False), T(2, 2))), ALL,
           ref=lambda np_, a, s: _as_strided_2x2_scatter(a, s)),
    OpSpec("narrow_copy", lambda lib, a: lib.narrow_copy(a, 1, 1, 2), V23, ALL,
           ref=lambda np_, a: a[:, 1:3].copy()),
    OpSpec("Tensor.narrow_copy", lambda lib, a: a.narrow_copy(0, 0, 1), V23, ALL,
           ref=lambda np_, a: a[0:1].copy()),
    # pieces sharing the input's memory that are not views (UnsafeSplitBackward0, ...)
    OpSpec("unsafe_split", lambda lib, a: lib.unsafe_split(a, 2, 1), V23, ALL,
           ref=lambda np_, a: _split(a, 2, 1)),
    OpSpec("Tensor.unsafe_split", lambda lib, a: a.unsafe_split(1), V23, ALL,
           ref=lambda np_, a: _split(a, 1, 0)),
    OpSpec("unsafe_split_with_sizes", lambda lib, a: lib.unsafe_split_with_sizes(a, [1, 0, 2], 1),
           V23, ALL, ref=lambda np_, a: _split(a, [1, 0, 2], 1)),
    OpSpec("Tensor.unsafe_split_with_sizes", lambda lib, a: a.unsafe_split_with_sizes([2], 0),
           V23, ALL, ref=lambda np_, a: _split(a, [2], 0)),
    OpSpec("unsafe_chunk", lambda lib, a: lib.unsafe_chunk(a, 2, -1), V23, ALL,
           ref=lambda np_, a: _chunk(a, 2, -1)),
    OpSpec("Tensor.unsafe_chunk", lambda lib, a: a.unsafe_chunk(3), V23, ALL,
           ref=lambda np_, a: _chunk(a, 3, 0)),
]
