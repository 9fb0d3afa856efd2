"""Padding (constant, reflect, replicate, circular, negative) and interpolation (nearest,
linear with align_corners).

The 1-d and 2-d forms of reflect and replicate padding share a row name; pytest numbers
their test ids in the order of the rows here.
"""

import numpy as np

from .rows import FLOAT, A, OpSpec, S, T


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
