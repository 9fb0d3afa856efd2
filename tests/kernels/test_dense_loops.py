"""The vector loops of the dense binary ops (add, sub, mul, div, maximum, minimum), of
clamp and of where (masked_fill), on float32 and float64 (NOTE [SIMD clones] in csrc/kernels/simd.h), give the
generic loop's values: every run shape (both sides dense, one side a single value,
both), lengths around the vector widths, results written over an input, and the
special values (NaN on either side, infinities, signed zeros, subnormals). Compared bit
for bit with a strided run of the same op, which takes the generic loop, with numpy's
values, and with torch where it is installed."""

import numpy as np
import pytest

import gradtrack

OPS = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
       "maximum": np.maximum, "minimum": np.minimum}
SPECIAL = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-310, -5e-324, 1.5, -2.25, 3.0]


def _values(n, dtype, seed):
    rng = np.random.default_rng(seed)
    v = rng.standard_normal(n).astype(dtype)
    k = min(n, len(SPECIAL))
    v[rng.choice(n, k, replace=False)] = np.array(SPECIAL[:k], dtype=dtype)
    return v


def _bits(t):
    """The values' bits, every NaN made one pattern (a NaN's payload is not promised)."""
    a = np.array(t.tolist() if isinstance(t, gradtrack.Tensor) else t,
                 dtype=np.float64).reshape(-1)
    return [("nan",) if x != x else (float(x), np.signbit(x)) for x in a]


def _strided(lib, v, dtype):
    """v as a strided view (every other element of a buffer twice as long)."""
    buf = np.zeros(2 * len(v), dtype=dtype)
    buf[::2] = v
    return lib.tensor(buf, dtype=getattr(lib, str(np.dtype(dtype))))[::2]


@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [1, 7, 16, 33, 257])
@pytest.mark.parametrize("shape", ["dense", "scalar_b", "scalar_a", "both_scalar"])
def test_vector_loops_equal_the_generic_loop(op, dtype, n, shape):
    a = _values(n, dtype, 1)
    b = _values(n, dtype, 2)
    if shape in ("scalar_b", "both_scalar"):
        b = b[:1]
    if shape in ("scalar_a", "both_scalar"):
        a = a[:1]
    fn = getattr(gradtrack, op)
    ta = gradtrack.tensor(a).reshape(-1) if len(a) > 1 else gradtrack.tensor(a[0])
    tb = gradtrack.tensor(b).reshape(-1) if len(b) > 1 else gradtrack.tensor(b[0])
    got = fn(ta, tb)
    # The same op with strided operands and output runs the generic loop.
    length = max(len(a), len(b))
    sa = _strided(gradtrack, np.broadcast_to(a, (length,)), dtype)
    sb = _strided(gradtrack, np.broadcast_to(b, (length,)), dtype)
    out = _strided(gradtrack, np.zeros(length, dtype), dtype)
    fn(sa, sb, out=out)
    assert _bits(got.reshape(-1).expand(length) if got.dim() == 0 else got) == _bits(out)
    with np.errstate(all="ignore"):
        expected = OPS[op](a, b).astype(dtype)
    values = [x if x[0] != 0.0 else (0.0,) for x in _bits(got.reshape(-1).expand(length))]
    assert values == [x if x[0] != 0.0 else (0.0,) for x in _bits(np.broadcast_to(expected,
                                                                                  (length,)))]


@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_signed_zeros_and_nans_as_torch(op, dtype):
    torch = pytest.importorskip("torch")
    a = _values(40, dtype, 3)
    b = np.concatenate([[0.0, -0.0, -0.0, 0.0], _values(36, dtype, 4)]).astype(dtype)
    a[:4] = [-0.0, 0.0, -0.0, 0.0]
    got = getattr(gradtrack, op)(gradtrack.tensor(a), gradtrack.tensor(b))
    expected = getattr(torch, op)(torch.tensor(a), torch.tensor(b))
    assert _bits(got) == _bits(expected.tolist())
    got = getattr(gradtrack, op)(gradtrack.tensor(a), gradtrack.tensor(b[1]))
    expected = getattr(torch, op)(torch.tensor(a), torch.tensor(b[1]))
    assert _bits(got) == _bits(expected.tolist())


