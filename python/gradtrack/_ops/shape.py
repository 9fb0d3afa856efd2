"""Ops that copy elements into a new arrangement: triangles (``tril``/``triu``),
flips and rolls, repeats (``tile``, ``Tensor.repeat``, ``repeat_interleave``),
diagonal matrices (``diag``, ``diag_embed``) and the joins (the ``hstack`` family,
``cartesian_prod``).

The word is the op declarations' (``_declarations/shape.py``): the result owns its
storage, unlike the views of ``views.py``. ``cat``, ``stack`` and ``clone`` are bound
in C++ as they are; the others parse torch's arguments here and call one C++ entry
(``_C._ops``) or compose the ops torch composes, so the ``grad_fn`` a user sees is
torch's (``RepeatBackward0`` for ``tile``, ``CatBackward0`` for ``hstack``, ...).

>>> import gradtrack
>>> gradtrack.tril(gradtrack.ones(2, 2))
tensor([[1., 0.],
        [1., 1.]])
"""

import builtins

from .. import _C, _inplace
from ..autograd._named_nodes import composite_node
from . import methods, wrap_dim
from .views import _at_least, meshgrid

_E = _C._ops

BOUND = ("cat", "concat", "stack", "clone")


def _dims(dims):
    """``f(0, 1)``, ``f((0, 1))`` and ``f([0, 1])`` alike."""
    if len(dims) == 1 and not isinstance(dims[0], builtins.int):
        return tuple(dims[0])
    return tuple(dims)


# ---- triangles, flips, rolls ------------------------------------------------------------

def tril(input, diagonal=0):  # noqa: A002
    """The lower triangle (on and below ``diagonal``) of the last two dims.

    >>> import gradtrack
    >>> gradtrack.tril(gradtrack.ones(2, 2))
    tensor([[1., 0.],
            [1., 1.]])
    """
    return _E.tril(input, diagonal, False)


def triu(input, diagonal=0):  # noqa: A002
    """The upper triangle (on and above ``diagonal``) of the last two dims.

    >>> import gradtrack
    >>> gradtrack.triu(gradtrack.ones(2, 2))
    tensor([[1., 1.],
            [0., 1.]])
    """
    return _E.tril(input, diagonal, True)


def _tril_(self, diagonal=0):
    _inplace.check(self)
    return _E.tril_(self, diagonal, False)


def _triu_(self, diagonal=0):
    _inplace.check(self)
    return _E.tril_(self, diagonal, True)


def flip(input, dims):  # noqa: A002
    """``input`` reversed along ``dims`` (a copy).

    >>> import gradtrack
    >>> gradtrack.flip(gradtrack.tensor([1, 2, 3]), (0,))
    tensor([3, 2, 1])
    """
    return _E.flip(input, dims)


def _flip_method(self, *dims):
    return _E.flip(self, _dims(dims))


def fliplr(input):  # noqa: A002
    """Flips the columns (dim 1).

    >>> import gradtrack
    >>> gradtrack.fliplr(gradtrack.tensor([[1, 2], [3, 4]]))
    tensor([[2, 1],
            [4, 3]])
    """
    if input.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return input.flip(1)


def flipud(input):  # noqa: A002
    """Flips the rows (dim 0)."""
    if input.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return input.flip(0)


def roll(input, shifts, dims=None):  # noqa: A002
    """Elements shifted along ``dims`` (of the flattened tensor without dims),
    wrapping around.

    >>> import gradtrack
    >>> gradtrack.roll(gradtrack.tensor([1, 2, 3]), 1)
    tensor([3, 1, 2])
    """
    return _E.roll(input, shifts, () if dims is None else dims)


# ---- repeats ----------------------------------------------------------------------------

def tile(input, dims):  # noqa: A002
    """``input`` repeated ``dims`` times along each dim; missing leading dims
    of ``dims`` count as 1 (RepeatBackward0, as torch's).

    >>> import gradtrack
    >>> gradtrack.tile(gradtrack.tensor([1, 2]), (2,))
    tensor([1, 2, 1, 2])
    """
    dims = tuple(dims) if not isinstance(dims, builtins.int) else (dims,)
    if len(dims) < input.dim():
        dims = (1,) * (input.dim() - len(dims)) + dims
    return _E.repeat(input, dims)


def _repeat_method(self, *repeats):
    if not repeats:
        raise TypeError('repeat() missing 1 required positional arguments: "repeats"')
    return _E.repeat(self, _dims(repeats))


