"""``nn.MaxUnpool1d/2d/3d``: the partial inverses of the max pools."""

from typing import Any

from .. import _functional_unpool as F
from .module import Module

__all__ = ["MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d"]


def _tuple(value, n):
    if isinstance(value, int):
        return (value,) * n
    value = tuple(value)
    return value * n if len(value) == 1 else value


class _MaxUnpoolNd(Module):
    _ndim = 2
    _fn = None

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0) -> None:
        super().__init__()
        n = self._ndim
        self.kernel_size = _tuple(kernel_size, n)
        self.stride = _tuple(stride if stride is not None else kernel_size, n)
        self.padding = _tuple(padding, n)

    def forward(self, input, indices, output_size=None):  # noqa: A002
        return type(self)._fn(input, indices, self.kernel_size, self.stride, self.padding,
                              output_size)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """The partial inverse of ``MaxPool1d``: values at their indices, zeros elsewhere.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.MaxUnpool1d(3, stride=2, padding=1)
    MaxUnpool1d(kernel_size=(3,), stride=(2,), padding=(1,))
    """

    _ndim = 1
    _fn = staticmethod(F.max_unpool1d)


class MaxUnpool2d(_MaxUnpoolNd):
    """The partial inverse of ``MaxPool2d``: values at their indices, zeros elsewhere.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> pool, unpool = nn.MaxPool2d(2, return_indices=True), nn.MaxUnpool2d(2)
    >>> unpool
    MaxUnpool2d(kernel_size=(2, 2), stride=(2, 2), padding=(0, 0))
    >>> unpool(*pool(gradtrack.tensor([[[[1.0, 3.0], [4.0, 2.0]]]])))
    tensor([[[[0., 0.],
              [4., 0.]]]])
    """

    _ndim = 2
    _fn = staticmethod(F.max_unpool2d)


class MaxUnpool3d(_MaxUnpoolNd):
    """The partial inverse of ``MaxPool3d``: values at their indices, zeros elsewhere.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.MaxUnpool3d((2, 1, 2))
    MaxUnpool3d(kernel_size=(2, 1, 2), stride=(2, 1, 2), padding=(0, 0, 0))
    """

    _ndim = 3
    _fn = staticmethod(F.max_unpool3d)
