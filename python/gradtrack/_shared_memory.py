"""Tensors whose memory other processes map: ``Tensor.share_memory_`` and ``is_shared``,
and the sharing strategy ``gradtrack.multiprocessing`` sends them by; and
``Tensor.untyped_storage()``, what a program asks about a tensor's memory.

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


class UntypedStorage:
    """The memory under a tensor, as ``Tensor.untyped_storage()`` gives it: its address,
    its size in bytes and whether it is shared, which is what programs ask of it (to
    find tensors that share memory before saving them, for instance).

    Each call gives a new object for the same memory (torch hands back the same one), so
    compare ``data_ptr()`` values, not the objects.

    >>> import gradtrack
    >>> x = gradtrack.arange(4.0)
    >>> s = x[1:].untyped_storage()
    >>> s.nbytes(), s.data_ptr() == x.untyped_storage().data_ptr(), s.device
    (16, True, device(type='cpu'))
    """

    def __init__(self, tensor):
        self._tensor = tensor.detach()  # keeps the memory alive, as torch's storage does

    def data_ptr(self):
        """The address of the first byte."""
        return self._tensor.untyped_storage_ptr()

    def nbytes(self):
        """The size in bytes."""
        return self._tensor._storage_nbytes()

    def size(self):
        """The size in bytes (an untyped storage's elements are bytes)."""
        return self.nbytes()

    def __len__(self):
        return self.nbytes()

    def element_size(self):
        """1: an untyped storage holds bytes."""
        return 1

    @property
    def device(self):
        """The CPU, where gradtrack's memory lives."""
        from ._legacy import device
        return device("cpu")

    def is_shared(self):
        """Whether the memory is in a shared-memory mapping (:func:`share_memory_`)."""
        return _C._is_shared(self._tensor)


def untyped_storage(self):
    """The memory under ``self`` (:class:`UntypedStorage`), shared with its views.

    >>> import gradtrack
    >>> x = gradtrack.zeros(3)
    >>> x.untyped_storage().nbytes(), x.untyped_storage().data_ptr() == x.data_ptr()
    (12, True)
    """
    return UntypedStorage(self)


NAMES = {"UntypedStorage": UntypedStorage}
METHODS = {"share_memory_": share_memory_, "is_shared": is_shared,
           "untyped_storage": untyped_storage}
