"""Pooling layers: ``MaxPool1d/2d``, ``AvgPool1d/2d``, ``AdaptiveAvgPool1d/2d``,
``AdaptiveMaxPool1d/2d``, ``LPPool1d/2d``; each a thin Module over ``nn.functional``."""

from typing import Any

from .. import _conv_functional as F
from .. import _functional_pooling as _pools
from .module import Module

__all__ = ["MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d",
           "AdaptiveAvgPool2d", "AdaptiveMaxPool2d", "AdaptiveMaxPool1d", "LPPool1d", "LPPool2d"]


class _MaxPoolNd(Module):
    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
                 return_indices: bool = False, ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self):
        return ("kernel_size={kernel_size}, stride={stride}, padding={padding}, "
                "dilation={dilation}, ceil_mode={ceil_mode}".format(**self.__dict__))


class MaxPool2d(_MaxPoolNd):
    """Maximum over windows of ``(N, C, H, W)`` input.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.MaxPool2d(2)
    MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
    >>> nn.MaxPool2d(2)(gradtrack.ones(1, 1, 4, 4)).shape
    gradtrack.Size([1, 1, 2, 2])
    """

    def forward(self, input):  # noqa: A002 - PyTorch's argument name
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class MaxPool1d(_MaxPoolNd):
    """Maximum over windows of ``(N, C, L)`` input.

    >>> from gradtrack import nn
    >>> nn.MaxPool1d(2)
    MaxPool1d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
    """

    def forward(self, input):  # noqa: A002
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


def _single(value):
    return value if isinstance(value, tuple) else (value,)


class AvgPool1d(Module):
    """Mean over windows of ``(N, C, L)`` input.

    >>> from gradtrack import nn
    >>> nn.AvgPool1d(3)
    AvgPool1d(kernel_size=(3,), stride=(3,), padding=(0,))
    """

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def forward(self, input):  # noqa: A002
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class AvgPool2d(Module):
    """Mean over windows of ``(N, C, H, W)`` input.

    >>> from gradtrack import nn
    >>> nn.AvgPool2d(3)
    AvgPool2d(kernel_size=3, stride=3, padding=0)
    """

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
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
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class _AdaptivePool(Module):
    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool2d(_AdaptivePool):
    """Mean over windows chosen so the output is ``output_size``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.AdaptiveAvgPool2d((5, 7))(gradtrack.ones(1, 2, 10, 9)).shape
    gradtrack.Size([1, 2, 5, 7])
    """

    def forward(self, input):  # noqa: A002
        return F.adaptive_avg_pool2d(input, self.output_size)


class AdaptiveAvgPool1d(_AdaptivePool):
    """Mean over windows chosen so the output has length ``output_size``.

    >>> from gradtrack import nn
    >>> nn.AdaptiveAvgPool1d(5)
    AdaptiveAvgPool1d(output_size=5)
    """

    def forward(self, input):  # noqa: A002
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveMaxPool2d(_AdaptivePool):
    """Maximum over windows chosen so the output is ``output_size``.

    >>> from gradtrack import nn
    >>> nn.AdaptiveMaxPool2d(2)
    AdaptiveMaxPool2d(output_size=2)
    """

    def __init__(self, output_size, return_indices=False):
        super().__init__(output_size)
        self.return_indices = return_indices

    def forward(self, input):  # noqa: A002
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool1d(_AdaptivePool):
    """Maximum over windows chosen so the output has length ``output_size``.

    >>> from gradtrack import nn
    >>> nn.AdaptiveMaxPool1d(3)
    AdaptiveMaxPool1d(output_size=3)
    """

    def __init__(self, output_size, return_indices=False):
        super().__init__(output_size)
        self.return_indices = return_indices

    def forward(self, input):  # noqa: A002
        return _pools.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class _LPPoolNd(Module):
    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def extra_repr(self):
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPoolNd):
    """The ``norm_type``-norm of each window of ``(N, C, L)`` input.

    >>> from gradtrack import nn
    >>> nn.LPPool1d(2, 3)
    LPPool1d(norm_type=2, kernel_size=3, stride=None, ceil_mode=False)
    """

    def forward(self, input):  # noqa: A002
        return _pools.lp_pool1d(input, float(self.norm_type), self.kernel_size, self.stride,
                                self.ceil_mode)


class LPPool2d(_LPPoolNd):
    """The ``norm_type``-norm of each window of ``(N, C, H, W)`` input.

    >>> from gradtrack import nn
    >>> nn.LPPool2d(2, 3, stride=2)
    LPPool2d(norm_type=2, kernel_size=3, stride=2, ceil_mode=False)
    """

    def forward(self, input):  # noqa: A002
        return _pools.lp_pool2d(input, float(self.norm_type), self.kernel_size, self.stride,
                                self.ceil_mode)