@pytest.mark.parametrize("op", sorted(OPS))
def test_written_over_an_input(op):
    a = _values(100, "float32", 5)
    b = _values(100, "float32", 6)
    with np.errstate(all="ignore"):
        expected = _bits(OPS[op](a, b))
    ta, tb = gradtrack.tensor(a), gradtrack.tensor(b)
    getattr(gradtrack, op)(ta, tb, out=ta)
    assert _bits(ta) == expected
    ta, tb = gradtrack.tensor(a), gradtrack.tensor(b)
    getattr(gradtrack, op)(ta, tb, out=tb)
    assert _bits(tb) == expected


BOUNDS = [(0.0, None), (None, 0.5), (-0.5, 0.5), (0.5, -0.5), (-0.0, 0.0), (0.0, -0.0),
          (-np.inf, 1e-310)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [1, 7, 16, 33, 257])
@pytest.mark.parametrize("bounds", BOUNDS, ids=str)
def test_clamp_vector_loop_equals_the_generic_loop(dtype, n, bounds):
    lo, hi = bounds
    a = _values(n, dtype, 7)
    got = gradtrack.clamp(gradtrack.tensor(a), lo, hi)
    strided = _strided(gradtrack, a, dtype)
    assert _bits(got) == _bits(gradtrack.clamp(strided, lo, hi))
    expected = a.copy()
    if lo is not None:
        expected = np.where(expected < np.asarray(lo, dtype), np.asarray(lo, dtype), expected)
    if hi is not None:
        expected = np.where(expected > np.asarray(hi, dtype), np.asarray(hi, dtype), expected)
    assert _bits(got) == _bits(expected)
    in_place = gradtrack.tensor(a)
    in_place.clamp_(lo, hi)
    assert _bits(in_place) == _bits(got)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("bounds", BOUNDS + [(np.nan, None), (None, np.nan)], ids=str)
def test_clamp_as_torch(dtype, bounds):
    torch = pytest.importorskip("torch")
    a = _values(40, dtype, 8)
    a[:2] = [-0.0, 0.0]
    got = gradtrack.clamp(gradtrack.tensor(a), *bounds)
    expected = torch.clamp(torch.tensor(a), *bounds)
    assert _bits(got) == _bits(expected.tolist())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [1, 7, 16, 33, 257])
