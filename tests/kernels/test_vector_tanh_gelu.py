"""tanh and gelu of float32 take vector loops (NOTE [Vector tanh and gelu] in
csrc/kernels/simd_math.cpp) instead of libm per element. Their last bits may differ from
libm's and torch's (SLEEF's), so they are held to float64: tanh within 1 ulp, as torch's;
gelu within 2 ulp where torch's formula holds up, and within a few on the negative tail,
where torch's 1 + erf(x) cancels. Special values and signed zeros as torch's; every
length around the block and vector widths; results written over the input; views, whose
strided runs take the same kernel; the LSTM, whose cells take the same tanh."""

import math

import numpy as np
import pytest

import gradtrack

_erfc = np.frompyfunc(math.erfc, 1, 1)


def _gelu64(x):
    return 0.5 * x * _erfc(-x / math.sqrt(2)).astype(np.float64)


def _gelu_grad64(x):
    return 0.5 * _erfc(-x / math.sqrt(2)).astype(np.float64) + x * np.exp(-x * x / 2) / math.sqrt(
        2 * math.pi)


def _ulps(got, ref):
    """|got - ref| in units of the float32 spacing at ref."""
    spacing = np.spacing(np.abs(ref).astype(np.float32)).astype(np.float64)
    return np.abs(np.asarray(got, dtype=np.float64) - ref) / spacing


def _sample(seed, n=200_000, scale=4.0):
    """Normal values, a dense walk over every magnitude from 1e-30 to 20 with both signs,
    and the floats next to the switch points (tanh's 0.625, gelu's |x| = sqrt 2)."""
    rng = np.random.default_rng(seed)
    normal = rng.standard_normal(n).astype(np.float32) * np.float32(scale)
    lo, hi = np.float32(1e-30).view(np.int32), np.float32(20.0).view(np.int32)
    walk = np.arange(lo, hi, 4099, dtype=np.int32).view(np.float32)
    edges = [np.float32(0.625), np.float32(math.sqrt(2)), np.float32(1.0)]
    near = np.concatenate([np.arange(e.view(np.int32) - 50, e.view(np.int32) + 50,
                                     dtype=np.int32).view(np.float32) for e in edges])
    v = np.concatenate([normal, walk, near])
    return np.concatenate([v, -v])


def _bits(values):
    a = np.asarray(values, dtype=np.float64).reshape(-1)
    return [("nan",) if x != x else (float(x), bool(np.signbit(x))) for x in a]


SPECIAL = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 1e-38, -1e-38, 1e-30,
                    0.625, -0.625, 1.4142135, -1.4142135, 9.0, -9.0, 15.5, -15.5, 16.0, -16.0,
                    44.0, -44.0, 88.0, -88.0, 1e30, -1e30, 3.4e38, -3.4e38], dtype=np.float32)


def test_tanh_within_one_ulp_of_float64():
    x = _sample(1)
    err = _ulps(gradtrack.tensor(x).tanh().numpy(), np.tanh(x.astype(np.float64)))
    assert err.max() <= 1.0
    assert err.mean() <= 0.3


def test_gelu_within_ulps_of_float64():
    x = _sample(2)
    got = gradtrack.nn.functional.gelu(gradtrack.tensor(x)).numpy()
    err = _ulps(got, _gelu64(x.astype(np.float64)))
    # torch: up to 2.1 ulp for x > -0.5, 6 near -1.4 (z = x / sqrt 2 rounded), then
    # without bound
    assert err[x > -0.5].max() <= 2.0
    assert err[x > -1.4].max() <= 4.0
    assert err.max() <= 10.0
    assert err.mean() <= 0.6


def test_gelu_keeps_digits_where_torchs_formula_cancels():
    # 1 + erf(x / sqrt 2) is 0 in float from x = -5.6: torch gives -0 there.
    x = np.array([-6.0, -8.0, -12.0], dtype=np.float32)
    got = gradtrack.nn.functional.gelu(gradtrack.tensor(x)).numpy()
    assert np.all(_ulps(got, _gelu64(x.astype(np.float64))) <= 10.0)
    assert np.all(got < 0)


