"""Docstrings of ``softmax`` and ``log_softmax`` (``_ops/nn.py``).

``FUNCTIONS`` documents ``gradtrack.NAME``, ``METHODS`` ``Tensor.NAME``.
"""

FUNCTIONS = {
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
}

METHODS = {
    "softmax": """Exponentials normalised to sum to one along ``dim``.

    >>> gradtrack.tensor([[1.0, 2.0, 3.0]]).softmax(dim=1)
    tensor([[0.0900, 0.2447, 0.6652]])
    """,
    "log_softmax": """The logarithm of ``softmax``, computed stably.

    >>> gradtrack.tensor([[1.0, 2.0, 3.0]]).log_softmax(dim=1)
    tensor([[-2.4076, -1.4076, -0.4076]])
    """,
}
