"""Elementwise ops: arithmetic, unary math, float predicates, comparisons and logic,
where/clamp/maximum/minimum, type promotion, and the elementwise ops composed in Python
(nan_to_num, lerp, isclose, float_power).

Most unary ops are one ``_unary`` call: the functional form on every unary sample, the
method form on a few, and the in-place form (``inplace=name + "_"``) on the functional
form's samples.
"""

import math

import numpy as np

from .reference import _erf, _f, _sigmoid
from .rows import (ALL, AWAY0, EXPONENT, FLOAT, INT, INTB, LOG1P, NONZERO, NUM, POS,
                   REAL, SMALL, A, Domain, Fixed, Mask, OpSpec, S, Step, T)
from .samples import BINARY, BINARY_SMALL, LOSS_PAIR, UNARY, UNARY_SMALL


def _div_trunc(a, b):
    if a.dtype.kind == "f" or b.dtype.kind == "f":
        return np.trunc(_f(a) / _f(b))
    q = np.abs(a.astype(np.int64)) // np.abs(b.astype(np.int64))
    return (np.sign(a.astype(np.int64)) * np.sign(b.astype(np.int64)) * q)


def _div_floor(a, b):
    if a.dtype.kind == "f" or b.dtype.kind == "f":
        return np.floor_divide(_f(a) if a.dtype.kind != "f" else a, b)
    return np.floor_divide(a.astype(np.int64), b.astype(np.int64))


def _unary(name, ref, dtypes, domain=REAL, differentiable=True, gradgrad=False, **kw):
    """The functional form on every unary sample plus the method form on a few;
    the in-place form runs on the functional form's samples."""
    return [
        OpSpec(name, lambda lib, a: getattr(lib, name)(a), UNARY, dtypes, domain,
               lambda np_, a: ref(a), differentiable, gradgrad=gradgrad, inplace=name + "_",
               **kw),
        OpSpec(f"Tensor.{name}", lambda lib, a: getattr(a, name)(), UNARY_SMALL, dtypes, domain,
               lambda np_, a: ref(a), differentiable, **kw),
    ]


def _same_int_or_float(fn):
    """Rounding ops keep integer dtypes unchanged."""
    return lambda a: a.copy() if a.dtype.kind in "iub" else fn(a)


def _vec(fn):
    def apply(a):
        out = np.vectorize(fn, otypes=[np.float64])(_f(a))
        return out.astype(a.dtype) if a.dtype.kind == "f" else out.astype(np.float32)
    return apply


def _fdt(a):
    """torch's result dtype of a float op: integers compute in float32."""
    return a.dtype if a.dtype.kind == "f" else np.float32


def _erfinv_scalar(x):
    import statistics
    if abs(x) >= 1:
        return math.copysign(math.inf, x) if abs(x) == 1 else math.nan
    return statistics.NormalDist().inv_cdf((x + 1) / 2) / math.sqrt(2)


def _sinc_scalar(x):
    return 1.0 if x == 0 else math.sin(math.pi * x) / (math.pi * x)


OPEN_UNIT = Domain("open_unit", -0.9, 0.9, 0, 1)
ABOVE_ONE = Domain("above_one", 1.2, 3.0, 1, 6)
SPECIALS = (S("specials", Fixed([[np.nan, np.inf, -np.inf], [-0.0, 0.0, -2.5]]),),
            S("2x3", A(2, 3)))

SPECIALS_PAIR = (S("nan_pairs", Fixed([[np.nan, 1.0, np.nan], [-np.inf, 0.0, 2.0]]),
                  Fixed([[2.0, np.nan, np.nan], [np.inf, -0.0, 2.0]])),)

OPS = []

# ---- elementwise arithmetic ------------------------------------------------------------------

