"""torch's ``*_copy`` functions: each view op's result as a new contiguous tensor
(``permute_copy``, ``select_copy``, ``view_copy``, ...), ``narrow_copy``, and the
``unsafe_*`` splits.

NOTE [View copies record the view and a clone]
Each ``*_copy`` here is its view op followed by a contiguous ``clone``, so values, dtypes,
shapes, strides and gradients are torch's. torch records one node of its own
(``PermuteBackward0_copy``, ``NarrowCopyBackward0``, ...) where these record two
(``CloneBackward0`` over the view's node): the recording layer names a node by its kind,
and these kinds would each need a C++ row for a name alone. ``unsafe_split`` and
``unsafe_chunk`` give ``split``'s views (torch gives tensors sharing the memory but not
tracked as views, recorded as ``UnsafeSplitBackward0``).

>>> import gradtrack
>>> gradtrack.permute_copy(gradtrack.ones(2, 3), (1, 0)).is_contiguous()
True
"""

from .. import _C
from . import methods
from .views import diagonal as _diagonal
from .views import split as _split
from .views import split_with_sizes as _split_with_sizes


def _copy(t):
    # a contiguous copy: contiguous() of a non-contiguous view copies (CloneBackward0)
    return t.contiguous() if not t.is_contiguous() else t.clone()


def expand_copy(input, size, *, implicit=False):  # noqa: A002 - torch's names
    """``input.expand(size)`` as a new tensor.

    >>> import gradtrack
    >>> gradtrack.expand_copy(gradtrack.tensor([1, 2]), (2, 2))
    tensor([[1, 2],
            [1, 2]])
    """
    return _copy(input.expand(*size))


def permute_copy(input, dims):  # noqa: A002
    """``input.permute(dims)`` as a new contiguous tensor.

    >>> import gradtrack
    >>> gradtrack.permute_copy(gradtrack.arange(6).view(2, 3), (1, 0))
    tensor([[0, 3],
            [1, 4],
            [2, 5]])
    """
    return _copy(input.permute(*dims))


def select_copy(input, dim, index):  # noqa: A002
    """``input.select(dim, index)`` as a new tensor.

    >>> import gradtrack
    >>> gradtrack.select_copy(gradtrack.arange(6).view(2, 3), 1, 0)
    tensor([0, 3])
    """
    return _copy(input.select(dim, index))


def slice_copy(input, dim=0, start=None, end=None, step=1):  # noqa: A002
    """``input`` sliced along ``dim`` (``start:end:step``), as a new tensor.

    >>> import gradtrack
    >>> gradtrack.slice_copy(gradtrack.arange(6), 0, 1, 5, 2)
    tensor([1, 3])
    """
    index = [slice(None)] * input.dim()
    index[dim] = slice(start, end, step)
    return _copy(input[tuple(index)])


def squeeze_copy(input, dim=None):  # noqa: A002
    """``input.squeeze(dim)`` as a new tensor.

    >>> import gradtrack
    >>> gradtrack.squeeze_copy(gradtrack.zeros(1, 2, 1)).shape
    gradtrack.Size([2])
    """
    return _copy(input.squeeze() if dim is None else input.squeeze(dim))


def unsqueeze_copy(input, dim):  # noqa: A002
    """``input.unsqueeze(dim)`` as a new tensor.

    >>> import gradtrack
    >>> gradtrack.unsqueeze_copy(gradtrack.zeros(2), 0).shape
    gradtrack.Size([1, 2])
    """
    return _copy(input.unsqueeze(dim))


def t_copy(input):  # noqa: A002
    """``input.t()`` as a new contiguous tensor.

    >>> import gradtrack
    >>> gradtrack.t_copy(gradtrack.tensor([[1, 2]]))
    tensor([[1],
            [2]])
    """
    return _copy(input.t())


def transpose_copy(input, dim0, dim1):  # noqa: A002
    """``input.transpose(dim0, dim1)`` as a new contiguous tensor.

    >>> import gradtrack
    >>> gradtrack.transpose_copy(gradtrack.zeros(2, 3), 0, 1).shape
    gradtrack.Size([3, 2])
    """
    return _copy(input.transpose(dim0, dim1))


def view_copy(input, size):  # noqa: A002
    """``input.view(size)`` (a shape or a dtype) as a new tensor.

    >>> import gradtrack
    >>> gradtrack.view_copy(gradtrack.arange(4), (2, 2))
    tensor([[0, 1],
            [2, 3]])
    """
    if isinstance(size, _C.dtype):
        return _copy(input.view(size))
    return _copy(input.view(*size) if isinstance(size, (tuple, list)) else input.view(size))


def diagonal_copy(input, offset=0, dim1=0, dim2=1):  # noqa: A002
    """``input.diagonal(offset, dim1, dim2)`` as a new tensor.

    >>> import gradtrack
    >>> gradtrack.diagonal_copy(gradtrack.arange(4).view(2, 2))
    tensor([0, 3])
    """
    return _copy(_diagonal(input, offset, dim1, dim2))


