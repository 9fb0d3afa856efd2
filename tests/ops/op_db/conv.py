"""Convolution and pooling: conv2d (strides, padding, dilation, groups), max_pool2d,
avg_pool2d and adaptive_avg_pool2d, against a direct numpy convolution.
"""

import numpy as np

from .rows import FLOAT, POS, A, OpSpec, S, Tr


def _two(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def _conv2d_ref(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    """Direct convolution: one einsum per kernel position and group."""
    (s0, s1), (p0, p1), (d0, d1) = _two(stride), _two(padding), _two(dilation)
    x = np.pad(x, ((0, 0), (0, 0), (p0, p0), (p1, p1)))
    n, _, h, wd = x.shape
    o, cg, kh, kw = w.shape
    oh, ow = (h - d0 * (kh - 1) - 1) // s0 + 1, (wd - d1 * (kw - 1) - 1) // s1 + 1
    out = np.zeros((n, o, oh, ow), dtype=np.result_type(x, w))
    og = o // groups
    for i in range(kh):
        for j in range(kw):
            patch = x[:, :, i * d0:i * d0 + s0 * (oh - 1) + 1:s0, j * d1:j * d1 + s1 * (ow - 1) + 1:s1]
            for g in range(groups):
                out[:, g * og:(g + 1) * og] += np.einsum(
                    "nchw,oc->nohw", patch[:, g * cg:(g + 1) * cg], w[g * og:(g + 1) * og, :, i, j])
    return out if b is None else out + b.reshape(1, -1, 1, 1)


def _pool_ref(x, k, reduce):
    """Non-overlapping k x k windows (stride k, no padding) reduced with ``reduce``."""
    n, c, h, w = x.shape
    v = x[:, :, :h // k * k, :w // k * k].reshape(n, c, h // k, k, w // k, k)
    return reduce(v, axis=(3, 5))


_CONV_X = (S("2x3x6x5", A(2, 3, 6, 5), A(4, 3, 3, 2), A(4)),
           S("transposed_input", Tr((2, 3, 5, 6), 2, 3), A(4, 3, 3, 2), A(4)))
OPS = [
    OpSpec("nn.functional.conv2d", lambda lib, x, w, b: lib.nn.functional.conv2d(
        x, w, b, stride=(2, 1), padding=1, dilation=(1, 2)), _CONV_X, FLOAT,
        ref=lambda np_, x, w, b: _conv2d_ref(x, w, b, (2, 1), 1, (1, 2)), gradgrad=True,
        rtol=1e-5),
    OpSpec("nn.functional.conv2d_groups", lambda lib, x, w: lib.nn.functional.conv2d(
        x, w, groups=2), (S("groups", A(2, 4, 5, 5), A(6, 2, 2, 2)),), FLOAT,
        ref=lambda np_, x, w: _conv2d_ref(x, w, groups=2), rtol=1e-5),
    OpSpec("nn.functional.max_pool2d", lambda lib, x: lib.nn.functional.max_pool2d(x, 2),
           (S("2x3x6x5", A(2, 3, 6, 5)), S("transposed", Tr((2, 3, 5, 6), 2, 3))), FLOAT,
           ref=lambda np_, x: _pool_ref(x, 2, np.max), gradgrad=True),
    OpSpec("nn.functional.avg_pool2d", lambda lib, x: lib.nn.functional.avg_pool2d(x, 2),
           (S("2x3x6x5", A(2, 3, 6, 5)),), FLOAT,
           ref=lambda np_, x: _pool_ref(x, 2, np.mean), gradgrad=True, rtol=1e-5),
    OpSpec("nn.functional.adaptive_avg_pool2d",
           lambda lib, x: lib.nn.functional.adaptive_avg_pool2d(x, (3, 2)),
           (S("2x3x6x4", A(2, 3, 6, 4)),), FLOAT,
           ref=lambda np_, x: _pool_ref(x, 2, np.mean), rtol=1e-5),
]


def _conv_transpose1d_np(x, w, b, stride, padding):
    """Scatter form: each input position adds its kernel-weighted row to the output."""
    n, cin, length = x.shape
    _, cout, k = w.shape
    full = np.zeros((n, cout, (length - 1) * stride + k), dtype=np.result_type(x, w))
    for i in range(length):
        full[:, :, i * stride:i * stride + k] += np.einsum("nc,cok->nok", x[:, :, i], w)
    out = full[:, :, padding:full.shape[2] - padding]
    return out + b.reshape(1, -1, 1)


OPS += [
    OpSpec("nn.functional.conv_transpose1d",
           lambda lib, x, w, b: lib.nn.functional.conv_transpose1d(x, w, b, stride=2, padding=1),
           (S("1d", A(2, 3, 5), A(3, 2, 3), A(2)),), FLOAT,
           ref=lambda np_, x, w, b: _conv_transpose1d_np(x, w, b, 2, 1), rtol=1e-5),
]


def _windows(x, k, s):
    return np.stack([x[..., i * s:i * s + k] for i in range((x.shape[-1] - k) // s + 1)], -2)


OPS += [
    OpSpec("nn.functional.lp_pool1d",
           lambda lib, x: lib.nn.functional.lp_pool1d(x, 2.0, 3, 2),
           (S("3d", A(2, 3, 7, domain=POS)),), FLOAT,
           ref=lambda np_, x: np.sqrt((_windows(x, 3, 2) ** 2).sum(-1)), rtol=1e-5),
    OpSpec("nn.functional.lp_pool2d",
           lambda lib, x: lib.nn.functional.lp_pool2d(x, 1.0, 2),
           (S("4d", A(1, 2, 4, 4, domain=POS)),), FLOAT,
           ref=lambda np_, x: x.reshape(1, 2, 2, 2, 2, 2).sum((3, 5)), rtol=1e-5),
    OpSpec("nn.functional.adaptive_max_pool1d",
           lambda lib, x: lib.nn.functional.adaptive_max_pool1d(x, 3),
           (S("3d", A(2, 3, 6)),), FLOAT,
           ref=lambda np_, x: x.reshape(2, 3, 3, 2).max(-1)),
]