OPS += [
    OpSpec("add", lambda lib, a, b: lib.add(a, b), BINARY, ALL,
           ref=lambda np_, a, b: np.add(a, b), inplace="add_"),
    OpSpec("add_alpha", lambda lib, a, b: lib.add(a, b, alpha=2), BINARY, NUM,
           ref=lambda np_, a, b: a + 2 * b, inplace="add_", inplace_kw=(("alpha", 2),)),
    OpSpec("add_operator", lambda lib, a, b: a + b, BINARY_SMALL, ALL),
    OpSpec("add_scalar", lambda lib, a: a + 2, UNARY, NUM, ref=lambda np_, a: a + 2,
           inplace="add_", inplace_args=(2,)),
    OpSpec("add_float_scalar", lambda lib, a: a + 1.5, UNARY_SMALL, ALL,
           ref=lambda np_, a: _f(a) + 1.5),
    OpSpec("radd_scalar", lambda lib, a: 2 + a, UNARY_SMALL, NUM),
    OpSpec("sub", lambda lib, a, b: lib.sub(a, b), BINARY, NUM,
           ref=lambda np_, a, b: np.subtract(a, b), inplace="sub_"),
    OpSpec("sub_alpha", lambda lib, a, b: lib.sub(a, b, alpha=3), BINARY_SMALL, NUM,
           ref=lambda np_, a, b: a - 3 * b, inplace="sub_", inplace_kw=(("alpha", 3),)),
    OpSpec("sub_operator", lambda lib, a, b: a - b, BINARY_SMALL, NUM),
    OpSpec("rsub_scalar", lambda lib, a: 1 - a, UNARY, FLOAT + ("int64", "int32")),
    OpSpec("rsub_fn", lambda lib, a, b: lib.rsub(a, b), BINARY_SMALL, FLOAT,
           ref=lambda np_, a, b: b - a),
    OpSpec("mul", lambda lib, a, b: lib.mul(a, b), BINARY, ALL, gradgrad=True,
           ref=lambda np_, a, b: np.multiply(a, b), inplace="mul_"),
    OpSpec("mul_operator", lambda lib, a, b: a * b, BINARY_SMALL, ALL),
    OpSpec("mul_scalar", lambda lib, a: a * 2, UNARY, NUM, inplace="mul_", inplace_args=(2,)),
    OpSpec("rmul_float_scalar", lambda lib, a: 0.5 * a, UNARY_SMALL, ALL,
           ref=lambda np_, a: 0.5 * _f(a)),
    OpSpec("div", lambda lib, a, b: lib.div(a, b), BINARY, ALL,
           ref=lambda np_, a, b: _f(a) / _f(b), domain=NONZERO, inplace="div_"),
    OpSpec("div_operator", lambda lib, a, b: a / b, BINARY_SMALL, NUM,
           ref=lambda np_, a, b: _f(a) / _f(b), domain=NONZERO),
    OpSpec("div_rounding_none", lambda lib, a, b: lib.div(a, b, rounding_mode=None),
           BINARY_SMALL, NUM, ref=lambda np_, a, b: _f(a) / _f(b), domain=NONZERO,
           inplace="div_", inplace_kw=(("rounding_mode", None),)),
    OpSpec("div_trunc", lambda lib, a, b: lib.div(a, b, rounding_mode="trunc"), BINARY, NUM,
           ref=lambda np_, a, b: _div_trunc(a, b), domain=NONZERO,
           inplace="div_", inplace_kw=(("rounding_mode", "trunc"),)),
    OpSpec("div_floor", lambda lib, a, b: lib.div(a, b, rounding_mode="floor"), BINARY, NUM,
           ref=lambda np_, a, b: _div_floor(a, b), domain=NONZERO,
           inplace="div_", inplace_kw=(("rounding_mode", "floor"),)),
    OpSpec("div_scalar", lambda lib, a: a / 4, UNARY, NUM, ref=lambda np_, a: _f(a) / 4,
           inplace="div_", inplace_args=(4,)),
    OpSpec("div_scalar_floor", lambda lib, a: lib.div(a, -3, rounding_mode="floor"),
           UNARY_SMALL, FLOAT + ("int64", "int32"),
           ref=lambda np_, a: _div_floor(a, np.asarray(-3, a.dtype)),
           inplace="div_", inplace_args=(-3,), inplace_kw=(("rounding_mode", "floor"),)),
    OpSpec("Tensor.div_trunc_scalar", lambda lib, a: a.div(2, rounding_mode="trunc"),
           UNARY_SMALL, NUM, ref=lambda np_, a: _div_trunc(a, np.asarray(2, a.dtype))),
    OpSpec("rdiv_scalar", lambda lib, a: 2 / a, UNARY, NUM, domain=NONZERO,
           ref=lambda np_, a: 2 / _f(a)),
    # torch records a NotImplemented node: backward raises (tests/test_errors.py)
    OpSpec("floor_divide", lambda lib, a, b: a // b, BINARY_SMALL, NUM, domain=NONZERO,
           ref=lambda np_, a, b: _div_floor(a, b), differentiable=False, inplace="floor_divide_"),
    OpSpec("remainder", lambda lib, a, b: lib.remainder(a, b), BINARY_SMALL, NUM,
           domain=NONZERO, ref=lambda np_, a, b: np.remainder(a, b), inplace="remainder_"),
    OpSpec("remainder_operator_scalar", lambda lib, a: a % 3, UNARY_SMALL, NUM,
           ref=lambda np_, a: np.remainder(a, 3), inplace="remainder_", inplace_args=(3,)),
    # pow: tensor**scalar (PowBackward0), tensor**tensor (PowBackward1), scalar**tensor (2)
    OpSpec("pow_scalar_2", lambda lib, a: a ** 2, UNARY, ALL, gradgrad=True,
           inplace="pow_", inplace_args=(2,)),
    OpSpec("pow_scalar_3_fn", lambda lib, a: lib.pow(a, 3), UNARY_SMALL, NUM,
           ref=lambda np_, a: a ** 3),
    OpSpec("pow_scalar_half", lambda lib, a: a ** 0.5, UNARY, FLOAT, POS,
           inplace="pow_", inplace_args=(0.5,)),
    OpSpec("pow_scalar_neg", lambda lib, a: a ** -1.5, UNARY_SMALL, FLOAT, POS),
    OpSpec("pow_scalar_0", lambda lib, a: a ** 0, UNARY_SMALL, NUM),
    OpSpec("pow_int_tensor_float_scalar", lambda lib, a: a ** 0.5, UNARY_SMALL, INT, POS,
           ref=lambda np_, a: _f(a) ** 0.5, differentiable=False),
    OpSpec("pow_tensor", lambda lib, a, b: lib.pow(a, b),
           (S("same", A(2, 3, domain=POS), A(2, 3, domain=EXPONENT)),
            S("bcast", A(2, 1, domain=POS), A(3, domain=EXPONENT)),
            S("0d_exp", A(2, 3, domain=POS), A(domain=EXPONENT)),
            S("t", T(2, 3, domain=POS), Step(2, 3, domain=EXPONENT))), NUM, gradgrad=True,
           inplace="pow_"),
    OpSpec("pow_operator_tensor", lambda lib, a, b: a ** b,
           (S("same", A(2, 3, domain=POS), A(2, 3, domain=EXPONENT)),), NUM),
    OpSpec("rpow_scalar", lambda lib, a: 2.0 ** a, UNARY, ALL, EXPONENT,
           ref=lambda np_, a: 2.0 ** _f(a)),
    OpSpec("rpow_int_scalar", lambda lib, a: 3 ** a, UNARY_SMALL, NUM, EXPONENT,
           ref=lambda np_, a: np.power(np.asarray(3, a.dtype), a)),
    OpSpec("pow_scalar_base_fn", lambda lib, a: lib.pow(2, a), UNARY_SMALL, NUM, EXPONENT,
           ref=lambda np_, a: np.power(np.asarray(2, a.dtype), a)),
]

OPS += [
    OpSpec("true_divide", lambda lib, a, b: lib.true_divide(a, b), BINARY, NUM, NONZERO,
           ref=lambda np_, a, b: _f(a) / _f(b), inplace="true_divide_"),
    OpSpec("fmod", lambda lib, a, b: lib.fmod(a, b), BINARY, NUM, NONZERO,
           ref=lambda np_, a, b: np.fmod(a, b), inplace="fmod_"),
    OpSpec("fmod_scalar", lambda lib, a: a.fmod(1.5), UNARY, FLOAT,
           ref=lambda np_, a: np.fmod(a, np.asarray(1.5, a.dtype)), inplace="fmod_",
           inplace_args=(1.5,)),
    OpSpec("atan2", lambda lib, a, b: lib.atan2(a, b), BINARY, NUM, NONZERO,
           ref=lambda np_, a, b: np.arctan2(_f(a), _f(b)), inplace="atan2_"),
    OpSpec("hypot", lambda lib, a, b: lib.hypot(a, b), BINARY, FLOAT, NONZERO,
           ref=lambda np_, a, b: np.hypot(a, b), inplace="hypot_"),
]

# ---- unary math ------------------------------------------------------------------------------

OPS += _unary("neg", lambda a: -a, NUM)
OPS += _unary("abs", np.abs, NUM, AWAY0)
OPS += _unary("exp", lambda a: np.exp(_f(a)), ALL, gradgrad=True)
OPS += _unary("log", lambda a: np.log(_f(a)), FLOAT + INT, POS)
OPS += _unary("sqrt", lambda a: np.sqrt(_f(a)), FLOAT + INT, POS)
OPS += _unary("rsqrt", lambda a: 1 / np.sqrt(_f(a)), FLOAT + INT, POS)
OPS += _unary("sin", lambda a: np.sin(_f(a)), ALL)
OPS += _unary("cos", lambda a: np.cos(_f(a)), ALL)
OPS += _unary("tanh", lambda a: np.tanh(_f(a)), ALL, gradgrad=True)
OPS += _unary("sigmoid", lambda a: _sigmoid(np, a), ALL, gradgrad=True)
OPS += _unary("relu", lambda a: np.maximum(a, np.zeros((), a.dtype)), NUM, AWAY0)
OPS += _unary("reciprocal", lambda a: 1 / _f(a), ALL, NONZERO)
OPS += _unary("sign", lambda a: a.copy() if a.dtype == bool else np.sign(a), ALL, AWAY0)
OPS += _unary("floor", _same_int_or_float(np.floor), NUM)
OPS += _unary("ceil", _same_int_or_float(np.ceil), NUM)
OPS += _unary("round", _same_int_or_float(np.round), NUM)


