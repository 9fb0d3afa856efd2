"""torch's ``*_copy`` functions: each view op's result as a new contiguous tensor
(``permute_copy``, ``select_copy``, ``view_copy``, ...), ``narrow_copy``, and the
``unsafe_*`` splits.

Each ``*_copy`` is its view op followed by a contiguous copy, recorded as one node named
as torch's (``PermuteBackward0_copy``, ``NarrowCopyBackward0``, ...: NOTE [View copies as
one node] in ``autograd/_named_nodes.py``); ``detach_copy`` records torch's NotImplemented node.

NOTE [Unsafe splits]
torch's ``unsafe_split``, ``unsafe_split_with_sizes`` and ``unsafe_chunk`` give ``split``'s
pieces as tensors that share the input's memory but are not views: no ``_base``, each with
a version counter of its own (an in-place write to a piece bumps neither the input's
version nor the other pieces', and is no view write: no CopySlices). Each piece here is
the split's view taken as ``.data`` takes it (the memory under a fresh counter), recorded
as one node with torch's name (``UnsafeSplitBackward0``, ``UnsafeSplitWithSizesBackward0``:
``unsafe_chunk`` records the former, or the latter when the dim is empty, as torch's
chunk does); its gradient joins the pieces' gradients along the dim (``cat``, so double
backward works), and its tangents are the tangent's pieces.

>>> import gradtrack
>>> gradtrack.permute_copy(gradtrack.ones(2, 3), (1, 0)).is_contiguous()
True
"""

import operator

from .. import _C
from ..autograd.function import Function
from ..autograd._named_nodes import _has_tangent, copy_node, named_node, not_implemented_node
from . import methods
from .views import diagonal as _diagonal
from .views import _checked_split
from .views import split as _split
from .views import split_with_sizes as _split_with_sizes


def _copy(t):
    # a contiguous copy: contiguous() of a non-contiguous view copies (CloneBackward0)
    return t.contiguous() if not t.is_contiguous() else t.clone()


def _slice(input, dim, start, end, step):  # noqa: A002
    index = [slice(None)] * input.dim()
    index[dim] = slice(start, end, step)
    return input[tuple(index)]


def _view(input, size):  # noqa: A002
    return input.view(*size) if isinstance(size, (tuple, list)) else input.view(size)


def _reshape(input, size):  # noqa: A002
    # torch's view_copy takes any layout (an expanded or transposed input whose view
    # would be refused is copied), with view's errors for a wrong size; its forward-mode
    # formula views the tangent, and refuses those layouts
    return input.reshape(*size) if isinstance(size, (tuple, list)) else input.reshape(size)


_expand = copy_node("ExpandBackward0_copy", lambda x, size: x.expand(*size))
_permute = copy_node("PermuteBackward0_copy", lambda x, dims: x.permute(*dims))
_select = copy_node("SelectBackward0_copy", lambda x, dim, index: x.select(dim, index))
_slice_copy = copy_node("SliceBackward0_copy", _slice)
_squeeze_all = copy_node("SqueezeBackward0_copy", lambda x: x.squeeze())
_squeeze_dim = copy_node("SqueezeBackward1_copy", lambda x, dim: x.squeeze(dim))
_squeeze_dims = copy_node("SqueezeBackward2_copy", lambda x, dims: x.squeeze(dims))
_unsqueeze = copy_node("UnsqueezeBackward0_copy", lambda x, dim: x.unsqueeze(dim))
_t = copy_node("TBackward0_copy", lambda x: x.t())
_transpose = copy_node("TransposeBackward0_copy", lambda x, d0, d1: x.transpose(d0, d1))
_view_shape = copy_node("ViewBackward0_copy", _reshape, tangent_view=_view)
_diagonal_copy = copy_node("DiagonalBackward0_copy", _diagonal)
_alias = copy_node("AliasBackward0_copy", lambda x: x)
_unbind = copy_node("UnbindBackward0_copy", lambda x, dim: tuple(x.unbind(dim)))
_split_copy = copy_node("SplitBackward0_copy", lambda x, size, dim: tuple(_split(x, size, dim)))
_split_sizes = copy_node("SplitWithSizesBackward0_copy",
                         lambda x, sizes, dim: tuple(_split_with_sizes(x, sizes, dim)))
_unfold = copy_node("UnfoldBackward0_copy", lambda x, d, size, step: x.unfold(d, size, step))
_as_strided = copy_node("AsStridedBackward0_copy",
                        lambda x, size, stride, offset: x.as_strided(size, stride, offset))
