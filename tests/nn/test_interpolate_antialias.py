"""F.interpolate(..., antialias=True) (bilinear, bicubic, lanczos; 4-D) against torch
2.13: values, grad_fn names, gradients, double backward, output strides and error
messages, and a finite-difference gradcheck."""

import numpy as np
import pytest

import gradtrack
from gradtrack.autograd import gradcheck, gradgradcheck
from gradtrack.nn._antialias_resample import axis_weights
from helpers import error_of, name

GF = gradtrack.nn.functional

# (input shape, interpolate's size arguments): down and up, non-square, batch > 1,
# scale factors (one per dim too, and recomputed), a single output, a 1x1 input.
RESIZES = [
    ((1, 3, 17, 23), dict(size=(5, 7))),
    ((1, 1, 8, 8), dict(size=(3, 3))),
    ((1, 1, 4, 4), dict(size=(9, 9))),
    ((2, 3, 10, 12), dict(scale_factor=0.3)),
    ((2, 3, 10, 12), dict(scale_factor=0.5)),
    ((2, 3, 10, 12), dict(scale_factor=1.7)),
    ((3, 2, 7, 13), dict(size=(11, 4))),
    ((1, 2, 9, 11), dict(scale_factor=(0.45, 1.3))),
    ((1, 2, 9, 11), dict(scale_factor=(0.45, 1.3), recompute_scale_factor=True)),
    ((2, 2, 31, 29), dict(size=(6, 30))),
    ((2, 3, 40, 36), dict(size=(17, 13))),
    ((1, 2, 6, 5), dict(size=(1, 3))),
    ((1, 1, 1, 1), dict(size=(3, 2))),
]
MODES = [("bilinear", False), ("bilinear", True), ("bicubic", False), ("bicubic", True),
         ("lanczos", False)]
# float32: the weights are float32 sums as torch's, but summed in another order
TOL = {"float64": 1e-12, "float32": 1e-5}


def _pair(torch, shape, dtype, seed=0, channels_last=False):
    a = np.random.RandomState(seed).randn(*shape).astype(dtype)
    t = torch.tensor(a, requires_grad=True)
    g = gradtrack.tensor(a, requires_grad=True)
    if channels_last:
        t = t.detach().to(memory_format=torch.channels_last).requires_grad_()
        g = g.detach().to(memory_format=gradtrack.channels_last).requires_grad_()
    return t, g