@pytest.mark.parametrize("shape", ["dense", "scalar_b", "scalar_a", "both_scalar"])
def test_where_vector_loop_equals_the_generic_loop(dtype, n, shape):
    rng = np.random.default_rng(n)
    cond = rng.random(n) < 0.5
    a = _values(n, dtype, 9)
    b = _values(n, dtype, 10)
    ta = gradtrack.tensor(a[0]) if shape in ("scalar_a", "both_scalar") else gradtrack.tensor(a)
    tb = gradtrack.tensor(b[0]) if shape in ("scalar_b", "both_scalar") else gradtrack.tensor(b)
    got = gradtrack.where(gradtrack.tensor(cond), ta, tb)
    full_a = np.broadcast_to(ta.numpy(), (n,))
    full_b = np.broadcast_to(tb.numpy(), (n,))
    assert _bits(got) == _bits(np.where(cond, full_a, full_b))
    strided = gradtrack.where(_strided(gradtrack, cond, bool), _strided(gradtrack, full_a, dtype),
                              _strided(gradtrack, full_b, dtype))
    assert _bits(got) == _bits(strided)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_masked_fill_and_where_as_torch(dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(11)
    cond = rng.random((37, 41)) < 0.3
    a = rng.standard_normal((37, 41)).astype(dtype)
    a[0, :4] = [np.nan, -0.0, np.inf, -np.inf]
    for lib_fill in (-np.inf, -0.0, np.nan):
        got = gradtrack.tensor(a).masked_fill(gradtrack.tensor(cond), lib_fill)
        expected = torch.tensor(a).masked_fill(torch.tensor(cond), lib_fill)
        assert _bits(got) == _bits(expected.tolist())
        in_place = gradtrack.tensor(a)
        in_place.masked_fill_(gradtrack.tensor(cond), lib_fill)
        assert _bits(in_place) == _bits(got)
    got = gradtrack.where(gradtrack.tensor(cond), gradtrack.tensor(a), 0.5)
    expected = torch.where(torch.tensor(cond), torch.tensor(a), 0.5)
    assert _bits(got) == _bits(expected.tolist())


ROUNDING = {"floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "round": np.round}
HALVES = [0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 8388607.5, -8388607.5, 2.0 ** 23, 2.0 ** 52 + 1,
          1e30, -1e-30, 0.49999997]


@pytest.mark.parametrize("name", sorted(ROUNDING))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [1, 7, 16, 33, 257])
def test_rounding_vector_loops_equal_the_generic_loop(name, dtype, n):
    # round is to nearest with ties to even (numpy's and torch's rule).
    a = _values(n, dtype, 12) * 4
    a[: min(n, len(HALVES))] = np.array(HALVES[: min(n, len(HALVES))], dtype=dtype)
    got = getattr(gradtrack.tensor(a), name)()
    assert _bits(got) == _bits(getattr(_strided(gradtrack, a, dtype), name)())
    assert _bits(got) == _bits(ROUNDING[name](a))


# sigmoid and silu of dense float32 runs take the vector exp (at most 0.77 ulp on
# AVX-512, 2 ulp elsewhere), as torch's take SLEEF's: their last bit may differ from the
# strided loop's (libm's exp), so they are held to float64 instead.
LOGISTIC = {"sigmoid": (lambda L, t: t.sigmoid(), lambda x: 1 / (1 + np.exp(-x))),
            "silu": (lambda L, t: L.nn.functional.silu(t), lambda x: x / (1 + np.exp(-x)))}


@pytest.mark.parametrize("name", sorted(LOGISTIC))
@pytest.mark.parametrize("n", [1, 7, 16, 33, 1025, 5000])
def test_logistic_vector_loops_within_ulps_of_float64(name, n):
    fn, exact = LOGISTIC[name]
    rng = np.random.default_rng(n)
    a = (rng.standard_normal(n) * 6).astype(np.float32)
    got = fn(gradtrack, gradtrack.tensor(a)).numpy().astype(np.float64)
    with np.errstate(over="ignore"):
        ref = exact(a.astype(np.float64))
    ulp = np.spacing(np.abs(ref).astype(np.float32)).astype(np.float64)
    assert np.all(np.abs(got - ref) <= 3 * ulp)


@pytest.mark.parametrize("name", sorted(LOGISTIC))
def test_logistic_special_values_as_torch(name):
    torch = pytest.importorskip("torch")
    fn, _ = LOGISTIC[name]
    a = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 88.8, -88.8, 104.0, -104.0, 1e-30,
                  -1e-30, 20.0, -20.0] * 3, dtype=np.float32)
    assert _bits(fn(gradtrack, gradtrack.tensor(a))) == _bits(fn(torch, torch.tensor(a)).tolist())


@pytest.mark.parametrize("name", sorted(LOGISTIC))
def test_logistic_close_to_torch(name):
    torch = pytest.importorskip("torch")
    fn, _ = LOGISTIC[name]
    a = (np.random.default_rng(13).standard_normal(100_000) * 6).astype(np.float32)
    got = fn(gradtrack, gradtrack.tensor(a)).numpy()
    expected = fn(torch, torch.tensor(a)).numpy()
    ulp = np.spacing(np.abs(expected))
    assert np.all(np.abs(got - expected) <= 4 * ulp)


# lerp is one kernel, rounded as torch's vector loop: with d = end - start, fma(w, d,
# start) for |w| < 0.5, else fma(w - 1, d, end). Equal to torch bit for bit, dense or not,
# except the sign of a zero result with |w| >= 0.5 where torch's scalar loop takes the
# run's last elements (end - d * (1 - w) there).
LERP_WEIGHTS = [0.0, 0.3, -0.49, 0.5, -0.5, 0.75, 1.0, 1.5, -2.0, np.inf, -np.inf, np.nan]


