"""F.pad (every mode), F.interpolate / nn.Upsample and the padding layers
against torch 2.13: values, gradients, grad_fn names (double backward too),
reprs and error messages.
"""

import numpy as np
import pytest

import gradtrack
from helpers import error_of, name, torch_to_gradtrack

GF = gradtrack.nn.functional


def _pair(torch, shape, dtype="float64", seed=0):
    a = np.random.RandomState(seed).randn(*shape)
    t = torch.tensor(a, dtype=getattr(torch, dtype), requires_grad=True)
    g = gradtrack.tensor(a, dtype=getattr(gradtrack, dtype), requires_grad=True)
    return t, g


def _check(torch, call, shape, dtype="float64", tol=1e-6):
    """Forward values, grad_fn name and input gradient under a random
    output gradient, gradtrack against torch."""
    t, g = _pair(torch, shape, dtype)
    ty, gy = call(torch.nn.functional, t), call(GF, g)
    assert tuple(gy.shape) == tuple(ty.shape)
    np.testing.assert_allclose(gy.detach().numpy(), ty.detach().numpy(), rtol=tol, atol=tol)
    assert name(gy.grad_fn) == name(ty.grad_fn)
    w = np.random.RandomState(1).randn(*ty.shape)
    (ty * torch.tensor(w, dtype=ty.dtype)).sum().backward()
    (gy * gradtrack.tensor(w, dtype=gy.dtype)).sum().backward()
    np.testing.assert_allclose(g.grad.numpy(), t.grad.numpy(), rtol=tol, atol=tol)


PADS = [((2, 3, 5), (1, 2)), ((3, 5), (2, 1)), ((2, 3, 4, 5), (1, 2, 2, 1)),
        ((3, 4, 5), (0, 3, 1, 1)), ((1, 2, 3, 4, 5), (1, 1, 2, 1, 1, 2)),
        ((2, 3, 5), (-1, 2)), ((2, 3, 4, 5), (-1, 2, 1, -2))]


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("shape,pad", PADS)
def test_pad_modes_match_torch(torch, mode, shape, pad):
    _check(torch, lambda F, x: F.pad(x, pad, mode=mode), shape)


@pytest.mark.parametrize("pad", [(1, -2, 0, 3), (-2, -2), (2, 0, 1, 1, 1, 0), (0, 0)])
def test_constant_pad_values_and_negative_padding(torch, pad):
    _check(torch, lambda F, x: F.pad(x, pad, value=2.5), (2, 3, 4))


def test_constant_pad_of_integers_truncates_the_value(torch):
    t = torch.nn.functional.pad(torch.arange(6).view(1, 2, 3), (1, 1), value=1.5)
    g = GF.pad(gradtrack.arange(6).view(1, 2, 3), (1, 1), value=1.5)
    assert g.dtype == gradtrack.int64
    assert g.tolist() == t.tolist()
    t = torch.nn.functional.pad(torch.arange(6).view(1, 2, 3), (2, 1), mode="reflect")
    assert GF.pad(gradtrack.arange(6).view(1, 2, 3), (2, 1), mode="reflect").tolist() == t.tolist()


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate"])
def test_pad_double_backward_names_and_values(torch, mode):
    pad = (2, 1, 1, 1)
    t, g = _pair(torch, (1, 2, 3, 4))
    outs = []
    for lib, x in ((torch, t), (gradtrack, g)):
        y = lib.nn.functional.pad(x, pad, mode=mode)
        (gx,) = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        (ggx,) = lib.autograd.grad((gx * gx).sum(), x)
        outs.append((name(gx.grad_fn), gx.detach().numpy(), ggx.numpy()))
    (tn, tg, tgg), (gn, gg, ggg) = outs
    np.testing.assert_allclose(gg, tg, rtol=1e-10)
    np.testing.assert_allclose(ggg, tgg, rtol=1e-10)
    assert gn == tn


