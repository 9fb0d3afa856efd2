"""Docstrings of the reductions: sums, means, extremes, ``all``/``any``, the statistics and
``equal``. The Python ones are ``_ops/reduction.py``.

``FUNCTIONS`` documents ``gradtrack.NAME``, ``METHODS`` ``Tensor.NAME``.
"""

FUNCTIONS = {
    "equal": """True if both tensors have the same shape and elements (a Python bool).

    >>> x = gradtrack.tensor([1.0, 2.0])
    >>> gradtrack.equal(x, gradtrack.tensor([1.0, 2.0]))
    True
    """,
    "sum": """The sum of all elements, or along ``dim``.

    >>> x = gradtrack.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> gradtrack.sum(x, dim=0)
    tensor([4., 6.])
    """,
    "mean": """The mean of all elements, or along ``dim``.

    >>> x = gradtrack.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> gradtrack.mean(x, dim=1)
    tensor([1.5000, 3.5000])
    """,
    "prod": """The product of all elements, or along ``dim``.

    >>> x = gradtrack.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> gradtrack.prod(x, dim=1)
    tensor([ 2., 12.])
    """,
    "amax": """The largest values along ``dim`` (all dims by default).

    >>> x = gradtrack.tensor([[1.0, 5.0], [3.0, 4.0]])
    >>> gradtrack.amax(x, dim=0)
    tensor([3., 5.])
    """,
    "argmax": """The index of the largest value (of the flattened tensor, or along ``dim``).

    >>> x = gradtrack.tensor([[1.0, 5.0], [3.0, 4.0]])
    >>> gradtrack.argmax(x, dim=1)
    tensor([1, 1])
    """,
    "argmin": """The index of the smallest value (of the flattened tensor, or along ``dim``).

    >>> x = gradtrack.tensor([[1.0, 5.0], [3.0, 4.0]])
    >>> gradtrack.argmin(x, dim=1)
    tensor([0, 0])
    """,
    "all": """True if every element is nonzero (of the whole tensor, or along ``dim``).

    >>> x = gradtrack.tensor([[1.0, 0.0], [3.0, 4.0]])
    >>> gradtrack.all(x, dim=1)
    tensor([False,  True])
    """,
    "any": """True if some element is nonzero (of the whole tensor, or along ``dim``).

    >>> x = gradtrack.tensor([[0.0, 0.0], [3.0, 0.0]])
    >>> gradtrack.any(x, dim=1)
    tensor([False,  True])
    """,
    "var": """The variance over ``dim`` (all by default), dividing by N - correction.

    >>> x = gradtrack.tensor([[1.0, 2.0], [3.0, 5.0]])
    >>> gradtrack.var(x, dim=1)
    tensor([0.5000, 2.0000])
    """,
    "std": """The standard deviation over ``dim`` (all by default), dividing by N - correction.

    >>> x = gradtrack.tensor([[1.0, 2.0], [3.0, 5.0]])
    >>> gradtrack.std(x, dim=1)
    tensor([0.7071, 1.4142])
    """,
    "max": """
    >>> x = gradtrack.tensor([[1.0, 5.0], [3.0, 4.0]])
    >>> gradtrack.max(x)
    tensor(5.)
    >>> gradtrack.max(x, dim=1)
    gradtrack.return_types.max(
    values=tensor([5., 4.]),
    indices=tensor([1, 1]))
    """,
    "min": """
    >>> x = gradtrack.tensor([[1.0, 5.0], [3.0, 4.0]])
    >>> gradtrack.min(x)
    tensor(1.)
    >>> gradtrack.min(x, dim=0)
    gradtrack.return_types.min(
    values=tensor([1., 4.]),
    indices=tensor([0, 1]))
    """,
    "std_mean": """
    >>> gradtrack.std_mean(gradtrack.tensor([1.0, 2.0, 6.0]))
    (tensor(2.6458), tensor(3.))
    """,
    "var_mean": """
    >>> gradtrack.var_mean(gradtrack.tensor([1.0, 2.0, 6.0]))
    (tensor(7.), tensor(3.))
    """,
}

METHODS = {
    "sum": """The sum of all elements, or along ``dim``.

    >>> gradtrack.tensor([[1.0, 2.0], [3.0, 4.0]]).sum(dim=0)
    tensor([4., 6.])
    """,
    "mean": """The mean of all elements, or along ``dim``.

    >>> gradtrack.tensor([[1.0, 2.0], [3.0, 4.0]]).mean(dim=1)
    tensor([1.5000, 3.5000])
    """,
    "prod": """The product of all elements, or along ``dim``.

    >>> gradtrack.tensor([[1.0, 2.0], [3.0, 4.0]]).prod(dim=1)
    tensor([ 2., 12.])
    """,
    "amax": """The largest values along ``dim`` (all dims by default).

    >>> gradtrack.tensor([[1.0, 5.0], [3.0, 4.0]]).amax(dim=0)
    tensor([3., 5.])
    """,
    "argmax": """The index of the largest value (of the flattened tensor, or along ``dim``).

    >>> gradtrack.tensor([[1.0, 5.0], [3.0, 4.0]]).argmax(dim=1)
    tensor([1, 1])
    """,
    "argmin": """The index of the smallest value (of the flattened tensor, or along ``dim``).

    >>> gradtrack.tensor([[1.0, 5.0], [3.0, 4.0]]).argmin(dim=1)
    tensor([0, 0])
    """,
    "all": """True if every element is nonzero (of the whole tensor, or along ``dim``).

    >>> gradtrack.tensor([[1.0, 0.0], [3.0, 4.0]]).all(dim=1)
    tensor([False,  True])
    """,
    "any": """True if some element is nonzero (of the whole tensor, or along ``dim``).

    >>> gradtrack.tensor([[0.0, 0.0], [3.0, 0.0]]).any(dim=1)
    tensor([False,  True])
    """,
    "var": """The variance over ``dim`` (all by default), dividing by N - correction.

    >>> gradtrack.tensor([[1.0, 2.0], [3.0, 5.0]]).var(dim=1)
    tensor([0.5000, 2.0000])
    """,
    "std": """The standard deviation over ``dim`` (all by default), dividing by N - correction.

    >>> gradtrack.tensor([[1.0, 2.0], [3.0, 5.0]]).std(dim=1)
    tensor([0.7071, 1.4142])
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
}

# Names that are both gradtrack.NAME and Tensor.NAME, with one text for both.
BOTH = {
    "amin": """The smallest values over ``dim`` (all dims by default); ties share the gradient.

    >>> gradtrack.amin(gradtrack.tensor([[3.0, 1.0], [0.0, 5.0]]), dim=1)
    tensor([1., 0.])
    """,
}
