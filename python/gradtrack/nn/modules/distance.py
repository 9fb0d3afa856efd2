"""``nn.PairwiseDistance`` and ``nn.CosineSimilarity``."""

from .. import functional as F
from .module import Module


class PairwiseDistance(Module):
    """The ``p``-norm of ``x1 - x2 + eps`` over the last dim.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.PairwiseDistance(eps=0.0)(gradtrack.tensor([[0.0, 0.0]]), gradtrack.tensor([[3.0, 4.0]]))
    tensor([5.])
    """

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1, x2):
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class CosineSimilarity(Module):
    """The cosine of the angle between ``x1`` and ``x2`` along ``dim``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.CosineSimilarity()(gradtrack.tensor([[1.0, 0.0]]), gradtrack.tensor([[1.0, 1.0]]))
    tensor([0.7071])
    """

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self.dim, self.eps)
