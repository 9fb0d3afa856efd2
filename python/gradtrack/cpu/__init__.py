"""``torch.cpu``: the CPU as a device module, beside ``torch.cuda``. gradtrack computes on
the CPU only, so this is the device that is always there: one of it, already initialized,
with streams and events that are in order by construction (every op has finished when it
returns), so waiting and synchronizing have nothing to do.

What torch's CPU module also has and this one leaves out: ``get_capabilities()`` (the
instruction-set flags torch's build dispatches on, which gradtrack's kernels do not
expose).

>>> import gradtrack
>>> gradtrack.cpu.is_available(), gradtrack.cpu.device_count(), gradtrack.cpu.current_device()
(True, 1, 'cpu')
"""

from contextlib import AbstractContextManager

from . import amp  # noqa: F401

__all__ = ["is_available", "is_initialized", "synchronize", "current_device", "current_stream",
           "stream", "set_device", "device_count", "Stream", "StreamContext", "Event"]


def is_available() -> bool:
    """True: the CPU is always there.

    >>> import gradtrack
    >>> gradtrack.cpu.is_available()
    True
    """
    return True


def is_initialized() -> bool:
    """True: the CPU needs no initialization.

    >>> import gradtrack
    >>> gradtrack.cpu.is_initialized()
    True
    """
    return True


def device_count() -> int:
    """1: the CPU counts as one device.

    >>> import gradtrack
    >>> gradtrack.cpu.device_count()
    1
    """
    return 1


def current_device() -> str:
    """``'cpu'``.

    >>> import gradtrack
    >>> gradtrack.cpu.current_device()
    'cpu'
    """
    return "cpu"


def set_device(device) -> None:
    """Does nothing: there is one CPU device.

    >>> import gradtrack
    >>> gradtrack.cpu.set_device("cpu")
    """


def synchronize(device=None) -> None:
    """Does nothing: every CPU op has finished when it returns.

    >>> import gradtrack
    >>> gradtrack.cpu.synchronize()
    """


class Stream:
    """A CPU stream: work on the CPU runs in program order, so a stream records and
    waits for nothing.

    >>> import gradtrack
    >>> s = gradtrack.cpu.Stream()
    >>> s.wait_stream(gradtrack.cpu.current_stream())
    """

    def __init__(self, priority: int = -1) -> None:
        self.priority = priority

    def wait_stream(self, stream) -> None:
        """Nothing to wait for."""

    def record_event(self) -> None:
        """Nothing to record."""

    def wait_event(self, event) -> None:
        """Nothing to wait for."""


class Event:
    """A CPU event: always complete.

    >>> import gradtrack
    >>> gradtrack.cpu.Event().query()
    True
    """

    def query(self) -> bool:
        """True: every CPU op has finished."""
        return True

    def record(self, stream=None) -> None:
        """Nothing to record."""

    def wait(self, stream=None) -> None:
        """Nothing to wait for."""

    def synchronize(self) -> None:
        """Nothing to wait for."""


# The streams in use, innermost last: the process's one stream at the bottom, then one per
# open stream(...) block.
_streams = [Stream()]


def current_stream(device=None) -> Stream:
    """The stream in use: the default one, or the one a ``stream(...)`` block set.

    >>> import gradtrack
    >>> gradtrack.cpu.current_stream() is gradtrack.cpu.current_stream()
    True
    """
    return _streams[-1]


class StreamContext(AbstractContextManager):
    """Makes ``stream`` the current stream inside the block (``None``: leaves it).

    >>> import gradtrack
    >>> s = gradtrack.cpu.Stream()
    >>> with gradtrack.cpu.StreamContext(s):
    ...     gradtrack.cpu.current_stream() is s
    True
    """

    def __init__(self, stream):
        self.stream = stream
        self._depth = None

    def __enter__(self):
        if self.stream is not None:
            self._depth = len(_streams)
            _streams.append(self.stream)

    def __exit__(self, *exc_info) -> None:
        if self._depth is not None:
            del _streams[self._depth:]
            self._depth = None


def stream(stream: Stream) -> AbstractContextManager:  # noqa: F811
    """A :class:`StreamContext` for ``stream``.

    >>> import gradtrack
    >>> with gradtrack.cpu.stream(gradtrack.cpu.Stream()):
    ...     pass
    """
    return StreamContext(stream)
