"""Convolution (F.conv1d/conv2d/conv_transpose2d, nn.Conv1d/Conv2d/ConvTranspose2d)
against PyTorch 2.13: values, gradients of input, weight and bias, grad_fn names,
messages, module init and reprs; plus finite differences."""

import math
import re

import numpy as np
import pytest

import gradtrack as gt
import gradtrack.nn.functional as F
from gradtrack import nn

from helpers import error_of, name, to_np

RNG = np.random.default_rng(0)


def _pair(torch, array, requires_grad=True, transpose=False):
    """The same values as a gradtrack and a torch tensor (optionally non-contiguous)."""
    if transpose:  # a view with the last two dims swapped: same values, other strides
        base = np.ascontiguousarray(np.swapaxes(array, -1, -2))
        g, t = gt.tensor(base).transpose(-1, -2), torch.tensor(base).transpose(-1, -2)
        if requires_grad:
            g, t = g.detach().requires_grad_(), t.detach().requires_grad_()
        assert not g.is_contiguous()
        return g, t
    return (gt.tensor(array, requires_grad=requires_grad),
            torch.tensor(array, requires_grad=requires_grad))


def _tol(dtype):
    return dict(rtol=1e-4, atol=1e-4) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-10)


def _compare(torch, fn_name, x_shape, w_shape, bias=True, dtype=np.float64, transpose=False,
             **kwargs):
    """Runs F.<fn_name> in both libraries; compares output and every gradient."""
    x = RNG.standard_normal(x_shape).astype(dtype)
    w = RNG.standard_normal(w_shape).astype(dtype)
    gx, tx = _pair(torch, x, transpose=transpose)
    gw, tw = _pair(torch, w)
    gb = tb = None
    if bias:
        c_out = w_shape[1] * kwargs.get("groups", 1) if "transpose" in fn_name else w_shape[0]
        gb, tb = _pair(torch, RNG.standard_normal(c_out).astype(dtype))
    out_g = getattr(F, fn_name)(gx, gw, gb, **kwargs)
    out_t = getattr(torch.nn.functional, fn_name)(tx, tw, tb, **kwargs)
    assert tuple(out_g.shape) == tuple(out_t.shape)
    np.testing.assert_allclose(to_np(out_g), out_t.detach().numpy(), **_tol(dtype))
    assert out_g.grad_fn.name() == type(out_t.grad_fn).__name__
    up = RNG.standard_normal(tuple(out_t.shape)).astype(dtype)
    out_g.backward(gt.tensor(up))
    out_t.backward(torch.tensor(up))
    for a, b in ((gx, tx), (gw, tw), (gb, tb)):
        if a is not None:
            np.testing.assert_allclose(to_np(a.grad), b.grad.numpy(), **_tol(dtype))


CONV2D_CASES = [
    dict(x=(2, 3, 8, 8), w=(4, 3, 3, 3)),
    dict(x=(2, 3, 9, 7), w=(4, 3, 3, 2), stride=2, padding=1),
    dict(x=(1, 4, 10, 10), w=(6, 2, 3, 3), groups=2, dilation=2),
    dict(x=(2, 4, 7, 9), w=(4, 1, 3, 3), groups=4, stride=(2, 1), padding=(0, 2)),
    dict(x=(3, 2, 5, 5), w=(5, 2, 1, 1)),
    dict(x=(2, 3, 6, 6), w=(2, 3, 1, 1), stride=2),
    dict(x=(2, 3, 6, 7), w=(4, 3, 3, 3), padding="same"),
    dict(x=(2, 3, 6, 7), w=(4, 3, 4, 2), padding="same", dilation=1),
    dict(x=(2, 3, 6, 7), w=(4, 3, 3, 3), padding="same", dilation=(2, 3)),
    dict(x=(2, 3, 6, 7), w=(4, 3, 3, 3), padding="valid"),
    dict(x=(2, 3, 5, 5), w=(4, 3, 5, 5), padding=0),
    dict(x=(2, 3, 2, 2), w=(4, 3, 3, 3), padding=1, stride=3),
]


