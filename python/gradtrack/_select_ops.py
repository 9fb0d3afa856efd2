"""Selecting by value: ``nonzero``, ``argwhere`` and ``count_nonzero`` (the C++ op
``_C._ops.nonzero`` finds the rows; ``masked_select``, ``amin`` and the float
predicates ``isinf``/``isfinite``/... are bound from C++ directly).

>>> import gradtrack
>>> gradtrack.nonzero(gradtrack.tensor([[0, 3], [5, 0]]))
tensor([[0, 1],
        [1, 0]])
"""

import builtins

from . import _C


def nonzero(input, *, as_tuple=False):  # noqa: A002 - torch's argument name
    """The indices of the nonzero elements: one row per element, or with
    ``as_tuple=True`` one 1-D tensor per dim (a 0-d input counts as 1-D).

    >>> import gradtrack
    >>> gradtrack.nonzero(gradtrack.tensor([0.0, 2.0, 1.0]), as_tuple=True)
    (tensor([1, 2]),)
    """
    rows = _C._ops.nonzero(input)
    if not as_tuple:
        return rows
    if input.dim() == 0:  # torch answers as for the 1-element 1-D tensor
        return (_C._ops.nonzero(input.reshape(1)).reshape(-1),)
    return tuple(rows[:, k] for k in range(input.dim()))


def argwhere(input):  # noqa: A002
    """``nonzero(input)``: one row of indices per nonzero element.

    >>> import gradtrack
    >>> gradtrack.argwhere(gradtrack.tensor([1, 0, 7]))
    tensor([[0],
            [2]])
    """
    return _C._ops.nonzero(input)


def count_nonzero(input, dim=None):  # noqa: A002
    """How many elements are nonzero, overall or along ``dim`` (an int or tuple).

    >>> import gradtrack
    >>> gradtrack.count_nonzero(gradtrack.tensor([[0, 1], [2, 3]]), dim=0)
    tensor([1, 2])
    """
    from . import int64
    flags = input != 0
    if dim is None:
        return flags.sum(dtype=int64)
    dims = (dim,) if isinstance(dim, builtins.int) else tuple(dim)
    return flags.sum(dims, dtype=int64)


FUNCTIONS = (nonzero, argwhere, count_nonzero)


def install(cls):
    """Attaches ``x.nonzero()``, ``x.argwhere()`` and ``x.count_nonzero()``."""
    from ._extra_ops import _method
    for fn in FUNCTIONS:
        setattr(cls, fn.__name__, _method(fn))
