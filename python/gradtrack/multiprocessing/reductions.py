"""How ``gradtrack.multiprocessing`` sends tensors to other processes: through shared
memory, as torch's reductions do.

A tensor put on a queue or a pipe, or passed to a spawned ``Process``, is pickled by
multiprocessing's ``ForkingPickler``: its storage moves into shared memory (if it is
not there yet) and only a handle travels — the memfd's descriptor (the
``file_descriptor`` strategy: multiprocessing passes it over a Unix socket) or the
``/dev/shm`` file's name (``file_system``). The receiver maps the same memory, so an
in-place change on either side is seen by the other: the Hogwild pattern. Plain
``pickle`` and ``gradtrack.save`` still copy the values.
"""

import os
from multiprocessing.reduction import DupFd, ForkingPickler

from .. import _C
from .._tensor import _Tensor
from ..nn.parameter import Parameter

__all__ = ["reduce_tensor", "rebuild_tensor", "init_reductions"]

# torch's words for a tensor whose gradient would need autograd across processes.
NON_LEAF = ("Cowardly refusing to serialize non-leaf tensor which requires_grad, since "
            "autograd does not support crossing process boundaries.  If you just want to "
            "transfer the data, call detach() on the tensor before serializing (e.g., putting "
            "it on the queue).")


def reduce_tensor(tensor):
    """What ``ForkingPickler`` sends for ``tensor``: a shared-memory handle and its geometry.

    >>> import gradtrack, gradtrack.multiprocessing as mp
    >>> x = gradtrack.ones(2)
    >>> rebuild, args = mp.reductions.reduce_tensor(x)
    >>> x.is_shared()
    True
    """
    if tensor.requires_grad and not tensor.is_leaf:
        raise RuntimeError(NON_LEAF)
    if not _C._is_shared(tensor):
        tensor.share_memory_()
    fd, name, nbytes = _C._shared_handle(tensor)
    meta = (tensor.dtype, tuple(tensor.size()), tuple(tensor.stride()), tensor.storage_offset(),
            tensor.requires_grad)
    if fd >= 0:
        return rebuild_tensor, (type(tensor), DupFd(fd), "", nbytes, meta)
    _C._shared_add_reference(tensor)  # the receiver's count, taken before it opens the file
    return rebuild_tensor, (type(tensor), None, name, nbytes, meta)


def rebuild_tensor(cls, handle, name, nbytes, meta):
    """The receiving side of :func:`reduce_tensor`: a tensor over the sender's memory.

    >>> import gradtrack, gradtrack.multiprocessing as mp
    >>> x = gradtrack.arange(4.0)
    >>> rebuild, args = mp.reductions.reduce_tensor(x)
    >>> rebuild is mp.reductions.rebuild_tensor
    True
    """
    dtype, size, stride, offset, requires_grad = meta
    if handle is None:
        t = _C._from_shared(-1, name, nbytes, dtype, size, stride, offset)
    else:
        fd = handle.detach()
        try:
            t = _C._from_shared(fd, "", nbytes, dtype, size, stride, offset)
        finally:
            os.close(fd)
    if issubclass(cls, Parameter):
        return cls(t, requires_grad)
    if requires_grad:
        t.requires_grad_(True)
    return t


def init_reductions():
    """Registers :func:`reduce_tensor` with ``ForkingPickler`` (done on import).

    >>> import gradtrack.multiprocessing as mp
    >>> mp.reductions.init_reductions()
    """
    for cls in (_Tensor, Parameter):
        ForkingPickler.register(cls, reduce_tensor)