def detach_copy(input):  # noqa: A002
    """``input.detach()`` as a new tensor.

    >>> import gradtrack
    >>> gradtrack.detach_copy(gradtrack.ones(2, requires_grad=True)).requires_grad
    False
    """
    return _copy(input.detach())


def alias_copy(input):  # noqa: A002
    """A new tensor equal to ``input`` (torch's ``alias`` as a copy).

    >>> import gradtrack
    >>> gradtrack.alias_copy(gradtrack.tensor([1, 2]))
    tensor([1, 2])
    """
    return _copy(input)


def unbind_copy(input, dim=0):  # noqa: A002
    """``input.unbind(dim)``, each slice a new tensor.

    >>> import gradtrack
    >>> gradtrack.unbind_copy(gradtrack.tensor([[1, 2], [3, 4]]), 1)
    (tensor([1, 3]), tensor([2, 4]))
    """
    return tuple(_copy(t) for t in input.unbind(dim))


def split_copy(input, split_size, dim=0):  # noqa: A002
    """``input.split(split_size, dim)``, each piece a new tensor.

    >>> import gradtrack
    >>> gradtrack.split_copy(gradtrack.arange(5), 2)
    (tensor([0, 1]), tensor([2, 3]), tensor([4]))
    """
    return tuple(_copy(t) for t in _split(input, split_size, dim))


def split_with_sizes_copy(input, split_sizes, dim=0):  # noqa: A002
    """``input.split_with_sizes(split_sizes, dim)``, each piece a new tensor.

    >>> import gradtrack
    >>> gradtrack.split_with_sizes_copy(gradtrack.arange(5), [1, 4])
    (tensor([0]), tensor([1, 2, 3, 4]))
    """
    return tuple(_copy(t) for t in _split_with_sizes(input, split_sizes, dim))


def unfold_copy(input, dimension, size, step):  # noqa: A002
    """``input.unfold(dimension, size, step)`` as a new contiguous tensor.

    >>> import gradtrack
    >>> gradtrack.unfold_copy(gradtrack.arange(4), 0, 2, 2)
    tensor([[0, 1],
            [2, 3]])
    """
    return _copy(input.unfold(dimension, size, step))


def as_strided_copy(input, size, stride, storage_offset=None):  # noqa: A002
    """``input.as_strided(size, stride, storage_offset)`` as a new contiguous tensor.

    >>> import gradtrack
    >>> gradtrack.as_strided_copy(gradtrack.arange(4), (2, 2), (1, 2))
    tensor([[0, 2],
            [1, 3]])
    """
    return _copy(input.as_strided(size, stride, storage_offset))


def narrow_copy(input, dim, start, length):  # noqa: A002
    """``input.narrow(dim, start, length)`` as a new tensor.

    >>> import gradtrack
    >>> gradtrack.narrow_copy(gradtrack.arange(5), 0, 1, 3)
    tensor([1, 2, 3])
    """
    return _copy(input.narrow(dim, start, length))


def unsafe_chunk(input, chunks, dim=0):  # noqa: A002
    """``input.chunk(chunks, dim)`` (NOTE [View copies record the view and a clone]).

    >>> import gradtrack
    >>> gradtrack.unsafe_chunk(gradtrack.arange(4), 2)
    (tensor([0, 1]), tensor([2, 3]))
    """
    return tuple(input.chunk(chunks, dim))


def unsafe_split(input, split_size, dim=0):  # noqa: A002 - torch's names
    """``input.split(split_size, dim)`` (NOTE [View copies record the view and a clone]).

    >>> import gradtrack
    >>> gradtrack.unsafe_split(gradtrack.arange(3), 2)
    (tensor([0, 1]), tensor([2]))
    """
    return tuple(_split(input, split_size, dim))


def unsafe_split_with_sizes(input, split_sizes, dim=0):  # noqa: A002
    """``input.split_with_sizes(split_sizes, dim)`` (NOTE [View copies record the view and
    a clone]).

    >>> import gradtrack
    >>> gradtrack.unsafe_split_with_sizes(gradtrack.arange(3), [2, 1])
    (tensor([0, 1]), tensor([2]))
    """
    return tuple(_split_with_sizes(input, split_sizes, dim))


FUNCTIONS = (expand_copy, permute_copy, select_copy, slice_copy, squeeze_copy, unsqueeze_copy,
             t_copy, transpose_copy, view_copy, diagonal_copy, detach_copy, alias_copy,
             unbind_copy, split_copy, split_with_sizes_copy, unfold_copy, as_strided_copy,
             narrow_copy, unsafe_chunk, unsafe_split, unsafe_split_with_sizes)


METHODS = methods(narrow_copy, unsafe_chunk, unsafe_split, unsafe_split_with_sizes)
