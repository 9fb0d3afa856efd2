"""Stride-1 float32 convolutions for the kernels that skip the im2col matrix.

Our AVX-512 GEMM's kernel (NOTE [Implicit im2col] in csrc/kernels/conv_implicit_avx512.cpp:
tiles of 14 rows of w by 32 output columns) and the AVX2 one (NOTE [Implicit im2col
on AVX2] in csrc/kernels/conv_implicit_avx2.cpp: 6 rows by 16 columns, on a
zero-bordered copy of the image) take a (sample, group) product of at least 2^21
multiply-adds. Each geometry below is that large, and together they hit: output widths
under, at and over 16 and 32 columns (partial and several column tiles), output
channels per group leaving every remainder of 6 and odd and even ones of 14, image rows
wholly outside the image (padding past the kernel, a kernel taller than the image),
asymmetric padding, dilation, 1x3, 5x5 and 7x3 kernels, groups, and no bias.
"""

import numpy as np

import gradtrack as gt

from helpers import to_np

STRIDE1_GEOMETRIES = [
    # n, ic, oc, (h, w), (kh, kw), (ph, pw), (dh, dw), groups, bias
    (2, 64, 64, (32, 32), (3, 3), (1, 1), (1, 1), 1, True),
    (1, 16, 29, (33, 70), (3, 3), (2, 1), (1, 1), 1, True),
    (2, 32, 16, (24, 40), (5, 5), (2, 2), (2, 2), 1, False),
    (2, 8, 44, (6, 50), (7, 3), (3, 1), (1, 1), 1, True),
    (2, 32, 32, (40, 40), (3, 3), (1, 1), (1, 1), 2, True),
    (1, 64, 20, (16, 100), (1, 3), (0, 1), (1, 1), 1, True),
    (4, 64, 64, (12, 12), (3, 3), (1, 1), (1, 1), 1, False),
    (1, 32, 32, (20, 20), (3, 3), (3, 3), (1, 1), 1, True),
    (1, 32, 27, (20, 17), (3, 3), (1, 1), (1, 1), 1, True),
    (2, 32, 25, (18, 18), (3, 3), (1, 1), (1, 1), 1, False),
    (1, 48, 30, (15, 16), (3, 3), (1, 0), (1, 1), 1, True),
]


def geometry_id(geom):
    return "x".join(map(str, geom[:3]))


def _close(got, want, k):
    tol = 1e-6 * (k + 4)
    want = want.detach().double().numpy()
    got = to_np(got).astype(np.float64)
    assert got.shape == want.shape
    assert np.abs(got - want).max() <= tol * max(1.0, np.abs(want).max())


def check_stride1_conv(torch, geom):
    """conv2d forward and both gradients against torch for one geometry."""
    n, ic, oc, (h, w), (kh, kw), pad, dil, groups, bias = geom
    out_h = h + 2 * pad[0] - dil[0] * (kh - 1)
    out_w = w + 2 * pad[1] - dil[1] * (kw - 1)
    k = ic // groups * kh * kw
    assert oc // groups * out_h * out_w * k >= 1 << 21  # large enough to take the path
    torch.manual_seed(4)
    x_t = torch.randn(n, ic, h, w, requires_grad=True)
    w_t = torch.randn(oc, ic // groups, kh, kw, requires_grad=True)
    b_t = torch.randn(oc, requires_grad=True) if bias else None
    y_t = torch.nn.functional.conv2d(x_t, w_t, b_t, padding=pad, dilation=dil, groups=groups)
    (y_t * y_t.detach().sign()).sum().backward()
    x = gt.tensor(x_t.detach().numpy(), requires_grad=True)
    wt = gt.tensor(w_t.detach().numpy(), requires_grad=True)
    b = gt.tensor(b_t.detach().numpy(), requires_grad=True) if bias else None
    y = gt.nn.functional.conv2d(x, wt, b, padding=pad, dilation=dil, groups=groups)
    _close(y, y_t, k)
    (y * gt.tensor(y_t.detach().sign().numpy())).sum().backward()
    _close(x.grad, x_t.grad, oc * kh * kw)
    _close(wt.grad, w_t.grad, n * out_h * out_w)
