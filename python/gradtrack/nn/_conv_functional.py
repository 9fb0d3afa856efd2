"""Convolution and pooling functions of ``nn.functional``.

Arguments are checked and normalised here with PyTorch's words; the work is
one call into ``_C._conv``, which records the node PyTorch records
(``ConvolutionBackward0``, ``MaxPool2DWithIndicesBackward0``, ...). The 1-D
pools and unbatched inputs go through ``unsqueeze``/``squeeze`` around the
2-D op, as PyTorch's do, so their ``grad_fn`` chains match.

>>> import gradtrack
>>> import gradtrack.nn.functional as F
>>> x = gradtrack.ones(1, 1, 4, 4, requires_grad=True)
>>> y = F.conv2d(x, gradtrack.ones(2, 1, 3, 3), padding=1)
>>> y.shape, y.grad_fn.name()
(gradtrack.Size([1, 2, 4, 4]), 'ConvolutionBackward0')
>>> F.max_pool2d(y, 2).shape
gradtrack.Size([1, 2, 2, 2])
"""

import functools
import warnings

from .. import _batched_tensor as _batched
from .. import _C
from .._dtype_names import SCALAR_NAME, dtype_key
from .._memory_format import _strides_like, channels_last
from ..autograd._named_nodes import composite_node

_conv = _C._conv
_BatchedTensor = _batched.BatchedTensor
_int64 = _C.int64
_float32 = _C.float32

_TENSOR_TYPE = {"float32": "torch.FloatTensor", "float64": "torch.DoubleTensor",
                "int64": "torch.LongTensor", "int32": "torch.IntTensor",
                "uint8": "torch.ByteTensor", "bool": "torch.BoolTensor",
                "float16": "torch.HalfTensor", "bfloat16": "CPUBFloat16Type"}
_C_NAME = {"float32": "float", "float64": "double", "int64": "long int", "int32": "int",
           "uint8": "unsigned char", "bool": "bool"}

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d", "max_pool1d", "max_pool2d",
           "max_pool1d_with_indices", "max_pool2d_with_indices", "avg_pool1d", "avg_pool2d",
           "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_max_pool2d",
           "adaptive_max_pool2d_with_indices"]


def _dtype_key(t):
    return dtype_key(t.dtype)


def _ints(value, n):
    """An int or a sequence as a list of ``n`` ints (a 1-sequence is repeated)."""
    if isinstance(value, int):
        return [value] * n
    value = [int(v) for v in value]
    return value * n if len(value) == 1 else value


def _conv_list(name, value, k):
    """PyTorch's expand_param_if_needed: one value per spatial dim of the weight."""
    if len(value) == 1:
        return value * k
    if len(value) != k:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {k} "
                           f"values to match the convolution dimensions, but got "
                           f"{name}={list(value)}")
    return list(value)


