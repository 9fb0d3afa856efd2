"""Ops whose result shares its input's storage, composed the way torch composes them:
broadcasting (``broadcast_to``/``broadcast_tensors`` are expand views,
``broadcast_shapes`` the shape they expand to), moving dims (``movedim``,
``swapdims``), ``ravel``/``unflatten``, the ``atleast`` family, ``meshgrid`` (expanded
views), the splits and ``diagonal``.

The word is the op declarations' (``_declarations/views.py``): a view op records a
view node and a write through the result is a write to its base, which is why the
splits and ``meshgrid`` live here rather than with the joins in ``shape.py``. Each is
built from the ops torch builds it from, so the ``grad_fn`` a user sees is torch's
(``ExpandBackward0``, ``PermuteBackward0``, ``SliceBackward0``, ...). The views bound in
C++ (``reshape``, ``permute``, ``transpose``, ``narrow``, ``select``, ...) are taken
as they are.

>>> import gradtrack
>>> gradtrack.movedim(gradtrack.zeros(2, 3, 4), 0, -1).shape
gradtrack.Size([3, 4, 2])
"""

import builtins
import math
import warnings

from .. import _C
from .._size import Size
from . import methods, wrap_dim

_E = _C._ops

BOUND = ("reshape", "flatten", "permute", "t", "transpose", "swapaxes", "squeeze", "unsqueeze",
         "narrow", "select", "as_strided", "chunk", "unbind")


def _dims(d):
    return [d] if isinstance(d, builtins.int) else list(d)


# ---- broadcasting ------------------------------------------------------------------------

def broadcast_shapes(*shapes):
    """The shape that tensors of ``shapes`` broadcast to.

    >>> import gradtrack
    >>> gradtrack.broadcast_shapes((3, 1), (4,))
    gradtrack.Size([3, 4])
    """
    sizes = [[s] if isinstance(s, builtins.int) else list(s) for s in shapes]
    ndim = max((len(s) for s in sizes), default=0)
    out = [1] * ndim
    for k, s in enumerate(sizes):
        # last dim first, as torch's: a mismatch is reported before the dims to its
        # left have joined the common shape
        for i in range(ndim - 1, ndim - 1 - len(s), -1):
            n = s[i - ndim]
            if n == out[i] or n == 1:
                continue
            if out[i] != 1:
                given = (shapes[k],) if isinstance(shapes[k], builtins.int) else shapes[k]
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {n} at {i - ndim}! "
                    f"Mismatching argument at index {k} had {given}; but expected shape "
                    f"should be broadcastable to {out}")
            out[i] = n
    return Size(out)


def broadcast_to(input, size):  # noqa: A002 - torch's argument name
    """``input.expand(size)``: a view with ``size`` (no copy).

    >>> import gradtrack
    >>> gradtrack.broadcast_to(gradtrack.tensor([1, 2]), (2, 2))
    tensor([[1, 2],
            [1, 2]])
    """
    return input.expand(size)


