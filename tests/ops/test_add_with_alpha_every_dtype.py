"""add, sub and rsub with alpha give torch's bits in every dtype and form.

torch 2.13 applies one rule (NOTE [add and sub with alpha round once]): the number or
tensor ``b`` and ``alpha`` are converted to the dtype, then ``a + alpha * b`` is one fused
multiply-add, in float32 for float16 and bfloat16 and rounded once to the dtype; integers
wrap around; a bool alpha of False leaves ``a``. ``alpha * b`` is never folded into one
number first (that rounds twice: a bfloat16 ``x.add(2.7, alpha=0.1)`` differed from
torch's in one element of ten). The tensors here have 1024 elements: torch's scalar loop
over the last elements of a row, fewer than two vector widths, rounds ``alpha * b`` first,
which gradtrack does not copy.
"""

import numpy as np
import pytest

import gradtrack

torch = pytest.importorskip("torch")

N = 1024
FLOATS = ("bfloat16", "float16", "float32", "float64")
INTEGERS = ("int8", "int16", "int32", "int64", "uint8")
FORMS = ("add", "sub", "rsub", "add_", "sub_", "add_out", "sub_out")
NUMBERS = (2.7, -1.3, 257, 1e-3)


def values(dtype, seed):
    rng = np.random.default_rng(seed)
    if dtype in INTEGERS:  # the whole range: sums and products overflow
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, N, dtype=dtype, endpoint=True).tolist()
    return (rng.standard_normal(N) * 8).tolist()


def run(lib, form, x, b, alpha):
    if form in ("add", "sub", "rsub"):
        return getattr(lib, form)(x, b, alpha=alpha)
    if form in ("add_", "sub_"):
        return getattr(x.clone(), form)(b, alpha=alpha)
    out = lib.empty(x.shape, dtype=x.dtype)
    getattr(lib, form[:3])(x, b, alpha=alpha, out=out)
    return out


def assert_same(g, t):
    assert str(g.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    # float32 holds every bfloat16 and float16 exactly: compare those as float32 bits
    got = g.float().numpy() if g.dtype in (gradtrack.bfloat16, gradtrack.float16) else g.numpy()
    want = t.float().numpy() if t.dtype in (torch.bfloat16, torch.float16) else t.numpy()
    differ = got.view(np.uint8) != want.view(np.uint8)
    assert not differ.any(), f"{int(differ.reshape(N, -1).any(1).sum())} of {N} differ"


def both(form, dtype, operand, alpha):
    """gradtrack's and torch's results for one form; operand: 'tensor', a number, or
    ('zero_dim', number, operand dtype)."""
    results = []
    for lib in (gradtrack, torch):
        dt = getattr(lib, dtype)
        x = lib.tensor(values(dtype, 0), dtype=dt)
        if operand == "tensor":
            b = lib.tensor(values(dtype, 1), dtype=dt)
        elif isinstance(operand, tuple):
            b = lib.tensor(operand[1], dtype=getattr(lib, operand[2]))
        else:
            b = operand
        results.append(run(lib, form, x, b, alpha))
    return results


@pytest.mark.parametrize("alpha", (2, 0.1, -3, 0.3))
@pytest.mark.parametrize("dtype", FLOATS)
def test_float_dtypes_match_torch_bit_for_bit(dtype, alpha):
    for form in FORMS:
        for operand in ("tensor", *NUMBERS, ("zero_dim", 2.7, dtype), ("zero_dim", 0.3, "float64")):
            assert_same(*both(form, dtype, operand, alpha))


@pytest.mark.parametrize("alpha", (2, -3, 100))
@pytest.mark.parametrize("dtype", INTEGERS)
def test_integer_dtypes_wrap_as_torch(dtype, alpha):
    # the products overflow every dtype here; torch's wrap around
    for form in FORMS:
        for operand in ("tensor", 77, -2**40 - 3, ("zero_dim", 1000, "int64")):
            assert_same(*both(form, dtype, operand, alpha))


def to_bfloat16(x32):
    """float32 -> bfloat16 -> float32, rounding to nearest even (finite values)."""
    u = np.asarray(x32, np.float32).view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) << 16
    return r.astype(np.uint32).view(np.float32)


@pytest.mark.parametrize("dtype", ("bfloat16", "float16"))
def test_reduced_floats_round_alpha_and_the_number_then_fuse(dtype):
    # the rule itself, checked on both libraries: fma(alpha, b, x) in float32 with alpha and
    # b rounded to the dtype first, then one rounding to the dtype
    to_dtype = to_bfloat16 if dtype == "bfloat16" else (lambda v: np.float32(v).astype(np.float16)
                                                          .astype(np.float32))
    x = to_dtype(np.array(values("float32", 0), np.float32))
    for alpha, b in ((0.1, 2.7), (0.3, 3.14159), (-3, 100.7)):
        exact = x.astype(np.float64) + np.float64(to_dtype(alpha)) * np.float64(to_dtype(b))
        want = to_dtype(exact.astype(np.float32))
        for lib in (gradtrack, torch):
            t = lib.tensor(x.tolist(), dtype=getattr(lib, dtype))
            np.testing.assert_array_equal(lib.add(t, b, alpha=alpha).float().numpy(), want)
            np.testing.assert_array_equal(lib.sub(t, b, alpha=-alpha).float().numpy(), want)
            np.testing.assert_array_equal(t.clone().sub_(-b, alpha=alpha).float().numpy(), want)