@functools.cache
def _cpu_flags():
    """The x86 feature flags Linux reports for this CPU (empty elsewhere)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return frozenset(line.partition(":")[2].split())
    except OSError:
        pass
    return frozenset()


def _torch_takes_mkldnn(input, weight, stride, dilation, groups, transposed, output_padding):  # noqa: A002
    """Whether PyTorch 2.13 would run this convolution with oneDNN (MKLDNN) on this CPU.

    Only its type-mismatch message depends on it. Half and bfloat16 inputs go to oneDNN
    whenever the CPU has their AVX-512 (or AVX-NE-CONVERT) instructions; float32 inputs by
    torch's size rule, applied to the 4-D view of the input (a 1-D one is ``(N, C, 1, L)``).
    """
    if transposed and any(p >= s for p, s in zip(output_padding, stride)):
        return False
    key, flags = _dtype_key(input), _cpu_flags()
    if key == "bfloat16":
        return {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags or "avx_ne_convert" in flags
    if key == "float16":
        return "avx512_fp16" in flags or "avx_ne_convert" in flags
    if key != "float32":
        return False
    if weight.dim() == 5:  # 3-D: oneDNN takes float32 batches only
        return input.dim() == 5 and input.shape[0] > 1
    shape = list(input.shape) if input.dim() == weight.dim() else [1, *input.shape]
    kernel = list(weight.shape[2:])
    if len(kernel) == 1:  # a 1-D convolution runs as a 2-D one of height 1
        shape.insert(2, 1)
        kernel.insert(0, 1)
    n = shape[0]
    numel = shape[0] * shape[1] * shape[2] * shape[3]
    one_by_one_ok = (any(s != 1 for s in stride) or any(d != 1 for d in dilation) or n >= 16
                     or kernel[-1] != 1 or kernel[-2] != 1 or _C.get_num_threads() > 1)
    worth_it = (groups > 1 or (kernel[-1] > 3 and kernel[-2] > 3) or n > 1 or numel > 20480)
    return one_by_one_ok and worth_it


def _check_conv_dtypes(input, weight, bias, mkldnn):  # noqa: A002 - PyTorch's argument names
    xk, wk = _dtype_key(input), _dtype_key(weight)
    if xk != wk:
        if mkldnn():
            raise RuntimeError(f"Input type ({_TENSOR_TYPE[xk]}) and weight type "
                               f"({_TENSOR_TYPE.get(wk, wk)}) should be the same or input "
                               "should be a MKLDNN tensor and weight is a dense tensor")
        raise RuntimeError(f"expected scalar type {SCALAR_NAME.get(xk, xk)} but found "
                           f"{SCALAR_NAME.get(wk, wk)}")
    if bias is not None and _dtype_key(bias) != xk:
        bk = _dtype_key(bias)
        raise RuntimeError(f"Input type ({_C_NAME.get(xk, xk)}) and bias type "
                           f"({_C_NAME.get(bk, bk)}) should be the same")


def _same_padding(weight, dilation, stride):
    """padding='same': half the kernel's span before, the odd remainder after."""
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    before, extra = [], []
    for d, k in zip(dilation, weight.shape[2:]):
        total = d * (k - 1)
        before.append(total // 2)
        extra.append(total - 2 * (total // 2))
    if any(extra):
        warnings.warn("Using padding='same' with even kernel lengths and odd dilation may require "
                      "a zero-padded copy of the input be created", stacklevel=4)
    return before, extra


def _convolution(name, ndim, input, weight, bias, stride, padding, dilation, groups,  # noqa: A002
                 transposed=False, output_padding=0):
    if input.dim() not in (ndim + 1, ndim + 2):
        raise RuntimeError(f"Expected {ndim + 1}D (unbatched) or {ndim + 2}D (batched) input to "
                           f"{name}, but got input of size: {list(input.shape)}")
    k = max(weight.dim() - 2, 1)
    stride = _conv_list("stride", _ints(stride, ndim), k)
    dilation = _conv_list("dilation", _ints(dilation, ndim), k)
    output_padding = _conv_list("output_padding", _ints(output_padding, ndim), k)
    extra = [0] * k
    if isinstance(padding, str):
        if padding == "valid":
            padding = [0] * k
        elif padding == "same":
            padding, extra = _same_padding(weight, dilation, stride)
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        padding = _conv_list("padding", _ints(padding, ndim), k)
    _check_conv_dtypes(input, weight, bias, lambda: _torch_takes_mkldnn(
        input, weight, stride, dilation, int(groups), transposed, output_padding))
    unbatched = input.dim() == ndim + 1
    x = input.unsqueeze(0) if unbatched else input
    if type(x) is _BatchedTensor or type(weight) is _BatchedTensor \
            or type(bias) is _BatchedTensor:  # NOTE [vmap batching rules]
        out = _batched.apply("convolution", x, weight, bias, stride, padding, dilation,
                             transposed, output_padding, int(groups), extra)
    else:
        out = _conv.convolution(x, weight, bias, stride, padding, dilation, transposed,
                                output_padding, int(groups), extra)
    return out.squeeze(0) if unbatched else out


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    """1-D convolution over ``(N, C, L)`` (or unbatched ``(C, L)``) input.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.conv1d(gradtrack.ones(1, 1, 5), gradtrack.ones(1, 1, 3))
    tensor([[[3., 3., 3.]]])
    """
    return _convolution("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    """2-D convolution over ``(N, C, H, W)`` (or unbatched ``(C, H, W)``) input.

    ``padding`` is an int, a pair, ``'valid'`` or ``'same'`` (stride 1 only).

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.conv2d(gradtrack.ones(1, 1, 3, 3), gradtrack.ones(1, 1, 2, 2)).shape
    gradtrack.Size([1, 1, 2, 2])
    """
    return _convolution("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    """3-D convolution over ``(N, C, D, H, W)`` (or unbatched ``(C, D, H, W)``) input.

    ``padding`` is an int, a triple, ``'valid'`` or ``'same'`` (stride 1 only).

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.conv3d(gradtrack.ones(1, 1, 3, 3, 3), gradtrack.ones(1, 1, 2, 2, 2))
    tensor([[[[[8., 8.],
               [8., 8.]],
    <BLANKLINE>
              [[8., 8.],
               [8., 8.]]]]])
    """
    return _convolution("conv3d", 3, input, weight, bias, stride, padding, dilation, groups)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0,  # noqa: A002
                     output_padding=0, groups=1, dilation=1):
    """The transpose (gradient) of :func:`conv3d`; weight is ``(C_in, C_out/groups, kD, kH, kW)``.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.conv_transpose3d(gradtrack.ones(1, 1, 2, 2, 2), gradtrack.ones(1, 1, 2, 2, 2),
    ...                    stride=2).shape
    gradtrack.Size([1, 1, 4, 4, 4])
    """
    if isinstance(padding, str):
        raise TypeError("conv_transpose3d(): argument 'padding' must be tuple of ints, not str")
    return _convolution("conv_transpose3d", 3, input, weight, bias, stride, padding, dilation,
                        groups, transposed=True, output_padding=output_padding)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0,  # noqa: A002
                     output_padding=0, groups=1, dilation=1):
    """The transpose (gradient) of :func:`conv2d`; weight is ``(C_in, C_out/groups, kH, kW)``.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.conv_transpose2d(gradtrack.ones(1, 1, 2, 2), gradtrack.ones(1, 1, 2, 2), stride=2).shape
    gradtrack.Size([1, 1, 4, 4])
    """
    if isinstance(padding, str):
        raise TypeError("conv_transpose2d(): argument 'padding' must be tuple of ints, not str")
    return _convolution("conv_transpose2d", 2, input, weight, bias, stride, padding, dilation,
                        groups, transposed=True, output_padding=output_padding)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0,  # noqa: A002
                     output_padding=0, groups=1, dilation=1):
    """The transpose (gradient) of :func:`conv1d`; weight is ``(C_in, C_out/groups, kL)``.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.conv_transpose1d(gradtrack.ones(1, 1, 3), gradtrack.ones(1, 1, 2), stride=2)
    tensor([[[1., 1., 1., 1., 1., 1.]]])
    """
    if isinstance(padding, str):
        raise TypeError("conv_transpose1d(): argument 'padding' must be tuple of ints, not str")
    return _convolution("conv_transpose1d", 1, input, weight, bias, stride, padding, dilation,
                        groups, transposed=True, output_padding=output_padding)


# ---- pooling ------------------------------------------------------------------------------

def _pool_pair(fn, name, value, allow_none=False):
    """PyTorch's 2-D pool argument rule: an int or a tuple of one or two ints."""
    if allow_none and (value is None or (not isinstance(value, int) and len(value) == 0)):
        return None
    if isinstance(value, int):
        return [value, value]
    value = [int(v) for v in value]
    if len(value) == 1:
        return value * 2
    if len(value) == 2:
        return value
    if allow_none:
        raise RuntimeError(f"{fn}: {name} must either be omitted, a single int, or a tuple of "
                           "two ints")
    if name == "dilation":
        raise RuntimeError(f"{fn}: dilation must be either a single int, or a tuple of two ints")
    raise RuntimeError(f"{fn}: {name} must either be a single int, or a tuple of two ints")


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,  # noqa: A002
                            ceil_mode=False, return_indices=False):
    """:func:`max_pool2d` returning ``(values, indices)``.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> x = gradtrack.tensor([[[[1.0, 3.0], [4.0, 2.0]]]])
    >>> F.max_pool2d_with_indices(x, 2)
    (tensor([[[[4.]]]]), tensor([[[[2]]]]))
    """
    k = _pool_pair("max_pool2d", "kernel_size", kernel_size)
    s = _pool_pair("max_pool2d", "stride", stride, allow_none=True) or k
    p = _pool_pair("max_pool2d", "padding", padding)
    d = _pool_pair("max_pool2d", "dilation", dilation)
    try:
        return _conv.max_pool2d_with_indices(input, k, s, p, d, bool(ceil_mode))
    except TypeError:  # NOTE [vmap batching rules]
        return _batched.call("max_pool2d_with_indices", input, k, s, p, d, bool(ceil_mode))


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1,  # noqa: A002
               ceil_mode=False, return_indices=False):
    """Maximum over ``kernel_size`` windows of ``(N, C, H, W)`` or ``(C, H, W)`` input.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.max_pool2d(gradtrack.arange(16.0).reshape(1, 1, 4, 4), 2)
    tensor([[[[ 5.,  7.],
              [13., 15.]]]])
    """
    out, indices = max_pool2d_with_indices(input, kernel_size, stride, padding, dilation,
                                           ceil_mode)
    return (out, indices) if return_indices else out


def _single(fn, name, value, allow_none=False):
    if allow_none and (value is None or (not isinstance(value, int) and len(value) == 0)):
        return None
    if isinstance(value, int):
        return value
    value = list(value)
    if len(value) != 1:
        raise RuntimeError(f"{fn}: {name} must be {'omitted or ' if allow_none else ''}a single "
                           "int, or a tuple of one int")
    return int(value[0])


def _check_pool1d(input, k, s, p, d, ceil_mode):  # noqa: A002
    if input.dim() not in (2, 3) or any(n == 0 for n in input.shape[1:]):
        raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 "
                           f"dim batch size for input, but got:{list(input.shape)}")
    checks = ((k > 0, f"kernel_size must be greater than zero, but got {k}"),
              (s > 0, f"stride must be greater than zero, but got {s}"),
              (p >= 0, f"padding must be non-negative, but got {p}"),
              (p <= k // 2, f"padding should be at most half of kernel size, but got padding={p} "
                            f"and kernel_size={k}"),
              (d > 0, f"dilation must be greater than zero, but got {d}"))
    for ok, message in checks:
        if not ok:
            raise RuntimeError(f"max_pool1d() {message}")
    size = (input.shape[-1] + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (size - 1) * s >= input.shape[-1] + p:
        size -= 1
    if size <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {size}")


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,  # noqa: A002
                            ceil_mode=False, return_indices=False):
    """:func:`max_pool1d` returning ``(values, indices)``.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.max_pool1d_with_indices(gradtrack.tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2)
    (tensor([[[3., 2.]]]), tensor([[[1, 2]]]))
    """
    k = _single("max_pool1d", "kernel_size", kernel_size)
    s = _single("max_pool1d", "stride", stride, allow_none=True)
    s = k if s is None else s
    p = _single("max_pool1d", "padding", padding)
    d = _single("max_pool1d", "dilation", dilation)
    _check_pool1d(input, k, s, p, d, ceil_mode)
    out, indices = _conv.max_pool2d_with_indices(input.unsqueeze(-2), [1, k], [1, s], [0, p],
                                                 [1, d], bool(ceil_mode))
    return out.squeeze(-2), indices.squeeze(-2)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1,  # noqa: A002
               ceil_mode=False, return_indices=False):
    """Maximum over windows of ``(N, C, L)`` or ``(C, L)`` input.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.max_pool1d(gradtrack.tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2)
    tensor([[[3., 2.]]])
    """
    out, indices = max_pool1d_with_indices(input, kernel_size, stride, padding, dilation,
                                           ceil_mode)
    return (out, indices) if return_indices else out


