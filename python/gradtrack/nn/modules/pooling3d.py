"""The 3-D pooling layers: ``MaxPool3d``, ``AvgPool3d``, ``AdaptiveAvgPool3d``,
``AdaptiveMaxPool3d`` and ``LPPool3d``; each a thin Module over ``nn.functional``."""

from typing import Any

from .. import _functional_pooling3d as F
from .module import Module
from .pooling import _AdaptivePool, _LPPoolNd, _MaxPoolNd

__all__ = ["MaxPool3d", "AvgPool3d", "AdaptiveAvgPool3d", "AdaptiveMaxPool3d", "LPPool3d"]


class MaxPool3d(_MaxPoolNd):
    """Maximum over windows of ``(N, C, D, H, W)`` input.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.MaxPool3d(2)
    MaxPool3d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
    >>> nn.MaxPool3d(2)(gradtrack.ones(1, 1, 4, 4, 4)).shape
    gradtrack.Size([1, 1, 2, 2, 2])
    """

    def forward(self, input):  # noqa: A002
        return F.max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class AvgPool3d(Module):
    """Mean over windows of ``(N, C, D, H, W)`` input.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.AvgPool3d(2)
    AvgPool3d(kernel_size=2, stride=2, padding=0)
    """

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: Any = None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def forward(self, input):  # noqa: A002
        return F.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class AdaptiveAvgPool3d(_AdaptivePool):
    """Mean over windows chosen so the output is ``output_size``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.AdaptiveAvgPool3d((1, 2, 3))
    AdaptiveAvgPool3d(output_size=(1, 2, 3))
    """

    def forward(self, input):  # noqa: A002
        return F.adaptive_avg_pool3d(input, self.output_size)


class AdaptiveMaxPool3d(_AdaptivePool):
    """Maximum over windows chosen so the output is ``output_size``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.AdaptiveMaxPool3d(2)
    AdaptiveMaxPool3d(output_size=2)
    """

    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__(output_size)
        self.return_indices = return_indices

    def forward(self, input):  # noqa: A002
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class LPPool3d(_LPPoolNd):
    """The ``norm_type``-norm of each 3-D window.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.LPPool3d(2, 2)
    LPPool3d(norm_type=2, kernel_size=2, stride=None, ceil_mode=False)
    """

    def forward(self, input):  # noqa: A002
        return F.lp_pool3d(input, float(self.norm_type), self.kernel_size, self.stride,
                           self.ceil_mode)