def _round_to(decimals):
    # NOTE [Rounding to decimals]: scaled in the dtype, rounded half to even, scaled back
    def ref(a):
        scale = a.dtype.type(10.0 ** abs(decimals))
        return np.rint(a / scale) * scale if decimals < 0 else np.rint(a * scale) / scale
    return ref


for _d in (2, -1):
    OPS.append(OpSpec(f"round_decimals_{_d}", lambda lib, a, d=_d: lib.round(a, decimals=d),
                      UNARY, FLOAT, REAL, lambda np_, a, d=_d: _round_to(d)(a), True,
                      gradcheck=False, inplace="round_", inplace_kw=(("decimals", _d),)))
OPS += _unary("trunc", _same_int_or_float(np.trunc), NUM)
OPS += _unary("log1p", lambda a: np.log1p(_f(a)), FLOAT + INT, LOG1P)
OPS += _unary("expm1", lambda a: np.expm1(_f(a)), ALL)
OPS += _unary("square", lambda a: np.square(a.astype(np.int64) if a.dtype == bool else a), ALL)
OPS += _unary("sgn", lambda a: a.copy() if a.dtype == bool else np.sign(a), ALL, AWAY0)
OPS += _unary("tan", lambda a: np.tan(_f(a)), ALL, Domain("tan", -1.2, 1.2, -1, 2))
OPS += _unary("asin", lambda a: np.arcsin(_f(a)), FLOAT + INT, Domain("unit", -0.9, 0.9, 0, 2))
OPS += _unary("acos", lambda a: np.arccos(_f(a)), FLOAT + INT, Domain("unit", -0.9, 0.9, 0, 2))
OPS += _unary("atan", lambda a: np.arctan(_f(a)), ALL)
OPS += _unary("sinh", lambda a: np.sinh(_f(a)), ALL)
OPS += _unary("cosh", lambda a: np.cosh(_f(a)), ALL)
OPS += _unary("log2", lambda a: np.log2(_f(a)), FLOAT + INT, POS)
OPS += _unary("log10", lambda a: np.log10(_f(a)), FLOAT + INT, POS)
OPS += _unary("erf", lambda a: _erf(_f(a)), ALL)
OPS += _unary("exp2", lambda a: np.exp2(_f(a)), ALL)
OPS += _unary("frac", lambda a: a - np.trunc(a), FLOAT)
OPS += _unary("erfc", _vec(math.erfc), ALL)
OPS += _unary("erfinv", _vec(_erfinv_scalar), FLOAT + INT, OPEN_UNIT, rtol=4e-6)
OPS += _unary("asinh", lambda a: np.arcsinh(_f(a)).astype(_fdt(a)), ALL)
OPS += _unary("acosh", lambda a: np.arccosh(_f(a)).astype(_fdt(a)), FLOAT + INT, ABOVE_ONE)
OPS += _unary("atanh", lambda a: np.arctanh(_f(a)).astype(_fdt(a)), FLOAT + INT, OPEN_UNIT)
OPS += _unary("sinc", _vec(_sinc_scalar), ALL, rtol=4e-6)
OPS += _unary("deg2rad", lambda a: (_f(a) * (np.pi / 180)).astype(_fdt(a)), NUM)
OPS += _unary("rad2deg", lambda a: (_f(a) * (180 / np.pi)).astype(_fdt(a)), NUM)

# ---- special functions: the gamma and Bessel families, gradtrack.special -------------------


def _sp(name, *consts):
    """A scipy.special function as a numpy reference, in torch's result dtype."""
    def ref(np_, *arrays):
        import scipy.special
        out = getattr(scipy.special, name)(*consts, *[_f(a) for a in arrays])
        kinds = [a.dtype for a in arrays if a.dtype.kind == "f"]
        return np.asarray(out).astype(np.result_type(*kinds) if kinds else np.float32)
    return ref


def _special(name, ref, dtypes, domain=REAL, **kw):
    """A function of gradtrack.special (no method, no in-place form)."""
    return OpSpec(f"special_{name}", lambda lib, a: getattr(lib.special, name)(a), UNARY, dtypes,
                  domain, ref, **kw)


GAMMA = Domain("gamma", 0.3, 4.0, 1, 6)
PROBABILITY = Domain("probability", 0.05, 0.95, 0, 2)
_lgamma_ref, _digamma_ref = _sp("gammaln"), _sp("digamma")
OPS += _unary("lgamma", lambda a: _lgamma_ref(np, a), ALL, GAMMA)
OPS += _unary("digamma", lambda a: _digamma_ref(np, a), FLOAT + INT, GAMMA)
OPS += _unary("i0", lambda a: _sp("i0")(np, a), ALL)
OPS += [
    OpSpec("polygamma", lambda lib, a: lib.polygamma(1, a), UNARY, FLOAT + INT, GAMMA,
           _sp("polygamma", 1), gradgrad=True, inplace="polygamma_", inplace_args=(1,)),
    OpSpec("Tensor.polygamma_3", lambda lib, a: a.polygamma(3), UNARY_SMALL, FLOAT, GAMMA,
           _sp("polygamma", 3), rtol=4e-6),
    OpSpec("fmax", lambda lib, a, b: lib.fmax(a, b), BINARY, NUM, REAL,
           lambda np_, a, b: np.fmax(a, b)),
    OpSpec("fmin", lambda lib, a, b: lib.fmin(a, b), BINARY, NUM, REAL,
           lambda np_, a, b: np.fmin(a, b)),
    OpSpec("fmax_nan", lambda lib, a, b: lib.fmax(a, b), SPECIALS_PAIR, FLOAT,
           ref=lambda np_, a, b: np.fmax(a, b), differentiable=False),
    OpSpec("logaddexp", lambda lib, a, b: lib.logaddexp(a, b), BINARY, FLOAT, REAL,
           lambda np_, a, b: np.logaddexp(a, b), gradgrad=True),
    OpSpec("logaddexp2", lambda lib, a, b: lib.logaddexp2(a, b), BINARY, FLOAT, REAL,
           lambda np_, a, b: np.logaddexp2(a, b)),
    _special("i0e", _sp("i0e"), ALL),
    _special("i1", _sp("i1"), ALL),
    _special("i1e", _sp("i1e"), ALL),
    _special("ndtri", _sp("ndtri"), FLOAT + INT, PROBABILITY, rtol=4e-6),
    _special("log_ndtr", _sp("log_ndtr"), ALL),
    _special("erfcx", _sp("erfcx"), ALL),
    _special("entr", _sp("entr"), FLOAT + INT, POS),
    _special("expit", lambda np_, a: _sigmoid(np, a).astype(_fdt(a)), ALL),
    _special("gammaln", _sp("gammaln"), FLOAT, GAMMA),
    _special("psi", _sp("psi"), FLOAT, GAMMA),
]
OPS += [
    OpSpec("neg_operator", lambda lib, a: -a, UNARY_SMALL, NUM),
    OpSpec("abs_operator", lambda lib, a: abs(a), UNARY_SMALL, NUM, AWAY0),
    OpSpec("pos_operator", lambda lib, a: +a, UNARY_SMALL, NUM),
]

