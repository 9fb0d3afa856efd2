"""Float32 add, mul and relu on dense runs take cloned vector kernels
(csrc/kernels/simd.cpp); scalar sides and strided runs take the generic loops.
Each must give numpy's float32 results bit for bit, in and out of place."""

import numpy as np
import pytest

import gradtrack


@pytest.mark.parametrize("n", [1, 7, 64, 1000, 100003])
def test_dense_add_mul_relu_match_numpy_bit_for_bit(n):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    specials = np.array([np.nan, -0.0, np.inf, -np.inf, 0.0], np.float32)[:n]
    x[np.linspace(0, n - 1, specials.size).astype(int)] = specials
    a, b = gradtrack.from_numpy(x.copy()), gradtrack.from_numpy(y.copy())
    for got, want in ((a + b, x + y), (a * b, x * y), (a.relu(), np.where(x < 0, 0, x)),
                      (a * 2.5, x * np.float32(2.5)), (a[::2] + b[::2], x[::2] + y[::2])):
        assert np.array_equal(got.numpy().view(np.uint32), want.astype(np.float32).view(np.uint32))
    c = gradtrack.from_numpy(x.copy())
    c.mul_(c)  # the output is both inputs
    c.add_(c)
    assert np.array_equal(c.numpy(), (x * x) + (x * x), equal_nan=True)
