"""add and sub with alpha round a + alpha * b once, as torch's kernels do.

torch 2.13 computes ``a + alpha * b`` for float32 and float64 as a fused multiply-add on
every path (dense, strided, broadcast, a number operand, in place, ``out=``), and its SGD
steps are such adds. The exact reference here is the product and sum taken without
rounding: in float64 for float32 inputs (a float32 product is exact there), in fractions
for float64 ones.
"""

from fractions import Fraction

import numpy as np
import pytest

import gradtrack

torch = pytest.importorskip("torch")

ALPHAS = (3, 0.1, -1.7)


def fused32(a, b, alpha):
    """float32 a + alpha * b rounded once (alpha read as float32, as the kernel does)."""
    wide = a.astype(np.float64) + np.float64(np.float32(alpha)) * np.asarray(b, np.float64)
    return wide.astype(np.float32)


def fused64(a, b, alpha):
    exact = [Fraction(x) + Fraction(alpha) * Fraction(y) for x, y in zip(a.ravel(), b.ravel())]
    return np.array([float(v) for v in exact]).reshape(a.shape)


def draw(shape, dtype, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def same_bits(got, want):
    got, want = np.ascontiguousarray(got), np.ascontiguousarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(got.view(np.uint8), want.view(np.uint8)), int((got != want).sum())


@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("layout", ["dense", "odd_length", "transposed", "broadcast"])
def test_float32_add_and_sub_round_once(alpha, layout):
    a, b = draw((64, 33), np.float32, 0), draw((64, 33), np.float32, 1)
    if layout == "odd_length":
        a, b = a.ravel()[:2047], b.ravel()[:2047]
    for lib in (gradtrack, torch):
        x, y = lib.tensor(a), lib.tensor(b)
        if layout == "transposed":
            x, y = x.t(), y.t()
        if layout == "broadcast":
            y = y[0]
        want_b = y.numpy()
        want_add = fused32(x.numpy(), want_b, alpha)
        want_sub = fused32(x.numpy(), want_b, -alpha)
        same_bits(lib.add(x, y, alpha=alpha).numpy(), want_add)
        same_bits(lib.sub(x, y, alpha=alpha).numpy(), want_sub)
        same_bits(x.clone().add_(y, alpha=alpha).numpy(), want_add)
        same_bits(x.clone().sub_(y, alpha=alpha).numpy(), want_sub)
        out = lib.empty_like(x)
        lib.add(x, y, alpha=alpha, out=out)
        same_bits(out.numpy(), want_add)
        # rsub(x, y) is y - alpha * x
        same_bits(lib.rsub(x, y, alpha=alpha).numpy(), fused32(np.broadcast_to(want_b, x.shape),
                                                                x.numpy(), -alpha))


@pytest.mark.parametrize("alpha", ALPHAS)
def test_float32_number_operand_rounds_once(alpha):
    # 1024 elements: torch's vector loop takes 32 (or 16) at a time and its scalar loop
    # the rest, where the compiler rounds the loop-invariant alpha * b first; those
    # last few elements of a row can differ from the fused sum by a bit. gradtrack fuses
    # every element.
    a = draw(1024, np.float32, 2)
    for lib in (gradtrack, torch):
        x = lib.tensor(a)
        want = fused32(a, np.float32(2.7), alpha)
        same_bits(lib.add(x, 2.7, alpha=alpha).numpy(), want)
        same_bits(x.clone().add_(2.7, alpha=alpha).numpy(), want)
        same_bits(x.clone().sub_(2.7, alpha=alpha).numpy(), fused32(a, np.float32(2.7), -alpha))
        same_bits(lib.sub(x, 2.7, alpha=alpha).numpy(), fused32(a, np.float32(2.7), -alpha))


@pytest.mark.parametrize("alpha", (0.1, 3.0))
def test_float64_add_and_sub_round_once(alpha):
    a, b = draw(500, np.float64, 3), draw(500, np.float64, 4)
    for lib in (gradtrack, torch):
        x, y = lib.tensor(a), lib.tensor(b)
        same_bits(lib.add(x, y, alpha=alpha).numpy(), fused64(a, b, alpha))
        same_bits(lib.sub(x, y, alpha=alpha).numpy(), fused64(a, b, -alpha))
        same_bits(x[::2].add(y[::2], alpha=alpha).numpy(), fused64(a[::2], b[::2], alpha))


def test_an_infinite_sum_stays_infinite():
    # 3 * -3.4e38 overflows float32 on its own; rounded once the sum is +inf, not NaN
    for lib in (gradtrack, torch):
        got = lib.add(lib.tensor([float("inf")] * 20), lib.tensor([-3.4e38] * 20), alpha=3)
        assert got.isinf().all().item() and (got > 0).all().item()


def test_integer_alpha_multiplies_and_adds():
    for lib in (gradtrack, torch):
        got = lib.add(lib.arange(10), lib.arange(10), alpha=3)
        assert got.tolist() == [4 * i for i in range(10)]


SGD_SETTINGS = [
    dict(lr=0.1),
    dict(lr=0.05, momentum=0.9),
    dict(lr=0.05, momentum=0.9, dampening=0.3, weight_decay=0.01),
    dict(lr=0.01, momentum=0.8, nesterov=True, weight_decay=0.1),
    dict(lr=0.02, momentum=0.5, maximize=True),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("transposed", [False, True], ids=["dense", "transposed"])
@pytest.mark.parametrize("settings", SGD_SETTINGS, ids=lambda s: "-".join(s))
def test_sgd_steps_give_torchs_bits(dtype, transposed, settings):
    start = draw((24, 17), np.dtype(dtype), 5)
    grads = [draw((24, 17), np.dtype(dtype), 10 + k) for k in range(4)]
    params = {}
    for lib in (gradtrack, torch):
        p = lib.tensor(start.T.copy() if transposed else start)
        p = (p.t() if transposed else p).detach().requires_grad_()
        opt = lib.optim.SGD([p], **settings)
        for g in grads:
            p.grad = lib.tensor(g)
            opt.step()
        params[lib.__name__] = p.detach().numpy()
    same_bits(params["gradtrack"], params["torch"])