# ---- float predicates ------------------------------------------------------------------------

OPS += [
    OpSpec("sinc_at_zero", lambda lib, a: lib.sinc(a), (S("zeros", Fixed([0.0, 0.5, -0.0])),),
           FLOAT, ref=lambda np_, a: _vec(_sinc_scalar)(a)),
]
for _name, _fn in (("isnan", np.isnan), ("isinf", np.isinf), ("isposinf", np.isposinf),
                   ("isneginf", np.isneginf), ("isfinite", np.isfinite), ("signbit", np.signbit)):
    OPS += [
        OpSpec(_name, (lambda n: lambda lib, a: getattr(lib, n)(a))(_name), SPECIALS, FLOAT,
               ref=(lambda f: lambda np_, a: f(a))(_fn), differentiable=False),
        OpSpec(f"Tensor.{_name}_int", (lambda n: lambda lib, a: getattr(a, n)())(_name),
               (S("2x3", A(2, 3)),), ("int64", "uint8", "bool"),
               ref=(lambda f: lambda np_, a: f(a.astype(np.float64)))(_fn), differentiable=False),
    ]
del _name, _fn

# ---- comparisons and logic -------------------------------------------------------------------

for _name, _op in (("eq", np.equal), ("ne", np.not_equal), ("lt", np.less),
                   ("le", np.less_equal), ("gt", np.greater), ("ge", np.greater_equal)):
    OPS += [
        OpSpec(_name, lambda lib, a, b, _n=_name: getattr(lib, _n)(a, b), BINARY, ALL, SMALL,
               lambda np_, a, b, _o=_op: _o(a, b), differentiable=False),
        OpSpec(f"Tensor.{_name}_scalar", lambda lib, a, _n=_name: getattr(a, _n)(1), UNARY_SMALL,
               ALL, SMALL, lambda np_, a, _o=_op: _o(a, 1), differentiable=False),
    ]
OPS += [
    OpSpec("eq_operator", lambda lib, a, b: a == b, BINARY_SMALL, ALL, SMALL, differentiable=False),
    OpSpec("ne_operator", lambda lib, a, b: a != b, BINARY_SMALL, ALL, SMALL, differentiable=False),
    OpSpec("lt_operator_scalar", lambda lib, a: a < 1, UNARY_SMALL, ALL, SMALL,
           differentiable=False),
    OpSpec("le_operator", lambda lib, a, b: a <= b, BINARY_SMALL, ALL, SMALL, differentiable=False),
    OpSpec("gt_operator_float_scalar", lambda lib, a: a > 0.5, UNARY_SMALL, ALL, SMALL,
           differentiable=False),
    OpSpec("ge_operator", lambda lib, a, b: a >= b, BINARY_SMALL, ALL, SMALL, differentiable=False),
    OpSpec("rgt_scalar", lambda lib, a: 1 > a, UNARY_SMALL, ALL, SMALL, differentiable=False),
]
for _name in ("logical_and", "logical_or", "logical_xor"):
    OPS.append(OpSpec(_name, lambda lib, a, b, _n=_name: getattr(lib, _n)(a, b), BINARY, ALL,
                      SMALL, differentiable=False))
    OPS.append(OpSpec(f"Tensor.{_name}", lambda lib, a, b, _n=_name: getattr(a, _n)(b),
                      BINARY_SMALL, ALL, SMALL, differentiable=False,
                      ref=lambda np_, a, b, _n=_name: getattr(np, _n)(a, b)))
OPS += [
    OpSpec("logical_not", lambda lib, a: lib.logical_not(a), UNARY, ALL, SMALL,
           differentiable=False),
    OpSpec("Tensor.logical_not", lambda lib, a: a.logical_not(), UNARY_SMALL, ALL, SMALL,
           differentiable=False, ref=lambda np_, a: np.logical_not(a)),
    OpSpec("bitwise_and", lambda lib, a, b: a & b, BINARY, INTB, SMALL, differentiable=False,
           inplace="bitwise_and_"),
    OpSpec("bitwise_or", lambda lib, a, b: a | b, BINARY, INTB, SMALL, differentiable=False,
           inplace="bitwise_or_"),
    OpSpec("bitwise_xor", lambda lib, a, b: a ^ b, BINARY, INTB, SMALL, differentiable=False,
           inplace="bitwise_xor_"),
    OpSpec("bitwise_not", lambda lib, a: ~a, UNARY, INTB, SMALL, differentiable=False),
    OpSpec("bitwise_not_fn", lambda lib, a: lib.bitwise_not(a), UNARY_SMALL, INTB, SMALL,
           differentiable=False),
    OpSpec("bitwise_and_scalar", lambda lib, a: a & 3, UNARY_SMALL, INT, SMALL,
           differentiable=False),
    OpSpec("bitwise_ror_scalar", lambda lib, a: 6 | a, UNARY_SMALL, INT, SMALL,
           differentiable=False),
    OpSpec("bitwise_xor_bool_scalar", lambda lib, a: a ^ True, UNARY_SMALL, ("bool",), SMALL,
           differentiable=False),
]

# ---- where / clamp / maximum / minimum -------------------------------------------------------

