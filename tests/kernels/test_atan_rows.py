"""float32 atan on Intel's AVX-512 takes rows of polynomials picked by the bits of |x| or
of 1/|x| (NOTE [atan from rows of polynomials] in csrc/kernels/simd_atan_rows.cpp);
elsewhere, and with the switch off, the loop in double (NOTE [Vector atan]). Each path is
checked here on whatever CPU runs the tests: within its ulp bound of float64 over every
magnitude and at every row's edges, and no further than torch's; odd and monotonic;
special values and NaN payloads as torch's; every length, in place and through views; no
value changed by the elements beside it."""

import numpy as np
import pytest

import gradtrack
from gradtrack._C import _bench
from helpers import float32_bits as _bits
from helpers import float32_ulps as _ulps
from helpers import kernel_paths

# the largest error from float64 each path reached over every positive float
BOUND = {"rows": 0.5158, "loop": 0.5 + 1e-6}


path = kernel_paths(_bench.atan_rows, _bench.set_atan_rows, "rows", "loop")


def _edges():
    """The floats at and beside each row's edges, for |x| <= 1 and for 1/|x|: 3/32, 7/64,
    the quarter octaves from 1/8 to 1, and their reciprocals."""
    starts = [3 / 32, 7 / 64] + [2.0 ** e * (1 + q / 4) for e in (-3, -2, -1) for q in range(4)]
    starts += [1.0] + [1 / s for s in starts]
    b = np.array(starts, dtype=np.float32).view(np.int32)
    return np.concatenate([b + d for d in range(-3, 4)]).view(np.float32)


# where torch's atan is furthest from float64 over every positive float: 0.5249 ulp
TORCH_WORST = np.float32(0.125115305185318)


def _inputs():
    walk = np.arange(0, 0x7F800000, 4093, dtype=np.int32).view(np.float32)  # every magnitude
    dense = np.linspace(0, 4, 20_001, dtype=np.float32)
    return np.concatenate([walk, _edges(), dense, [TORCH_WORST]])


def test_within_bound_of_float64(path):
    x = _inputs()
    err = _ulps(gradtrack.tensor(x).atan().numpy(), np.arctan(x.astype(np.float64)))
    assert err.max() <= BOUND[path]
    assert err.mean() <= 0.25


def test_no_further_from_float64_than_torch(path):
    torch = pytest.importorskip("torch")
    x = _inputs()
    ref = np.arctan(x.astype(np.float64))
    ours = _ulps(gradtrack.tensor(x).atan().numpy(), ref)
    theirs = _ulps(torch.tensor(x).atan().numpy(), ref)
    assert ours.max() <= theirs.max()
    assert ours.mean() <= theirs.mean() * 1.001


def test_odd_and_monotonic(path):
    x = np.sort(np.concatenate([_inputs(), np.geomspace(1e-6, 1e6, 100_001).astype(np.float32)]))
    y = gradtrack.tensor(x).atan().numpy()
    assert np.all(np.diff(y) >= 0)
    assert np.all(y <= np.float32(np.pi / 2))
    assert np.array_equal(_bits(gradtrack.tensor(-x).atan().numpy()), _bits(-y))


SPECIAL = np.concatenate([
    np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 1e-40, -1e-40,
              1.1754944e-38, 1e-10, 0.09375, 0.125, 0.99999994, 1.0, -1.0, 1.0000001, 8.0,
              10.666667, 1e10, 1e30, 3.4e38, -3.4e38], dtype=np.float32),
    # NaNs with payloads, quiet and signalling
    np.array([0x7FC01234, 0xFFC00077, 0x7F800001, 0xFF812345], dtype=np.uint32).view(np.float32),
])


def test_special_values_as_torch(path):
    torch = pytest.importorskip("torch")
    a = np.concatenate([SPECIAL] * 3)  # in full vectors and in the tail
    got = gradtrack.tensor(a).atan().numpy()
    expected = torch.tensor(a).atan().numpy()
    assert np.array_equal(_bits(got), _bits(expected))  # NaN payloads and signs too
    tiny = np.abs(a) < 1e-9
    assert np.array_equal(_bits(got[tiny]), _bits(a[tiny]))  # atan(x) = x, signed zeros too


@pytest.mark.parametrize("n", [1, 15, 16, 17, 31, 32, 33, 47, 70, 1025])
def test_every_length_in_place_and_views(path, n):
    x = (np.random.default_rng(n).standard_cauchy(n) * 2).astype(np.float32)
    dense = gradtrack.tensor(x).atan().numpy()
    assert np.all(_ulps(dense, np.arctan(x.astype(np.float64))) <= BOUND[path])
    t = gradtrack.tensor(x)
    t.atan_()
    assert np.array_equal(_bits(t.numpy()), _bits(dense))
    buf = np.zeros(2 * n, dtype=np.float32)
    buf[1::2] = x
    assert np.array_equal(_bits(gradtrack.tensor(buf)[1::2].atan().numpy()), _bits(dense))


def test_each_value_ignores_its_neighbours(path):
    cauchy = np.random.default_rng(0).standard_cauchy(500).astype(np.float32)
    x = np.concatenate([_edges(), SPECIAL, cauchy])
    y = _bits(gradtrack.tensor(x).atan().numpy())
    perm = np.random.default_rng(1).permutation(len(x))
    assert np.array_equal(_bits(gradtrack.tensor(x[perm]).atan().numpy()), y[perm])
    for i in range(0, len(x), 37):
        assert _bits(gradtrack.tensor(x[i:i + 1]).atan().numpy())[0] == y[i]


def test_the_paths_differ_by_at_most_one_ulp():
    if not _bench.atan_rows():
        pytest.skip("this CPU has one path only")
    x = _inputs()
    try:
        a = gradtrack.tensor(x).atan().numpy()
        _bench.set_atan_rows(False)
        b = gradtrack.tensor(x).atan().numpy()
    finally:
        _bench.set_atan_rows(True)
    gap = np.abs(_bits(a).astype(np.int64) - _bits(b).astype(np.int64))
    assert gap.max() <= 1
    assert 0 < np.count_nonzero(gap) < len(x) // 20
