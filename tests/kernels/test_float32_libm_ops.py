"""Float32 erfc goes through libm's double function, rounded once (NOTE [Float32 through
double libm] in csrc/kernels/pointwise.cpp); tan, sinh, cosh, atanh, atan, asin and acos
through vector loops in double (NOTE [Vector sin and cos], [Vector sinh and cosh],
[Vector atanh], [Vector atan], [Vector asin and acos]): glibc's float versions were up to
0.8-2.7 ulp off where torch's stay within 0.5-1.0. Held here to half an ulp of float64
over a walk through every magnitude, both signs, with the special values as torch gives
them; the vector loops over every length and through strided views too."""

import math

import numpy as np
import pytest

import gradtrack
from gradtrack._C import _bench

scipy_special = pytest.importorskip("scipy.special")

REFERENCE = {
    "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
    "sinh": np.sinh, "cosh": np.cosh, "atanh": np.arctanh, "erfc": scipy_special.erfc,
}
DOMAIN = {"asin": 1.0, "acos": 1.0, "atanh": 1.0}  # |x| below this


@pytest.fixture(autouse=True)
def _atan_in_double():
    """Here atan takes its loop in double. Its rows on Intel's AVX-512 (NOTE [atan from
    rows of polynomials]), within 0.516 ulp, are checked in test_atan_rows.py."""
    saved = _bench.atan_rows()
    _bench.set_atan_rows(False)
    yield
    _bench.set_atan_rows(saved)


def _walk(step=1021):
    lo, hi = np.float32(1e-30).view(np.int32), np.float32(1e30).view(np.int32)
    x = np.arange(lo, hi, step, dtype=np.int32).view(np.float32)
    return np.concatenate([x, -x])


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_within_half_an_ulp_of_float64(name):
    x = _walk()
    if name in DOMAIN:
        x = x[np.abs(x) < DOMAIN[name]]
    with np.errstate(all="ignore"):
        ref = REFERENCE[name](x.astype(np.float64))
    got = getattr(gradtrack, name)(gradtrack.tensor(x)).numpy().astype(np.float64)
    ok = np.isfinite(ref) & (np.abs(ref) < 3.4e38) & (np.abs(ref) >= 2.0**-126)
    spacing = np.spacing(np.abs(ref[ok]).astype(np.float32)).astype(np.float64)
    err = np.abs(got[ok] - ref[ok]) / spacing
    assert err.max() <= 0.5 + 1e-6
    # past float's range the double result rounds to inf, as the float function's did
    with np.errstate(over="ignore"):
        rounded = ref.astype(np.float32).astype(np.float64)
    big = np.isfinite(x) & np.isinf(rounded)
    assert np.array_equal(got[big], rounded[big])


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_special_values_as_torch(name):
    torch = pytest.importorskip("torch")
    x = np.array([0.0, -0.0, math.inf, -math.inf, math.nan, 1e-45, -1e-45, 1e-30, -1e-30, 90.0,
                  -90.0, 3e38, -3e38], dtype=np.float32)
    got = getattr(gradtrack, name)(gradtrack.tensor(x)).numpy()
    expected = getattr(torch, name)(torch.tensor(x)).numpy()
    assert np.array_equal(np.isnan(got), np.isnan(expected))
    both = ~np.isnan(got)
    # torch's vector sinh and cosh overflow to inf from |x| = 89 where the result is
    # 2.2e38 (float64 says so); the rest must match bit for bit, signed zeros included
    edge = (np.abs(x) == 90.0) & (name in ("sinh", "cosh"))
    assert np.array_equal(got[both & ~edge], expected[both & ~edge])
    assert np.array_equal(np.signbit(got[both & ~edge]), np.signbit(expected[both & ~edge]))


def test_float64_takes_the_same_functions():
    x = np.linspace(-0.99, 0.99, 1001)
    for name in REFERENCE:
        got = getattr(gradtrack, name)(gradtrack.tensor(x)).numpy()
        assert np.array_equal(got, [getattr(math, name)(v) for v in x])


@pytest.mark.parametrize("name", ["sinh", "cosh", "atanh", "atan", "asin", "acos", "tan"])
@pytest.mark.parametrize("n", [1, 7, 8, 9, 17, 1023, 1025])
def test_vector_loops_every_length_and_views(name, n):
    pool = _walk(8191)
    pool = pool[np.abs(pool) < 95]  # every magnitude, and past the overflow at 89.4
    if name in DOMAIN:  # inside it mostly, and NaN outside
        pool = np.concatenate([pool[np.abs(pool) <= 1]] * 4 + [pool[np.abs(pool) > 1]])
    x = np.random.default_rng(n).choice(pool, 3 * n).reshape(3, n)
    t = gradtrack.tensor(x)
    dense = getattr(gradtrack, name)(t).numpy()
    with np.errstate(invalid="ignore"):  # asin and acos past |x| = 1
        ref = REFERENCE[name](x.astype(np.float64))
    with np.errstate(over="ignore"):
        rounded = ref.astype(np.float32)
    finite = np.isfinite(rounded)
    spacing = np.spacing(np.abs(rounded[finite])).astype(np.float64)
    assert np.all(np.abs(dense[finite] - ref[finite]) / spacing <= 0.5 + 1e-6)
    assert np.array_equal(dense[~finite], rounded[~finite], equal_nan=True)
    # a transposed view runs through the strided path to the same kernel
    view = getattr(gradtrack, name)(t.t()).numpy()
    assert np.array_equal(view, dense.T, equal_nan=True)