@pytest.mark.parametrize("case", CONV2D_CASES, ids=lambda c: str(sorted(c.items())))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_conv2d_values_and_gradients_match_torch(torch, case, dtype):
    case = dict(case)
    x, w = case.pop("x"), case.pop("w")
    with np.errstate(all="ignore"):
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _compare(torch, "conv2d", x, w, dtype=dtype, **case)


@pytest.mark.parametrize("bias", [True, False])
def test_conv2d_non_contiguous_input_and_no_bias(torch, bias):
    _compare(torch, "conv2d", (2, 3, 7, 6), (4, 3, 3, 3), bias=bias, transpose=True, padding=1)


@pytest.mark.parametrize("case", [
    dict(x=(2, 3, 10), w=(4, 3, 3)),
    dict(x=(2, 4, 11), w=(6, 2, 3), stride=2, padding=1, dilation=2, groups=2),
    dict(x=(1, 3, 9), w=(2, 3, 4), padding="same"),
    dict(x=(3, 2, 5), w=(3, 2, 1)),
])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_conv1d_values_and_gradients_match_torch(torch, case, dtype):
    case = dict(case)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _compare(torch, "conv1d", case.pop("x"), case.pop("w"), dtype=dtype, **case)


@pytest.mark.parametrize("case", [
    dict(x=(2, 3, 5, 5), w=(3, 4, 3, 3)),
    dict(x=(2, 3, 5, 4), w=(3, 2, 3, 2), stride=2, padding=1, output_padding=1),
    dict(x=(1, 4, 4, 4), w=(4, 3, 3, 3), groups=2, dilation=2, stride=(1, 2),
         output_padding=(0, 1)),
    dict(x=(2, 2, 3, 3), w=(2, 2, 1, 1), stride=2),
])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_conv_transpose2d_values_and_gradients_match_torch(torch, case, dtype):
    case = dict(case)
    _compare(torch, "conv_transpose2d", case.pop("x"), case.pop("w"), dtype=dtype, **case)


def test_unbatched_conv_is_squeeze_of_convolution(torch):
    x = gt.randn(3, 8, 8, requires_grad=True)
    out = F.conv2d(x, gt.randn(4, 3, 3, 3))
    assert out.shape == (4, 6, 6)
    assert out.grad_fn.name() == "SqueezeBackward1"
    assert out.grad_fn.next_functions[0][0].name() == "ConvolutionBackward0"
    out1 = F.conv1d(gt.randn(3, 8, requires_grad=True), gt.randn(4, 3, 3))
    assert out1.shape == (4, 6) and out1.grad_fn.name() == "SqueezeBackward1"


def test_convolution_node_has_three_edges_none_without_bias():
    x = gt.randn(1, 2, 5, 5, requires_grad=True)
    w = gt.randn(3, 2, 3, 3, requires_grad=True)
    edges = F.conv2d(x, w).grad_fn.next_functions
    assert [name(n) for n, _ in edges] == [
        "AccumulateGrad", "AccumulateGrad", None]
    b = gt.randn(3, requires_grad=True)
    assert len(F.conv2d(x, w, b).grad_fn.next_functions) == 3


def test_conv2d_gradcheck_finite_differences():
    x = gt.randn(2, 2, 5, 4, dtype=gt.float64, requires_grad=True)
    w = gt.randn(4, 1, 2, 3, dtype=gt.float64, requires_grad=True)
    b = gt.randn(4, dtype=gt.float64, requires_grad=True)
    assert gt.autograd.gradcheck(
        lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2), groups=2),
        (x, w, b))
    wt = gt.randn(2, 3, 2, 2, dtype=gt.float64, requires_grad=True)
    assert gt.autograd.gradcheck(
        lambda x, w: F.conv_transpose2d(x, w, stride=2, padding=1, output_padding=1), (x, wt))


DOUBLE_CASES = [
    ("conv2d", (2, 3, 6, 5), (4, 3, 3, 2), dict(stride=(2, 1), padding=1, dilation=(1, 2))),
    ("conv2d", (1, 4, 6, 6), (6, 2, 3, 3), dict(groups=2, stride=2)),
    ("conv2d", (2, 2, 5, 6), (3, 2, 2, 3), dict(padding="same")),
    ("conv1d", (2, 2, 9), (3, 2, 3), dict(stride=2, padding=2, dilation=2)),
    ("conv_transpose2d", (2, 3, 4, 3), (3, 2, 3, 2), dict(stride=2, padding=1,
                                                          output_padding=1)),
    ("conv_transpose2d", (1, 4, 3, 3), (4, 1, 2, 2), dict(groups=2, dilation=2)),
]


