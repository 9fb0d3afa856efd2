"""Selecting elements by index or by value: ``nonzero``/``argwhere`` (the C++ op
``_C._ops.nonzero`` finds the rows), ``take_along_dim`` (a ``gather`` underneath, as
torch's) and ``Tensor.where``. ``gather`` (``sparse_grad=`` checked here), ``scatter``, ``index_select``,
``masked_fill``, ``masked_select`` and ``where`` are bound in C++ as they are;
``gradtrack.scatter`` given ``reduce=`` runs ``scatter_with_reduce.scatter``.

>>> import gradtrack
>>> gradtrack.nonzero(gradtrack.tensor([[0, 3], [5, 0]]))
tensor([[0, 1],
        [1, 0]])
"""

import builtins

from .. import _C
from .._dtype_names import SCALAR_NAME, dtype_key
from ..autograd.function import Function
from ..autograd._named_nodes import ZeroGradient, _has_tangent, composite_node, named_node
from .._wrappers import fast_path
from . import methods, number, wrap_dim
from . import scatter_with_reduce
from .views import _broadcast_pair

BOUND = ("scatter_add", "index_select", "masked_fill", "masked_select", "where")


def nonzero(input, *, as_tuple=False):  # noqa: A002 - torch's argument name
    """The indices of the nonzero elements: one row per element, or with
    ``as_tuple=True`` one 1-D tensor per dim (a 0-d input counts as 1-D).

    >>> import gradtrack
    >>> gradtrack.nonzero(gradtrack.tensor([0.0, 2.0, 1.0]), as_tuple=True)
    (tensor([1, 2]),)
    """
    rows = _C._ops.nonzero(input)
    if not as_tuple:
        return rows
    if input.dim() == 0:  # torch answers as for the 1-element 1-D tensor
        return (_C._ops.nonzero(input.reshape(1)).reshape(-1),)
    return tuple(rows[:, k] for k in range(input.dim()))


def argwhere(input):  # noqa: A002
    """``nonzero(input)``: one row of indices per nonzero element.

    >>> import gradtrack
    >>> gradtrack.argwhere(gradtrack.tensor([1, 0, 7]))
    tensor([[0],
            [2]])
    """
    return _C._ops.nonzero(input)


def take_along_dim(input, indices, dim=None):  # noqa: A002
    """Picks values along ``dim`` at ``indices`` (broadcast against ``input``); without
    ``dim`` both are flattened. A ``gather`` underneath.

    >>> import gradtrack
    >>> x = gradtrack.tensor([[10, 30, 20], [60, 40, 50]])
    >>> gradtrack.take_along_dim(x, x.argmax(1, keepdim=True), 1)
    tensor([[30],
            [60]])
    """
    if dim is None:  # (gather checks the index dtype)
        return input.view(-1).gather(0, indices.view(-1))
    if input.dim() != indices.dim():
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same "
                           f"number of dimensions, but got {input.dim()} dimensions for input, "
                           f"and {indices.dim()} dimensions for indices")
    if indices.dtype is not _C.int64:
        raise RuntimeError("torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{_scalar_name(indices)}")
    d = wrap_dim(dim, input.dim())
    shape_in = list(input.shape)
    shape_in[d] = indices.shape[d]
    common = list(_broadcast_pair(tuple(shape_in), tuple(indices.shape)))
    want_in, want_ix = list(common), list(common)
    want_in[d], want_ix[d] = input.shape[d], indices.shape[d]
    return input.expand(want_in).gather(d, indices.expand(want_ix))


def _scalar_name(t):
    return SCALAR_NAME[dtype_key(t.dtype)]


def _where_method(self, condition, other):
    return _C.where(condition, self, other)


_where_method.__name__ = "where"
_where_method.__doc__ = "``torch.where(condition, self, other)``."
# ---- indexed writes: one C++ entry each, which records torch's node ------------------------

_E = _C._ops


def index_add(input, dim, index, source, *, alpha=1):  # noqa: A002
    """``input`` with ``alpha * source`` added at ``index`` along ``dim`` (IndexAddBackward0).

    >>> import gradtrack
    >>> gradtrack.index_add(gradtrack.zeros(3), 0, gradtrack.tensor([0, 2, 0]), gradtrack.ones(3))
    tensor([2., 0., 1.])
    """
    return _E.index_add(input, dim, index, source, number(alpha, "index_add", "alpha"))