def _check_dims(input, fn):  # noqa: A002
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional tensor "
                           f"for argument #1 'self' (while checking arguments for {fn})")


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,  # noqa: A002
               count_include_pad=True, divisor_override=None):
    """Mean over ``kernel_size`` windows of ``(N, C, H, W)`` or ``(C, H, W)`` input.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.avg_pool2d(gradtrack.arange(16.0).reshape(1, 1, 4, 4), 2)
    tensor([[[[ 2.5000,  4.5000],
              [10.5000, 12.5000]]]])
    """
    if input.dim() < 3:
        n = input.dim()
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(n, 1)}, "
                         f"{max(n, 1) - 1}], but got -3)")
    k = _pool_pair("avg_pool2d", "kernel_size", kernel_size)
    s = _pool_pair("avg_pool2d", "stride", stride, allow_none=True) or k
    p = _pool_pair("avg_pool2d", "padding", padding)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    divisor = 0 if divisor_override is None else int(divisor_override)
    return _conv.avg_pool2d(input, k, s, p, bool(ceil_mode), bool(count_include_pad), divisor)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,  # noqa: A002
               count_include_pad=True):
    """Mean over windows of ``(N, C, L)`` or ``(C, L)`` input.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.avg_pool1d(gradtrack.tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2)
    tensor([[[2., 1.]]])
    """
    _check_dims(input, "avg_pool1d")
    k = _single("avg_pool1d", "kernel_size", kernel_size)
    s = _single("avg_pool1d", "stride", stride, allow_none=True)
    s = k if s is None else s
    p = _single("avg_pool1d", "padding", padding)
    out = _conv.avg_pool2d(input.unsqueeze(-2), [1, k], [1, s], [0, p], bool(ceil_mode),
                           bool(count_include_pad), 0)
    return out.squeeze(-2)


