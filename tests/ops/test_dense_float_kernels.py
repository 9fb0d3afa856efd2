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


def _cascade_sum(x):
    """The dense sum kernel's order, in numpy: blocks of 4096, each summed over
    4 vectors of 64 bytes in x's precision (lane k of 4w takes elements k,
    k + 4w, ...), folded as (s0 + s1) + (s2 + s3) then halved down to one
    lane; the block's tail and the block totals add in double."""
    w = 64 // x.itemsize
    acc = 0.0
    for start in range(0, x.size, 4096):
        blk = x[start:start + 4096]
        full = blk.size // (4 * w) * (4 * w)
        lanes = np.zeros(4 * w, x.dtype)
        for row in blk[:full].reshape(-1, 4 * w):
            lanes = lanes + row
        s = (lanes[0:w] + lanes[w:2 * w]) + (lanes[2 * w:3 * w] + lanes[3 * w:])
        while s.size > 1:
            s = s[: s.size // 2] + s[s.size // 2:]
        tail = 0.0
        for v in blk[full:]:
            tail += float(v)
        acc += float(s[0]) + tail
    return acc


# The sum kernel keeps its 64-byte lanes as 32-byte chains (AVX2 has no 64-byte
# registers); the order of additions, and so every bit, must stay the same.
# Row sums (one kept, one reduced dim) take their own loop over rows.
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("rows,length", [(1, 70001), (3, 4097), (37, 257), (5, 63), (300, 64)])
def test_dense_sum_and_row_sums_follow_the_cascade_bit_for_bit(torch, dtype, rows, length):
    x = np.random.default_rng(length).standard_normal((rows, length)).astype(dtype) * 3
    a = gradtrack.from_numpy(x.copy())
    want = np.array([_cascade_sum(r) for r in x]).astype(dtype)
    threads = gradtrack.get_num_threads()
    gradtrack.set_num_threads(1)  # a single row's sum is split across threads
    try:
        assert np.array_equal(a.sum(dim=1).numpy(), want)
        assert np.array_equal(a.sum(dim=-1, keepdim=True).numpy()[:, 0], want)
        assert np.array_equal(a.mean(dim=1).numpy(), (want / length).astype(dtype))
        assert a[0].sum().item() == float(want[0])
    finally:
        gradtrack.set_num_threads(threads)
    assert a.sum().item() == pytest.approx(float(x.astype(np.float64).sum()), rel=1e-5)
    # Strided rows (a column sum of the transpose) and torch's values.
    t = torch.from_numpy(x.copy())
    tol = dict(rtol=1e-5, atol=1e-4)
    assert np.allclose(a.t().sum(dim=0).numpy(), t.t().sum(dim=0).numpy(), **tol)
    assert np.allclose(a.t().sum(dim=1).numpy(), t.t().sum(dim=1).numpy(), **tol)
    assert np.allclose(a.sum(dim=1).numpy(), t.sum(dim=1).numpy(), **tol)


# float32 exp works on 32-byte vectors on AVX2 (64-byte ones only with
# AVX-512) in blocks of 1024: every length's tail, and a block holding an
# out-of-range element next to blocks that hold none.
@pytest.mark.parametrize("n", [1, 7, 8, 9, 17, 1023, 1025, 2049, 3000])
def test_float32_exp_tails_and_blocks_within_two_ulp(n):
    x = np.random.default_rng(n).uniform(-80, 80, n).astype(np.float32)
    if n > 2048:
        x[1500] = 100.0  # the second block falls back to std::exp; the others do not
    got = gradtrack.from_numpy(x.copy()).exp().numpy()
    exact = np.exp(x.astype(np.float64))
    finite = exact < float(np.finfo(np.float32).max)
    ulp = np.spacing(exact[finite].astype(np.float32)).astype(np.float64)
    assert np.max(np.abs(got[finite] - exact[finite]) / ulp) <= 2.0
    assert np.all(got[~finite] == np.inf)
