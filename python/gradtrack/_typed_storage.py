"""``Tensor.storage()`` and ``TypedStorage``: torch's older view of a tensor's memory as
a flat sequence of elements of its dtype (deprecated in torch in favour of
``untyped_storage()``, and still met in older programs): its size, address, elements,
and writes to them, which reach every tensor over that memory without a version bump.

>>> import gradtrack, warnings
>>> x = gradtrack.arange(6.0).reshape(2, 3)[:, 1:]
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     s = x.storage()
>>> len(s), s[0], s.type()
(6, 0.0, 'gradtrack.FloatStorage')
"""

import builtins
import warnings

from ._dtype_names import dtype_key
from ._shared_memory import UntypedStorage

_WARNED = False
_LEGACY = {"bool": "BoolStorage", "uint8": "ByteStorage", "int8": "CharStorage",
           "int16": "ShortStorage", "int32": "IntStorage", "int64": "LongStorage",
           "float16": "HalfStorage", "bfloat16": "BFloat16Storage", "float32": "FloatStorage",
           "float64": "DoubleStorage"}


def _warn_deprecated():
    global _WARNED
    if not _WARNED:  # once a process, as torch's
        _WARNED = True
        warnings.warn("TypedStorage is deprecated. It will be removed in the future and "
                      "UntypedStorage will be the only storage class. This should only matter "
                      "to you if you are using storages directly.  To access UntypedStorage "
                      "directly, use tensor.untyped_storage() instead of tensor.storage()",
                      UserWarning, stacklevel=3)


class TypedStorage:
    """The memory under a tensor read as elements of its dtype, from the start of the
    memory (not of the tensor): ``size()`` elements, ``s[i]`` read and written as
    numbers.

    >>> import gradtrack, warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     s = gradtrack.tensor([1, 2]).storage()
    >>> s.tolist(), s.dtype, s.element_size()
    ([1, 2], gradtrack.int64, 8)
    """

    def __init__(self, tensor):
        self._tensor = tensor.detach()  # keeps the memory alive
        self.dtype = tensor.dtype

    def _elements(self):
        # every element of the memory, as a 1-d tensor over it (its own version counter)
        return self._tensor.data.as_strided((self.size(),), (1,), 0)

    @property
    def device(self):
        """The CPU, where gradtrack's memory lives."""
        from ._legacy import device
        return device("cpu")

    def size(self):
        """The number of elements the memory holds."""
        return self._tensor._storage_nbytes() // self.element_size()

    def __len__(self):
        return self.size()

    def element_size(self):
        """The bytes of one element."""
        return self._tensor.element_size()

    def nbytes(self):
        """The size of the memory in bytes."""
        return self._tensor._storage_nbytes()

    def data_ptr(self):
        """The address of the first element (of the memory, not of the tensor)."""
        return self._tensor.untyped_storage_ptr()

    def untyped(self):
        """The same memory as an :class:`UntypedStorage`."""
        return UntypedStorage(self._tensor)

    def is_shared(self):
        """Whether the memory is in a shared-memory mapping."""
        return self.untyped().is_shared()

    def is_pinned(self, device="cuda"):
        """False: gradtrack has no pinned memory."""
        return False

    def type(self):
        """The legacy name of this storage's type (``'gradtrack.FloatStorage'``)."""
        return f"gradtrack.{_LEGACY[dtype_key(self.dtype)]}"

    def tolist(self):
        """The elements as Python numbers."""
        return self._elements().tolist()

    def _index(self, index):
        if isinstance(index, builtins.slice):
            raise RuntimeError("slices are only supported in UntypedStorage.__getitem__")
        n = self.size()
        i = int(index)
        if not -n <= i < n:
            raise IndexError(f"index {i} out of range for storage of size {n}")
        return i % n if n else i

    def __getitem__(self, index):
        return self._elements()[self._index(index)].item()

    def __setitem__(self, index, value):
        from .autograd.grad_mode import no_grad

        target = self._elements()
        with no_grad():
            if isinstance(index, builtins.slice):
                target[index] = value
            else:
                target[self._index(index)] = value

    def __iter__(self):
        return iter(self.tolist())

    def __repr__(self):
        info = (f"[gradtrack.storage.TypedStorage(dtype={self.dtype}, device=cpu) of size "
                f"{self.size()}]")
        return " " + "\n ".join(str(v) for v in self.tolist()) + "\n" + info

    __str__ = __repr__


def storage(self):
    """The memory under ``self`` as a :class:`TypedStorage` of its dtype (deprecated in
    torch; warns once, as torch does).

    >>> import gradtrack, warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     gradtrack.zeros(3)[1:].storage().size()
    3
    """
    _warn_deprecated()
    return TypedStorage(self)


NAMES = {"TypedStorage": TypedStorage}
METHODS = {"storage": storage}
