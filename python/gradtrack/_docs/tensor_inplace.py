"""Docstrings of the Tensor's generated in-place methods (``exp_``, ``add_``...)."""

DOCS = {
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
    "divide_": """In-place ``divide`` (alias of ``div_``); returns ``self``.

    >>> x = gradtrack.tensor([7.0, -7.0, 3.0])
    >>> x.divide_(2.0, rounding_mode='floor')
    tensor([ 3., -4.,  1.])
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
    "clip_": """In-place ``clip`` (alias of ``clamp_``); returns ``self``.

    >>> x = gradtrack.tensor([-1.0, 0.5, 2.0])
    >>> x.clip_(min=0.0, max=1.0)
    tensor([0.0000, 0.5000, 1.0000])
    """,
}
