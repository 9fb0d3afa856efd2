"""Docstrings of making tensors: the factories, ``*_like``, ``as_tensor``,
``Tensor.new_*``, the layout. The Python ones are ``_ops/creation.py``.

``FUNCTIONS`` documents ``gradtrack.NAME``, ``METHODS`` ``Tensor.NAME``.
"""

FUNCTIONS = {
    "empty_strided": """An uninitialised tensor of ``size`` laid out in memory with ``stride``.

    >>> gradtrack.empty_strided((2, 3), (1, 2)).stride()
    (1, 2)
    """,
    "tensor": """A new tensor holding a copy of ``data`` (a number, nested lists, an array).

    >>> gradtrack.tensor([[1, 2], [3, 4]])
    tensor([[1, 2],
            [3, 4]])
    >>> gradtrack.tensor(2.5, requires_grad=True)
    tensor(2.5000, requires_grad=True)
    """,
    "as_tensor": """
    >>> import numpy as np
    >>> a = np.array([1.0, 2.0])
    >>> t = gradtrack.as_tensor(a)
    >>> a[0] = 7
    >>> t
    tensor([7., 2.], dtype=gradtrack.float64)
    """,
    "from_numpy": """A tensor sharing the memory of a NumPy array.

    >>> import numpy as np
    >>> a = np.array([1, 2, 3])
    >>> t = gradtrack.from_numpy(a)
    >>> t[0] = 10
    >>> a
    array([10,  2,  3])
    """,
    "zeros": """A tensor of the given shape filled with 0.

    >>> gradtrack.zeros(2, 3)
    tensor([[0., 0., 0.],
            [0., 0., 0.]])
    """,
    "ones": """A tensor of the given shape filled with 1.

    >>> gradtrack.ones(2, dtype=gradtrack.int64)
    tensor([1, 1])
    """,
    "empty": """A tensor of the given shape whose elements are not initialised.

    >>> gradtrack.empty(2, 3).shape
    gradtrack.Size([2, 3])
    """,
    "full": """A tensor of the given shape filled with ``fill_value``.

    >>> gradtrack.full((2, 2), 7.0)
    tensor([[7., 7.],
            [7., 7.]])
    """,
    "zeros_like": """
    >>> gradtrack.zeros_like(gradtrack.ones(2, 2))
    tensor([[0., 0.],
            [0., 0.]])
    """,
    "ones_like": """
    >>> gradtrack.ones_like(gradtrack.tensor([1, 2, 3]))
    tensor([1, 1, 1])
    """,
    "empty_like": """
    >>> gradtrack.empty_like(gradtrack.ones(2, 3)).shape
    gradtrack.Size([2, 3])
    """,
    "full_like": """
    >>> gradtrack.full_like(gradtrack.zeros(3), 0.5)
    tensor([0.5000, 0.5000, 0.5000])
    """,
    "rand_like": """
    >>> _ = gradtrack.manual_seed(0)
    >>> gradtrack.rand_like(gradtrack.zeros(3))
    tensor([0.4963, 0.7682, 0.0885])
    """,
    "randn_like": """
    >>> _ = gradtrack.manual_seed(0)
    >>> gradtrack.randn_like(gradtrack.zeros(3))
    tensor([ 1.5410, -0.2934, -2.1788])
    """,
    "arange": """The numbers from ``start`` up to (not including) ``end`` in steps of ``step``.

    >>> gradtrack.arange(5)
    tensor([0, 1, 2, 3, 4])
    >>> gradtrack.arange(1, 2, 0.25)
    tensor([1.0000, 1.2500, 1.5000, 1.7500])
    """,
    "linspace": """``steps`` numbers evenly spaced from ``start`` to ``end`` (both included).

    >>> gradtrack.linspace(0, 1, steps=5)
    tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000])
    """,
    "eye": """An ``n`` by ``m`` (default ``n``) matrix with ones on the diagonal.

    >>> gradtrack.eye(2, 3)
    tensor([[1., 0., 0.],
            [0., 1., 0.]])
    """,
}

METHODS = {
    "new_empty_strided": """A new uninitialised tensor of ``size`` laid out with ``stride``, with
    this tensor's dtype (unless given).

    >>> gradtrack.tensor([1.0]).new_empty_strided((2, 3), (1, 2)).stride()
    (1, 2)
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
}
