"""``round(decimals=)`` against torch 2.13 (NOTE [Rounding to decimals]): values bit for
bit in every floating dtype over positive, zero and negative decimals (ties, overflowing
powers, non-finite inputs), RoundBackward1 and its zero gradient, the in-place form's
node and version, and the argument errors word for word."""

import numpy as np
import pytest

import gradtrack

from helpers import raised

_VALUES = [1.2345, -2.5551, 0.125, 2.675, 1e30, -1e-30, 0.5, 1.5, 2.5, -0.5, 123456.7,
           float("nan"), float("inf"), float("-inf"), 0.0, -0.0, 9.995, 1e-7]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("decimals", [0, 1, 2, 3, 7, 12, 40, 400, -1, -2, -5, -40, -400])
def test_values_are_torchs(torch, dtype, decimals):
    rng = np.random.default_rng(decimals % 97)
    values = _VALUES + (rng.standard_normal(200) * 10.0 ** rng.integers(-4, 6, 200)).tolist()
    res = []
    for lib in (gradtrack, torch):
        x = lib.tensor(values, dtype=getattr(lib, dtype))
        y = lib.round(x, decimals=decimals)
        z = x.clone()
        z.round_(decimals=decimals)
        res.append((y.float().tolist(), z.float().tolist(), str(y.dtype).split(".")[-1],
                    x.round(decimals=decimals).float().tolist(), z._version))
    np.testing.assert_array_equal(np.array(res[0][0]), np.array(res[1][0]))
    np.testing.assert_array_equal(np.array(res[0][1]), np.array(res[1][1]))
    np.testing.assert_array_equal(np.array(res[0][3]), np.array(res[1][3]))
    assert res[0][2::2] == res[1][2::2]


def _scenario(lib):
    x = lib.tensor([1.25, -2.5, 3.675], requires_grad=True)
    y = lib.round(x, decimals=1)
    y.sum().backward()
    z = x * 1
    w = z.round_(decimals=2)
    (w * 2).sum().backward()
    fw = lib.autograd.forward_ad
    with fw.dual_level():
        tangent = fw.unpack_dual(fw.make_dual(x.detach(), lib.ones(3)).round(decimals=1)).tangent
    view = lib.ones(4)[1:3]
    view.round_(decimals=2)
    return (y.grad_fn.name(), x.grad.tolist(), w is z, z.grad_fn.name(), z._version,
            lib.round(x, decimals=0).grad_fn.name(), lib.round(x).grad_fn.name(),
            tangent.tolist(), view._version, lib.round(lib.tensor([15, 25])).tolist())


def test_graph_and_versions_are_torchs(torch):
    assert _scenario(gradtrack) == _scenario(torch)


@pytest.mark.parametrize("call", [
    lambda lib: lib.ones(2).round(decimals=True),
    lambda lib: lib.ones(2).round_(decimals=1.5),
    lambda lib: lib.tensor([1, 2]).round_(decimals=1),
    lambda lib: lib.tensor([1, 2]).round(decimals=0),
    lambda lib: lib.round(lib.ones(2), decimals=None),
    lambda lib: lib.ones(2, requires_grad=True).round_(decimals=1),
    lambda lib: lib.round([1.0], decimals=1),
])
def test_errors_are_torchs(torch, call):
    assert raised(lambda: call(gradtrack), gradtrack) == raised(lambda: call(torch), torch)


@pytest.mark.parametrize("call", [
    lambda lib: lib.round_(lib.tensor([1.26, 2.5, -0.75]), decimals=1),
    lambda lib: lib.round_(lib.tensor([1.5, 2.5])),
    lambda lib: lib.round_(lib.ones(2), decimals=None),
])
def test_top_level_round__matches_torch(torch, call):
    def outcome(lib):
        return raised(lambda: call(lib), lib) or (call(lib).tolist(),)
    assert outcome(gradtrack) == outcome(torch)
