"""The argument checks of ``nn.utils.prune``'s methods, with torch's messages: how much
a method may prune (``amount``, an int count or a float share) and which tensors a
structured method can prune.

>>> from gradtrack.nn.utils._pruning_checks import _count_to_prune
>>> _count_to_prune(0.3, 10), _count_to_prune(4, 10)
(3, 4)
"""

import numbers


def _check_amount(amount) -> None:
    """``amount`` is a non-negative int (how many) or a float in [0, 1] (which share)."""
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if isinstance(amount, numbers.Integral):
        bad = amount < 0
    else:
        bad = float(amount) > 1.0 or float(amount) < 0.0
    if bad:
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a "
                         f"non-negative integer")


def _count_to_prune(amount, size):
    """How many of ``size`` units ``amount`` prunes; too many for an int is an error
    (a float share rounds half to even, as Python's ``round`` does)."""
    if not isinstance(amount, numbers.Integral):
        return round(amount * size)
    if amount > size:
        raise ValueError(f"amount={amount} should be smaller than the number of parameters to "
                         f"prune={size}")
    return amount


def _check_structured(t, dim):
    """A structured method needs channels: ``t`` has 2 dims or more, ``dim`` is one."""
    shape = t.shape
    if len(shape) <= 1:
        raise ValueError(f"Structured pruning can only be applied to multidimensional tensors. "
                         f"Found tensor of shape {shape} with {len(shape)} dims")
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")
