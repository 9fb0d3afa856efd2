"""DLPack: exchanging tensors with NumPy, torch and any library that speaks it, without copies.

A gradtrack tensor exports itself through NumPy's DLPack implementation: ``numpy()``
already shares the tensor's memory and keeps its storage alive, so the capsule NumPy
makes from that array points at the tensor's memory with its shape and strides. Imports
go the other way: ``numpy.from_dlpack`` takes the producer's capsule, ``from_numpy``
shares its memory. As torch, an imported tensor gets a fresh version counter and a
tensor that requires grad refuses to export.

>>> import gradtrack, numpy
>>> t = gradtrack.arange(4.0)
>>> a = numpy.from_dlpack(t)
>>> a[0] = 10.0
>>> t
tensor([10.,  1.,  2.,  3.])
"""

import enum

from .. import _C


__all__ = ["DLDeviceType", "from_dlpack", "to_dlpack"]


class DLDeviceType(enum.IntEnum):
    """Device codes of the DLPack standard (gradtrack has only the CPU)."""

    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17


def dlpack(self, *, stream=-1, max_version=None, dl_device=None, copy=None):
    """``Tensor.__dlpack__``: a DLPack capsule sharing this tensor's memory.

    ``max_version=(1, 0)`` or newer gives a versioned capsule, otherwise the legacy
    one; ``copy=True`` exports a copy. A tensor that requires grad is refused (export
    ``t.detach()``), as in torch.
    """
    if self.requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    if stream is not None and stream != -1:
        raise AssertionError("stream should be None on cpu.")
    array = self.numpy()
    if not copy:  # the consumer writes this memory without a version bump (NOTE [Silent writes])
        _C._note_dlpack_alias(self)
    return array.__dlpack__(max_version=max_version, dl_device=dl_device, copy=copy)


def dlpack_device(self):
    """``Tensor.__dlpack_device__``: ``(DLDeviceType.kDLCPU, 0)``."""
    return (DLDeviceType.kDLCPU, 0)


def to_dlpack(tensor):
    """A legacy (unversioned) DLPack capsule of ``tensor``, as ``torch.utils.dlpack.to_dlpack``.

    >>> import gradtrack
    >>> type(gradtrack.utils.dlpack.to_dlpack(gradtrack.ones(2))).__name__
    'PyCapsule'
    """
    return tensor.__dlpack__()


class _Capsule:
    """Presents a bare capsule to ``numpy.from_dlpack``, which wants a producer object."""

    def __init__(self, capsule):
        self._capsule = capsule

    def __dlpack__(self, **kwargs):
        return self._capsule

    def __dlpack_device__(self):
        return (DLDeviceType.kDLCPU, 0)


def from_dlpack(ext_tensor, *, device=None, copy=None):
    """A gradtrack tensor sharing the memory of ``ext_tensor`` (or of a DLPack capsule).

    ``ext_tensor`` is any object with ``__dlpack__`` (a NumPy array, a torch tensor, a
    gradtrack tensor) or a capsule from ``to_dlpack``. ``copy=True`` copies; the result
    has its own version counter, as torch's.

    >>> import gradtrack, numpy
    >>> a = numpy.arange(3.0)
    >>> t = gradtrack.from_dlpack(a)
    >>> t.add_(1)
    tensor([1., 2., 3.], dtype=gradtrack.float64)
    >>> a
    array([1., 2., 3.])
    """
    from .. import _C

    if device is not None and str(device) != "cpu":
        raise RuntimeError(f"gradtrack has only the CPU: cannot import a tensor to {device!r}")
    if type(ext_tensor).__name__ == "PyCapsule":
        ext_tensor = _Capsule(ext_tensor)
    elif not hasattr(ext_tensor, "__dlpack__"):
        raise TypeError(f"from_dlpack expects an object with __dlpack__ or a DLPack capsule, "
                        f"got {type(ext_tensor).__name__}")
    elif isinstance(ext_tensor, _C.Tensor) and ext_tensor.requires_grad:
        ext_tensor.__dlpack__()  # raises torch's error
    # A read-only export (DLPack 1.0's flag) is shared as torch shares it, silently.
    # NumPy loads here, on first use: `import gradtrack` stays free of it.
    import numpy as np

    return _C._from_dlpack_array(np.from_dlpack(ext_tensor, copy=copy))
