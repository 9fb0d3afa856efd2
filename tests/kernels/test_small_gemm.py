"""The LSTM steps' small GEMM (NOTE [Small GEMM] in csrc/kernels/small_gemm.h).

The kernel is checked directly against numpy (through a private test hook, both its
AVX2 + FMA path and its portable loops) at shapes that hit every edge of its tiling,
then through the fused LSTM layer against torch at the sizes whose per-step
products it computes.
"""

import itertools

import numpy as np
import pytest

import gradtrack as gt
from gradtrack._C import _bench

from helpers import to_np

# rows: 1..6 are the tile heights, 7/13/20 split into uneven or even tiles;
# cols: under one vector, exactly 1 and 2 vectors of 8 floats, and odd tails;
# k: 1, not a multiple of the vector width, and long.
ROWS = (1, 2, 5, 6, 7, 13, 20)
COLS = (1, 3, 8, 16, 17, 29, 40)
DEPTHS = (1, 5, 128, 131)
TOL = {"float32": 1e-4, "float64": 1e-12}


def _operands(rng, m, n, k, dtype, ld_extra=0):
    """a, b, c as gradtrack tensors (row strides ld_extra past their width) and in numpy."""
    def mat(r, cols):
        full = rng.standard_normal((r, cols + ld_extra)).astype(dtype)
        return gt.tensor(full)[:, :cols], full[:, :cols].copy()
    return mat(m, k), mat(k, n), mat(m, n)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("vectorised", [True, False])
def test_matches_numpy_at_every_tile_edge(dtype, vectorised):
    rng = np.random.default_rng(0)
    for m, n, k in itertools.product(ROWS, COLS, DEPTHS):
        for beta in (0.0, 1.0, -0.5):
            (a, an), (b, bn), (c, cn) = _operands(rng, m, n, k, dtype)
            _bench.small_gemm(a, b, c, beta, vectorised)
            want = beta * cn.astype(np.float64) + an.astype(np.float64) @ bn.astype(np.float64)
            scale = 1 + np.sqrt(k)
            assert np.abs(to_np(c) - want).max() <= TOL[dtype] * scale, (m, n, k, beta)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_leading_dimensions_wider_than_the_operands(dtype):
    # The LSTM pads W_hh^T's rows; only the first n columns of each row are read
    # or written, the padding of c is left as it was.
    rng = np.random.default_rng(1)
    for m, n, k in [(10, 512, 128), (7, 29, 33), (1, 9, 4)]:
        (a, an), (b, bn), _ = _operands(rng, m, n, k, dtype, ld_extra=16)
        full = gt.tensor(rng.standard_normal((m, n + 16)).astype(dtype))
        before = to_np(full).copy()
        _bench.small_gemm(a, b, full[:, :n], 1.0)
        got = to_np(full)
        assert np.array_equal(got[:, n:], before[:, n:])
        want = before[:, :n] + an.astype(np.float64) @ bn.astype(np.float64)
        assert np.abs(got[:, :n] - want).max() <= TOL[dtype] * (1 + np.sqrt(k))


def test_beta_zero_never_reads_c():
    # c may hold anything (uninitialised memory): NaN must not leak into 0 * c.
    a = gt.ones(7, 5)
    b = gt.ones(5, 19)
    for vectorised in (True, False):
        c = gt.full((7, 19), float("nan"))
        _bench.small_gemm(a, b, c, 0.0, vectorised)
        assert np.array_equal(to_np(c), np.full((7, 19), 5.0, np.float32))


def test_nan_and_inf_in_the_operands_propagate():
    a = gt.ones(3, 4)
    a[1, 2] = float("nan")
    a[2, 0] = float("inf")
    b = gt.ones(4, 17)
    for vectorised in (True, False):
        c = gt.zeros(3, 17)
        _bench.small_gemm(a, b, c, 1.0, vectorised)
        got = to_np(c)
        assert (got[0] == 4).all() and np.isnan(got[1]).all() and np.isposinf(got[2]).all()


def test_empty_depth_scales_c():
    c = gt.full((3, 9), 2.0)
    _bench.small_gemm(gt.zeros(3, 0), gt.zeros(0, 9), c, 0.5)
    assert np.array_equal(to_np(c), np.ones((3, 9), np.float32))


