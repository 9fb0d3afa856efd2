"""Docstrings of the views: reshapes, transposes, squeezes, selections, splits and
``detach``. The Python ones are ``_ops/views.py``.

``FUNCTIONS`` documents ``gradtrack.NAME``, ``METHODS`` ``Tensor.NAME``.
"""

FUNCTIONS = {
    "flatten": """The dims from ``start_dim`` to ``end_dim`` merged into one.

    >>> x = gradtrack.tensor([[[1, 2], [3, 4]]])
    >>> gradtrack.flatten(x, start_dim=1)
    tensor([[1, 2, 3, 4]])
    """,
    "squeeze": """The tensor without dims of size one (or only ``dim``).

    >>> x = gradtrack.tensor([[[1.0], [2.0]]])
    >>> gradtrack.squeeze(x)
    tensor([1., 2.])
    """,
    "unsqueeze": """A view with a new dim of size one at ``dim``.

    >>> x = gradtrack.tensor([1.0, 2.0])
    >>> gradtrack.unsqueeze(x, 1)
    tensor([[1.],
            [2.]])
    """,
    "t": """The transpose of a matrix (a 1-D tensor is returned as it is).

    >>> x = gradtrack.tensor([[1, 2, 3], [4, 5, 6]])
    >>> gradtrack.t(x)
    tensor([[1, 4],
            [2, 5],
            [3, 6]])
    """,
    "transpose": """A view with ``dim0`` and ``dim1`` swapped.

    >>> x = gradtrack.tensor([[1, 2, 3], [4, 5, 6]])
    >>> gradtrack.transpose(x, 0, 1)
    tensor([[1, 4],
            [2, 5],
            [3, 6]])
    """,
    "swapaxes": """Alias of ``transpose``: a view with two dims swapped.

    >>> x = gradtrack.tensor([[1, 2, 3], [4, 5, 6]])
    >>> gradtrack.swapaxes(x, 0, 1)
    tensor([[1, 4],
            [2, 5],
            [3, 6]])
    """,
    "narrow": """A view of ``length`` entries of ``dim`` starting at ``start``.

    >>> x = gradtrack.tensor([[1, 2, 3], [4, 5, 6]])
    >>> gradtrack.narrow(x, 1, 1, 2)
    tensor([[2, 3],
            [5, 6]])
    """,
    "select": """A view of the slice ``index`` of ``dim`` (the dim is removed).

    >>> x = gradtrack.tensor([[1, 2, 3], [4, 5, 6]])
    >>> gradtrack.select(x, 1, 2)
    tensor([3, 6])
    """,
    "chunk": """Splits into ``chunks`` views of (nearly) equal size along ``dim``.

    >>> x = gradtrack.tensor([1, 2, 3, 4, 5])
    >>> gradtrack.chunk(x, 2)
    (tensor([1, 2, 3]), tensor([4, 5]))
    """,
    "unbind": """The slices along ``dim`` as a tuple of views (the dim removed).

    >>> x = gradtrack.tensor([[1, 2], [3, 4]])
    >>> gradtrack.unbind(x)
    (tensor([1, 2]), tensor([3, 4]))
    """,
    "split": """
    >>> gradtrack.split(gradtrack.arange(5), 2)
    (tensor([0, 1]), tensor([2, 3]), tensor([4]))
    >>> gradtrack.split(gradtrack.arange(5), [1, 4])
    (tensor([0]), tensor([1, 2, 3, 4]))
    """,
    "reshape": """The elements in a new shape: a view when the strides allow it, else a copy.
    One size may be -1 (inferred).

    >>> gradtrack.reshape(gradtrack.arange(6), (2, -1))
    tensor([[0, 1, 2],
            [3, 4, 5]])
    """,
    "permute": """A view with the dims in the order ``dims``.

    >>> gradtrack.permute(gradtrack.zeros(2, 3, 4), (2, 0, 1)).shape
    gradtrack.Size([4, 2, 3])
    """,
    "as_strided": """A view of the same memory with the given sizes, strides and offset.

    >>> gradtrack.as_strided(gradtrack.arange(6), (2, 2), (1, 2))
    tensor([[0, 2],
            [1, 3]])
    """,
    "atleast_2d": """Each tensor as at least 2-D.

    >>> gradtrack.atleast_2d(gradtrack.tensor([1, 2])).shape
    gradtrack.Size([1, 2])
    """,
    "atleast_3d": """Each tensor as at least 3-D.

    >>> gradtrack.atleast_3d(gradtrack.tensor([1, 2])).shape
    gradtrack.Size([1, 2, 1])
    """,
    "detach": """A tensor sharing the data (and version counter) but outside the graph.

    >>> x = gradtrack.tensor([1.0], requires_grad=True)
    >>> gradtrack.detach(x * 2).requires_grad
    False
    """,
}

