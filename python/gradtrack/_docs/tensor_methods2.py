"""Docstrings of the Tensor's view, indexing, matrix, new-tensor and random-fill methods."""

DOCS = {
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
    "flip": """A copy with the order of elements reversed along ``dims``.

    >>> gradtrack.tensor([[1, 2], [3, 4]]).flip(1)
    tensor([[2, 1],
            [4, 3]])
    """,
    "repeat": """The tensor tiled: each dim repeated the given number of times (a copy).

    >>> gradtrack.tensor([1, 2]).repeat(2, 2)
    tensor([[1, 2, 1, 2],
            [1, 2, 1, 2]])
    """,
    "tile": """Like ``repeat``, padding the repeats with ones on the left when fewer are given.

    >>> gradtrack.tensor([[1, 2]]).tile((2,))
    tensor([[1, 2, 1, 2]])
    """,
    "split": """Views of consecutive pieces of ``split_size`` (or the listed sizes) along ``dim``.

    >>> gradtrack.arange(5).split([2, 3])
    (tensor([0, 1]), tensor([2, 3, 4]))
    """,
    "max": """The largest element, or the values and indices of the largest along ``dim``,
    or the elementwise larger of two tensors.

    >>> x = gradtrack.tensor([[1.0, 5.0], [3.0, 4.0]])
    >>> x.max()
    tensor(5.)
    >>> x.max(dim=1)
    gradtrack.return_types.max(
    values=tensor([5., 4.]),
    indices=tensor([1, 1]))
    """,
    "min": """The smallest element, or the values and indices of the smallest along ``dim``,
    or the elementwise smaller of two tensors.

    >>> x = gradtrack.tensor([[1.0, 5.0], [3.0, 4.0]])
    >>> x.min()
    tensor(1.)
    >>> x.min(dim=0).indices
    tensor([0, 1])
    """,
    "gather": """The elements picked along ``dim`` at the positions in ``index``.

    >>> gradtrack.tensor([[1, 2], [3, 4]]).gather(1, gradtrack.tensor([[1], [0]]))
    tensor([[2],
            [3]])
    """,
    "index_select": """The slices of ``dim`` listed in ``index``.

    >>> gradtrack.tensor([[1, 2], [3, 4]]).index_select(1, gradtrack.tensor([1]))
    tensor([[2],
            [4]])
    """,
    "masked_fill": """A copy with ``value`` where ``mask`` is True.

    >>> x = gradtrack.tensor([1.0, -2.0, 3.0])
    >>> x.masked_fill(x < 0, 0.0)
    tensor([1., 0., 3.])
    """,
    "masked_fill_": """
    >>> x = gradtrack.tensor([1.0, -2.0, 3.0])
    >>> x.masked_fill_(x < 0, 0.0)
    tensor([1., 0., 3.])
    >>> x._version
    1
    """,
    "scatter": """A copy with ``src`` (or ``value``) written at ``index`` along ``dim``.

    >>> gradtrack.zeros(3).scatter(0, gradtrack.tensor([2]), gradtrack.tensor([5.0]))
    tensor([0., 0., 5.])
    """,
    "scatter_": """
    >>> x = gradtrack.zeros(2, 2)
    >>> x.scatter_(1, gradtrack.tensor([[1], [0]]), 1.0)
    tensor([[0., 1.],
            [1., 0.]])
    """,
    "scatter_add": """A copy with ``src`` added at ``index`` along ``dim``.

    >>> gradtrack.zeros(3).scatter_add(0, gradtrack.tensor([0, 0, 2]), gradtrack.ones(3))
    tensor([2., 0., 1.])
    """,
    "scatter_add_": """
    >>> x = gradtrack.zeros(3)
    >>> x.scatter_add_(0, gradtrack.tensor([1, 1]), gradtrack.tensor([2.0, 3.0]))
    tensor([0., 5., 0.])
    """,
    "index_put_": """
    >>> x = gradtrack.zeros(4)
    >>> x.index_put_((gradtrack.tensor([0, 2]),), gradtrack.tensor([1.0, 5.0]))
    tensor([1., 0., 5., 0.])
    >>> x.index_put_((gradtrack.tensor([0, 0]),), gradtrack.tensor([1.0, 1.0]), accumulate=True)
    tensor([3., 0., 5., 0.])
    """,
    "copy_": """
    >>> x = gradtrack.zeros(2, 2)
    >>> x.copy_(gradtrack.tensor([1, 2]))
    tensor([[1., 2.],
            [1., 2.]])
    """,
    "fill_": """
    >>> gradtrack.zeros(3).fill_(2.5)
    tensor([2.5000, 2.5000, 2.5000])
    """,
    "zero_": """
    >>> x = gradtrack.ones(3)
    >>> x.zero_()
    tensor([0., 0., 0.])
    >>> x._version
    1
    """,
    "tril_": """Zeroes the elements above the ``diagonal``-th diagonal in place.

    >>> gradtrack.ones(3, 3).tril_()
    tensor([[1., 0., 0.],
            [1., 1., 0.],
            [1., 1., 1.]])
    """,
    "triu_": """Zeroes the elements below the ``diagonal``-th diagonal in place.

    >>> gradtrack.ones(3, 3).triu_(1)
    tensor([[0., 1., 1.],
            [0., 0., 1.],
            [0., 0., 0.]])
    """,
    "matmul": """The matrix product, with NumPy's rules for 1-D operands and batches (``@``).

    >>> a = gradtrack.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> a.matmul(gradtrack.tensor([1.0, 0.0]))
    tensor([1., 3.])
    """,
    "mm": """The product with a matrix.

    >>> gradtrack.tensor([[1.0, 2.0]]).mm(gradtrack.tensor([[3.0], [4.0]]))
    tensor([[11.]])
    """,
    "mv": """The product with a vector.

    >>> gradtrack.tensor([[1.0, 2.0], [3.0, 4.0]]).mv(gradtrack.tensor([1.0, 1.0]))
    tensor([3., 7.])
    """,
    "bmm": """The matrix products of two batches of matrices.

    >>> gradtrack.ones(2, 1, 3).bmm(gradtrack.ones(2, 3, 1))
    tensor([[[3.]],
    <BLANKLINE>
            [[3.]]])
    """,
    "addmv": """
    >>> gradtrack.zeros(2).addmv(gradtrack.eye(2), gradtrack.tensor([1.0, 2.0]), alpha=3)
    tensor([3., 6.])
    """,
    "baddbmm": """
    >>> gradtrack.ones(1, 1, 1).baddbmm(gradtrack.ones(1, 1, 2), gradtrack.ones(1, 2, 1))
    tensor([[[3.]]])
    """,
    "cross": """
    >>> gradtrack.tensor([1.0, 0.0, 0.0]).cross(gradtrack.tensor([0.0, 1.0, 0.0]), dim=0)
    tensor([0., 0., 1.])
    """,
    "new_tensor": """A new tensor of ``data`` with this tensor's dtype (unless given).

    >>> gradtrack.zeros(1, dtype=gradtrack.float64).new_tensor([1, 2])
    tensor([1., 2.], dtype=gradtrack.float64)
    """,
    "new_zeros": """A new tensor of zeros of ``size`` with this tensor's dtype.

    >>> gradtrack.tensor([1, 2]).new_zeros(3)
    tensor([0, 0, 0])
    """,
    "new_ones": """A new tensor of ones of ``size`` with this tensor's dtype.

    >>> gradtrack.tensor([1.0]).new_ones((2, 2))
    tensor([[1., 1.],
            [1., 1.]])
    """,
    "new_full": """A new tensor of ``size`` filled with ``fill_value``, with this tensor's dtype.

    >>> gradtrack.tensor([1]).new_full((3,), 7)
    tensor([7, 7, 7])
    """,
    "new_empty": """A new uninitialised tensor of ``size`` with this tensor's dtype.

    >>> gradtrack.tensor([1.0]).new_empty(2, 3).shape
    gradtrack.Size([2, 3])
    """,
    "bernoulli": """0/1 draws, 1 with the probability in each element (or ``p``).

    >>> _ = gradtrack.manual_seed(0)
    >>> gradtrack.tensor([0.0, 0.5, 1.0]).bernoulli()
    tensor([0., 0., 1.])
    """,
    "bernoulli_": """
    >>> _ = gradtrack.manual_seed(0)
    >>> gradtrack.zeros(4).bernoulli_(0.5)
    tensor([0., 0., 1., 0.])
    """,
    "multinomial": """``num_samples`` indices drawn by the weights in this tensor.

    >>> _ = gradtrack.manual_seed(0)
    >>> gradtrack.tensor([0.0, 1.0, 3.0]).multinomial(4, replacement=True)
    tensor([2, 2, 2, 2])
    """,
    "uniform_": """
    >>> _ = gradtrack.manual_seed(0)
    >>> gradtrack.empty(3).uniform_(-1, 1)
    tensor([-0.0075,  0.5364, -0.8230])
    """,
    "normal_": """
    >>> _ = gradtrack.manual_seed(0)
    >>> gradtrack.empty(3).normal_(mean=10.0, std=0.1)
    tensor([10.1541,  9.9707,  9.7821])
    """,
    "random_": """
    >>> _ = gradtrack.manual_seed(0)
    >>> gradtrack.empty(4).random_(0, 5)
    tensor([4., 4., 3., 0.])
    """,
    "exponential_": """
    >>> _ = gradtrack.manual_seed(0)
    >>> gradtrack.empty(3).exponential_(lambd=2.0)
    tensor([1.7542, 0.6152, 0.3075])
    """,
    "geometric_": """
    >>> _ = gradtrack.manual_seed(0)
    >>> gradtrack.empty(3).geometric_(0.5)
    tensor([1., 1., 2.])
    """,
    "log_normal_": """
    >>> _ = gradtrack.manual_seed(0)
    >>> gradtrack.empty(3).log_normal_()
    tensor([5.9263e+01, 1.5116e+00, 3.4819e-02])
    """,
    "cauchy_": """
    >>> _ = gradtrack.manual_seed(0)
    >>> gradtrack.empty(3).cauchy_()
    tensor([10.5977,  0.7648, -0.1283])
    """,
}
