"""``nn.Linear``, ``nn.Bilinear`` and ``nn.Identity``."""

import math

from typing import Any

from ... import _batched_tensor as _batched
from ... import _C
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

_c_linear = _C._nn.linear
_BatchedTensor = _batched.BatchedTensor


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
        bias = self.bias
        if bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(bias, -bound, bound)

    def forward(self, input):  # noqa: A002
        # NOTE [Reading parameters in forward]: what ``self.weight`` / ``self.bias`` give,
        # without the failed instance lookup that precedes ``Module.__getattr__`` (about
        # 1.5 us a read on CPython 3.11, as in torch). On a plain Linear with neither name
        # in its instance dict, attribute lookup ends in ``_parameters``, so reading that
        # dict is the same answer; anything else (a subclass, a plain attribute put in
        # place of a parameter, a deleted parameter) takes the attribute reads.
        d = self.__dict__
        if type(self) is Linear and "weight" not in d and "bias" not in d:
            params = d["_parameters"]
            if "weight" in params and "bias" in params:
                # NOTE [vmap batching rules]: a batched input takes F.linear's rule
                if type(input) is not _BatchedTensor:
                    try:
                        return _c_linear(input, params["weight"], params["bias"])
                    except TypeError:  # a batched weight or bias
                        return _batched.call("linear", input, params["weight"], params["bias"])
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class Bilinear(Module):
    """``y = x1^T A x2 + b``: ``weight`` is ``(out_features, in1_features, in2_features)``,
    both ``weight`` and ``bias`` drawn from U(-1/sqrt(in1_features), 1/sqrt(in1_features)).

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> bl = nn.Bilinear(2, 3, 4)
    >>> bl
    Bilinear(in1_features=2, in2_features=3, out_features=4, bias=True)
    >>> bl(gradtrack.ones(5, 2), gradtrack.ones(5, 3)).shape
    gradtrack.Size([5, 4])
    """

    def __init__(self, in1_features: int, in2_features: int, out_features: int,
                 bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(_C.empty(out_features, in1_features, in2_features, dtype=dtype))
        if bias:
            self.bias = Parameter(_C.empty(out_features, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draws ``weight`` and ``bias`` from U(-1/sqrt(in1_features), 1/sqrt(in1_features))."""
        if self.in1_features <= 0:
            raise ValueError(f"in1_features must be > 0, but got (in1_features="
                             f"{self.in1_features})")
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class NonDynamicallyQuantizableLinear(Linear):
    """The attention's output projection: a ``Linear`` under PyTorch's name for it (and
    in its module, ``torch.nn.modules.linear``, which pickles name).

    >>> from gradtrack import nn
    >>> nn.modules.linear.NonDynamicallyQuantizableLinear(2, 3)
    NonDynamicallyQuantizableLinear(in_features=2, out_features=3, bias=True)
    """