def _adaptive_size(fn, input, output_size):  # noqa: A002
    if isinstance(output_size, int):
        size = [output_size, output_size]
    else:
        size = list(output_size)
        if len(size) != 2:
            raise RuntimeError(f"{fn}: output_size must be 2" if fn == "adaptive_avg_pool2d"
                               else f"{fn}(): internal error: output_size.size() must be 2")
    shape = input.shape
    return [shape[-2 + i] if v is None else int(v) for i, v in enumerate(size)]


def adaptive_avg_pool2d(input, output_size):  # noqa: A002
    """Mean over windows chosen so the output is ``output_size`` (``None`` keeps a size).

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.adaptive_avg_pool2d(gradtrack.ones(1, 2, 5, 7), (2, 3)).shape
    gradtrack.Size([1, 2, 2, 3])
    """
    size = _adaptive_size("adaptive_avg_pool2d", input, output_size)
    if size == [1, 1] and input.dim() in (3, 4) and all(n != 0 for n in input.shape[1:]):
        # PyTorch takes the mean here (MeanBackward1), and gives a channels-last input's
        # result channels-last strides in place (AsStridedBackward1, version 1).
        out = input.mean((-1, -2), keepdim=True)
        if input.dim() == 4 and _strides_like(input, channels_last):
            n, c = input.shape[0], input.shape[1]
            out.as_strided_((n, c, 1, 1), (c, 1, c, c))
        return out
    return _conv.adaptive_avg_pool2d(input, size)


