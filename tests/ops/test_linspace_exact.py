"""linspace equals torch's bit for bit (tutorials fit curves to
``linspace(-pi, pi, 2000)``: one ulp apart, every printed loss differs), and
refuses ends its dtype cannot hold with torch's error, never a wrapped value."""

import math
import random

import pytest

import gradtrack

DTYPES = ("uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
          "bool")
_rng = random.Random(3)
ENDS = [(0, 1e6), (0, 1e20), (0, 1e40), (-1, 3), (2.7, 9.2), (-300, 5), (-200, 5),
        (float("inf"), 1), (0, float("nan")), (-math.pi, math.pi), (3, -2), (2.5, 2.5),
        (-1e-3, 65504), (0, 65520), (1e40, 1)]
ENDS += [(_rng.uniform(-100, 100), _rng.uniform(-100, 100)) for _ in range(6)]
ENDS += [(_rng.randint(-100, 100), _rng.randint(-100, 100)) for _ in range(3)]
STEPS = (0, 1, 2, 5, 17, 1001, 2000)


def _outcome(lib, start, end, steps, dtype):
    try:
        r = lib.linspace(start, end, steps, dtype=getattr(lib, dtype))
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        return type(e).__name__, str(e)
    values = (r.double() if dtype in ("float16", "bfloat16") else r).tolist()
    return r.dtype == getattr(lib, dtype), repr(values)  # repr: nan equals nan


@pytest.mark.parametrize("dtype", DTYPES)
def test_linspace_matches_torch_bit_for_bit(torch, dtype):
    for start, end in ENDS:
        for steps in STEPS:
            got = _outcome(gradtrack, start, end, steps, dtype)
            want = _outcome(torch, start, end, steps, dtype)
            assert got == want, (start, end, steps)


def test_linspace_endpoints_and_symmetry_without_torch():
    x = gradtrack.linspace(-math.pi, math.pi, 2000)
    v = x.tolist()
    assert v[0] == float(gradtrack.tensor(-math.pi)) and v[-1] == float(gradtrack.tensor(math.pi))
    # both halves step from their own end: the values are mirror images
    assert all(a == -b for a, b in zip(v, reversed(v)))
    with pytest.raises(RuntimeError, match="value cannot be converted to type int16_t without "
                                           "overflow"):
        gradtrack.linspace(0, 1e6, 5, dtype=gradtrack.int16)
    assert gradtrack.linspace(-1, 3, 5, dtype=gradtrack.uint8).tolist() == [255, 192, 129, 66, 3]
