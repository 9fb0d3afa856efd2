"""``F.fractional_max_pool2d/3d``: max pooling over pseudo-random windows (Graham, 2014).

NOTE [Fractional pooling windows]
Each (sample, channel) plane has one number in [0, 1) per pooled dim (its row of
``_random_samples``, drawn with ``rand`` as torch draws it); along a dim of input size
``n``, output size ``m`` and window ``k`` it places window ``i < m - 1`` at
``int((i + u) * a) - int(u * a)`` with ``a = (n - k) / (m - 1)``, and the last at
``n - k``, computed in the input's floating type as torch's kernel does, so the same
samples give torch's windows. For a 2-D pool the samples' first column is the width's
and the second the height's; for a 3-D pool they are (depth, height, width). The maxima
and their flat indices are found on the host (a window's first maximum, its last NaN);
the output is then a ``gather`` of the input at those indices inside one node named as
torch's, whose gradient is the scatter-add torch's backward is.
"""


from .. import _C
from .._dtype_names import SCALAR_NAME, dtype_key
from ..autograd._named_nodes import composite_node

__all__ = ["fractional_max_pool2d", "fractional_max_pool2d_with_indices",
           "fractional_max_pool3d", "fractional_max_pool3d_with_indices"]


def _gather_planes(nd):
    """Each plane's values at its flat indices (the plane: the last ``nd`` dims)."""
    def gather(x, indices):
        lead = x.dim() - nd
        return x.flatten(lead).gather(lead, indices.flatten(lead)).view_as(indices)
    return gather


_pool2d = composite_node("FractionalMaxPool2DBackward0", _gather_planes(2))
_pool3d = composite_node("FractionalMaxPool3DBackward0", _gather_planes(3))


def _ntuple(value, n):
    if isinstance(value, (int, float)):
        return (value,) * n
    value = tuple(value)
    return value * n if len(value) == 1 else value


def _bfloat16(values):
    """float32 values rounded to the nearest bfloat16 (ties to even), kept as float32."""
    import numpy as np  # not at import: gradtrack's import stays free of NumPy
    bits = np.asarray(values, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32)


def _arithmetic(dtype):
    """How torch's kernel rounds each step for ``dtype``: NumPy's type, or bfloat16's
    rounding applied to float32 (NumPy has no bfloat16)."""
    import numpy as np  # not at import: gradtrack's import stays free of NumPy
    if dtype == _C.float64:
        return lambda v: np.asarray(v, dtype=np.float64)
    if dtype == _C.float16:
        return lambda v: np.asarray(v, dtype=np.float16)
    if dtype == _C.bfloat16:
        return _bfloat16
    return lambda v: np.asarray(v, dtype=np.float32)


def _starts(samples, size, out, pool, rnd):
    """Window starts along one dim for every plane: ``samples`` is (planes,)."""
    import numpy as np  # not at import: gradtrack's import stays free of NumPy
    starts = np.empty(samples.shape + (out,), dtype=np.int64)
    if out > 1:
        alpha = rnd(rnd(size - pool) / rnd(out - 1))
        steps = rnd(np.arange(out - 1))
        u = rnd(samples)[:, None]
        starts[:, :-1] = (rnd(rnd(steps + u) * alpha).astype(np.int64)
                          - rnd(u * alpha).astype(np.int64))
    if out > 0:
        starts[:, -1] = size - pool
    return starts