PAD_ERRORS = [
    ((1, 3, 4), (1,), "constant", None),
    ((1, 3, 4), (1, 1, 1, 1, 1, 1, 1, 1), "constant", None),
    ((1, 3, 4), (-3, -2), "constant", None),
    ((1, 3, 4), (4, 1), "reflect", None),
    ((1, 2, 3, 4), (1, 1, 3, 0), "reflect", None),
    ((2, 3, 4), (1, 1, 3, 0), "reflect", None),
    ((1, 1, 2, 3, 4), (1, 1, 1, 1, 2, 0), "reflect", None),
    ((1, 1, 2, 3, 4), (4, 1, 1, 1, 1, 0), "reflect", None),
    ((1, 3, 4), (5, 1), "circular", None),
    ((1, 3, 4), (1, 1), "reflect", 2),
    ((1, 3, 4), (1, 1), "foo", None),
    ((4,), (1, 1), "reflect", None),
    ((2, 3, 4, 5), (1, 1), "replicate", None),
    ((2, 1, 1, 2, 3, 4), (1, 1), "circular", None),
    ((1, 0, 4), (1, 1), "reflect", None),
    ((1, 2, 0), (1, 1), "replicate", None),
    ((1, 2, 3, 4), (1, 1, -3, -2), "replicate", None),
    ((2, 3), (2, 3), "reflect", None),
]


@pytest.mark.parametrize("shape,pad,mode,value", PAD_ERRORS)
def test_pad_errors_match_torch(torch, shape, pad, mode, value):
    expected = error_of(lambda: torch.nn.functional.pad(torch.zeros(shape), pad, mode=mode,
                                                        value=value))
    got = error_of(lambda: GF.pad(gradtrack.zeros(shape), pad, mode=mode, value=value))
    assert got == (expected[0], torch_to_gradtrack(expected[1]))


def test_pad_argument_type_errors_match_torch(torch):
    for bad in (3, [1, 1.5]):
        expected = error_of(lambda: torch.nn.functional.pad(torch.zeros(2, 3), bad))
        assert error_of(lambda: GF.pad(gradtrack.zeros(2, 3), bad)) == expected


def test_pad_accepts_a_zero_value_in_other_modes(torch):
    t = torch.nn.functional.pad(torch.ones(2, 3), (1, 1), mode="reflect", value=0.0)
    g = GF.pad(gradtrack.ones(2, 3), (1, 1), mode="reflect", value=0.0)
    assert g.tolist() == t.tolist()


# ---- interpolate -----------------------------------------------------------------------------

INTERP = [("nearest", (2, 3, 5)), ("nearest", (2, 3, 4, 5)), ("nearest", (1, 2, 3, 4, 5)),
          ("nearest-exact", (2, 3, 5)), ("nearest-exact", (2, 3, 4, 5)),
          ("nearest-exact", (1, 2, 3, 3, 4)), ("linear", (2, 3, 5)), ("bilinear", (2, 3, 4, 5)),
          ("bicubic", (2, 3, 4, 5)), ("trilinear", (1, 2, 3, 4, 5))]
SIZES = [dict(scale_factor=2), dict(scale_factor=1.7), dict(scale_factor=0.6), dict(size=3),
         dict(size=7), dict(scale_factor=1.7, recompute_scale_factor=True)]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("kw", SIZES, ids=lambda kw: "-".join(f"{k}={v}" for k, v in kw.items()))
@pytest.mark.parametrize("mode,shape", INTERP, ids=lambda v: str(v))
def test_interpolate_matches_torch(torch, mode, shape, kw, dtype):
    corners = [None] if mode.startswith("nearest") else [False, True]
    tol = 1e-6 if dtype == "float64" else 2e-5
    for ac in corners:
        _check(torch, lambda F, x: F.interpolate(x, mode=mode, align_corners=ac, **kw), shape,
               dtype, tol)


