"""Docstrings of the copies that rearrange or join elements: ``clone``, ``cat``/``stack``,
flips, repeats. The Python ones are ``_ops/shape.py``.

``FUNCTIONS`` documents ``gradtrack.NAME``, ``METHODS`` ``Tensor.NAME``.
"""

FUNCTIONS = {
    "clone": """A copy with its own memory; gradients flow back to ``input``.

    >>> x = gradtrack.tensor([1.0, 2.0])
    >>> gradtrack.clone(x)
    tensor([1., 2.])
    """,
    "cat": """Joins tensors along an existing dim ``dim``.

    >>> a, b = gradtrack.tensor([[1, 2]]), gradtrack.tensor([[3, 4]])
    >>> gradtrack.cat([a, b]), gradtrack.cat([a, b], dim=1)
    (tensor([[1, 2],
            [3, 4]]), tensor([[1, 2, 3, 4]]))
    """,
    "concat": """Alias of ``cat``: joins tensors along an existing dim.

    >>> gradtrack.concat([gradtrack.tensor([1, 2]), gradtrack.tensor([3])])
    tensor([1, 2, 3])
    """,
    "stack": """Joins tensors of equal shape along a new dim ``dim``.

    >>> gradtrack.stack([gradtrack.tensor([1, 2]), gradtrack.tensor([3, 4])], dim=1)
    tensor([[1, 3],
            [2, 4]])
    """,
    "dstack": """Concatenates along dim 2 after making each tensor at least 3-D.

    >>> gradtrack.dstack([gradtrack.tensor([1, 2]), gradtrack.tensor([3, 4])]).shape
    gradtrack.Size([1, 2, 2])
    """,
}

METHODS = {
    "clone": """A copy with its own memory; gradients flow back to ``input``.

    >>> gradtrack.tensor([1.0, 2.0]).clone()
    tensor([1., 2.])
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
}

# Names that are both gradtrack.NAME and Tensor.NAME, with one text for both.
BOTH = {
    "flipud": """Flips dim 0.

    >>> gradtrack.flipud(gradtrack.tensor([1, 2, 3]))
    tensor([3, 2, 1])
    """,
}
