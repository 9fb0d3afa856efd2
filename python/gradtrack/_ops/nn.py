"""The layer functions that are compositions of tensor ops: ``cosine_similarity``
(torch has it at the top level too) and ``one_hot``, both gathered by
``nn.functional``; and ``softmax``/``log_softmax``, bound in C++ as they are.

``cosine_similarity`` divides by norms clamped outside the graph and ``one_hot``
scatters into zeros, as torch's do, so values, ``grad_fn`` and ``_version`` are
torch's. The layers with kernels of their own are ``nn/`` (``_C._nn``).

>>> import gradtrack
>>> gradtrack.cosine_similarity(gradtrack.tensor([[1., 0.]]), gradtrack.tensor([[1., 1.]]))
tensor([0.7071])
"""

import builtins

from .. import _C
from .views import broadcast_tensors

BOUND = ("softmax", "log_softmax")


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """Cosine of the angle between ``x1`` and ``x2`` along ``dim`` (broadcast), each norm
    clamped below at ``eps``.

    >>> import gradtrack
    >>> gradtrack.cosine_similarity(gradtrack.tensor([[1., 0.]]), gradtrack.tensor([[1., 1.]]))
    tensor([0.7071])
    """
    from ..autograd import no_grad
    from ..linalg import vector_norm
    a, b = broadcast_tensors(x1, x2)
    na = vector_norm(a, 2, dim, keepdim=True).clone()
    nb = vector_norm(b, 2, dim, keepdim=True).clone()
    with no_grad():  # torch clamps copies of the norms in place, outside the graph
        na.clamp_min_(eps)
        nb.clamp_min_(eps)
    return ((a / na) * (b / nb)).sum(dim)


def one_hot(input, num_classes=-1):  # noqa: A002 - the name torch's parser takes
    """Class indices (int64) as one-hot rows of ``num_classes`` (by default
    the largest index + 1).

    >>> import gradtrack
    >>> gradtrack.nn.functional.one_hot(gradtrack.tensor([0, 2]), 3)
    tensor([[1, 0, 0],
            [0, 0, 1]])
    """
    tensor = input
    if tensor.dtype is not _C.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if tensor.numel() > 0:
        if builtins.bool((tensor < 0).any()):
            raise RuntimeError("Class values must be non-negative.")
        top = builtins.int(tensor.max())
        if num_classes == -1:
            num_classes = top + 1
        elif top >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    elif num_classes == -1:
        raise RuntimeError("Can not infer total number of classes from empty tensor.")
    out = _C.zeros(tuple(tensor.shape) + (num_classes,), dtype=_C.int64)
    if tensor.numel() > 0:
        # torch's result has _version 2 (its zeros is zero-filled in place, then scattered):
        # an in-place zero_ of an empty view of it adds that write without touching values.
        out.detach().unsqueeze(0)[:0].zero_()
        out.scatter_(-1, tensor.unsqueeze(-1), 1)
    return out


FUNCTIONS = (cosine_similarity,)
