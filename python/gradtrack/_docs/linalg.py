"""Docstrings of the products and contractions: ``mm``, ``bmm``, ``matmul``, ``dot``,
``outer``, the fused ``add*`` products, ``cross``, ``trace``, ``tensordot``. The Python
ones are ``_ops/linalg.py``.

``FUNCTIONS`` documents ``gradtrack.NAME``, ``METHODS`` ``Tensor.NAME``.
"""

FUNCTIONS = {
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
    "trace": """The sum of a matrix's main diagonal.

    >>> x = gradtrack.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> gradtrack.trace(x)
    tensor(5.)
    """,
    "matmul": """The matrix product, with NumPy's rules for 1-D operands and batches.

    >>> a = gradtrack.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> gradtrack.matmul(a, gradtrack.tensor([1.0, 1.0]))
    tensor([3., 7.])
    >>> gradtrack.matmul(a, a)
    tensor([[ 7., 10.],
            [15., 22.]])
    """,
    "mm": """The product of two matrices.

    >>> gradtrack.mm(gradtrack.tensor([[1.0, 2.0]]), gradtrack.tensor([[3.0], [4.0]]))
    tensor([[11.]])
    """,
    "mv": """The product of a matrix and a vector.

    >>> gradtrack.mv(gradtrack.tensor([[1.0, 2.0], [3.0, 4.0]]), gradtrack.tensor([1.0, -1.0]))
    tensor([-1., -1.])
    """,
    "bmm": """The matrix products of two batches of matrices.

    >>> gradtrack.bmm(gradtrack.ones(2, 1, 3), gradtrack.ones(2, 3, 2))
    tensor([[[3., 3.]],
    <BLANKLINE>
            [[3., 3.]]])
    """,
    "addmm": """``beta * input + alpha * (mat1 @ mat2)``.

    >>> m = gradtrack.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> gradtrack.addmm(gradtrack.ones(2, 2), m, m, beta=0.5)
    tensor([[ 7.5000, 10.5000],
            [15.5000, 22.5000]])
    """,
    "addmv": """
    >>> m = gradtrack.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> gradtrack.addmv(gradtrack.ones(2), m, gradtrack.tensor([1.0, 1.0]))
    tensor([4., 8.])
    """,
    "baddbmm": """
    >>> gradtrack.baddbmm(gradtrack.zeros(2, 1, 1), gradtrack.ones(2, 1, 3), gradtrack.ones(2, 3, 1))
    tensor([[[3.]],
    <BLANKLINE>
            [[3.]]])
    """,
    "tensordot": """
    >>> a, b = gradtrack.arange(6.).reshape(2, 3), gradtrack.arange(3.)
    >>> gradtrack.tensordot(a, b, dims=1)
    tensor([ 5., 14.])
    """,
    "cross": """
    >>> gradtrack.cross(gradtrack.tensor([1.0, 0.0, 0.0]), gradtrack.tensor([0.0, 1.0, 0.0]), dim=0)
    tensor([0., 0., 1.])
    """,
}

METHODS = {
    "dot": """The dot product of two 1-D tensors.

    >>> gradtrack.tensor([1.0, 2.0, 3.0]).dot(gradtrack.tensor([4.0, 5.0, 6.0]))
    tensor(32.)
    """,
    "outer": """The outer product of two 1-D tensors.

    >>> gradtrack.tensor([1.0, 2.0]).outer(gradtrack.tensor([1.0, 10.0, 100.0]))
    tensor([[  1.,  10., 100.],
            [  2.,  20., 200.]])
    """,
    "trace": """The sum of a matrix's main diagonal.

    >>> gradtrack.tensor([[1.0, 2.0], [3.0, 4.0]]).trace()
    tensor(5.)
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
    "addmm": """``beta * self + alpha * (mat1 @ mat2)``.

    >>> gradtrack.zeros(2, 2).addmm(gradtrack.eye(2), gradtrack.ones(2, 2), alpha=2)
    tensor([[2., 2.],
            [2., 2.]])
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
}
