"""``F.unfold`` (im2col) and ``F.fold`` (col2im): sliding blocks of a 4-D input as
columns, and their sum back into an image.

Both are one index table over the zero-padded image (``_block_index``): unfold gathers
with ``index_select``, fold adds with ``index_add`` in the same order as torch's col2im
(kernel offset outer, block inner), so float32 sums round as torch's. Each records one
node with torch's name (``Im2ColBackward0`` / ``Col2ImBackward0``, NOTE [Named composite
nodes]); NaN and infinity are copied, never multiplied.

>>> import gradtrack
>>> import gradtrack.nn.functional as F
>>> x = gradtrack.arange(9.0).reshape(1, 1, 3, 3)
>>> cols = F.unfold(x, 2)
>>> cols
tensor([[[0., 1., 3., 4.],
         [1., 2., 4., 5.],
         [3., 4., 6., 7.],
         [4., 5., 7., 8.]]])
>>> F.fold(cols, (3, 3), 2)
tensor([[[[ 0.,  2.,  2.],
          [ 6., 16., 10.],
          [ 6., 14.,  8.]]]])
"""

from .. import _C
from .._dtype_names import SCALAR_NAME, dtype_key
from ..autograd._named_nodes import composite_node

__all__ = ["unfold", "fold"]


def _pair(name, value):
    if isinstance(value, int):
        return (value, value)
    value = tuple(int(v) for v in value)
    if len(value) == 1:
        return value * 2
    if len(value) != 2:
        raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(value)}")
    return value


def _check_args(kernel, dilation, padding, stride, fold):
    kh, kw = kernel
    checks = [
        (kh > 0 and kw > 0, f"kernel size should be greater than zero, but got kernel_height: "
                            f"{kh} kernel_width: {kw}"),
        (stride[0] > 0 and stride[1] > 0, f"stride should be greater than zero, but got "
                                          f"stride_height: {stride[0]} stride_width: {stride[1]}"),
        (dilation[0] > 0 and dilation[1] > 0, f"dilation should be greater than zero, but got "
                                              f"dilation_height: {dilation[0]} dilation_width: "
                                              f"{dilation[1]}"),
        (padding[0] >= 0 and padding[1] >= 0, f"padding should be non-negative, but got "
                                              f"pad_height: {padding[0]} pad_width: "
                                              f"{padding[1]}"),
    ]
    if not fold:  # im2col checks the stride last
        checks.append(checks.pop(1))
    for ok, message in checks:
        if not ok:
            raise RuntimeError(message)


def _check_float(input, kernel):  # noqa: A002
    if not input.is_floating_point():
        key = dtype_key(input.dtype)
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{SCALAR_NAME.get(key, key)}'")


def _blocks(size, kernel, dilation, padding, stride):
    """Sliding blocks along one dim, with C++'s truncating division as torch's."""
    span = size + 2 * padding - dilation * (kernel - 1) - 1
    return int(span / stride) + 1


def _block_index(height, width, kernel, dilation, padding, stride, blocks):
    """Flat positions in the padded ``(height + 2p) x (width + 2p)`` plane of every
    (kernel offset, block) pair, kernel offsets outer."""
    wp = width + 2 * padding[1]
    rows = [(i * dilation[0] + bh * stride[0]) * wp for i in range(kernel[0])
            for bh in range(blocks[0])]
    index = []
    for i in range(kernel[0]):
        for j in range(kernel[1]):
            col = j * dilation[1]
            for bh in range(blocks[0]):
                base = rows[i * blocks[0] + bh] + col
                index.extend(base + bw * stride[1] for bw in range(blocks[1]))
    return _C.tensor(index, dtype=_C.int64)


def _im2col(x, index, kernel, padding, count):
    if x.dim() == 3:
        return _im2col(x.unsqueeze(0), index, kernel, padding, count).squeeze(0)
    n, c = x.shape[0], x.shape[1]
    padded = x
    if padding != (0, 0):
        padded = _C._resample.constant_pad_nd(x, [padding[1], padding[1], padding[0], padding[0]], 0.0)
    flat = padded.reshape(n, c, padded.shape[2] * padded.shape[3]).index_select(2, index)
    return flat.reshape(n, c * kernel[0] * kernel[1], count)