def broadcast_tensors(*tensors):
    """Views of ``tensors`` expanded to their common shape.

    >>> import gradtrack
    >>> a, b = gradtrack.broadcast_tensors(gradtrack.zeros(2, 1), gradtrack.ones(3))
    >>> a.shape, b.shape
    (gradtrack.Size([2, 3]), gradtrack.Size([2, 3]))
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shape = tuple(tensors[0].shape)
    for t in tensors[1:]:
        shape = _broadcast2(shape, t)
    # torch returns the input itself where no expansion is needed (no grad_fn added)
    return tuple(t if tuple(t.shape) == tuple(shape) else t.expand(shape) for t in tensors)


def _broadcast2(shape, t):
    return _broadcast_pair(tuple(shape), tuple(t.shape))


def _broadcast_pair(a, b):
    """The broadcast of shapes a and b (tuples), with torch's message where they clash
    (torch compares from the last dim, so the rightmost clash is the one named)."""
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    for i in reversed(range(n)):
        x, y = a[i], b[i]
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b "
                               f"({y}) at non-singleton dimension {i}")
    return tuple(y if x == 1 else x for x, y in zip(a, b))


# ---- moving and reshaping dims ----------------------------------------------------------

def movedim(input, source, destination):  # noqa: A002
    """Moves the dims ``source`` to the positions ``destination``; the others keep their
    order (a permute view).

    >>> import gradtrack
    >>> gradtrack.movedim(gradtrack.zeros(2, 3, 4), (0, 1), (2, 0)).shape
    gradtrack.Size([3, 4, 2])
    """
    src, dst = _dims(source), _dims(destination)
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({src} dims) should contain "
            f"the same number of dims as destination ({dst} dims)")
    n = input.dim()
    src = [wrap_dim(d, n) for d in src]
    dst = [wrap_dim(d, n) for d in dst]
    for name, ds in (("source", src), ("destination", dst)):
        if len(set(ds)) != len(ds):
            given = _dims(source if name == "source" else destination)
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({given})")
    order = [None] * n
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(n) if d not in src)
    order = [next(rest) if o is None else o for o in order]
    return input.permute(order)


def moveaxis(input, source, destination):  # noqa: A002
    """Another name of ``movedim``."""
    return movedim(input, source, destination)


def swapdims(input, dim0, dim1):  # noqa: A002
    """Another name of ``transpose``."""
    return input.transpose(dim0, dim1)


def ravel(input):  # noqa: A002
    """A 1-D view of ``input`` when it is contiguous, else a 1-D copy.

    >>> import gradtrack
    >>> gradtrack.ravel(gradtrack.tensor([[1, 2], [3, 4]]).t())
    tensor([1, 3, 2, 4])
    """
    return input.contiguous().view(-1)


def unflatten(input, dim, sizes):  # noqa: A002
    """Splits dim ``dim`` into ``sizes`` (one of them may be -1), as a view.

    >>> import gradtrack
    >>> gradtrack.zeros(2, 6).unflatten(1, (3, -1)).shape
    gradtrack.Size([2, 3, 2])
    """
    d = wrap_dim(dim, input.dim())
    sizes = list(sizes)
    n = input.shape[d]
    known = math.prod(s for s in sizes if s != -1)
    if -1 in sizes and known and n % known == 0:
        sizes[sizes.index(-1)] = n // known
    if math.prod(sizes) != n:
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the "
                           f"size of dim {dim} ({n}) in the input tensor")
    shape = list(input.shape[:d]) + sizes + list(input.shape[d + 1:])
    return input.view(shape)


def _each(fn, tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(fn(t) for t in tensors[0])
    if len(tensors) == 1:
        return fn(tensors[0])
    return tuple(fn(t) for t in tensors)


def _at_least(t, ndim):
    if t.dim() == 0:
        return t.reshape((1,) * ndim)
    if ndim >= 2 and t.dim() == 1:
        t = t.unsqueeze(0)
    if ndim == 3 and t.dim() == 2:
        t = t.unsqueeze(-1)
    return t


def atleast_1d(*tensors):
    """Each tensor as at least 1-D (0-d tensors become shape ``(1,)``).

    >>> import gradtrack
    >>> gradtrack.atleast_1d(gradtrack.tensor(5))
    tensor([5])
    """
    return _each(lambda t: _at_least(t, 1), tensors)


def atleast_2d(*tensors):
    """Each tensor as at least 2-D (a leading dim of size 1 added)."""
    return _each(lambda t: _at_least(t, 2), tensors)


def atleast_3d(*tensors):
    """Each tensor as at least 3-D (as torch: ``(n,)`` -> ``(1, n, 1)``, ``(a, b)`` ->
    ``(a, b, 1)``)."""
    return _each(lambda t: _at_least(t, 3), tensors)


def meshgrid(*tensors, indexing=None):
    """Coordinate grids from 1-D tensors, as expanded views (``indexing='ij'`` or
    ``'xy'``; without it torch warns and uses ``'ij'``).

    >>> import gradtrack
    >>> xs, ys = gradtrack.meshgrid(gradtrack.tensor([1, 2]), gradtrack.tensor([5, 6, 7]),
    ...                             indexing="ij")
    >>> ys
    tensor([[5, 6, 7],
            [5, 6, 7]])
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the "
                      "indexing argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    # torch's order of checks: the list, the dtypes, ``indexing``, then each tensor's dims
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    if any(t.dtype != tensors[0].dtype for t in tensors[1:]):
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but '
                           f"received: {indexing}")
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError("torch.meshgrid: Expected 0D or 1D tensor in the tensor list "
                               f"but got: {t}")
    # 'xy' is 'ij' with the first two inputs (and outputs) swapped
    swap = indexing == "xy" and len(tensors) >= 2
    ts = list(tensors)
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = [t.numel() for t in ts]
    grids = []
    for i, t in enumerate(ts):
        view = [1] * len(ts)
        view[i] = -1
        grids.append(t.view(view).expand(shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


# ---- splitting ---------------------------------------------------------------------------

def _checked_split(input, split_size_or_sizes, dim):  # noqa: A002
    # torch's checks that the C++ split leaves to its caller: a 0-d input has no dim to
    # split, and a negative size would make a piece of negative length
    if input.dim() == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    if isinstance(split_size_or_sizes, (list, tuple)):
        input.size(dim)  # an invalid dim raises first, as in torch
        sizes = list(split_size_or_sizes)
        if any(not isinstance(s, bool) and isinstance(s, int) and s < 0 for s in sizes):
            raise RuntimeError("split_with_sizes expects split_sizes have only non-negative "
                               f"entries, but got split_sizes={sizes}")
    return _cxx_split(input, split_size_or_sizes, dim)


def split(tensor, split_size_or_sections, dim=0):
    """Splits ``tensor`` into chunks of ``split_size_or_sections`` (a size or a list of sizes)."""
    return _checked_split(tensor, split_size_or_sections, dim)


# Tensor.split with torch's parameter names (split_size, dim): the C++ binding's are others.
_cxx_split = _C.Tensor.split
_split_method = lambda self, split_size, dim=0: _checked_split(self, split_size, dim)  # noqa: E731
_split_method.__name__ = "split"


def split_with_sizes(input, split_sizes, dim=0):  # noqa: A002
    """Views of ``input`` along ``dim`` of the given sizes, which must add up to its length.

    >>> import gradtrack
    >>> [t.tolist() for t in gradtrack.split_with_sizes(gradtrack.arange(5), [2, 3])]
    [[0, 1], [2, 3, 4]]
    """
    return _checked_split(input, list(split_sizes), dim)


def _matrix_transpose(name, batches_too):
    """``Tensor.mH``, ``Tensor.H`` and ``adjoint``: the conjugate transpose, which for
    real tensors is the transpose of the last two dims (TransposeBackward0)."""
    def op(input):  # noqa: A002
        if batches_too and input.dim() < 2:
            raise RuntimeError(f"tensor.{name} is only supported on matrices or batches of "
                               f"matrices. Got {input.dim()}-D tensor.")
        if not batches_too and input.dim() != 2:
            if input.dim() == 0:
                warnings.warn("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().",
                              UserWarning, stacklevel=2)
                return input
            raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got "
                               f"{input.dim()}-D tensor."
                               + (" For batches of matrices, consider using tensor.mH"
                                  if input.dim() > 2 else ""))
        return _C.Tensor.transpose(input, -2, -1)
    return op


def adjoint(input):  # noqa: A002
    """The conjugate transpose of the last two dims, a view (for real tensors the
    transpose).

    >>> import gradtrack
    >>> gradtrack.adjoint(gradtrack.tensor([[1, 2], [3, 4]]))
    tensor([[1, 3],
            [2, 4]])
    """
    return _adjoint(input)


_adjoint = _matrix_transpose("adjoint()", True)


def tensor_split(input, sections=None, dim=0, *, indices=None,  # noqa: A002
                 tensor_indices_or_sections=None):
    """Splits into ``n`` nearly equal parts (the first ``size % n`` one longer), or at the
    given indices; every part is a view.

    >>> import gradtrack
    >>> [t.tolist() for t in gradtrack.tensor_split(gradtrack.arange(5), 2)]
    [[0, 1, 2], [3, 4]]
    """
    # torch's three overloads: a section count, a list of indices, or a tensor of either
    indices_or_sections = _one_of(sections, indices, tensor_indices_or_sections)
    if hasattr(indices_or_sections, "tolist"):
        indices_or_sections = indices_or_sections.tolist()
    d = wrap_dim(dim, input.dim())
    size = input.shape[d]
    if isinstance(indices_or_sections, builtins.int):
        n = indices_or_sections
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        base, extra = divmod(size, n)
        bounds, start = [], 0
        for k in range(n - 1):
            start += base + (1 if k < extra else 0)
            bounds.append(start)
    else:
        bounds = [int(i) for i in indices_or_sections]
    parts, start = [], 0
    for stop in bounds + [size]:
        lo = min(max(start, 0), size)
        hi = min(max(stop, lo), size)
        parts.append(_slice(input, d, lo, hi))
        start = stop
    return tuple(parts)


def _one_of(*given):
    values = [g for g in given if g is not None]
    if len(values) != 1:
        raise TypeError("tensor_split() expects one of sections, indices or "
                        "tensor_indices_or_sections")
    return values[0]


def _slice(t, d, lo, hi):
    index = [slice(None)] * d + [slice(lo, hi)]
    return t[tuple(index)]


def _split_named(name, input, sections, dim, min_dim):  # noqa: A002 - torch's name
    if input.dim() < min_dim:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dim} dimension, "
                           f"but got a tensor with {input.dim()} dimensions!")
    if isinstance(sections, builtins.int):
        size = input.shape[dim]
        if sections == 0 or size % sections:
            raise RuntimeError(
                f"torch.{name} attempted to split along dimension {dim}, but the size of the "
                f"dimension {size} is not divisible by the split_size {sections}!")
    return tensor_split(input, sections, dim)