OPS += [
    OpSpec("where", lambda lib, c, a, b: lib.where(c, a, b),
           (S("same", Mask([[True, False, True], [False, False, True]]), A(2, 3), A(2, 3)),
            S("bcast", Mask([[True], [False]]), A(1, 3), A()),
            S("t", Mask([True, False, True]), T(2, 3), Step(2, 3)),
            S("empty", Mask([True, False, True]), A(0, 3), A(3))), ALL),
    OpSpec("where_scalar", lambda lib, c, a: lib.where(c, a, 0.0),
           (S("same", Mask([[True, False, True], [False, True, True]]), A(2, 3)),), FLOAT),
    OpSpec("where_cond_tensor", lambda lib, a: lib.where(a > 0, a, -a), UNARY_SMALL, FLOAT,
           AWAY0),
    OpSpec("clamp", lambda lib, a: lib.clamp(a, -0.5, 0.5), UNARY, FLOAT,
           ref=lambda np_, a: np.clip(a, -0.5, 0.5), inplace="clamp_", inplace_args=(-0.5, 0.5)),
    OpSpec("clamp_min", lambda lib, a: lib.clamp(a, min=0.25), UNARY_SMALL, FLOAT,
           ref=lambda np_, a: np.maximum(a, np.asarray(0.25, a.dtype))),
    OpSpec("clamp_max_kw", lambda lib, a: a.clamp(max=-0.25), UNARY_SMALL, FLOAT,
           ref=lambda np_, a: np.minimum(a, np.asarray(-0.25, a.dtype))),
    OpSpec("clamp_int", lambda lib, a: lib.clamp(a, 1, 3), UNARY_SMALL, INT,
           ref=lambda np_, a: np.clip(a, 1, 3)),
    OpSpec("clamp_int_float_bound", lambda lib, a: lib.clamp(a, min=0.5), UNARY_SMALL,
           ("int64",), ref=lambda np_, a: np.maximum(_f(a), 0.5), differentiable=False),
    OpSpec("clip", lambda lib, a: lib.clip(a, -1, 1), UNARY_SMALL, FLOAT),
    OpSpec("clamp_tensor", lambda lib, a, lo, hi: lib.clamp(a, lo, hi),
           (S("same", A(2, 3), A(2, 3, domain=Domain("lo", -2, -0.3)),
              A(2, 3, domain=Domain("hi", 0.3, 2))),
            S("bcast", A(2, 3), A(3, domain=Domain("lo", -1, 0)),
              A(2, 1, domain=Domain("hi", 0, 1))),
            S("t", T(2, 3), A(domain=Domain("lo", -1, 0)), Step(2, 3, domain=Domain("hi", 0, 1)))),
           FLOAT + ("int64",), ref=lambda np_, a, lo, hi: np.minimum(np.maximum(a, lo), hi),
           inplace="clamp_"),
    OpSpec("clamp_tensor_min_only", lambda lib, a, lo: lib.clamp(a, min=lo),
           (S("bcast", A(2, 3), A(3)),), FLOAT, ref=lambda np_, a, lo: np.maximum(a, lo)),
    OpSpec("clamp_min_fn", lambda lib, a: lib.clamp_min(a, 0.25), UNARY, FLOAT + ("int64",),
           ref=lambda np_, a: np.maximum(_f(a), 0.25) if a.dtype.kind != "f"
           else np.maximum(a, np.asarray(0.25, a.dtype)), inplace="clamp_min_",
           inplace_args=(0.25,)),
    OpSpec("clamp_max_fn", lambda lib, a: a.clamp_max(-0.25), UNARY, FLOAT,
           ref=lambda np_, a: np.minimum(a, np.asarray(-0.25, a.dtype)), inplace="clamp_max_",
           inplace_args=(-0.25,)),
    OpSpec("clamp_min_tensor", lambda lib, a, b: lib.clamp_min(a, b), BINARY, FLOAT + ("int64",),
           ref=lambda np_, a, b: np.maximum(a, b), inplace="clamp_min_"),
    OpSpec("clamp_max_tensor", lambda lib, a, b: a.clamp_max(b), BINARY, FLOAT,
           ref=lambda np_, a, b: np.minimum(a, b), inplace="clamp_max_"),
    OpSpec("maximum", lambda lib, a, b: lib.maximum(a, b), BINARY, ALL),
    OpSpec("minimum", lambda lib, a, b: lib.minimum(a, b), BINARY, ALL),
    OpSpec("Tensor.maximum", lambda lib, a, b: a.maximum(b), BINARY_SMALL, NUM,
           ref=lambda np_, a, b: np.maximum(a, b)),
    OpSpec("max_binary", lambda lib, a, b: lib.max(a, b), BINARY_SMALL, FLOAT,
           ref=lambda np_, a, b: np.maximum(a, b)),
    OpSpec("min_binary", lambda lib, a, b: a.min(b), BINARY_SMALL, FLOAT,
           ref=lambda np_, a, b: np.minimum(a, b)),
]

# ---- type promotion --------------------------------------------------------------------------

OPS += [
    OpSpec("promote_float_int", lambda lib, a, b: a + b,
           (S("f_i64", A(2, 3), A(2, 3, dtype="int64")), S("i32_f", A(3, dtype="int32"), A(2, 3))),
           FLOAT, ref=lambda np_, a, b: _f(a) + _f(b), gradcheck=False),
    OpSpec("promote_int_bool", lambda lib, a, b: a + b,
           (S("int_bool", A(2, 3), A(2, 3, dtype="bool")),), INT),
    OpSpec("promote_uint8_int32", lambda lib, a, b: a * b,
           (S("u8_i32", A(2, 3, dtype="uint8"), A(2, 3, dtype="int32")),
            S("u8_i64", A(2, 3, dtype="uint8"), A(3, dtype="int64"))), ("int64",)),
    OpSpec("promote_f32_f64", lambda lib, a, b: a * b,
           (S("f32_f64", A(2, 3, dtype="float32"), A(2, 3, dtype="float64")),), ("float64",),
           gradcheck=False),
    OpSpec("promote_0d_does_not_upcast", lambda lib, a, b: a + b,
           (S("f32_0d_f64", A(2, 3, dtype="float32"), A(dtype="float64")),
            S("i32_0d_i64", A(2, 3, dtype="int32"), A(dtype="int64"))), ("float64",),
           ref=lambda np_, a, b: a + b, gradcheck=False),
    OpSpec("promote_int_tensor_0d_float", lambda lib, a, b: a * b,
           (S("i64_0d_f64", A(2, 3, dtype="int64"), A(dtype="float64")),), ("float64",),
           ref=lambda np_, a, b: _f(a) * b, gradcheck=False),
    OpSpec("promote_int_float_scalar", lambda lib, a: a * 1.5, UNARY_SMALL, INTB,
           ref=lambda np_, a: _f(a) * 1.5),
    OpSpec("promote_bool_int_scalar", lambda lib, a: a + 1, UNARY_SMALL, ("bool",),
           ref=lambda np_, a: a.astype(np.int64) + 1),
    OpSpec("promote_uint8_neg_scalar", lambda lib, a: a + (-1), UNARY_SMALL, ("uint8",),
           ref=lambda np_, a: (a.astype(np.int64) - 1).astype(np.uint8)),
]

# ---- composed in Python: nan_to_num, lerp, isclose, float_power, Tensor.where ----------------