_narrow = copy_node("NarrowCopyBackward0", lambda x, d, start, n: x.narrow(d, start, n))


def expand_copy(input, size, *, implicit=False):  # noqa: A002 - torch's names
    """``input.expand(size)`` as a new tensor.

    >>> import gradtrack
    >>> gradtrack.expand_copy(gradtrack.tensor([1, 2]), (2, 2))
    tensor([[1, 2],
            [1, 2]])
    """
    return _expand(input, tuple(size))


def permute_copy(input, dims):  # noqa: A002
    """``input.permute(dims)`` as a new contiguous tensor.

    >>> import gradtrack
    >>> gradtrack.permute_copy(gradtrack.arange(6).view(2, 3), (1, 0))
    tensor([[0, 3],
            [1, 4],
            [2, 5]])
    """
    return _permute(input, tuple(dims))


def select_copy(input, dim, index):  # noqa: A002
    """``input.select(dim, index)`` as a new tensor.

    >>> import gradtrack
    >>> gradtrack.select_copy(gradtrack.arange(6).view(2, 3), 1, 0)
    tensor([0, 3])
    """
    return _select(input, dim, index)


def slice_copy(input, dim=0, start=None, end=None, step=1):  # noqa: A002
    """``input`` sliced along ``dim`` (``start:end:step``), as a new tensor.

    >>> import gradtrack
    >>> gradtrack.slice_copy(gradtrack.arange(6), 0, 1, 5, 2)
    tensor([1, 3])
    """
    return _slice_copy(input, dim, start, end, step)


def squeeze_copy(input, dim=None):  # noqa: A002
    """``input.squeeze(dim)`` as a new tensor.

    >>> import gradtrack
    >>> gradtrack.squeeze_copy(gradtrack.zeros(1, 2, 1)).shape
    gradtrack.Size([2])
    """
    if dim is None:
        return _squeeze_all(input)
    if isinstance(dim, (tuple, list)):
        return _squeeze_dims(input, tuple(dim))
    return _squeeze_dim(input, dim)


def unsqueeze_copy(input, dim):  # noqa: A002
    """``input.unsqueeze(dim)`` as a new tensor.

    >>> import gradtrack
    >>> gradtrack.unsqueeze_copy(gradtrack.zeros(2), 0).shape
    gradtrack.Size([1, 2])
    """
    return _unsqueeze(input, dim)


def t_copy(input):  # noqa: A002
    """``input.t()`` as a new contiguous tensor.

    >>> import gradtrack
    >>> gradtrack.t_copy(gradtrack.tensor([[1, 2]]))
    tensor([[1],
            [2]])
    """
    return _t(input)


def transpose_copy(input, dim0, dim1):  # noqa: A002
    """``input.transpose(dim0, dim1)`` as a new contiguous tensor.

    >>> import gradtrack
    >>> gradtrack.transpose_copy(gradtrack.zeros(2, 3), 0, 1).shape
    gradtrack.Size([3, 2])
    """
    return _transpose(input, dim0, dim1)


def view_copy(input, size):  # noqa: A002
    """``input.view(size)`` (a shape or a dtype) as a new tensor.

    >>> import gradtrack
    >>> gradtrack.view_copy(gradtrack.arange(4), (2, 2))
    tensor([[0, 1],
            [2, 3]])
    """
    if isinstance(size, _C.dtype):
        # torch's view_copy.dtype has no derivative and records nothing
        return _copy(input.detach().view(size))
    return _view_shape(input, tuple(size) if isinstance(size, (tuple, list)) else size)


def diagonal_copy(input, offset=0, dim1=0, dim2=1):  # noqa: A002
    """``input.diagonal(offset, dim1, dim2)`` as a new tensor.

    >>> import gradtrack
    >>> gradtrack.diagonal_copy(gradtrack.arange(4).view(2, 2))
    tensor([0, 3])
    """
    return _diagonal_copy(input, offset, dim1, dim2)


def detach_copy(input):  # noqa: A002
    """``input.detach()`` as a new tensor. As torch's, it has no derivative: from an
    input that requires grad it records a NotImplemented node, whose backward raises.

    >>> import gradtrack
    >>> gradtrack.detach_copy(gradtrack.ones(2, requires_grad=True)).grad_fn.name()
    'gradtrack::autograd::NotImplemented'
    """
    return not_implemented_node("detach_copy", _copy(input.detach()), input)


