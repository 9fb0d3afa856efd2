"""nn.grad: a convolution's input and weight gradients from a given output gradient,
against the gradients backward() accumulates, a numpy convolution, and torch 2.13."""

import numpy as np
import pytest

import gradtrack

SHAPES = {  # spatial sizes of the input and the kernel per dimension count
    1: ((9,), (3,)),
    2: ((9, 8), (3, 2)),
    3: ((7, 6, 5), (2, 3, 2)),
}
SETTINGS = [
    {},
    {"stride": 2, "padding": 1},
    {"stride": (2, 1, 3), "dilation": 2},
    {"dilation": 2, "groups": 2},
    {"padding": 2, "groups": 4},
]


def _setting(nd, kw):
    """kw with a per-dimension tuple cut to nd entries."""
    return {k: (v[:nd] if isinstance(v, tuple) else v) for k, v in kw.items()}


def _operands(lib, nd, kw, dtype="float64", seed=0):
    rs = np.random.RandomState(seed)
    spatial, kernel = SHAPES[nd]
    groups = kw.get("groups", 1)
    dt = getattr(lib, dtype)
    x = lib.tensor(rs.randn(2, 4, *spatial), dtype=dt)
    w = lib.tensor(rs.randn(8, 4 // groups, *kernel), dtype=dt)
    conv = getattr(lib.nn.functional, f"conv{nd}d")
    out_shape = conv(x, w, **kw).shape
    g = lib.tensor(rs.randn(*out_shape), dtype=dt)
    return x, w, g


@pytest.mark.parametrize("nd", [1, 2, 3])
@pytest.mark.parametrize("kw", SETTINGS, ids=[str(i) for i in range(len(SETTINGS))])
def test_gradients_equal_what_backward_accumulates(nd, kw):
    kw = _setting(nd, kw)
    x, w, g = _operands(gradtrack, nd, kw)
    xl, wl = x.clone().requires_grad_(), w.clone().requires_grad_()
    getattr(gradtrack.nn.functional, f"conv{nd}d")(xl, wl, **kw).backward(g)
    grad_in = getattr(gradtrack.nn.grad, f"conv{nd}d_input")(x.shape, w, g, **kw)
    grad_w = getattr(gradtrack.nn.grad, f"conv{nd}d_weight")(x, w.shape, g, **kw)
    np.testing.assert_array_equal(grad_in.numpy(), xl.grad.numpy())
    np.testing.assert_array_equal(grad_w.numpy(), wl.grad.numpy())
    assert grad_in.grad_fn is None and grad_w.grad_fn is None


def _numpy_conv1d_grads(x, w, g, stride, padding):
    """The two gradients of y[n, o, t] = sum_c,j x_pad[n, c, t*stride + j] w[o, c, j]."""
    xp = np.pad(x, ((0, 0), (0, 0), (padding, padding)))
    gx, gw = np.zeros_like(xp), np.zeros_like(w)
    for t in range(g.shape[2]):
        window = xp[:, :, t * stride:t * stride + w.shape[2]]
        gw += np.einsum("no,ncj->ocj", g[:, :, t], window)
        gx[:, :, t * stride:t * stride + w.shape[2]] += np.einsum("no,ocj->ncj", g[:, :, t], w)
    return gx[:, :, padding:xp.shape[2] - padding], gw


@pytest.mark.parametrize("stride,padding", [(1, 0), (2, 1), (3, 2)])
def test_conv1d_gradients_match_numpy(stride, padding):
    x, w, g = _operands(gradtrack, 1, {"stride": stride, "padding": padding})
    want_x, want_w = _numpy_conv1d_grads(x.numpy(), w.numpy(), g.numpy(), stride, padding)
    got_x = gradtrack.nn.grad.conv1d_input(x.shape, w, g, stride=stride, padding=padding)
    got_w = gradtrack.nn.grad.conv1d_weight(x, w.shape, g, stride=stride, padding=padding)
    np.testing.assert_allclose(got_x.numpy(), want_x, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got_w.numpy(), want_w, rtol=1e-12, atol=1e-12)


def test_gradients_are_differentiable_again():
    # Through grad_output and the other operand: ConvolutionBackwardBackward0,
    # checked against finite differences.
    x, w, g = _operands(gradtrack, 2, {"stride": 2, "padding": 1})
    g.requires_grad_()
    w.requires_grad_()
    grad_in = gradtrack.nn.grad.conv2d_input(x.shape, w, g, stride=2, padding=1)
    assert type(grad_in.grad_fn).__name__ == "ConvolutionBackwardBackward0"
    assert gradtrack.autograd.gradcheck(
        lambda g, w: gradtrack.nn.grad.conv2d_input(x.shape, w, g, stride=2, padding=1), (g, w))
    x.requires_grad_()
    assert gradtrack.autograd.gradcheck(
        lambda g, x: gradtrack.nn.grad.conv2d_weight(x, w.shape, g, stride=2, padding=1),
        (g, x))


def test_functional_carries_the_module():
    assert gradtrack.nn.functional.grad is gradtrack.nn.grad


@pytest.mark.parametrize("nd", [1, 2, 3])
@pytest.mark.parametrize("kw", SETTINGS, ids=[str(i) for i in range(len(SETTINGS))])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_as_torch(torch, nd, kw, dtype):
    kw = _setting(nd, kw)

    def run(lib):
        x, w, g = _operands(lib, nd, kw, dtype)
        g.requires_grad_()
        grad_in = getattr(lib.nn.grad, f"conv{nd}d_input")(x.shape, w, g, **kw)
        grad_w = getattr(lib.nn.grad, f"conv{nd}d_weight")(x, w.shape, g, **kw)
        return [(r.detach().numpy(), r.dtype == getattr(lib, dtype), r.requires_grad,
                 type(r.grad_fn).__name__) for r in (grad_in, grad_w)]

    tol = 1e-5 if dtype == "float32" else 1e-12
    for ours, theirs in zip(run(gradtrack), run(torch)):
        np.testing.assert_allclose(ours[0], theirs[0], rtol=tol, atol=tol)
        assert ours[1:] == theirs[1:]


def _error(fn):
    with pytest.raises(RuntimeError) as info:
        fn()
    return str(info.value)


@pytest.mark.parametrize("case", ["channels", "dims", "dtype", "input_dtype", "stride_length"])
def test_bad_arguments_raise_as_torch(torch, case):
    def run(lib):
        G = lib.nn.grad
        x = lib.ones(2, 3, 8, 8)
        w = lib.ones(4, 3, 3, 3)
        g = lib.ones(2, 4, 6, 6)
        calls = {
            "channels": lambda: G.conv2d_input((2, 5, 8, 8), w, g),
            "dims": lambda: G.conv2d_input((2, 3, 8), w, g),
            "dtype": lambda: G.conv2d_input((2, 3, 8, 8), w, g.double()),
            "input_dtype": lambda: G.conv2d_weight(x.double(), (4, 3, 3, 3), g),
            "stride_length": lambda: G.conv2d_weight(x, (4, 3, 3, 3), g, stride=(1, 1, 1)),
        }
        return _error(calls[case])

    assert run(gradtrack) == run(torch)


@pytest.mark.parametrize("fn,args", [
    ("conv2d_input", lambda lib: ((2, 3, 9, 9), lib.ones(4, 3, 3, 3), lib.ones(2, 4, 6, 6))),
    ("conv2d_weight", lambda lib: (lib.ones(2, 3, 8, 8), (4, 3, 2, 2), lib.ones(2, 4, 6, 6))),
    ("conv1d_input", lambda lib: ((2, 3, 8), lib.ones(4, 3, 3), lib.ones(2, 4, 5))),
])
def test_a_grad_output_of_another_shape_raises_with_torch_words_then_the_shapes(torch, fn, args):
    def run(lib):
        return _error(lambda: getattr(lib.nn.grad, fn)(*args(lib)))

    theirs, ours = run(torch), run(gradtrack)
    assert ours.startswith(theirs)
    assert "(gradtrack: grad_output has size" in ours