OPS += [
    OpSpec("nan_to_num", lambda lib, a: lib.nan_to_num(a, nan=0.5, posinf=2.0),
           (S("specials", Fixed([[np.nan, 1.0, np.inf], [-np.inf, -2.0, 0.25]])),), FLOAT,
           ref=lambda np_, a: np.nan_to_num(a, nan=0.5, posinf=2.0,
                                            neginf=np.finfo(a.dtype).min)),
    OpSpec("lerp_scalar", lambda lib, a, b: lib.lerp(a, b, 0.3), LOSS_PAIR, FLOAT,
           ref=lambda np_, a, b: a + 0.3 * (b - a), rtol=2e-6),
    OpSpec("lerp_tensor", lambda lib, a, b, w: lib.lerp(a, b, w),
           (S("3x4", A(3, 4), A(3, 4), A(4)),), FLOAT,
           ref=lambda np_, a, b, w: a + w * (b - a), rtol=2e-6),
    OpSpec("isclose", lambda lib, a, b: lib.isclose(a, b, rtol=0.1, atol=0.5), LOSS_PAIR, FLOAT,
           ref=lambda np_, a, b: np.isclose(a, b, rtol=0.1, atol=0.5), differentiable=False),
    OpSpec("float_power", lambda lib, a: lib.float_power(a, 2), UNARY_SMALL, ("float32", "int64"),
           ref=lambda np_, a: np.power(a.astype(np.float64), 2)),
    OpSpec("Tensor.where", lambda lib, a, m: a.where(m, 0.5),
           (S("3x4", A(3, 4), Mask([[True, False, True, True]] * 3)),), FLOAT,
           ref=lambda np_, a, m: np.where(m, a, 0.5).astype(a.dtype)),
]

# ---- fused updates and torch's other names -------------------------------------------------

OPS += [
    OpSpec("addcmul", lambda lib, a, b, c: lib.addcmul(a, b, c, value=0.5),
           (S("same", A(2, 3), A(2, 3), A(2, 3)), S("bcast", A(2, 3), A(3), A(2, 1)),
            S("t_step", T(2, 3), Step(2, 3), A())), NUM,
           ref=lambda np_, a, b, c: (a + (0.5 if a.dtype.kind == "f" else 0) * b * c
                                     ).astype(a.dtype),
           inplace="addcmul_", inplace_kw=(("value", 0.5),), gradgrad=True),
    OpSpec("addcmul_int", lambda lib, a, b, c: lib.addcmul(a, b, c, value=2),
           (S("same", A(2, 3), A(2, 3), A(2, 3)),), NUM,
           ref=lambda np_, a, b, c: (a + 2 * b * c).astype(a.dtype),
           inplace="addcmul_", inplace_kw=(("value", 2),)),
    OpSpec("Tensor.addcmul", lambda lib, a, b, c: a.addcmul(b, c),
           (S("bcast", A(2, 3), A(3), A(2, 1)),), FLOAT, ref=lambda np_, a, b, c: a + b * c),
    OpSpec("addcdiv", lambda lib, a, b, c: lib.addcdiv(a, b, c, value=-2),
           (S("same", A(2, 3), A(2, 3), A(2, 3)), S("bcast", A(2, 3), A(3), A(2, 1)),
            S("t_step", T(2, 3), Step(2, 3), A())), FLOAT, NONZERO,
           ref=lambda np_, a, b, c: a - 2 * b / c, rtol=1e-5,
           inplace="addcdiv_", inplace_kw=(("value", -2),), gradgrad=True),
    OpSpec("Tensor.addcdiv", lambda lib, a, b, c: a.addcdiv(b, c),
           (S("same", A(2, 3), A(2, 3), A(2, 3)),), FLOAT, NONZERO,
           ref=lambda np_, a, b, c: a + b / c, rtol=1e-5),
    OpSpec("lerp_scalar_inplace", lambda lib, a, b: lib.lerp(a, b, 0.7), LOSS_PAIR[:2], FLOAT,
           ref=lambda np_, a, b: a + 0.7 * (b - a), rtol=2e-6,
           inplace="lerp_", inplace_args=(0.7,)),
    OpSpec("lerp_tensor_inplace", lambda lib, a, b, w: lib.lerp(a, b, w),
           (S("3x4", A(3, 4), A(3, 4), A(4)), S("t", T(3, 4), A(4), A(3, 4))), FLOAT,
           ref=lambda np_, a, b, w: a + w * (b - a), rtol=2e-6, inplace="lerp_"),
    OpSpec("nan_to_num_inplace", lambda lib, a: lib.nan_to_num(a, posinf=3.0),
           (S("specials", Fixed([[np.nan, 1.0, np.inf], [-np.inf, -2.0, 0.25]])),
            S("2x3", A(2, 3))), FLOAT,
           ref=lambda np_, a: np.nan_to_num(a, nan=0.0, posinf=3.0, neginf=np.finfo(a.dtype).min),
           inplace="nan_to_num_", inplace_kw=(("posinf", 3.0),)),
    OpSpec("nan_to_num_int", lambda lib, a: lib.nan_to_num(a), UNARY_SMALL, INT,
           ref=lambda np_, a: a.copy(), inplace="nan_to_num_"),
]

# in-place comparisons: 1 or 0 written in self's dtype, zero gradients
OPS += [
    OpSpec(f"{name}_inplace", (lambda n: lambda lib, a, b: getattr(a, n)(b).to(a.dtype))(name),
           BINARY_SMALL, NUM, SMALL, ref=(lambda f: lambda np_, a, b: f(a, b).astype(a.dtype))(f),
           inplace=name + "_", differentiable=False)
    for name, f in (("eq", np.equal), ("ne", np.not_equal), ("lt", np.less),
                    ("le", np.less_equal), ("gt", np.greater), ("ge", np.greater_equal))
] + [
    OpSpec(f"{name}_number_inplace", (lambda n: lambda lib, a: getattr(a, n)(1.0).to(a.dtype))(name),
           UNARY_SMALL, NUM, SMALL, ref=(lambda f: lambda np_, a: f(a, 1.0).astype(a.dtype))(f),
           inplace=name + "_", inplace_args=(1.0,), differentiable=False)
    for name, f in (("eq", np.equal), ("lt", np.less), ("ge", np.greater_equal))
] + [
    OpSpec(f"{alias}_alias", (lambda n: lambda lib, a, b: getattr(lib, n)(a, b))(alias),
           BINARY_SMALL, NUM, SMALL, ref=(lambda f: lambda np_, a, b: f(a, b))(f),
           inplace=alias + "_", differentiable=False)
    for alias, f in (("greater_equal", np.greater_equal), ("less_equal", np.less_equal),
                     ("not_equal", np.not_equal), ("greater", np.greater), ("less", np.less))
] + [
    OpSpec(f"{alias}_alias", (lambda n: lambda lib, a: getattr(lib, n)(a))(alias), UNARY_SMALL,
           FLOAT, domain, ref=(lambda f: lambda np_, a: f(a))(f), inplace=alias + "_")
    for alias, f, domain in (("arccos", np.arccos, OPEN_UNIT), ("arcsin", np.arcsin, OPEN_UNIT),
                             ("arctan", np.arctan, REAL), ("arcsinh", np.arcsinh, REAL),
                             ("arccosh", np.arccosh, ABOVE_ONE),
                             ("arctanh", np.arctanh, OPEN_UNIT),
                             ("absolute", np.abs, AWAY0), ("negative", np.negative, REAL))
] + [
    OpSpec("arctan2_alias", lambda lib, a, b: lib.arctan2(a, b), BINARY_SMALL, FLOAT, NONZERO,
           ref=lambda np_, a, b: np.arctan2(a, b), inplace="arctan2_"),
    OpSpec("subtract_alias", lambda lib, a, b: lib.subtract(a, b, alpha=2), BINARY_SMALL, FLOAT,
           ref=lambda np_, a, b: a - 2 * b, inplace="subtract_", inplace_kw=(("alpha", 2),)),
    OpSpec("multiply_alias", lambda lib, a, b: lib.multiply(a, b), BINARY_SMALL, NUM,
           ref=lambda np_, a, b: a * b, inplace="multiply_"),
    OpSpec("divide_alias", lambda lib, a, b: lib.divide(a, b, rounding_mode="floor"),
           BINARY_SMALL, FLOAT, NONZERO, ref=lambda np_, a, b: np.floor(a / b),
           inplace="divide_", inplace_kw=(("rounding_mode", "floor"),), differentiable=False),
    OpSpec("clip_inplace", lambda lib, a: lib.clip(a, -0.5, 0.5), UNARY_SMALL, FLOAT, AWAY0,
           ref=lambda np_, a: np.clip(a, -0.5, 0.5), inplace="clip_", inplace_args=(-0.5, 0.5)),
]

