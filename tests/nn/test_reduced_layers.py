"""float16 / bfloat16 through the layers, against torch 2.13.

conv1d/2d/transposed, max/avg/adaptive pooling, layer/group/batch norm (also
torch's "mixed type": a reduced input with float32 parameters), nll_loss and
cross_entropy run in float32 and round each result once, as torch's CPU kernels
(nll_loss's reductions and log_softmax's log-sum round as torch's do:
test_loss_and_log_softmax_bits.py):
the output dtype, grad_fn, gradient dtypes and the dtype errors are torch's; the
values agree within a few units in the last place (most forwards bit for bit).
Known difference: torch accumulates layer_norm's weight and bias gradients in
the reduced dtype row by row; gradtrack rounds the exact sum once (closer to the
true value), hence the wider tolerance for those two.
"""

import numpy as np
import pytest

import gradtrack

def case_conv2d(L, dt, rng):
    x = L.tensor(rng.randn(2, 3, 6, 6), dtype=L.float32).to(dt).requires_grad_()
    w = L.tensor(rng.randn(4, 3, 3, 3)* 0.3, dtype=L.float32).to(dt).requires_grad_()
    b = L.tensor(rng.randn(4), dtype=L.float32).to(dt).requires_grad_()
    y = L.nn.functional.conv2d(x, w, b, padding=1, stride=2)
    return y, (x, w, b)
def case_conv1d(L, dt, rng):
    x = L.tensor(rng.randn(2, 3, 9), dtype=L.float32).to(dt).requires_grad_()
    w = L.tensor(rng.randn(4, 3, 3)* 0.3, dtype=L.float32).to(dt).requires_grad_()
    y = L.nn.functional.conv1d(x, w)
    return y, (x, w)
def case_convt(L, dt, rng):
    x = L.tensor(rng.randn(2, 3, 4, 4), dtype=L.float32).to(dt).requires_grad_()
    w = L.tensor(rng.randn(3, 2, 3, 3)* 0.3, dtype=L.float32).to(dt).requires_grad_()
    y = L.nn.functional.conv_transpose2d(x, w, stride=2)
    return y, (x, w)
def case_maxpool(L, dt, rng):
    x = L.tensor(rng.randn(2, 3, 6, 6), dtype=L.float32).to(dt).requires_grad_()
    return L.nn.functional.max_pool2d(x, 2), (x,)
def case_maxpool_ov(L, dt, rng):
    x = L.tensor(rng.randn(2, 3, 7, 7), dtype=L.float32).to(dt).requires_grad_()
    return L.nn.functional.max_pool2d(x, 3, stride=1, padding=1), (x,)
def case_maxpool1d(L, dt, rng):
    x = L.tensor(rng.randn(2, 3, 8), dtype=L.float32).to(dt).requires_grad_()
    return L.nn.functional.max_pool1d(x, 2), (x,)
def case_avgpool(L, dt, rng):
    x = L.tensor(rng.randn(2, 3, 6, 6), dtype=L.float32).to(dt).requires_grad_()
    return L.nn.functional.avg_pool2d(x, 3, stride=2, padding=1), (x,)
def case_avgpool1d(L, dt, rng):
    x = L.tensor(rng.randn(2, 3, 8), dtype=L.float32).to(dt).requires_grad_()
    return L.nn.functional.avg_pool1d(x, 2), (x,)
def case_aavg(L, dt, rng):
    x = L.tensor(rng.randn(2, 3, 7, 7), dtype=L.float32).to(dt).requires_grad_()
    return L.nn.functional.adaptive_avg_pool2d(x, 3), (x,)
def case_amax(L, dt, rng):
    x = L.tensor(rng.randn(2, 3, 7, 7), dtype=L.float32).to(dt).requires_grad_()
    return L.nn.functional.adaptive_max_pool2d(x, 3), (x,)
def case_ln(L, dt, rng):
    x = L.tensor(rng.randn(4, 5, 6), dtype=L.float32).to(dt).requires_grad_()
    w = L.tensor(rng.randn(6), dtype=L.float32).to(dt).requires_grad_()
    b = L.tensor(rng.randn(6), dtype=L.float32).to(dt).requires_grad_()
    return L.nn.functional.layer_norm(x, (6,), w, b), (x, w, b)
