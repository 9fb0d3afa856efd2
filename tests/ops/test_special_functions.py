"""torch.special's value-only functions (the Bessel and Airy functions, the orthogonal
polynomials) against torch 2.13: values on grids and at the edges (poles, zeros, +-inf, NaN,
far tails) in float32 and float64, integer inputs, degrees of every kind, number and tensor
argument forms, broadcasting, dtype promotion, out=, no grad_fn, and the errors.
"""

import math
import warnings

import numpy as np
import pytest

import gradtrack

torch = pytest.importorskip("torch")

NAN, INF = math.nan, math.inf

UNARY = ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0",
         "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
         "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0",
         "airy_ai"]
X_ARGUMENT = {"scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0",
              "airy_ai"}
POLYNOMIALS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
               "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
               "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
               "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
               "laguerre_polynomial_l", "legendre_polynomial_p"]

# every branch of the approximations: the series near 0, the switches at 2, 2.09, 5, 8,
# 8.32 and 103.892, the far tails, the poles and the non-numbers
EDGES = [NAN, INF, -INF, 0.0, -0.0, 1e-30, -1e-30, 1e-6, -1e-6, 0.25, -0.25, 0.4999, 0.5, 1.0,
         -1.0, 1.9999, 2.0, 2.0001, 2.09, -2.09, 2.1, -2.1, 4.9999, 5.0, 5.0001, -5.0, 7.9999,
         8.0, 8.0001, -8.0, 8.32, 8.33, 10.0, -10.0, 30.0, -30.0, 85.0, 88.0, 100.0, 103.89,
         103.9, 700.0, 710.0, -700.0, 1e10, -1e10, 1e30, -1e30]
GRID = np.concatenate([np.linspace(-12.0, 12.0, 241), np.geomspace(1e-4, 200.0, 60),
                       -np.geomspace(1e-4, 200.0, 60)])


def _ours(name):
    return getattr(gradtrack.special, name)


def _theirs(name):
    return getattr(torch.special, name)


def _assert_close(ours, theirs, float32):
    """torch.testing.assert_close at its defaults for the dtype: NaN where torch has NaN,
    the same infinities and zeros' signs where torch has them exactly."""
    a = np.asarray(ours.tolist(), dtype=np.float64).ravel()
    b = theirs.double().numpy().ravel()
    assert ours.dtype == (gradtrack.float32 if float32 else gradtrack.float64)
    torch.testing.assert_close(torch.from_numpy(a), torch.from_numpy(b), equal_nan=True,
                               rtol=1.3e-6 if float32 else 1e-7, atol=1e-5 if float32 else 1e-7)
    exact = np.isinf(b) | (b == 0)
    assert np.array_equal(a[exact], b[exact])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", UNARY)
def test_unary_matches_torch_on_grid_and_edges(name, dtype):
    values = np.concatenate([GRID, EDGES])
    x = gradtrack.tensor(values.tolist(), dtype=getattr(gradtrack, dtype))
    _assert_close(_ours(name)(x), _theirs(name)(torch.tensor(values, dtype=getattr(torch, dtype))),
                  dtype == "float32")


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool"])
def test_unary_integer_inputs_give_the_default_float(name, dtype):
    values = [0, 1, 2, 7, 100] if dtype != "bool" else [False, True]
    ours = _ours(name)(gradtrack.tensor(values, dtype=getattr(gradtrack, dtype)))
    theirs = _theirs(name)(torch.tensor(values, dtype=getattr(torch, dtype)))
    _assert_close(ours, theirs, True)


def test_unary_integer_inputs_follow_the_default_dtype():
    gradtrack.set_default_dtype(gradtrack.float64)
    try:
        assert gradtrack.special.bessel_j0(gradtrack.tensor([1])).dtype == gradtrack.float64
        assert (gradtrack.special.chebyshev_polynomial_t(gradtrack.tensor([1]), 2).dtype
                == gradtrack.float64)
    finally:
        gradtrack.set_default_dtype(gradtrack.float32)


DEGREES = [-3, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15, 30, 60, 127, 128, 129, 200, 511, 512,
           513]
