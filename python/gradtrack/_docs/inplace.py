"""Docstrings of the in-place methods that are not rows of the op list, and torch's other
names of those that are (``multiply_``, ``negative_``...). The choke point they all pass
through is ``_inplace.py``.

``METHODS`` documents ``Tensor.NAME``.
"""

METHODS = {
    "true_divide_": """In-place ``true_divide``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([1.0, 2.0, 3.0])
    >>> x.true_divide_(2)
    tensor([0.5000, 1.0000, 1.5000])
    >>> x._version
    1
    """,
    "clamp_min_": """In-place ``clamp_min``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([-1.0, 0.5, 2.0])
    >>> x.clamp_min_(0.0)
    tensor([0.0000, 0.5000, 2.0000])
    >>> x._version
    1
    """,
    "clamp_max_": """In-place ``clamp_max``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([-1.0, 0.5, 2.0])
    >>> x.clamp_max_(1.0)
    tensor([-1.0000,  0.5000,  1.0000])
    >>> x._version
    1
    """,
    "clamp_": """In-place ``clamp``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([-1.0, 0.5, 2.0])
    >>> x.clamp_(min=0.0, max=1.0)
    tensor([0.0000, 0.5000, 1.0000])
    >>> x._version
    1
    """,
    "squeeze_": """In-place ``squeeze``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([[[1.0], [2.0]]])
    >>> x.squeeze_()
    tensor([1., 2.])
    >>> x._version
    1
    """,
    "unsqueeze_": """In-place ``unsqueeze``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([1.0, 2.0])
    >>> x.unsqueeze_(1)
    tensor([[1.],
            [2.]])
    >>> x._version
    1
    """,
    "t_": """In-place ``t``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([[1, 2, 3], [4, 5, 6]])
    >>> x.t_()
    tensor([[1, 4],
            [2, 5],
            [3, 6]])
    >>> x._version
    1
    """,
    "absolute_": """In-place ``absolute`` (alias of ``abs_``); returns ``self``.

    >>> x = gradtrack.tensor([-1.5, 0.0, 2.0])
    >>> x.absolute_()
    tensor([1.5000, 0.0000, 2.0000])
    """,
    "multiply_": """In-place ``multiply`` (alias of ``mul_``); returns ``self``.

    >>> x = gradtrack.tensor([1.0, 2.0, 3.0])
    >>> x.multiply_(gradtrack.tensor([2.0, 0.5, -1.0]))
    tensor([ 2.,  1., -3.])
    """,
    "negative_": """In-place ``negative`` (alias of ``neg_``); returns ``self``.

    >>> x = gradtrack.tensor([-1.5, 0.0, 2.0])
    >>> x.negative_()
    tensor([ 1.5000, -0.0000, -2.0000])
    """,
    "subtract_": """In-place ``subtract`` (alias of ``sub_``); returns ``self``.

    >>> x = gradtrack.tensor([1.0, 2.0, 3.0])
    >>> x.subtract_(gradtrack.tensor([0.5, 0.5, 0.5]))
    tensor([0.5000, 1.5000, 2.5000])
    """,
    "masked_fill_": """
    >>> x = gradtrack.tensor([1.0, -2.0, 3.0])
    >>> x.masked_fill_(x < 0, 0.0)
    tensor([1., 0., 3.])
    >>> x._version
    1
    """,
    "scatter_": """
    >>> x = gradtrack.zeros(2, 2)
    >>> x.scatter_(1, gradtrack.tensor([[1], [0]]), 1.0)
    tensor([[0., 1.],
            [1., 0.]])
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
    "transpose_": """In-place ``transpose``: swaps two dims of this tensor's view (TransposeBackward1).

    >>> x = gradtrack.zeros(2, 3)
    >>> x.transpose_(0, 1).shape
    gradtrack.Size([3, 2])
    """,
    "as_strided_": """In-place ``as_strided``: this tensor takes the given size, stride and storage
    offset over its own storage (AsStridedBackward1); the version counter moves.

    >>> x = gradtrack.arange(6.0)
    >>> x.as_strided_((2, 2), (1, 2), 1)
    tensor([[1., 3.],
            [2., 4.]])
    >>> x._version
    1
    """,
}
