"""Shape and combination ops that torch composes from other ops: broadcasting, movedim,
the ``atleast``/``stack`` families, meshgrid, splits, ``take_along_dim``, ``diff`` and
``cosine_similarity``. Each is built from the same ops torch builds it from, so the
``grad_fn`` a user sees is torch's (``ExpandBackward0``, ``PermuteBackward0``,
``CatBackward0``, ``SliceBackward0``, ``GatherBackward0``, ``SubBackward0``, ...).

>>> import gradtrack
>>> gradtrack.movedim(gradtrack.zeros(2, 3, 4), 0, -1).shape
gradtrack.Size([3, 4, 2])
"""

import builtins
import math
import warnings

from ._dtype_names import SCALAR_NAME, dtype_key


def _wrap(dim, ndim):
    """torch's dim wrapping with its IndexError."""
    lo, hi = (-ndim, ndim - 1) if ndim else (-1, 0)
    if not lo <= dim <= hi:
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], "
                         f"but got {dim})")
    return dim % ndim if ndim else 0


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
        for i, n in enumerate(s, start=ndim - len(s)):
            if n == out[i] or n == 1:
                continue
            if out[i] != 1:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {n} at {i - ndim}! "
                    f"Mismatching argument at index {k} had {tuple(s)}; but expected shape "
                    f"should be broadcastable to {out}")
            out[i] = n
    from ._size import Size
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
    a, b = list(shape), list(t.shape)
    n = max(len(a), len(b))
    a, b = [1] * (n - len(a)) + a, [1] * (n - len(b)) + b
    out = []
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b "
                               f"({y}) at non-singleton dimension {i}")
        out.append(y if x == 1 else x)
    return tuple(out)


# ---- moving and flipping dims ------------------------------------------------------------

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
    src = [_wrap(d, n) for d in src]
    dst = [_wrap(d, n) for d in dst]
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
    d = _wrap(dim, input.dim())
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


# ---- at-least and stacking ---------------------------------------------------------------

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


def _stack_family(name, tensors, ndim, dim):
    from . import cat
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    parts = [_at_least(t, ndim) for t in tensors]
    if name == "hstack" and parts[0].dim() == 1:
        dim = 0
    return cat(parts, dim)


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


row_stack = vstack


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
    from . import cat
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("column_stack expects a non-empty TensorList")
    cols = [t.reshape(t.numel(), 1) if t.dim() <= 1 else t for t in tensors]
    return cat(cols, 1)


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


def cartesian_prod(*tensors):
    """The cartesian product of 1-D tensors, one row per combination.

    >>> import gradtrack
    >>> gradtrack.cartesian_prod(gradtrack.tensor([1, 2]), gradtrack.tensor([3, 4]))
    tensor([[1, 3],
            [1, 4],
            [2, 3],
            [2, 4]])
    """
    from . import stack
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([g.flatten() for g in grids], 1)


# ---- splitting ---------------------------------------------------------------------------

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
    d = _wrap(dim, input.dim())
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


# ---- gathering, differences, products ----------------------------------------------------

def take_along_dim(input, indices, dim=None):  # noqa: A002
    """Picks values along ``dim`` at ``indices`` (broadcast against ``input``); without
    ``dim`` both are flattened. A ``gather`` underneath.

    >>> import gradtrack
    >>> x = gradtrack.tensor([[10, 30, 20], [60, 40, 50]])
    >>> gradtrack.take_along_dim(x, x.argmax(1, keepdim=True), 1)
    tensor([[30],
            [60]])
    """
    if indices.dtype is not _long():
        raise RuntimeError("torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{_scalar_name(indices)}")
    if dim is None:
        return input.view(-1).gather(0, indices.view(-1))
    d = _wrap(dim, input.dim())
    shape_in, shape_ix = list(input.shape), list(indices.shape)
    shape_in[d] = shape_ix[d] = 1
    common = list(broadcast_shapes(shape_in, shape_ix))
    want_in, want_ix = list(common), list(common)
    want_in[d], want_ix[d] = input.shape[d], indices.shape[d]
    return input.expand(want_in).gather(d, indices.expand(want_ix))


def _long():
    from . import int64
    return int64


def _scalar_name(t):
    return SCALAR_NAME[dtype_key(t.dtype)]


