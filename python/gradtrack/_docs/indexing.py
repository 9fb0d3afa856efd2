"""Docstrings of indexing: gather/scatter, ``index_select``, masks, ``where``. The Python
ones are ``_ops/indexing.py``.

``FUNCTIONS`` documents ``gradtrack.NAME``, ``METHODS`` ``Tensor.NAME``.
"""

FUNCTIONS = {
    "gather": """The elements of ``input`` picked along ``dim`` at the positions in ``index``.

    >>> x = gradtrack.tensor([[1, 2], [3, 4]])
    >>> gradtrack.gather(x, 1, gradtrack.tensor([[0, 0], [1, 0]]))
    tensor([[1, 1],
            [4, 3]])
    """,
    "index_select": """The slices of ``dim`` listed in ``index`` (a 1-D integer tensor).

    >>> x = gradtrack.tensor([[1, 2], [3, 4], [5, 6]])
    >>> gradtrack.index_select(x, 0, gradtrack.tensor([2, 0]))
    tensor([[5, 6],
            [1, 2]])
    """,
    "scatter": """A copy of ``input`` with ``src`` (or ``value``) written at ``index`` along ``dim``.

    >>> x = gradtrack.zeros(2, 3)
    >>> gradtrack.scatter(x, 1, gradtrack.tensor([[2], [0]]), value=1.0)
    tensor([[0., 0., 1.],
            [1., 0., 0.]])
    """,
    "scatter_add": """A copy of ``input`` with ``src`` added at ``index`` along ``dim``.

    >>> x = gradtrack.zeros(4)
    >>> gradtrack.scatter_add(x, 0, gradtrack.tensor([0, 1, 0]), gradtrack.tensor([1.0, 2.0, 3.0]))
    tensor([4., 2., 0., 0.])
    """,
    "masked_fill": """A copy of ``input`` with ``value`` where ``mask`` is True.

    >>> x = gradtrack.tensor([1.0, 2.0, 3.0])
    >>> gradtrack.masked_fill(x, x > 1.5, 0.0)
    tensor([1., 0., 0.])
    """,
    "where": """Elements of ``input`` where ``condition`` is True, of ``other`` elsewhere.

    >>> x = gradtrack.tensor([-1.0, 2.0, -3.0])
    >>> gradtrack.where(x > 0, x, 0.0)
    tensor([0., 2., 0.])
    """,
}

METHODS = {
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
    "scatter": """A copy with ``src`` (or ``value``) written at ``index`` along ``dim``.

    >>> gradtrack.zeros(3).scatter(0, gradtrack.tensor([2]), gradtrack.tensor([5.0]))
    tensor([0., 0., 5.])
    """,
    "scatter_add": """A copy with ``src`` added at ``index`` along ``dim``.

    >>> gradtrack.zeros(3).scatter_add(0, gradtrack.tensor([0, 0, 2]), gradtrack.ones(3))
    tensor([2., 0., 1.])
    """,
    "where": """``where(condition, self, other)``: self where condition holds, else other.

    >>> x = gradtrack.tensor([1.0, -2.0, 3.0])
    >>> x.where(x > 0, gradtrack.tensor(0.0))
    tensor([1., 0., 3.])
    """,
}

# Names that are both gradtrack.NAME and Tensor.NAME, with one text for both.
BOTH = {
    "masked_select": """The elements where ``mask`` (broadcast) is True, as a 1-D tensor.

    >>> x = gradtrack.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> gradtrack.masked_select(x, x > 1.5)
    tensor([2., 3., 4.])
    """,
}
