"""``F.interpolate(..., antialias=True)`` of 4-D input: modes ``'bilinear'``,
``'bicubic'`` and ``'lanczos'``, each one node named as torch's
(``UpsampleBilinear2DAaBackward0``, ``UpsampleBicubic2DAaBackward0``,
``UpsampleLanczos2DAaBackward0``; NOTE [Named composite nodes]).

NOTE [Antialiased resampling as two weight matrices]
An antialiased resize is separable: along each spatial dim, output ``i`` is a
weighted sum of the inputs ``j`` in a window around its source centre
``scale * (i + 0.5)``, where ``scale`` is ``in / out`` (``1 / scale_factor`` when a
scale factor is given, ``(in - 1) / (out - 1)`` with ``align_corners=True``, 0 for
a single output). When downsampling (``scale >= 1``) the filter is stretched by
``scale``: its support grows to ``scale * taps / 2`` and its argument is divided by
``scale``, so every input pixel is averaged in (that is the antialiasing); when
upsampling it is the plain filter. The window is ``[trunc(centre - support + 0.5),
trunc(centre + support + 0.5))`` clipped to the input, the weights are
``filter((j - centre + 0.5) / stretch)`` and each row is divided by its sum. The
filters, measured against torch: triangle (2 taps), Keys' cubic with ``a = -0.5``
(4 taps; plain bicubic uses -0.75), Lanczos with ``a = 3`` (6 taps). So each dim is
an ``(out, in)`` matrix, built here with NumPy in the input's precision (as torch
builds its weights: float32 arithmetic for float32 input, which gives torch's
triangle weights bit for bit). The resize applies each dim's windows in turn, the
width first as torch's kernel runs it: the window's inputs gathered and summed with
their weights (not a dense matmul, whose zeros would carry a NaN or inf to every
output and, backward, to every input). The gradient is the same sums transposed,
and differentiable again as torch's. A dim whose matrix is the identity (same size,
scale 1) is left alone; torch's forward also passes a same-size dim through when a
scale factor other than 1 is given (its gradient then uses the scale's weights).

Where torch differs: its contiguous-input kernel, when the output width is 1 and the
height changes, writes the first output row into every row (its channels-last kernel
and its gradient do not); this follows the channels-last kernel's (correct) values.

>>> import gradtrack
>>> import gradtrack.nn.functional as F
>>> F.interpolate(gradtrack.arange(4.).reshape(1, 1, 1, 4), size=(1, 2), mode='bilinear',
...               antialias=True)
tensor([[[[0.7143, 2.2857]]]])
"""

import builtins
import math

from .. import _C
from .._dtype_names import SCALAR_NAME, dtype_key
from .._memory_format import (_channels_last_strides, _strides_like, channels_last,
                              contiguous_format)
from ..autograd._named_nodes import composite_node

_DIM_NAMES = ("H", "W")
_COMPLEX_NAME = {"complex64": "ComplexFloat", "complex128": "ComplexDouble"}


def _triangle(x, np):
    return np.maximum(1 - np.abs(x), 0)


def _keys_cubic(x, np):
    # Keys' cubic convolution kernel, a = -0.5, evaluated in float64 (torch's weights
    # for float32 input are closest to this).
    t = np.abs(x.astype(np.float64))
    a = -0.5
    near = ((a + 2) * t - (a + 3)) * t * t + 1
    far = (((t - 5) * t + 8) * t - 4) * a
    return np.where(t < 1, near, np.where(t < 2, far, 0.0)).astype(x.dtype)


def _lanczos3(x, np):
    t = x.astype(np.float64)
    return np.where(np.abs(t) < 3, np.sinc(t) * np.sinc(t / 3), 0.0).astype(x.dtype)