def test_interpolate_per_dim_sizes_and_scales(torch):
    _check(torch, lambda F, x: F.interpolate(x, size=(5, 2), mode="bilinear"), (1, 2, 3, 4))
    _check(torch, lambda F, x: F.interpolate(x, scale_factor=(1.5, 0.5), mode="bicubic",
                                             align_corners=True), (1, 2, 4, 6))
    _check(torch, lambda F, x: F.interpolate(x, size=(3, 5, 2)), (1, 2, 2, 3, 4))


def test_interpolate_area_is_adaptive_average_pooling(torch):
    _check(torch, lambda F, x: F.interpolate(x, size=(3, 4), mode="area"), (2, 3, 7, 9))
    _check(torch, lambda F, x: F.interpolate(x, scale_factor=0.5, mode="area"), (2, 3, 8))


@pytest.mark.parametrize("mode", ["nearest", "bilinear", "bicubic", "nearest-exact"])
def test_interpolate_double_backward(torch, mode):
    t, g = _pair(torch, (1, 2, 3, 3))
    res = []
    for lib, x in ((torch, t), (gradtrack, g)):
        y = lib.nn.functional.interpolate(x, scale_factor=2, mode=mode)
        (gx,) = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        (ggx,) = lib.autograd.grad((gx * gx).sum(), x)
        res.append((name(gx.grad_fn), gx.detach().numpy(), ggx.numpy()))
    assert res[1][0] == res[0][0]
    np.testing.assert_allclose(res[1][1], res[0][1], rtol=1e-10)
    np.testing.assert_allclose(res[1][2], res[0][2], rtol=1e-10)


def test_interpolate_gradcheck():
    x = gradtrack.randn(1, 2, 3, 4, dtype=gradtrack.float64, requires_grad=True)
    for mode in ("bilinear", "bicubic", "nearest"):
        assert gradtrack.autograd.gradcheck(
            lambda a, m=mode: GF.interpolate(a, size=(5, 3), mode=m), (x,))
    assert gradtrack.autograd.gradcheck(lambda a: GF.pad(a, (2, 1, 1, 2), mode="reflect"), (x,))


INTERP_ERRORS = [
    ((1, 2, 4), {}),
    ((1, 2, 4), dict(size=3, scale_factor=2)),
    ((1, 2, 4), dict(size=(3, 4))),
    ((1, 2, 4), dict(scale_factor=(2, 2))),
    ((1, 2, 4), dict(size=3, mode="bilinear")),
    ((1, 2, 4, 4), dict(size=3, mode="linear")),
    ((1, 2, 4), dict(size=3, mode="foo")),
    ((1, 2, 4), dict(size=3, mode="nearest", align_corners=True)),
    ((1, 2, 4), dict(size=5, mode="linear", recompute_scale_factor=True)),
    ((1, 2, 4), dict(scale_factor=0.1, mode="linear")),
    ((1, 2, 3, 4), dict(size=(0, 2))),
    ((2, 4), dict(size=3)),
    ((1, 2, 4), dict(size=(3.5,))),
    ((1, 2, 4), dict(size=3, antialias=True, mode="bilinear")),
]


@pytest.mark.parametrize("shape,kw", INTERP_ERRORS)
def test_interpolate_errors_match_torch(torch, shape, kw):
    expected = error_of(lambda: torch.nn.functional.interpolate(torch.zeros(shape), **kw))
    got = error_of(lambda: GF.interpolate(gradtrack.zeros(shape), **kw))
    assert got == (expected[0], torch_to_gradtrack(expected[1]))


def test_interpolate_of_integers_raises_as_torch(torch):
    for mode in ("nearest", "linear"):
        expected = error_of(lambda m=mode: torch.nn.functional.interpolate(
            torch.arange(8).view(1, 2, 4), size=3, mode=m))
        got = error_of(lambda m=mode: GF.interpolate(gradtrack.arange(8).view(1, 2, 4), size=3,
                                                     mode=m))
        assert got == expected


