"""Docstrings of the elementwise ops, reductions and shape functions bound in C++."""

DOCS = {
    "rsub": """``other - alpha * input`` (subtraction with the operands swapped).

    >>> x = gradtrack.tensor([1.0, 2.0, 3.0])
    >>> gradtrack.rsub(x, 10.0)
    tensor([9., 8., 7.])
    """,
    "true_divide": """Division without rounding; the same as ``div`` with no rounding_mode.

    >>> x = gradtrack.tensor([1.0, 2.0, 3.0])
    >>> gradtrack.true_divide(x, 2)
    tensor([0.5000, 1.0000, 1.5000])
    """,
    "clamp_min": """Raises every element below ``min`` to ``min``.

    >>> x = gradtrack.tensor([-1.0, 0.5, 2.0])
    >>> gradtrack.clamp_min(x, 0.0)
    tensor([0.0000, 0.5000, 2.0000])
    """,
    "clamp_max": """Lowers every element above ``max`` to ``max``.

    >>> x = gradtrack.tensor([-1.0, 0.5, 2.0])
    >>> gradtrack.clamp_max(x, 1.0)
    tensor([-1.0000,  0.5000,  1.0000])
    """,
    "clamp": """Limits every element to ``[min, max]``.

    >>> x = gradtrack.tensor([-1.0, 0.5, 2.0])
    >>> gradtrack.clamp(x, min=0.0, max=1.0)
    tensor([0.0000, 0.5000, 1.0000])
    """,
    "equal": """True if both tensors have the same shape and elements (a Python bool).

    >>> x = gradtrack.tensor([1.0, 2.0])
    >>> gradtrack.equal(x, gradtrack.tensor([1.0, 2.0]))
    True
    """,
    "dot": """The dot product of two 1-D tensors.

    >>> x = gradtrack.tensor([1.0, 2.0, 3.0])
    >>> gradtrack.dot(x, gradtrack.tensor([4.0, 5.0, 6.0]))
    tensor(32.)
    """,
    "outer": """The outer product of two 1-D tensors.

    >>> x = gradtrack.tensor([1.0, 2.0])
    >>> gradtrack.outer(x, gradtrack.tensor([1.0, 10.0, 100.0]))
    tensor([[  1.,  10., 100.],
            [  2.,  20., 200.]])
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
    "softmax": """Exponentials normalised to sum to one along ``dim``.

    >>> x = gradtrack.tensor([[1.0, 2.0, 3.0]])
    >>> gradtrack.softmax(x, dim=1)
    tensor([[0.0900, 0.2447, 0.6652]])
    """,
    "log_softmax": """The logarithm of ``softmax``, computed stably.

    >>> x = gradtrack.tensor([[1.0, 2.0, 3.0]])
    >>> gradtrack.log_softmax(x, dim=1)
    tensor([[-2.4076, -1.4076, -0.4076]])
    """,
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
    "clone": """A copy with its own memory; gradients flow back to ``input``.

    >>> x = gradtrack.tensor([1.0, 2.0])
    >>> gradtrack.clone(x)
    tensor([1., 2.])
    """,
    "trace": """The sum of a matrix's main diagonal.

    >>> x = gradtrack.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> gradtrack.trace(x)
    tensor(5.)
    """,
}
