"""``nn.LayerNorm``, ``nn.GroupNorm``, ``nn.RMSNorm`` and ``nn.LocalResponseNorm``."""

import numbers
from collections.abc import Sequence
from typing import Any

from ... import _C
from ..._C import Tensor
from .. import functional as F
from .. import init
from ...autograd.function import Function
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


def _window_matrix(channels, first, last, dtype, keep_first=False):
    """``M[c, j] = 1`` where ``first(c) <= j <= last(c)`` (and ``j == 0`` with ``keep_first``)."""
    import numpy as np
    matrix = np.zeros((channels, channels))
    for c in range(channels):
        lo, hi = max(first(c), 0), min(last(c), channels - 1)
        matrix[c, lo:hi + 1] = 1.0
        if keep_first:
            matrix[c, 0] = 1.0
    return _C.tensor(matrix, dtype=dtype)


def _channel_sums(values, matrix):
    """For each channel ``c`` of ``(N, C, H, W)`` values, ``sum_j matrix[c, j] * values[:, j]``."""
    return (values.permute(0, 2, 3, 1) @ matrix.T).permute(0, 3, 1, 2)


class _CrossMapLRN2dFunction(Function):
    # NOTE [Cross-map LRN as torch's]: torch's legacy layer sums squares over a window that
    # keeps channel 0 once it has entered (its running sum never removes it) and its
    # backward is a formula of its own over a window centred differently; both are kept,
    # so values and gradients are torch's.
    @staticmethod
    def forward(ctx, input, size, alpha, beta, k):  # noqa: A002
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D "
                             "instead.")
        channels = input.size(1)
        pre_pad = int((size - 1) / 2 + 1)
        window = _window_matrix(channels, lambda c: max(1, c - pre_pad + 1),
                                lambda c: c + pre_pad - 1, input.dtype, keep_first=True)
        scale = _channel_sums(input * input, window) * (alpha / size) + k
        output = scale.pow(-beta) * input
        ctx.size, ctx.alpha, ctx.beta, ctx.scale = size, alpha, beta, scale
        ctx.save_for_backward(input, output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, output = ctx.saved_tensors  # noqa: A001
        size = ctx.size
        inverse_pre_pad = int(size - (size - 1) / 2)
        channels = input.size(1)
        if inverse_pre_pad > size - 1:  # torch's backward narrows its padded buffer here
            raise RuntimeError(f"start ({inverse_pre_pad}) + length ({channels}) exceeds "
                               f"dimension size ({channels + size - 1}).")
        window = _window_matrix(input.size(1), lambda c: c - inverse_pre_pad,
                                lambda c: c - inverse_pre_pad + size - 1, input.dtype)
        accum = _channel_sums(grad_output * output / ctx.scale, window)
        grad_input = (ctx.scale.pow(-ctx.beta) * grad_output
                      - (2 * ctx.alpha * ctx.beta / size) * input * accum)
        return grad_input, None, None, None, None


_CrossMapLRN2dFunction._backward_cls.__name__ = "CrossMapLRN2dBackward"
_CrossMapLRN2dFunction._backward_cls.__qualname__ = "CrossMapLRN2dBackward"


class CrossMapLRN2d(Module):
    """torch's legacy cross-channel local response normalization of ``(N, C, H, W)``
    input: ``x / (k + alpha / size * sum of squares over nearby channels) ** beta``, with
    torch's window and gradient (NOTE [Cross-map LRN as torch's]).

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> lrn = nn.CrossMapLRN2d(3, alpha=1.0, beta=1.0)
    >>> lrn
    CrossMapLRN2d(3, alpha=1.0, beta=1.0, k=1)
    >>> lrn(gradtrack.ones(1, 4, 1, 1)).flatten()
    tensor([0.6000, 0.5000, 0.4286, 0.5000])
    """

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):  # noqa: A002
        return _CrossMapLRN2dFunction.apply(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
