"""Padding layers: ``ConstantPad*``, ``ZeroPad*``, ``ReflectionPad*``,
``ReplicationPad*`` and ``CircularPad*`` (1-D, 2-D and 3-D), each calling
``F.pad`` as torch's do.
"""

from .. import _resample
from .module import Module


def _ntuple(padding, n):
    if isinstance(padding, int):
        return (padding,) * n
    return tuple(padding)


class _PadNd(Module):
    """A padding layer of ``_k`` dims in ``_mode``."""

    _k = 1
    _mode = "constant"

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(padding, 2 * self._k)

    def forward(self, input):  # noqa: A002 - torch's argument name
        return _resample.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):  # noqa: A002
        return _resample.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pads the last dim with ``value``.

    >>> import gradtrack
    >>> gradtrack.nn.ConstantPad1d(1, 3.5)(gradtrack.zeros(1, 2))
    tensor([[3.5000, 0.0000, 0.0000, 3.5000]])
    """

    _k = 1


class ConstantPad2d(_ConstantPadNd):
    """Pads the last 2 dims with ``value``.

    >>> import gradtrack
    >>> gradtrack.nn.ConstantPad2d((1, 0, 0, 1), 1.)(gradtrack.zeros(1, 1, 1)).shape
    gradtrack.Size([1, 2, 2])
    """

    _k = 2


class ConstantPad3d(_ConstantPadNd):
    """Pads the last 3 dims with ``value``.

    >>> import gradtrack
    >>> gradtrack.nn.ConstantPad3d(1, 0.)(gradtrack.zeros(1, 1, 1, 1)).shape
    gradtrack.Size([1, 3, 3, 3])
    """

    _k = 3


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad1d(_ZeroPadNd):
    """Pads the last dim with zeros.

    >>> import gradtrack
    >>> gradtrack.nn.ZeroPad1d((1, 2))(gradtrack.ones(1, 1))
    tensor([[0., 1., 0., 0.]])
    """

    _k = 1


class ZeroPad2d(_ZeroPadNd):
    """Pads the last 2 dims with zeros.

    >>> import gradtrack
    >>> gradtrack.nn.ZeroPad2d(1)(gradtrack.ones(1, 1, 1)).shape
    gradtrack.Size([1, 3, 3])
    """

    _k = 2


class ZeroPad3d(_ZeroPadNd):
    """Pads the last 3 dims with zeros.

    >>> import gradtrack
    >>> gradtrack.nn.ZeroPad3d(1)(gradtrack.ones(1, 1, 1, 1)).shape
    gradtrack.Size([1, 3, 3, 3])
    """

    _k = 3


class ReflectionPad1d(_PadNd):
    """Pads the last dim with its reflection (the edge not repeated).

    >>> import gradtrack
    >>> gradtrack.nn.ReflectionPad1d(2)(gradtrack.tensor([[1., 2., 3.]]))
    tensor([[3., 2., 1., 2., 3., 2., 1.]])
    """

    _k, _mode = 1, "reflect"


class ReflectionPad2d(_PadNd):
    """Pads the last 2 dims with their reflection.

    >>> import gradtrack
    >>> gradtrack.nn.ReflectionPad2d(1)(gradtrack.ones(1, 2, 2)).shape
    gradtrack.Size([1, 4, 4])
    """

    _k, _mode = 2, "reflect"


class ReflectionPad3d(_PadNd):
    """Pads the last 3 dims with their reflection.

    >>> import gradtrack
    >>> gradtrack.nn.ReflectionPad3d(1)(gradtrack.ones(1, 2, 2, 2)).shape
    gradtrack.Size([1, 4, 4, 4])
    """

    _k, _mode = 3, "reflect"


class ReplicationPad1d(_PadNd):
    """Pads the last dim by repeating its edge values.

    >>> import gradtrack
    >>> gradtrack.nn.ReplicationPad1d(2)(gradtrack.tensor([[1., 2.]]))
    tensor([[1., 1., 1., 2., 2., 2.]])
    """

    _k, _mode = 1, "replicate"


class ReplicationPad2d(_PadNd):
    """Pads the last 2 dims by repeating their edge values.

    >>> import gradtrack
    >>> gradtrack.nn.ReplicationPad2d(1)(gradtrack.ones(1, 2, 2)).shape
    gradtrack.Size([1, 4, 4])
    """

    _k, _mode = 2, "replicate"


class ReplicationPad3d(_PadNd):
    """Pads the last 3 dims by repeating their edge values.

    >>> import gradtrack
    >>> gradtrack.nn.ReplicationPad3d(1)(gradtrack.ones(1, 1, 1, 1)).shape
    gradtrack.Size([1, 3, 3, 3])
    """

    _k, _mode = 3, "replicate"


class _CircularPadNd(_PadNd):
    _mode = "circular"

    def forward(self, input):  # noqa: A002
        n = input.dim()
        if n not in (self._k + 1, self._k + 2):
            raise ValueError(f"expected {self._k + 1}D or {self._k + 2}D input (got {n}D input)")
        return super().forward(input)


class CircularPad1d(_CircularPadNd):
    """Pads the last dim by wrapping around.

    >>> import gradtrack
    >>> gradtrack.nn.CircularPad1d(1)(gradtrack.tensor([[1., 2., 3.]]))
    tensor([[3., 1., 2., 3., 1.]])
    """

    _k = 1


class CircularPad2d(_CircularPadNd):
    """Pads the last 2 dims by wrapping around.

    >>> import gradtrack
    >>> gradtrack.nn.CircularPad2d(1)(gradtrack.ones(1, 2, 2)).shape
    gradtrack.Size([1, 4, 4])
    """

    _k = 2


class CircularPad3d(_CircularPadNd):
    """Pads the last 3 dims by wrapping around.

    >>> import gradtrack
    >>> gradtrack.nn.CircularPad3d(1)(gradtrack.ones(1, 1, 1, 1)).shape
    gradtrack.Size([1, 3, 3, 3])
    """

    _k = 3