def _compare(torch, shape, kwargs, mode, align_corners, dtype, channels_last=False):
    t, g = _pair(torch, shape, dtype, channels_last=channels_last)
    kw = dict(kwargs, mode=mode, antialias=True, align_corners=align_corners)
    ty, gy = torch.nn.functional.interpolate(t, **kw), GF.interpolate(g, **kw)
    assert tuple(gy.shape) == tuple(ty.shape)
    assert tuple(gy.stride()) == ty.stride()
    assert name(gy.grad_fn) == name(ty.grad_fn)
    tol = TOL[dtype]
    np.testing.assert_allclose(gy.detach().numpy(), ty.detach().numpy(), rtol=tol, atol=tol)
    w = np.random.RandomState(1).randn(*ty.shape).astype(dtype)
    (tx,) = torch.autograd.grad(ty, t, torch.tensor(w))
    (gx,) = gradtrack.autograd.grad(gy, g, gradtrack.tensor(w))
    np.testing.assert_allclose(gx.numpy(), tx.numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("mode,align_corners", MODES)
@pytest.mark.parametrize("shape,kwargs", RESIZES)
def test_antialias_matches_torch_float64(torch, shape, kwargs, mode, align_corners):
    _compare(torch, shape, kwargs, mode, align_corners, "float64")


@pytest.mark.parametrize("mode,align_corners", MODES)
@pytest.mark.parametrize("shape,kwargs", RESIZES)
def test_antialias_matches_torch_float32(torch, shape, kwargs, mode, align_corners):
    _compare(torch, shape, kwargs, mode, align_corners, "float32")


@pytest.mark.parametrize("shape,size", [((2, 3, 9, 11), (4, 5)), ((1, 1, 9, 11), (4, 5)),
                                        ((2, 3, 1, 1), (4, 5)), ((1, 2, 7, 1), (3, 1))])
@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_antialias_keeps_channels_last_as_torch(torch, shape, size, mode):
    _compare(torch, shape, dict(size=size), mode, False, "float64", channels_last=True)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_antialias_of_a_transposed_input_is_contiguous(torch, mode):
    a = np.random.RandomState(0).randn(2, 3, 9, 11)
    ty = torch.nn.functional.interpolate(torch.tensor(a).transpose(2, 3), size=(4, 5),
                                         mode=mode, antialias=True)
    gy = GF.interpolate(gradtrack.tensor(a).transpose(2, 3), size=(4, 5), mode=mode,
                        antialias=True)
    assert tuple(gy.stride()) == ty.stride()
    np.testing.assert_allclose(gy.numpy(), ty.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_antialias_same_size_dim_passes_through_as_torch(torch, mode):
    # torch's forward leaves a dim of unchanged size alone whatever the scale factor;
    # its gradient applies the scale's weights
    _compare(torch, (1, 2, 6, 7), dict(scale_factor=1.01), mode, False, "float64")
    _compare(torch, (1, 2, 6, 7), dict(scale_factor=(1.01, 0.5)), mode, False, "float64")


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_antialias_single_output_column_follows_torch_channels_last(torch, mode):
    # torch's contiguous kernel copies the first output row into every row when the
    # output width is 1; its channels-last kernel (and its gradient) do not. gradtrack
    # gives the channels-last kernel's values for both layouts.
    a = np.random.RandomState(0).randn(2, 3, 5, 4)
    t = torch.tensor(a).to(memory_format=torch.channels_last)
    ty = torch.nn.functional.interpolate(t, size=(3, 1), mode=mode, antialias=True)
    gy = GF.interpolate(gradtrack.tensor(a), size=(3, 1), mode=mode, antialias=True)
    np.testing.assert_allclose(gy.numpy(), ty.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic", "lanczos"])
def test_antialias_double_backward_matches_torch(torch, mode):
    t, g = _pair(torch, (1, 2, 9, 7), "float64")
    ty = torch.nn.functional.interpolate(t, size=(4, 10), mode=mode, antialias=True)
    gy = GF.interpolate(g, size=(4, 10), mode=mode, antialias=True)
    w = np.random.RandomState(1).randn(*ty.shape)
    tw = torch.tensor(w, requires_grad=True)
    gw = gradtrack.tensor(w, requires_grad=True)
    (tx,) = torch.autograd.grad(ty, t, tw, create_graph=True)
    (gx,) = gradtrack.autograd.grad(gy, g, gw, create_graph=True)
    assert gx.requires_grad
    (tww,) = torch.autograd.grad((tx * tx).sum(), tw)
    (gww,) = gradtrack.autograd.grad((gx * gx).sum(), gw)
    np.testing.assert_allclose(gww.numpy(), tww.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode,align_corners", MODES)
def test_antialias_gradcheck(mode, align_corners):
    for size in [(3, 5), (7, 2)]:
        x = gradtrack.randn(2, 2, 5, 4, dtype=gradtrack.float64, requires_grad=True)

        def f(t, size=size):
            return GF.interpolate(t, size=size, mode=mode, antialias=True,
                                  align_corners=align_corners)

        assert gradcheck(f, (x,))
        assert gradgradcheck(f, (x,))


def test_axis_weights_rows_sum_to_one_and_widen_when_downsampling():
    down = axis_weights(12, 3, "bilinear")
    np.testing.assert_allclose(down.sum(1), 1, rtol=1e-15)
    assert (down != 0).sum(1).max() == 8  # a triangle of 2 taps stretched by 4
    up = axis_weights(3, 12, "bicubic")
    np.testing.assert_allclose(up.sum(1), 1, rtol=1e-15)
    assert (up != 0).sum(1).max() <= 4
    assert axis_weights(12, 3, "bilinear", dtype="float32").dtype == np.float32


ERRORS = [
    ((1, 2, 4), dict(size=3, mode="bilinear")),
    ((1, 1, 4, 4), dict(size=3, mode="nearest")),
    ((1, 1, 4, 4), dict(size=3, mode="area")),
    ((1, 1, 4, 4), dict(size=3, mode="nearest-exact")),
    ((1, 1, 4), dict(size=3, mode="linear")),
    ((1, 1, 4, 4, 4), dict(size=3, mode="trilinear")),
    ((1, 1, 4, 4, 4), dict(size=3, mode="bicubic")),
    ((1, 1, 4), dict(size=3, mode="lanczos", align_corners=True)),
    ((1, 1, 4, 4), dict(size=3, mode="lanczos", align_corners=True)),
    ((1, 1, 4, 4), dict(size=(0, 3), mode="bilinear")),
    ((1, 1, 4, 4), dict(scale_factor=0.1, mode="bicubic")),
    ((1, 0, 4, 4), dict(size=3, mode="bilinear")),
    ((1, 1, 4, 4), dict(size=3, scale_factor=2, mode="bilinear")),
    ((1, 1, 4, 4), dict(size=3, mode="bilinear", recompute_scale_factor=True)),
]


@pytest.mark.parametrize("shape,kwargs", ERRORS)
def test_antialias_errors_match_torch(torch, shape, kwargs):
    def call(lib):
        return lambda: lib.nn.functional.interpolate(lib.zeros(shape), antialias=True,
                                                     **kwargs)
    assert error_of(call(gradtrack)) == error_of(call(torch))


@pytest.mark.parametrize("dtype", ["int64", "float16", "bfloat16", "bool"])
def test_antialias_dtype_errors_match_torch(torch, dtype):
    def call(lib):
        x = lib.zeros(1, 1, 4, 4, dtype=getattr(lib, dtype))
        return lambda: lib.nn.functional.interpolate(x, size=2, mode="bicubic",
                                                     antialias=True)
    assert error_of(call(gradtrack)) == error_of(call(torch))


@pytest.mark.parametrize("kwargs", [dict(mode="lanczos"),
                                    dict(mode="lanczos", align_corners=True),
                                    dict(mode="lanczos", align_corners=False)])
def test_lanczos_without_antialias_errors_match_torch(torch, kwargs):
    def call(lib):
        return lambda: lib.nn.functional.interpolate(lib.zeros(1, 1, 4, 4), size=2, **kwargs)
    assert error_of(call(gradtrack)) == error_of(call(torch))