def alias_copy(input):  # noqa: A002
    """A new tensor equal to ``input`` (torch's ``alias`` as a copy).

    >>> import gradtrack
    >>> gradtrack.alias_copy(gradtrack.tensor([1, 2]))
    tensor([1, 2])
    """
    return _alias(input)


def unbind_copy(input, dim=0):  # noqa: A002
    """``input.unbind(dim)``, each slice a new tensor.

    >>> import gradtrack
    >>> gradtrack.unbind_copy(gradtrack.tensor([[1, 2], [3, 4]]), 1)
    (tensor([1, 3]), tensor([2, 4]))
    """
    return _unbind(input, dim)


def split_copy(input, split_size, dim=0):  # noqa: A002
    """``input.split(split_size, dim)``, each piece a new tensor.

    >>> import gradtrack
    >>> gradtrack.split_copy(gradtrack.arange(5), 2)
    (tensor([0, 1]), tensor([2, 3]), tensor([4]))
    """
    return _split_copy(input, split_size, dim)


def split_with_sizes_copy(input, split_sizes, dim=0):  # noqa: A002
    """``input.split_with_sizes(split_sizes, dim)``, each piece a new tensor.

    >>> import gradtrack
    >>> gradtrack.split_with_sizes_copy(gradtrack.arange(5), [1, 4])
    (tensor([0]), tensor([1, 2, 3, 4]))
    """
    return _split_sizes(input, tuple(split_sizes), dim)


def unfold_copy(input, dimension, size, step):  # noqa: A002
    """``input.unfold(dimension, size, step)`` as a new contiguous tensor.

    >>> import gradtrack
    >>> gradtrack.unfold_copy(gradtrack.arange(4), 0, 2, 2)
    tensor([[0, 1],
            [2, 3]])
    """
    return _unfold(input, dimension, size, step)


def as_strided_copy(input, size, stride, storage_offset=None):  # noqa: A002
    """``input.as_strided(size, stride, storage_offset)`` as a new contiguous tensor.

    >>> import gradtrack
    >>> gradtrack.as_strided_copy(gradtrack.arange(4), (2, 2), (1, 2))
    tensor([[0, 2],
            [1, 3]])
    """
    return _as_strided(input, tuple(size), tuple(stride), storage_offset)


def narrow_copy(input, dim, start, length):  # noqa: A002
    """``input.narrow(dim, start, length)`` as a new tensor.

    >>> import gradtrack
    >>> gradtrack.narrow_copy(gradtrack.arange(5), 0, 1, 3)
    tensor([1, 2, 3])
    """
    return _narrow(input, dim, start, length)


def _unsafe_node(name):
    """The node of the unsafe splits (NOTE [Unsafe splits]): ``run(input, sizes, dim)``
    splits ``input`` by ``sizes`` (one size or a list of them)."""

    class _Unsafe(Function):
        @staticmethod
        def forward(ctx, input, sizes, dim):  # noqa: A002 - torch's name
            ctx.sizes, ctx.dim, ctx.dtype = sizes, dim, input.dtype
            pieces = _split(input, sizes, dim)
            ctx.shapes = [tuple(p.shape) for p in pieces]
            return tuple(p._data() for p in pieces)

        @staticmethod
        def backward(ctx, *grads):
            grads = [g if g is not None else _C.zeros(list(shape), dtype=ctx.dtype)
                     for g, shape in zip(grads, ctx.shapes)]
            return _C.cat(grads, ctx.dim), None, None

        @staticmethod
        def jvp(ctx, tangent, *_):
            return tuple(p.clone() for p in _split(tangent, ctx.sizes, ctx.dim))

    named_node(_Unsafe, name)
    apply = _Unsafe.apply

    def run(input, sizes, dim):  # noqa: A002
        if (input.requires_grad and _C.is_grad_enabled()) or _has_tangent((input,)):
            return apply(input, sizes, dim)
        return tuple(p._data() for p in _split(input, sizes, dim))

    return run


_unsafe_split = _unsafe_node("UnsafeSplitBackward0")
_unsafe_split_with_sizes = _unsafe_node("UnsafeSplitWithSizesBackward0")


def _int(value, op, name, position):
    # an int argument as torch's parser takes it: an integer or anything with __index__
    # (not a bool), else its TypeError
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TypeError(f"{op}(): argument '{name}' (position {position}) must be int, not "
                        f"{type(value).__name__}")
    return operator.index(value)