def case_ln_mixed(L, dt, rng):
    x = L.tensor(rng.randn(4, 5, 6), dtype=L.float32).to(dt).requires_grad_()
    w = L.tensor(rng.randn(6), dtype=L.float32).requires_grad_()
    b = L.tensor(rng.randn(6), dtype=L.float32).requires_grad_()
    return L.nn.functional.layer_norm(x, (6,), w, b), (x, w, b)
def case_gn(L, dt, rng):
    x = L.tensor(rng.randn(2, 4, 5), dtype=L.float32).to(dt).requires_grad_()
    w = L.tensor(rng.randn(4), dtype=L.float32).to(dt).requires_grad_()
    b = L.tensor(rng.randn(4), dtype=L.float32).to(dt).requires_grad_()
    return L.nn.functional.group_norm(x, 2, w, b), (x, w, b)
def case_bn(L, dt, rng):
    x = L.tensor(rng.randn(4, 3, 5), dtype=L.float32).to(dt).requires_grad_()
    w = L.tensor(rng.randn(3), dtype=L.float32).to(dt).requires_grad_()
    b = L.tensor(rng.randn(3), dtype=L.float32).to(dt).requires_grad_()
    rm, rv = L.zeros(3, dtype=dt), L.ones(3, dtype=dt)
    y = L.nn.functional.batch_norm(x, rm, rv, w, b, training=True)
    return y, (x, w, b), (rm, rv)
def case_bn_mixed(L, dt, rng):
    x = L.tensor(rng.randn(4, 3, 5), dtype=L.float32).to(dt).requires_grad_()
    w = L.tensor(rng.randn(3), dtype=L.float32).requires_grad_()
    b = L.tensor(rng.randn(3), dtype=L.float32).requires_grad_()
    rm, rv = L.zeros(3), L.ones(3)
    y = L.nn.functional.batch_norm(x, rm, rv, w, b, training=True)
    return y, (x, w, b), (rm, rv)
def case_bn_eval(L, dt, rng):
    x = L.tensor(rng.randn(4, 3, 5), dtype=L.float32).to(dt).requires_grad_()
    w = L.tensor(rng.randn(3), dtype=L.float32).to(dt).requires_grad_()
    rm = L.tensor(rng.randn(3), dtype=L.float32).to(dt)
    rv = L.tensor(rng.rand(3) + 0.5, dtype=L.float32).to(dt)
    y = L.nn.functional.batch_norm(x, rm, rv, w, None, training=False)
    return y, (x, w)
def case_nll(L, dt, rng):
    x = L.tensor(rng.randn(6, 5), dtype=L.float32).to(dt).requires_grad_()
    t = L.tensor([0, 1, 4, 3, 2, 1])
    return L.nn.functional.nll_loss(x, t), (x,)
def case_nll_w(L, dt, rng):
    x = L.tensor(rng.randn(6, 5), dtype=L.float32).to(dt).requires_grad_()
    t = L.tensor([0, 1, 4, 3, 2, 1])
    w = L.tensor(rng.rand(5), dtype=L.float32).to(dt)
    return L.nn.functional.nll_loss(x, t, weight=w, reduction="none"), (x,)
def case_ce(L, dt, rng):
    x = L.tensor(rng.randn(6, 5), dtype=L.float32).to(dt).requires_grad_()
    t = L.tensor([0, 1, 4, 3, 2, -100])
    return L.nn.functional.cross_entropy(x, t, label_smoothing=0.1), (x,)

CASES = {k[5:]: v for k, v in dict(globals()).items() if k.startswith("case_")}
# (case, index of a result) pairs equal to torch's bit for bit on both dtypes
EXACT_FORWARD = {"conv2d", "conv1d", "maxpool", "maxpool_ov", "maxpool1d", "avgpool",
                 "avgpool1d", "aavg", "amax", "ln", "ln_mixed", "gn", "bn_mixed", "bn_eval",
                 "nll", "nll_w", "ce"}
WIDE = {("ln", 1), ("ln", 2), ("ln_mixed", 1), ("ln_mixed", 2)}


