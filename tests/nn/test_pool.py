"""Pooling (max, avg, adaptive; 1-D and 2-D; functions and modules) against
PyTorch 2.13: values, indices, gradients, grad_fn names, messages, reprs."""

import numpy as np
import pytest

import gradtrack as gt
import gradtrack.nn.functional as F
from gradtrack import nn

from helpers import error_of, name, to_np

RNG = np.random.default_rng(1)


def _inputs(torch, shape, dtype=np.float64, transpose=False, ties=False):
    x = RNG.standard_normal(shape).astype(dtype)
    if ties:  # few distinct values: the first maximum must win, as in torch
        x = np.round(x)
    if transpose:
        base = np.ascontiguousarray(np.swapaxes(x, -1, -2))
        g = gt.tensor(base).transpose(-1, -2).detach().requires_grad_()
        t = torch.tensor(base).transpose(-1, -2).detach().requires_grad_()
        return g, t
    return gt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)


def _check(torch, fn_name, shape, dtype=np.float64, transpose=False, ties=False, **kwargs):
    gx, tx = _inputs(torch, shape, dtype, transpose, ties)
    out_g = getattr(F, fn_name)(gx, **kwargs)
    out_t = getattr(torch.nn.functional, fn_name)(tx, **kwargs)
    if isinstance(out_t, tuple):
        np.testing.assert_array_equal(to_np(out_g[1]), out_t[1].numpy())
        assert out_g[1].dtype == gt.int64
        out_g, out_t = out_g[0], out_t[0]
    assert tuple(out_g.shape) == tuple(out_t.shape)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(to_np(out_g), out_t.detach().numpy(), **tol)
    assert out_g.grad_fn.name() == type(out_t.grad_fn).__name__
    node_g, node_t = out_g.grad_fn, out_t.grad_fn
    if node_t.next_functions and node_t.next_functions[0][0] is not None:
        assert name(node_g.next_functions[0][0]) == name(node_t.next_functions[0][0])
    up = RNG.standard_normal(tuple(out_t.shape)).astype(dtype)
    out_g.backward(gt.tensor(up))
    out_t.backward(torch.tensor(up))
    np.testing.assert_allclose(to_np(gx.grad), tx.grad.numpy(), **tol)


MAX2D = [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=(3, 2), stride=(1, 2), dilation=(2, 1)),
    dict(kernel_size=2, stride=2, ceil_mode=True),
    dict(kernel_size=3, stride=2, padding=1, dilation=2, ceil_mode=True),
    dict(kernel_size=2, return_indices=True),
    dict(kernel_size=(2, 3), stride=1, padding=(1, 1), return_indices=True),
]


@pytest.mark.parametrize("kw", MAX2D, ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_max_pool2d_matches_torch(torch, kw, dtype):
    _check(torch, "max_pool2d", (2, 3, 7, 9), dtype, **kw)


def test_max_pool2d_unbatched_non_contiguous_and_ties(torch):
    _check(torch, "max_pool2d", (3, 6, 6), kernel_size=2, return_indices=True)
    _check(torch, "max_pool2d", (2, 2, 6, 5), transpose=True, kernel_size=3, stride=2, padding=1)
    _check(torch, "max_pool2d", (2, 2, 6, 6), ties=True, kernel_size=3, stride=1,
           return_indices=True)


def test_max_pool2d_nan_wins_like_torch(torch):
    x = np.arange(16.0).reshape(1, 1, 4, 4)
    x[0, 0, 0, 1] = np.nan
    g, i = F.max_pool2d(gt.tensor(x), 2, return_indices=True)
    tg, ti = torch.nn.functional.max_pool2d(torch.tensor(x), 2, return_indices=True)
    np.testing.assert_array_equal(to_np(g), tg.numpy())
    np.testing.assert_array_equal(to_np(i), ti.numpy())


@pytest.mark.parametrize("kw", [
    dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1, dilation=2, ceil_mode=True),
    dict(kernel_size=2, return_indices=True), dict(kernel_size=3, stride=1, padding=1),
], ids=str)
def test_max_pool1d_matches_torch(torch, kw):
    _check(torch, "max_pool1d", (2, 3, 11), **kw)
    _check(torch, "max_pool1d", (3, 10), **kw)


AVG2D = [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
    dict(kernel_size=(2, 3), stride=(1, 2), divisor_override=5),
    dict(kernel_size=3, stride=3, ceil_mode=True, divisor_override=2),
]