def diff(input, n=1, dim=-1, prepend=None, append=None):  # noqa: A002
    """The ``n``-th forward difference along ``dim``; ``prepend``/``append`` are joined
    on first.

    >>> import gradtrack
    >>> gradtrack.diff(gradtrack.tensor([1, 4, 9, 16]))
    tensor([3, 5, 7])
    """
    from . import cat
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = _wrap(dim, input.dim())
    if prepend is not None or append is not None:
        parts = [t for t in (prepend, input, append) if t is not None]
        input = cat([p if p.dim() else p.expand(_shape_with(input, d, 1)) for p in parts], d)
    for _ in range(n):
        size = input.shape[d]
        if size == 0:
            break
        is_bool = repr(input.dtype).endswith("bool")
        a, b = input.narrow(d, 1, size - 1), input.narrow(d, 0, size - 1)
        input = a.logical_xor(b) if is_bool else a - b
    return input


def _shape_with(t, d, n):
    shape = list(t.shape)
    shape[d] = n
    return shape


def inner(input, other):  # noqa: A002
    """Sums products over the last dims of both tensors (a scalar times a tensor when
    one is 0-d).

    >>> import gradtrack
    >>> gradtrack.inner(gradtrack.tensor([1., 2.]), gradtrack.tensor([3., 4.]))
    tensor(11.)
    """
    from ._extra_ops2 import tensordot
    if input.dim() == 0 or other.dim() == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(
            "inner() the last dimension must match on both input tensors but got shapes "
            f"{list(input.shape)} and {list(other.shape)}")
    return tensordot(input, other, ([-1], [-1]))


def float_power(input, exponent):  # noqa: A002
    """``pow`` computed in double precision (the result is float64).

    >>> import gradtrack
    >>> gradtrack.float_power(gradtrack.tensor([2]), 3)
    tensor([8.], dtype=gradtrack.float64)
    """
    from . import float64, is_tensor
    base = input.to(float64) if is_tensor(input) else input
    exp = exponent.to(float64) if is_tensor(exponent) else float(exponent)
    if not is_tensor(base):
        from . import tensor
        base = tensor(float(base), dtype=float64)
    return base.pow(exp)


def positive(input):  # noqa: A002
    """Returns ``input`` itself (torch refuses bool tensors).

    >>> import gradtrack
    >>> gradtrack.positive(gradtrack.tensor([-1, 2]))
    tensor([-1,  2])
    """
    if repr(input.dtype).endswith("bool"):
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def fix(input):  # noqa: A002
    """Another name of ``trunc``."""
    return input.trunc()


def detach(input):  # noqa: A002
    """``input.detach()`` as a function."""
    return input.detach()


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """Cosine of the angle between ``x1`` and ``x2`` along ``dim`` (broadcast), each norm
    clamped below at ``eps``.

    >>> import gradtrack
    >>> gradtrack.cosine_similarity(gradtrack.tensor([[1., 0.]]), gradtrack.tensor([[1., 1.]]))
    tensor([0.7071])
    """
    from .linalg import vector_norm
    from .autograd import no_grad
    a, b = broadcast_tensors(x1, x2)
    na = vector_norm(a, 2, dim, keepdim=True).clone()
    nb = vector_norm(b, 2, dim, keepdim=True).clone()
    with no_grad():  # torch clamps copies of the norms in place, outside the graph
        na.clamp_min_(eps)
        nb.clamp_min_(eps)
    return ((a / na) * (b / nb)).sum(dim)


FUNCTIONS = (broadcast_shapes, broadcast_to, broadcast_tensors, movedim, moveaxis, swapdims,
             fliplr, flipud, ravel, atleast_1d, atleast_2d, atleast_3d, hstack, vstack,
             row_stack, dstack, column_stack, meshgrid, cartesian_prod, tensor_split, hsplit,
             vsplit, dsplit, take_along_dim, diff, inner, float_power, positive, fix, detach,
             cosine_similarity)

METHODS = (broadcast_to, movedim, moveaxis, swapdims, fliplr, flipud, ravel, unflatten,
           tensor_split, hsplit, vsplit, dsplit, take_along_dim, diff, inner, float_power,
           positive, fix)


def _where_method(self, condition, other):
    from . import where
    return where(condition, self, other)


def install(cls):
    """Attaches the Tensor methods (``x.movedim(...)``, ``x.diff()``, ``x.where(c, y)``)."""
    from ._extra_ops import _method
    for fn in METHODS:
        setattr(cls, fn.__name__, _method(fn))
    _where_method.__name__ = "where"
    _where_method.__doc__ = "``torch.where(condition, self, other)``."
    cls.where = _where_method