# ---- two-argument special functions, sign and exponent tools, integer bit ops -----------------


def _xlogy_ref(log):
    def ref(np_, a, b):
        x, y = _f(a), _f(b)
        with np.errstate(all="ignore"):
            out = np.where(np.isnan(y), np.nan, np.where(x == 0, 0.0, x * log(y)))
        return out.astype(np.result_type(_fdt(a), _fdt(b)))
    return ref


def _logit_ref(eps):
    def ref(np_, a):
        z = _f(a) if eps is None else np.clip(_f(a), eps, 1 - eps)
        with np.errstate(all="ignore"):
            return np.log(z / (1 - z)).astype(_fdt(a))
    return ref


def _mvlgamma_ref(p):
    def ref(np_, a):
        import scipy.special
        x = _f(a)
        out = sum(scipy.special.gammaln(x - j / 2) for j in range(p))
        return (out + p * (p - 1) / 4 * math.log(math.pi)).astype(_fdt(a))
    return ref


POSITIVE_PAIR = Domain("positive_pair", 0.5, 2.5, 1, 6)
MVLGAMMA = Domain("mvlgamma", 1.6, 4.0, 2, 6)
SHIFT = Domain("shift", choices=(0.0, 1.0, 2.0, 3.0))
_XLOGY_EDGES = (S("zeros_nan_inf", Fixed([[0.0, 0.0, 0.0], [0.0, 2.0, -1.0]]),
                  Fixed([[np.nan, 0.0, np.inf], [-1.0, -1.0, 0.0]])),)
OPS += [
    OpSpec("xlogy", lambda lib, a, b: lib.xlogy(a, b), BINARY, NUM, POSITIVE_PAIR,
           _xlogy_ref(np.log), gradgrad=True, inplace="xlogy_"),
    OpSpec("Tensor.xlogy", lambda lib, a, b: a.xlogy(b), BINARY_SMALL, FLOAT, POSITIVE_PAIR,
           _xlogy_ref(np.log)),
    OpSpec("xlogy_edges", lambda lib, a, b: lib.xlogy(a, b), _XLOGY_EDGES, FLOAT,
           ref=_xlogy_ref(np.log), differentiable=False),
    OpSpec("xlogy_number_other", lambda lib, a: lib.xlogy(a, 2.5), UNARY, NUM, POSITIVE_PAIR,
           lambda np_, a: _xlogy_ref(np.log)(np_, a, np.float32(2.5)),
           inplace="xlogy_", inplace_args=(2.5,)),
    OpSpec("xlogy_number_self", lambda lib, a: lib.xlogy(1.5, a), UNARY, NUM, POSITIVE_PAIR,
           lambda np_, a: _xlogy_ref(np.log)(np_, np.float32(1.5), a).astype(_fdt(a)),
           gradgrad=True),
    OpSpec("special_xlogy", lambda lib, a, b: lib.special.xlogy(a, b), BINARY_SMALL, FLOAT,
           POSITIVE_PAIR, _xlogy_ref(np.log)),
    OpSpec("special_xlog1py", lambda lib, a, b: lib.special.xlog1py(a, b), BINARY, NUM, LOG1P,
           _xlogy_ref(np.log1p), gradgrad=True),
    OpSpec("special_xlog1py_edges", lambda lib, a, b: lib.special.xlog1py(a, b), _XLOGY_EDGES,
           FLOAT, ref=_xlogy_ref(np.log1p), differentiable=False),
    OpSpec("special_xlog1py_number_other", lambda lib, a: lib.special.xlog1py(a, 0.5), UNARY,
           FLOAT, LOG1P, lambda np_, a: _xlogy_ref(np.log1p)(np_, a, np.float32(0.5))),
    OpSpec("special_xlog1py_number_self", lambda lib, a: lib.special.xlog1py(2, a), UNARY, FLOAT,
           LOG1P, lambda np_, a: _xlogy_ref(np.log1p)(np_, np.float32(2), a).astype(a.dtype)),
    OpSpec("copysign", lambda lib, a, b: lib.copysign(a, b), BINARY, NUM, AWAY0,
           lambda np_, a, b: np.copysign(_f(a), _f(b)).astype(np.result_type(_fdt(a), _fdt(b))),
           gradgrad=True, inplace="copysign_"),
    OpSpec("copysign_number", lambda lib, a: a.copysign(-1.5), UNARY, NUM, AWAY0,
           lambda np_, a: np.copysign(_f(a), -1.0).astype(_fdt(a)), inplace="copysign_",
           inplace_args=(-1.5,)),
    OpSpec("copysign_zeros", lambda lib, a, b: lib.copysign(a, b), SPECIALS_PAIR, FLOAT,
           ref=lambda np_, a, b: np.copysign(a, b), differentiable=False),
    OpSpec("nextafter", lambda lib, a, b: lib.nextafter(a, b), BINARY, FLOAT, REAL,
           lambda np_, a, b: np.nextafter(a, b), inplace="nextafter_"),
    OpSpec("nextafter_edges", lambda lib, a, b: lib.nextafter(a, b), SPECIALS_PAIR, FLOAT,
           ref=lambda np_, a, b: np.nextafter(a, b), differentiable=False),
    OpSpec("ldexp", lambda lib, a, b: lib.ldexp(a, b), BINARY, FLOAT, EXPONENT,
           lambda np_, a, b: a * np.exp2(b), gradgrad=True, inplace="ldexp_"),
    OpSpec("frexp", lambda lib, a: tuple(lib.frexp(a)), UNARY, FLOAT,
           ref=lambda np_, a: np.frexp(a)),
    OpSpec("Tensor.frexp", lambda lib, a: tuple(a.frexp()), UNARY_SMALL, FLOAT,
           ref=lambda np_, a: np.frexp(a)),
    # (a negative integer exponent: torch's gradient is 0, its pow(2, other) in integers)
    OpSpec("Tensor.ldexp_int", lambda lib, a: a.ldexp(lib.full_like(a, 2, dtype=lib.int64)),
           UNARY_SMALL, FLOAT, REAL, lambda np_, a: (a * 4).astype(a.dtype)),
    OpSpec("heaviside", lambda lib, a, b: lib.heaviside(a, b), BINARY, NUM, SMALL,
           lambda np_, a, b: np.where(a == 0, b, (a > 0)).astype(a.dtype),
           differentiable=False, inplace="heaviside_"),
    OpSpec("gcd", lambda lib, a, b: lib.gcd(a, b), BINARY, INT, REAL,
           lambda np_, a, b: np.gcd(a, b), differentiable=False, inplace="gcd_"),
    OpSpec("lcm", lambda lib, a, b: lib.lcm(a, b), BINARY, INT, REAL,
           lambda np_, a, b: np.lcm(a, b), differentiable=False, inplace="lcm_"),
    OpSpec("bitwise_left_shift", lambda lib, a, b: lib.bitwise_left_shift(a, b), BINARY, INT,
           SHIFT, lambda np_, a, b: np.left_shift(a, b), differentiable=False,
           inplace="bitwise_left_shift_"),
    OpSpec("bitwise_right_shift", lambda lib, a, b: lib.bitwise_right_shift(a, b), BINARY, INT,
           SHIFT, lambda np_, a, b: np.right_shift(a, b), differentiable=False,
           inplace="bitwise_right_shift_"),
    OpSpec("lshift_operator", lambda lib, a, b: a << b, BINARY_SMALL, INT, SHIFT,
           ref=lambda np_, a, b: np.left_shift(a, b), differentiable=False),
    OpSpec("rshift_operator_number", lambda lib, a: a >> 1, UNARY_SMALL, INT, SHIFT,
           ref=lambda np_, a: np.right_shift(a, 1).astype(a.dtype), differentiable=False),
    OpSpec("rlshift_operator", lambda lib, a: 3 << a, UNARY_SMALL, INT, SHIFT,
           ref=lambda np_, a: np.left_shift(np.asarray(3, a.dtype), a), differentiable=False),
    OpSpec("logit", lambda lib, a: lib.logit(a), UNARY, NUM, PROBABILITY, _logit_ref(None),
           gradgrad=True, inplace="logit_"),
    OpSpec("Tensor.logit_eps", lambda lib, a: a.logit(eps=0.1), UNARY, FLOAT, PROBABILITY,
           _logit_ref(0.1), gradgrad=True, inplace="logit_", inplace_args=(0.1,)),
    OpSpec("special_logit", lambda lib, a: lib.special.logit(a, 0.2), UNARY_SMALL, FLOAT,
           PROBABILITY, _logit_ref(0.2)),
    OpSpec("logit_edges", lambda lib, a: lib.logit(a), SPECIALS, FLOAT, ref=_logit_ref(None),
           differentiable=False),
    OpSpec("mvlgamma", lambda lib, a: lib.mvlgamma(a, 3), UNARY, FLOAT + INT, MVLGAMMA,
           _mvlgamma_ref(3), gradgrad=True, inplace="mvlgamma_", inplace_args=(3,)),
    OpSpec("special_multigammaln", lambda lib, a: lib.special.multigammaln(a, 2), UNARY_SMALL,
           FLOAT, MVLGAMMA, _mvlgamma_ref(2)),
    _special("ndtr", _sp("ndtr"), ALL, gradgrad=True),
    OpSpec("Tensor.float_power_", lambda lib, a: a.clone().float_power_(3), UNARY_SMALL,
           ("float64",), POS, lambda np_, a: np.power(a, 3.0)),
]


