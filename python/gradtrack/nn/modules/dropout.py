"""``nn.Dropout``."""

from .. import functional as F
from .module import Module


class Dropout(Module):
    """Zeroes elements with probability ``p`` in training (scaling the rest by
    ``1 / (1 - p)``); the identity in eval mode.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> drop = nn.Dropout(0.5).eval()
    >>> drop(gradtrack.ones(2))
    tensor([1., 1.])
    """

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input):  # noqa: A002 - torch's argument name
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"
