"""``nn.Upsample`` and its two fixed-mode subclasses."""

from .. import _resample
from .module import Module


def _floats(v):
    if v is None:
        return None
    return tuple(float(s) for s in v) if isinstance(v, (tuple, list)) else float(v)


class Upsample(Module):
    """``F.interpolate`` as a layer.

    >>> import gradtrack
    >>> gradtrack.nn.Upsample(scale_factor=2)(gradtrack.ones(1, 1, 2)).shape
    gradtrack.Size([1, 1, 4])
    """

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        self.scale_factor = _floats(scale_factor)
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):  # noqa: A002 - torch's argument name
        return _resample.interpolate(input, self.size, self.scale_factor, self.mode,
                                     self.align_corners,
                                     recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self):
        if self.scale_factor is not None:
            info = "scale_factor=" + repr(self.scale_factor)
        else:
            info = "size=" + repr(self.size)
        return info + ", mode=" + repr(self.mode)


class UpsamplingNearest2d(Upsample):
    """Nearest-neighbour upsampling of 4-D input.

    >>> import gradtrack
    >>> gradtrack.nn.UpsamplingNearest2d(scale_factor=2)(gradtrack.ones(1, 1, 2, 2)).shape
    gradtrack.Size([1, 1, 4, 4])
    """

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """Bilinear upsampling of 4-D input with ``align_corners=True``.

    >>> import gradtrack
    >>> gradtrack.nn.UpsamplingBilinear2d(size=3)(gradtrack.ones(1, 1, 2, 2)).shape
    gradtrack.Size([1, 1, 3, 3])
    """

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
