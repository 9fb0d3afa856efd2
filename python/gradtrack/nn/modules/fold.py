"""``nn.Unfold`` and ``nn.Fold``: sliding blocks as columns and back (im2col / col2im)."""

from typing import Any

from .. import _functional_unfold as F
from .module import Module

__all__ = ["Fold", "Unfold"]


class Fold(Module):
    """Sums sliding-block columns ``(N, C * prod(kernel_size), L)`` back into an
    ``(N, C, *output_size)`` image (:func:`~nn.functional.fold`).

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> fold = nn.Fold((4, 5), 3, padding=1)
    >>> fold
    Fold(output_size=(4, 5), kernel_size=3, dilation=1, padding=1, stride=1)
    >>> fold(gradtrack.ones(2, 9, 20)).shape
    gradtrack.Size([2, 1, 4, 5])
    """

    def __init__(self, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
                 stride: Any = 1) -> None:
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input):  # noqa: A002
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding,
                      self.stride)

    def extra_repr(self):
        return ("output_size={output_size}, kernel_size={kernel_size}, dilation={dilation}, "
                "padding={padding}, stride={stride}".format(**self.__dict__))


class Unfold(Module):
    """The sliding blocks of an ``(N, C, H, W)`` input as columns ``(N, C * kH * kW, L)``
    (:func:`~nn.functional.unfold`).

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> unfold = nn.Unfold((2, 3), dilation=2, stride=(1, 2))
    >>> unfold
    Unfold(kernel_size=(2, 3), dilation=2, padding=0, stride=(1, 2))
    >>> unfold(gradtrack.ones(1, 2, 6, 7)).shape
    gradtrack.Size([1, 12, 8])
    """

    def __init__(self, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
                 stride: Any = 1) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input):  # noqa: A002
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return ("kernel_size={kernel_size}, dilation={dilation}, padding={padding}, "
                "stride={stride}".format(**self.__dict__))
