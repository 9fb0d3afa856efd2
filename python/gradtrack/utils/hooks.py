"""Handles returned by ``register_hook`` and friends, and the checks of hook results."""

from typing import Any

from .. import _C
from .._dtype_names import legacy_type_name


class RemovableHandle:
    """Removes the hook it was returned for; usable as a context manager.

    >>> import gradtrack
    >>> x = gradtrack.ones(2, requires_grad=True)
    >>> with x.register_hook(lambda g: g * 0):
    ...     (x * 3).sum().backward()
    >>> x.grad
    tensor([0., 0.])
    """

    def __init__(self, handle: Any) -> None:
        self._handle = handle

    @property
    def id(self) -> int:  # noqa: A003 - torch's name
        return self._handle.id

    def remove(self) -> None:
        """Unregisters the hook (idempotent)."""
        self._handle.remove()

    def __enter__(self) -> "RemovableHandle":
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


# ---- what a gradient hook may return (PyTorch's check_single_result) ----------------------

def hook_name(hook):
    """The name a hook goes by in messages: its ``__name__``, else ``<unknown>``."""
    name = getattr(hook, "__name__", None)
    return name if isinstance(name, str) else "<unknown>"


def check_hook_value(hook, original, value):
    """Refuses a replacement gradient that is not a tensor, or has another dtype or shape
    than the gradient it replaces (dtype is checked first, as PyTorch does)."""
    if value is None:
        return
    if original is None:
        raise RuntimeError("can't replace a None gradient with a non-None value")
    if not isinstance(value, _C.Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(value).__name__}'")
    if value.dtype is not original.dtype:
        raise RuntimeError(f"hook '{hook_name(hook)}' has changed the type of value (was "
                           f"{legacy_type_name(original)} got {legacy_type_name(value)})")
    if value.shape != original.shape:
        raise RuntimeError(f"hook '{hook_name(hook)}' has changed the size of value")


def check_hook_values(hook, originals, result):
    """A node hook's result: None (keep the gradients) or a tuple with one entry per
    gradient, each None or a tensor that passes :func:`check_hook_value`.

    >>> import gradtrack
    >>> from gradtrack.autograd.graph import check_hook_values
    >>> check_hook_values(print, (gradtrack.ones(2),), None) is None
    True
    """
    if result is None:
        return None
    if not isinstance(result, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(result).__name__}'")
    if len(result) != len(originals):
        raise RuntimeError(f"hook '{hook_name(hook)}' has returned an incorrect number of values "
                           f"(got {len(result)}, but expected {len(originals)})")
    for original, value in zip(originals, result):
        check_hook_value(hook, original, value)
    return result
