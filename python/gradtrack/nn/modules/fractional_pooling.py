"""``nn.FractionalMaxPool2d`` and ``nn.FractionalMaxPool3d``."""

from typing import Any

from .. import _functional_fractional as F
from .module import Module

__all__ = ["FractionalMaxPool2d", "FractionalMaxPool3d"]


def _ntuple(value, n):
    if isinstance(value, (int, float)):
        return (value,) * n
    return tuple(value)


class _FractionalMaxPoolNd(Module):
    _nd = 2

    def __init__(self, kernel_size: Any, output_size: Any = None, output_ratio: Any = None,
                 return_indices: bool = False, _random_samples: Any = None) -> None:
        super().__init__()
        nd = self._nd
        self.kernel_size = _ntuple(kernel_size, nd)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _ntuple(output_size, nd) if output_size is not None else None
        self.output_ratio = _ntuple(output_ratio, nd) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"{type(self).__name__} requires specifying either an output "
                             "size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """2-D fractional max pooling (:func:`~gradtrack.nn.functional.fractional_max_pool2d`);
    ``_random_samples``, when given, is a buffer that fixes the windows.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> pool = nn.FractionalMaxPool2d(3, output_ratio=0.5)
    >>> pool
    FractionalMaxPool2d()
    >>> pool(gradtrack.randn(2, 4, 10, 12)).shape
    gradtrack.Size([2, 4, 5, 6])
    """

    _nd = 2

    def forward(self, input):  # noqa: A002 - torch's argument name
        return F.fractional_max_pool2d(input, self.kernel_size, self.output_size,
                                       self.output_ratio, self.return_indices,
                                       _random_samples=self._random_samples)


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """3-D fractional max pooling (:func:`~gradtrack.nn.functional.fractional_max_pool3d`).

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> pool = nn.FractionalMaxPool3d(2, output_size=(3, 3, 3), return_indices=True)
    >>> out, indices = pool(gradtrack.randn(1, 2, 6, 6, 6))
    >>> out.shape, indices.dtype
    (gradtrack.Size([1, 2, 3, 3, 3]), gradtrack.int64)
    """

    _nd = 3

    def forward(self, input):  # noqa: A002
        return F.fractional_max_pool3d(input, self.kernel_size, self.output_size,
                                       self.output_ratio, self.return_indices,
                                       _random_samples=self._random_samples)