POLY_X = [-3.0, -1.5, -1.0, -0.999, -0.75, -0.5, -0.3, -0.0, 0.0, 0.1, 0.25, 0.5, 0.6, 0.9, 1.0,
          1.0001, 1.5, 2.0, 4.0, INF, -INF]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomials_match_torch_over_degrees(name, dtype):
    xs, ns = np.meshgrid(np.array(POLY_X), np.array(DEGREES, dtype=np.float64))
    x = gradtrack.tensor(xs.tolist(), dtype=getattr(gradtrack, dtype))
    n = gradtrack.tensor(ns.tolist(), dtype=getattr(gradtrack, dtype))
    t = getattr(torch, dtype)
    theirs = _theirs(name)(torch.tensor(xs, dtype=t), torch.tensor(ns, dtype=t))
    _assert_close(_ours(name)(x, n), theirs, dtype == "float32")


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomial_degrees_that_are_not_integers(name):
    # truncated toward zero; NaN, infinities and degrees beyond int64 count as negative
    x = gradtrack.tensor([0.3, -0.7, 1.0, -1.0, 2.5, 0.0])
    for n in [NAN, INF, -INF, 1e20, -1e20, -1.5, -0.5, 0.5, 2.7, 3.999]:
        theirs = _theirs(name)(torch.tensor([0.3, -0.7, 1.0, -1.0, 2.5, 0.0]), n)
        _assert_close(_ours(name)(x, n), theirs, True)


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomial_nan_input(name):
    # degrees 0 and 1 as torch; from degree 2 torch's recurrences return a variable they
    # never set when x is NaN (0, -0.5 or NaN by the build), gradtrack returns NaN
    for n in [0, 1]:
        ours = _ours(name)(gradtrack.tensor([NAN], dtype=gradtrack.float64), n)
        theirs = _theirs(name)(torch.tensor([NAN], dtype=torch.float64), n)
        _assert_close(ours, theirs, False)
    ours = _ours(name)(gradtrack.tensor([NAN] * 3), gradtrack.tensor([2.0, 5.0, 12.0]))
    assert all(math.isnan(v) for v in ours.tolist())


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomial_argument_forms_promote_as_torch(name):
    cases = [
        (lambda L: L.tensor([0.5, 2.0]), lambda L: 3),
        (lambda L: L.tensor([0.5, 2.0]), lambda L: 2.5),
        (lambda L: L.tensor([0.5, 2.0]), lambda L: True),
        (lambda L: 0.5, lambda L: L.tensor([1, 2, 3])),
        (lambda L: 2, lambda L: L.tensor([1, 2, 3])),
        (lambda L: True, lambda L: L.tensor([2])),
        (lambda L: L.tensor([1, 2]), lambda L: L.tensor([2, 3])),
        (lambda L: L.tensor([1, 2], dtype=L.int32), lambda L: L.tensor([2, 3])),
        (lambda L: L.tensor([True, False]), lambda L: 2),
        (lambda L: L.tensor([0.5, 2.0], dtype=L.float64), lambda L: 3),
        (lambda L: L.tensor([0.5, 2.0]), lambda L: L.tensor(2.0, dtype=L.float64)),
        (lambda L: L.tensor([0.5, 2.0]), lambda L: L.tensor([2.0, 3.0], dtype=L.float64)),
        (lambda L: L.tensor(0.5, dtype=L.float64), lambda L: L.tensor([1.0, 2.0])),
        (lambda L: L.tensor([0.25, 0.5, 0.75]).reshape(3, 1), lambda L: L.tensor([0, 1, 4, 9])),
        (lambda L: L.ones(2, 3).t(), lambda L: L.tensor([1.0, 2.0])),
        (lambda L: L.ones(0, 3), lambda L: 2),
    ]
    for x, n in cases:
        ours = _ours(name)(x(gradtrack), n(gradtrack))
        theirs = _theirs(name)(x(torch), n(torch))
        assert tuple(ours.shape) == tuple(theirs.shape)
        _assert_close(ours, theirs, theirs.dtype == torch.float32)


@pytest.mark.parametrize("name", ["bessel_j0", "airy_ai", "chebyshev_polynomial_t",
                                  "legendre_polynomial_p"])
def test_results_are_laid_out_as_torch_lays_them_out(name):
    base = np.arange(12.0).reshape(3, 4) / 7
    forms = [lambda L: (L.tensor(base.tolist()).t(),),
             lambda L: (L.tensor(base.tolist())[:, ::2],),
             lambda L: (L.tensor(base.tolist()).t(), L.tensor([[1.0, 2.0, 3.0]] * 4)),
             lambda L: (0.5, L.tensor(base.tolist()).t()),
             lambda L: (L.tensor([[0.5], [0.25]]), L.tensor([2, 3, 4])),
             lambda L: (L.tensor(base.tolist()).t(), 3)]
    for form in forms:
        ours_args, theirs_args = form(gradtrack), form(torch)
        if name in UNARY and len(ours_args) != 1:
            continue
        if name in POLYNOMIALS and len(ours_args) == 1:
            ours_args, theirs_args = (*ours_args, 2), (*theirs_args, 2)
        ours, theirs = _ours(name)(*ours_args), _theirs(name)(*theirs_args)
        assert ours.stride() == theirs.stride()
        _assert_close(ours, theirs, True)


@pytest.mark.parametrize("name", UNARY + POLYNOMIALS)
def test_results_never_require_grad(name):
    x = gradtrack.tensor([0.5, 1.5], requires_grad=True)
    r = _ours(name)(x) if name in UNARY else _ours(name)(x, 3)
    assert not r.requires_grad and r.grad_fn is None
    if name in POLYNOMIALS:
        r = _ours(name)(0.5, gradtrack.tensor([2.0, 3.0], requires_grad=True))
        assert not r.requires_grad and r.grad_fn is None
        r = _ours(name)(x, gradtrack.tensor([2.0, 3.0], requires_grad=True))
        assert not r.requires_grad and r.grad_fn is None