def _tile_method(self, *dims):
    return tile(self, _dims(dims))


def _repeat_index(repeats):
    """[0, 0, 1, 2, 2, ...]: each position i repeated repeats[i] times."""
    if repeats.dim() != 1 or repeats.dtype not in (_C.int64, _C.int32):
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    if repeats.numel() and builtins.bool((repeats < 0).any()):
        raise RuntimeError("repeats can not be negative")
    repeats = repeats.long()
    total = builtins.int(repeats.sum()) if repeats.numel() else 0
    marks = _C.zeros(total + 1, dtype=_C.int64)
    if repeats.numel() > 1:
        marks.scatter_add_(0, repeats.cumsum(0)[:-1], _C.ones(repeats.numel() - 1, dtype=_C.int64))
    return marks.cumsum(0)[:total]


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):  # noqa: A002
    """Each element (or slice along ``dim``) repeated ``repeats`` times in place;
    with one int tensor argument, its positions repeated by its values.

    >>> import gradtrack
    >>> gradtrack.tensor([1, 2]).repeat_interleave(2)
    tensor([1, 1, 2, 2])
    """
    from ..autograd.grad_mode import no_grad
    if repeats is None:
        with no_grad():
            return _repeat_index(input)
    if dim is None:
        input, dim = input.reshape(-1), 0
    dim = dim % builtins.max(input.dim(), 1)
    if isinstance(repeats, _C.Tensor) and repeats.numel() == 1 and repeats.dim() <= 1:
        repeats = builtins.int(repeats)
    if isinstance(repeats, builtins.int):
        if repeats < 0:
            raise RuntimeError("Repeats must be non-negative")
        sizes = list(input.shape)
        wide = input.unsqueeze(dim + 1).expand(*sizes[:dim + 1], repeats, *sizes[dim + 1:])
        return wide.contiguous().flatten(dim, dim + 1)
    if repeats.numel() != input.shape[dim]:
        raise RuntimeError(
            "repeats must have the same size as input along dim, but got repeats.size(0) = "
            f"{repeats.numel()} and input.size({dim}) = {input.shape[dim]}")
    with no_grad():
        index = _repeat_index(repeats)
    return input.index_select(dim, index)


# ---- diagonal matrices ------------------------------------------------------------------

def diag_embed(input, offset=0, dim1=-2, dim2=-1):  # noqa: A002
    """Zeros with the last dim of ``input`` on the diagonal of ``dim1``, ``dim2``.

    >>> import gradtrack
    >>> gradtrack.diag_embed(gradtrack.tensor([1., 2.]))
    tensor([[1., 0.],
            [0., 2.]])
    """
    return _E.diag_embed(input, offset, dim1, dim2)


def diag(input, diagonal=0):  # noqa: A002
    """A matrix with the 1-D ``input`` on a diagonal, or a 2-D input's diagonal (a copy).

    >>> import gradtrack
    >>> gradtrack.diag(gradtrack.tensor([[1, 2], [3, 4]]))
    tensor([1, 4])
    """
    if input.dim() == 1:
        return _E.diag_embed(input, diagonal, 0, 1)
    if input.dim() == 2:
        return _E.diagonal(input, diagonal, 0, 1, True)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.dim()}D")


# ---- joins ------------------------------------------------------------------------------

def _stack_family(name, tensors, ndim, dim):
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    parts = [_at_least(t, ndim) for t in tensors]
    if name == "hstack" and parts[0].dim() == 1:
        dim = 0
    return _C.cat(parts, dim)


def hstack(tensors):
    """Concatenates along dim 1 (dim 0 for 1-D tensors).

    >>> import gradtrack
    >>> gradtrack.hstack([gradtrack.tensor([1, 2]), gradtrack.tensor([3])])
    tensor([1, 2, 3])
    """
    return _stack_family("hstack", tensors, 1, 1)


def vstack(tensors):
    """Concatenates along dim 0 after making each tensor at least 2-D.

    >>> import gradtrack
    >>> gradtrack.vstack([gradtrack.tensor([1, 2]), gradtrack.tensor([3, 4])])
    tensor([[1, 2],
            [3, 4]])
    """
    return _stack_family("vstack", tensors, 2, 0)


def dstack(tensors):
    """Concatenates along dim 2 after making each tensor at least 3-D."""
    return _stack_family("dstack", tensors, 3, 2)


