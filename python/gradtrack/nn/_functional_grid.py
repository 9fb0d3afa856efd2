"""``F.affine_grid`` and ``F.grid_sample`` (bilinear and nearest, 4-D and 5-D inputs;
bicubic, 4-D: NOTE [Bicubic grid sampling]).

``grid_sample`` follows torch's CPU grid sampler step by step: each grid coordinate is
unnormalised to pixels (``align_corners`` picks corner or edge centres), moved inside the
image by the padding mode (``border`` clips, ``reflection`` mirrors then clips), and the
output is the sum over the cell's corners of the corner's value times its weight, the
corners in torch's order (depth, then height, then width; a corner outside the image
reads 0). The corners are gathered from the flattened planes, so the gradient reaches the
input through the gather and the grid through the weights, both as torch's formulas give
them. Each call is one node named as torch's (``GridSampler2DBackward0``,
``GridSampler3DBackward0``, ``AffineGridGeneratorBackward0``: NOTE [Named composite
nodes]).

>>> import gradtrack
>>> import gradtrack.nn.functional as F
>>> theta = gradtrack.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
>>> grid = F.affine_grid(theta, (1, 1, 2, 2), align_corners=True)
>>> x = gradtrack.tensor([[[[1.0, 2.0], [3.0, 4.0]]]])
>>> F.grid_sample(x, grid, align_corners=True)
tensor([[[[1., 2.],
          [3., 4.]]]])
"""

import warnings

from .. import _C
from .._autocast import runs_in_float32, warn_level
from ..autograd._named_nodes import composite_node

__all__ = ["affine_grid", "grid_sample"]

_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to "
                  "align_corners=False since 1.3.0. Please specify align_corners=True if the "
                  "old behavior is desired. See the documentation of grid_sample for details.")


# ---- affine_grid --------------------------------------------------------------------------

def _steps(theta, n, align_corners):
    """linspace_from_neg_one: n points over [-1, 1] (pixel centres unless align_corners)."""
    if n <= 1:
        return _C.zeros(1, dtype=theta.dtype)
    points = _C.linspace(-1.0, 1.0, n, dtype=theta.dtype)
    return points if align_corners else points * (n - 1) / n


def _affine_grid(theta, size, align_corners):
    spatial = list(size[2:])
    n = size[0]
    k = len(spatial)
    # base[..., :k] is (x, y[, z]) of each output position, base[..., k] is 1
    axes = [_steps(theta, s, align_corners) for s in spatial]  # depth, height, width
    columns = []
    for d in range(k):  # x from the last axis, y from the one before, ...
        axis = k - 1 - d
        shape = [1] * k
        shape[axis] = spatial[axis]
        columns.append(axes[axis].reshape(shape).expand(spatial))
    columns.append(_C.ones(spatial, dtype=theta.dtype))
    base = _C.stack(columns, -1).reshape(1, -1, k + 1).expand(n, -1, -1)
    return base.bmm(theta.transpose(1, 2)).reshape(n, *spatial, k)


_affine_node = composite_node("AffineGridGeneratorBackward0", _affine_grid, linear=True)


def affine_grid(theta, size, align_corners=None):
    """The sampling grid of a batch of affine maps ``theta`` (``N x 2 x 3`` for a 4-D
    ``size``, ``N x 3 x 4`` for a 5-D one), in :func:`grid_sample`'s ``[-1, 1]``
    coordinates.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> theta = gradtrack.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
    >>> F.affine_grid(theta, (1, 1, 1, 2), align_corners=False)
    tensor([[[[-0.5000,  0.0000],
              [ 0.5000,  0.0000]]]])
    """
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=warn_level(2))
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                             f"{size}. Got {theta.shape}.")
        spatial = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size "
                             f"{size}. Got {theta.shape}.")
        spatial = size[-3:]
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {size}.")
    if align_corners and min(spatial) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids "
                      "when align_corners=True. This is not an intended use case of affine_grid. "
                      "See the documentation of affine_grid for details.",
                      stacklevel=warn_level(2))
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    if theta.shape[0] != size[0]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{size[0]}, {theta.shape[2]}] but got: [{theta.shape[0]}, "
                           f"{theta.shape[2]}].")
    return _affine_node(theta, [int(s) for s in size], bool(align_corners))


# ---- grid_sample --------------------------------------------------------------------------