@pytest.mark.parametrize("name", UNARY + POLYNOMIALS)
def test_out(name):
    def call(lib, out, x):
        f = getattr(lib.special, name)
        return f(x, out=out) if name in UNARY else f(x, 3, out=out)

    for lib_out in (lambda L: L.empty(3), lambda L: L.empty(3, dtype=L.float64),
                    lambda L: L.empty(0)):
        o, to = lib_out(gradtrack), lib_out(torch)
        v = o._version
        r = call(gradtrack, o, gradtrack.tensor([0.5, 1.5, 3.0]))
        call(torch, to, torch.tensor([0.5, 1.5, 3.0]))
        assert r is o and o._version > v
        _assert_close(o, to, to.dtype == torch.float32)
    # an input that requires grad is fine: nothing is differentiable
    o = gradtrack.empty(3)
    call(gradtrack, o, gradtrack.tensor([0.5, 1.5, 3.0], requires_grad=True))
    # a shape of elements: resized with torch's warning
    o = gradtrack.empty(5)
    with pytest.warns(UserWarning, match="was resized since it had shape \\[5\\]"):
        call(gradtrack, o, gradtrack.tensor([0.5, 1.5, 3.0]))
    assert tuple(o.shape) == (3,)
    o = gradtrack.zeros(3, dtype=gradtrack.int64)
    with pytest.raises(RuntimeError) as ours:
        call(gradtrack, o, gradtrack.tensor([0.5, 1.5, 3.0]))
    with pytest.raises(RuntimeError) as theirs:
        call(torch, torch.zeros(3, dtype=torch.int64), torch.tensor([0.5, 1.5, 3.0]))
    assert str(ours.value) == str(theirs.value)
    assert o.tolist() == [0, 0, 0] and o._version == 0


def _same_error(fn_ours, fn_theirs):
    with pytest.raises(Exception) as theirs:
        fn_theirs()
    with pytest.raises(type(theirs.value)) as ours:
        fn_ours()
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("name", UNARY)
def test_unary_errors(name):
    arg = "x" if name in X_ARGUMENT else "input"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for call in (lambda L: getattr(L.special, name)(1.0),
                     lambda L: getattr(L.special, name)([1.0]),
                     lambda L: getattr(L.special, name)(None),
                     lambda L: getattr(L.special, name)(),
                     lambda L: getattr(L.special, name)(L.ones(2), L.ones(2)),
                     lambda L: getattr(L.special, name)(L.ones(2), foo=1),
                     lambda L: getattr(L.special, name)(L.ones(2), out=3),
                     lambda L: getattr(L.special, name)(L.ones(2, dtype=L.float16)),
                     lambda L: getattr(L.special, name)(L.ones(2, dtype=L.bfloat16))):
            _same_error(lambda: call(gradtrack), lambda: call(torch))
    x = gradtrack.tensor([0.5])
    assert _ours(name)(**{arg: x}).tolist() == _theirs(name)(**{arg: torch.tensor([0.5])}).tolist()


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomial_errors(name):
    calls = (lambda L, f: f(2, 3), lambda L, f: f(2.0, 3), lambda L, f: f(L.ones(2)),
             lambda L, f: f(L.ones(2), "a"), lambda L, f: f("a", L.ones(2)),
             lambda L, f: f(L.ones(2), None), lambda L, f: f(L.ones(2), [1, 2]),
             lambda L, f: f(L.ones(2), n="a"), lambda L, f: f(x=L.ones(2)),
             lambda L, f: f(L.ones(2), 2, 3), lambda L, f: f(L.ones(2), L.ones(2), L.ones(2)),
             lambda L, f: f(L.ones(2), 2, out=3), lambda L, f: f(), lambda L, f: f(input=L.ones(2), n=2),
             lambda L, f: f(L.ones(2), L.ones(3)),
             lambda L, f: f(L.ones(2, dtype=L.float16), 2),
             lambda L, f: f(L.ones(2, dtype=L.bfloat16), 2))
    for call in calls:
        _same_error(lambda: call(gradtrack, _ours(name)), lambda: call(torch, _theirs(name)))
    assert (_ours(name)(x=gradtrack.tensor([0.5]), n=2).tolist()
            == _theirs(name)(x=torch.tensor([0.5]), n=2).tolist())


def test_names_are_torch_special_only():
    for name in UNARY + POLYNOMIALS:
        assert name in gradtrack.special.__all__
        assert hasattr(torch.Tensor, name) == hasattr(gradtrack.Tensor, name)
        assert hasattr(torch, name) == hasattr(gradtrack, name)