@pytest.mark.parametrize("name", ["tanh", "gelu", "gelu_tanh"])
def test_special_values_as_torch(name):
    torch = pytest.importorskip("torch")
    fn = {"tanh": lambda L, t: t.tanh(),
          "gelu": lambda L, t: L.nn.functional.gelu(t),
          "gelu_tanh": lambda L, t: L.nn.functional.gelu(t, approximate="tanh")}[name]
    a = np.concatenate([SPECIAL] * 3)  # some in full vectors, some in the tail
    got = fn(gradtrack, gradtrack.tensor(a)).numpy().astype(np.float64)
    expected = fn(torch, torch.tensor(a)).numpy().astype(np.float64)
    kept = np.zeros(len(a), dtype=bool)
    if name == "gelu":
        # torch's gelu is -0 where its 1 + erf(x / sqrt 2) cancels (x < -5.6); gelu is
        # kept. Its float32 vector kernel gives NaN at +inf and inf at 3.4e38 (x * 0.5 *
        # (1 + erf) overflows); its float64 and strided ones give inf and 3.4e38, as here.
        kept = (a < -5) & (expected == 0)
        big = a > 1e38
        wide = fn(torch, torch.tensor(a[big], dtype=torch.float64)).numpy()
        assert np.array_equal(got[big], wide.astype(np.float32).astype(np.float64))
        expected[big] = got[big]
    assert np.array_equal(np.isnan(got), np.isnan(expected))
    both = ~np.isnan(got) & ~kept
    assert np.array_equal(np.signbit(got[both]), np.signbit(expected[both]))
    with np.errstate(invalid="ignore"):
        close = (got == expected) | (np.abs(got - expected) <= 2 * np.spacing(
            np.abs(expected).astype(np.float32)).astype(np.float64))
    assert close[both].all()
    assert np.all(np.signbit(got[kept])) and np.all(got[kept & (a > -12)] < 0)


def test_gelu_tanh_close_to_torch():
    torch = pytest.importorskip("torch")
    x = _sample(3, n=100_000)
    got = gradtrack.nn.functional.gelu(gradtrack.tensor(x), approximate="tanh").numpy()
    expected = torch.nn.functional.gelu(torch.tensor(x), approximate="tanh").numpy()
    # the same formula; where 1 + tanh cancels, an ulp of tanh near -1 is 2^-24 * |x|/2
    bound = 4 * np.spacing(np.abs(expected)) + np.abs(x) * 2.0**-24
    assert np.all(np.abs(got.astype(np.float64) - expected) <= bound)


def test_gelu_backward_within_ulps_of_float64():
    x = _sample(4, n=50_000)
    g = np.random.default_rng(5).standard_normal(len(x)).astype(np.float32)
    t = gradtrack.tensor(x, requires_grad=True)
    gradtrack.nn.functional.gelu(t).backward(gradtrack.tensor(g))
    x64 = x.astype(np.float64)
    ref = g.astype(np.float64) * _gelu_grad64(x64)
    # each term may carry its ulps: near x = -0.75 they cancel to gelu' = 0
    terms = np.abs(g.astype(np.float64)) * (
        0.5 * _erfc(-x64 / math.sqrt(2)).astype(np.float64)
        + np.abs(x64) * np.exp(-x64 * x64 / 2) / math.sqrt(2 * math.pi))
    # (and 1e-43: gradients of x < -13 are subnormal, with fewer digits to keep)
    bound = 4 * np.spacing(np.abs(ref).astype(np.float32)) + 4 * 2.0**-24 * terms + 1e-43
    assert np.all(np.abs(t.grad.numpy().astype(np.float64) - ref) <= bound)


def test_gelu_backward_of_a_sum_as_torch():
    torch = pytest.importorskip("torch")
    x = _sample(6, n=20_000)
    grads = []
    for lib in (gradtrack, torch):
        t = lib.tensor(x, requires_grad=True)
        lib.nn.functional.gelu(t).sum().backward()  # one gradient value, expanded
        grads.append(t.grad.numpy().astype(np.float64))
    ref = _gelu_grad64(x.astype(np.float64))
    ours, theirs = (_ulps(gr, ref) for gr in grads)
    assert ours.mean() <= theirs.mean()
    assert np.all(np.abs(grads[0] - ref) <= 4 * np.spacing(np.abs(ref).astype(np.float32))
                  + 4 * 2.0**-24)


def _gelu_and_slope(x, g):
    t = gradtrack.tensor(x, requires_grad=True)
    y = gradtrack.nn.functional.gelu(t)
    y.backward(gradtrack.tensor(g))
    return y.detach().numpy(), t.grad.numpy()


