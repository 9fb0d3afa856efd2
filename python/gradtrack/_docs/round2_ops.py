"""Docstrings of the ops added late in round 2 (math, predicates, selection, shape
composites, the small dtypes); each area below that has the name gets it."""

DOCS = {
    "BFloat16Tensor": """A legacy constructor: a bfloat16 tensor of the given data or size.

    >>> gradtrack.BFloat16Tensor([1.5, 2.0])
    tensor([1.5000, 2.0000], dtype=gradtrack.bfloat16)
    """,
    "CharTensor": """A legacy constructor: an int8 tensor of the given data or size.

    >>> gradtrack.CharTensor([1, -2])
    tensor([ 1, -2], dtype=gradtrack.int8)
    """,
    "HalfTensor": """A legacy constructor: a float16 tensor of the given data or size.

    >>> gradtrack.HalfTensor([0.5, 2.0])
    tensor([0.5000, 2.0000], dtype=gradtrack.float16)
    """,
    "ShortTensor": """A legacy constructor: an int16 tensor of the given data or size.

    >>> gradtrack.ShortTensor([3, 4])
    tensor([3, 4], dtype=gradtrack.int16)
    """,
    "amin": """The smallest values over ``dim`` (all dims by default); ties share the gradient.

    >>> gradtrack.amin(gradtrack.tensor([[3.0, 1.0], [0.0, 5.0]]), dim=1)
    tensor([1., 0.])
    """,
    "masked_select": """The elements where ``mask`` (broadcast) is True, as a 1-D tensor.

    >>> x = gradtrack.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> gradtrack.masked_select(x, x > 1.5)
    tensor([2., 3., 4.])
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
    "dsplit": """``tensor_split`` along dim 2.

    >>> [t.shape for t in gradtrack.dsplit(gradtrack.zeros(1, 1, 4), 2)]
    [gradtrack.Size([1, 1, 2]), gradtrack.Size([1, 1, 2])]
    """,
    "dstack": """Concatenates along dim 2 after making each tensor at least 3-D.

    >>> gradtrack.dstack([gradtrack.tensor([1, 2]), gradtrack.tensor([3, 4])]).shape
    gradtrack.Size([1, 2, 2])
    """,
    "fix": """Rounds toward zero (``trunc``).

    >>> gradtrack.fix(gradtrack.tensor([-1.7, 1.7]))
    tensor([-1.,  1.])
    """,
    "flipud": """Flips dim 0.

    >>> gradtrack.flipud(gradtrack.tensor([1, 2, 3]))
    tensor([3, 2, 1])
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
    "where": """``where(condition, self, other)``: self where condition holds, else other.

    >>> x = gradtrack.tensor([1.0, -2.0, 3.0])
    >>> x.where(x > 0, gradtrack.tensor(0.0))
    tensor([1., 0., 3.])
    """,
    "bfloat16": """A copy in bfloat16 (the tensor itself if it already is).

    >>> gradtrack.tensor([1.0, 2.5]).bfloat16()
    tensor([1.0000, 2.5000], dtype=gradtrack.bfloat16)
    """,
    "half": """A copy in float16 (the tensor itself if it already is).

    >>> gradtrack.tensor([1.0, 2.5]).half()
    tensor([1.0000, 2.5000], dtype=gradtrack.float16)
    """,
    "char": """A copy in int8.

    >>> gradtrack.tensor([1, 2]).char()
    tensor([1, 2], dtype=gradtrack.int8)
    """,
    "short": """A copy in int16.

    >>> gradtrack.tensor([1, 2]).short()
    tensor([1, 2], dtype=gradtrack.int16)
    """,
    "is_pinned": """Whether the tensor is in pinned memory (never, on a CPU-only build).

    >>> gradtrack.zeros(2).is_pinned()
    False
    """,
    "pin_memory": """Copies to pinned memory: needs an accelerator, so it raises here as torch does.

    >>> gradtrack.zeros(2).pin_memory()
    Traceback (most recent call last):
        ...
    RuntimeError: Cannot access accelerator device when none is available.
    """,
    "layout": """The memory layout: always ``gradtrack.strided``.

    >>> gradtrack.zeros(2).layout
    gradtrack.strided
    """,
    "transpose_": """In-place ``transpose``: swaps two dims of this tensor's view (TransposeBackward1).

    >>> x = gradtrack.zeros(2, 3)
    >>> x.transpose_(0, 1).shape
    gradtrack.Size([3, 2])
    """,
}