def adaptive_avg_pool1d(input, output_size):  # noqa: A002
    """Mean over windows chosen so the output has length ``output_size``.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.adaptive_avg_pool1d(gradtrack.tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2)
    tensor([[[2., 1.]]])
    """
    _check_dims(input, "adaptive_avg_pool1d")
    if not isinstance(output_size, int):
        size = list(output_size)
        if len(size) != 1:
            raise RuntimeError("adaptive_avg_pool1d() argument 'output_size' should contain one "
                               f"int (got {len(size)})")
        output_size = int(size[0])
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, output_size)).squeeze(-2)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):  # noqa: A002
    """:func:`adaptive_max_pool2d` returning ``(values, indices)``.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> x = gradtrack.arange(16.).reshape(1, 1, 4, 4)
    >>> F.adaptive_max_pool2d_with_indices(x, 2)
    (tensor([[[[ 5.,  7.],
              [13., 15.]]]]), tensor([[[[ 5,  7],
              [13, 15]]]]))
    """
    size = _adaptive_size("adaptive_max_pool2d", input, output_size)
    return _conv.adaptive_max_pool2d(input, size)


def adaptive_max_pool2d(input, output_size, return_indices=False):  # noqa: A002
    """Maximum over windows chosen so the output is ``output_size``.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.adaptive_max_pool2d(gradtrack.arange(16.0).reshape(1, 1, 4, 4), 1)
    tensor([[[[15.]]]])
    """
    out, indices = adaptive_max_pool2d_with_indices(input, output_size)
    return (out, indices) if return_indices else out


