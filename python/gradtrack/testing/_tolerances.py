"""Default tolerances: ``assert_close``'s table (by dtype, the larger of the two inputs'
values) and the older, looser one of the deprecated ``assert_allclose``.

>>> import gradtrack
>>> from gradtrack.testing._tolerances import resolve
>>> resolve(None, None, (gradtrack.float16, gradtrack.float64))
(0.001, 1e-05)
"""

import gradtrack

# dtype name: (rtol, atol); every other dtype compares exactly. torch's table, measured.
CLOSE = {
    "float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5),
    "float64": (1e-7, 1e-7), "complex32": (1e-3, 1e-5), "complex64": (1.3e-6, 1e-5),
    "complex128": (1e-7, 1e-7),
}
ALLCLOSE = {"float16": (1e-3, 1e-3), "float32": (1e-4, 1e-5), "float64": (1e-5, 1e-8)}


def _name(dtype):
    return str(dtype).rpartition(".")[2]


def defaults(dtypes, table=None):
    """The larger rtol and the larger atol of ``dtypes``' entries in ``table``.

    >>> import gradtrack
    >>> from gradtrack.testing._tolerances import ALLCLOSE, defaults
    >>> defaults((gradtrack.float32, gradtrack.float64), ALLCLOSE)
    (0.0001, 1e-05)
    >>> defaults((gradtrack.int64,))
    (0.0, 0.0)
    """
    table = CLOSE if table is None else table
    entries = [table.get(_name(dtype), (0.0, 0.0)) for dtype in dtypes]
    return max(rtol for rtol, _ in entries), max(atol for _, atol in entries)


def resolve(rtol, atol, dtypes):
    """``(rtol, atol)``: both given, or both the defaults of ``dtypes``; one alone is
    torch's ValueError.

    >>> from gradtrack.testing._tolerances import resolve
    >>> resolve(0.1, None, ())
    Traceback (most recent call last):
    ...
    ValueError: Both 'rtol' and 'atol' must be either specified or omitted, but got no atol.
    """
    if (rtol is None) != (atol is None):
        missing = "rtol" if rtol is None else "atol"
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, "
                         f"but got no {missing}.")
    if rtol is not None:
        return rtol, atol
    return defaults(dtypes)


# The dtype whose tolerances a Python number of each type gets.
NUMBER_DTYPES = {int: gradtrack.int64, float: gradtrack.float64, complex: gradtrack.complex128}