@pytest.mark.parametrize("pattern", ["mixed", "near", "far", "alternating", "runs"])
def test_gelu_of_each_element_ignores_its_neighbours(pattern):
    # Where the CPU has AVX-512, the lanes that take erfc (|x| >= sqrt 2) are packed
    # apart and put back: a lane must get its own result whatever the others hold.
    rng = np.random.default_rng(8)
    n = 3001  # three blocks of 1024 and a tail
    near = rng.uniform(-1.41, 1.41, n).astype(np.float32)
    far = (rng.uniform(1.42, 16.0, n) * rng.choice([-1, 1], n)).astype(np.float32)
    pick = {"mixed": rng.random(n) < 0.5, "near": np.ones(n, bool), "far": np.zeros(n, bool),
            "alternating": np.arange(n) % 2 == 0, "runs": (np.arange(n) // 37) % 2 == 0}[pattern]
    x = np.where(pick, near, far)
    x[::97] = SPECIAL[np.arange(len(x[::97])) % len(SPECIAL)]
    g = rng.standard_normal(n).astype(np.float32)
    y, dx = _gelu_and_slope(x, g)
    perm = rng.permutation(n)
    y_p, dx_p = _gelu_and_slope(x[perm], g[perm])
    back = np.argsort(perm)
    assert np.array_equal(y, y_p[back], equal_nan=True)
    assert np.array_equal(dx, dx_p[back], equal_nan=True)
    # and each element alone, in the tail of a vector
    for i in rng.choice(n, 40, replace=False):
        y1, dx1 = _gelu_and_slope(x[i:i + 1], g[i:i + 1])
        assert np.array_equal(y1, y[i:i + 1], equal_nan=True)
        assert np.array_equal(dx1, dx[i:i + 1], equal_nan=True)
    ok = np.isfinite(x) & (np.abs(x) < 15.5)
    assert np.all(_ulps(y[ok], _gelu64(x[ok].astype(np.float64))) <= 10.0)


@pytest.mark.parametrize("pattern", ["mixed", "small", "large", "alternating", "runs"])
def test_tanh_of_each_element_ignores_its_neighbours(pattern):
    # The same for tanh's lanes with |x| >= 0.625, which take the exponential.
    rng = np.random.default_rng(9)
    n = 3001
    small = rng.uniform(-0.62, 0.62, n).astype(np.float32)
    large = (rng.uniform(0.63, 12.0, n) * rng.choice([-1, 1], n)).astype(np.float32)
    pick = {"mixed": rng.random(n) < 0.5, "small": np.ones(n, bool), "large": np.zeros(n, bool),
            "alternating": np.arange(n) % 2 == 1, "runs": (np.arange(n) // 41) % 2 == 0}[pattern]
    x = np.where(pick, small, large)
    x[::89] = SPECIAL[np.arange(len(x[::89])) % len(SPECIAL)]
    y = gradtrack.tensor(x).tanh().numpy()
    perm = rng.permutation(n)
    assert np.array_equal(y, gradtrack.tensor(x[perm]).tanh().numpy()[np.argsort(perm)],
                          equal_nan=True)
    for i in rng.choice(n, 40, replace=False):
        assert np.array_equal(gradtrack.tensor(x[i:i + 1]).tanh().numpy(), y[i:i + 1],
                              equal_nan=True)
    assert np.all(_ulps(y[~np.isnan(x)], np.tanh(x[~np.isnan(x)].astype(np.float64))) <= 1.0)


@pytest.mark.parametrize("n", [1, 15, 16, 17, 31, 1023, 1024, 1025, 4097])
def test_every_length_and_in_place(n):
    x = _sample(7)[:n].copy()
    t = gradtrack.tensor(x)
    dense = t.tanh().numpy()
    assert np.all(_ulps(dense, np.tanh(x.astype(np.float64))) <= 1.0)
    t.tanh_()
    assert _bits(t.numpy()) == _bits(dense)
    g = gradtrack.nn.functional.gelu(gradtrack.tensor(x)).numpy()
    assert np.all(_ulps(g, _gelu64(x.astype(np.float64)))[x > -1.4] <= 2.0)


def test_strided_runs_as_dense_ones():
    # a view's strided runs go through a buffer to the same vector kernel
    x = _sample(8, n=10_000)
    buf = np.zeros(2 * len(x), dtype=np.float32)
    buf[::2] = x
    strided = gradtrack.tensor(buf)[::2].tanh().numpy()
    assert _bits(strided) == _bits(gradtrack.tensor(x).tanh().numpy())
    assert np.all(_ulps(strided, np.tanh(x.astype(np.float64))) <= 1.0)


def test_lstm_cells_take_the_vector_tanh():
    # float32 LSTM against the same LSTM in float64 (libm's tanh): the cells' tanh was
    # 2 / (1 + exp(-2x)) - 1, whose relative error near 0 grows as 1/x.
    gradtrack.manual_seed(0)
    lstm = gradtrack.nn.LSTM(8, 16)
    with gradtrack.no_grad():  # pre-activations near 0, where that form lost digits
        lstm.bias_ih_l0.zero_()
        lstm.bias_hh_l0.zero_()
    x = gradtrack.randn(5, 3, 8) * 1e-3
    with gradtrack.no_grad():
        out32, _ = lstm(x)
        out64, _ = lstm.double()(x.double())
    rel = np.abs(out32.double().numpy() - out64.numpy()) / np.abs(out64.numpy())
    assert np.median(rel) < 1e-6