def test_vectorised_path_exists_on_avx2_machines():
    flags = open("/proc/cpuinfo").read().split()
    assert _bench.small_gemm_vectorised() == ("avx2" in flags and "fma" in flags)


def _lstm_layer_both(torch, steps, batch, inp, hid, dtype, reverse=False):
    """_C._nn.lstm_layer (output, hy, cy and every gradient) against torch.nn.LSTM.

    The layer kernel is called directly, so float64 runs it too (the module
    sends only float32 to it); a reversed layer is torch's on the flipped sequence.
    """
    tdt = getattr(torch, dtype)
    torch.manual_seed(5)
    tm = torch.nn.LSTM(inp, hid).to(tdt)
    x = torch.randn(steps, batch, inp, dtype=tdt, requires_grad=True)
    h0 = torch.randn(1, batch, hid, dtype=tdt, requires_grad=True)
    c0 = torch.randn(1, batch, hid, dtype=tdt, requires_grad=True)
    w = torch.randn(steps, batch, hid, dtype=tdt)
    out_t, (hy_t, cy_t) = tm(x.flip(0) if reverse else x, (h0, c0))
    out_t = out_t.flip(0) if reverse else out_t
    ((out_t * w).sum() + hy_t.sum() + (cy_t * cy_t).sum()).backward()

    def leaf(t):
        return gt.tensor(t.detach().numpy(), requires_grad=True)

    xg, h0g, c0g = leaf(x), leaf(h0[0]), leaf(c0[0])
    params = [leaf(p) for p in tm.parameters()]
    out_g, hy_g, cy_g = gt._C._nn.lstm_layer(xg, h0g, c0g, *params, reverse)
    ((out_g * gt.tensor(w.numpy())).sum() + hy_g.sum() + (cy_g * cy_g).sum()).backward()
    pairs = [(out_t, out_g), (hy_t[0], hy_g), (cy_t[0], cy_g), (x.grad, xg.grad),
             (h0.grad[0], h0g.grad), (c0.grad[0], c0g.grad)]
    pairs += [(p.grad, q.grad) for p, q in zip(tm.parameters(), params)]
    tol = 1e-10 if dtype == "float64" else 2e-4
    for a, b in pairs:
        a = a.detach().numpy()
        b = to_np(b)
        assert a.shape == b.shape
        assert np.abs(a - b).max() <= tol * (1 + np.abs(a).max()), (steps, batch, hid, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("hid", [1, 7, 129])
def test_lstm_layer_odd_hidden_sizes_match_torch(torch, dtype, hid):
    for steps, batch in [(1, 1), (3, 5), (2, 13)]:
        _lstm_layer_both(torch, steps, batch, 3, hid, dtype)


@pytest.mark.parametrize("reverse", [False, True])
def test_lstm_layer_at_benchmark_width(torch, reverse):
    # batch 20, hidden 128: per thread 10 or 20 rows, 4H = 512 columns.
    _lstm_layer_both(torch, 4, 20, 32, 128, "float32", reverse)
    _lstm_layer_both(torch, 2, 20, 32, 128, "float64", reverse)


def test_lstm_layer_many_rows_per_thread_uses_blas_and_matches_torch(torch):
    # More than 64 rows per thread: the per-step products go to BLAS instead.
    _lstm_layer_both(torch, 2, 150, 4, 9, "float32")


def test_lstm_layer_row_split_agrees_with_one_thread():
    # Batch 20 on 2 threads: each thread runs 10 rows through every step (NOTE
    # [LSTM rows in parallel]); outputs and gradients must match one thread's.
    gt.manual_seed(2)

    def r(*shape):
        return gt.randn(*shape, dtype=gt.float64, requires_grad=True)

    args = [r(6, 20, 8), r(20, 128), r(20, 128), r(512, 8), r(512, 128), r(512), r(512)]
    results = []
    threads = gt.get_num_threads()
    try:
        for n in (2, 1):
            gt.set_num_threads(n)
            for reverse in (False, True):
                for a in args:
                    a.grad = None
                out, hy, cy = gt._C._nn.lstm_layer(*args, reverse)
                (out.sum() + (hy * cy).sum()).backward()
                results.append([to_np(out)] + [to_np(a.grad) for a in args])
    finally:
        gt.set_num_threads(threads)
    for two, one in zip(results[:2], results[2:]):
        for a, b in zip(two, one):
            assert np.allclose(a, b, rtol=1e-12, atol=1e-12)
