"""Random fills of float16 / bfloat16 tensors equal torch 2.13's bit for bit.

NOTE [Reduced random draws] in csrc/kernels/random.cpp: every draw is made as for
float32 / float64 and only the result is rounded. Also pinned here: random_'s
bounds on floating dtypes (torch moves a bound the dtype cannot hold inward, then
refuses or warns) and the 64-bit draws of ranges from 2^28 up, for every dtype.
"""

import warnings

import numpy as np
import pytest

import gradtrack



def _draws(lib, fn, dt_name):
    lib.manual_seed(7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = fn(lib, getattr(lib, dt_name))
        except Exception as e:  # noqa: BLE001 - the error is the result
            return type(e).__name__, str(e).replace(lib.__name__, "LIB")
    # float16/bfloat16 -> float32 is exact, so equal lists mean equal bits
    values = r.float().numpy() if r.is_floating_point() else r.numpy()
    return str(r.dtype).split(".")[-1], list(r.shape), values.tolist(), lib.rand(1).item()


CASES = {
    "randn_small": lambda L, dt: L.randn(5, dtype=dt),
    "randn_16": lambda L, dt: L.randn(16, dtype=dt),
    "randn_ragged": lambda L, dt: L.randn(37, dtype=dt),
    "randn_big": lambda L, dt: L.randn(1003, dtype=dt),
    "randn_2d": lambda L, dt: L.randn(7, 9, dtype=dt),
    "normal_mean_std": lambda L, dt: L.empty(50, dtype=dt).normal_(2.5, 0.3),
    "normal_strided": lambda L, dt: L.empty(20, 3, dtype=dt)[:, 1].normal_(),
    "normal_transposed": lambda L, dt: L.empty(6, 5, dtype=dt).t().normal_(),
    "normal_fn": lambda L, dt: L.normal(L.zeros(30, dtype=dt), L.ones(30, dtype=dt)),
    "randn_like": lambda L, dt: L.randn_like(L.zeros(40, dtype=dt)),
    "rand": lambda L, dt: L.rand(3000, dtype=dt),
    "rand_like": lambda L, dt: L.rand_like(L.zeros(40, dtype=dt)),
    "uniform": lambda L, dt: L.empty(3000, dtype=dt).uniform_(-2.3, 5.1),
    "uniform_narrow": lambda L, dt: L.empty(3000, dtype=dt).uniform_(0.1, 0.3),
    "randint": lambda L, dt: L.randint(-50, 3000, (200,), dtype=dt),
    "randint_wide": lambda L, dt: L.randint(0, 2**40, (50,), dtype=dt),
    "randint_like": lambda L, dt: L.randint_like(L.zeros(40, dtype=dt), 10),
    "random_": lambda L, dt: L.empty(200, dtype=dt).random_(),
    "random_to": lambda L, dt: L.empty(200, dtype=dt).random_(100),
    "random_full": lambda L, dt: L.empty(20, dtype=dt).random_(-2**63, None),
    "bernoulli_p_tensor": lambda L, dt: L.full((200,), 0.3, dtype=dt).bernoulli(),
    "bernoulli_float_p": lambda L, dt: L.empty(200, dtype=dt).bernoulli_(L.full((200,), 0.3)),
    "bernoulli_reduced_p": lambda L, dt: L.empty(200).bernoulli_(L.full((200,), 0.3, dtype=dt)),
    "exponential": lambda L, dt: L.empty(300, dtype=dt).exponential_(1.5),
    "geometric": lambda L, dt: L.empty(300, dtype=dt).geometric_(0.3),
    "cauchy": lambda L, dt: L.empty(300, dtype=dt).cauchy_(1.0, 2.0),
    "log_normal": lambda L, dt: L.empty(300, dtype=dt).log_normal_(0.5, 0.7),
    "multinomial_replacement": lambda L, dt: L.multinomial(
        L.tensor([0.1, 0.5, 0.2, 0.2], dtype=dt), 30, replacement=True),
    "multinomial": lambda L, dt: L.multinomial(L.tensor([[0.1, 0.5, 0.2, 0.2]] * 3, dtype=dt), 3),
}
# bernoulli_ with a number p, and dropout, which calls it.
SCALAR_P = {
    "bernoulli_scalar": lambda L, dt: L.empty(200, dtype=dt).bernoulli_(0.3),
    "dropout": lambda L, dt: L.nn.functional.dropout(L.ones(100, dtype=dt), 0.4),
}


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_reduced_draws_equal_torch_bitwise(torch, case, dt):
    assert _draws(gradtrack, CASES[case], dt) == _draws(torch, CASES[case], dt)


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
@pytest.mark.parametrize("case", sorted(SCALAR_P))
def test_reduced_scalar_p_bernoulli_equal_torch(torch, case, dt):
    assert _draws(gradtrack, SCALAR_P[case], dt) == _draws(torch, SCALAR_P[case], dt)


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_dropout_on_reduced_dtype_scales_as_torch(dt):
    # Values kept are 1 / (1 - p) computed in float and rounded once.
    y = gradtrack.nn.functional.dropout(gradtrack.ones(400, dtype=getattr(gradtrack, dt)), 0.4)
    kept = set(y.float().numpy().tolist()) - {0.0}
    expected = 1.6669921875 if dt == "float16" else 1.6640625
    assert kept == {expected}


BOUNDS = [(0, 300), (0, 2**40), (-2**31 - 1, 5), (0, 3000), (0, 2**28 - 1), (0, 2**28),
          (-2**31, 2**31 - 1), (-2**25, None), (-2**63, None), (2048, None), (7, 9)]
DTYPES = ["int8", "int16", "int32", "int64", "uint8", "float16", "bfloat16", "float32",
          "float64"]


@pytest.mark.parametrize("bounds", BOUNDS, ids=str)
def test_random_bounds_and_wide_ranges_match_torch(torch, bounds):
    low, high = bounds

    def fill(L, dt):
        if high is None:
            return L.empty(3, dtype=dt).random_(low)
        return L.randint(low, high, (3,), dtype=dt)

    for dt in DTYPES:
        assert _draws(gradtrack, fill, dt) == _draws(torch, fill, dt), dt


def test_random_bound_warning_matches_torch(torch):
    def warned(L):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            L.empty(3, dtype=L.float16).random_(0, 3000)
        return [str(x.message).split(" (Triggered")[0] for x in w]

    assert warned(gradtrack) == warned(torch)
    assert len(warned(torch)) == 1


def test_reduced_normal_keeps_version_rules(torch):
    for L in (torch, gradtrack):
        t = L.zeros(20, dtype=L.float16)
        t.normal_()
        assert t._version == 1
    assert np.isfinite(gradtrack.randn(100, dtype=gradtrack.bfloat16).float().numpy()).all()
