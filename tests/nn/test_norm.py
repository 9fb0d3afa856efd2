"""LayerNorm, GroupNorm, BatchNorm1d/2d and their functional forms against torch 2.13:
outputs, gradients of input and parameters, double backward, running statistics,
num_batches_tracked, state_dict keys, reprs, grad_fn names and messages; plus finite
differences."""

import numpy as np
import pytest

import gradtrack as gt
from gradtrack import nn
import gradtrack.nn.functional as F
from gradtrack.autograd import gradcheck, gradgradcheck

from helpers import error_of

RNG = np.random.default_rng(7)


def _t(lib, a, grad=True):
    return lib.tensor(a, dtype=lib.float64, requires_grad=grad)


def _close(a, b, rtol=1e-9, atol=1e-11):
    a = a.detach().numpy() if hasattr(a, "detach") else a
    b = b.detach().numpy() if hasattr(b, "detach") else b
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


X3 = RNG.standard_normal((4, 6, 5)) * 2 + 1
X4 = RNG.standard_normal((3, 4, 2, 3)) + 0.5
W6, B6 = RNG.standard_normal(6), RNG.standard_normal(6)
V3 = RNG.standard_normal((4, 6, 5))

FUNCS = {
    "layer_norm": (X3, lambda F, x, w, b: F.layer_norm(x, [5], w[:5], b[:5])),
    "layer_norm_2d": (X3, lambda F, x, w, b: F.layer_norm(x, (6, 5), w.reshape(6, 1).expand(6, 5)
                                                          * 1, None)),
    "layer_norm_plain": (X3, lambda F, x, w, b: F.layer_norm(x, [6, 5], eps=1e-3)),
    "group_norm": (X3, lambda F, x, w, b: F.group_norm(x, 3, w, b)),
    "group_norm_1": (X3, lambda F, x, w, b: F.group_norm(x, 1, w, None)),
    "batch_norm_train": (X3, lambda F, x, w, b: F.batch_norm(x, None, None, w, b, True)),
    "batch_norm_4d": (X4, lambda F, x, w, b: F.batch_norm(x, None, None, w[:4], b[:4], True)),
}


def _batch_norm_eval(lib, x, w, b):
    rm = lib.tensor(np.linspace(-1, 1, 6), dtype=lib.float64)
    rv = lib.tensor(np.linspace(0.5, 2, 6), dtype=lib.float64)
    return lib.nn.functional.batch_norm(x, rm, rv, w, b, False)


FUNCS["batch_norm_eval"] = (X3, None)


def _call(lib, name, x, w, b):
    if name == "batch_norm_eval":
        return _batch_norm_eval(lib, x, w, b)
    return FUNCS[name][1](lib.nn.functional, x, w, b)


