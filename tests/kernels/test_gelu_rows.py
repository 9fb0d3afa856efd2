"""float32 gelu on Intel's AVX-512 takes rows of polynomials of Phi picked by |x|'s bits
where x >= -2, and the far branch below (NOTE [gelu from rows of polynomials] in
csrc/kernels/simd_math.cpp); elsewhere, and with the switch off, the packed kernel (NOTE
[Vector tanh and gelu]). Each path is checked here on whatever CPU runs the tests: within
its bounds of float64 over every magnitude and at every row's edge, and no further than
torch's; below -2 both paths give the same bits; special values; every length and views;
no value changed by the elements beside it."""

import math

import numpy as np
import pytest

import gradtrack
from gradtrack._C import _bench
from helpers import float32_bits as _bits
from helpers import float32_ulps as _ulps
from helpers import kernel_paths

# the largest error from float64 each path reached over every float, by region
BOUND = {"rows": {"x >= -1": 0.734, "-2 <= x < -1": 0.922},
         "packed": {"x >= -1": 2.0, "-2 <= x < -1": 5.5}}

_erfc = np.frompyfunc(math.erfc, 1, 1)


def _gelu64(x):
    x = np.asarray(x, dtype=np.float64)
    return 0.5 * x * _erfc(-x / math.sqrt(2)).astype(np.float64)


def _gelu(x):
    return gradtrack.nn.functional.gelu(gradtrack.tensor(x)).numpy()


path = kernel_paths(_bench.gelu_rows, _bench.set_gelu_rows, "rows", "packed")


def _edges():
    """The floats at and beside each row's edges (quarter octaves of |x| from 1/16 to 8),
    with both signs, and beside -2, where the far branch starts."""
    starts = [2.0 ** e * (1 + q / 4) for e in range(-4, 3) for q in range(4)] + [8.0]
    b = np.array(starts, dtype=np.float32).view(np.int32)
    near = np.concatenate([b + d for d in range(-3, 4)]).view(np.float32)
    return np.concatenate([near, -near[near <= 2.0]])


def _inputs():
    walk = np.arange(0, 0x41400000, 1021, dtype=np.int32).view(np.float32)  # [0, 12]
    negative = -np.arange(0, 0x40000001, 1021, dtype=np.int32).view(np.float32)  # [-2, 0]
    return np.concatenate([walk, negative, _edges()])


def test_within_bounds_of_float64(path):
    x = _inputs()
    err = _ulps(_gelu(x), _gelu64(x))
    assert err[x >= -1].max() <= BOUND[path]["x >= -1"]
    assert err[(x >= -2) & (x < -1)].max() <= BOUND[path]["-2 <= x < -1"]


def test_no_further_from_float64_than_torch(path):
    torch = pytest.importorskip("torch")
    x = _inputs()
    ref = _gelu64(x)
    ours = _ulps(_gelu(x), ref)
    theirs = _ulps(torch.nn.functional.gelu(torch.tensor(x)).numpy(), ref)
    assert ours.max() <= theirs.max()
    assert ours.mean() <= theirs.mean()


def test_below_minus_two_both_paths_agree():
    if not _bench.gelu_rows():
        pytest.skip("this CPU has one path only")
    x = -np.arange(0x40000001, 0x41400000, 997, dtype=np.int32).view(np.float32)  # < -2
    x = np.concatenate([x, np.random.default_rng(0).normal(0, 3, 5000).astype(np.float32)])
    far = x < -2
    try:
        rows = _gelu(x)
        _bench.set_gelu_rows(False)
        packed = _gelu(x)
    finally:
        _bench.set_gelu_rows(True)
    assert np.array_equal(_bits(rows[far]), _bits(packed[far]))
    assert np.max(np.abs(_bits(rows).astype(np.int64) - _bits(packed).astype(np.int64))) <= 4


SPECIAL = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 1e-40, -1e-38, 1e-10,
                    -1e-10, -2.0, -2.0000002, -1.9999999, 8.0, 7.9999995, 9.0, 1e10, 3e38,
                    -3e38], dtype=np.float32)


def test_special_values(path):
    a = np.concatenate([SPECIAL] * 3)  # in full vectors and in the tail
    got = _gelu(a)
    assert np.array_equal(np.isnan(got), np.isnan(a) | (a == -np.inf))
    num = ~np.isnan(got)
    assert np.array_equal(np.signbit(got[num]), np.signbit(a[num]))  # -0 stays -0
    tiny = np.abs(a) < 1e-9
    assert np.array_equal(_bits(got[tiny]), _bits(a[tiny] * np.float32(0.5)))
    big = a >= 8
    assert np.array_equal(got[big], a[big])  # Phi is 1 in float
    ok = np.isfinite(a) & (a > -3e38)
    assert np.all(_ulps(got[ok], _gelu64(a[ok])) <= 6.6)


@pytest.mark.parametrize("n", [1, 15, 16, 17, 31, 33, 70, 1023, 1024, 1025, 3001])
def test_every_length_and_views(path, n):
    x = np.random.default_rng(n).normal(0, 2, n).astype(np.float32)
    dense = _gelu(x)
    near = x >= -2
    assert np.all(_ulps(dense[near], _gelu64(x[near])) <= BOUND[path]["-2 <= x < -1"])
    buf = np.zeros(2 * n, dtype=np.float32)
    buf[1::2] = x
    view = gradtrack.nn.functional.gelu(gradtrack.tensor(buf)[1::2]).numpy()
    assert np.array_equal(_bits(view), _bits(dense))


@pytest.mark.parametrize("pattern", ["mixed", "far", "alternating", "runs"])
def test_each_value_ignores_its_neighbours(path, pattern):
    rng = np.random.default_rng(3)
    n = 3001  # three blocks of 1024 and a tail
    near = rng.uniform(-2, 12, n).astype(np.float32)
    far = rng.uniform(-12, -2.0000002, n).astype(np.float32)
    pick = {"mixed": rng.random(n) < 0.7, "far": np.zeros(n, bool),
            "alternating": np.arange(n) % 2 == 0, "runs": (np.arange(n) // 37) % 2 == 0}[pattern]
    x = np.where(pick, near, far)
    x[::97] = SPECIAL[np.arange(len(x[::97])) % len(SPECIAL)]
    y = _bits(_gelu(x))
    perm = rng.permutation(n)
    assert np.array_equal(_bits(_gelu(x[perm])), y[perm])
    for i in range(0, n, 61):
        assert _bits(_gelu(x[i:i + 1]))[0] == y[i]