@pytest.mark.parametrize("fn_name,x_shape,w_shape,kw", DOUBLE_CASES,
                         ids=[f"{c[0]}-{sorted(c[3].items())}" for c in DOUBLE_CASES])
def test_conv_double_backward_matches_torch(torch, fn_name, x_shape, w_shape, kw):
    """d/d(x, w, b) of (grad_x * u).sum() + (grad_w * v).sum(), with create_graph."""
    import warnings
    x, w = RNG.standard_normal(x_shape), RNG.standard_normal(w_shape)
    c_out = w_shape[1] * kw.get("groups", 1) if "transpose" in fn_name else w_shape[0]
    b = RNG.standard_normal(c_out)
    results, names = [], []
    for L in (gt, torch):
        tx, tw, tb = (L.tensor(a, requires_grad=True) for a in (x, w, b))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = getattr(L.nn.functional, fn_name)(tx, tw, tb, **kw)
        up = L.tensor(np.linspace(-1, 1, int(np.prod(tuple(y.shape)))).reshape(tuple(y.shape)),
                      requires_grad=True)
        gx, gw, gb = L.autograd.grad(y, (tx, tw, tb), up, create_graph=True)
        total = (gx * gx).sum() + (gw * gw.cos()).sum() + (gb * gb).sum()
        second = L.autograd.grad(total, (tx, tw, up))
        results.append([t.detach().numpy() for t in (gx, gw, gb) + tuple(second)])
        names.append([name(t.grad_fn) for t in (gx, gw, gb)])
    if kw.get("padding") != "same":  # torch pads the input first there (ConstantPadNd)
        assert names[0] == names[1] == [  # one node computes all three, as torch's
            "ConvolutionBackwardBackward0"] * 3
    for mine, theirs in zip(*results):
        np.testing.assert_allclose(mine, theirs, rtol=1e-9, atol=1e-9)


def test_conv_gradgradcheck_finite_differences():
    x = gt.randn(1, 2, 4, 5, dtype=gt.float64, requires_grad=True)
    w = gt.randn(2, 1, 2, 3, dtype=gt.float64, requires_grad=True)
    assert gt.autograd.gradgradcheck(
        lambda x, w: F.conv2d(x, w, stride=(1, 2), padding=1, groups=2), (x, w))


@pytest.mark.parametrize("pool", [lambda F, t: F.max_pool2d(t, 3, 2, 1),
                                  lambda F, t: F.adaptive_max_pool2d(t, (2, 3)),
                                  lambda F, t: F.max_pool1d(t[0], 2),
                                  lambda F, t: F.avg_pool2d(t, 3, 2, 1, ceil_mode=True),
                                  lambda F, t: F.avg_pool1d(t[0], 3, 2, 1),
                                  lambda F, t: F.adaptive_avg_pool2d(t, (4, 3))])
def test_pool_double_backward_matches_torch(torch, pool):
    x = RNG.standard_normal((2, 3, 6, 5))
    results = []
    for L in (gt, torch):
        t = L.tensor(x, requires_grad=True)
        y = pool(L.nn.functional, t * t)
        (g,) = L.autograd.grad(y.pow(2).sum(), t, create_graph=True)
        (gg,) = L.autograd.grad((g * g).sum(), t)
        results.append((g.detach().numpy(), gg.numpy(),
                        name(g.grad_fn.next_functions[0][0]) if L is gt else None))
    for mine, theirs in zip(results[0][:2], results[1][:2]):
        np.testing.assert_allclose(mine, theirs, rtol=1e-10, atol=1e-10)


