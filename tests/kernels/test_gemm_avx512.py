"""Our AVX-512 GEMM (NOTE [AVX-512 GEMM] in csrc/kernels/gemm_avx512.h).

The kernel is checked directly against numpy in float64 (through a private test hook
that calls it, or OpenBLAS, on given operands) at shapes that hit every edge of its
tiles (14 rows by 32 float columns, 14 by 16 double columns) and blocks (k in blocks of at most
384 floats, 512 on Intel, or 256 doubles; columns of at most 480 / 240, rows of 3066), in all four
transpose combinations with wider leading dimensions, on 1 and 2 threads (a row-major
a is read in place for up to 8 column tiles and packed past that, a row-major b read
in place for up to 10 row tiles: the edge shapes take the first, the block shapes the
second); then
through matmul, bmm and conv2d against torch, with the kernel on and switched off.
"""

import itertools

import numpy as np
import pytest

import gradtrack as gt
from gradtrack._C import _bench

from conv_stride1 import STRIDE1_GEOMETRIES, check_stride1_conv, geometry_id
from helpers import to_np

pytestmark = pytest.mark.skipif(not _bench.gemm_avx512_available(), reason="this CPU has no AVX-512")

MR = {"float32": 14, "float64": 14}
NR = {"float32": 32, "float64": 16}
KC = dict(zip(("float32", "float64"), _bench.gemm_avx512_depth_caps()))
TOL = {"float32": 2e-6, "float64": 1e-14}