def _lerp_operands(lib, dtype, n, seed):
    rng = np.random.default_rng(seed)
    a, b = _values(n, "float64", seed), _values(n, "float64", seed + 1)
    w = rng.choice(LERP_WEIGHTS, n) if n > 1 else np.array([0.75])
    w[: n // 2] = rng.uniform(-1.5, 1.5, n // 2)
    d = getattr(lib, dtype)
    return (lib.tensor(a, dtype=d), lib.tensor(b, dtype=d), lib.tensor(w, dtype=d))


def _lerp_bits(t):
    """_bits with either sign of a zero (torch's scalar tail may give the other)."""
    return [(0.0,) if len(v) == 2 and v[0] == 0 else v for v in _bits(t)]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("n", [1, 7, 16, 33, 257])
def test_lerp_as_torch(dtype, n):
    torch = pytest.importorskip("torch")
    (a, b, w), (ta, tb, tw) = (_lerp_operands(L, dtype, n, n) for L in (gradtrack, torch))
    assert _lerp_bits(gradtrack.lerp(a, b, w).float()) == _lerp_bits(
        torch.lerp(ta, tb, tw).float().tolist())
    assert _lerp_bits(a[::2].lerp(b[::2], w[::2]).float()) == _lerp_bits(
        ta[::2].lerp(tb[::2], tw[::2]).float().tolist())
    for weight in (0.3, 0.5, 1.0, -0.7, 2.5):
        assert _lerp_bits(a.lerp(b, weight).float()) == _lerp_bits(
            ta.lerp(tb, weight).float().tolist())
    # 64 elements, all in torch's vector loop: zeros of either sign, weight 1
    zeros = np.tile([[-0.0, 0.63, -0.0, 0.0, 0.0, 1.0, -2.0, 0.0],
                     [-0.0, -0.0, 0.0, -0.0, 0.0, -0.0, 0.0, 0.0]], 8)
    za, zb = (gradtrack.tensor(v, dtype=getattr(gradtrack, dtype)) for v in zeros)
    tza, tzb = (torch.tensor(v, dtype=getattr(torch, dtype)) for v in zeros)
    for weight in (1.0, 0.0, 0.7, -0.2):
        assert _bits(za.lerp(zb, weight).float()) == _bits(tza.lerp(tzb, weight).float().tolist())


def test_lerp_broadcast_in_place_and_out():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    a, b, w = rng.standard_normal((5, 33)), rng.standard_normal(33), rng.uniform(-1, 2, (5, 1))
    results = []
    for lib in (gradtrack, torch):
        ta, tb, tw = (lib.tensor(v, dtype=lib.float32) for v in (a, b, w))
        out = lib.empty(5, 33)
        lib.lerp(ta, tb, tw, out=out)
        ta.lerp_(tb, tw)
        results.append((ta.tolist(), out.tolist(), ta._version))
    assert results[0] == results[1]


def test_lerp_is_numpys_formula():
    # without torch: the value of the formula, computed in float64 and rounded (an FMA
    # rounds once, float64 holds float32's product and difference exactly)
    rng = np.random.default_rng(4)
    a, b = (rng.standard_normal(1000).astype(np.float32) for _ in range(2))
    w = rng.uniform(-1.5, 1.5, 1000).astype(np.float32)
    small = np.abs(w) < 0.5
    diff = (b - a).astype(np.float64)  # end - start, rounded to float32 first
    one_minus_w = (np.float32(1) - w).astype(np.float64)
    expected = np.where(small, w * diff + a, b - diff * one_minus_w).astype(np.float32)
    got = gradtrack.lerp(gradtrack.tensor(a), gradtrack.tensor(b), gradtrack.tensor(w)).numpy()
    # float64 holds each product exactly; its sum is rounded twice (to float64, then to
    # float32), which can differ from one rounding by an ulp, rarely
    ulp = np.spacing(np.abs(expected))
    assert np.all(np.abs(got - expected) <= ulp)
    assert np.mean(got == expected) > 0.99


# addcmul and addcdiv of floats are one kernel each, rounded as torch's: fma(value * t1,
# t2, self) and self + value * t1 / t2.
@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_addcmul_addcdiv_as_torch(name, dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    s, a = _values(257, "float64", 6), rng.standard_normal(257)
    b = rng.standard_normal(257) + 0.05
    results = []
    for lib in (gradtrack, torch):
        d = getattr(lib, dtype)
        ts, ta, tb = (lib.tensor(v, dtype=d) for v in (s, a, b))
        f = getattr(lib, name)
        got = [f(ts, ta, tb, value=0.37), f(ts, ta, tb), f(ts[::2], ta[::2], tb[::2], value=-3.0),
               f(ts.reshape(1, 257), ta.reshape(257, 1)[:5], tb[:257].reshape(1, 257))]
        inplace = ts.clone()
        getattr(inplace, name + "_")(ta, tb, value=1.5)
        got.append(inplace)
        results.append([_bits(t.float().tolist()) for t in got])
    assert results[0] == results[1]


def test_addcmul_addcdiv_are_numpys_formulas():
    rng = np.random.default_rng(7)
    s, a, b = (rng.standard_normal(1000).astype(np.float32) for _ in range(3))
    v = np.float32(0.37)
    va = (v * a).astype(np.float64)  # value * t1, rounded to float32 first
    expected = {"addcmul": (va * b + s).astype(np.float32),  # one rounding: an FMA
                "addcdiv": s + (v * a) / b}
    for name, want in expected.items():
        got = getattr(gradtrack, name)(*(gradtrack.tensor(t) for t in (s, a, b)),
                                       value=0.37).numpy()
        # float64 holds the product exactly; its sum is rounded twice, rarely an ulp away
        assert np.all(np.abs(got - want) <= np.spacing(np.abs(want)))
        assert np.mean(got == want) > 0.99


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("kwargs", [{}, {"nan": 1.0}, {"nan": -2.0, "posinf": 7.0, "neginf": -1e300},
                                    {"posinf": 1e300}])
def test_nan_to_num_as_torch(dtype, kwargs):
    # float32 and float64 take one pass; +inf becomes the dtype's largest value by default
    # (65504 for float16, not inf)
    torch = pytest.importorskip("torch")
    v = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -3e38, 1e-45] * 40)
    results = []
    for lib in (gradtrack, torch):
        t = lib.tensor(v, dtype=getattr(lib, dtype))
        inplace = t.clone()
        inplace.nan_to_num_(**kwargs)
        results.append([_bits(x.double().tolist()) for x in
                        (t.nan_to_num(**kwargs), t[::3].nan_to_num(**kwargs), inplace)])
    assert results[0] == results[1]


