"""The float32 cumsum's blocked scan (NOTE [A long float32 line scanned in blocks]): a line
summed in registers 8 elements at a time, a long line split over the threads, must give the
bits of torch's one-by-one double sum wherever the double sums are exact, and stay within a
double rounding of the exact prefix sums where they are not.
"""

import numpy as np
import pytest

import gradtrack as gt

# Lengths around the 16-element step, the thread split (2 x 32768) and a long line.
LENGTHS = [1, 7, 8, 15, 16, 17, 33, 1000, 65535, 65536, 65537, 100_003, 1 << 20]


def _serial(x):
    """The one-by-one double sum rounded to float32, as torch's CPU scan."""
    return np.cumsum(x.astype(np.float64)).astype(np.float32)


def _inputs(n, seed):
    rng = np.random.default_rng(seed)
    return {
        "normal": rng.standard_normal(n).astype(np.float32),
        "uniform": rng.random(n, dtype=np.float32),
        "scaled": (rng.standard_normal(n) * 1e3 + 5).astype(np.float32),
    }


@pytest.mark.parametrize("n", LENGTHS)
def test_long_line_equals_the_one_by_one_sum(n, threads):
    for name, x in _inputs(n, n).items():
        got = gt.tensor(x).cumsum(0).numpy()
        assert np.array_equal(got, _serial(x)), (name, n)


@pytest.mark.parametrize("n", [5, 16, 100, 4099])
def test_many_lines_equal_the_one_by_one_sum(n, threads):
    x = np.random.default_rng(n).standard_normal((37, n)).astype(np.float32)
    got = gt.tensor(x).cumsum(1).numpy()
    want = np.cumsum(x.astype(np.float64), axis=1).astype(np.float32)
    assert np.array_equal(got, want)


def test_equals_torch_bit_for_bit(threads, torch):
    x = np.random.default_rng(3).standard_normal(300_001).astype(np.float32)
    got = gt.tensor(x).cumsum(0).numpy()
    assert np.array_equal(got, torch.from_numpy(x).cumsum(0).numpy())


def test_inexact_sums_stay_within_a_double_rounding(threads):
    # Elements 2^60 apart in size: the running double sum rounds, so the order of the
    # additions may show; each result stays within one float32 unit of the one-by-one
    # sum's, and no further from the exact prefix sums than it.
    rng = np.random.default_rng(5)
    n = 200_000
    scale = np.where(rng.random(n) < 0.5, 2.0**-30, 2.0**30)
    x = (rng.standard_normal(n) * scale).astype(np.float32)
    got = gt.tensor(x).cumsum(0).numpy()
    serial = _serial(x)
    assert np.all(np.abs(got.astype(np.float64) - serial) <= np.spacing(np.abs(serial)))
    exact = np.cumsum(x.astype(np.longdouble))
    assert np.max(np.abs(got - exact)) <= np.max(np.abs(serial - exact))


def test_odd_shapes_and_dtypes_take_their_own_paths(threads):
    # A strided dim (inner > 1), bfloat16 (widened to float32) and float64 lines.
    x = np.random.default_rng(7).standard_normal((4099, 3)).astype(np.float32)
    assert np.array_equal(gt.tensor(x).cumsum(0).numpy(), _serial_axis0(x))
    b = gt.tensor(x[:, 0]).to(gt.bfloat16).cumsum(0).float().numpy()
    ref = gt.tensor(_serial(gt.tensor(x[:, 0]).to(gt.bfloat16).float().numpy())).to(gt.bfloat16)
    assert np.array_equal(b, ref.float().numpy())
    d = x[:, 0].astype(np.float64)
    assert np.array_equal(gt.tensor(d).cumsum(0).numpy(), np.cumsum(d))


def _serial_axis0(x):
    return np.cumsum(x.astype(np.float64), axis=0).astype(np.float32)