def test_bfloat16_out_of_a_wider_dtype_gets_the_bfloat16_result():
    got = []
    for lib in (gradtrack, torch):
        x = lib.tensor(values("float32", 0), dtype=lib.bfloat16)
        out = lib.empty(N, dtype=lib.float32)
        lib.add(x, 2.7, alpha=0.1, out=out)
        got.append(out.numpy())
    np.testing.assert_array_equal(got[0], got[1])


def bool_pair(form, operand, alpha):
    results = []
    for lib in (gradtrack, torch):
        x = lib.tensor([True, False, True, False] * 4)
        b = {"tensor": lib.tensor([True, True, False, False] * 4), "number": True,
             "zero_dim": lib.tensor(True)}[operand]
        results.append(run(lib, form, x, b, alpha))
    return results


@pytest.mark.parametrize("alpha", (0, False, True, 2))
def test_bool_alpha_false_leaves_the_input(alpha):
    x = [True, False, True, False] * 4
    for form in ("add", "add_", "add_out"):
        for operand in ("tensor", "number", "zero_dim"):
            g, t = bool_pair(form, operand, alpha)
            assert g.tolist() == t.tolist()
            assert (t.tolist() == x) == (not alpha)


def error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the exception is the measurement
        return type(e), str(e)
    return None


REFUSALS = {
    "shapes before a float alpha": lambda L: L.add(L.ones(3, dtype=L.int64),
                                                     L.ones(4, dtype=L.int64), alpha=0.5),
    "shapes before a float alpha, sub": lambda L: L.sub(L.ones(3, dtype=L.int64),
                                                         L.ones(4, dtype=L.int64), alpha=0.5),
    "shapes before a float alpha, rsub": lambda L: L.rsub(L.ones(3, dtype=L.int64),
                                                           L.ones(4, dtype=L.int64), alpha=0.5),
    "shapes before a bool alpha": lambda L: L.add(L.ones(3), L.ones(4), alpha=True),
    "out's dtype before a bool alpha": lambda L: L.add(L.ones(3), 2, alpha=True,
                                                        out=L.empty(3, dtype=L.int64)),
    "out's dtype before a float alpha": lambda L: L.sub(L.ones(3, dtype=L.int64), 2,
                                                         alpha=0.5, out=L.empty(3, dtype=L.bool)),
    "shapes before out's dtype": lambda L: L.add(L.ones(3), L.ones(4), alpha=True,
                                                  out=L.empty(3, dtype=L.int64)),
    "sub of a bool first": lambda L: L.subtract(L.ones(3, dtype=L.bool), 2, alpha=0.5,
                                                 out=L.empty(3, dtype=L.bool)),
    "alpha alone": lambda L: L.add(L.ones(3, dtype=L.int64), 2, alpha=0.5,
                                   out=L.empty(3, dtype=L.int64)),
}


@pytest.mark.parametrize("case", REFUSALS)
def test_refusals_come_in_torchs_order(case):
    want = error(lambda: REFUSALS[case](torch))
    assert want is not None
    assert error(lambda: REFUSALS[case](gradtrack)) == want


# torch converts alpha to the dtype it computes in with an overflow check, after the other
# checks; sub and rsub convert -alpha (an int32 sub takes alpha=2**31, add refuses it).
ALPHA_OVERFLOWS = [("int8", 300), ("int8", -129), ("int8", -128), ("uint8", 256), ("uint8", -255),
                   ("uint8", -256), ("int16", 40000), ("int32", 2**31), ("int32", -2**31),
                   ("float16", 1e6), ("float16", 65519.0), ("float16", -65504.0),
                   ("bfloat16", 1e39), ("float32", 1e39), ("float32", float("inf")), ("bool", 2)]


@pytest.mark.parametrize(("dtype", "alpha"), ALPHA_OVERFLOWS, ids=str)
def test_an_alpha_the_dtype_cannot_hold_is_refused_as_torch_does(dtype, alpha):
    forms = {
        "add": lambda L, x: L.add(x, x, alpha=alpha),
        "add number": lambda L, x: L.add(x, 1, alpha=alpha),
        "sub": lambda L, x: L.sub(x, x, alpha=alpha),
        "sub_ number": lambda L, x: x.sub_(1, alpha=alpha),
        "rsub number": lambda L, x: L.rsub(x, 1, alpha=alpha),
    }
    for form, fn in forms.items():
        if dtype == "bool" and form != "add":
            continue
        outcome = []
        for lib in (gradtrack, torch):
            x = lib.ones(3, dtype=getattr(lib, dtype))
            got = error(lambda: outcome.append((fn(lib, x).tolist(), x._version)))
            if got is not None:
                outcome.append((got, x.tolist(), x._version))
        assert outcome[0] == outcome[1], form