MESSAGE_CASES = [
    ("rank", lambda L, x, w: L.nn.functional.conv2d(L.randn(3, 8), w)),
    ("rank5", lambda L, x, w: L.nn.functional.conv2d(L.randn(1, 1, 3, 8, 8), w)),
    ("weight rank", lambda L, x, w: L.nn.functional.conv2d(x, L.randn(4, 3, 3))),
    ("channels", lambda L, x, w: L.nn.functional.conv2d(L.randn(2, 5, 8, 8), w)),
    ("channels unbatched", lambda L, x, w: L.nn.functional.conv2d(L.randn(5, 8, 8), w)),
    ("kernel too big", lambda L, x, w: L.nn.functional.conv2d(L.randn(2, 3, 2, 2), w)),
    ("groups divide", lambda L, x, w: L.nn.functional.conv2d(L.randn(2, 4, 8, 8),
                                                             L.randn(3, 2, 3, 3), groups=2)),
    ("groups 0", lambda L, x, w: L.nn.functional.conv2d(x, w, groups=0)),
    ("bias size", lambda L, x, w: L.nn.functional.conv2d(x, w, L.randn(5))),
    ("bias 2d", lambda L, x, w: L.nn.functional.conv2d(x, w, L.randn(4, 1))),
    ("negative padding", lambda L, x, w: L.nn.functional.conv2d(x, w, padding=-1)),
    ("stride 0", lambda L, x, w: L.nn.functional.conv2d(x, w, stride=0)),
    ("dilation 0", lambda L, x, w: L.nn.functional.conv2d(x, w, dilation=0)),
    ("padding string", lambda L, x, w: L.nn.functional.conv2d(x, w, padding="foo")),
    ("same strided", lambda L, x, w: L.nn.functional.conv2d(x, w, padding="same", stride=2)),
    ("dtype input double", lambda L, x, w: L.nn.functional.conv2d(x.double(), w)),
    ("dtype weight double", lambda L, x, w: L.nn.functional.conv2d(x, w.double())),
    ("dtype bias", lambda L, x, w: L.nn.functional.conv2d(x, w, L.randn(4).double())),
    ("stride length", lambda L, x, w: L.nn.functional.conv2d(x, w, stride=(1, 2, 3))),
    ("padding length", lambda L, x, w: L.nn.functional.conv2d(x, w, padding=(1, 2, 3))),
    ("conv1d rank", lambda L, x, w: L.nn.functional.conv1d(x, L.randn(4, 3, 3))),
    ("conv1d channels", lambda L, x, w: L.nn.functional.conv1d(L.randn(2, 5, 8),
                                                               L.randn(4, 3, 3))),
    ("conv1d too big", lambda L, x, w: L.nn.functional.conv1d(L.randn(2, 3, 2),
                                                              L.randn(4, 3, 3))),
    ("transpose channels", lambda L, x, w: L.nn.functional.conv_transpose2d(
        L.randn(2, 5, 8, 8), w)),
    ("transpose output_padding", lambda L, x, w: L.nn.functional.conv_transpose2d(
        x, w.transpose(0, 1), output_padding=1)),
    ("transpose rank", lambda L, x, w: L.nn.functional.conv_transpose2d(L.randn(3, 8), w)),
    ("transpose padding string", lambda L, x, w: L.nn.functional.conv_transpose2d(
        x, w.transpose(0, 1), padding="same")),
    ("no out channels", lambda L, x, w: L.nn.functional.conv2d(x, L.randn(0, 3, 3, 3))),
    ("transpose output too small", lambda L, x, w: L.nn.functional.conv_transpose2d(
        L.randn(1, 2, 1, 1), L.randn(2, 2, 1, 1), padding=2)),
    ("module padding_mode", lambda L, x, w: L.nn.Conv2d(3, 4, 3, padding_mode="foo")),
    ("module in groups", lambda L, x, w: L.nn.Conv2d(3, 4, 3, groups=2)),
    ("module out groups", lambda L, x, w: L.nn.Conv2d(4, 3, 3, groups=2)),
    ("module groups 0", lambda L, x, w: L.nn.Conv2d(4, 3, 3, groups=0)),
    ("module padding string", lambda L, x, w: L.nn.Conv2d(4, 3, 3, padding="foo")),
    ("module same strided", lambda L, x, w: L.nn.Conv2d(4, 3, 3, padding="same", stride=2)),
    ("transpose module mode", lambda L, x, w: L.nn.ConvTranspose2d(4, 3, 3,
                                                                   padding_mode="reflect")),
    ("reflect too wide", lambda L, x, w: L.nn.Conv2d(3, 4, 3, padding=8,
                                                     padding_mode="reflect")(x)),
]


