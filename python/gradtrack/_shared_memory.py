"""Tensors whose memory other processes map: ``Tensor.share_memory_`` and ``is_shared``,
and the sharing strategy ``gradtrack.multiprocessing`` sends them by.

The bytes move into a POSIX shared-memory mapping in the C++ core (NOTE [Shared memory]
in csrc/core/shared_memory.cpp): every view of the storage follows, with its strides,
offset and version counter unchanged.
"""

import atexit

from . import _C

# A process counts itself out of the /dev/shm files it still maps when it exits, so the
# last one out removes them (NOTE [Shared memory]).
atexit.register(_C._release_shared_names)

# torch's strategies on Linux; file_descriptor is its default there.
STRATEGIES = ("file_descriptor", "file_system")
_strategy = {"current": "file_descriptor"}


def strategy():
    """The current sharing strategy."""
    return _strategy["current"]


def set_strategy(new_strategy):
    """Sets the sharing strategy, with torch's check and message."""
    if new_strategy not in STRATEGIES:
        raise AssertionError(f"invalid sharing strategy {new_strategy!r}, expected one of "
                             f"{set(STRATEGIES)}")
    _strategy["current"] = new_strategy


def share_memory_(self):
    """Moves the underlying storage to shared memory.

    This is a no-op if the underlying storage is already in shared memory. Every view of
    the storage follows, keeping its strides, offset and version; returns ``self``. The
    memory is a memfd (sharing strategy ``file_descriptor``, the default) or a file in
    ``/dev/shm`` (``file_system``), freed once no process maps it.

    >>> import gradtrack
    >>> x = gradtrack.zeros(4)
    >>> v = x[1:]
    >>> v.share_memory_() is v, x.is_shared()
    (True, True)
    """
    _C._share_memory(self, strategy() == "file_system")
    return self


def is_shared(self):
    """Checks if tensor is in shared memory.

    >>> import gradtrack
    >>> x = gradtrack.zeros(2)
    >>> x.is_shared(), x.share_memory_().is_shared()
    (False, True)
    """
    return _C._is_shared(self)


METHODS = {"share_memory_": share_memory_, "is_shared": is_shared}
