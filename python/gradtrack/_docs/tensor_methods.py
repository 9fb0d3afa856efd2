"""Docstrings of the Tensor's elementwise, reduction and shape methods (and their in-place forms)."""

DOCS = {
    "true_divide": """Division without rounding; the same as ``div`` with no rounding_mode.

    >>> gradtrack.tensor([1.0, 2.0, 3.0]).true_divide(2)
    tensor([0.5000, 1.0000, 1.5000])
    """,
    "clamp_min": """Raises every element below ``min`` to ``min``.

    >>> gradtrack.tensor([-1.0, 0.5, 2.0]).clamp_min(0.0)
    tensor([0.0000, 0.5000, 2.0000])
    """,
    "clamp_max": """Lowers every element above ``max`` to ``max``.

    >>> gradtrack.tensor([-1.0, 0.5, 2.0]).clamp_max(1.0)
    tensor([-1.0000,  0.5000,  1.0000])
    """,
    "clamp": """Limits every element to ``[min, max]``.

    >>> gradtrack.tensor([-1.0, 0.5, 2.0]).clamp(min=0.0, max=1.0)
    tensor([0.0000, 0.5000, 1.0000])
    """,
    "dot": """The dot product of two 1-D tensors.

    >>> gradtrack.tensor([1.0, 2.0, 3.0]).dot(gradtrack.tensor([4.0, 5.0, 6.0]))
    tensor(32.)
    """,
    "outer": """The outer product of two 1-D tensors.

    >>> gradtrack.tensor([1.0, 2.0]).outer(gradtrack.tensor([1.0, 10.0, 100.0]))
    tensor([[  1.,  10., 100.],
            [  2.,  20., 200.]])
    """,
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
    "softmax": """Exponentials normalised to sum to one along ``dim``.

    >>> gradtrack.tensor([[1.0, 2.0, 3.0]]).softmax(dim=1)
    tensor([[0.0900, 0.2447, 0.6652]])
    """,
    "log_softmax": """The logarithm of ``softmax``, computed stably.

    >>> gradtrack.tensor([[1.0, 2.0, 3.0]]).log_softmax(dim=1)
    tensor([[-2.4076, -1.4076, -0.4076]])
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
    "clone": """A copy with its own memory; gradients flow back to ``input``.

    >>> gradtrack.tensor([1.0, 2.0]).clone()
    tensor([1., 2.])
    """,
    "trace": """The sum of a matrix's main diagonal.

    >>> gradtrack.tensor([[1.0, 2.0], [3.0, 4.0]]).trace()
    tensor(5.)
    """,
    "absolute": """Alias of ``abs``: the absolute value of each element.

    >>> gradtrack.tensor([-1.5, 0.0, 2.0]).absolute()
    tensor([1.5000, 0.0000, 2.0000])
    """,
    "divide": """Alias of ``div``: the elementwise quotient; ``rounding_mode`` may be ``'trunc'`` or ``'floor'``.

    >>> gradtrack.tensor([7.0, -7.0, 3.0]).divide(2.0, rounding_mode='floor')
    tensor([ 3., -4.,  1.])
    """,
    "multiply": """Alias of ``mul``: the elementwise product, broadcasting.

    >>> gradtrack.tensor([1.0, 2.0, 3.0]).multiply(gradtrack.tensor([2.0, 0.5, -1.0]))
    tensor([ 2.,  1., -3.])
    """,
    "negative": """Alias of ``neg``: each element with its sign flipped.

    >>> gradtrack.tensor([-1.5, 0.0, 2.0]).negative()
    tensor([ 1.5000, -0.0000, -2.0000])
    """,
    "subtract": """Alias of ``sub``: ``input - alpha * other``, broadcasting.

    >>> gradtrack.tensor([1.0, 2.0, 3.0]).subtract(gradtrack.tensor([0.5, 0.5, 0.5]))
    tensor([0.5000, 1.5000, 2.5000])
    """,
    "greater": """Alias of ``gt``: a bool tensor, True where ``input > other``.

    >>> gradtrack.tensor([1.0, 2.0, 3.0]).greater(2.0)
    tensor([False, False,  True])
    """,
    "less": """Alias of ``lt``: a bool tensor, True where ``input < other``.

    >>> gradtrack.tensor([1.0, 2.0, 3.0]).less(2.0)
    tensor([ True, False, False])
    """,
    "clip": """Alias of ``clamp``: limits every element to ``[min, max]``.

    >>> gradtrack.tensor([-1.0, 0.5, 2.0]).clip(min=0.0, max=1.0)
    tensor([0.0000, 0.5000, 1.0000])
    """,
}