def index_copy(input, dim, index, source):  # noqa: A002
    """``input`` with the slices of ``source`` written at ``index`` along ``dim``.

    >>> import gradtrack
    >>> gradtrack.index_copy(gradtrack.zeros(3), 0, gradtrack.tensor([2]), gradtrack.ones(1))
    tensor([0., 0., 1.])
    """
    return _E.index_copy(input, dim, index, source)


def index_fill(input, dim, index, value):  # noqa: A002
    """``input`` with ``value`` (a number or a 0-dim tensor) at ``index`` along ``dim``.

    >>> import gradtrack
    >>> gradtrack.index_fill(gradtrack.zeros(2, 2), 1, gradtrack.tensor([1]), 5.)
    tensor([[0., 5.],
            [0., 5.]])
    """
    if not isinstance(value, _C.Tensor):
        value = number(value, "index_fill", "value")
    return _E.index_fill(input, dim, index, value)


def _index_put(input, indices, values, accumulate, position):  # noqa: A002
    if not isinstance(values, _C.Tensor):
        raise TypeError(f"index_put(): argument 'values' (position {position}) must be Tensor, "
                        f"not {type(values).__name__}")
    indices = list(indices)
    for k, index in enumerate(indices):
        if not isinstance(index, _C.Tensor):
            raise TypeError(f"expected Tensor as element {k} in argument 1, but got "
                            f"{type(index).__name__}")
    return _E.index_put(input, indices, values, bool(accumulate))


def index_put(input, indices, values, accumulate=False):  # noqa: A002
    """``input`` with ``values`` written (or, with ``accumulate``, added) at ``indices``, a
    tuple of index tensors: what ``input[indices] = values`` writes, into a new tensor.

    >>> import gradtrack
    >>> gradtrack.index_put(gradtrack.zeros(3), (gradtrack.tensor([0, 2]),),
    ...                     gradtrack.tensor([1., 2.]))
    tensor([1., 0., 2.])
    """
    return _index_put(input, indices, values, accumulate, 3)


def _index_put_method(self, indices, values, accumulate=False):
    """``gradtrack.index_put(self, indices, values, accumulate)``: a new tensor.

    >>> import gradtrack
    >>> gradtrack.zeros(3).index_put((gradtrack.tensor([1]),), gradtrack.tensor([5.]))
    tensor([0., 5., 0.])
    """
    return _index_put(self, indices, values, accumulate, 2)


_index_put_method.__name__ = "index_put"


def _fill_value(value):
    if isinstance(value, _C.Tensor) or (isinstance(value, (bool, int, float, complex))):
        return value
    kind = type(value).__name__
    raise TypeError(
        f"fill() received an invalid combination of arguments - got (Tensor, {kind}), but "
        "expected one of:\n * (Tensor input, Tensor value)\n      didn't match because some "
        f"of the arguments have invalid types: (Tensor, !{kind}!)\n * (Tensor input, Number "
        "value)\n      didn't match because some of the arguments have invalid types: "
        f"(Tensor, !{kind}!)\n")


def _filled(input, value):  # noqa: A002
    # a new tensor written once: version 0, as torch's out-of-place kernel leaves it
    return _C._like("empty", input, None, False, None).fill_(value).data


class _Fill(ZeroGradient):
    # torch's fill.Scalar: FillBackward0, a zero gradient for input
    @staticmethod
    def forward(ctx, input, value):  # noqa: A002
        return _filled(input, value)


class _FillTensor(Function):
    # torch's fill.Tensor: FillBackward1, the gradient's sum for value
    @staticmethod
    def forward(ctx, input, value):  # noqa: A002
        return _filled(input, value)

    @staticmethod
    def backward(ctx, grad):
        return _C._like("zeros", grad, None, False, None), grad.sum()

    @staticmethod
    def jvp(ctx, tangent, value_tangent):
        return _filled(tangent, value_tangent)


named_node(_Fill, "FillBackward0")
named_node(_FillTensor, "FillBackward1")