def _scipy_pair(name):
    def ref(np_, a, b):
        import scipy.special
        return getattr(scipy.special, name)(_f(a), _f(b)).astype(np.result_type(_fdt(a), _fdt(b)))
    return ref


ZETA = Domain("zeta", 1.5, 3.5, 2, 5)
_GAMMA_EDGES = (S("edges", Fixed([[0.0, 0.0, 1.0, -1.0], [1.0, np.inf, 1.0, np.nan]]),
                  Fixed([[0.0, 1.0, 0.0, 1.0], [-1.0, 1.0, np.inf, 1.0]])),)
# torch has no gradient for zeta's x or igamma's a: the differentiable rows hold them fixed
OPS += [
    OpSpec("special_zeta", lambda lib, a, b: lib.special.zeta(a, b), BINARY, NUM, ZETA,
           _scipy_pair("zeta"), differentiable=False, rtol=1e-5),
    OpSpec("special_zeta_number_self", lambda lib, a: lib.special.zeta(2.5, a), UNARY, FLOAT,
           ZETA, lambda np_, a: _scipy_pair("zeta")(np_, np.float32(2.5), a).astype(a.dtype),
           gradgrad=True, rtol=1e-5),
    OpSpec("special_zeta_number_other", lambda lib, a: lib.special.zeta(a, 1.5), UNARY, FLOAT,
           ZETA, lambda np_, a: _scipy_pair("zeta")(np_, a, np.float32(1.5)).astype(a.dtype),
           differentiable=False, rtol=1e-5),
    OpSpec("igamma", lambda lib, a, b: lib.igamma(a, b), BINARY, FLOAT, POSITIVE_PAIR,
           _scipy_pair("gammainc"), differentiable=False, inplace="igamma_", rtol=1e-5),
    OpSpec("igammac", lambda lib, a, b: lib.igammac(a, b), BINARY, FLOAT, POSITIVE_PAIR,
           _scipy_pair("gammaincc"), differentiable=False, inplace="igammac_", rtol=1e-5),
    OpSpec("igamma_other_grad", lambda lib, a: lib.igamma(lib.full_like(a, 1.5), a), UNARY,
           FLOAT, POSITIVE_PAIR, lambda np_, a: _scipy_pair("gammainc")(np_, 1.5 + 0 * a, a),
           gradgrad=True, rtol=1e-5),
    OpSpec("Tensor.igammac_other_grad", lambda lib, a: lib.full_like(a, 2.5).igammac(a),
           UNARY_SMALL, FLOAT, POSITIVE_PAIR,
           lambda np_, a: _scipy_pair("gammaincc")(np_, 2.5 + 0 * a, a), rtol=1e-5),
    OpSpec("special_gammainc_edges", lambda lib, a, b: lib.special.gammainc(a, b), _GAMMA_EDGES,
           FLOAT, ref=_scipy_pair("gammainc"), differentiable=False),
    OpSpec("special_gammaincc_edges", lambda lib, a, b: lib.special.gammaincc(a, b),
           _GAMMA_EDGES, FLOAT, ref=lambda np_, a, b: 1 - _scipy_pair("gammainc")(np_, a, b),
           differentiable=False),
]