@pytest.mark.parametrize("kw", AVG2D, ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_avg_pool2d_matches_torch(torch, kw, dtype):
    _check(torch, "avg_pool2d", (2, 3, 7, 8), dtype, **kw)


def test_avg_pool2d_unbatched_and_non_contiguous(torch):
    _check(torch, "avg_pool2d", (3, 6, 6), kernel_size=2)
    _check(torch, "avg_pool2d", (2, 2, 7, 5), transpose=True, kernel_size=3, stride=2, padding=1)


@pytest.mark.parametrize("kw", [
    dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
], ids=str)
def test_avg_pool1d_matches_torch(torch, kw):
    _check(torch, "avg_pool1d", (2, 3, 11), **kw)
    _check(torch, "avg_pool1d", (3, 10), **kw)


@pytest.mark.parametrize("size", [3, (2, 5), (5, 7), (None, 3), 1, (1, 1), (4, 1)], ids=str)
def test_adaptive_avg_pool2d_matches_torch(torch, size):
    _check(torch, "adaptive_avg_pool2d", (2, 3, 7, 9), output_size=size)
    _check(torch, "adaptive_avg_pool2d", (3, 5, 6), np.float32, output_size=size)


@pytest.mark.parametrize("size", [3, 1, 5, (4,)], ids=str)
def test_adaptive_avg_pool1d_matches_torch(torch, size):
    _check(torch, "adaptive_avg_pool1d", (2, 3, 11), output_size=size)


@pytest.mark.parametrize("size", [3, (2, 5), (5, 7), 1, (None, 2)], ids=str)
def test_adaptive_max_pool2d_matches_torch(torch, size):
    _check(torch, "adaptive_max_pool2d", (2, 3, 7, 9), output_size=size)
    _check(torch, "adaptive_max_pool2d", (3, 5, 6), np.float32, output_size=size,
           return_indices=True)


def test_pool_gradcheck_finite_differences():
    x = gt.tensor(RNG.permutation(2 * 2 * 6 * 5).reshape(2, 2, 6, 5) / 7.0, requires_grad=True)
    assert gt.autograd.gradcheck(lambda t: F.max_pool2d(t, 3, 2, 1, ceil_mode=True), (x,))
    assert gt.autograd.gradcheck(
        lambda t: F.avg_pool2d(t, 3, 2, 1, count_include_pad=False, ceil_mode=True), (x,))
    assert gt.autograd.gradcheck(lambda t: F.adaptive_avg_pool2d(t, (4, 3)), (x,))
    assert gt.autograd.gradcheck(lambda t: F.adaptive_max_pool2d(t, (4, 3)), (x,))


POOL_ERRORS = [
    ("max rank", lambda L, x: L.nn.functional.max_pool2d(L.randn(8), 2)),
    ("max rank5", lambda L, x: L.nn.functional.max_pool2d(L.randn(1, 1, 1, 8, 8), 2)),
    ("max kernel 0", lambda L, x: L.nn.functional.max_pool2d(x, 0)),
    ("max stride 0", lambda L, x: L.nn.functional.max_pool2d(x, 2, 0)),
    ("max pad", lambda L, x: L.nn.functional.max_pool2d(x, 2, 2, 2)),
    ("max dilation 0", lambda L, x: L.nn.functional.max_pool2d(x, 2, 2, 0, 0)),
    ("max too small", lambda L, x: L.nn.functional.max_pool2d(L.randn(1, 3, 2, 2), 3)),
    ("max negative pad", lambda L, x: L.nn.functional.max_pool2d(x, 2, 2, -1)),
    ("max kernel tuple", lambda L, x: L.nn.functional.max_pool2d(x, (2, 2, 2))),
    ("max zero channels", lambda L, x: L.nn.functional.max_pool2d(L.randn(2, 0, 4, 4), 2)),
    ("max1d rank", lambda L, x: L.nn.functional.max_pool1d(x, 2)),
    ("max1d too small", lambda L, x: L.nn.functional.max_pool1d(L.randn(1, 3, 2), 3)),
    ("max1d pad", lambda L, x: L.nn.functional.max_pool1d(L.randn(1, 3, 8), 2, 2, 2)),
    ("avg pad", lambda L, x: L.nn.functional.avg_pool2d(x, 2, 2, 2)),
    ("avg too small", lambda L, x: L.nn.functional.avg_pool2d(L.randn(1, 3, 2, 2), 3)),
    ("avg rank", lambda L, x: L.nn.functional.avg_pool2d(L.randn(8), 2)),
    ("avg divisor 0", lambda L, x: L.nn.functional.avg_pool2d(x, 2, divisor_override=0)),
    ("avg1d rank", lambda L, x: L.nn.functional.avg_pool1d(x, 2)),
    ("avg1d too small", lambda L, x: L.nn.functional.avg_pool1d(L.randn(1, 3, 2), 3)),
    ("adaptive avg rank", lambda L, x: L.nn.functional.adaptive_avg_pool2d(L.randn(8), 2)),
    ("adaptive avg empty", lambda L, x: L.nn.functional.adaptive_avg_pool2d(
        L.randn(1, 3, 0, 8), 2)),
    ("adaptive avg size", lambda L, x: L.nn.functional.adaptive_avg_pool2d(x, (2, 2, 2))),
    ("adaptive avg negative", lambda L, x: L.nn.functional.adaptive_avg_pool2d(x, -1)),
    ("adaptive max rank", lambda L, x: L.nn.functional.adaptive_max_pool2d(L.randn(8), 2)),
    ("adaptive max size", lambda L, x: L.nn.functional.adaptive_max_pool2d(x, (2, 2, 2))),
    ("adaptive avg1d rank", lambda L, x: L.nn.functional.adaptive_avg_pool1d(x, 2)),
    ("adaptive avg1d size", lambda L, x: L.nn.functional.adaptive_avg_pool1d(
        L.randn(1, 3, 8), (2, 2))),
]


@pytest.mark.parametrize("label,fn", POOL_ERRORS, ids=[c[0] for c in POOL_ERRORS])
def test_pool_error_messages_match_torch(torch, label, fn):
    assert error_of(lambda: fn(gt, gt.randn(2, 3, 8, 8))) == \
        error_of(lambda: fn(torch, torch.randn(2, 3, 8, 8)))


@pytest.mark.parametrize("make", [
    lambda L: L.nn.MaxPool2d(2),
    lambda L: L.nn.MaxPool2d(3, 2, 1, 2, True, True),
    lambda L: L.nn.MaxPool1d(2),
    lambda L: L.nn.AvgPool2d(3),
    lambda L: L.nn.AvgPool2d(3, 2, 1, True, False, 2),
    lambda L: L.nn.AvgPool1d(3),
    lambda L: L.nn.AdaptiveAvgPool2d((5, 7)),
    lambda L: L.nn.AdaptiveAvgPool1d(5),
    lambda L: L.nn.AdaptiveMaxPool2d(2),
])
def test_pool_module_reprs_and_outputs_match_torch(torch, make):
    mine, theirs = make(gt), make(torch)
    assert repr(mine) == repr(theirs)
    x = RNG.standard_normal((2, 3, 10, 10))
    if "1d" in repr(theirs):
        x = x[:, :, 0]
    out_g, out_t = mine(gt.tensor(x)), theirs(torch.tensor(x))
    if isinstance(out_t, tuple):
        np.testing.assert_array_equal(to_np(out_g[1]), out_t[1].numpy())
        out_g, out_t = out_g[0], out_t[0]
    np.testing.assert_allclose(to_np(out_g), out_t.numpy(), rtol=1e-12)


def test_max_pool_module_returns_indices():
    out, idx = nn.MaxPool2d(2, return_indices=True)(gt.arange(16.0).reshape(1, 1, 4, 4))
    assert idx.tolist() == [[[[5, 7], [13, 15]]]]
    out, idx = nn.AdaptiveMaxPool2d(1, return_indices=True)(gt.arange(4.0).reshape(1, 1, 2, 2))
    assert idx.tolist() == [[[[3]]]]


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
def test_max_pool_of_integers_matches_torch(torch, dtype):
    x = RNG.integers(0, 100, (2, 3, 6, 5)).astype(dtype)
    out, idx = F.max_pool2d(gt.tensor(x), 2, return_indices=True)
    t_out, t_idx = torch.nn.functional.max_pool2d(torch.tensor(x), 2, return_indices=True)
    assert repr(out.dtype).split(".")[1] == dtype
    np.testing.assert_array_equal(to_np(out), t_out.numpy())
    np.testing.assert_array_equal(to_np(idx), t_idx.numpy())