def test_upsample_aliases_warn_and_match(torch):
    t, g = _pair(torch, (1, 2, 3, 3))
    with pytest.warns(UserWarning, match="`nn.functional.upsample` is deprecated"):
        gy = GF.upsample(g, scale_factor=2, mode="bilinear")
    ty = torch.nn.functional.interpolate(t, scale_factor=2, mode="bilinear")
    np.testing.assert_allclose(gy.detach().numpy(), ty.detach().numpy(), rtol=1e-12)
    with pytest.warns(UserWarning, match="upsample_bilinear` is deprecated"):
        gy = GF.upsample_bilinear(g, size=5)
    ty = torch.nn.functional.interpolate(t, size=5, mode="bilinear", align_corners=True)
    np.testing.assert_allclose(gy.detach().numpy(), ty.detach().numpy(), rtol=1e-12)
    with pytest.warns(UserWarning, match="upsample_nearest` is deprecated"):
        assert GF.upsample_nearest(g, 5).shape == (1, 2, 5, 5)


# ---- layers ----------------------------------------------------------------------------------

LAYERS = [("ZeroPad1d", (1, 2)), ("ZeroPad2d", 2), ("ZeroPad3d", 1), ("ReflectionPad1d", 2),
          ("ReflectionPad2d", (1, 1, 2, 0)), ("ReflectionPad3d", 1), ("ReplicationPad1d", 3),
          ("ReplicationPad2d", 2), ("ReplicationPad3d", 1), ("CircularPad1d", 1),
          ("CircularPad2d", (1, 2, 0, 1)), ("CircularPad3d", 1)]


@pytest.mark.parametrize("cls,padding", LAYERS)
def test_padding_layers_match_torch(torch, cls, padding):
    tm, gm = getattr(torch.nn, cls)(padding), getattr(gradtrack.nn, cls)(padding)
    assert repr(gm) == repr(tm)
    assert gm.padding == tm.padding
    k = int(cls[-2])
    _check(torch, lambda F, x: (tm if F is torch.nn.functional else gm)(x), (2, 3, 4, 5, 6)[-k - 2:])


def test_constant_pad_layers_match_torch(torch):
    for cls, args in (("ConstantPad1d", (2, 3.5)), ("ConstantPad2d", ((1, 2, 3, 4), 0.0)),
                      ("ConstantPad3d", (1, 1))):
        tm, gm = getattr(torch.nn, cls)(*args), getattr(gradtrack.nn, cls)(*args)
        assert repr(gm) == repr(tm)
        k = int(cls[-2])
        x = np.random.RandomState(0).randn(*(2, 3, 4, 5)[-k - 1:])
        np.testing.assert_allclose(gm(gradtrack.tensor(x)).numpy(), tm(torch.tensor(x)).numpy())


def test_circular_pad_layer_checks_the_input_dims(torch):
    expected = error_of(lambda: torch.nn.CircularPad2d(1)(torch.randn(3)))
    assert error_of(lambda: gradtrack.nn.CircularPad2d(1)(gradtrack.randn(3))) == expected


def test_upsample_layers_match_torch(torch):
    cases = [("Upsample", dict(scale_factor=2)), ("Upsample", dict(size=3, mode="bilinear")),
             ("Upsample", dict(scale_factor=(2, 3), mode="bicubic", align_corners=True)),
             ("UpsamplingNearest2d", dict(scale_factor=2)),
             ("UpsamplingBilinear2d", dict(size=(3, 5)))]
    for cls, kw in cases:
        tm, gm = getattr(torch.nn, cls)(**kw), getattr(gradtrack.nn, cls)(**kw)
        assert repr(gm) == repr(tm)
        _check(torch, lambda F, x: (tm if F is torch.nn.functional else gm)(x), (1, 2, 3, 4))
