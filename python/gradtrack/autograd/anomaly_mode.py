"""Anomaly detection: remember each node's forward stack; on a backward error,
warn with the stack of the node whose backward failed (as PyTorch does)."""

import warnings

from .. import _C

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled"]

is_anomaly_enabled = _C.is_anomaly_enabled
is_anomaly_check_nan_enabled = _C.is_anomaly_check_nan_enabled


def _capture_stack():
    import traceback  # only in anomaly mode: keeps `import gradtrack` fast
    # Drop the frame of this function; keep the user's frames.
    return "".join(traceback.format_stack()[:-1])


def _warn(name, stack):
    warnings.warn(f"Error detected in {name}. Traceback of forward call that caused the "
                  f"error:\n{stack}", UserWarning, stacklevel=3)


def _apply(enabled, check_nan):
    _C._set_anomaly_enabled(enabled, check_nan)
    if enabled:
        _C._set_anomaly_hooks(_capture_stack, _warn)
    else:
        _C._set_anomaly_hooks(None, None)


def set_anomaly_enabled(enabled, check_nan=True):
    """Switches anomaly mode on or off for good, as ``torch.set_anomaly_enabled``.

    ``check_nan`` also makes a backward that produces NaN raise.

    >>> import gradtrack
    >>> gradtrack.set_anomaly_enabled(True, check_nan=False)
    >>> gradtrack.is_anomaly_enabled(), gradtrack.is_anomaly_check_nan_enabled()
    (True, False)
    >>> gradtrack.set_anomaly_enabled(False)
    """
    _apply(enabled, check_nan)


class detect_anomaly:
    """Context manager that enables anomaly detection (and says so).

    >>> import gradtrack
    >>> with gradtrack.autograd.detect_anomaly():
    ...     gradtrack.is_anomaly_enabled()
    True
    """

    def __init__(self, check_nan: bool = True) -> None:
        self.prev = (_C.is_anomaly_enabled(), _C.is_anomaly_check_nan_enabled())
        self.check_nan = check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", UserWarning, stacklevel=2)

    def __enter__(self) -> None:
        _apply(True, self.check_nan)

    def __exit__(self, *exc: object) -> None:
        _apply(*self.prev)


class set_detect_anomaly:
    """Sets anomaly detection now; as a context manager, restores it on exit.

    >>> import gradtrack
    >>> with gradtrack.autograd.set_detect_anomaly(True):
    ...     gradtrack.is_anomaly_enabled()
    True
    >>> gradtrack.is_anomaly_enabled()
    False
    """

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = (_C.is_anomaly_enabled(), _C.is_anomaly_check_nan_enabled())
        _apply(bool(mode), check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        _apply(*self.prev)
