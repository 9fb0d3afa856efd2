"""``nn.functional``'s functions of two inputs: ``pairwise_distance``, ``pdist`` and the
bilinear form ``bilinear``.

``pairwise_distance`` is torch's composite (``norm(x1 - x2 + eps)``); ``pdist`` and
``bilinear`` have torch's nodes (``PdistBackward0``, ``TrilinearBackward0``) as
``autograd.Function``s (NOTE [Named composite nodes]).

>>> import gradtrack
>>> import gradtrack.nn.functional as F
>>> F.pairwise_distance(gradtrack.tensor([[0.0, 0.0]]), gradtrack.tensor([[3.0, 4.0]]))
tensor([5.0000])
"""

from .. import _C
from ..autograd._named_nodes import composite_node

__all__ = ["pairwise_distance", "pdist", "bilinear"]


def _vector_norm(x, p, dim, keepdim):
    return x.norm(p, dim, keepdim)


# torch's pairwise_distance calls aten::norm, whose node is NormBackward1 (under it, torch's
# scalar add is AddBackward1 where gradtrack's is AddBackward0).
_norm = composite_node("NormBackward1", _vector_norm)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """The ``p``-norm of ``x1 - x2 + eps`` over the last dim.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.pairwise_distance(gradtrack.tensor([1.0, 1.0]), gradtrack.tensor([0.0, 1.0]), eps=0.0)
    tensor(1.)
    """
    last = max(x1.dim(), x2.dim()) - 1
    return _norm(_C.add(x1 - x2, eps), p, last, keepdim)


def _pair_distances(input, p):  # noqa: A002
    n = input.shape[0]
    rows = _C.tensor([i for i in range(n) for _ in range(i + 1, n)], dtype=_C.int64)
    cols = _C.tensor([j for i in range(n) for j in range(i + 1, n)], dtype=_C.int64)
    return (input.index_select(0, rows) - input.index_select(0, cols)).norm(p, 1)


_pdist = composite_node("PdistBackward0", _pair_distances, no_forward_ad="_pdist_forward",
                        no_double_backward=(NotImplementedError, "the derivative for "
                                            "'_pdist_backward' is not implemented."))


def pdist(input, p=2):  # noqa: A002
    """The ``p``-norm distance between every pair of rows of a 2-D input, as the upper
    triangle of the distance matrix, row by row (``PdistBackward0``).

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.pdist(gradtrack.tensor([[0.0, 0.0], [3.0, 4.0], [0.0, 1.0]]))
    tensor([5.0000, 1.0000, 4.2426])
    """
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    if not input.dtype.is_floating_point:
        raise RuntimeError("pdist only supports floating-point dtypes")
    return _pdist(input, float(p))


def _trilinear(x1, weight, x2):
    """``out[b, o] = sum_ij x1[b, i] * weight[o, i, j] * x2[b, j]``."""
    out_features, in1, in2 = weight.shape
    flat = weight.permute(1, 0, 2).reshape(in1, out_features * in2)
    left = x1.matmul(flat).view(x1.shape[0], out_features, in2)
    return (left * x2.unsqueeze(1)).sum(-1)


_trilinear_node = composite_node("TrilinearBackward0", _trilinear, differentiable=3)


def bilinear(input1, input2, weight, bias=None):
    """``y = x1^T A x2 + b`` for each of ``weight``'s ``out_features`` matrices ``A``.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.bilinear(gradtrack.ones(1, 2), gradtrack.ones(1, 3), gradtrack.ones(4, 2, 3)).shape
    gradtrack.Size([1, 4])
    """
    if input1.dim() != input2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.dim()} and "
                           f"{input2.dim()}")
    for d in range(input1.dim() - 1):
        if input1.shape[d] != input2.shape[d]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {d}: got "
                               f"{input1.shape[d]} and {input2.shape[d]}")
    in1, in2 = weight.size(1), weight.size(2)  # IndexError with torch's words
    if input1.shape[-1] != in1:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got "
                           f"{input1.shape[-1]} but expected {in1}")
    if input2.shape[-1] != in2:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got "
                           f"{input2.shape[-1]} but expected {in2}")
    if bias is not None and bias.shape[0] != weight.shape[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got "
                           f"{bias.shape[0]} but expected {weight.shape[0]}")
    batch_shape = list(input1.shape[:-1])
    x1 = input1.reshape(-1, input1.shape[-1])
    x2 = input2.reshape(-1, input2.shape[-1])
    out = _trilinear_node(x1, weight, x2).view(batch_shape + [weight.shape[0]])
    if bias is not None:
        out = out + bias
    return out