def hsplit(input, sections=None, *, indices=None):  # noqa: A002
    """``tensor_split`` along dim 1 (dim 0 for 1-D tensors); a section count must divide
    the size."""
    dim = 0 if input.dim() == 1 else 1
    return _split_named("hsplit", input, _one_of(sections, indices), dim, 1)


def vsplit(input, sections=None, *, indices=None):  # noqa: A002
    """``tensor_split`` along dim 0 of a tensor with at least 2 dims."""
    return _split_named("vsplit", input, _one_of(sections, indices), 0, 2)


def dsplit(input, sections=None, *, indices=None):  # noqa: A002
    """``tensor_split`` along dim 2 of a tensor with at least 3 dims."""
    return _split_named("dsplit", input, _one_of(sections, indices), 2, 3)


# ---- diagonals and aliases -------------------------------------------------------------

def diagonal(input, offset=0, dim1=0, dim2=1):  # noqa: A002
    """A view of the diagonal ``offset`` of the dims ``dim1``, ``dim2``
    (which move to the end).

    >>> import gradtrack
    >>> gradtrack.diagonal(gradtrack.eye(2))
    tensor([1., 1.])
    """
    return _E.diagonal(input, offset, dim1, dim2, False)


def detach(input):  # noqa: A002
    """``input.detach()`` as a function."""
    return input.detach()


_MH_DOC = """The conjugate transpose of the last two dims (a view; for real tensors the
transpose).

>>> import gradtrack
>>> gradtrack.tensor([[1, 2], [3, 4]]).mH
tensor([[1, 3],
        [2, 4]])
"""
_H_DOC = """The conjugate transpose of a matrix (a view; for real tensors the transpose).

>>> import gradtrack
>>> gradtrack.tensor([[1, 2], [3, 4]]).H
tensor([[1, 3],
        [2, 4]])
"""

FUNCTIONS = (broadcast_shapes, broadcast_to, broadcast_tensors, movedim, moveaxis, swapdims, ravel,
             atleast_1d, atleast_2d, atleast_3d, meshgrid, split, tensor_split, hsplit, vsplit,
             dsplit, diagonal, detach, split_with_sizes, adjoint, unflatten)
METHODS = {**methods(broadcast_to, movedim, moveaxis, swapdims, ravel, unflatten, tensor_split,
                     hsplit, vsplit, dsplit, diagonal, split_with_sizes, adjoint),
           "split": _split_method,
           "mH": property(_matrix_transpose("mH", True), doc=_MH_DOC),
           "H": property(_matrix_transpose("H", False), doc=_H_DOC)}