def _run(lib, name):
    data = FUNCS[name][0]
    x, w, b = _t(lib, data), _t(lib, W6), _t(lib, B6)
    y = _call(lib, name, x, w, b)
    v = lib.tensor(V3[:, :, :data.shape[-1]].reshape(-1)[:data.size].reshape(data.shape))
    grads = lib.autograd.grad((y * v).sum(), (x, w, b), create_graph=True, allow_unused=True)
    # Second order: a function of the first gradients, back to every input.
    total = sum((g * g).sum() for g in grads if g is not None)
    second = lib.autograd.grad(total, (x, w, b), allow_unused=True)
    return y, grads, second


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_values_gradients_double_backward_match_torch(torch, name):
    ours, ref = _run(gt, name), _run(torch, name)
    _close(ours[0], ref[0])
    assert type(ours[0].grad_fn).__name__ == type(ref[0].grad_fn).__name__
    for a, b in zip(ours[1] + ours[2], ref[1] + ref[2]):
        assert (a is None) == (b is None)
        if a is not None:
            _close(a, b, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_finite_differences(name):
    data = FUNCS[name][0]
    small = data[:2, :6, :5] if data.ndim == 3 else data[:, :, :1, :2]
    x, w, b = _t(gt, small), _t(gt, W6), _t(gt, B6)

    def f(x, w, b):
        # (b * 0).sum(): every input reaches the output (gradgradcheck needs a gradient).
        return _call(gt, name, x, w, b) + (b * 0).sum() + (w * 0).sum()
    assert gradcheck(f, (x, w, b), atol=1e-5)
    assert gradgradcheck(f, (x, w, b), atol=1e-4)


def test_float32_layer_norm_matches_torch(torch):
    x = RNG.standard_normal((8, 64)).astype(np.float32) * 3 + 5
    ours = F.layer_norm(gt.tensor(x), [64])
    ref = torch.nn.functional.layer_norm(torch.tensor(x), [64])
    _close(ours, ref, rtol=1e-5, atol=1e-5)


def test_next_functions_have_torch_length(torch):
    for lib in (gt, torch):
        x = lib.ones(2, 3, requires_grad=True)
        y = lib.nn.functional.layer_norm(x, [3])
        assert [n is None for n, _ in y.grad_fn.next_functions] == [False, True, True]


# ---- modules ---------------------------------------------------------------------------------

@pytest.mark.parametrize("ctor", [
    lambda nn: nn.LayerNorm(5), lambda nn: nn.LayerNorm([2, 3], elementwise_affine=False),
    lambda nn: nn.LayerNorm(4, bias=False), lambda nn: nn.GroupNorm(2, 4),
    lambda nn: nn.GroupNorm(2, 4, affine=False), lambda nn: nn.GroupNorm(2, 4, bias=False),
    lambda nn: nn.BatchNorm1d(3), lambda nn: nn.BatchNorm1d(3, momentum=None),
    lambda nn: nn.BatchNorm2d(4, affine=False, track_running_stats=False),
    lambda nn: nn.BatchNorm2d(4, affine=False), lambda nn: nn.BatchNorm1d(3, bias=False),
])
def test_repr_state_dict_and_versions_match_torch(torch, ctor):
    ours, ref = ctor(nn), ctor(torch.nn)
    assert repr(ours) == repr(ref)
    assert list(ours.state_dict()) == list(ref.state_dict())
    for (k, a), (_, b) in zip(ours.state_dict().items(), ref.state_dict().items()):
        assert a.tolist() == b.tolist() and a._version == b._version, k


def _bn_run(lib, module, batches, train=True):
    outs = []
    module.train(train)
    for data in batches:
        x = lib.tensor(data, requires_grad=True)
        y = module(x)
        (y * y).sum().backward()
        outs.append((y.detach().numpy(), x.grad.numpy()))
    return outs


@pytest.mark.parametrize("momentum", [0.1, None, 0.5])
@pytest.mark.parametrize("shape", [(5, 3), (4, 3, 6)])
def test_batchnorm1d_training_running_stats(torch, momentum, shape):
    batches = [RNG.standard_normal(shape).astype(np.float32) * (i + 1) + i for i in range(3)]
    ours, ref = nn.BatchNorm1d(3, momentum=momentum), torch.nn.BatchNorm1d(3, momentum=momentum)
    with gt.no_grad():
        ours.weight.copy_(gt.tensor([0.5, 1.0, 2.0]))
    with torch.no_grad():
        ref.weight.copy_(torch.tensor([0.5, 1.0, 2.0]))
    for (yo, go), (yr, gr) in zip(_bn_run(gt, ours, batches), _bn_run(torch, ref, batches)):
        _close(yo, yr, rtol=1e-5, atol=1e-5)
        _close(go, gr, rtol=1e-4, atol=1e-4)
    for key in ("running_mean", "running_var"):
        _close(getattr(ours, key), getattr(ref, key), rtol=1e-5, atol=1e-6)
        assert getattr(ours, key)._version == getattr(ref, key)._version
    assert ours.num_batches_tracked.item() == 3
    assert ours.num_batches_tracked._version == ref.num_batches_tracked._version
    _close(ours.weight.grad, ref.weight.grad, rtol=1e-4, atol=1e-4)
    _close(ours.bias.grad, ref.bias.grad, rtol=1e-4, atol=1e-4)
    # Eval then uses the running statistics.
    test = [RNG.standard_normal(shape).astype(np.float32)]
    (yo, go), = _bn_run(gt, ours, test, train=False)
    (yr, gr), = _bn_run(torch, ref, test, train=False)
    _close(yo, yr, rtol=1e-5, atol=1e-5)
    _close(go, gr, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kwargs", [{}, {"affine": False}, {"track_running_stats": False}])
def test_batchnorm2d_train_and_eval(torch, kwargs):
    data = RNG.standard_normal((4, 3, 5, 5)).astype(np.float32) * 2 + 1
    ours, ref = nn.BatchNorm2d(3, **kwargs), torch.nn.BatchNorm2d(3, **kwargs)
    for train in (True, False):
        (yo, go), = _bn_run(gt, ours, [data], train)
        (yr, gr), = _bn_run(torch, ref, [data], train)
        _close(yo, yr, rtol=1e-5, atol=1e-5)
        _close(go, gr, rtol=1e-4, atol=1e-4)
    for a, b in zip(ours.state_dict().values(), ref.state_dict().values()):
        _close(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)


def test_state_dict_round_trip_through_torch(torch):
    ref = torch.nn.BatchNorm1d(3)
    ref(torch.randn(8, 3) * 3 + 2)
    ours = nn.BatchNorm1d(3)
    ours.load_state_dict({k: gt.tensor(v.numpy()) for k, v in ref.state_dict().items()})
    ours.eval()
    ref.eval()
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    _close(ours(gt.tensor(x)), ref(torch.tensor(x)), rtol=1e-6, atol=1e-6)
    assert ours.num_batches_tracked.item() == 1


def test_layernorm_and_groupnorm_modules_match_torch(torch):
    x = RNG.standard_normal((2, 4, 3)).astype(np.float32)
    for ctor in (lambda nn: nn.LayerNorm(3), lambda nn: nn.LayerNorm([4, 3]),
                 lambda nn: nn.GroupNorm(2, 4)):
        ours, ref = ctor(nn), ctor(torch.nn)
        xo, xr = gt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        yo, yr = ours(xo), ref(xr)
        _close(yo, yr, rtol=1e-5, atol=1e-6)
        (yo ** 3).sum().backward()
        (yr ** 3).sum().backward()
        _close(xo.grad, xr.grad, rtol=1e-4, atol=1e-5)
        _close(ours.weight.grad, ref.weight.grad, rtol=1e-4, atol=1e-5)
        assert type(yo.grad_fn).__name__ == type(yr.grad_fn).__name__


MESSAGES = [
    lambda lib: lib.nn.LayerNorm(4)(lib.ones(2, 3)),
    lambda lib: lib.nn.functional.layer_norm(lib.tensor([[1, 2]]), [2]),
    lambda lib: lib.nn.LayerNorm(2)(lib.ones(2, 2, dtype=lib.float64)),
    lambda lib: lib.nn.GroupNorm(3, 4),
    lambda lib: lib.nn.functional.group_norm(lib.ones(2, 5, 3), 2),
    lambda lib: lib.nn.BatchNorm1d(3)(lib.ones(1, 3)),
    lambda lib: lib.nn.BatchNorm1d(3)(lib.ones(2, 3, 4, 5)),
    lambda lib: lib.nn.BatchNorm2d(3)(lib.ones(2, 3, 4)),
    lambda lib: lib.nn.BatchNorm1d(3)(lib.ones(2, 4)),
    lambda lib: lib.nn.functional.batch_norm(lib.ones(2, 3), None, None, training=False),
    lambda lib: lib.nn.BatchNorm1d(3)(lib.ones(2, 3, dtype=lib.float64)),
]


@pytest.mark.parametrize("call", MESSAGES)
def test_messages_match_torch(torch, call):
    ours = error_of(lambda: call(gt))
    ref = error_of(lambda: call(torch))
    assert ours == (ref[0], ref[1].replace("torch.", "gradtrack."))


def test_saved_input_version_checked(torch):
    def run(lib):
        x = lib.ones(2, 3, requires_grad=True) * 1
        y = lib.nn.functional.layer_norm(x, [3])
        x.add_(1)
        return error_of(lambda: y.sum().backward())[0]
    assert run(gt) == run(torch)


@pytest.mark.parametrize("wants", [(True, True, True), (True, False, False), (False, True, False),
                                   (False, False, True), (False, True, True)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_layer_norm_backward_without_graph_matches_torch(torch, wants, dtype):
    # The fused backward (no create_graph), for every subset of needed gradients.
    x = RNG.standard_normal((6, 7, 16)) * 3 + 1
    w16 = RNG.standard_normal(16)

    def run(lib):
        dt = getattr(lib, dtype)
        xs = lib.tensor(x, dtype=dt, requires_grad=wants[0])
        w = lib.tensor(w16, dtype=dt, requires_grad=wants[1])
        b = lib.tensor(np.linspace(-1, 1, 16), dtype=dt, requires_grad=wants[2])
        y = lib.nn.functional.layer_norm(xs, [16], w, b)
        ins = [t for t, want in zip((xs, w, b), wants) if want]
        # y.sum() alone: its gradient is one number broadcast (read in place).
        return (lib.autograd.grad((y ** 2).sum() + y.sum(), ins, retain_graph=True)
                + lib.autograd.grad(y.sum(), ins))
    tol = 1e-4 if dtype == "float32" else 1e-10
    for a, b in zip(run(gt), run(torch)):
        _close(a, b, rtol=tol, atol=tol)


@pytest.mark.parametrize("wants", [(True, True, True), (True, False, False), (False, True, False),
                                   (False, False, True)])
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_backward_without_graph_matches_torch(torch, wants, training):
    # The fused backward (no create_graph), for subsets of the needed gradients.
    x = RNG.standard_normal((5, 4, 3, 2)) * 2 + 1
    w4 = RNG.standard_normal(4)

    def run(lib):
        xs = lib.tensor(x, requires_grad=wants[0])
        w = lib.tensor(w4, requires_grad=wants[1])
        b = lib.tensor(np.linspace(-1, 1, 4), requires_grad=wants[2])
        rm = lib.tensor(np.linspace(0, 1, 4))
        rv = lib.tensor(np.linspace(0.5, 2, 4))
        y = lib.nn.functional.batch_norm(xs, rm, rv, w, b, training)
        ins = [t for t, want in zip((xs, w, b), wants) if want]
        return (lib.autograd.grad((y ** 2).sum(), ins, retain_graph=True)
                + lib.autograd.grad(y.sum(), ins) + (rm, rv))
    for a, b in zip(run(gt), run(torch)):
        _close(a, b, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("size", [1, 2, 4, 7])
def test_cross_map_lrn2d_matches_torch_window_and_gradient(torch, size):
    results = []
    for lib in (torch, gt):
        x = lib.tensor(np.random.default_rng(size).standard_normal((2, 6, 3, 2)),
                       requires_grad=True)
        y = lib.nn.CrossMapLRN2d(size, alpha=0.3, beta=0.6, k=1.5)(x)
        grad = lib.tensor(np.random.default_rng(2).standard_normal((2, 6, 3, 2)))
        results.append((y.detach().numpy(), error_of(lambda: y.backward(grad))
                        if size == 1 else (y.backward(grad), x.grad.numpy())[1]))
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-12, atol=1e-14)
    if size == 1:  # torch's backward refuses a window of one channel
        assert results[1][1] == results[0][1]
    else:
        np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-12, atol=1e-14)