def _edges(dtype):
    mr, nr = MR[dtype], NR[dtype]
    rows = (1, 2, mr - 1, mr, mr + 1, 2 * mr + 5)
    cols = (1, 3, nr // 2 - 1, nr // 2 + 1, nr - 1, nr, nr + 1, 2 * nr + 3)
    depths = (1, 2, 15, 17, KC[dtype] - 1, KC[dtype] + 1)
    return rows, cols, depths


def _operand(rng, rows, cols, dtype, trans, pad):
    """A [rows, cols] operand as a gradtrack view (transposed storage if `trans`, with
    `pad` extra elements per stored row) and as numpy float64."""
    shape = (cols, rows + pad) if trans else (rows, cols + pad)
    full = rng.standard_normal(shape).astype(dtype)
    view = full[:, :rows].T if trans else full[:, :cols]
    t = gt.tensor(full)
    t = t[:, :rows].t() if trans else t[:, :cols]
    return t, view.astype(np.float64)


def _check(rng, m, n, k, dtype, ta, tb, beta, threads, pad=0, own=True):
    a, an = _operand(rng, m, k, dtype, ta, pad)
    b, bn = _operand(rng, k, n, dtype, tb, pad)
    c_full = gt.tensor(rng.standard_normal((m, n + pad)).astype(dtype))
    before = to_np(c_full).astype(np.float64)
    if beta == 0:
        c_full[:, :n] = float("nan")  # beta 0 must not read c
    c = c_full[:, :n]
    _bench.gemm(a, b, c, beta, threads, own)
    got = to_np(c_full).astype(np.float64)
    want = an @ bn + (beta * before[:, :n] if beta else 0)
    scale = np.abs(an) @ np.abs(bn) + abs(beta) * np.abs(before[:, :n]) + 1
    err = np.abs(got[:, :n] - want) / scale
    assert err.max() <= TOL[dtype] * (k + 4), (m, n, k, ta, tb, beta, threads)
    assert np.array_equal(got[:, n:], before[:, n:]), "columns past n were written"


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("ta,tb", list(itertools.product([False, True], repeat=2)))
def test_every_tile_edge_matches_numpy(dtype, ta, tb):
    rng = np.random.default_rng(0)
    rows, cols, depths = _edges(dtype)
    for i, (m, n, k) in enumerate(itertools.product(rows, cols, depths)):
        beta = (0.0, 1.0, -0.5)[i % 3]
        _check(rng, m, n, k, dtype, ta, tb, beta, threads=1 + i % 2, pad=i % 3)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("threads", [1, 2])
def test_several_blocks_in_every_dimension(dtype, threads):
    # k over 2-3 depth blocks (beta applies once), n over 2-3 column blocks, m over
    # two or three row blocks of ~3072; both thread splits (rows, or columns when m is small).
    rng = np.random.default_rng(1)
    shapes = [(100, 1000, 900), (3100, 40, 30), (6200, 33, 20), (13, 1100, 300), (40, 530, 2 * KC[dtype] + 3)]
    flags = itertools.cycle(itertools.product([False, True], repeat=2))
    for (m, n, k), (ta, tb) in zip(shapes, flags):
        for beta in (0.0, 1.0):
            _check(rng, m, n, k, dtype, ta, tb, beta, threads, pad=1)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_row_counts_split_into_balanced_tiles_match_numpy(dtype):
    # Up to 10 row tiles of even sizes (128 rows as 4 x 14 + 6 x 12 on Intel, NOTE
    # [Balanced row tiles]); a and b read in place for these widths, odd counts leave
    # one short tile packed; depth 70 spans two depth blocks for float64's runs too.
    rng = np.random.default_rng(3)
    for i, m in enumerate((16, 29, 64, 65, 100, 127, 128, 139, 140)):
        for n, k in ((64, 70), (130, 17)):
            _check(rng, m, n, k, dtype, False, False, (0.0, 1.0)[i % 2], threads=1, pad=i % 2)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("threads", [1, 2])
def test_b_rows_four_kilobytes_apart_match_numpy(dtype, threads):
    # A row-major b whose rows are 4 KB apart is read in place (with a prefetch,
    # in depth blocks of 256) for up to 2 row tiles and packed past that on Intel;
    # other CPUs read it in place for up to 10 (NOTE [AVX-512 GEMM: b in place]).
    # k crosses several depth blocks; pad widens the rows to 4 KB when n is short.
    rng = np.random.default_rng(4)
    row = 4096 // np.dtype(dtype).itemsize
    for i, (m, n) in enumerate(((14, row), (28, row - 40), (29, row), (100, row - 7), (150, row))):
        _check(rng, m, n, 600, dtype, False, False, (0.0, 1.0)[i % 2], threads, pad=row - n)


def test_zero_depth_scales_c():
    for beta, want in ((0.0, 0.0), (1.0, 2.0), (0.5, 1.0)):
        c = gt.full((3, 40), 2.0)
        _bench.gemm(gt.zeros(3, 0), gt.zeros(0, 40), c, beta, 1)
        assert np.array_equal(to_np(c), np.full((3, 40), want, np.float32))


def test_nan_and_inf_in_the_operands_propagate():
    for dtype, threads in itertools.product(["float32", "float64"], [1, 2]):
        a = gt.ones(30, 40, dtype=getattr(gt, dtype))
        a[1, 2] = float("nan")
        a[2, 0] = float("inf")
        a[3, 5] = float("-inf")
        b = gt.ones(40, 50, dtype=getattr(gt, dtype))
        b[7, 33] = float("nan")
        c = gt.zeros(30, 50, dtype=getattr(gt, dtype))
        _bench.gemm(a, b, c, 0.0, threads)
        got = to_np(c)
        assert np.isnan(got[1]).all() and np.isposinf(got[2, :33]).all()
        assert np.isneginf(got[3, :33]).all() and np.isnan(got[:, 33]).all()
        rest = np.delete(np.delete(got, [1, 2, 3], axis=0), 33, axis=1)
        assert (rest == 40).all()


def test_the_switch_selects_openblas_and_back():
    assert _bench.use_gemm_avx512()
    try:
        _bench.set_gemm_avx512(False)
        assert not _bench.use_gemm_avx512()
    finally:
        _bench.set_gemm_avx512(True)
    assert _bench.use_gemm_avx512()


@pytest.fixture(params=[True, False], ids=["avx512", "openblas"])
def backend(request):
    _bench.set_gemm_avx512(request.param)
    yield request.param
    _bench.set_gemm_avx512(True)


def _close(got, want, k):
    tol = (1e-6 if got.dtype == gt.float32 else 1e-14) * (k + 4)
    want = want.detach().double().numpy()
    got = to_np(got).astype(np.float64)
    assert got.shape == want.shape
    assert np.abs(got - want).max() <= tol * max(1.0, np.abs(want).max())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_matmul_matches_torch(torch, backend, threads, dtype):
    torch.manual_seed(0)
    tdt = getattr(torch, dtype)
    cases = [
        ((256, 256), (256, 256), False, False),
        ((300, 200), (300, 170), True, False),  # a.T @ b
        ((130, 257), (90, 257), False, True),  # a @ b.T
        ((64, 784), (784, 128), False, False),
        ((64, 128), (784, 128), False, True),
        ((64, 784), (64, 128), True, False),
        ((1, 500), (500, 33), False, False),
        ((77, 1), (1, 91), False, False),
    ]
    for sa, sb, ta, tb in cases:
        a_t = torch.randn(*sa, dtype=tdt)
        b_t = torch.randn(*sb, dtype=tdt)
        a_t, b_t = (a_t.T if ta else a_t), (b_t.T if tb else b_t)
        a, b = gt.tensor(a_t.contiguous().numpy()), gt.tensor(b_t.contiguous().numpy())
        a = gt.tensor(a_t.T.contiguous().numpy()).t() if ta else a
        b = gt.tensor(b_t.T.contiguous().numpy()).t() if tb else b
        _close(gt.matmul(a, b), a_t @ b_t, a_t.shape[1])


def test_bmm_and_sliced_operands_match_torch(torch, backend, threads):
    torch.manual_seed(1)
    for shape in [(16, 128, 128), (4, 200, 150), (3, 40, 7)]:
        a_t = torch.randn(*shape)
        b_t = torch.randn(shape[0], shape[2], shape[1] + 3)
        got = gt.bmm(gt.tensor(a_t.numpy()), gt.tensor(b_t.numpy()))
        _close(got, torch.bmm(a_t, b_t), shape[2])
    # transposed operands in a batch of products, each on one thread
    a_t, b_t = torch.randn(6, 130, 127), torch.randn(6, 129, 130)
    a = gt.tensor(a_t.numpy()).transpose(1, 2)
    b = gt.tensor(b_t.numpy()).transpose(1, 2)
    _close(gt.bmm(a, b), torch.bmm(a_t.transpose(1, 2), b_t.transpose(1, 2)), 130)
    # every other column of b: matmul copies it first; a row slice keeps its stride
    x_t = torch.randn(100, 300)
    y_t = torch.randn(200, 130)
    x = gt.tensor(x_t.numpy())[:, 50:250]
    y = gt.tensor(y_t.numpy())[:, ::2]
    _close(gt.matmul(x, y), x_t[:, 50:250] @ y_t[:, ::2], 200)


def test_matmul_accumulates_into_a_gradient(torch, backend, threads):
    torch.manual_seed(2)
    w_t = torch.randn(70, 50, requires_grad=True)
    x_t = torch.randn(33, 70)
    ((x_t @ w_t).sin().sum() + (x_t @ w_t).cos().sum()).backward()
    w = gt.tensor(w_t.detach().numpy(), requires_grad=True)
    x = gt.tensor(x_t.numpy())
    ((x @ w).sin().sum() + (x @ w).cos().sum()).backward()
    _close(w.grad, w_t.grad, 33)


def test_conv2d_matches_torch(torch, backend, threads):
    torch.manual_seed(3)
    x_t = torch.randn(4, 8, 19, 17, requires_grad=True)
    w_t = torch.randn(16, 8, 3, 3, requires_grad=True)
    y_t = torch.nn.functional.conv2d(x_t, w_t, padding=1, stride=(1, 2))
    y_t.square().sum().backward()
    x = gt.tensor(x_t.detach().numpy(), requires_grad=True)
    w = gt.tensor(w_t.detach().numpy(), requires_grad=True)
    y = gt.nn.functional.conv2d(x, w, padding=1, stride=(1, 2))
    y.square().sum().backward()
    _close(y, y_t, 72)
    _close(x.grad, x_t.grad, 16 * 9)
    _close(w.grad, w_t.grad, 4 * 19 * 9)


# Stride-1 float32 convolutions large enough for the AVX-512 kernel to run
# without an im2col matrix (NOTE [Implicit im2col] in csrc/kernels/conv_implicit_avx512.cpp),
# the forward and, where the padding is not negative, the input gradient as a
# convolution of its own (NOTE [Input gradient as a convolution] in
# csrc/kernels/nn/conv.cpp); with the kernel switched off they take im2col +
# OpenBLAS and col2im.
@pytest.mark.parametrize("geom", STRIDE1_GEOMETRIES, ids=geometry_id)
def test_stride1_conv_without_im2col_matches_torch(torch, backend, threads, geom):
    check_stride1_conv(torch, geom)


# The same with the weight gradient on each path our GEMM leaves it (NOTE
# [Weight gradient on Zen 4] in csrc/kernels/nn/conv.cpp): im2col + our GEMM
# (the AVX2 mode off), and the 512-bit implicit tiles for every geometry (on).
@pytest.mark.parametrize("geom", STRIDE1_GEOMETRIES, ids=geometry_id)
@pytest.mark.parametrize("wgrad_mode", [0, 2], ids=["wgrad_im2col", "wgrad_implicit512"])
def test_stride1_conv_weight_gradient_paths_match_torch(torch, threads, geom, wgrad_mode):
    saved = _bench.conv_implicit_avx2_mode()
    _bench.set_conv_implicit_avx2_mode(wgrad_mode)
    try:
        check_stride1_conv(torch, geom)
    finally:
        _bench.set_conv_implicit_avx2_mode(saved)
