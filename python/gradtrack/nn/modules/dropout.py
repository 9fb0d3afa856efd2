"""``nn.Dropout`` and its channel-wise and alpha forms."""

from .. import functional as F
from .module import Module


class _DropoutNd(Module):
    """The shared part: ``p`` (checked as torch checks it) and ``inplace``."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Zeroes elements with probability ``p`` in training (scaling the rest by
    ``1 / (1 - p)``); the identity in eval mode.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> drop = nn.Dropout(0.5).eval()
    >>> drop(gradtrack.ones(2))
    tensor([1., 1.])
    """

    def forward(self, input):  # noqa: A002 - torch's argument name
        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    """Zeroes whole channels of ``(N, C, L)`` or ``(C, L)`` input in training.

    >>> from gradtrack import nn
    >>> nn.Dropout1d(0.2)
    Dropout1d(p=0.2, inplace=False)
    """

    def forward(self, input):  # noqa: A002
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """Zeroes whole channels of ``(N, C, H, W)`` input in training.

    >>> from gradtrack import nn
    >>> nn.Dropout2d()
    Dropout2d(p=0.5, inplace=False)
    """

    def forward(self, input):  # noqa: A002
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """Zeroes whole channels of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` input in training.

    >>> from gradtrack import nn
    >>> nn.Dropout3d()
    Dropout3d(p=0.5, inplace=False)
    """

    def forward(self, input):  # noqa: A002
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """Dropout that keeps a SELU network's mean and variance.

    >>> from gradtrack import nn
    >>> nn.AlphaDropout(0.2)
    AlphaDropout(p=0.2, inplace=False)
    """

    def forward(self, input):  # noqa: A002
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels.

    >>> from gradtrack import nn
    >>> nn.FeatureAlphaDropout()
    FeatureAlphaDropout(p=0.5, inplace=False)
    """

    def forward(self, input):  # noqa: A002
        return F.feature_alpha_dropout(input, self.p, self.training)
