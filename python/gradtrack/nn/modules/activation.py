"""Activation modules: ``ReLU``, ``Sigmoid``, ``Tanh``, ``Softmax``, ``LogSoftmax``."""

from ... import _C
from .. import functional as F
from .module import Module

_relu = _C.relu
_sigmoid = _C.sigmoid
_tanh = _C.tanh


class ReLU(Module):
    """``max(x, 0)`` elementwise (``inplace=True`` writes the input).

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.ReLU()(gradtrack.tensor([-1.0, 2.0]))
    tensor([0., 2.])
    """

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):  # noqa: A002 - PyTorch's argument name
        return input.relu_() if self.inplace else _relu(input)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class Sigmoid(Module):
    """``1 / (1 + exp(-x))`` elementwise.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.Sigmoid()(gradtrack.zeros(1))
    tensor([0.5000])
    """

    def forward(self, input):  # noqa: A002
        return _sigmoid(input)


class Tanh(Module):
    """``tanh(x)`` elementwise.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.Tanh()(gradtrack.zeros(1))
    tensor([0.])
    """

    def forward(self, input):  # noqa: A002
        return _tanh(input)


class Softmax(Module):
    """``softmax(x, dim)``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.Softmax(dim=1)(gradtrack.zeros(1, 4))
    tensor([[0.2500, 0.2500, 0.2500, 0.2500]])
    """

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):  # noqa: A002
        return F.softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"


class LogSoftmax(Module):
    """``log_softmax(x, dim)``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.LogSoftmax(dim=1)(gradtrack.zeros(1, 2))
    tensor([[-0.6931, -0.6931]])
    """

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):  # noqa: A002
        return F.log_softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"
