"""Convolution and pooling: conv2d (strides, padding, dilation, groups), max_pool2d,
avg_pool2d and adaptive_avg_pool2d, against a direct numpy convolution.
"""

import numpy as np

from .rows import FLOAT, POS, A, Idx, OpSpec, S, Tr


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


# ---- volumetric convolutions, sliding blocks and unpooling -----------------------------------

def _three(v):
    return (v, v, v) if isinstance(v, int) else tuple(v)


def _conv3d_ref(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    """Direct 3-D convolution: one einsum per kernel position and group."""
    s, p, d = _three(stride), _three(padding), _three(dilation)
    x = np.pad(x, ((0, 0), (0, 0)) + tuple((q, q) for q in p))
    o, cg, *k = w.shape
    out_sp = [(x.shape[2 + i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(3)]
    out = np.zeros((x.shape[0], o, *out_sp), dtype=np.result_type(x, w))
    og = o // groups
    for i in range(k[0]):
        for j in range(k[1]):
            for m in range(k[2]):
                patch = x[:, :, i * d[0]:i * d[0] + s[0] * (out_sp[0] - 1) + 1:s[0],
                          j * d[1]:j * d[1] + s[1] * (out_sp[1] - 1) + 1:s[1],
                          m * d[2]:m * d[2] + s[2] * (out_sp[2] - 1) + 1:s[2]]
                for g in range(groups):
                    out[:, g * og:(g + 1) * og] += np.einsum(
                        "ncdhw,oc->nodhw", patch[:, g * cg:(g + 1) * cg],
                        w[g * og:(g + 1) * og, :, i, j, m])
    return out if b is None else out + b.reshape(1, -1, 1, 1, 1)


def _conv_transpose3d_ref(x, w, b, stride):
    """Scatter form (no padding): each input voxel adds its kernel-weighted block."""
    n, cin, *sp = x.shape
    _, cout, *k = w.shape
    out = np.zeros((n, cout, *[(sp[i] - 1) * stride + k[i] for i in range(3)]),
                   dtype=np.result_type(x, w))
    for a in range(sp[0]):
        for c in range(sp[1]):
            for e in range(sp[2]):
                out[:, :, a * stride:a * stride + k[0], c * stride:c * stride + k[1],
                    e * stride:e * stride + k[2]] += np.einsum("nc,cokls->nokls",
                                                               x[:, :, a, c, e], w)
    return out + b.reshape(1, -1, 1, 1, 1)


def _unfold_ref(x, k, dilation, padding, stride):
    x = np.pad(x, ((0, 0), (0, 0), (padding[0], padding[0]), (padding[1], padding[1])))
    n, c, h, w = x.shape
    oh = (h - dilation[0] * (k[0] - 1) - 1) // stride[0] + 1
    ow = (w - dilation[1] * (k[1] - 1) - 1) // stride[1] + 1
    out = np.zeros((n, c, k[0], k[1], oh, ow), dtype=x.dtype)
    for i in range(k[0]):
        for j in range(k[1]):
            out[:, :, i, j] = x[:, :, i * dilation[0]:i * dilation[0] + stride[0] * (oh - 1) + 1:
                                stride[0], j * dilation[1]:j * dilation[1] + stride[1] * (ow - 1)
                                + 1:stride[1]]
    return out.reshape(n, c * k[0] * k[1], oh * ow)


def _fold_ref(cols, size, k, stride):
    n, ckk, _ = cols.shape
    c = ckk // (k[0] * k[1])
    oh = (size[0] - k[0]) // stride[0] + 1
    ow = (size[1] - k[1]) // stride[1] + 1
    blocks = cols.reshape(n, c, k[0], k[1], oh, ow)
    out = np.zeros((n, c, *size), dtype=cols.dtype)
    for i in range(k[0]):
        for j in range(k[1]):
            out[:, :, i:i + stride[0] * (oh - 1) + 1:stride[0],
                j:j + stride[1] * (ow - 1) + 1:stride[1]] += blocks[:, :, i, j]
    return out


def _unpool2d_ref(x, idx, size):
    n, c = x.shape[:2]
    out = np.zeros((n, c, size[0] * size[1]), dtype=x.dtype)
    np.put_along_axis(out, idx.reshape(n, c, -1), x.reshape(n, c, -1), axis=2)
    return out.reshape(n, c, *size)


_UNPOOL_IDX = Idx([[[[0, 7], [9, 14]], [[5, 2], [12, 11]]],
                   [[[4, 3], [13, 15]], [[1, 6], [8, 10]]]])

OPS += [
    OpSpec("nn.functional.conv3d", lambda lib, x, w, b: lib.nn.functional.conv3d(
        x, w, b, stride=(2, 1, 1), padding=(1, 0, 1), dilation=(1, 2, 1), groups=2),
        (S("2x4x5x6x5", A(2, 4, 5, 6, 5), A(6, 2, 3, 2, 2), A(6)),), FLOAT,
        ref=lambda np_, x, w, b: _conv3d_ref(x, w, b, (2, 1, 1), (1, 0, 1), (1, 2, 1), 2),
        gradgrad=True, rtol=1e-5),
    OpSpec("nn.functional.conv_transpose3d",
           lambda lib, x, w, b: lib.nn.functional.conv_transpose3d(x, w, b, stride=2),
           (S("3d", A(2, 3, 2, 3, 2), A(3, 2, 2, 3, 2), A(2)),), FLOAT,
           ref=lambda np_, x, w, b: _conv_transpose3d_ref(x, w, b, 2), rtol=1e-5),
    OpSpec("nn.functional.unfold", lambda lib, x: lib.nn.functional.unfold(
        x, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)),
        (S("2x3x5x6", A(2, 3, 5, 6)), S("unbatched", A(3, 5, 6))), FLOAT,
        ref=lambda np_, x: (_unfold_ref(x, (2, 3), (1, 2), (1, 1), (2, 1)) if x.ndim == 4
                            else _unfold_ref(x[None], (2, 3), (1, 2), (1, 1), (2, 1))[0])),
    OpSpec("nn.functional.fold", lambda lib, x: lib.nn.functional.fold(
        x, (4, 5), (2, 2), stride=(1, 2)), (S("2x8x6", A(2, 8, 6)),), FLOAT,
        ref=lambda np_, x: _fold_ref(x, (4, 5), (2, 2), (1, 2))),
    OpSpec("nn.functional.max_unpool2d",
           lambda lib, x, i: lib.nn.functional.max_unpool2d(x, i, 2),
           (S("2x2x2x2", A(2, 2, 2, 2), _UNPOOL_IDX),), FLOAT,
           ref=lambda np_, x, i: _unpool2d_ref(x, i, (4, 4))),
]


def _pool3d_ref(x, k, reduce):
    """Non-overlapping k x k x k windows (stride k, no padding) reduced with ``reduce``."""
    n, c, d, h, w = x.shape
    v = x[:, :, :d // k * k, :h // k * k, :w // k * k].reshape(n, c, d // k, k, h // k, k,
                                                                 w // k, k)
    return reduce(v, axis=(3, 5, 7))


_POOL3D = (S("2x2x4x5x4", A(2, 2, 4, 5, 4)), S("unbatched", A(2, 4, 4, 5)))
_ADAPTIVE3D = (S("2x2x4x4x4", A(2, 2, 4, 4, 4)),)  # halves: the windows do not overlap
OPS += [
    OpSpec("nn.functional.max_pool3d", lambda lib, x: lib.nn.functional.max_pool3d(x, 2),
           _POOL3D[:1], FLOAT, ref=lambda np_, x: _pool3d_ref(x, 2, np.max), gradgrad=True),
    OpSpec("nn.functional.max_pool3d_with_indices",
           lambda lib, x: lib.nn.functional.max_pool3d(x, 2, return_indices=True),
           _POOL3D, FLOAT,
           ref=lambda np_, x: (_pool3d_ref(x if x.ndim == 5 else x[None], 2,
                                           np.max).reshape(_pool3d_argmax(x).shape),
                               _pool3d_argmax(x))),
    OpSpec("nn.functional.avg_pool3d", lambda lib, x: lib.nn.functional.avg_pool3d(x, 2),
           _POOL3D[:1], FLOAT, ref=lambda np_, x: _pool3d_ref(x, 2, np.mean), gradgrad=True,
           rtol=1e-5),
    OpSpec("nn.functional.adaptive_avg_pool3d",
           lambda lib, x: lib.nn.functional.adaptive_avg_pool3d(x, (2, 2, 2)),
           _ADAPTIVE3D, FLOAT, ref=lambda np_, x: _pool3d_ref(x, 2, np.mean), rtol=1e-5),
    OpSpec("nn.functional.adaptive_max_pool3d",
           lambda lib, x: lib.nn.functional.adaptive_max_pool3d(x, (2, 2, 2)),
           _ADAPTIVE3D, FLOAT, ref=lambda np_, x: _pool3d_ref(x, 2, np.max)),
]


def _pool3d_argmax(x):
    """Flat (d, h, w) index of each 2 x 2 x 2 window's maximum."""
    batched = x if x.ndim == 5 else x[None]
    n, c, d, h, w = batched.shape
    out = np.zeros((n, c, d // 2, h // 2, w // 2), dtype=np.int64)
    for i in range(d // 2):
        for j in range(h // 2):
            for m in range(w // 2):
                win = batched[:, :, 2 * i:2 * i + 2, 2 * j:2 * j + 2, 2 * m:2 * m + 2]
                a = win.reshape(n, c, -1).argmax(-1)
                dd, hh, ww = a // 4, (a // 2) % 2, a % 2
                out[:, :, i, j, m] = ((2 * i + dd) * h + 2 * j + hh) * w + 2 * m + ww
    return out if x.ndim == 5 else out[0]


def _fractional_starts(u, size, out, pool, dtype):
    """Window starts of fractional max pooling (Graham's pseudo-random sequence)."""
    if out == 1:
        return [size - pool]
    alpha = dtype(size - pool) / dtype(out - 1)
    u = dtype(u)
    return [int((dtype(i) + u) * alpha) - int(u * alpha) for i in range(out - 1)] + [size - pool]


def _fractional_ref(x, kernel, out, samples, columns):
    """Loop reference: each plane's windows from its samples, maxima with first-max ties."""
    dtype = np.float32 if x.dtype == np.float32 else np.float64
    nd = len(kernel)
    n, c = x.shape[:2]
    result = np.empty((n, c, *out), dtype=x.dtype)
    for b in range(n):
        for ch in range(c):
            starts = [_fractional_starts(samples[b][ch][col], x.shape[2 + d], out[d],
                                         kernel[d], dtype) for d, col in enumerate(columns)]
            for pos in np.ndindex(*out):
                window = x[(b, ch) + tuple(slice(starts[d][pos[d]], starts[d][pos[d]]
                                                 + kernel[d]) for d in range(nd))]
                result[(b, ch) + pos] = window.max()
    return result


_FRACTIONAL2D_SAMPLES = [[[0.3, 0.6], [0.8, 0.2]], [[0.05, 0.9], [0.5, 0.45]]]
_FRACTIONAL3D_SAMPLES = [[[0.3, 0.6, 0.1], [0.7, 0.2, 0.95]]]
OPS += [
    OpSpec("nn.functional.fractional_max_pool2d",
           lambda lib, x: lib.nn.functional.fractional_max_pool2d(
               x, (2, 3), output_size=(3, 4),
               _random_samples=lib.tensor(_FRACTIONAL2D_SAMPLES, dtype=x.dtype)),
           (S("2x2x6x9", A(2, 2, 6, 9)),), FLOAT,
           ref=lambda np_, x: _fractional_ref(x, (2, 3), (3, 4), _FRACTIONAL2D_SAMPLES, (1, 0))),
    OpSpec("nn.functional.fractional_max_pool3d",
           lambda lib, x: lib.nn.functional.fractional_max_pool3d(
               x, 2, output_size=(2, 3, 2),
               _random_samples=lib.tensor(_FRACTIONAL3D_SAMPLES, dtype=x.dtype)),
           (S("1x2x4x5x4", A(1, 2, 4, 5, 4)),), FLOAT,
           ref=lambda np_, x: _fractional_ref(x, (2, 2, 2), (2, 3, 2), _FRACTIONAL3D_SAMPLES,
                                              (0, 1, 2))),
]


def _conv_tbc_ref(x, w, b, pad):
    xp = np.pad(x, ((pad, pad), (0, 0), (0, 0)))
    length = xp.shape[0] - w.shape[0] + 1
    return b + sum(np.einsum("tbc,co->tbo", xp[k:k + length], w[k]) for k in range(w.shape[0]))


OPS += [
    OpSpec("nn.functional.conv_tbc", lambda lib, x, w, b: lib.nn.functional.conv_tbc(x, w, b, 1),
           (S("5x2x3", A(5, 2, 3), A(3, 3, 4), A(4)),), FLOAT,
           ref=lambda np_, x, w, b: _conv_tbc_ref(x, w, b, 1), rtol=1e-5),
]
