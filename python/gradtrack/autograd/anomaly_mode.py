"""Anomaly detection: remember each node's forward stack; on a backward error,
warn with the stack of the node whose backward failed (as PyTorch does)."""

import os
import warnings

from .. import _C

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled"]

is_anomaly_enabled = _C.is_anomaly_enabled
is_anomaly_check_nan_enabled = _C.is_anomaly_check_nan_enabled


_LAUNCHER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                         "as_torch.py")


def _launcher_frames(frames):
    """How many outer frames belong to ``python -m gradtrack.as_torch`` (the runner and
    runpy's frames up to the script's own), none when it did not start the program: the
    stack then reads as the script run by ``python`` directly."""
    last = max((i for i, f in enumerate(frames) if f.filename == _LAUNCHER), default=None)
    if last is None:
        return 0
    end = last + 1
    while end < len(frames) and (frames[end].filename.startswith("<frozen runpy")
                                 or os.path.basename(frames[end].filename) == "runpy.py"):
        end += 1
    return end


def _capture_stack():
    import traceback  # only in anomaly mode: keeps `import gradtrack` fast
    # Drop the frame of this function; keep the user's frames.
    frames = traceback.extract_stack()[:-1]
    return "".join(traceback.format_list(frames[_launcher_frames(frames):]))


def _warn(name, stack):
    # Attributed to the line that called the engine (NOTE [Engine entry]), as torch's
    # names its own call into its engine.
    warnings.warn(f"Error detected in {name}. Traceback of forward call that caused the "
                  f"error:\n{stack}", UserWarning, stacklevel=2)


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