def fill(input, value):  # noqa: A002
    """A new tensor of ``input``'s shape, dtype and layout with every element ``value`` (a
    number or a 0-dim tensor); ``input`` is left as it was.

    >>> import gradtrack
    >>> gradtrack.fill(gradtrack.zeros(2, 2), 3.)
    tensor([[3., 3.],
            [3., 3.]])
    """
    value = _fill_value(value)
    tensors = (input, value) if isinstance(value, _C.Tensor) else (input,)
    if not (_C.is_grad_enabled() and any(t.requires_grad for t in tensors)) \
            and not _has_tangent(tensors):
        return _filled(input, value)
    if isinstance(value, _C.Tensor):
        if value.dim() != 0:  # refused before a node is made
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor "
                               f"with {value.dim()} dimensions.")
        return _FillTensor.apply(input, value)
    return _Fill.apply(input, value)


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):  # noqa: A002
    """``input`` with the values of ``src`` reduced (``"sum"``, ``"prod"``, ``"mean"``,
    ``"amax"``, ``"amin"``) into the places ``index`` names along ``dim``; without
    ``include_self`` the places reached ignore ``input``'s values.

    >>> import gradtrack
    >>> gradtrack.scatter_reduce(gradtrack.ones(3), 0, gradtrack.tensor([0, 2, 0]),
    ...                          gradtrack.tensor([2., 3., 4.]), "prod")
    tensor([8., 1., 3.])
    """
    return _E.scatter_reduce(input, dim, index, src, reduce, include_self)


def index_reduce(input, dim, index, source, reduce, *, include_self=True):  # noqa: A002
    """``input`` with the slices of ``source`` reduced (``"prod"``, ``"mean"``,
    ``"amax"``, ``"amin"``) into the slices ``index`` names along ``dim``.

    >>> import gradtrack
    >>> gradtrack.index_reduce(gradtrack.ones(3), 0, gradtrack.tensor([0, 2, 0]),
    ...                        gradtrack.tensor([2., 3., 4.]), "amax", include_self=False)
    tensor([4., 1., 3.])
    """
    result = _E.index_reduce(input, dim, index, source, reduce, include_self)
    scatter_with_reduce.warn_index_reduce_once()
    return result


def take(input, index):  # noqa: A002
    """The elements of the flattened ``input`` at ``index``, in ``index``'s shape.

    >>> import gradtrack
    >>> gradtrack.take(gradtrack.tensor([[1, 2], [3, 4]]), gradtrack.tensor([0, 3]))
    tensor([1, 4])
    """
    return _E.take(input, index)


def put(input, index, source, accumulate=False):  # noqa: A002
    """``input`` with ``source`` written (or added) at ``index`` of its flattened form.

    >>> import gradtrack
    >>> gradtrack.put(gradtrack.zeros(2, 2), gradtrack.tensor([3]), gradtrack.ones(1))
    tensor([[0., 0.],
            [0., 1.]])
    """
    return _E.put(input, index, source, accumulate)


def masked_scatter(input, mask, source):  # noqa: A002
    """``input`` with the elements of ``source``, in order, where ``mask`` is True.

    >>> import gradtrack
    >>> gradtrack.masked_scatter(gradtrack.zeros(3), gradtrack.tensor([True, False, True]),
    ...                          gradtrack.tensor([1., 2.]))
    tensor([1., 0., 2.])
    """
    scatter_with_reduce.warn_uint8_mask(mask)
    return _E.masked_scatter(input, mask, source)


def select_scatter(input, src, dim, index):  # noqa: A002
    """A copy of ``input`` with ``src`` written into ``input.select(dim, index)``.

    >>> import gradtrack
    >>> gradtrack.select_scatter(gradtrack.zeros(2, 2), gradtrack.ones(2), 0, 1)
    tensor([[0., 0.],
            [1., 1.]])
    """
    return _E.select_scatter(input, src, dim, index)


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):  # noqa: A002
    """A copy of ``input`` with ``src`` written into the slice ``start:end:step`` of ``dim``.

    >>> import gradtrack
    >>> gradtrack.slice_scatter(gradtrack.zeros(4), gradtrack.ones(2), start=0, step=2)
    tensor([1., 0., 1., 0.])
    """
    return _E.slice_scatter(input, src, dim, start, end, step)


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):  # noqa: A002
    """A copy of ``input`` with ``src`` written into its diagonal.

    >>> import gradtrack
    >>> gradtrack.diagonal_scatter(gradtrack.zeros(2, 2), gradtrack.ones(2))
    tensor([[1., 0.],
            [0., 1.]])
    """
    return _E.diagonal_scatter(input, src, offset, dim1, dim2)


