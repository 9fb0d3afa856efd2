"""Padding (constant, reflect, replicate, circular, negative) and interpolation (nearest,
linear with align_corners).

The 1-d and 2-d forms of reflect and replicate padding share a row name; pytest numbers
their test ids in the order of the rows here.
"""

import numpy as np

from .rows import FLOAT, A, Domain, OpSpec, S, T, Tr


def _np_pad(a, pad, mode, value=0.0):
    widths = [(0, 0)] * a.ndim
    for i in range(len(pad) // 2):
        widths[a.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    kind = {"constant": "constant", "reflect": "reflect", "replicate": "edge",
            "circular": "wrap"}[mode]
    extra = {"constant_values": value} if kind == "constant" else {}
    return np.pad(a, widths, mode=kind, **extra)


def _pad_spec(mode, pad, samples):
    return OpSpec(f"nn.functional.pad_{mode}",
                  lambda lib, a: lib.nn.functional.pad(a, pad, mode=mode), samples, FLOAT,
                  ref=lambda np_, a: _np_pad(a, pad, mode))


def _np_linear_corners(a, n):
    """1-D linear interpolation with align_corners=True along the last dim."""
    x = np.linspace(0, a.shape[-1] - 1, n)
    return np.apply_along_axis(lambda r: np.interp(x, np.arange(a.shape[-1]), r), -1, a)


PAD_SAMPLES = (S("3d", A(2, 3, 5)), S("2d", A(3, 5)), S("t", T(3, 5)))
PAD2_SAMPLES = (S("4d", A(1, 2, 4, 5)), S("3d", A(2, 4, 5)))

OPS = [
    _pad_spec("constant", (1, 2), PAD_SAMPLES),
    _pad_spec("reflect", (2, 1), PAD_SAMPLES),
    _pad_spec("replicate", (3, 1), PAD_SAMPLES),
    _pad_spec("circular", (2, 1), PAD_SAMPLES),
    _pad_spec("reflect", (1, 2, 3, 0), PAD2_SAMPLES),
    _pad_spec("replicate", (1, 2, 3, 0), PAD2_SAMPLES),
    OpSpec("nn.functional.pad_negative", lambda lib, a: lib.nn.functional.pad(a, (-1, 2), value=3.),
           PAD_SAMPLES, FLOAT, ref=lambda np_, a: np.pad(a[..., 1:], [(0, 0)] * (a.ndim - 1)
                                                          + [(0, 2)], constant_values=3.)),
    OpSpec("nn.functional.interpolate_nearest",
           lambda lib, a: lib.nn.functional.interpolate(a, scale_factor=2),
           (S("3d", A(2, 3, 4)), S("4d", A(1, 2, 3, 4))), FLOAT,
           ref=lambda np_, a: np.repeat(a, 2, -1) if a.ndim == 3
           else np.repeat(np.repeat(a, 2, -1), 2, -2)),
    OpSpec("nn.functional.interpolate_linear_corners",
           lambda lib, a: lib.nn.functional.interpolate(a, size=7, mode="linear",
                                                        align_corners=True),
           (S("3d", A(2, 3, 4)),), FLOAT, ref=lambda np_, a: _np_linear_corners(a, 7)),
]


# ---- sampling grids ---------------------------------------------------------------------------

def _reflect_np(x, twice_low, twice_high):
    if twice_low == twice_high:
        return np.zeros_like(x)
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    x = np.abs(x - low)
    extra, flips = np.fmod(x, span), np.floor(x / span)
    return np.where(np.fmod(flips, 2) == 0, extra + low, span - extra + low)


def _unnormalize_np(coord, size, align_corners):
    return (coord + 1) / 2 * (size - 1) if align_corners else ((coord + 1) * size - 1) / 2


def _source_np(coord, size, padding_mode, align_corners):
    return _pad_np(_unnormalize_np(coord, size, align_corners), size, padding_mode,
                   align_corners)


def _pad_np(coord, size, padding_mode, align_corners):
    if padding_mode == "reflection":
        coord = (_reflect_np(coord, 0, 2 * (size - 1)) if align_corners
                 else _reflect_np(coord, -1, 2 * size - 1))
    if padding_mode != "zeros":
        coord = np.clip(coord, 0, size - 1)
    return coord


def _cubic_np(t):
    """Keys' cubic convolution weights (A = -0.75) of the taps at -1, 0, 1, 2."""
    def kernel(d):
        d = abs(d)
        if d <= 1:
            return (1.25 * d - 2.25) * d * d + 1
        return ((-0.75 * d + 3.75) * d - 6) * d + 3
    return [kernel(t + 1), kernel(t), kernel(1 - t), kernel(2 - t)]


def _bicubic_point_np(x, b, gx, gy, padding_mode, align_corners):
    """One bicubic output point: each of the 4x4 integer taps padded on its own."""
    _, _, h, w = x.shape
    ix, iy = _unnormalize_np(gx, w, align_corners), _unnormalize_np(gy, h, align_corners)
    x0, y0 = int(np.floor(ix)), int(np.floor(iy))
    wx, wy = _cubic_np(ix - x0), _cubic_np(iy - y0)
    out = 0
    for dy in range(4):
        py = int(_pad_np(float(y0 - 1 + dy), h, padding_mode, align_corners))
        for dx in range(4):
            px = int(_pad_np(float(x0 - 1 + dx), w, padding_mode, align_corners))
            if 0 <= px < w and 0 <= py < h:
                out = out + wy[dy] * wx[dx] * x[b, :, py, px]
    return out


def _grid_sample_np(x, grid, mode, padding_mode, align_corners):
    """torch's grid sampler, one output point at a time (4-D input)."""
    n, c, h, w = x.shape
    out = np.zeros((n, c, grid.shape[1], grid.shape[2]), dtype=x.dtype)
    for b in range(n):
        for i in range(grid.shape[1]):
            for j in range(grid.shape[2]):
                if mode == "bicubic":
                    out[b, :, i, j] = _bicubic_point_np(x, b, grid[b, i, j, 0], grid[b, i, j, 1],
                                                        padding_mode, align_corners)
                    continue
                ix = _source_np(grid[b, i, j, 0], w, padding_mode, align_corners)
                iy = _source_np(grid[b, i, j, 1], h, padding_mode, align_corners)
                if mode == "nearest":
                    px, py = int(np.rint(ix)), int(np.rint(iy))
                    if 0 <= px < w and 0 <= py < h:
                        out[b, :, i, j] = x[b, :, py, px]
                    continue
                x0, y0 = int(np.floor(ix)), int(np.floor(iy))
                for dy in (0, 1):
                    for dx in (0, 1):
                        px, py = x0 + dx, y0 + dy
                        wt = (ix - x0 if dx else 1 - (ix - x0)) * (iy - y0 if dy else 1 - (iy - y0))
                        if 0 <= px < w and 0 <= py < h:
                            out[b, :, i, j] += wt * x[b, :, py, px]
    return out


def _affine_grid_np(theta, size, align_corners):
    n, _, h, w = size

    def steps(k):
        if k <= 1:
            return np.zeros(1)
        p = np.linspace(-1, 1, k)
        return p if align_corners else p * (k - 1) / k

    xs, ys = np.meshgrid(steps(w), steps(h))
    base = np.stack([xs, ys, np.ones_like(xs)], -1).reshape(-1, 3)
    return np.einsum("pk,nck->npc", base, theta).reshape(n, h, w, 2).astype(theta.dtype)


# grid coordinates a little beyond [-1, 1], so every padding mode has work to do
_GRID = Domain("grid", -1.3, 1.3)


def _grid_row(name, mode, padding_mode, align_corners):
    return OpSpec(f"nn.functional.grid_sample_{name}",
                  lambda lib, x, g: lib.nn.functional.grid_sample(
                      x, g, mode=mode, padding_mode=padding_mode, align_corners=align_corners),
                  (S("2x3x4x5", A(2, 3, 4, 5), A(2, 3, 4, 2, domain=_GRID)),), FLOAT,
                  ref=lambda np_, x, g: _grid_sample_np(x, g, mode, padding_mode, align_corners),
                  gradcheck=mode != "nearest", rtol=1e-5, atol=1e-5)


OPS += [
    _grid_row("bilinear_zeros", "bilinear", "zeros", False),
    _grid_row("bilinear_border_aligned", "bilinear", "border", True),
    _grid_row("bilinear_reflection", "bilinear", "reflection", False),
    _grid_row("bilinear_reflection_aligned", "bilinear", "reflection", True),
    _grid_row("nearest_zeros", "nearest", "zeros", False),
    _grid_row("bicubic_zeros", "bicubic", "zeros", False),
    _grid_row("bicubic_zeros_aligned", "bicubic", "zeros", True),
    _grid_row("bicubic_border", "bicubic", "border", False),
    _grid_row("bicubic_reflection", "bicubic", "reflection", False),
    _grid_row("bicubic_reflection_aligned", "bicubic", "reflection", True),
    OpSpec("nn.functional.affine_grid",
           lambda lib, t: lib.nn.functional.affine_grid(t, (2, 3, 4, 5), align_corners=False),
           (S("2x2x3", A(2, 2, 3)),), FLOAT,
           ref=lambda np_, t: _affine_grid_np(t, (2, 3, 4, 5), False)),
]


# ---- antialiased interpolation ----------------------------------------------------------------

def _aa_filter_np(mode, x):
    x = np.abs(x)
    if mode == "bilinear":
        return np.maximum(1 - x, 0)
    if mode == "lanczos":
        return np.where(x < 3, np.sinc(x) * np.sinc(x / 3), 0)
    near = (1.5 * x - 2.5) * x * x + 1  # Keys' cubic, a = -0.5
    far = ((-0.5 * x + 2.5) * x - 4) * x + 2
    return np.where(x < 1, near, np.where(x < 2, far, 0))


def _aa_matrix_np(n_in, n_out, mode, align_corners):
    """One dim's antialiased resize as an (n_out, n_in) matrix: the filter stretched by
    the scale when downsampling, each output's weights over its window summing to 1."""
    if align_corners:
        scale = (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    else:
        scale = n_in / n_out
    taps = {"bilinear": 2, "bicubic": 4, "lanczos": 6}[mode]
    stretch = max(scale, 1.0)
    out = np.zeros((n_out, n_in))
    for i in range(n_out):
        centre = scale * (i + 0.5)
        lo = max(int(centre - taps / 2 * stretch + 0.5), 0)
        hi = min(int(centre + taps / 2 * stretch + 0.5), n_in)
        w = _aa_filter_np(mode, (np.arange(lo, hi) - centre + 0.5) / stretch)
        out[i, lo:hi] = w / w.sum()
    return out


def _np_antialias(a, size, mode, align_corners):
    if a.shape[2] == size[0]:  # torch's forward passes a same-size dim through
        rows = np.eye(size[0])
    else:
        rows = _aa_matrix_np(a.shape[2], size[0], mode, align_corners)
    cols = np.eye(size[1]) if a.shape[3] == size[1] else _aa_matrix_np(a.shape[3], size[1], mode,
                                                                       align_corners)
    return np.einsum("oh,nchw,pw->ncop", rows, a, cols).astype(a.dtype)


def _antialias_row(name, mode, size, align_corners=False):
    return OpSpec(f"nn.functional.interpolate_antialias_{name}",
                  lambda lib, a: lib.nn.functional.interpolate(
                      a, size=size, mode=mode, align_corners=align_corners, antialias=True),
                  (S("2x3x9x7", A(2, 3, 9, 7)), S("tr", Tr((1, 2, 8, 6), 2, 3))), FLOAT,
                  ref=lambda np_, a: _np_antialias(a, size, mode, align_corners),
                  rtol=1e-5, atol=1e-5)


OPS += [
    _antialias_row("bilinear_down", "bilinear", (4, 3)),
    _antialias_row("bilinear_up_aligned", "bilinear", (11, 13), True),
    _antialias_row("bicubic_mixed", "bicubic", (3, 10)),
    _antialias_row("bicubic_down_aligned", "bicubic", (5, 2), True),
    _antialias_row("lanczos_down", "lanczos", (4, 3)),
]
