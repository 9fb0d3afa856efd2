"""Docstrings of ``gradtrack.dtype`` and ``is_floating_point`` (``_dtypes.py``).

``FUNCTIONS`` documents ``gradtrack.NAME``.
"""

FUNCTIONS = {
    "dtype": """The type of a tensor's elements (``gradtrack.float32``, ``gradtrack.int64``...).

    >>> gradtrack.float64.is_floating_point, gradtrack.float64.itemsize
    (True, 8)
    >>> gradtrack.tensor([1, 2]).dtype
    gradtrack.int64
    """,
    "is_floating_point": """
    >>> gradtrack.is_floating_point(gradtrack.ones(1)), gradtrack.is_floating_point(gradtrack.arange(2))
    (True, False)
    """,
}