METHODS = {
    "unfold": """A view of the windows of ``size`` elements every ``step`` along ``dimension``:
    that dim counts the windows, a new last dim holds each window (``UnfoldBackward0``).

    >>> gradtrack.arange(5).unfold(0, 2, 2)
    tensor([[0, 1],
            [2, 3]])
    """,
    "flatten": """The dims from ``start_dim`` to ``end_dim`` merged into one.

    >>> gradtrack.tensor([[[1, 2], [3, 4]]]).flatten(start_dim=1)
    tensor([[1, 2, 3, 4]])
    """,
    "squeeze": """The tensor without dims of size one (or only ``dim``).

    >>> gradtrack.tensor([[[1.0], [2.0]]]).squeeze()
    tensor([1., 2.])
    """,
    "unsqueeze": """A view with a new dim of size one at ``dim``.

    >>> gradtrack.tensor([1.0, 2.0]).unsqueeze(1)
    tensor([[1.],
            [2.]])
    """,
    "t": """The transpose of a matrix (a 1-D tensor is returned as it is).

    >>> gradtrack.tensor([[1, 2, 3], [4, 5, 6]]).t()
    tensor([[1, 4],
            [2, 5],
            [3, 6]])
    """,
    "transpose": """A view with ``dim0`` and ``dim1`` swapped.

    >>> gradtrack.tensor([[1, 2, 3], [4, 5, 6]]).transpose(0, 1)
    tensor([[1, 4],
            [2, 5],
            [3, 6]])
    """,
    "swapaxes": """Alias of ``transpose``: a view with two dims swapped.

    >>> gradtrack.tensor([[1, 2, 3], [4, 5, 6]]).swapaxes(0, 1)
    tensor([[1, 4],
            [2, 5],
            [3, 6]])
    """,
    "narrow": """A view of ``length`` entries of ``dim`` starting at ``start``.

    >>> gradtrack.tensor([[1, 2, 3], [4, 5, 6]]).narrow(1, 1, 2)
    tensor([[2, 3],
            [5, 6]])
    """,
    "select": """A view of the slice ``index`` of ``dim`` (the dim is removed).

    >>> gradtrack.tensor([[1, 2, 3], [4, 5, 6]]).select(1, 2)
    tensor([3, 6])
    """,
    "chunk": """Splits into ``chunks`` views of (nearly) equal size along ``dim``.

    >>> gradtrack.tensor([1, 2, 3, 4, 5]).chunk(2)
    (tensor([1, 2, 3]), tensor([4, 5]))
    """,
    "unbind": """The slices along ``dim`` as a tuple of views (the dim removed).

    >>> gradtrack.tensor([[1, 2], [3, 4]]).unbind()
    (tensor([1, 2]), tensor([3, 4]))
    """,
    "view": """A tensor sharing this one's memory in a new shape (-1 is inferred); the
    strides must allow it (else use ``reshape``).

    >>> x = gradtrack.arange(6)
    >>> v = x.view(2, 3)
    >>> v[0, 0] = 9
    >>> x
    tensor([9, 1, 2, 3, 4, 5])

    ``view(dtype)`` reads the same bytes as another dtype. Like ``detach()`` it has no
    history and shares the version counter; a different element size rescales the
    last dim.

    >>> gradtrack.tensor([1.0]).view(gradtrack.int32)
    tensor([1065353216], dtype=gradtrack.int32)
    """,
    "view_as": """A view with ``other``'s shape.

    >>> gradtrack.arange(4).view_as(gradtrack.zeros(2, 2))
    tensor([[0, 1],
            [2, 3]])
    """,
    "reshape": """The elements in a new shape: a view when the strides allow it, else a copy.

    >>> gradtrack.arange(6).reshape(3, -1)
    tensor([[0, 1],
            [2, 3],
            [4, 5]])
    """,
    "reshape_as": """``reshape`` to ``other``'s shape.

    >>> gradtrack.arange(4).reshape_as(gradtrack.zeros(2, 2))
    tensor([[0, 1],
            [2, 3]])
    """,
    "expand": """A view repeating dims of size one to a larger size, without copying
    (-1 keeps a size).

    >>> gradtrack.tensor([[1], [2]]).expand(-1, 3)
    tensor([[1, 1, 1],
            [2, 2, 2]])
    """,
    "expand_as": """``expand`` to ``other``'s shape.

    >>> gradtrack.tensor([1, 2]).expand_as(gradtrack.zeros(2, 2))
    tensor([[1, 2],
            [1, 2]])
    """,
    "permute": """A view with the dims in the given order.

    >>> gradtrack.zeros(2, 3, 4).permute(2, 0, 1).shape
    gradtrack.Size([4, 2, 3])
    """,
    "as_strided": """A view of the same memory with the given sizes, strides and offset.

    >>> gradtrack.arange(6).as_strided((2, 2), (1, 2))
    tensor([[0, 2],
            [1, 3]])
    """,
    "split": """Views of consecutive pieces of ``split_size`` (or the listed sizes) along ``dim``.

    >>> gradtrack.arange(5).split([2, 3])
    (tensor([0, 1]), tensor([2, 3, 4]))
    """,
}

# Names that are both gradtrack.NAME and Tensor.NAME, with one text for both.
BOTH = {
    "dsplit": """``tensor_split`` along dim 2.

    >>> [t.shape for t in gradtrack.dsplit(gradtrack.zeros(1, 1, 4), 2)]
    [gradtrack.Size([1, 1, 2]), gradtrack.Size([1, 1, 2])]
    """,
    "hsplit": """``tensor_split`` along dim 1 (dim 0 for 1-D tensors).

    >>> [t.tolist() for t in gradtrack.hsplit(gradtrack.arange(4), 2)]
    [[0, 1], [2, 3]]
    """,
    "vsplit": """``tensor_split`` along dim 0 of a tensor with at least 2 dims.

    >>> [t.shape for t in gradtrack.vsplit(gradtrack.zeros(4, 2), 2)]
    [gradtrack.Size([2, 2]), gradtrack.Size([2, 2])]
    """,
    "moveaxis": """Another name of ``movedim``.

    >>> gradtrack.moveaxis(gradtrack.zeros(2, 3, 4), 0, -1).shape
    gradtrack.Size([3, 4, 2])
    """,
    "swapdims": """Another name of ``transpose``.

    >>> gradtrack.swapdims(gradtrack.zeros(2, 3), 0, 1).shape
    gradtrack.Size([3, 2])
    """,
}
