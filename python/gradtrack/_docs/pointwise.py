"""Docstrings of elementwise math beyond the op list's rows, whose docstrings the rows
carry (``_declarations/pointwise.py``): ``clamp``, ``rsub``, ``true_divide``, ``fix``
and torch's other names of elementwise methods (``absolute``, ``multiply``,
``greater``...). The Python ones are ``_ops/pointwise.py``.

``FUNCTIONS`` documents ``gradtrack.NAME``, ``METHODS`` ``Tensor.NAME``.
"""

FUNCTIONS = {
    "polygamma": """The ``n``-th derivative of the digamma function at each element (``n >= 0``).

    >>> x = gradtrack.tensor([0.5, 1.0, 2.0])
    >>> gradtrack.polygamma(1, x)
    tensor([4.9348, 1.6449, 0.6449])
    """,
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
    "clip": """
    >>> gradtrack.clip(gradtrack.tensor([-2.0, 0.5, 3.0]), -1.0, 1.0)
    tensor([-1.0000,  0.5000,  1.0000])
    """,
}

METHODS = {
    "polygamma": """The ``n``-th derivative of the digamma function at each element (``n >= 0``).

    >>> gradtrack.tensor([0.5, 1.0, 2.0]).polygamma(1)
    tensor([4.9348, 1.6449, 0.6449])
    """,
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
}

# Names that are both gradtrack.NAME and Tensor.NAME, with one text for both.
BOTH = {
    "fix": """Rounds toward zero (``trunc``).

    >>> gradtrack.fix(gradtrack.tensor([-1.7, 1.7]))
    tensor([-1.,  1.])
    """,
}
