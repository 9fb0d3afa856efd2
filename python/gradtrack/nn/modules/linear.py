"""``nn.Linear`` and ``nn.Identity``."""

import math

from typing import Any

from ... import _C
from .. import init
from ..parameter import Parameter
from .module import Module

_c_linear = _C._nn.linear


class Identity(Module):
    """Returns its input unchanged (arguments are accepted and ignored).

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> x = gradtrack.ones(2)
    >>> nn.Identity(54, unused="x")(x) is x
    True
    """

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):  # noqa: A002 - PyTorch's argument name
        return input


class Linear(Module):
    """``y = x @ weight.T + bias``, with PyTorch's default initialization.

    ``weight`` is ``kaiming_uniform_(a=sqrt(5))``, i.e. U(-1/sqrt(in), 1/sqrt(in)),
    and so is ``bias``: one in-place write each, so both are at ``_version`` 1.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> lin = nn.Linear(2, 1)
    >>> lin
    Linear(in_features=2, out_features=1, bias=True)
    >>> lin.weight._version, lin(gradtrack.ones(3, 2)).grad_fn.name()
    (1, 'AddmmBackward0')
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(_C.empty(out_features, in_features, dtype=dtype))
        if bias:
            self.bias = Parameter(_C.empty(out_features, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Re-draws weight and bias from PyTorch's default distributions."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        bias = self._parameters["bias"]
        if bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(bias, -bound, bound)

    def forward(self, input):  # noqa: A002
        params = self._parameters
        return _c_linear(input, params["weight"], params["bias"])

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self._parameters['bias'] is not None}")


class NonDynamicallyQuantizableLinear(Linear):
    """The attention's output projection: a ``Linear`` under PyTorch's name for it (and
    in its module, ``torch.nn.modules.linear``, which pickles name).

    >>> from gradtrack import nn
    >>> nn.modules.linear.NonDynamicallyQuantizableLinear(2, 3)
    NonDynamicallyQuantizableLinear(in_features=2, out_features=3, bias=True)
    """
