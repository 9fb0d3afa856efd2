"""Convolutions whose im2col matrix is cut into tiles of output rows.

NOTE [Convolution row tiles] (csrc/kernels/nn/conv.cpp): a sample whose im2col
matrix exceeds the tile budget runs forward, input gradient and weight gradient tile
by tile. These layers are wide enough for several tiles, with a last tile shorter than
the others, under every geometry option; each is compared with torch.
"""

import numpy as np
import pytest

import gradtrack as gt

from helpers import to_np

# (in, out, kernel, image h, w, stride, padding, dilation, groups)
CASES = [
    (64, 16, 3, 37, 40, 1, 1, 1, 1),   # 576 x 40 per row: 4 rows per tile, 37 rows
    (64, 8, 3, 29, 33, 2, 1, 1, 1),    # stride 2: 15 output rows
    (64, 8, 3, 30, 31, 1, 2, 2, 1),    # dilation 2, padding 2
    (64, 8, (3, 5), 26, 44, (1, 2), (0, 2), 1, 2),  # groups, rectangular kernel
    (96, 12, 5, 21, 25, 1, 0, 1, 3),   # no padding, 5x5, 3 groups
]
TOL = {"float32": 2e-4, "float64": 1e-10}


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_tiled_convolution_matches_torch(torch, case, dtype):
    cin, cout, k, h, w, stride, padding, dilation, groups = CASES[case]
    tdt = getattr(torch, dtype)
    torch.manual_seed(case)
    x = torch.randn(3, cin, h, w, dtype=tdt, requires_grad=True)
    kh, kw = (k, k) if isinstance(k, int) else k
    weight = torch.randn(cout, cin // groups, kh, kw, dtype=tdt, requires_grad=True)
    bias = torch.randn(cout, dtype=tdt, requires_grad=True)
    kw_args = dict(stride=stride, padding=padding, dilation=dilation, groups=groups)
    out_t = torch.nn.functional.conv2d(x, weight, bias, **kw_args)
    g = torch.randn(out_t.shape, dtype=tdt)
    (out_t * g).sum().backward()

    def leaf(t):
        return gt.tensor(t.detach().numpy(), requires_grad=True)

    xg, wg, bg = leaf(x), leaf(weight), leaf(bias)
    out_g = gt.nn.functional.conv2d(xg, wg, bg, **kw_args)
    (out_g * gt.tensor(g.numpy())).sum().backward()
    for a, b in [(out_t, out_g), (x.grad, xg.grad), (weight.grad, wg.grad),
                 (bias.grad, bg.grad)]:
        a = a.detach().numpy()
        b = to_np(b)
        assert a.shape == b.shape
        assert np.abs(a - b).max() <= TOL[dtype] * (1 + np.abs(a).max()), case


def test_tiled_transposed_convolution_matches_torch(torch):
    # conv_transpose2d runs the same kernels from the other side (NOTE [Convolution sides]).
    torch.manual_seed(9)
    x = torch.randn(2, 16, 30, 34, requires_grad=True)
    weight = torch.randn(16, 64, 3, 3, requires_grad=True)
    out_t = torch.nn.functional.conv_transpose2d(x, weight, padding=1)
    g = torch.randn(out_t.shape)
    (out_t * g).sum().backward()
    xg = gt.tensor(x.detach().numpy(), requires_grad=True)
    wg = gt.tensor(weight.detach().numpy(), requires_grad=True)
    out_g = gt.nn.functional.conv_transpose2d(xg, wg, padding=1)
    (out_g * gt.tensor(g.numpy())).sum().backward()
    for a, b in [(out_t, out_g), (x.grad, xg.grad), (weight.grad, wg.grad)]:
        a = a.detach().numpy()
        assert np.abs(a - to_np(b)).max() <= 2e-4 * (1 + np.abs(a).max())