def _as_strided_scatter(input, src, size, stride, storage_offset, target=None):  # noqa: A002
    """The copy with ``src`` written in; ``target``: the tensor the write goes through
    (the copy itself, so that derivatives see the write, or an alias of its memory).

    As torch's, the copy is of the input's whole storage, which the ``as_strided``
    geometry addresses (its offset defaults to the input's), and the result has the
    input's strides and offset in it: for a view with gaps (a step slice), a write can
    land outside it. An input whose elements overlap (expanded) is copied contiguous."""
    if any(st == 0 and n > 1 for st, n in zip(input.stride(), input.shape)):
        base = input.contiguous()
    else:
        n = input.untyped_storage().nbytes() // input.element_size()
        base = input.as_strided((n,), (1,), 0).clone().as_strided(
            tuple(input.shape), input.stride(), input.storage_offset())
    n = base.untyped_storage().nbytes() // base.element_size()
    whole = base.as_strided((n,), (1,), 0)
    view = (whole if target is None else target(whole)).as_strided(
        size, stride, base.storage_offset() if storage_offset is None else storage_offset)
    if tuple(view.shape) != tuple(src.shape):
        raise RuntimeError("expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(view.shape)}")
    view.copy_(src)
    return whole.as_strided(tuple(base.shape), base.stride(), base.storage_offset())


def _as_strided_scatter_values(input, src, size, stride, storage_offset):  # noqa: A002
    # torch's result is a new tensor at _version 0: the write goes through .data, whose
    # version counter is its own
    # (detached: a tensor of its own over the copy, not a view of it)
    return _as_strided_scatter(input, src, size, stride, storage_offset,
                               lambda t: t.data).detach()


# One node, torch's AsStridedScatterBackward0 (NOTE [Named composite nodes]).
_as_strided_scatter_node = composite_node("AsStridedScatterBackward0", _as_strided_scatter, 2,
                                          forward=_as_strided_scatter_values, linear=True)


def as_strided_scatter(input, src, size, stride, storage_offset=None):  # noqa: A002
    """A copy of ``input`` (with its strides) with ``src`` written into the copy's
    ``as_strided(size, stride, storage_offset)`` view.

    >>> import gradtrack
    >>> gradtrack.as_strided_scatter(gradtrack.zeros(4), gradtrack.ones(2), (2,), (2,))
    tensor([1., 0., 1., 0.])
    """
    size, stride = tuple(size), tuple(stride)
    if input.requires_grad and not input.is_contiguous():
        # torch's internal assert, its last sentence: a derivative of the storage-wide
        # write is defined for contiguous inputs only
        raise RuntimeError("as_strided_scatter is currently only supported for contiguous "
                           "inputs")
    if (input.requires_grad or src.requires_grad) and _C.is_grad_enabled() \
            or _has_tangent((input, src)):
        return _as_strided_scatter_node(input, src, size, stride, storage_offset)
    return _as_strided_scatter_values(input, src, size, stride, storage_offset)


def nonzero_static(input, *, size, fill_value=-1):  # noqa: A002 - torch's argument name
    """The rows of :func:`nonzero` cut or padded with ``fill_value`` to exactly ``size``
    rows.

    >>> import gradtrack
    >>> gradtrack.nonzero_static(gradtrack.tensor([0, 1, 0, 2]), size=3)
    tensor([[ 1],
            [ 3],
            [-1]])
    """
    if isinstance(size, builtins.bool) or not isinstance(size, builtins.int):
        raise TypeError(f"nonzero_static(): argument 'size' must be int, not "
                        f"{type(size).__name__}")
    if isinstance(fill_value, builtins.bool) or not isinstance(fill_value, builtins.int):
        raise TypeError(f"nonzero_static(): argument 'fill_value' must be int, not "
                        f"{type(fill_value).__name__}")
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    rows = _C._ops.nonzero(input)
    found = rows.shape[0]
    if found >= size:
        return rows[:size].clone()
    pad = _C.full((size - found, rows.shape[1]), fill_value, dtype=_C.int64)
    return _C.cat([rows, pad], 0)


