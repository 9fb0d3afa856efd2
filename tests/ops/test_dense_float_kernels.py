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


def _ceil_log2(x):
    return 1 if x <= 2 else int(x - 1).bit_length()


def _items_sum(items):
    """The four-way, four-level cascade over ``items`` (numbers or numpy lanes),
    every addition in their dtype (NOTE [PyTorch's summation order])."""
    groups = len(items) // 4
    power = max(4, _ceil_log2(groups) // 4)
    step, mask = 1 << power, (1 << power) - 1
    zero = items[0] * 0 if len(items) else 0
    acc = [[zero] * 4 for _ in range(4)]
    g = 0
    while g + step <= groups:
        for _ in range(step):
            acc[0] = [acc[0][k] + items[4 * g + k] for k in range(4)]
            g += 1
        for level in range(1, 4):
            acc[level] = [acc[level][k] + acc[level - 1][k] for k in range(4)]
            acc[level - 1] = [zero] * 4
            if g & (mask << (level * power)):
                break
    for g in range(g, groups):
        acc[0] = [acc[0][k] + items[4 * g + k] for k in range(4)]
    for level in range(1, 4):
        acc[0] = [acc[0][k] + acc[level][k] for k in range(4)]
    part = acc[0]
    for item in items[4 * groups:]:
        part[0] = part[0] + item
    return part[0] + part[1] + part[2] + part[3]


def _torch_order_sum(x, lanes):
    """One contiguous run summed as PyTorch's CPU kernel does with vectors of
    ``lanes`` elements (single thread)."""
    zero = x.dtype.type(0)
    if x.size < lanes:
        return zero + _items_sum(list(x))
    vectors = x.size // lanes
    v = _items_sum([x[i * lanes:(i + 1) * lanes] for i in range(vectors)])
    total = zero
    for e in x[vectors * lanes:]:
        total = total + e
    for e in v:
        total = total + e
    return zero + total


# Float sums over contiguous runs follow PyTorch's order, bit for bit: the
# model above, and torch itself on the same machine.
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("rows,length", [(1, 70001), (3, 4097), (37, 257), (5, 63), (300, 64),
                                         (4, 5), (2, 20000)])
def test_dense_sum_and_row_sums_follow_torch_order_bit_for_bit(torch, dtype, rows, length):
    x = np.random.default_rng(length).standard_normal((rows, length)).astype(dtype) * 3
    a = gradtrack.from_numpy(x.copy())
    lanes = 32 // x.itemsize  # 32-byte vectors, with or without AVX-512
    want = np.array([_torch_order_sum(r, lanes) for r in x]).astype(dtype)
    assert np.array_equal(a.sum(dim=1).numpy(), want)
    assert np.array_equal(a.sum(dim=-1, keepdim=True).numpy()[:, 0], want)
    assert np.array_equal(a.mean(dim=1).numpy(), (want / length).astype(dtype))
    assert a[0].sum().item() == float(want[0])
    t = torch.from_numpy(x.copy())
    assert np.array_equal(a.sum(dim=1).numpy(), t.sum(dim=1).numpy())
    assert np.array_equal(a.mean(dim=1).numpy(), t.mean(dim=1).numpy())
    # the whole tensor, cut into one chunk per thread from 32768 elements on
    mine, theirs = gradtrack.get_num_threads(), torch.get_num_threads()
    for threads in (1, 2, 3):
        gradtrack.set_num_threads(threads)
        torch.set_num_threads(threads)
        try:
            assert a.sum().item() == t.sum().item()
            assert a.mean().item() == t.mean().item()
        finally:
            gradtrack.set_num_threads(mine)
            torch.set_num_threads(theirs)
    # strided rows (a column sum of the transpose) stay within rounding of torch's
    tol = dict(rtol=1e-5, atol=1e-4)
    assert np.allclose(a.t().sum(dim=0).numpy(), t.t().sum(dim=0).numpy(), **tol)
    assert np.allclose(a.t().sum(dim=1).numpy(), t.t().sum(dim=1).numpy(), **tol)


def _straight_sum(items):
    """The one-way cascade (one running sum, four levels) PyTorch's column sums take."""
    power = max(4, _ceil_log2(len(items)) // 4)
    step, mask = 1 << power, (1 << power) - 1
    zero = items[0] * 0
    acc = [zero] * 4
    i = 0
    while i + step <= len(items):
        for _ in range(step):
            acc[0] = acc[0] + items[i]
            i += 1
        for level in range(1, 4):
            acc[level] = acc[level] + acc[level - 1]
            acc[level - 1] = zero
            if i & (mask << (level * power)):
                break
    for item in items[i:]:
        acc[0] = acc[0] + item
    return ((acc[0] + acc[1]) + acc[2]) + acc[3]


def _torch_order_column_sums(x, threads):
    """x.sum(0) of a C-contiguous matrix as PyTorch's outer-sum loop takes it: per share
    of columns (two threads split them from 32768 elements on, at multiples of 128
    bytes), blocks of 4 vectors of columns straight, the other columns as rows are."""
    rows, cols = x.shape
    lanes = 32 // x.itemsize
    zero = x.dtype.type(0)
    out = np.zeros(cols, x.dtype)
    shares = [(0, cols)]
    if rows * cols >= 32768 and threads > 1 and cols > 1:
        used = min(threads, cols)
        chunk = -(-cols // used)
        rnd = 128 // x.itemsize
        shares = []
        for t in range(used):
            lo, hi = t * chunk, min(cols, t * chunk + chunk)
            if lo < hi:
                lo -= lo % rnd
                hi = hi if hi == cols else hi - hi % rnd
                shares.append((lo, hi))
    for lo, hi in shares:
        width = hi - lo
        straight = width // (4 * lanes) * 4 * lanes if width >= lanes else width // 4 * 4
        for j in range(lo, hi):
            col = list(x[:, j])
            out[j] = zero + (_straight_sum(col) if j - lo < straight else _items_sum(col))
    return out


# Column sums (a dense kept dim after the reduced one: a Linear layer's bias
# gradient) follow PyTorch's outer-sum order, bit for bit, at 1 and 2 threads.
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("rows,cols", [(64, 16), (7, 33), (5, 8), (300, 3), (17, 5), (2, 70),
                                       (1000, 64), (1100, 33), (256, 130), (40000, 6), (9, 4),
                                       (600, 100)])
def test_column_sums_follow_torch_order_bit_for_bit(torch, threads, dtype, rows, cols):
    x = np.random.default_rng(rows * cols).standard_normal((rows, cols)).astype(dtype) * 3
    mine, theirs = gradtrack.get_num_threads(), torch.get_num_threads()
    gradtrack.set_num_threads(threads)
    torch.set_num_threads(threads)
    try:
        a, t = gradtrack.from_numpy(x.copy()), torch.from_numpy(x.copy())
        got = a.sum(dim=0).numpy()
        assert np.array_equal(got, t.sum(dim=0).numpy())
        assert np.array_equal(a.mean(dim=0).numpy(), t.mean(dim=0).numpy())
        assert np.array_equal(a.reshape(rows, 1, cols).sum(0).numpy()[0], got)
    finally:
        gradtrack.set_num_threads(mine)
        torch.set_num_threads(theirs)
    if rows * cols < 5000:  # the pure-Python model is slow
        assert np.array_equal(got, _torch_order_column_sums(x, threads))
    np.testing.assert_allclose(got, x.astype(np.float64).sum(0), rtol=1e-4, atol=1e-3)


# float32 exp works on 32-byte vectors on AVX2 in blocks of 1024 (every
# length's tail, and a block holding an out-of-range element next to blocks
# that hold none), and with AVX-512 on two 16-float vectors per step with a
# masked tail.
@pytest.mark.parametrize("n", [1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 1023, 1025, 2049, 3000])
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


def _exp_ulp_error(got, x):
    """|got - exp(x)| in units of the float32 spacing at the correctly rounded
    result (subnormal spacing below 2**-126); NaN where that result is inf."""
    with np.errstate(over="ignore", invalid="ignore"):  # overflow; NaN payloads widened
        exact = np.exp(x.astype(np.float64))
        rounded = exact.astype(np.float32)
        err = np.abs(got.astype(np.float64) - exact) / np.spacing(rounded).astype(np.float64)
    return np.where(np.isinf(rounded), np.nan, err), rounded


def _exp_inputs(n, seed):
    """Normal, wide and edge inputs: the overflow and underflow thresholds,
    subnormal results, infinities, NaN and signed zeros, randomly placed."""
    rng = np.random.default_rng(seed)
    x = np.concatenate([rng.standard_normal(n // 4) * 3, rng.uniform(-110, 95, n // 4),
                        rng.uniform(-104, -87, n // 8), rng.uniform(88, 89, n // 8)])
    bits = rng.integers(0, 2**32, n - x.size, dtype=np.uint64).astype(np.uint32)
    x = np.concatenate([x.astype(np.float32), bits.view(np.float32)])  # any pattern: NaNs, huge
    edges = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 88.72283, 88.72284, 88.7229,
                      -87.33654, -87.3366, -103.27893, -103.972084, -103.97209, -104.0, -1e30,
                      1e30, 3.4e38, -3.4e38, 1e-30, -1e-45], np.float32)
    x[rng.choice(x.size, edges.size, replace=False)] = edges
    return x


# The AVX-512 kernel handles every input itself (no scalar redo): overflow to
# inf, subnormal and zero results, NaN, inf, at 1 and 2 threads (the second
# thread's run starts mid-vector), in and out of place; within 2 ulp of the
# float64 result, and of torch's.
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("n", [100, 65536, 100003])
def test_float32_exp_edges_threads_match_float64_and_torch(torch, threads, n):
    x = _exp_inputs(n, n + threads)
    mine, theirs = gradtrack.get_num_threads(), torch.get_num_threads()
    gradtrack.set_num_threads(threads)
    torch.set_num_threads(threads)
    try:
        got = gradtrack.from_numpy(x.copy()).exp().numpy()
        inplace = gradtrack.from_numpy(x.copy())
        inplace.exp_()
        want_torch = torch.from_numpy(x.copy()).exp().numpy()
    finally:
        gradtrack.set_num_threads(mine)
        torch.set_num_threads(theirs)
    assert np.array_equal(got.view(np.uint32), inplace.numpy().view(np.uint32))
    err, rounded = _exp_ulp_error(got, x)
    nan = np.isnan(x)
    assert np.all(np.isnan(got[nan]))
    assert np.nanmax(err[~nan]) <= 2.0
    overflow = np.isinf(rounded) & ~nan
    assert np.all(got[overflow] == np.inf)
    assert np.all(got[(rounded == 0) & ~nan] <= np.float32(2.0**-148))  # 0 or the last subnormal
    assert np.all(got[x == -np.inf] == 0.0) and np.all(got[x == 0] == 1.0)
    # torch is within 1 ulp as well: the two agree to a few ulp, NaN for NaN
    assert np.allclose(got, want_torch, rtol=4e-7, atol=3 * 2.0**-149, equal_nan=True)


# A dense sweep of the range where results are finite and non-zero, every
# 997th float from -104 to 89: the kernel's table index and exponent step
# through all their values.
def test_float32_exp_sweep_within_two_ulp():
    lo, hi = np.float32(-104.0).view(np.int32), np.float32(89.0).view(np.int32)
    neg = np.arange(np.float32(-0.0).view(np.int32), lo, 997, dtype=np.int64)
    pos = np.arange(0, hi, 997, dtype=np.int64)
    x = np.concatenate([neg, pos]).astype(np.int32).view(np.float32)
    err, _ = _exp_ulp_error(gradtrack.from_numpy(x.copy()).exp().numpy(), x)
    assert np.nanmax(err) <= 2.0
