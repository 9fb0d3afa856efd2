"""Two product paths chosen for their rounding: a bmm whose k * m * n is below 400 sums
its products as torch's plain loop does, bit for bit (NOTE [Small bmm products as torch
sums them] in csrc/ops/linalg.cpp), and a float32 dot sums in double (NOTE [A float32
dot in double]), never less accurate than torch's."""

import numpy as np
import pytest

import gradtrack

SHAPES = [(1, 2, 8, 2), (3, 4, 8, 4), (2, 5, 7, 6), (8, 6, 8, 6), (2, 7, 7, 8), (1, 1, 399, 1),
          (4, 3, 16, 8), (2, 1, 1, 1)]


def _products(lib, shape, dtype):
    batch, m, k, n = shape
    rng = np.random.default_rng(sum(shape))
    a = lib.tensor(rng.standard_normal((batch, m, k)).astype(dtype))
    b = lib.tensor(rng.standard_normal((batch, k, n)).astype(dtype))
    a_t = a.transpose(1, 2).contiguous().transpose(1, 2)  # a strided operand
    return [lib.bmm(a, b).numpy(), lib.matmul(a.unsqueeze(0), b.unsqueeze(0)).numpy(),
            lib.bmm(a_t, b).numpy(), (a.unsqueeze(1) @ b.unsqueeze(1)).numpy()]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", SHAPES)
def test_small_bmm_bit_for_bit(torch, shape, dtype):
    for got, want in zip(_products(gradtrack, shape, dtype), _products(torch, shape, dtype)):
        assert np.array_equal(got, want)


def test_small_bmm_gradients_bit_for_bit(torch):
    rng = np.random.default_rng(3)
    a0, b0 = rng.standard_normal((2, 3, 8)), rng.standard_normal((2, 8, 3))
    grads = []
    for lib in (gradtrack, torch):
        a = lib.tensor(a0.astype(np.float32), requires_grad=True)
        b = lib.tensor(b0.astype(np.float32), requires_grad=True)
        (lib.bmm(a, b) * lib.arange(18.0).view(2, 3, 3)).sum().backward()
        grads.append((a.grad.numpy(), b.grad.numpy()))
    assert all(np.array_equal(x, y) for x, y in zip(*grads))


def test_small_bmm_sums_each_product_rounded():
    """Without torch: the loop's value, product by product in float32."""
    a = np.array([[[1e8, 1.0, -1e8, 3.5e-1]]], np.float32)
    b = np.array([[[1.0], [1.0], [1.0], [1.0]]], np.float32)
    want = np.float32(0)
    for x, y in zip(a[0, 0], b[0, :, 0]):
        want = np.float32(want + np.float32(x * y))
    assert gradtrack.bmm(gradtrack.tensor(a), gradtrack.tensor(b)).item() == want


@pytest.mark.parametrize("n", [3, 100, 1000, 100003])
def test_float32_dot_error_at_most_torchs(torch, n):
    rng = np.random.default_rng(n)
    mine = theirs = 0.0
    for _ in range(10):
        a, b = rng.standard_normal((2, n)).astype(np.float32)
        ref = np.dot(a.astype(np.float64), b.astype(np.float64))
        scale = np.abs(a.astype(np.float64) * b).sum()
        mine += abs(gradtrack.dot(gradtrack.tensor(a), gradtrack.tensor(b)).item() - ref) / scale
        theirs += abs(torch.dot(torch.tensor(a), torch.tensor(b)).item() - ref) / scale
    assert mine <= theirs


def test_float32_dot_is_the_double_sum_rounded_once():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 1001)).astype(np.float32)
    want = np.float32(np.dot(a.astype(np.float64), b.astype(np.float64)))
    got = gradtrack.dot(gradtrack.tensor(a), gradtrack.tensor(b)).item()
    assert abs(got - want) <= np.spacing(want)  # the lanes' order may differ in the last bit
    strided = gradtrack.tensor(np.stack([a, b]).T.copy())  # columns: stride 2
    assert gradtrack.dot(strided[:, 0], strided[:, 1]).item() == got