def _reflect(coord, twice_low, twice_high):
    """torch's reflect_coordinates: mirrors ``coord`` into [low, high]."""
    if twice_low == twice_high:
        return coord * 0
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    coord = (coord - low).abs()
    extra = coord.fmod(span)
    flips = (coord / span).floor()
    even = flips.fmod(2) == 0
    return _C.where(even, extra + low, span - extra + low)


def _unnormalize(coord, size, align_corners):
    """grid_sampler_unnormalize: a [-1, 1] coordinate as a pixel position."""
    if align_corners:
        return (coord + 1) * ((size - 1) / 2)
    return (coord + 1) * (size / 2) - 0.5


def _pad(coord, size, padding_mode, align_corners):
    """compute_coordinates: a pixel position moved inside the image by the padding mode
    (``zeros`` leaves it; reads outside the image give 0)."""
    if padding_mode == "border":
        coord = coord.clamp(0, size - 1)
    elif padding_mode == "reflection":
        if align_corners:
            coord = _reflect(coord, 0, 2 * (size - 1))
        else:
            coord = _reflect(coord, -1, 2 * size - 1)
        coord = coord.clamp(0, size - 1)
    return coord


def _source(coord, size, padding_mode, align_corners):
    """grid_sampler_compute_source_index: unnormalized, then padded."""
    return _pad(_unnormalize(coord, size, align_corners), size, padding_mode, align_corners)


def _gather(planes, positions, valid, channels):
    """planes [N, C, V] read at positions [N, P] (0 where not valid) -> [N, C, P].

    The invalid places are replaced by 0, not multiplied by it: an inf or NaN in the
    pixel read there in their stead, or in the incoming gradient, would come through
    (inf * 0), where torch's kernel never reads the pixel nor writes its gradient."""
    index = _C.where(valid, positions, _C.zeros((), dtype=positions.dtype))
    n, p = index.shape
    values = planes.gather(2, index.unsqueeze(1).expand(n, channels, p))
    return _C.where(valid.unsqueeze(1), values, _C.zeros((), dtype=values.dtype))


# NOTE [Bicubic grid sampling]
# torch's bicubic mode (2-D only) reads the 4x4 pixels around the unnormalized position,
# which is *not* padded itself: each of the 16 integer tap positions is padded on its own
# (border clips it, reflection mirrors and clips it, zeros reads 0 outside). Each row of
# four taps is combined with the cubic convolution weights of the x fraction (Keys' kernel,
# A = -0.75, as torch's upsample_bicubic2d), then the four rows with those of the y
# fraction. The gradient reaches the grid through the weights' polynomials only.
_CUBIC_A = -0.75


def _cubic_weights(t):
    """The cubic convolution weights of the taps at -1, 0, 1 and 2 for a fraction ``t``."""
    a = _CUBIC_A

    def near(x):  # the kernel for |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):  # the kernel for 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _bicubic(planes, flat_grid, spatial, padding_mode, align_corners):
    """The 2-D bicubic sample (NOTE [Bicubic grid sampling]): planes [N, C, H*W] -> [N, C, P]."""
    height, width = spatial
    x = _unnormalize(flat_grid[..., 0], width, align_corners)
    y = _unnormalize(flat_grid[..., 1], height, align_corners)
    x0, y0 = x.floor(), y.floor()
    wx, wy = _cubic_weights(x - x0), _cubic_weights(y - y0)
    columns = []
    for i in range(4):
        at = _pad(x0 + (i - 1), width, padding_mode, align_corners).to(_C.int64)
        columns.append((at, (at >= 0).logical_and(at < width)))
    out = None
    for j in range(4):
        at_y = _pad(y0 + (j - 1), height, padding_mode, align_corners).to(_C.int64)
        inside_y = (at_y >= 0).logical_and(at_y < height)
        row = None
        for i, (at_x, inside_x) in enumerate(columns):
            value = _gather(planes, at_y * width + at_x, inside_y.logical_and(inside_x),
                            planes.shape[1])
            term = value * wx[i].unsqueeze(1)
            row = term if row is None else row + term
        term = row * wy[j].unsqueeze(1)
        out = term if out is None else out + term
    return out