# ---- padding modes of the Conv layers -----------------------------------------------------

def _pad_index(mode, n, before, after):
    """Source positions along one dim for reflect / replicate / circular padding."""
    positions = range(-before, n + after)
    if mode == "reflect":
        period = 2 * (n - 1)
        out = []
        for i in positions:
            j = abs(i) % period if period else 0
            out.append(period - j if j >= n else j)
        return out
    if mode == "replicate":
        return [min(max(i, 0), n - 1) for i in positions]
    return [i % n for i in positions]


def _check_pad(mode, input, pad):  # noqa: A002
    ndim = input.dim()
    for i in range(len(pad) // 2):
        dim = ndim - 1 - i
        n = input.shape[dim]
        before, after = pad[2 * i], pad[2 * i + 1]
        if mode == "reflect" and (before >= n or after >= n):
            raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding "
                               f"input dimension, but got: padding ({before}, {after}) at "
                               f"dimension {dim} of input {list(input.shape)}")
        if mode == "circular" and (before > n or after > n):
            raise RuntimeError("Padding value causes wrapping around more than once.")


def _pad_modes(input, pad, mode):  # noqa: A002
    """``F.pad`` for the non-zero padding modes of the Conv layers (last dims first)."""
    _check_pad(mode, input, pad)
    out = input
    for i in range(len(pad) // 2):
        before, after = pad[2 * i], pad[2 * i + 1]
        if before == 0 and after == 0:
            continue
        dim = input.dim() - 1 - i
        index = _C.tensor(_pad_index(mode, input.shape[dim], before, after), dtype=_int64)
        out = out.index_select(dim, index)
    return out


def _conv_tbc_composite(input, weight, bias, pad):  # noqa: A002
    out = conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, padding=pad)
    return out.permute(2, 0, 1).contiguous()


def conv_tbc(input, weight, bias, pad=0):  # noqa: A002 - torch's argument names
    """1-D convolution over time-batch-channel input: ``input`` ``(T, B, C_in)``,
    ``weight`` ``(K, C_in, C_out)``, ``bias`` ``(C_out,)``, ``pad`` zeros on both ends of
    time; the output is ``(T + 2 * pad - K + 1, B, C_out)``.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.conv_tbc(gradtrack.ones(5, 2, 3), gradtrack.ones(3, 3, 4), gradtrack.zeros(4), 1)[:, 0, 0]
    tensor([6., 9., 9., 9., 6.])
    """
    if input.dim() != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.dim() != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, "
                           "out_channels.")
    if bias.dim() != 1:
        raise RuntimeError("Bias must be 1-D")
    if input.size(2) != weight.size(1):
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if weight.size(2) != bias.size(0):
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    length = input.size(0) + 2 * pad - weight.size(0) + 1
    if length < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {length}: "
                           f"[{length}, {input.size(1)}, {weight.size(2)}]")
    # torch's kernel views each kernel tap's time slice of the input as (t * batch, C_in),
    # so an input whose time and batch dims cannot merge raises view's error there. The
    # slices differ only in where they start and how long they are, so one slice longer
    # than a step tells for all of them.
    steps, batch, planes = input.size(0), input.size(1), input.size(2)
    for k in range(weight.size(0)):
        shift, out_shift = max(0, k - pad), max(0, pad - k)
        t = min(steps + pad - k, length) - out_shift
        if t > 1:
            input.narrow(0, shift, t).view(t * batch, planes)
            break
    return _conv_tbc_node(input, weight, bias, pad)


_conv_tbc_node = composite_node("ConvTbcBackward0", _conv_tbc_composite, differentiable=3,
                                no_forward_ad="conv_tbc")