def test_nan_to_num_is_numpys():
    v = _values(1000, "float32", 9)
    v[::7] = np.inf
    v[3::7] = -np.inf
    got = gradtrack.tensor(v).nan_to_num(nan=0.5, posinf=2.0).numpy()
    assert _bits(got) == _bits(np.nan_to_num(v, nan=0.5, posinf=2.0))


def test_silu_backward_within_ulps_of_float64():
    # silu's derivative s (1 + x (1 - s)), s = sigmoid(x), in the vector exp as the forward
    rng = np.random.default_rng(11)
    x = (rng.standard_normal(20_000) * 6).astype(np.float32)
    g = rng.standard_normal(20_000).astype(np.float32)
    t = gradtrack.tensor(x, requires_grad=True)
    gradtrack.nn.functional.silu(t).backward(gradtrack.tensor(g))
    x64 = x.astype(np.float64)
    with np.errstate(over="ignore"):
        s = 1 / (1 + np.exp(-x64))
    ref = g * (s * (1 + x64 * (1 - s)))
    # near x = -1.28 the derivative crosses 0: each term carries its own ulps there
    terms = np.abs(g) * (s + np.abs(x64) * s * (1 - s))
    # (and 1 - s cancels for large x, as in torch's formula: x ulps of s)
    bound = 4 * np.spacing(np.abs(ref).astype(np.float32)) + 4 * 2.0**-24 * terms
    bound += 2 * 2.0**-24 * np.abs(g) * np.abs(x64)
    assert np.all(np.abs(t.grad.numpy() - ref) <= bound)