def _fractional(name, input, kernel_size, output_size, output_ratio, samples, nd):  # noqa: A002
    import numpy as np
    spatial = tuple(input.shape[-nd:])
    channels = input.size(-nd - 1)
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        if nd == 2 and len(output_ratio) > 2:  # a bare number: torch's TypeError
            raise ValueError(f"{name} requires output_ratio to either be a single Int or "
                             "tuple of Ints.")
        ratio = _ntuple(output_ratio, nd)
        output_size = [int(s * r) for s, r in zip(spatial, ratio)]
    batched = input.dim() == nd + 2
    if samples is None:
        samples = _C.rand(input.size(0) if batched else 1, channels, nd, dtype=input.dtype)
    kernel = _ntuple(kernel_size, nd)
    output_size = _ntuple(output_size, nd)
    if samples.dtype != input.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"{name}_out_frame" not implemented for '
                                  f"'{SCALAR_NAME[dtype_key(input.dtype)]}'")
    if samples.size(0) < (input.size(0) if batched else 1):
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples.size(1) != channels:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.size(2) != nd:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {nd}; got "
                           f"{samples.size(2)}.")
    dim_names = ("height", "width") if nd == 2 else ("time", "height", "width")
    where = name if nd == 2 else name + "_out"  # torch's 3-D message names its out= form
    for d in range(nd):
        if output_size[d] + kernel[d] - 1 > spatial[d]:
            raise RuntimeError(f"{where}(): pool {dim_names[d]} {kernel[d]} too large "
                               f"relative to input {dim_names[d]} {spatial[d]}")
    x = input if batched else input.unsqueeze(0)
    n = x.size(0)
    rnd = _arithmetic(x.dtype)
    wide = x.dtype in (_C.float16, _C.bfloat16)  # read as float32 (exactly)
    u = (samples.float() if wide else samples).detach().numpy()[:n].reshape(n * channels, nd)
    # The column of the samples each spatial dim reads (NOTE [Fractional pooling windows]).
    columns = (1, 0) if nd == 2 else (0, 1, 2)
    starts = [_starts(u[:, col], size, out, pool, rnd)
              for col, size, out, pool in zip(columns, spatial, output_size, kernel)]
    strides = [int(np.prod(spatial[d + 1:])) for d in range(nd)]
    # flat input index of every (plane, output position, window offset)
    index = np.zeros((n * channels,) + tuple(output_size) + tuple(kernel), dtype=np.int64)
    for d in range(nd):
        along = starts[d][:, :, None] + np.arange(kernel[d])  # (planes, out_d, k_d)
        shape = [n * channels] + [1] * (2 * nd)
        shape[1 + d] = output_size[d]
        shape[1 + nd + d] = kernel[d]
        index = index + (along * strides[d]).reshape(shape)
    index = index.reshape((n * channels,) + tuple(output_size) + (-1,))
    values = (x.float() if wide else x).detach().reshape(n * channels, -1).numpy()
    window = np.take_along_axis(values, index.reshape(n * channels, -1), axis=1)
    window = window.reshape(index.shape)
    if window.shape[-1] == 0:
        # No window (kernel size 0): torch gives -inf at each window's start position.
        start = np.zeros((n * channels,) + tuple(output_size), dtype=np.int64)
        for d in range(nd):
            shape = [n * channels] + [1] * nd
            shape[1 + d] = output_size[d]
            start = start + (starts[d] * strides[d]).reshape(shape)
        indices = _C.tensor(start.reshape((n, channels) + tuple(output_size)))
        output = _C.full(list(indices.shape), float("-inf"), dtype=x.dtype)
    else:
        best = np.argmax(window, axis=-1)
        nans = np.isnan(window)
        if nans.any():  # the kernel keeps a window's last NaN
            last_nan = window.shape[-1] - 1 - np.argmax(nans[..., ::-1], axis=-1)
            best = np.where(nans.any(-1), last_nan, best)
        chosen = np.take_along_axis(index, best[..., None], axis=-1)[..., 0]
        indices = _C.tensor(np.ascontiguousarray(chosen).reshape(
            (n, channels) + tuple(output_size) if batched else (channels,) + tuple(output_size)))
        return (_pool2d if nd == 2 else _pool3d)(input, indices), indices
    if not batched:
        output, indices = output.squeeze(0), indices.squeeze(0)
    return output, indices


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None,  # noqa: A002
                                       output_ratio=None, return_indices=False,
                                       _random_samples=None):
    """:func:`fractional_max_pool2d` returning ``(output, indices)``.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> x = gradtrack.arange(16.).reshape(1, 1, 4, 4)
    >>> F.fractional_max_pool2d_with_indices(x, 2, output_size=2,
    ...     _random_samples=gradtrack.tensor([[[0.5, 0.5]]]))[1]
    tensor([[[[ 5,  7],
              [13, 15]]]])
    """
    return _fractional("fractional_max_pool2d", input, kernel_size, output_size,
                       output_ratio, _random_samples, 2)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,  # noqa: A002
                          return_indices=False, _random_samples=None):
    """2-D fractional max pooling over ``(N, C, H, W)`` or ``(C, H, W)`` input: windows of
    ``kernel_size`` at pseudo-random steps giving ``output_size`` (or ``output_ratio`` of
    the input size); ``_random_samples`` (``(N, C, 2)`` in [0, 1)) fixes the steps.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> x = gradtrack.arange(16.).reshape(1, 1, 4, 4)
    >>> F.fractional_max_pool2d(x, 2, output_size=2, _random_samples=gradtrack.tensor([[[0.5, 0.5]]]))
    tensor([[[[ 5.,  7.],
              [13., 15.]]]])
    """
    output, indices = fractional_max_pool2d_with_indices(
        input, kernel_size, output_size, output_ratio, return_indices, _random_samples)
    return (output, indices) if return_indices else output


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None,  # noqa: A002
                                       output_ratio=None, return_indices=False,
                                       _random_samples=None):
    """:func:`fractional_max_pool3d` returning ``(output, indices)``.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> x = gradtrack.arange(8.).reshape(1, 1, 2, 2, 2)
    >>> F.fractional_max_pool3d_with_indices(x, 1, output_size=1,
    ...     _random_samples=gradtrack.tensor([[[0.5, 0.5, 0.5]]]))[1]
    tensor([[[[[7]]]]])
    """
    return _fractional("fractional_max_pool3d", input, kernel_size, output_size,
                       output_ratio, _random_samples, 3)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,  # noqa: A002
                          return_indices=False, _random_samples=None):
    """3-D fractional max pooling over ``(N, C, T, H, W)`` or ``(C, T, H, W)`` input, as
    :func:`fractional_max_pool2d` with ``(N, C, 3)`` samples.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.fractional_max_pool3d(gradtrack.randn(2, 3, 6, 6, 6), 2, output_ratio=0.5).shape
    gradtrack.Size([2, 3, 3, 3, 3])
    """
    output, indices = fractional_max_pool3d_with_indices(
        input, kernel_size, output_size, output_ratio, return_indices, _random_samples)
    return (output, indices) if return_indices else output
