"""``nn.Conv1d/2d/3d`` and ``nn.ConvTranspose1d/2d/3d``."""

import math

from typing import Any

from ... import _C
from .. import _conv_functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]


def _tuple(value, n):
    if isinstance(value, int):
        return (value,) * n
    value = tuple(value)
    return value * n if len(value) == 1 else value


class _ConvNd(Module):
    """What the convolution layers share: arguments, parameters and their init."""

    _ndim = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                 transposed, output_padding, groups, bias, padding_mode, dtype=None):
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        valid_padding_strings = {"same", "valid"}
        if isinstance(padding, str):
            if padding not in valid_padding_strings:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 f"{valid_padding_strings}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        valid_padding_modes = {"zeros", "reflect", "replicate", "circular"}
        if padding_mode not in valid_padding_modes:
            raise ValueError(f"padding_mode must be one of {valid_padding_modes}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        self._reversed_padding_repeated_twice = self._reversed_padding()
        shape = ((in_channels, out_channels // groups) if transposed
                 else (out_channels, in_channels // groups)) + tuple(kernel_size)
        self.weight = Parameter(_C.empty(*shape, dtype=dtype))
        if bias:
            self.bias = Parameter(_C.empty(out_channels, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def _reversed_padding(self):
        """F.pad's argument for the padding modes: last dim first, before and after."""
        out = []
        if isinstance(self.padding, str):
            if self.padding == "same":
                for d, k in zip(reversed(self.dilation), reversed(self.kernel_size)):
                    total = d * (k - 1)
                    out += [total // 2, total - total // 2]
            else:
                out = [0, 0] * len(self.kernel_size)
            return out
        for p in reversed(self.padding):
            out += [p, p]
        return out

    def reset_parameters(self):
        """kaiming_uniform_(a=sqrt(5)) for the weight, U(-1/sqrt(fan_in), ..) for the bias."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        bias = self.bias
        if bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(bias, -bound, bound)

    def extra_repr(self):
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)

    def _conv_forward(self, input, weight, bias, fn):  # noqa: A002 - PyTorch's argument names
        if self.padding_mode != "zeros":
            padded = F._pad_modes(input, self._reversed_padding_repeated_twice, self.padding_mode)
            return fn(padded, weight, bias, self.stride, (0,) * self._ndim, self.dilation,
                      self.groups)
        return fn(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)


class Conv2d(_ConvNd):
    """2-D convolution layer over ``(N, C_in, H, W)`` input.

    Same arguments, parameters, initialisation and repr as PyTorch's.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> conv = nn.Conv2d(1, 6, 5)
    >>> conv
    Conv2d(1, 6, kernel_size=(5, 5), stride=(1, 1))
    >>> conv(gradtrack.randn(2, 1, 32, 32)).shape
    gradtrack.Size([2, 6, 28, 28])
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 dilation: Any = 1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device: Any = None, dtype: Any = None) -> None:
        padding = padding if isinstance(padding, str) else _tuple(padding, 2)
        super().__init__(in_channels, out_channels, _tuple(kernel_size, 2), _tuple(stride, 2),
                         padding, _tuple(dilation, 2), False, (0, 0), groups, bias, padding_mode,
                         dtype=dtype)

    def forward(self, input):  # noqa: A002
        return self._conv_forward(input, self.weight, self.bias, F.conv2d)


class Conv1d(_ConvNd):
    """1-D convolution layer over ``(N, C_in, L)`` input.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.Conv1d(2, 3, 4)
    Conv1d(2, 3, kernel_size=(4,), stride=(1,))
    """

    _ndim = 1

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        padding = padding if isinstance(padding, str) else _tuple(padding, 1)
        super().__init__(in_channels, out_channels, _tuple(kernel_size, 1), _tuple(stride, 1),
                         padding, _tuple(dilation, 1), False, (0,), groups, bias, padding_mode,
                         dtype=dtype)

    def forward(self, input):  # noqa: A002
        return self._conv_forward(input, self.weight, self.bias, F.conv1d)


class ConvTranspose2d(_ConvNd):
    """Transposed 2-D convolution layer (the gradient of a Conv2d).

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> up = nn.ConvTranspose2d(3, 4, 3, stride=2, output_padding=1)
    >>> up
    ConvTranspose2d(3, 4, kernel_size=(3, 3), stride=(2, 2), output_padding=(1, 1))
    >>> up(gradtrack.randn(1, 3, 5, 5)).shape
    gradtrack.Size([1, 4, 12, 12])
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError('Only "zeros" padding mode is supported for ConvTranspose2d')
        super().__init__(in_channels, out_channels, _tuple(kernel_size, 2), _tuple(stride, 2),
                         _tuple(padding, 2), _tuple(dilation, 2), True,
                         _tuple(output_padding, 2), groups, bias, padding_mode, dtype=dtype)

    def _output_padding(self, input, output_size):  # noqa: A002
        """The output_padding that gives ``output_size`` (PyTorch's rule and messages)."""
        if output_size is None:
            return self.output_padding
        k = self._ndim
        non_spatial = 2 if input.dim() == k + 2 else 1
        if len(output_size) == non_spatial + k:
            output_size = output_size[non_spatial:]
        if len(output_size) != k:
            raise ValueError(f"ConvTranspose{k}D: for {input.dim()}D input, output_size must "
                             f"have {k} or {non_spatial + k} elements (got {len(output_size)})")
        min_sizes, max_sizes = [], []
        for d in range(k):
            dim_size = input.shape[d + non_spatial]
            min_size = ((dim_size - 1) * self.stride[d] - 2 * self.padding[d]
                        + self.dilation[d] * (self.kernel_size[d] - 1) + 1)
            min_sizes.append(min_size)
            max_sizes.append(min_size + self.stride[d] - 1)
        for size, low, high in zip(output_size, min_sizes, max_sizes):
            if not low <= size <= high:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes "
                                 f"range from {min_sizes} to {max_sizes} (for an input of "
                                 f"{input.shape[2:]})")
        return [size - low for size, low in zip(output_size, min_sizes)]

    def forward(self, input, output_size=None):  # noqa: A002
        if input.dim() not in (3, 4):
            raise RuntimeError("Expected 3D (unbatched) or 4D (batched) input to "
                               f"conv_transpose2d, but got input of size: {list(input.shape)}")
        output_padding = self._output_padding(input, output_size)
        return F.conv_transpose2d(input, self.weight, self.bias, self.stride,
                                  self.padding, output_padding, self.groups, self.dilation)


class ConvTranspose1d(ConvTranspose2d):
    """Transposed 1-D convolution layer (the gradient of a Conv1d).

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> up = nn.ConvTranspose1d(3, 4, 3, stride=2)
    >>> up
    ConvTranspose1d(3, 4, kernel_size=(3,), stride=(2,))
    >>> up(gradtrack.randn(1, 3, 5)).shape
    gradtrack.Size([1, 4, 11])
    """

    _ndim = 1

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError('Only "zeros" padding mode is supported for ConvTranspose1d')
        _ConvNd.__init__(self, in_channels, out_channels, _tuple(kernel_size, 1),
                         _tuple(stride, 1), _tuple(padding, 1), _tuple(dilation, 1), True,
                         _tuple(output_padding, 1), groups, bias, padding_mode, dtype=dtype)

    def forward(self, input, output_size=None):  # noqa: A002
        if input.dim() not in (2, 3):
            raise RuntimeError("Expected 2D (unbatched) or 3D (batched) input to "
                               f"conv_transpose1d, but got input of size: {list(input.shape)}")
        output_padding = self._output_padding(input, output_size)
        return F.conv_transpose1d(input, self.weight, self.bias, self.stride, self.padding,
                                  output_padding, self.groups, self.dilation)


class Conv3d(_ConvNd):
    """3-D convolution layer over ``(N, C_in, D, H, W)`` input.

    Same arguments, parameters, initialisation and repr as PyTorch's.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> conv = nn.Conv3d(2, 4, 3, padding=1)
    >>> conv
    Conv3d(2, 4, kernel_size=(3, 3, 3), stride=(1, 1, 1), padding=(1, 1, 1))
    >>> conv(gradtrack.randn(1, 2, 5, 6, 7)).shape
    gradtrack.Size([1, 4, 5, 6, 7])
    """

    _ndim = 3

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        padding = padding if isinstance(padding, str) else _tuple(padding, 3)
        super().__init__(in_channels, out_channels, _tuple(kernel_size, 3), _tuple(stride, 3),
                         padding, _tuple(dilation, 3), False, (0, 0, 0), groups, bias,
                         padding_mode, dtype=dtype)

    def forward(self, input):  # noqa: A002
        return self._conv_forward(input, self.weight, self.bias, F.conv3d)


class ConvTranspose3d(ConvTranspose2d):
    """Transposed 3-D convolution layer (the gradient of a Conv3d).

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> up = nn.ConvTranspose3d(2, 3, 2, stride=2)
    >>> up
    ConvTranspose3d(2, 3, kernel_size=(2, 2, 2), stride=(2, 2, 2))
    >>> up(gradtrack.randn(1, 2, 3, 3, 3)).shape
    gradtrack.Size([1, 3, 6, 6, 6])
    """

    _ndim = 3

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, output_padding: Any = 0, groups: int = 1, bias: bool = True,
                 dilation: Any = 1, padding_mode: str = "zeros", device: Any = None,
                 dtype: Any = None) -> None:
        if padding_mode != "zeros":
            raise ValueError('Only "zeros" padding mode is supported for ConvTranspose3d')
        _ConvNd.__init__(self, in_channels, out_channels, _tuple(kernel_size, 3),
                         _tuple(stride, 3), _tuple(padding, 3), _tuple(dilation, 3), True,
                         _tuple(output_padding, 3), groups, bias, padding_mode, dtype=dtype)

    def forward(self, input, output_size=None):  # noqa: A002
        if input.dim() not in (4, 5):
            raise RuntimeError("Expected 4D (unbatched) or 5D (batched) input to "
                               f"conv_transpose3d, but got input of size: {list(input.shape)}")
        output_padding = self._output_padding(input, output_size)
        return F.conv_transpose3d(input, self.weight, self.bias, self.stride, self.padding,
                                  output_padding, self.groups, self.dilation)