@pytest.mark.parametrize("label,fn", MESSAGE_CASES, ids=[c[0] for c in MESSAGE_CASES])
def test_conv_error_messages_match_torch(torch, label, fn):
    expected = error_of(lambda: fn(torch, torch.randn(2, 3, 8, 8), torch.randn(4, 3, 3, 3)))
    got = error_of(lambda: fn(gt, gt.randn(2, 3, 8, 8), gt.randn(4, 3, 3, 3)))
    assert _sorted_sets(got) == _sorted_sets(expected)


def _sorted_sets(error):
    """A printed set's order comes from the .pyc that built it: compare its members."""
    kind, text = error
    return kind, re.sub(r"\{[^{}]*\}", lambda m: str(sorted(m.group(0)[1:-1].split(", "))), text)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("padding", [1, (2, 1), "same"])
def test_conv2d_padding_modes_match_torch(torch, mode, padding):
    tconv = torch.nn.Conv2d(3, 4, 3, padding=padding, padding_mode=mode).double()
    conv = nn.Conv2d(3, 4, 3, padding=padding, padding_mode=mode, dtype=gt.float64)
    _copy_params(conv, tconv)
    x = RNG.standard_normal((2, 3, 6, 5))
    gx, tx = _pair(torch, x)
    out_g, out_t = conv(gx), tconv(tx)
    np.testing.assert_allclose(to_np(out_g), out_t.detach().numpy(), rtol=1e-10, atol=1e-10)
    out_g.sum().backward()
    out_t.sum().backward()
    np.testing.assert_allclose(to_np(gx.grad), tx.grad.numpy(), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(to_np(conv.weight.grad), tconv.weight.grad.numpy(), rtol=1e-10)
    assert repr(conv) == repr(tconv)


def _copy_params(mine, theirs):
    with gt.no_grad():
        for name, p in mine.named_parameters():
            p.copy_(gt.tensor(getattr(theirs, name).detach().numpy()))


@pytest.mark.parametrize("make", [
    lambda L: L.nn.Conv2d(1, 6, 5),
    lambda L: L.nn.Conv2d(3, 6, (3, 5), stride=2, padding=1, dilation=2, groups=3, bias=False,
                          padding_mode="reflect"),
    lambda L: L.nn.Conv2d(2, 4, 3, padding="same"),
    lambda L: L.nn.Conv2d(2, 4, 3, padding="valid"),
    lambda L: L.nn.Conv1d(2, 3, 4),
    lambda L: L.nn.Conv1d(2, 4, 3, stride=2, padding=1, groups=2),
    lambda L: L.nn.ConvTranspose2d(3, 4, 3, stride=2, output_padding=1),
    lambda L: L.nn.ConvTranspose2d(4, 2, (2, 3), groups=2, bias=False, dilation=2),
])
def test_conv_modules_repr_shapes_and_state_dict_keys(torch, make):
    mine, theirs = make(gt), make(torch)
    assert repr(mine) == repr(theirs)
    assert list(mine.state_dict()) == list(theirs.state_dict())
    for key, p in theirs.named_parameters():
        assert tuple(getattr(mine, key).shape) == tuple(p.shape)
        assert getattr(mine, key)._version == p._version


def test_conv_module_init_follows_kaiming_uniform_bounds():
    torch_bound = 1 / math.sqrt(3 * 3 * 3)  # kaiming_uniform(a=sqrt(5)) gives 1/sqrt(fan_in)
    conv = nn.Conv2d(3, 64, 3)
    w, b = to_np(conv.weight), to_np(conv.bias)
    assert np.abs(w).max() <= torch_bound and np.abs(b).max() <= torch_bound
    assert np.abs(w).max() > 0.9 * torch_bound  # 1728 draws reach close to the bound
    t = nn.ConvTranspose2d(4, 6, 3, groups=2)  # fan_in is weight.size(1) * 9 = 27
    assert np.abs(to_np(t.weight)).max() <= 1 / math.sqrt(27)
    assert np.abs(to_np(t.bias)).max() <= 1 / math.sqrt(27)


def test_conv_modules_match_torch_with_copied_weights(torch):
    for make, shape in ((lambda L: L.nn.Conv1d(2, 4, 3, padding=1), (3, 2, 9)),
                        (lambda L: L.nn.ConvTranspose2d(3, 2, 3, stride=2), (2, 3, 4, 4))):
        mine, theirs = make(gt), make(torch)
        _copy_params(mine, theirs)
        x = RNG.standard_normal(shape).astype(np.float32)
        gx, tx = _pair(torch, x)
        out_g, out_t = mine(gx), theirs(tx)
        np.testing.assert_allclose(to_np(out_g), out_t.detach().numpy(), rtol=1e-5, atol=1e-5)
        out_g.sum().backward()
        out_t.sum().backward()
        np.testing.assert_allclose(to_np(mine.weight.grad), theirs.weight.grad.numpy(),
                                   rtol=1e-4, atol=1e-4)
    up_g, up_t = nn.ConvTranspose2d(3, 2, 3, stride=2), torch.nn.ConvTranspose2d(3, 2, 3, stride=2)
    assert up_g(gt.randn(1, 3, 4, 4), output_size=[10, 10]).shape == (1, 2, 10, 10)
    assert up_t(torch.randn(1, 3, 4, 4), output_size=[10, 10]).shape == (1, 2, 10, 10)


def test_conv_empty_batch(torch):
    x = gt.randn(0, 3, 8, 8, requires_grad=True)
    w = gt.randn(4, 3, 3, 3, requires_grad=True)
    out = F.conv2d(x, w)
    assert out.shape == (0, 4, 6, 6)
    out.sum().backward()
    assert x.grad.shape == x.shape and float(w.grad.abs().sum()) == 0.0


def test_empty_kernel_is_refused():
    # torch's message here depends on its backend (slow path or oneDNN); gradtrack
    # gives the slow path's.
    with pytest.raises(RuntimeError, match="kernel size should be greater than zero"):
        F.conv2d(gt.randn(1, 3, 5, 5), gt.randn(4, 3, 0, 3))


# A type mismatch reads as oneDNN's message where torch would run oneDNN (by its size
# rule for float32, by the CPU's instructions for half and bfloat16), else as the
# native kernel's; both libraries on the same machine, at 1 and 2 threads.
MISMATCH_SHAPES = [  # (input shape, weight shape, stride, groups)
    ((1, 3, 5), (2, 3, 2), 1, 1), ((4, 3, 5), (2, 3, 2), 1, 1), ((3, 5), (2, 3, 1), 1, 1),
    ((16, 3, 5), (2, 3, 1), 1, 1), ((1, 3, 5), (2, 3, 1), 2, 1), ((1, 4, 5), (4, 2, 2), 1, 2),
    ((1, 3, 9000), (2, 3, 1), 1, 1), ((1, 3, 5, 5), (2, 3, 4, 4), 1, 1),
    ((1, 3, 5, 5), (2, 3, 2, 4), 1, 1), ((1, 3, 90, 90), (2, 3, 1, 1), 1, 1),
]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtypes", [("float32", "float64"), ("float16", "float32"),
                                    ("bfloat16", "float32"), ("float64", "float32")])
@pytest.mark.parametrize("shapes", MISMATCH_SHAPES)
def test_conv_type_mismatch_message_follows_torch_backend_choice(torch, shapes, dtypes, threads):
    xs, ws, stride, groups = shapes
    messages = []
    for lib in (gt, torch):
        before = lib.get_num_threads()
        lib.set_num_threads(threads)
        try:
            conv = getattr(lib.nn.functional, f"conv{len(ws) - 2}d")
            x, w = lib.ones(*xs, dtype=getattr(lib, dtypes[0])), lib.ones(*ws, dtype=getattr(lib, dtypes[1]))
            messages.append(error_of(lambda: conv(x, w, stride=stride, groups=groups)))
        finally:
            lib.set_num_threads(before)
    assert messages[0] == messages[1]
    assert messages[0][0] == "RuntimeError"
