"""``F.pad`` (every mode) and ``F.interpolate`` / ``F.upsample*``, with torch's
argument checks and messages. The work is ``_C._resample``: one C++ node per
op with torch's ``grad_fn`` names; circular padding is torch's composite
(slice copies, so its ``grad_fn`` is ``CopySlices`` as torch's).
"""

import builtins
import warnings

from .. import _C
from ._antialias_resample import interpolate_antialias
from ._conv_functional import adaptive_avg_pool1d, adaptive_avg_pool2d

_R = _C._resample

# ResampleMode numbers in csrc/ops/resample.h.
_REFLECT, _REPLICATE, _NEAREST, _NEAREST_EXACT, _LINEAR, _CUBIC = range(6)

_PAD_MODES = {"constant", "reflect", "replicate", "circular"}
_PAD_SIZES = ("Supported combinations for non-constant padding:\n"
              "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
              "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
              "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


def _pad_list(pad):
    if isinstance(pad, builtins.int) or not isinstance(pad, (tuple, list)) and not hasattr(
            pad, "__len__"):
        raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, not "
                        f"{type(pad).__name__}")
    out = []
    for i, p in enumerate(pad):
        if isinstance(p, builtins.bool) or not isinstance(p, builtins.int):
            if hasattr(p, "__index__") and not isinstance(p, builtins.float):
                p = p.__index__()
            else:
                raise TypeError(f"pad(): argument 'pad' failed to unpack the object at pos {i + 1} "
                                f"with error \"type must be tuple of ints,but got "
                                f"{type(p).__name__}\"")
        out.append(builtins.int(p))
    return out


def pad(input, pad, mode="constant", value=None):  # noqa: A002 - torch's argument names
    """Pads the last ``len(pad) // 2`` dims of ``input``; ``pad`` lists the
    padding before and after each, last dim first. Modes: ``'constant'``
    (with ``value``; negative padding cuts), ``'reflect'``, ``'replicate'``,
    ``'circular'``.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.pad(gradtrack.tensor([[1., 2., 3.]]), (2, 1), mode='reflect')
    tensor([[3., 2., 1., 2., 3., 2.]])
    """
    if mode not in _PAD_MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    pad = _pad_list(pad)
    if len(pad) % 2 != 0:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.dim():
        raise RuntimeError("Padding length should be less than or equal to two times the input "
                           f"dimension but got padding length {len(pad)} and input of dimension "
                           f"{input.dim()}")
    if mode == "constant":
        return _R.constant_pad_nd(input, pad, 0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
    k = len(pad) // 2
    if k not in (1, 2, 3) or input.dim() not in (k + 1, k + 2):
        raise NotImplementedError(f"Padding size {len(pad)} is not supported for {input.dim()}D "
                                  f"input tensor.\n{_PAD_SIZES}")
    if mode == "circular":
        return _pad_circular(input, pad)
    if mode == "replicate" or k < 3:  # on autocast's float32 list, but reflection_pad3d
        input = _C._autocast.to_float32(input)  # noqa: A001
    return _pad_map(input, pad, k, _REFLECT if mode == "reflect" else _REPLICATE)


def _pad_map(input, pad, k, which):  # noqa: A002
    shape = list(input.shape)
    spatial = shape[-k:]
    batch_dims = shape[:-k]
    # torch: the channel (and batch, when there is one) dims may be empty only
    # in the batch position; the padded dims never.
    if 0 in spatial or (len(batch_dims) == 2 and batch_dims[1] == 0):
        raise RuntimeError(f"Expected {k + 1}D or {k + 2}D (batch mode) tensor with possibly 0 batch "
                           f"size and other non-zero dimensions for input, but got: {shape}")
    before = []
    out_sizes = []
    for j in range(k):
        lo, hi = pad[2 * (k - 1 - j)], pad[2 * (k - 1 - j) + 1]
        before.append(lo)
        out_sizes.append(spatial[j] + lo + hi)
    if which == _REFLECT:
        for i in range(k):  # the last dim first, as torch's checks
            lo, hi = pad[2 * i], pad[2 * i + 1]
            d = input.dim() - 1 - i
            if not (lo < shape[d] and hi < shape[d]):
                raise RuntimeError(
                    f"Argument #{4 + 2 * i}: Padding size should be less than the corresponding "
                    f"input dimension, but got: padding ({lo}, {hi}) at dimension {d} of input "
                    f"{shape}")
    for j, s in enumerate(out_sizes):
        if s < 0:
            full = batch_dims + out_sizes
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {full}")
    return _R.resample(input, which, out_sizes, before, [], False)


def _pad_circular(input, pad):  # noqa: A002
    """torch's _pad_circular: the input copied into the middle, then each
    padded dim's borders copied from the opposite side (slice copies)."""
    k = len(pad) // 2
    n = input.dim()
    in_shape = list(input.shape)
    out_shape = list(in_shape)
    for i in range(k):
        d = n - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        if lo > in_shape[d] or hi > in_shape[d]:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        out_shape[d] = in_shape[d] + lo + hi
        if out_shape[d] < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
    out = _C.empty(tuple(out_shape), dtype=input.dtype)
    dst, src = out, input
    for i in range(k):
        d = n - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        dst = dst.narrow(d, max(lo, 0), out_shape[d] - max(lo, 0) - max(hi, 0))
        src = src.narrow(d, max(-lo, 0), in_shape[d] - max(-lo, 0) - max(-hi, 0))
    dst.copy_(src)
    for i in range(k):
        d = n - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        size = out_shape[d]
        if lo > 0:
            out.narrow(d, 0, lo).copy_(out.narrow(d, size - lo - max(hi, 0), lo))
        if hi > 0:
            out.narrow(d, size - hi, hi).copy_(out.narrow(d, max(lo, 0), hi))
    return out


# ---- interpolation ---------------------------------------------------------------------------

_DIM_NAMES = ("D", "H", "W")
_MODES = ("nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact")
_NEEDS = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}


