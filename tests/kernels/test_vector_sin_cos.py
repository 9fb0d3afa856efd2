"""sin and cos of float32 take vector loops (NOTE [Vector sin and cos] in
csrc/kernels/simd_trig.cpp) instead of libm per element; from |x| = 2^45 on, and for inf
and NaN, libm's. Their last bits may differ from torch's (SLEEF's), so they are held to
float64: within 1 ulp everywhere (torch's bound), about half an ulp in the vector range.
Special values and signed zeros as torch's; every length around the vector widths and the
blocks, with libm's elements anywhere in them; results written over the input; strided
views, whose runs take the same kernel through a buffer; the other dtypes, which keep
their loops; the gradients."""

import numpy as np
import pytest

import gradtrack

FAST_BOUND = np.float32(2.0**45)  # kFastBound in simd_trig.cpp
FUNCS = ["sin", "cos"]


def _ulps(got, ref):
    """|got - ref| in units of the float32 spacing of ref's binade."""
    _, e = np.frexp(np.abs(ref))
    spacing = np.ldexp(1.0, np.maximum(e - 24, -149))
    return np.abs(np.asarray(got, dtype=np.float64) - ref) / spacing


def _ref(name, x):
    return getattr(np, name)(np.asarray(x, dtype=np.float32).astype(np.float64))


def _walk(lo, hi, step):
    """Every step-th float32 from lo to hi (positive)."""
    a, b = np.float32(lo).view(np.int32), np.float32(hi).view(np.int32)
    return np.arange(a, b, step, dtype=np.int32).view(np.float32)


def _sample(seed, n=100_000):
    """Normal values at a few scales, a dense walk over every magnitude from 1e-30 to the
    vector range's bound and past it to 3e38, the floats next to the bound and near
    multiples of pi/2 (where the reduced argument is smallest); both signs."""
    rng = np.random.default_rng(seed)
    normal = np.concatenate([rng.standard_normal(n).astype(np.float32) * np.float32(s) for s in (1.0, 10.0, 1e4)])
    walk = np.concatenate([_walk(1e-30, FAST_BOUND, 2053), _walk(FAST_BOUND, 3e38, 8191)])
    b = FAST_BOUND.view(np.int32)
    edge = np.arange(b - 300, b + 300, dtype=np.int32).view(np.float32)
    k = np.arange(1, 2000, dtype=np.float64)
    centres = (k * np.pi / 2).astype(np.float32).view(np.int32)
    near = (centres[:, None] + np.arange(-3, 4, dtype=np.int32)).reshape(-1).view(np.float32)
    v = np.concatenate([normal, walk, edge, near])
    return np.concatenate([v, -v])


def _bits(values):
    a = np.asarray(values, dtype=np.float64).reshape(-1)
    return [("nan",) if x != x else (float(x), bool(np.signbit(x))) for x in a]


SPECIAL = np.array(
    [
        np.nan,
        -np.nan,
        np.inf,
        -np.inf,
        0.0,
        -0.0,
        1e-45,
        -1e-45,
        3e-39,
        -3e-39,
        1e-38,
        -1e-38,
        1e-30,
        2.0**-12,
        -(2.0**-12),
        0.7853982,
        -0.7853982,
        1.5707964,
        -1.5707964,
        3.1415927,
        -3.1415927,
        4.712389,
        6.2831855,
        1e4,
        3.0e7,
        2.0**24,
        2.0**45,
        -(2.0**45),
        3.5184370e13,
        -3.5184370e13,
        1e20,
        -1e20,
        1e30,
        -1e30,
        3.4e38,
        -3.4e38,
    ],
    dtype=np.float32,
)


@pytest.mark.parametrize("name", FUNCS)
def test_within_one_ulp_of_float64(name):
    x = _sample(1)
    err = _ulps(getattr(gradtrack.tensor(x), name)().numpy(), _ref(name, x))
    fast = np.abs(x) < FAST_BOUND
    assert err.max() <= 1.0
    # the vector range: rounded once from a double result (0.5004 over every float)
    assert err[fast].max() <= 0.501
    assert err.mean() <= 0.3


@pytest.mark.parametrize("name", FUNCS)
def test_mean_error_not_above_torchs(name):
    torch = pytest.importorskip("torch")
    x = _sample(2)
    ref = _ref(name, x)
    ours = _ulps(getattr(gradtrack.tensor(x), name)().numpy(), ref)
    theirs = _ulps(getattr(torch, name)(torch.tensor(x)).numpy(), ref)
    assert ours.mean() <= theirs.mean()
    assert ours.max() <= max(theirs.max(), 0.6)


def test_exact_values():
    tiny = np.concatenate([_walk(1e-45, 2.0**-12, 997), [np.float32(2.0**-12)]])
    x = np.concatenate([tiny, -tiny])
    assert np.array_equal(gradtrack.tensor(x).sin().numpy(), x)  # sin(x) = x in float
    small = np.abs(x) < 2.0**-13  # x^2 / 2 under a quarter ulp of 1
    assert np.all(gradtrack.tensor(x[small]).cos().numpy() == 1.0)
    z = gradtrack.tensor(np.array([0.0, -0.0], dtype=np.float32))
    assert _bits(z.sin().numpy()) == [(0.0, False), (0.0, True)]
    assert _bits(z.cos().numpy()) == [(1.0, False), (1.0, False)]


