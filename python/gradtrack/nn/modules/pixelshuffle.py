"""``nn.PixelShuffle``, ``nn.PixelUnshuffle`` and ``nn.ChannelShuffle``: rearrangements
of the channel dim."""

from .. import functional as F
from .module import Module


class PixelShuffle(Module):
    """``(*, C * r**2, H, W)`` to ``(*, C, H * r, W * r)``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.PixelShuffle(2)(gradtrack.ones(1, 4, 3, 3)).shape
    gradtrack.Size([1, 1, 6, 6])
    """

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):  # noqa: A002
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self):
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """``(*, C, H * r, W * r)`` to ``(*, C * r**2, H, W)``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.PixelUnshuffle(2)(gradtrack.ones(1, 1, 6, 6)).shape
    gradtrack.Size([1, 4, 3, 3])
    """

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):  # noqa: A002
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self):
        return f"downscale_factor={self.downscale_factor}"


class ChannelShuffle(Module):
    """Interleaves the channels of ``groups`` groups.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.ChannelShuffle(2)(gradtrack.arange(4.0).reshape(1, 4, 1)).flatten()
    tensor([0., 2., 1., 3.])
    """

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input):  # noqa: A002
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"
