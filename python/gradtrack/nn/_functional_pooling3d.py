"""The 3-D pools of ``nn.functional``: ``max_pool3d``, ``avg_pool3d``,
``adaptive_avg_pool3d``, ``adaptive_max_pool3d`` and ``lp_pool3d``.

NOTE [3-D pools as two 2-D passes]
A 3-D window is a depth window of (height, width) windows, so each pool is the core's
2-D pool twice: over (height, width) for every depth slice, then over depth for every
output pixel (a 1 x D plane). The maximum of maxima is the window's maximum with torch's
rule (the first greatest in depth, height, width order; the last NaN wins), and the flat
index is the depth pass's index times H * W plus the (height, width) pass's index there.
The average pools sum (a divisor of 1) in both passes and divide once by torch's divisor
(a product of one count per dim, padding included or not), so only the order of the
window's sum differs from torch's. Each records one node with torch's name
(``MaxPool3DWithIndicesBackward0``, ... : NOTE [Named composite nodes]), whose gradient is
the two passes' gradients in turn.

>>> import gradtrack
>>> import gradtrack.nn.functional as F
>>> x = gradtrack.arange(8.0).reshape(1, 1, 2, 2, 2)
>>> F.max_pool3d(x, 2, return_indices=True)
(tensor([[[[[7.]]]]]), tensor([[[[[7]]]]]))
"""

from .. import _C
from .._autocast import runs_in_float32
from ..autograd.grad_mode import no_grad
from ..autograd._named_nodes import composite_node

__all__ = ["max_pool3d", "max_pool3d_with_indices", "avg_pool3d", "adaptive_avg_pool3d",
           "adaptive_max_pool3d", "adaptive_max_pool3d_with_indices", "lp_pool3d"]

_conv = _C._conv


def _triple(fn, name, value, allow_none=False):
    if allow_none and (value is None or (not isinstance(value, int) and len(value) == 0)):
        return None
    if isinstance(value, int):
        return [value] * 3
    value = [int(v) for v in value]
    if len(value) == 1:
        return value * 3
    if len(value) != 3:
        if allow_none:
            raise RuntimeError(f"{fn}: {name} must either be omitted, a single int, or a tuple "
                               "of three ints")
        raise RuntimeError(f"{fn}: {name} must either be a single int, or a tuple of three ints")
    return value


def _pooled(size, k, p, s, d, ceil):
    span = size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil else 0)
    out = span // s + 1
    if ceil and (out - 1) * s >= size + p:
        out -= 1
    return out


def _check(fn, input, k, s, p, d, ceil, check_size):  # noqa: A002
    if any(v == 0 for v in s):
        raise RuntimeError("stride should not be zero")
    if input.dim() not in (4, 5) or any(n == 0 for n in input.shape[-4:]):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    t, h, w = input.shape[-3:]
    if check_size and (t < k[0] or h < k[1] or w < k[2]):
        raise RuntimeError(f"input image (T: {t} H: {h} W: {w}) smaller than kernel size (kT: "
                           f"{k[0]} kH: {k[1]} kW: {k[2]})")
    for i in range(3):
        if p[i] > ((k[i] - 1) * d[i] + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={p[i]}, kernel_size={k[i]} and dilation={d[i]}")
    out = [_pooled(n, k[i], p[i], s[i], d[i], ceil) for i, n in enumerate((t, h, w))]
    if min(out) < 1:
        c = input.shape[-4]
        raise RuntimeError(f"Given input size: ({c}x{t}x{h}x{w}). Calculated output size: "
                           f"({c}x{out[0]}x{out[1]}x{out[2]}). Output size is too small")
    return out


def _planes(x):
    """x as [P, D, H, W] (P = batch * channels) and its leading shape."""
    return x.reshape(-1, *x.shape[-3:]), list(x.shape[:-3])


def _depth_pass(y, p, d, fn):
    """Runs ``fn`` on y [P * D, OH, OW] viewed as P planes of [OH * OW, 1, D]; returns its
    results as [P, OD, OH, OW] (each output of fn reshaped the same way)."""
    oh, ow = y.shape[-2], y.shape[-1]
    rows = y.reshape(p, d, oh * ow).transpose(1, 2).unsqueeze(2)
    outs = fn(rows)
    return [o.squeeze(2).transpose(1, 2).reshape(p, -1, oh, ow) for o in outs]


def _max_values(x, k, s, pad, dil, ceil):
    planes, lead = _planes(x)
    p, d = planes.shape[0], planes.shape[1]
    y, _ = _conv.max_pool2d_with_indices(planes.reshape(p * d, *planes.shape[2:]), k[1:], s[1:],
                                         pad[1:], dil[1:], ceil)
    (out,) = _depth_pass(y, p, d, lambda r: _conv.max_pool2d_with_indices(
        r, [1, k[0]], [1, s[0]], [0, pad[0]], [1, dil[0]], ceil)[:1])
    return out.reshape(*lead, *out.shape[1:])


def _max_indices(x, k, s, pad, dil, ceil):
    with no_grad():
        planes, lead = _planes(x)
        p, d, h, w = planes.shape
        y, i1 = _conv.max_pool2d_with_indices(planes.reshape(p * d, h, w), k[1:], s[1:], pad[1:],
                                              dil[1:], ceil)
        (depth,) = _depth_pass(y, p, d, lambda r: _conv.max_pool2d_with_indices(
            r, [1, k[0]], [1, s[0]], [0, pad[0]], [1, dil[0]], ceil)[1:])
        within = i1.reshape(p, d, -1).gather(1, depth.reshape(p, depth.shape[1], -1))
        index = depth * (h * w) + within.reshape(depth.shape)
        return index.reshape(*lead, *index.shape[1:])


_max_node = composite_node("MaxPool3DWithIndicesBackward0", _max_values)


@runs_in_float32
def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,  # noqa: A002
                            ceil_mode=False, return_indices=False):
    """:func:`max_pool3d` returning ``(values, indices)``.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.max_pool3d_with_indices(gradtrack.arange(8.0).reshape(1, 2, 2, 2), 2)[1]
    tensor([[[[7]]]])
    """
    k = _triple("max_pool3d", "kernel_size", kernel_size)
    s = _triple("max_pool3d", "stride", stride, allow_none=True) or k
    p = _triple("max_pool3d", "padding", padding)
    d = _triple("max_pool3d", "dilation", dilation)
    _check("max_pool3d", input, k, s, p, d, bool(ceil_mode), False)
    args = (k, s, p, d, bool(ceil_mode))
    return _max_node(input, *args), _max_indices(input, *args)