@pytest.mark.parametrize("name", ["leaky_relu", "hardswish", "hardsigmoid", "hardtanh", "silu",
                                  "elu"])
def test_activation_backward_as_torch(name):
    # the derivative goes through a block buffer (the product loop vectorizes): torch's
    # values, the hard activations' +0 for negative gradients outside their linear piece,
    # torch's pieces at their joints (hardswish at -3 and 3), and one gradient value
    # expanded from a sum. (At a NaN input torch's vector and scalar loops disagree:
    # hardtanh gives 0 or the gradient, hardswish NaN or the gradient. Left out.)
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(12)
    x = (rng.standard_normal(5000) * 4).astype(np.float32)
    x[:8] = [-3.0, 3.0, 0.0, -0.0, 1.0, -1.0, 6.0, 2.5]
    g = rng.standard_normal(5000).astype(np.float32)
    grads = []
    for lib in (gradtrack, torch):
        fn = getattr(lib.nn.functional, name)
        t = lib.tensor(x, requires_grad=True)
        fn(t).backward(lib.tensor(g))
        u = lib.tensor(x, requires_grad=True)
        fn(u).sum().backward()
        grads.append((t.grad.numpy(), u.grad.numpy()))
    for ours, theirs in zip(grads[0], grads[1]):
        if name in ("silu", "elu"):  # the last bits of exp, and elu's order of products
            close = np.abs(ours - theirs) <= 4 * np.spacing(np.abs(theirs)) + 1e-7
            assert np.all(close | (np.isnan(ours) & np.isnan(theirs)))
        else:
            assert _bits(ours) == _bits(theirs)


def test_hardswish_gradient_at_its_joints_with_a_graph():
    # create_graph=True takes the formula of ops, not the kernel: the same pieces
    torch = pytest.importorskip("torch")
    grads = []
    for lib in (gradtrack, torch):
        x = lib.tensor([-3.0, 3.0, -2.5, 2.5], requires_grad=True)
        (g,) = lib.autograd.grad(lib.nn.functional.hardswish(x).sum(), x, create_graph=True)
        grads.append(g.tolist())
    assert grads[0] == grads[1]
    assert grads[0][:2] == [0.0, 1.0]
    assert grads[0][2:] == pytest.approx([-2.5 / 3 + 0.5, 2.5 / 3 + 0.5])


@pytest.mark.parametrize("shape", [(64, 10), (300, 1024), (7, 3000), (3, 1), (4, 0)])
def test_log_softmax_backward_rows_within_float64(shape):
    # dense float32 rows: the gradient's sum over lanes, exp(y) in the vector exp; no
    # farther from float64 than torch's (measured 2-4x closer)
    rng = np.random.default_rng(13)
    x = (rng.standard_normal(shape) * 3).astype(np.float32)
    g = rng.standard_normal(shape).astype(np.float32)
    t = gradtrack.tensor(x, requires_grad=True)
    t.log_softmax(1).backward(gradtrack.tensor(g))
    if x.size == 0:
        assert t.grad.shape == shape
        return
    x64, g64 = x.astype(np.float64), g.astype(np.float64)
    top = x64.max(1, keepdims=True)
    y = x64 - top - np.log(np.exp(x64 - top).sum(1, keepdims=True))
    ref = g64 - np.exp(y) * g64.sum(1, keepdims=True)
    scale = np.abs(g64).sum(1, keepdims=True) * np.exp(y) + np.abs(g64)
    assert np.all(np.abs(t.grad.numpy() - ref) <= 8 * 2.0**-24 * scale)