def _is_integer(x):
    return isinstance(x, builtins.int) or (hasattr(x, "__index__") and not isinstance(
        x, builtins.float))


def _sizes_and_scales(input, size, scale_factor, recompute_scale_factor):  # noqa: A002
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        scales = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {list(input.shape[2:])} and output size of "
                    f"{size}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                    "output size in (o1, o2, ...,oK) format.")
            if not builtins.all(_is_integer(x) for x in size):
                raise TypeError(
                    "expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                    f"Tuple[int, int, int], but got size with types {[type(x) for x in size]}")
            out = [builtins.int(s) for s in size]
        else:
            out = [size for _ in range(dim)]
    elif scale_factor is not None:
        out = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but "
                    f"got input with spatial dimensions of {list(input.shape[2:])} and "
                    f"scale_factor of shape {scale_factor}. Please provide input tensor in (N, C, "
                    "d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format.")
            scales = list(scale_factor)
        else:
            scales = [scale_factor for _ in range(dim)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    return out, scales


def _upsample(input, mode, out, scales, align_corners):  # noqa: A002
    """torch's upsample_* entries: the output size from the scales when no
    size is given, the size check, the dtype check, then the kernel."""
    k = input.dim() - 2
    spatial = list(input.shape[2:])
    if out is None:
        out = [builtins.int(spatial[i] * scales[i]) for i in range(k)]
    names = _DIM_NAMES[3 - k:]
    if builtins.any(s <= 0 for s in spatial) or builtins.any(o <= 0 for o in out):
        raise RuntimeError(
            "Input and output sizes should be greater than 0, but got input ("
            + ", ".join(f"{n}: {s}" for n, s in zip(names, spatial))
            + (") and output (" if k == 1 else ") output (")  # torch's words per dim count
            + ", ".join(f"{n}: {o}" for n, o in zip(names, out)) + ")")
    if not input.is_floating_point():
        which = {_NEAREST: "nearest", _NEAREST_EXACT: "nearest", _LINEAR: "linear",
                 _CUBIC: "cubic"}[mode]
        dt = {"torch.int64": "Long", "torch.int32": "Int", "torch.uint8": "Byte",
              "torch.bool": "Bool"}.get(str(input.dtype).replace("gradtrack", "torch"),
                                        str(input.dtype))
        raise NotImplementedError(f"\"compute_indices_weights_{which}\" not implemented for "
                                  f"'{dt}'")
    sc = [None if scales is None else builtins.float(s) for s in (scales or [None] * k)]
    return _R.resample(input, mode, out, [], sc, builtins.bool(align_corners))


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,  # noqa: A002,E501
                recompute_scale_factor=None, antialias=False):
    """Resizes the spatial dims of an ``(N, C, d1, ..., dK)`` tensor to ``size``
    or by ``scale_factor``: modes ``'nearest'``, ``'nearest-exact'``,
    ``'linear'`` (3-D), ``'bilinear'``/``'bicubic'`` (4-D), ``'trilinear'``
    (5-D) and ``'area'``; ``antialias=True`` (4-D ``'bilinear'``, ``'bicubic'``,
    ``'lanczos'``) widens the filter by the scale when downsampling.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.interpolate(gradtrack.tensor([[[1., 3.]]]), scale_factor=2, mode='linear')
    tensor([[[1.0000, 1.5000, 2.5000, 3.0000]]])
    """
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    out, scales = _sizes_and_scales(input, size, scale_factor, recompute_scale_factor)
    if mode == "area" and out is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        out = [builtins.int(input.size(i + 2) * scales[i]) for i in range(input.dim() - 2)]
        scales = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.dim() == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes "
                         "and requires a 4-D tensor as input")
    n = input.dim()
    if mode == "lanczos" and n == 4:
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
    if antialias:
        return interpolate_antialias(input, mode, out, scales, align_corners)
    if mode in ("nearest", "nearest-exact") and n in (3, 4, 5):
        return _upsample(input, _NEAREST if mode == "nearest" else _NEAREST_EXACT, out, scales,
                         False)
    if mode == "area" and n in (3, 4):
        pool = adaptive_avg_pool1d if n == 3 else adaptive_avg_pool2d
        return pool(input, out[0] if n == 3 else tuple(out))
    if mode in _NEEDS and n == _NEEDS[mode]:
        return _upsample(input, _CUBIC if mode == "bicubic" else _LINEAR, out, scales,
                         align_corners)
    if mode in ("linear", "bilinear", "trilinear") and n in (3, 4, 5):
        raise NotImplementedError(f"Got {n}D input, but {mode} mode needs {_NEEDS[mode]}D input")
    if mode == "area" and n == 5:
        raise NotImplementedError("gradtrack: interpolate(mode='area') of 5-D input is not "
                                  "implemented")
    raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {n}D)"
                              f" for the modes: {_MODES} (got {mode})")


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):  # noqa: A002
    """Deprecated alias of :func:`interpolate` (warns as torch's).

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> import warnings; warnings.simplefilter("ignore")
    >>> F.upsample(gradtrack.ones(1, 1, 2), scale_factor=2).shape
    gradtrack.Size([1, 1, 4])
    """
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):  # noqa: A002
    """Deprecated: ``interpolate(..., mode='nearest')``.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> import warnings; warnings.simplefilter("ignore")
    >>> F.upsample_nearest(gradtrack.ones(1, 1, 2), 3).shape
    gradtrack.Size([1, 1, 3])
    """
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):  # noqa: A002
    """Deprecated: ``interpolate(..., mode='bilinear', align_corners=True)``.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> import warnings; warnings.simplefilter("ignore")
    >>> F.upsample_bilinear(gradtrack.ones(1, 1, 2, 2), 3).shape
    gradtrack.Size([1, 1, 3, 3])
    """
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)