@runs_in_float32
def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1,  # noqa: A002
               ceil_mode=False, return_indices=False):
    """Maximum over ``kernel_size`` windows of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` input.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.max_pool3d(gradtrack.arange(8.0).reshape(1, 1, 2, 2, 2), 2)
    tensor([[[[[7.]]]]])
    """
    if return_indices:
        return max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    k = _triple("max_pool3d", "kernel_size", kernel_size)
    s = _triple("max_pool3d", "stride", stride, allow_none=True) or k
    p = _triple("max_pool3d", "padding", padding)
    d = _triple("max_pool3d", "dilation", dilation)
    _check("max_pool3d", input, k, s, p, d, bool(ceil_mode), False)
    return _max_node(input, k, s, p, d, bool(ceil_mode))


def _counts(size, out, k, s, p, include_pad):
    """torch's per-dim divisor factor of each output position."""
    counts = []
    for o in range(out):
        start = o * s - p
        end = min(start + k, size + p)
        if include_pad:
            counts.append(end - start)
        else:
            counts.append(min(end, size) - max(start, 0))
    return counts


def _avg(x, k, s, pad, ceil, include_pad, divisor):
    planes, lead = _planes(x)
    p, d = planes.shape[0], planes.shape[1]
    sums = _conv.avg_pool2d(planes.reshape(p * d, *planes.shape[2:]), k[1:], s[1:], pad[1:],
                            ceil, True, 1)
    (out,) = _depth_pass(sums, p, d, lambda r: [_conv.avg_pool2d(
        r, [1, k[0]], [1, s[0]], [0, pad[0]], ceil, True, 1)])
    if divisor:
        out = out / divisor
    else:
        sizes = x.shape[-3:]
        factors = [_C.tensor(_counts(sizes[i], out.shape[1 + i], k[i], s[i], pad[i], include_pad),
                             dtype=out.dtype) for i in range(3)]
        div = (factors[0].reshape(-1, 1, 1) * factors[1].reshape(1, -1, 1)
               * factors[2].reshape(1, 1, -1))
        out = out / div
    return out.reshape(*lead, *out.shape[1:])


_avg_node = composite_node("AvgPool3DBackward0", _avg)


@runs_in_float32
def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,  # noqa: A002
               count_include_pad=True, divisor_override=None):
    """Mean over ``kernel_size`` windows of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` input.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.avg_pool3d(gradtrack.arange(8.0).reshape(1, 1, 2, 2, 2), 2)
    tensor([[[[[3.5000]]]]])
    """
    k = _triple("avg_pool3d", "kernel_size", kernel_size)
    s = _triple("avg_pool3d", "stride", stride, allow_none=True) or k
    p = _triple("avg_pool3d", "padding", padding)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    _check("avg_pool3d", input, k, s, p, [1, 1, 1], bool(ceil_mode), True)
    return _avg_node(input, k, s, p, bool(ceil_mode), bool(count_include_pad),
                     int(divisor_override or 0))