def column_stack(tensors):
    """Stacks 0-d and 1-D tensors as columns (2-D tensors as they are) along dim 1.

    >>> import gradtrack
    >>> gradtrack.column_stack([gradtrack.tensor([1, 2]), gradtrack.tensor([3, 4])])
    tensor([[1, 3],
            [2, 4]])
    """
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("column_stack expects a non-empty TensorList")
    cols = [t.reshape(t.numel(), 1) if t.dim() <= 1 else t for t in tensors]
    return _C.cat(cols, 1)


def cartesian_prod(*tensors):
    """The cartesian product of 1-D tensors, one row per combination.

    >>> import gradtrack
    >>> gradtrack.cartesian_prod(gradtrack.tensor([1, 2]), gradtrack.tensor([3, 4]))
    tensor([[1, 3],
            [1, 4],
            [2, 3],
            [2, 4]])
    """
    for t in tensors:
        if t.dim() != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return _C.stack([g.flatten() for g in grids], 1)


def diagflat(input, offset=0):  # noqa: A002
    """A matrix with the flattened ``input`` on its ``offset``-th diagonal.

    >>> import gradtrack
    >>> gradtrack.diagflat(gradtrack.tensor([[1, 2], [3, 4]]), 1).shape
    gradtrack.Size([5, 5])
    """
    # torch flattens, then embeds (DiagEmbedBackward0)
    return _E.diag_embed(input.contiguous().view(-1), offset, 0, 1)


def combinations(input, r=2, with_replacement=False):  # noqa: A002
    """The length-``r`` combinations of the elements of the 1-D ``input``, one per row,
    in lexicographic order of positions (``itertools.combinations``).

    >>> import gradtrack
    >>> gradtrack.combinations(gradtrack.tensor([1, 2, 3]))
    tensor([[1, 2],
            [1, 3],
            [2, 3]])
    """
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return _C.empty(0, dtype=input.dtype)
    # torch's composite: an r-dim grid of the input, the positions whose indices rise
    # (or do not fall, with replacement) selected from each, stacked as columns
    n = input.numel()
    grids = meshgrid(*([input] * r), indexing="ij")
    mask = _C.ones([n] * r, dtype=_C.bool)
    index = _C.arange(n)
    for d in range(r - 1):
        shape_a, shape_b = [1] * r, [1] * r
        shape_a[d], shape_b[d + 1] = n, n
        a, b = index.view(shape_a), index.view(shape_b)
        mask = mask.logical_and(a.le(b) if with_replacement else a.lt(b))
    return _C.stack([g.masked_select(mask) for g in grids], 1)


# ---- rotations, block matrices, products of all pairs, powers ------------------------------

def _rot90(input, k, dims):  # noqa: A002
    d0, d1 = dims
    if k == 1:
        return input.flip((d1,)).transpose(d0, d1)
    if k == 2:
        return input.flip((d0, d1))
    if k == 3:
        return input.flip((d0,)).transpose(d0, d1)
    return input.clone()


_rot90_node = composite_node("Rot90Backward0", _rot90, linear=True)


def rot90(input, k=1, dims=(0, 1)):  # noqa: A002
    """``input`` rotated by 90 degrees ``k`` times in the plane of ``dims``, from the
    first dim towards the second (a copy; ``Rot90Backward0``, as torch's).

    >>> import gradtrack
    >>> gradtrack.rot90(gradtrack.tensor([[1, 2], [3, 4]]))
    tensor([[2, 4],
            [1, 3]])
    """
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.dim() < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.dim()}")
    d0, d1 = wrap_dim(dims[0], input.dim()), wrap_dim(dims[1], input.dim())
    if d0 == d1:
        raise RuntimeError("expected rotation dims to be different, but got dim0 = "
                           f"{dims[0]} and dim1 = {dims[1]}")
    return _rot90_node(input, k % 4, (d0, d1))


def _block_diag(*tensors):
    # joined from zero blocks rather than written into zeros: a fresh result (_version 0)
    mats = [t.reshape(1, -1) if t.dim() < 2 else t for t in tensors]
    dtype = mats[0].dtype
    for m in mats[1:]:
        dtype = _C._promote_types(dtype, m.dtype)
    cols = builtins.sum(m.shape[1] for m in mats)
    rows, c = [], 0
    for m in mats:
        h, w = m.shape
        rows.append(_C.cat([_C.zeros(h, c, dtype=dtype), m.to(dtype),
                            _C.zeros(h, cols - c - w, dtype=dtype)], 1))
        c += w
    return _C.cat(rows, 0)