def _grid_sample(input, grid, mode, padding_mode, align_corners):  # noqa: A002
    n, c = input.shape[0], input.shape[1]
    spatial = list(input.shape[2:])  # (D,) H, W
    k = len(spatial)
    out_spatial = list(grid.shape[1:-1])
    planes = input.reshape(n, c, -1)
    flat_grid = grid.reshape(n, -1, k)
    if mode == "bicubic":
        out = _bicubic(planes, flat_grid, spatial, padding_mode, align_corners)
        return out.reshape(n, c, *out_spatial)
    # coords[d]: the pixel position along spatial dim d (grid's last axis is x, y[, z])
    coords = [_source(flat_grid[..., k - 1 - d], spatial[d], padding_mode, align_corners)
              for d in range(k)]
    strides = [1] * k
    for d in range(k - 2, -1, -1):
        strides[d] = strides[d + 1] * spatial[d + 1]
    if mode == "nearest":
        near = [x.round() for x in coords]
        valid = None
        position = None
        for d in range(k):
            inside = (near[d] >= 0).logical_and(near[d] <= spatial[d] - 1)
            valid = inside if valid is None else valid.logical_and(inside)
            term = near[d].to(_C.int64) * strides[d]
            position = term if position is None else position + term
        out = _gather(planes, position, valid, c)
        return out.reshape(n, c, *out_spatial)
    low = [x.floor() for x in coords]
    frac = [x - f for x, f in zip(coords, low)]
    out = None
    for corner in range(2 ** k):  # depth outer, width inner, as torch's corners
        bits = [(corner >> (k - 1 - d)) & 1 for d in range(k)]
        weight = None
        valid = None
        position = None
        # weights multiply in the kernel's order: height's before width's in 2-D, width's
        # first in 3-D
        order = range(k) if k == 2 else range(k - 1, -1, -1)
        for d in order:
            w = frac[d] if bits[d] else 1 - frac[d]
            weight = w if weight is None else weight * w
        for d in range(k):
            at = low[d] + bits[d]
            inside = (at >= 0).logical_and(at <= spatial[d] - 1)
            valid = inside if valid is None else valid.logical_and(inside)
            term = at.to(_C.int64) * strides[d]
            position = term if position is None else position + term
        term = _gather(planes, position, valid, c) * weight.unsqueeze(1)
        out = term if out is None else out + term
    return out.reshape(n, c, *out_spatial)


_grid2d_node = composite_node("GridSampler2DBackward0", _grid_sample, differentiable=2,
                              no_forward_ad="grid_sampler_2d")
_grid3d_node = composite_node("GridSampler3DBackward0", _grid_sample, differentiable=2,
                              no_forward_ad="grid_sampler_3d")


@runs_in_float32
def grid_sample(input, grid, mode="bilinear", padding_mode="zeros",  # noqa: A002
                align_corners=None):
    """Samples ``input`` (``N, C, H, W`` or ``N, C, D, H, W``) at the ``grid``'s
    ``[-1, 1]`` coordinates (``N, H_out, W_out, 2``, or ``..., 3``): ``mode`` ``'bilinear'``,
    ``'nearest'`` or ``'bicubic'`` (4-D input only), ``padding_mode`` ``'zeros'``,
    ``'border'`` or ``'reflection'``.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> x = gradtrack.tensor([[[[1.0, 2.0], [3.0, 4.0]]]])
    >>> F.grid_sample(x, gradtrack.zeros(1, 1, 1, 2), align_corners=False)
    tensor([[[[2.5000]]]])
    """
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' "
                         f"or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=warn_level(2))
        align_corners = False
    if input.dtype != grid.dtype:
        names = {"float32": "Float", "float64": "Double", "float16": "Half",
                 "bfloat16": "BFloat16"}
        a, b = (repr(t.dtype).split(".", 1)[1] for t in (input, grid))
        raise RuntimeError(f"expected scalar type {names.get(a, a)} but found {names.get(b, b)}")
    if input.shape[0] != grid.shape[0] or input.dim() != grid.dim():
        raise RuntimeError("grid_sampler(): expected grid and input to have same batch size, but "
                           f"got input with sizes {list(input.shape)} and grid with sizes "
                           f"{list(grid.shape)}")
    if input.dim() not in (4, 5):
        raise RuntimeError("grid_sampler(): expected 4D or 5D input and grid with same number of "
                           f"dimensions, but got input with sizes {list(input.shape)} and grid "
                           f"with sizes {list(grid.shape)}")
    k = input.dim() - 2
    if grid.shape[-1] != k:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {k} in last dimension, "
                           f"but got grid with sizes {list(grid.shape)}")
    if mode == "bicubic" and k != 2:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    node = _grid2d_node if k == 2 else _grid3d_node
    return node(input, grid, mode, padding_mode, bool(align_corners))