def _outcome(lib, name, dt):
    r = CASES[name](lib, getattr(lib, dt), np.random.RandomState(0))
    y, ins = r[0], r[1]
    extra = r[2] if len(r) > 2 else ()
    gy = lib.tensor(np.cos(np.arange(y.numel())).reshape(tuple(y.shape)), dtype=lib.float32)
    grads = lib.autograd.grad(y, ins, gy.to(y.dtype))

    def f(t):
        return t.detach().float().numpy()

    names = [str(g.dtype).split(".")[-1] for g in grads]
    return ((str(y.dtype).split(".")[-1], type(y.grad_fn).__name__, names),
            f(y), [f(g) for g in grads], [f(e) for e in extra])


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_reduced_layer_matches_torch(torch, name, dt):
    t_meta, t_y, t_g, t_extra = _outcome(torch, name, dt)
    g_meta, g_y, g_g, g_extra = _outcome(gradtrack, name, dt)
    assert g_meta == t_meta
    ulp = 2.0**-10 if dt == "float16" else 2.0**-7
    if name in EXACT_FORWARD:
        np.testing.assert_array_equal(g_y, t_y)
    else:
        np.testing.assert_allclose(g_y, t_y, rtol=ulp, atol=ulp)
    for i, (a, b) in enumerate(zip(g_g, t_g)):
        k = 6 if (name, i) in WIDE else 1
        np.testing.assert_allclose(a, b, rtol=k * ulp, atol=k * ulp, err_msg=f"grad {i}")
    for a, b in zip(g_extra, t_extra):  # running statistics
        np.testing.assert_allclose(a, b, rtol=ulp, atol=ulp)


ERRORS = {
    "bn_float_running": lambda L, x: L.nn.functional.batch_norm(
        x, L.zeros(3), L.ones(3), L.ones(3, dtype=x.dtype), L.zeros(3, dtype=x.dtype), True),
    "bn_float_weight": lambda L, x: L.nn.functional.batch_norm(
        x, L.zeros(3, dtype=x.dtype), L.ones(3, dtype=x.dtype), L.ones(3), L.zeros(3), True),
    "ln_float_weight_reduced_bias": lambda L, x: L.nn.functional.layer_norm(
        x, (5,), L.ones(5), L.zeros(5, dtype=x.dtype)),
    "ln_reduced_weight_float_bias": lambda L, x: L.nn.functional.layer_norm(
        x, (5,), L.ones(5, dtype=x.dtype), L.zeros(5)),
    "ln_double_weight": lambda L, x: L.nn.functional.layer_norm(
        x, (5,), L.ones(5, dtype=L.float64)),
    "conv_float_weight": lambda L, x: L.nn.functional.conv1d(x, L.ones(2, 3, 2)),
    "nll_float_weight": lambda L, x: L.nn.functional.nll_loss(
        x[:, :, 0], L.tensor([0, 1, 2, 0]), weight=L.ones(3)),
}


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
@pytest.mark.parametrize("case", sorted(ERRORS))
def test_reduced_layer_dtype_errors_match_torch(torch, case, dt):
    def message(lib):
        x = lib.ones(4, 3, 5, dtype=getattr(lib, dt))
        with pytest.raises(RuntimeError) as info:
            ERRORS[case](lib, x)
        return str(info.value)

    assert message(gradtrack) == message(torch)


RESAMPLE = {
    "reflect": lambda F, x: F.pad(x, (2, 1, 1, 2), mode="reflect"),
    "replicate": lambda F, x: F.pad(x, (2, 1, 1, 2), mode="replicate"),
    "circular": lambda F, x: F.pad(x, (2, 1, 1, 2), mode="circular"),
    "nearest": lambda F, x: F.interpolate(x, scale_factor=2, mode="nearest"),
    "bilinear": lambda F, x: F.interpolate(x, size=(7, 9), mode="bilinear"),
    "bilinear_align": lambda F, x: F.interpolate(x, size=(7, 9), mode="bilinear",
                                                 align_corners=True),
    "bicubic": lambda F, x: F.interpolate(x, size=(7, 9), mode="bicubic"),
}