def _ints(value, op, name, position):
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{op}(): argument '{name}' (position {position}) must be tuple of "
                        f"ints, not {type(value).__name__}")
    for k, v in enumerate(value):
        if isinstance(v, bool) or not hasattr(v, "__index__"):
            raise TypeError(f"{op}(): argument '{name}' (position {position}) must be tuple "
                            f"of ints, but found element of type {type(v).__name__} at pos {k}")
    return [operator.index(v) for v in value]


def _unsafe_chunk(input, chunks, dim, at):  # noqa: A002
    # ``at``: the position torch's messages give the argument after ``input``
    chunks, dim = _int(chunks, "unsafe_chunk", "chunks", at), _int(dim, "unsafe_chunk", "dim",
                                                                   at + 1)
    if input.dim() == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    length = input.size(dim)
    size = (length + chunks - 1) // chunks
    if size == 0 and length == 0:  # torch's chunk of an empty dim: chunks empty pieces
        return _unsafe_split_with_sizes(input, [0] * chunks, dim)
    return _unsafe_split(input, size, dim)


def _unsafe_split_size(input, split_size, dim, at):  # noqa: A002
    split_size = _int(split_size, "unsafe_split", "split_size", at)
    dim = _int(dim, "unsafe_split", "dim", at + 1)
    _checked_split(input, split_size, dim)  # torch's errors
    return _unsafe_split(input, split_size, dim)


def _unsafe_split_sizes(input, split_sizes, dim, at):  # noqa: A002
    op = "unsafe_split_with_sizes"
    split_sizes, dim = _ints(split_sizes, op, "split_sizes", at), _int(dim, op, "dim", at + 1)
    _checked_split(input, split_sizes, dim)
    return _unsafe_split_with_sizes(input, split_sizes, dim)


def unsafe_chunk(input, chunks, dim=0):  # noqa: A002
    """``input.chunk(chunks, dim)``'s pieces as tensors of their own that share its memory
    (NOTE [Unsafe splits]).

    >>> import gradtrack
    >>> gradtrack.unsafe_chunk(gradtrack.arange(4), 2)
    (tensor([0, 1]), tensor([2, 3]))
    """
    return _unsafe_chunk(input, chunks, dim, 2)


def unsafe_split(input, split_size, dim=0):  # noqa: A002 - torch's names
    """``input.split(split_size, dim)``'s pieces as tensors of their own that share its
    memory (NOTE [Unsafe splits]).

    >>> import gradtrack
    >>> gradtrack.unsafe_split(gradtrack.arange(3), 2)
    (tensor([0, 1]), tensor([2]))
    """
    return _unsafe_split_size(input, split_size, dim, 2)


def unsafe_split_with_sizes(input, split_sizes, dim=0):  # noqa: A002
    """``input.split_with_sizes(split_sizes, dim)``'s pieces as tensors of their own that
    share its memory (NOTE [Unsafe splits]).

    >>> import gradtrack
    >>> gradtrack.unsafe_split_with_sizes(gradtrack.arange(3), [2, 1])
    (tensor([0, 1]), tensor([2]))
    """
    return _unsafe_split_sizes(input, split_sizes, dim, 2)


# The Tensor methods: torch's messages count their arguments after self from 1.
def _unsafe_chunk_method(self, chunks, dim=0):
    return _unsafe_chunk(self, chunks, dim, 1)


def _unsafe_split_method(self, split_size, dim=0):
    return _unsafe_split_size(self, split_size, dim, 1)


def _unsafe_split_with_sizes_method(self, split_sizes, dim=0):
    return _unsafe_split_sizes(self, split_sizes, dim, 1)


for _m, _f in ((_unsafe_chunk_method, unsafe_chunk), (_unsafe_split_method, unsafe_split),
               (_unsafe_split_with_sizes_method, unsafe_split_with_sizes)):
    _m.__name__ = _m.__qualname__ = _f.__name__
    _m.__doc__ = _f.__doc__


FUNCTIONS = (expand_copy, permute_copy, select_copy, slice_copy, squeeze_copy, unsqueeze_copy,
             t_copy, transpose_copy, view_copy, diagonal_copy, detach_copy, alias_copy,
             unbind_copy, split_copy, split_with_sizes_copy, unfold_copy, as_strided_copy,
             narrow_copy, unsafe_chunk, unsafe_split, unsafe_split_with_sizes)


METHODS = {**methods(narrow_copy), "unsafe_chunk": _unsafe_chunk_method,
           "unsafe_split": _unsafe_split_method,
           "unsafe_split_with_sizes": _unsafe_split_with_sizes_method}