def _adaptive_size(fn, input, output_size):  # noqa: A002
    if isinstance(output_size, int):
        size = [output_size] * 3
    else:
        size = list(output_size)
        if len(size) != 3:
            raise RuntimeError(f"{fn}: output_size must be 3" if fn == "adaptive_avg_pool3d"
                               else f"{fn}(): internal error: output_size.size() must be 3")
    if input.dim() not in (4, 5):
        raise RuntimeError(f"{fn}(): Expected 4D or 5D tensor, but got {list(input.shape)}")
    return [input.shape[-3 + i] if v is None else int(v) for i, v in enumerate(size)]


def _adaptive_avg(x, size):
    planes, lead = _planes(x)
    p, d = planes.shape[0], planes.shape[1]
    y = _conv.adaptive_avg_pool2d(planes.reshape(p * d, *planes.shape[2:]), size[1:])
    (out,) = _depth_pass(y, p, d, lambda r: [_conv.adaptive_avg_pool2d(r, [1, size[0]])])
    return out.reshape(*lead, *out.shape[1:])


def _adaptive_max(x, size):
    planes, lead = _planes(x)
    p, d = planes.shape[0], planes.shape[1]
    y, _ = _conv.adaptive_max_pool2d(planes.reshape(p * d, *planes.shape[2:]), size[1:])
    (out,) = _depth_pass(y, p, d, lambda r: _conv.adaptive_max_pool2d(r, [1, size[0]])[:1])
    return out.reshape(*lead, *out.shape[1:])


def _adaptive_max_indices(x, size):
    with no_grad():
        planes, lead = _planes(x)
        p, d, h, w = planes.shape
        y, i1 = _conv.adaptive_max_pool2d(planes.reshape(p * d, h, w), size[1:])
        (depth,) = _depth_pass(y, p, d, lambda r: _conv.adaptive_max_pool2d(r, [1, size[0]])[1:])
        within = i1.reshape(p, d, -1).gather(1, depth.reshape(p, depth.shape[1], -1))
        index = depth * (h * w) + within.reshape(depth.shape)
        return index.reshape(*lead, *index.shape[1:])


_adaptive_avg_node = composite_node("AdaptiveAvgPool3DBackward0", _adaptive_avg)
_adaptive_max_node = composite_node("AdaptiveMaxPool3DBackward0", _adaptive_max)


@runs_in_float32
def adaptive_avg_pool3d(input, output_size):  # noqa: A002
    """Mean over windows chosen so the output is ``output_size`` (``None`` keeps a size).

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.adaptive_avg_pool3d(gradtrack.ones(1, 2, 4, 5, 6), (2, 3, 1)).shape
    gradtrack.Size([1, 2, 2, 3, 1])
    """
    size = _adaptive_size("adaptive_avg_pool3d", input, output_size)
    if size == [1, 1, 1] and all(n != 0 for n in input.shape[1:]):
        return input.mean((-1, -2, -3), keepdim=True)  # torch's MeanBackward1
    return _adaptive_avg_node(input, size)


@runs_in_float32
def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):  # noqa: A002
    """:func:`adaptive_max_pool3d` returning ``(values, indices)``.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.adaptive_max_pool3d_with_indices(gradtrack.arange(8.0).reshape(1, 2, 2, 2), 1)
    (tensor([[[[7.]]]]), tensor([[[[7]]]]))
    """
    size = _adaptive_size("adaptive_max_pool3d", input, output_size)
    return _adaptive_max_node(input, size), _adaptive_max_indices(input, size)


@runs_in_float32
def adaptive_max_pool3d(input, output_size, return_indices=False):  # noqa: A002
    """Maximum over windows chosen so the output is ``output_size``.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.adaptive_max_pool3d(gradtrack.arange(8.0).reshape(1, 1, 2, 2, 2), 1)
    tensor([[[[[7.]]]]])
    """
    if return_indices:
        return adaptive_max_pool3d_with_indices(input, output_size)
    size = _adaptive_size("adaptive_max_pool3d", input, output_size)
    return _adaptive_max_node(input, size)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):  # noqa: A002
    """The ``norm_type``-norm of each 3-D window, composed as torch's.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.lp_pool3d(gradtrack.ones(1, 1, 2, 2, 2), 2, 2)
    tensor([[[[[2.8284]]]]])
    """
    kd, kh, kw = _triple("lp_pool3d", "kernel_size", kernel_size)
    if norm_type == float("inf"):
        return max_pool3d(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if norm_type == -float("inf"):
        return -max_pool3d(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is not None:
        out = avg_pool3d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool3d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (out.sign() * _C.relu(out.abs())).mul(kd * kh * kw).pow(1.0 / norm_type)