def _resampled(lib, dt, kind):
    x = lib.tensor(np.random.RandomState(0).randn(1, 2, 5, 6), dtype=lib.float32)
    x = x.to(getattr(lib, dt)).requires_grad_()
    y = RESAMPLE[kind](lib.nn.functional, x)
    gy = lib.tensor(np.cos(np.arange(y.numel())).reshape(tuple(y.shape)), dtype=lib.float32)
    g, = lib.autograd.grad(y, x, gy.to(y.dtype))
    meta = (str(y.dtype).split(".")[-1], type(y.grad_fn).__name__, str(g.dtype).split(".")[-1])
    return meta, y.detach().float().numpy(), g.float().numpy()


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
@pytest.mark.parametrize("kind", sorted(RESAMPLE))
def test_reduced_padding_and_interpolation_match_torch(torch, kind, dt):
    # Padding and nearest copy bit for bit; the weighted modes resample in float and
    # round once (torch's gradient sums round along the way: within an ulp).
    t_meta, t_y, t_g = _resampled(torch, dt, kind)
    g_meta, g_y, g_g = _resampled(gradtrack, dt, kind)
    assert g_meta == t_meta
    ulp = 2.0**-10 if dt == "float16" else 2.0**-7
    np.testing.assert_allclose(g_y, t_y, rtol=ulp, atol=ulp)
    np.testing.assert_allclose(g_g, t_g, rtol=ulp, atol=ulp)
    if kind != "bicubic":
        np.testing.assert_array_equal(g_y, t_y)


# The mixed type (a reduced input, float32 parameters, as autocast leaves a BatchNorm)
# keeps its statistics in float32, saved and returned: rounded to bfloat16 they put the
# float32 weight gradient 0.2% from torch's.
MIXED_NORMS = {
    "batch_norm": lambda L, x, w, b: L.native_batch_norm(x, w, b, None, None, True, 0.1, 1e-5),
    "batch_norm_running": lambda L, x, w, b: L.native_batch_norm(
        x, None, None, L.zeros(4), L.ones(4), True, 0.1, 1e-5),
    "layer_norm": lambda L, x, w, b: L.native_layer_norm(x.transpose(1, 3), [4], w, b, 1e-5),
    "group_norm": lambda L, x, w, b: L.native_group_norm(x, w, b, 4, 4, 64, 2, 1e-5),
}


def _mixed_norm(L, case, dt):
    rng = np.random.RandomState(0)
    x = L.tensor(rng.randn(4, 4, 8, 8), dtype=L.float32).to(getattr(L, dt))
    w = L.tensor(rng.rand(4), dtype=L.float32).requires_grad_()
    b = L.tensor(rng.rand(4), dtype=L.float32).requires_grad_()
    out, mean, rstd = MIXED_NORMS[case](L, x, w, b)
    up = L.tensor(np.cos(np.arange(out.numel())).reshape(tuple(out.shape)), dtype=L.float32)
    up = up.to(out.dtype)
    used = [t for t in (w, b) if case != "batch_norm_running"]
    grads = L.autograd.grad(out, used, up) if used else ()
    return ([str(t.dtype).split(".")[-1] for t in (out, mean, rstd)], mean.detach().numpy(),
            rstd.detach().numpy(), [g.numpy() for g in grads],
            x.double().numpy(), up.double().numpy())


def _float64_parameter_grads(case, x, up):
    """The weight and bias gradients in float64: sums of up * xhat and of up per channel."""
    if case == "layer_norm":
        x = x.transpose(0, 3, 2, 1)  # as the op sees it: the channel dim last
        xhat = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)
        return (up * xhat).sum((0, 1, 2)), up.sum((0, 1, 2))
    g = x.reshape(4, 2, -1) if case == "group_norm" else x.transpose(1, 0, 2, 3).reshape(4, -1)
    xhat = (g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + 1e-5)
    xhat = xhat.reshape(x.shape) if case == "group_norm" else \
        xhat.reshape(4, 4, 8, 8).transpose(1, 0, 2, 3)
    return (up * xhat).sum((0, 2, 3)), up.sum((0, 2, 3))


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
@pytest.mark.parametrize("case", sorted(MIXED_NORMS))
def test_mixed_type_norms_keep_float32_statistics(torch, case, dt):
    names, mean, rstd, grads, x, up = _mixed_norm(gradtrack, case, dt)
    t_names, t_mean, t_rstd, t_grads, _, _ = _mixed_norm(torch, case, dt)
    assert names == t_names
    np.testing.assert_allclose(mean, t_mean, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(rstd, t_rstd, rtol=1e-6)
    # torch's mixed layer norm rounds its parameter gradients to the input's precision
    # (0.3% from float64 at float16); gradtrack's are float32 sums, as its batch and group
    # norms': all are held to the float64 result
    for g, tg, ref in zip(grads, t_grads, _float64_parameter_grads(case, x, up)):
        np.testing.assert_allclose(g, ref, rtol=1e-5, atol=1e-5)
        if case != "layer_norm":
            np.testing.assert_allclose(g, tg, rtol=2e-5, atol=1e-5)
