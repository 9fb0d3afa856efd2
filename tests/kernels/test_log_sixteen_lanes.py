"""float32 log, log2 and log10 on Intel's AVX-512 take a table of 32 rows in sixteen lanes
(NOTE [Logarithm in sixteen lanes] in csrc/kernels/simd_log_exp.cpp); elsewhere, and with
the switch off, the clones' loop (NOTE [Vector log and expm1]). Each path is checked here on whatever CPU runs
the tests: within its ulp bound of float64 over every magnitude, densely around 1 and at
every row's edges; special values as torch's; every length, in place and through views;
and no value changed by a special value beside it."""

import numpy as np
import pytest

import gradtrack
from gradtrack._C import _bench
from helpers import float32_bits as _bits
from helpers import float32_ulps as _ulps
from helpers import kernel_paths

# the largest error from float64 each path reached over every positive float
BOUND = {("sixteen_lanes", "log"): 0.525, ("sixteen_lanes", "log2"): 0.528,
         ("sixteen_lanes", "log10"): 0.524, ("clone_loop", "log"): 0.64,
         ("clone_loop", "log2"): 0.76, ("clone_loop", "log10"): 0.67}
NAMES = ["log", "log2", "log10"]


def _ref(name, x):
    with np.errstate(all="ignore"):
        return getattr(np, name)(np.asarray(x, dtype=np.float64))


path = kernel_paths(_bench.log_sixteen_lanes, _bench.set_log_sixteen_lanes, "sixteen_lanes", "clone_loop")


def _inputs():
    every = np.arange(1, 0x7F800000, 331, dtype=np.int64).astype(np.uint32).view(np.float32)
    near_one = np.arange(0x3F7F0000, 0x3F810000, dtype=np.uint32).view(np.float32)
    # each row's first and last floats, at several exponents (subnormal ones included)
    m = np.arange(32, dtype=np.int64)
    first = (0x3F800000 + (m << 18)).astype(np.uint32)
    edges = np.concatenate([first - 1, first, first + 1, first + (1 << 18) - 1]).view(np.float32)
    scales = np.float32(2.0) ** np.arange(-149, 128, 7, dtype=np.float64)
    with np.errstate(over="ignore", under="ignore"):
        scaled = (edges[None, :].astype(np.float64) * scales[:, None]).astype(np.float32).ravel()
    scaled = scaled[np.isfinite(scaled) & (scaled > 0)]
    return np.concatenate([every, near_one, edges, scaled])


@pytest.mark.parametrize("name", NAMES)
def test_within_bound_of_float64(path, name):
    x = _inputs()
    err = _ulps(getattr(gradtrack.tensor(x), name)().numpy(), _ref(name, x))
    assert err.max() <= BOUND[path, name]
    assert err.mean() <= 0.2502


@pytest.mark.parametrize("name", NAMES)
def test_no_further_from_float64_than_torch(path, name):
    torch = pytest.importorskip("torch")
    x = _inputs()[::5]
    ref = _ref(name, x)
    ours = _ulps(getattr(gradtrack.tensor(x), name)().numpy(), ref)
    theirs = _ulps(getattr(torch.tensor(x), name)().numpy(), ref)
    assert ours.mean() <= theirs.mean() * 1.001
    if path == "sixteen_lanes":
        assert ours.max() <= theirs.max()


SPECIAL = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, -1.0, -1e-40, -3.4e38, 1e-45,
                    1e-40, 1.1754942e-38, 1.1754944e-38, 1.0, 0.99999994, 1.0000001, 2.0,
                    3.4028235e38], dtype=np.float32)


@pytest.mark.parametrize("name", NAMES)
def test_special_values_as_torch(path, name):
    torch = pytest.importorskip("torch")
    a = np.concatenate([SPECIAL] * 3)  # in full vectors and in the tail
    got = getattr(gradtrack.tensor(a), name)().numpy()
    expected = getattr(torch.tensor(a), name)().numpy()
    assert np.array_equal(np.isnan(got), np.isnan(expected))
    num = ~np.isnan(got)
    assert np.array_equal(np.signbit(got[num]), np.signbit(expected[num]))
    g, e = got[num].astype(np.float64), expected[num].astype(np.float64)
    with np.errstate(invalid="ignore"):
        assert np.all((g == e) | (np.abs(g - e) <= np.spacing(np.abs(expected[num]))))
    payload = np.array([0x7FC01234, 0x7F801234], dtype=np.uint32).view(np.float32)  # quiet, signalling
    out = _bits(getattr(gradtrack.tensor(payload), name)().numpy())
    if path == "sixteen_lanes":  # quieted, payload kept, as torch's
        assert list(out) == list(_bits(getattr(torch.tensor(payload), name)().numpy()))
    assert np.isnan(out.view(np.float32)).all()


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("n", [1, 15, 16, 17, 31, 32, 33, 47, 64, 70, 1025])
def test_every_length_in_place_and_views(path, name, n):
    x = np.random.default_rng(n).uniform(1e-3, 1e3, n).astype(np.float32)
    dense = getattr(gradtrack.tensor(x), name)().numpy()
    assert np.all(_ulps(dense, _ref(name, x)) <= BOUND[path, name])
    t = gradtrack.tensor(x)
    getattr(t, name + "_")()
    assert np.array_equal(_bits(t.numpy()), _bits(dense))
    buf = np.zeros(2 * n, dtype=np.float32)
    buf[1::2] = x
    assert np.array_equal(_bits(getattr(gradtrack.tensor(buf)[1::2], name)().numpy()),
                          _bits(dense))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("where", [0, 7, 15, 16, 31, 32, 40, 63])
def test_a_special_value_leaves_its_neighbours_alone(path, name, where):
    x = np.random.default_rng(where).uniform(0.1, 10.0, 64).astype(np.float32)
    plain = _bits(getattr(gradtrack.tensor(x), name)().numpy())
    for v in (0.0, -0.0, 1e-40, -1.0, np.inf, -np.inf, np.nan):
        y = x.copy()
        y[where] = v
        got = _bits(getattr(gradtrack.tensor(y), name)().numpy())
        rest = np.arange(len(y)) != where
        assert np.array_equal(got[rest], plain[rest])
        ref = _ref(name, np.float32(v))
        one = got[where:where + 1].view(np.float32)
        if np.isfinite(ref):
            assert _ulps(one, np.array([ref]))[0] <= BOUND[path, name]
        else:
            assert (np.isnan(one[0]) and np.isnan(ref)) or one[0] == ref


@pytest.mark.parametrize("name", NAMES)
def test_the_paths_differ_by_at_most_one_ulp(name):
    if not _bench.log_sixteen_lanes():
        pytest.skip("this CPU has one path only")
    x = _inputs()[::3]
    try:
        a = getattr(gradtrack.tensor(x), name)().numpy()
        _bench.set_log_sixteen_lanes(False)
        b = getattr(gradtrack.tensor(x), name)().numpy()
    finally:
        _bench.set_log_sixteen_lanes(True)
    gap = np.abs(_bits(a).astype(np.int64) - _bits(b).astype(np.int64))
    assert gap.max() <= 1
    assert 0 < np.count_nonzero(gap) < len(x) // 20  # the paths are apart, and close
