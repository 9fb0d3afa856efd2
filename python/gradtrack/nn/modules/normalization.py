"""``nn.LayerNorm``, ``nn.GroupNorm``, ``nn.RMSNorm`` and ``nn.LocalResponseNorm``."""

import numbers
from collections.abc import Sequence
from typing import Any

from ... import _C
from ..._C import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module


def add_affine_parameters(module, affine, bias, shape, dtype):
    """The norm layers' ``weight`` and ``bias`` of ``shape`` (registered as None when off),
    as torch's BatchNorm, LayerNorm and GroupNorm make them."""
    if affine:
        module.weight = Parameter(_C.empty(*shape, dtype=dtype))
        if bias:
            module.bias = Parameter(_C.empty(*shape, dtype=dtype))
        else:
            module.register_parameter("bias", None)
    else:
        module.register_parameter("weight", None)
        module.register_parameter("bias", None)


def reset_affine_parameters(module, affine):
    """``weight`` to ones and ``bias`` (if any) to zeros."""
    if affine:
        init.ones_(module.weight)
        if module.bias is not None:
            init.zeros_(module.bias)


class LayerNorm(Module):
    """Normalizes over the trailing ``normalized_shape`` dims; ``weight`` (ones) and ``bias``
    (zeros) have that shape when ``elementwise_affine``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> ln = nn.LayerNorm(2)
    >>> ln
    LayerNorm((2,), eps=1e-05, elementwise_affine=True, bias=True)
    >>> ln(gradtrack.tensor([[1.0, 3.0]])).grad_fn.name()
    'NativeLayerNormBackward0'
    """

    def __init__(self, normalized_shape: int | Sequence[int], eps: float = 1e-5,
                 elementwise_affine: bool = True, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        add_affine_parameters(self, elementwise_affine, bias, self.normalized_shape, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Sets ``weight`` to ones and ``bias`` to zeros."""
        reset_affine_parameters(self, self.elementwise_affine)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - torch's argument name
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


class GroupNorm(Module):
    """Normalizes each of ``num_groups`` groups of channels (dim 1) of each sample; per-channel
    ``weight`` and ``bias`` when ``affine``.

    >>> from gradtrack import nn
    >>> nn.GroupNorm(2, 4)
    GroupNorm(2, 4, eps=1e-05, affine=True, bias=True)
    """

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, bias=True, device=None,
                 dtype=None):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups "
                             f"({num_groups})")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        add_affine_parameters(self, affine, bias, (num_channels,), dtype)
        self.reset_parameters()

    def reset_parameters(self):
        """Sets ``weight`` to ones and ``bias`` to zeros."""
        reset_affine_parameters(self, self.affine)

    def forward(self, input):  # noqa: A002
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


class RMSNorm(Module):
    """Root-mean-square normalization over the trailing ``normalized_shape`` dims, scaled
    by ``weight`` (ones) when ``elementwise_affine``; ``eps=None`` uses the dtype's
    machine epsilon.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.RMSNorm(2)
    RMSNorm((2,), eps=None, elementwise_affine=True)
    >>> nn.RMSNorm(2)(gradtrack.tensor([[3.0, 4.0]])).grad_fn.name()
    'MulBackward0'
    """

    def __init__(self, normalized_shape: int | Sequence[int], eps: float | None = None,
                 elementwise_affine: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(_C.empty(*self.normalized_shape, dtype=dtype))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Sets ``weight`` to ones."""
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x: Tensor) -> Tensor:
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")


class LocalResponseNorm(Module):
    """Normalizes each element by the squares of ``size`` neighbouring channels.

    >>> from gradtrack import nn
    >>> nn.LocalResponseNorm(2)
    LocalResponseNorm(2, alpha=0.0001, beta=0.75, k=1.0)
    """

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75,
                 k: float = 1.0) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
