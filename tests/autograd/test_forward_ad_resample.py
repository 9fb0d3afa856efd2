"""Forward AD of padding, interpolation (every mode) and baddbmm against torch
2.13's tangents; the op-table audit (tests/ops/test_forward_ad_table.py)
covers the table's samples with finite differences too."""

import numpy as np
import pytest

import gradtrack


def _tangent(lib, fn, shapes, seed=1):
    fw = lib.autograd.forward_ad
    rng = np.random.default_rng(seed)
    with fw.dual_level():
        xs = [fw.make_dual(lib.tensor(rng.standard_normal(s)), lib.tensor(rng.standard_normal(s)))
              for s in shapes]
        out = fn(lib, *xs)
        primal, tangent = fw.unpack_dual(out)
        return np.array(primal.detach().numpy()), np.array(tangent.detach().numpy())


def _check(torch, fn, shapes):
    (p, t), (tp, tt) = _tangent(gradtrack, fn, shapes), _tangent(torch, fn, shapes)
    np.testing.assert_allclose(p, tp, rtol=1e-12, atol=1e-12)
    assert t.shape == tt.shape
    np.testing.assert_allclose(t, tt, rtol=1e-12, atol=1e-12)


INTERP = [("nearest", (1, 2, 5), {}), ("nearest", (1, 2, 4, 5), {}),
          ("nearest", (1, 1, 2, 3, 4), {}), ("nearest-exact", (1, 2, 4, 5), {}),
          ("linear", (1, 2, 5), {"align_corners": False}),
          ("bilinear", (1, 2, 4, 5), {"align_corners": False}),
          ("bilinear", (1, 2, 4, 5), {"align_corners": True}),
          ("bicubic", (1, 2, 4, 5), {"align_corners": False}),
          ("trilinear", (1, 1, 2, 3, 4), {"align_corners": True})]


@pytest.mark.parametrize("mode,shape,kw", INTERP, ids=[f"{m}-{len(s)}d" for m, s, _ in INTERP])
def test_interpolate_tangent(torch, mode, shape, kw):
    _check(torch, lambda lib, x: lib.nn.functional.interpolate(x, scale_factor=1.5, mode=mode,
                                                               **kw), [shape])


def test_interpolate_area_and_size_tangent(torch):
    _check(torch, lambda lib, x: lib.nn.functional.interpolate(x, scale_factor=0.5, mode="area"),
           [(1, 2, 4, 6)])
    _check(torch, lambda lib, x: lib.nn.functional.interpolate(x, size=(3, 7), mode="bilinear"),
           [(1, 2, 4, 5)])


PADS = [("reflect", (1, 2, 2, 1, 1, 0), (1, 2, 3, 4, 5)),
        ("replicate", (1, 2, 2, 1, 1, 0), (1, 2, 3, 4, 5)),
        ("reflect", (2, 1, 1, 2), (2, 3, 4)), ("circular", (1, 2, 2, 1), (2, 3, 4)),
        ("circular", (-1, 2), (2, 3, 4)), ("constant", (1, -1, 2, 0), (2, 3, 4))]


@pytest.mark.parametrize("mode,pad,shape", PADS, ids=[f"{m}-{len(p)}" for m, p, _ in PADS])
def test_pad_tangent(torch, mode, pad, shape):
    _check(torch, lambda lib, x: lib.nn.functional.pad(x, pad, mode=mode), [shape])


def test_constant_pad_value_has_zero_tangent(torch):
    _check(torch, lambda lib, x: lib.nn.functional.pad(x, (2, 1), value=5.0), [(2, 3)])


@pytest.mark.parametrize("beta,alpha,self_shape", [(0.5, 2, (2, 3, 4)), (0, 1.5, (3, 4)),
                                                   (1, 1, (4,))])
def test_baddbmm_tangent(torch, beta, alpha, self_shape):
    _check(torch, lambda lib, c, a, b: lib.baddbmm(c, a, b, beta=beta, alpha=alpha),
           [self_shape, (2, 3, 5), (2, 5, 4)])


def _backward_tangent(lib, mode, pad):
    """Forward over reverse: the tangent of pad's backward (its own row)."""
    fw = lib.autograd.forward_ad
    rng = np.random.default_rng(3)
    x = lib.tensor(rng.standard_normal((1, 2, 5)), requires_grad=True)
    y = lib.nn.functional.pad(x, pad, mode=mode)
    with fw.dual_level():
        g = fw.make_dual(lib.tensor(rng.standard_normal(tuple(y.shape))),
                         lib.tensor(rng.standard_normal(tuple(y.shape))))
        (gx,) = lib.autograd.grad(y, x, g, create_graph=True)
        return np.array(fw.unpack_dual(gx).tangent.detach().numpy())


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
def test_pad_backward_tangent(torch, mode):
    np.testing.assert_allclose(_backward_tangent(gradtrack, mode, (1, 2)),
                               _backward_tangent(torch, mode, (1, 2)), rtol=1e-12, atol=1e-12)