def _col2im(cols, index, kernel, padding, size):
    if cols.dim() == 2:
        return _col2im(cols.unsqueeze(0), index, kernel, padding, size).squeeze(0)
    n = cols.shape[0]
    c = cols.shape[1] // (kernel[0] * kernel[1])
    hp, wp = size[0] + 2 * padding[0], size[1] + 2 * padding[1]
    image = _C.zeros(n, c, hp * wp, dtype=cols.dtype)
    blocks = cols.reshape(n, c, kernel[0] * kernel[1] * cols.shape[2])
    image = image.index_add(2, index, blocks).reshape(n, c, hp, wp)
    return image[:, :, padding[0]:padding[0] + size[0], padding[1]:padding[1] + size[1]]


_unfold_node = composite_node("Im2ColBackward0", _im2col, linear=True)
_fold_node = composite_node("Col2ImBackward0", _col2im, linear=True)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):  # noqa: A002
    """The sliding ``kernel_size`` blocks of an ``(N, C, H, W)`` (or ``(C, H, W)``) input
    as the columns of an ``(N, C * kH * kW, L)`` tensor (im2col).

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.unfold(gradtrack.ones(2, 3, 4, 5), (2, 3), padding=1).shape
    gradtrack.Size([2, 18, 25])
    """
    kernel, dilation = _pair("kernel_size", kernel_size), _pair("dilation", dilation)
    padding, stride = _pair("padding", padding), _pair("stride", stride)
    _check_args(kernel, dilation, padding, stride, fold=False)
    d = input.dim()
    if d < 3:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(d, 1)}, "
                         f"{max(d, 1) - 1}], but got {d})")
    if d > 4 or any(s == 0 for s in input.shape[-3:]):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and "
                           f"other non-zero dimensions for input, but got: {list(input.shape)}")
    height, width = input.shape[-2], input.shape[-1]
    blocks = tuple(_blocks(s, k, dl, p, st)
                   for s, k, dl, p, st in zip((height, width), kernel, dilation, padding, stride))
    if blocks[0] < 1 or blocks[1] < 1:
        raise RuntimeError(f"Given input with spatial size ({height}, {width}), kernel_size="
                           f"{kernel}, dilation={dilation}, padding={padding}, calculated shape "
                           f"of the array of sliding blocks as {blocks}, but its components must "
                           "be at least one.")
    _check_float(input, "im2col_out_cpu")
    index = _block_index(height, width, kernel, dilation, padding, stride, blocks)
    return _unfold_node(input, index, kernel, padding, blocks[0] * blocks[1])


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):  # noqa: A002
    """Sums an ``(N, C * kH * kW, L)`` tensor of sliding-block columns back into an
    ``(N, C, *output_size)`` image (col2im; overlapping blocks add up).

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.fold(gradtrack.ones(1, 4, 4), (3, 3), 2)
    tensor([[[[1., 2., 1.],
              [2., 4., 2.],
              [1., 2., 1.]]]])
    """
    size, kernel = _pair("output_size", output_size), _pair("kernel_size", kernel_size)
    dilation, padding = _pair("dilation", dilation), _pair("padding", padding)
    stride = _pair("stride", stride)
    _check_args(kernel, dilation, padding, stride, fold=True)
    d = input.dim()
    if d not in (2, 3) or any(s == 0 for s in input.shape[-2:]):
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 "
                           "batch size and non-zero dimensions for input, but got: "
                           f"{list(input.shape)}")
    channels, count = input.shape[-2], input.shape[-1]
    if channels % (kernel[0] * kernel[1]) != 0:
        raise RuntimeError("Expected size of input's dimension 1 to be divisible by the product "
                           f"of kernel_size, but got input.size(1)={channels} and kernel_size="
                           f"{kernel}.")
    blocks = tuple(_blocks(s, k, dl, p, st)
                   for s, k, dl, p, st in zip(size, kernel, dilation, padding, stride))
    if blocks[0] * blocks[1] != count:
        raise RuntimeError(f"Given output_size={size}, kernel_size={kernel}, dilation="
                           f"{dilation}, padding={padding}, stride={stride}, expected size of "
                           "input's dimension 2 to match the calculated number of sliding blocks "
                           f"{blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got "
                           f"input.size(2)={count}.")
    _check_float(input, "col2im_out_cpu")
    index = _block_index(size[0], size[1], kernel, dilation, padding, stride, blocks)
    return _fold_node(input, index, kernel, padding, size)
