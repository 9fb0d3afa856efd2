"""The bug torch can't see: writes to a saved tensor that its version counter
misses (``.data``, ``x.data = y``, NumPy and DLPack aliases), caught before
backward computes a wrong gradient.

``X.data.mul_(2)`` after ``Y = X ** 2`` changes what ``Y``'s node saved without a
version bump: torch's backward then uses the new values and returns a wrong
gradient with no error, and so does gradtrack by default. With the detector on,
every tensor a node saves is watched, and backward refuses, before any gradient is
accumulated, when the memory it would read differs from what was saved while the
version counter did not move. The error names the write (the op, its line and the
alias it went through) or, for NumPy and DLPack, says the memory changed outside
gradtrack. How it is done and what it costs: NOTE [Silent writes] in
``csrc/core/silent_writes.h``.

The mode in force when a tensor is saved decides whether it is checked, so a graph
built with the mode on stays checked if the mode is turned off before backward.
It is off by default (gradtrack then gives torch's numbers, wrong ones included);
``GRADTRACK_DETECT_SILENT_WRITES=1`` turns it on at import, and
``pytest -p gradtrack.detect_silent_writes`` runs a test suite with it on.
"""

import os

from .. import _C

__all__ = ["detect_silent_writes", "is_detect_silent_writes_enabled"]

ENVIRONMENT_VARIABLE = "GRADTRACK_DETECT_SILENT_WRITES"


class detect_silent_writes:  # noqa: N801 - named as torch names its modes (set_detect_anomaly)
    """Turns the silent-write detector on (or off with ``mode=False``).

    Called, it sets the mode for good; as a context manager, it restores the mode
    in force before it on exit. The mode is global, as anomaly detection's, and
    safe to use from several threads.

    >>> import gradtrack
    >>> X = gradtrack.tensor([1.0, 2.0, 3.0], requires_grad=True)
    >>> with gradtrack.autograd.detect_silent_writes():
    ...     Y = X ** 2
    >>> _ = X.data.mul_(2)  # the version counter cannot see this write
    >>> Y.sum().backward()
    Traceback (most recent call last):
      ...
    RuntimeError: one of the variables needed for gradient computation has been modified without ...
    >>> X.grad is None
    True
    """

    def __init__(self, mode: bool = True) -> None:
        self.prev = _C._is_detect_silent_writes_enabled()
        self.mode = bool(mode)
        _C._set_detect_silent_writes(self.mode)

    def __enter__(self) -> "detect_silent_writes":
        return self

    def __exit__(self, *exc: object) -> None:
        _C._set_detect_silent_writes(self.prev)

    def __repr__(self) -> str:
        return f"detect_silent_writes(mode={self.mode})"


def is_detect_silent_writes_enabled() -> bool:
    """Whether the silent-write detector watches what nodes save from now on.

    >>> import gradtrack
    >>> gradtrack.autograd.is_detect_silent_writes_enabled()
    False
    """
    return _C._is_detect_silent_writes_enabled()


def _from_environment() -> None:
    """``GRADTRACK_DETECT_SILENT_WRITES=1`` (any value but empty or 0) turns it on."""
    if os.environ.get(ENVIRONMENT_VARIABLE, "") not in ("", "0"):
        _C._set_detect_silent_writes(True)