def block_diag(*tensors):
    """The tensors (0-D, 1-D as a row, or 2-D) as the blocks of a block-diagonal matrix,
    of their promoted dtype (``BlockDiagBackward0``, as torch's).

    >>> import gradtrack
    >>> gradtrack.block_diag(gradtrack.tensor([[1, 2]]), gradtrack.tensor(3))
    tensor([[1, 2, 0],
            [0, 0, 3]])
    """
    for i, t in enumerate(tensors):
        if not isinstance(t, _C.Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(t).__name__}")
        if t.dim() > 2:
            raise RuntimeError("torch.block_diag: Input tensors must have 2 or fewer "
                               f"dimensions. Input {i} has {t.dim()} dimensions")
    if not tensors:
        return _C.empty(1, 0)
    floats = [i for i, t in enumerate(tensors) if t.is_floating_point()]
    # the node differentiates the floating blocks; the others ride along as constants
    order = floats + [i for i in range(len(tensors)) if i not in floats]

    def compute(*parts):
        placed = [None] * len(parts)
        for i, t in zip(order, parts):
            placed[i] = t
        return _block_diag(*placed)
    node = composite_node("BlockDiagBackward0", compute, differentiable=len(floats),
                          linear=True)
    return node(*[tensors[i] for i in order])


def kron(input, other):  # noqa: A002
    """The Kronecker product: every element of ``input`` times the whole of ``other``,
    laid out block by block (torch's composite: views, a broadcast product, a view).

    >>> import gradtrack
    >>> gradtrack.kron(gradtrack.tensor([1, 2]), gradtrack.tensor([1, 10]))
    tensor([ 1, 10,  2, 20])
    """
    nd = builtins.max(input.dim(), other.dim())
    a = [1] * (nd - input.dim()) + list(input.shape)
    b = [1] * (nd - other.dim()) + list(other.shape)
    a_shape = [n for size in a for n in (size, 1)]
    b_shape = [n for size in b for n in (1, size)]
    product = _E.unsafe_view(input, a_shape) * _E.unsafe_view(other, b_shape)
    return _E.unsafe_view(product, [i * j for i, j in zip(a, b)])


def vander(x, N=None, increasing=False):  # noqa: N803 - torch's argument name
    """The Vandermonde matrix of the 1-D ``x``: column j is ``x ** (N - 1 - j)`` (``x ** j``
    when ``increasing``), of dtype int64 for integer input.

    >>> import gradtrack
    >>> gradtrack.vander(gradtrack.tensor([1, 2, 3]), N=3)
    tensor([[1, 1, 1],
            [4, 2, 1],
            [9, 3, 1]])
    """
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    # torch's composite: ones, the powers written in place as a running product of the
    # columns after the first, then flipped for decreasing powers
    result = _C.empty(x.shape[0], n, dtype=_C._promote_types(x.dtype, _C.int64))
    if n > 0:
        result.fill_(1)
        if n > 1:
            result[:, 1:].copy_(x.unsqueeze(1))
            result[:, 1:].copy_(result[:, 1:].cumprod(1))
    return result if increasing else result.flip((1,))


# The methods' own parameters (``x.repeat(2, 1)``), under the methods' names.
_repeat_method.__name__, _flip_method.__name__, _tile_method.__name__ = "repeat", "flip", "tile"
_tril_.__name__, _triu_.__name__ = "tril_", "triu_"

def concatenate(tensors, dim=0):
    """The tensors joined along ``dim``: NumPy's name of :func:`cat` (torch's parser also
    reads NumPy's ``axis=``, which gradtrack does not).

    >>> import gradtrack
    >>> gradtrack.concatenate([gradtrack.tensor([1, 2]), gradtrack.tensor([3])])
    tensor([1, 2, 3])
    """
    return _C.cat(tensors, dim)


FUNCTIONS = (concatenate, tril, triu, flip, fliplr, flipud, roll, tile, repeat_interleave, diag_embed, diag,
             hstack, vstack, dstack, column_stack, cartesian_prod, diagflat, combinations, rot90,
             block_diag, kron, vander)
ALIASES = {"row_stack": "vstack"}
METHODS = {**methods(tril, triu, roll, fliplr, flipud, repeat_interleave, diag_embed, diag,
                     diagflat, rot90, kron),
           "repeat": _repeat_method, "flip": _flip_method, "tile": _tile_method,
           "tril_": _tril_, "triu_": _triu_}