# mode -> (filter, number of taps when not stretched, torch's grad_fn name)
_FILTERS = {"bilinear": (_triangle, 2, "UpsampleBilinear2DAaBackward0"),
            "bicubic": (_keys_cubic, 4, "UpsampleBicubic2DAaBackward0"),
            "lanczos": (_lanczos3, 6, "UpsampleLanczos2DAaBackward0")}


def _scale(n_in, n_out, scale_factor, align_corners):
    """Input pixels per output pixel, as torch's resize kernels take it."""
    if align_corners:
        return (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    if scale_factor is not None and scale_factor > 0:
        return 1.0 / scale_factor
    return n_in / n_out


def axis_weights(n_in, n_out, mode, scale_factor=None, align_corners=False, dtype="float64",
                 windows=False):
    """The ``(n_out, n_in)`` NumPy matrix of one dim's antialiased resize, in ``dtype``
    (``"float32"`` or ``"float64"``): row ``i`` holds output ``i``'s weights
    (NOTE [Antialiased resampling as two weight matrices]); with ``windows``, also
    each output's first input and one past its last.

    >>> (axis_weights(4, 2, "bilinear") * 7).round(6).tolist()
    [[3.0, 3.0, 1.0, 0.0], [0.0, 1.0, 3.0, 3.0]]
    """
    import numpy as np  # not at import: gradtrack's import stays free of NumPy

    real = np.dtype(dtype).type
    filt, taps, _ = _FILTERS[mode]
    scale = real(_scale(n_in, n_out, scale_factor, align_corners))
    wide = scale >= 1
    support = real(taps / 2) * scale if wide else real(taps / 2)
    stretch = real(1) / scale if wide else real(1)
    centre = scale * (np.arange(n_out, dtype=real) + real(0.5))
    # trunc toward zero, as a C cast: the window may start below 0 before clipping
    start = np.maximum(np.trunc(centre - support + real(0.5)), 0).astype(np.int64)
    stop = np.minimum(np.trunc(centre + support + real(0.5)), n_in).astype(np.int64)
    j = np.arange(n_in, dtype=np.int64)
    inside = (j >= start[:, None]) & (j < stop[:, None])
    x = (j.astype(real) - centre[:, None] + real(0.5)) * stretch
    w = np.where(inside, filt(x, np), real(0)).astype(real)
    total = np.cumsum(w, axis=1, dtype=real)[:, -1:]  # in tap order, as torch sums them
    w = np.where(total != 0, w / np.where(total != 0, total, real(1)), w).astype(real)
    return (w, start, stop) if windows else w


def _apply(x, taps, dim):
    """One dim's resize: each output the weighted sum of its window's inputs (a zero
    appended at the end stands for the taps past a short window), so that a NaN or
    inf reaches, forward and backward, only the outputs and inputs it does in torch."""
    index, weights = taps[:2]
    shape = list(x.shape)
    shape[dim] = 1
    x = _C.cat([x, _C.zeros(shape, dtype=x.dtype)], dim)
    out, k = weights.shape
    picked = x.index_select(dim, index.reshape(-1))
    shape = list(picked.shape)
    shape[dim:dim + 1] = [out, k]
    w_shape = [out, k] + [1] * (len(shape) - dim - 2)
    return (picked.reshape(shape) * weights.reshape(w_shape)).sum(dim + 1)


def _resize(x, rows, cols, channels_last_out):
    """The resize of the last two dims by ``rows`` and ``cols`` (each ``(index,
    weights)`` of shape ``(out, taps)``, or ``None`` for a dim left as it is), the width
    first, laid out as torch lays out its result: channels-last for a channels-last
    input, else contiguous."""
    y = x
    if cols is not None:
        y = _apply(y, cols, 3)
    if rows is not None:
        y = _apply(y, rows, 2)
    if channels_last_out:
        if y is x or list(y.stride()) != _channels_last_strides(y, channels_last):
            y = y.clone(memory_format=channels_last)
    elif y is x:
        y = x.clone(memory_format=contiguous_format)
    elif not y.is_contiguous():
        y = y.contiguous()
    return y


def _resize_forward(x, rows, cols, channels_last_out):
    """The forward values: torch's kernel passes a dim whose size does not change
    through as it is, whatever the scale factor (its gradient does apply the scale's
    weights, as ``_resize`` does)."""
    n_in = list(x.shape[2:])
    rows = None if rows is not None and rows[2] == n_in[0] else rows
    cols = None if cols is not None and cols[2] == n_in[1] else cols
    return _resize(x, rows, cols, channels_last_out)


_NODES = {mode: composite_node(name, _resize, forward=_resize_forward, linear=True)
          for mode, (_, _, name) in _FILTERS.items()}


def _check(input, out):  # noqa: A002 - torch's argument name
    spatial = list(input.shape[2:])
    if builtins.any(s <= 0 for s in spatial) or builtins.any(o <= 0 for o in out):
        raise RuntimeError(
            "Input and output sizes should be greater than 0, but got input ("
            + ", ".join(f"{n}: {s}" for n, s in zip(_DIM_NAMES, spatial)) + ") output ("
            + ", ".join(f"{n}: {o}" for n, o in zip(_DIM_NAMES, out)) + ")")
    if input.size(1) == 0:
        raise RuntimeError("Non-empty 4D data tensor expected but got a tensor with sizes "
                           f"{list(input.shape)}")
    key = dtype_key(input.dtype)
    if key not in ("float32", "float64"):
        if key == "uint8":  # torch rounds uint8 through fixed-point weights of its own
            raise NotImplementedError("gradtrack: interpolate(antialias=True) of uint8 input "
                                      "is not implemented")
        name = SCALAR_NAME.get(key) or _COMPLEX_NAME.get(key, key)
        raise NotImplementedError(f"\"compute_index_ranges_weights\" not implemented for "
                                  f"'{name}'")


def _taps(n_in, n_out, mode, scale_factor, align_corners, key):
    """One dim's windows as ``(index, weights, n_out)``: ``(n_out, taps)`` tensors,
    index ``n_in`` past a window's end; None when the resize is the identity."""
    import numpy as np

    w, start, stop = axis_weights(n_in, n_out, mode, scale_factor, align_corners, key, True)
    if n_in == n_out and (w == np.eye(n_in, dtype=w.dtype)).all():
        return None
    k = builtins.max(builtins.int((stop - start).max()), 1)
    index = start[:, None] + np.arange(k)
    index = np.where(index < stop[:, None], index, n_in)
    weights = np.take_along_axis(np.concatenate([w, np.zeros((n_out, 1), w.dtype)], 1), index,
                                 1)
    return _C.from_numpy(index), _C.from_numpy(np.ascontiguousarray(weights)), n_out


def interpolate_antialias(input, mode, out, scales, align_corners):  # noqa: A002
    """The antialiased resize of 4-D ``input`` to ``out`` (a list of two sizes, or None to
    take them from ``scales``), ``mode`` one of ``'bilinear'``, ``'bicubic'``,
    ``'lanczos'``; ``F.interpolate`` has checked its arguments.

    >>> import gradtrack
    >>> x = gradtrack.ones(1, 2, 6, 6, requires_grad=True)
    >>> y = interpolate_antialias(x, "bicubic", [3, 3], None, False)
    >>> y.shape, y.grad_fn.name()
    (gradtrack.Size([1, 2, 3, 3]), 'UpsampleBicubic2DAaBackward0')
    """
    spatial = list(input.shape[2:])
    if out is None:
        out = [math.floor(spatial[i] * scales[i]) for i in range(2)]
    _check(input, out)
    key = dtype_key(input.dtype)
    factors = [None, None] if scales is None else [builtins.float(s) for s in scales]
    rows, cols = (_taps(spatial[d], out[d], mode, factors[d], align_corners, key)
                  for d in range(2))
    return _NODES[mode](input, rows, cols, _strides_like(input, channels_last))