@pytest.mark.parametrize("name", FUNCS)
def test_special_values_as_torch(name):
    torch = pytest.importorskip("torch")
    a = np.concatenate([SPECIAL] * 3)  # some in full vectors, some in the tail
    got = getattr(gradtrack.tensor(a), name)().numpy().astype(np.float64)
    expected = getattr(torch.tensor(a), name)().numpy().astype(np.float64)
    assert np.array_equal(np.isnan(got), np.isnan(expected))
    both = ~np.isnan(got)
    assert np.array_equal(np.signbit(got[both]), np.signbit(expected[both]))
    # each within 1 ulp of float64, so within 2 of each other
    assert np.all(_ulps(got[both], expected[both]) <= 2.0)
    assert np.all(_ulps(got[both], _ref(name, a[both])) <= 1.0)


@pytest.mark.parametrize("name", FUNCS)
def test_every_length_and_in_place(name):
    x = _sample(3)
    x = x[np.abs(x) < 1e3]
    lengths = [*range(71), *range(1000, 1050), 2047, 2048, 2049, 3071, 3072, 3073]
    for n in lengths:
        v = x[:n].copy()
        if n > 20:  # libm's elements among the vector ones: first, last, in the middle
            v[0], v[n // 2], v[-1] = np.inf, np.float32(1e20), np.nan
        t = gradtrack.tensor(v)
        dense = getattr(t, name)().numpy()
        ok = ~np.isnan(v) & ~np.isinf(v)
        assert np.all(_ulps(dense[ok], _ref(name, v[ok])) <= 1.0), n
        assert np.all(np.isnan(dense[~ok])), n
        getattr(t, name + "_")()
        assert _bits(t.numpy()) == _bits(dense), n


@pytest.mark.parametrize("name", FUNCS)
def test_libm_elements_at_block_edges(name):
    # the vector loop runs in blocks of 1024 and redoes only blocks with an element out of
    # its range
    x = np.random.default_rng(4).uniform(-10, 10, 5000).astype(np.float32)
    for i in (1023, 1024, 2047, 4095, 4999):
        x[i] = np.float32(-3e38 if i % 2 else 5e25)
    got = getattr(gradtrack.tensor(x), name)().numpy()
    assert np.all(_ulps(got, _ref(name, x)) <= 1.0)


@pytest.mark.parametrize("name", FUNCS)
def test_non_contiguous_views(name):
    x = _sample(5, n=10_000)[:40_000]
    buf = np.zeros(2 * len(x), dtype=np.float32)
    buf[::2] = x
    strided = getattr(gradtrack.tensor(buf)[::2], name)().numpy()
    dense = getattr(gradtrack.tensor(x), name)().numpy()
    assert np.array_equal(strided.view(np.int32), dense.view(np.int32))  # the same kernel
    m = x[:40_000].reshape(200, 200)
    transposed = getattr(gradtrack.tensor(m).t(), name)().numpy()
    assert np.array_equal(transposed.view(np.int32),
                          getattr(gradtrack.tensor(np.ascontiguousarray(m.T)), name)().numpy().view(np.int32))


@pytest.mark.parametrize("name", FUNCS)
@pytest.mark.parametrize("dtype", ["float64", "float16", "bfloat16"])
def test_other_dtypes_as_torch(name, dtype):
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(6).uniform(-100, 100, 3000)
    x[: len(SPECIAL)] = SPECIAL
    t = torch.tensor(x).to(getattr(torch, dtype))
    expected = getattr(t, name)()
    got = getattr(gradtrack.tensor(x).to(getattr(gradtrack, dtype)), name)()
    e = expected.double().numpy()
    g = got.double().numpy()
    assert np.array_equal(np.isnan(g), np.isnan(e))
    ok = ~np.isnan(e)
    if dtype == "float64":
        assert np.all(np.abs(g[ok] - e[ok]) <= 2 * np.spacing(np.abs(e[ok])))
        return
    assert np.array_equal(g[ok], e[ok])  # computed in float32, rounded once


@pytest.mark.parametrize("name", FUNCS)
def test_gradients_as_torch(name):
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(7).uniform(-20, 20, 5000).astype(np.float32)
    g = np.random.default_rng(8).standard_normal(len(x)).astype(np.float32)
    grads = []
    for lib in (gradtrack, torch):
        t = lib.tensor(x, requires_grad=True)
        getattr(t, name)().backward(lib.tensor(g))
        grads.append(t.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=2e-6, atol=1e-6)
    d = np.cos(x.astype(np.float64)) if name == "sin" else -np.sin(x.astype(np.float64))
    np.testing.assert_allclose(grads[0], g * d, rtol=1e-5, atol=1e-6)