def unravel_index(indices, shape):
    """The coordinates in a tensor of ``shape`` of each flat index, one tensor per dim
    (torch's composite: floor division by each dim's stride, then the remainder by its
    size, so indices out of range wrap).

    >>> import gradtrack
    >>> gradtrack.unravel_index(gradtrack.tensor([4, 7]), (3, 4))
    (tensor([1, 1]), tensor([0, 3]))
    """
    if indices.is_floating_point() or indices.dtype is _C.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if isinstance(shape, builtins.int):
        shape = (shape,)
    shape = tuple(shape)
    if any(d < 0 for d in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    strides, acc = [], 1
    for d in reversed(shape):
        strides.append(acc)
        acc *= d
    strides.reverse()
    coords = indices.unsqueeze(-1).floor_divide(_C.tensor(strides, dtype=_C.int64))
    return tuple(coords.remainder(_C.tensor(list(shape), dtype=_C.int64)).unbind(-1))


# A call without reduce= runs the C++ scatter with no Python frame, the method's too.
_TENSOR_SCATTER = _C.Tensor.scatter  # the C++ method (the registry replaces it)


def _scatter_method(self, dim, index, src=None, *, value=None, reduce=None):
    """``self`` with ``src`` (or ``value``) written at ``index`` along ``dim``, a copy;
    with ``reduce`` (``"add"`` or ``"multiply"``) combined with what is there.

    >>> import gradtrack
    >>> gradtrack.ones(3).scatter(0, gradtrack.tensor([0, 2, 0]), 2.0, reduce="add")
    tensor([5., 1., 3.])
    """
    return scatter_with_reduce.scatter(self, dim, index, src, value=value, reduce=reduce)


# A call without sparse_grad= runs the C++ gather with no Python frame, the method's too.
_TENSOR_GATHER = _C.Tensor.gather  # the C++ method (the registry replaces it)


def _sparse_grad(input, sparse_grad):  # noqa: A002
    if not isinstance(sparse_grad, builtins.bool):
        raise TypeError("gather(): argument 'sparse_grad' must be bool, not "
                        f"{type(sparse_grad).__name__}")
    # torch's gradient would be a sparse COO tensor; gradtrack has no sparse layout, so it
    # refuses where a gradient can flow (the values are the same either way)
    if sparse_grad and input.requires_grad and _C.is_grad_enabled():
        raise NotImplementedError("gradtrack: gather with sparse_grad=True is not supported "
                                  "(gradtrack has no sparse tensors)")


def _gather(input, dim, index, *, sparse_grad=False):  # noqa: A002
    """The values of ``input`` at ``index`` along ``dim`` (``index`` has ``input``'s dims).

    >>> import gradtrack
    >>> gradtrack.gather(gradtrack.tensor([[1, 2], [3, 4]]), 1, gradtrack.tensor([[1], [0]]),
    ...                  sparse_grad=False)
    tensor([[2],
            [3]])
    """
    _sparse_grad(input, sparse_grad)
    return _C.gather(input, dim, index)


def _gather_method(self, dim, index, *, sparse_grad=False):
    """``gradtrack.gather(self, dim, index, sparse_grad=sparse_grad)``.

    >>> import gradtrack
    >>> gradtrack.tensor([[1, 2], [3, 4]]).gather(1, gradtrack.tensor([[1], [0]]))
    tensor([[2],
            [3]])
    """
    _sparse_grad(self, sparse_grad)
    return _TENSOR_GATHER(self, dim, index)


_gather.__name__ = _gather_method.__name__ = "gather"
NAMES = {"scatter": fast_path(_C.scatter, scatter_with_reduce.scatter, ("reduce",)),
         "gather": fast_path(_C.gather, _gather, ("sparse_grad",))}
FUNCTIONS = (nonzero, argwhere, take_along_dim, index_add, index_copy, index_fill, index_put,
             fill, take, put, masked_scatter, select_scatter, slice_scatter, diagonal_scatter, scatter_reduce,
             index_reduce, unravel_index, as_strided_scatter, nonzero_static)
METHODS = {**methods(nonzero, argwhere, take_along_dim, index_add, index_copy, index_fill, take,
                     put, masked_scatter, select_scatter, slice_scatter, diagonal_scatter,
                     scatter_reduce, index_reduce, as_strided_scatter, nonzero_static),
           "where": _where_method, "index_put": _index_put_method,
           "scatter": fast_path(_TENSOR_SCATTER, _scatter_method, ("reduce",), "Tensor"),
           "gather": fast_path(_TENSOR_GATHER, _gather_method, ("sparse_grad",), "Tensor")}
