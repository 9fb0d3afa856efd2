"""The op table that drives tests/ops/test_ops.py: one ``OpSpec`` per op variant.

Each spec's ``fn(lib, *xs)`` is written once against a module argument: ``lib``
is ``gradtrack`` or ``torch`` (and ``numpy`` when ``ref`` is left out, for the
ops whose spelling numpy shares, e.g. ``a + b`` or ``a[:, 1]``). Inputs are
described by ``Arg``s: a base shape, an optional view that makes the input
non-contiguous (``.t()``, ``transpose``, step slices, ``expand``), a value
domain (positive for log, away from kinks for abs/relu, distinct integers for
argmax, ...) and, for index/mask arguments, a fixed dtype and fixed values.

The test file builds numpy arrays from each ``Arg`` (seeded by the test id),
turns them into gradtrack/torch tensors, applies the view with the library and
compares against ``ref`` (numpy) and torch.
"""

import math
from dataclasses import dataclass
from typing import Callable, Optional, Tuple

import numpy as np

FLOAT = ("float32", "float64")
INT = ("int64", "int32", "uint8")
NUM = FLOAT + INT
ALL = NUM + ("bool",)
INTB = INT + ("bool",)


# ---- value domains ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Domain:
    """Where random input values come from, per dtype kind.

    ``away``: floats keep at least this distance from 0 (kinks of abs, relu,
    sign; division by zero). ``choices``: draw from these values only (gives
    ties for comparisons). ``distinct``: integer values are a permutation
    (no ties for max/argmax/sort-like ops).
    """

    name: str
    lo: float = -2.0
    hi: float = 2.0
    ilo: int = -4
    ihi: int = 5
    away: float = 0.0
    nonzero_int: bool = False
    distinct: bool = False
    choices: Optional[Tuple[float, ...]] = None

    def sample(self, rng, shape, dtype):
        n = math.prod(shape)
        if dtype == "bool":
            return rng.random(shape) < 0.5
        if self.choices is not None:
            pool = [c for c in self.choices if dtype != "uint8" or c >= 0]
            return np.asarray(rng.choice(pool, size=shape)).astype(dtype)
        if dtype in INT:
            lo = max(self.ilo, 0) if dtype == "uint8" else self.ilo
            if self.distinct:
                values = rng.permutation(n) + lo
            else:
                pool = [v for v in range(lo, self.ihi) if not (self.nonzero_int and v == 0)]
                values = rng.choice(pool, size=n)
            return np.asarray(values).reshape(shape).astype(dtype)
        if self.away > 0:
            mag = rng.uniform(self.away, max(abs(self.lo), abs(self.hi)), size=shape)
            sign = np.where(rng.random(shape) < 0.5, -1.0, 1.0) if self.lo < 0 else 1.0
            return np.asarray(mag * sign).astype(dtype)
        return np.asarray(rng.uniform(self.lo, self.hi, size=shape)).astype(dtype)


REAL = Domain("real")
POS = Domain("pos", 0.5, 2.5, 1, 6)
NONZERO = Domain("nonzero", away=0.25, nonzero_int=True)
AWAY0 = Domain("away0", away=0.1)            # kinks at 0: abs, relu, sign
DISTINCT = Domain("distinct", distinct=True)  # no ties: max/min/argmax/amax
SMALL = Domain("small", choices=(-1.0, 0.0, 1.0, 2.0))  # ties and zeros
LOG1P = Domain("log1p", -0.5, 2.0, 0, 5)
EXPONENT = Domain("exponent", -1.5, 1.5, 0, 3)
CASTABLE = Domain("castable", -3.0, 3.0, -3, 4)
NONNEG = Domain("nonneg", 0.0, 5.0, 0, 6)


# ---- inputs ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class View:
    """A view applied after creation: ``lib_fn`` for gradtrack/torch, ``np_fn`` for numpy."""

    name: str
    lib_fn: Callable
    np_fn: Callable


@dataclass(frozen=True)
class Arg:
    """One tensor argument.

    base: the shape created; view: optional View applied to it (the op sees
    the view); dtype: fixed dtype (indices, masks) instead of the spec's dtype
    under test; domain: overrides the spec's domain; values: fixed values.
    requires_grad: whether the leaf takes part in gradient tests (only float
    arguments ever do).
    """

    base: tuple
    view: Optional[View] = None
    dtype: Optional[str] = None
    domain: Optional[Domain] = None
    values: Optional[tuple] = None
    requires_grad: bool = True


def A(*shape, **kw):
    """A contiguous argument of the given shape."""
    return Arg(tuple(shape), **kw)


def T(rows, cols, **kw):
    """A ``(rows, cols)`` argument that is a transposed (column-major) view."""
    return Arg((cols, rows), View("t", lambda x: x.t(), lambda x: x.T), **kw)


def Tr(shape, d0, d1, **kw):
    """An argument of ``shape`` made by ``transpose(d0, d1)`` of a contiguous tensor."""
    base = list(shape)
    base[d0], base[d1] = base[d1], base[d0]
    return Arg(tuple(base), View(f"tr{d0}{d1}", lambda x: x.transpose(d0, d1),
                                 lambda x: np.swapaxes(x, d0, d1)), **kw)


def Step(*shape, **kw):
    """An argument of ``shape`` made by a step-2 slice of the last dim."""
    base = shape[:-1] + (2 * shape[-1],)
    return Arg(base, View("step", lambda x: x[..., ::2], lambda x: x[..., ::2]), **kw)


def E(base, to, **kw):
    """An argument expanded (stride 0) from ``base`` to ``to``."""
    return Arg(tuple(base), View("expand", lambda x: x.expand(*to),
                                 lambda x: np.broadcast_to(x, to)), **kw)


def Idx(values, dtype="int64"):
    """A fixed integer index tensor."""
    values = np.asarray(values)
    return Arg(values.shape, dtype=dtype, values=tuple(values.ravel().tolist()),
               requires_grad=False)


def Mask(values):
    """A fixed bool mask tensor."""
    return Idx(values, dtype="bool")


def Fixed(values, **kw):
    """Fixed values in the spec's dtype (e.g. to put zeros into prod's input)."""
    values = np.asarray(values)
    return Arg(values.shape, values=tuple(values.ravel().tolist()), **kw)


@dataclass(frozen=True)
class Sample:
    id: str
    args: tuple

    def __repr__(self):
        return f"Sample({self.id!r})"


def S(sample_id, *args):
    return Sample(sample_id, tuple(args))


# ---- the spec --------------------------------------------------------------------------------

@dataclass(frozen=True)
class OpSpec:
    """One op variant.

    fn: ``fn(lib, *tensors)``; ref: ``ref(np, *arrays)`` (defaults to fn with
    lib=numpy); differentiable: gradient tests run (float64 samples);
    gradcheck: also run finite differences (off when an output is float32,
    which finite differences cannot resolve); gradgrad: run the
    create_graph=True double-backward test on the first sample.
    """

    name: str
    fn: Callable
    samples: tuple
    dtypes: tuple = FLOAT
    domain: Domain = REAL
    ref: Optional[Callable] = None
    differentiable: bool = True
    gradcheck: bool = True
    gradgrad: bool = False
    rtol: float = 1.3e-6
    atol: float = 1e-5
    rtol64: float = 1e-7
    atol64: float = 1e-7
    inplace: Optional[str] = None
    inplace_args: tuple = ()
    inplace_kw: tuple = ()

    def __repr__(self):  # short: pytest prints it in every failure
        return f"OpSpec({self.name!r})"

    def reference(self, *arrays):
        return (self.ref or self.fn)(np, *arrays)

    def tolerance(self, dtype_name):
        if dtype_name == "float64":
            return self.rtol64, self.atol64
        return self.rtol, self.atol


@dataclass(frozen=True)
class CreationSpec:
    """A factory call ``fn(lib)``; ``ref()`` gives the expected numpy values
    (None: only shape and dtype are checked, e.g. ``empty``)."""

    name: str
    fn: Callable
    ref: Optional[Callable]
    dtype: Optional[str] = None   # expected dtype name when torch is absent
    rtol: float = 1.3e-6
    atol: float = 1e-6


# ---- numpy reference helpers -----------------------------------------------------------------

def _f(a):
    """numpy math on integers promotes to float64 (torch: float32); values agree."""
    return a if a.dtype.kind == "f" else a.astype(np.float64)


def _erf(a):
    out = np.vectorize(math.erf, otypes=[np.float64])(a)
    return out.astype(a.dtype) if a.dtype.kind == "f" else out


def _sigmoid(np_, a):
    return 1.0 / (1.0 + np.exp(-_f(a)))


def _div_trunc(a, b):
    if a.dtype.kind == "f" or b.dtype.kind == "f":
        return np.trunc(_f(a) / _f(b))
    q = np.abs(a.astype(np.int64)) // np.abs(b.astype(np.int64))
    return (np.sign(a.astype(np.int64)) * np.sign(b.astype(np.int64)) * q)


def _div_floor(a, b):
    if a.dtype.kind == "f" or b.dtype.kind == "f":
        return np.floor_divide(_f(a) if a.dtype.kind != "f" else a, b)
    return np.floor_divide(a.astype(np.int64), b.astype(np.int64))


def _log_softmax(a, dim):
    a = _f(a)
    m = np.max(a, axis=dim, keepdims=True) if a.size else a
    s = a - m
    return s - np.log(np.sum(np.exp(s), axis=dim, keepdims=True))


def _softmax(a, dim):
    return np.exp(_log_softmax(a, dim))


def _gather(a, dim, idx):
    sl = tuple(slice(0, n) if d != dim else slice(None) for d, n in enumerate(idx.shape))
    return np.take_along_axis(a[sl], idx, axis=dim)


def _scatter_add(a, dim, idx, src):
    out = a.copy()
    for pos in np.ndindex(*idx.shape):
        dst = list(pos)
        dst[dim] = idx[pos]
        out[tuple(dst)] += src[pos]
    return out


def _max_dim(np_, a, dim, keepdim=False, largest=True):
    f = np.max if largest else np.min
    g = np.argmax if largest else np.argmin
    values = f(a, axis=dim, keepdims=keepdim)
    indices = g(a, axis=dim, keepdims=keepdim)
    return values, indices


def _matmul(np_, a, b):
    return np.matmul(a, b)


def _split(a, size_or_sizes, dim):
    n = a.shape[dim]
    if isinstance(size_or_sizes, int):
        cuts = list(range(size_or_sizes, n, size_or_sizes))
    else:
        cuts = list(np.cumsum(size_or_sizes)[:-1])
    return tuple(np.split(a, cuts, axis=dim))


def _chunk(a, chunks, dim):
    size = -(-a.shape[dim] // chunks)
    return _split(a, size, dim)


def _unbind(a, dim):
    return tuple(np.moveaxis(a, dim, 0))


# ---- sample sets -----------------------------------------------------------------------------

UNARY = (
    S("0d", A()),
    S("1d", A(5)),
    S("2x3", A(2, 3)),
    S("empty", A(0, 3)),
    S("t", T(2, 3)),
    S("step", Step(2, 3)),
    S("expand", E((1, 3), (2, 3))),
)
UNARY_SMALL = (S("2x3", A(2, 3)), S("t", T(2, 3)), S("0d", A()))

BINARY = (
    S("same", A(2, 3), A(2, 3)),
    S("bcast_row", A(2, 3), A(3)),
    S("bcast_outer", A(2, 1), A(1, 3)),
    S("bcast_3d", A(2, 1, 3), A(4, 1)),
    S("0d_2x3", A(), A(2, 3)),
    S("2x3_0d", A(2, 3), A()),
    S("0d_0d", A(), A()),
    S("empty", A(0, 3), A(3)),
    S("t_step", T(2, 3), Step(2, 3)),
    S("expand_same", E((1, 3), (2, 3)), A(2, 3)),
)
BINARY_SMALL = (S("same", A(2, 3), A(2, 3)), S("bcast_outer", A(2, 1), A(1, 3)),
                S("t_0d", T(2, 3), A()))

RED_ALL = (S("0d", A()), S("1d", A(4)), S("2x3", A(2, 3)), S("t", T(2, 3)),
           S("3d_tr", Tr((2, 3, 2), 0, 2)))
RED_ALL_EMPTY = RED_ALL + (S("empty", A(0, 3)),)
RED_DIM = (S("2x3", A(2, 3)), S("t", T(2, 3)), S("3d", A(2, 3, 2)), S("step", Step(2, 3)))
RED_DIM_EMPTY = RED_DIM + (S("empty", A(0, 3)),)


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
OPS += [
    OpSpec("neg_operator", lambda lib, a: -a, UNARY_SMALL, NUM),
    OpSpec("abs_operator", lambda lib, a: abs(a), UNARY_SMALL, NUM, AWAY0),
    OpSpec("pos_operator", lambda lib, a: +a, UNARY_SMALL, NUM),
]

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

# ---- reductions ------------------------------------------------------------------------------

_mean_ref = lambda np_, a, *args, **kw: np.mean(_f(a), *args, **kw)  # noqa: E731
OPS += [
    OpSpec("sum", lambda lib, a: a.sum(), RED_ALL_EMPTY, ALL, ref=lambda np_, a: np.sum(a),
           rtol=1e-5),
    OpSpec("sum_fn", lambda lib, a: lib.sum(a), RED_ALL, NUM, ref=lambda np_, a: np.sum(a),
           rtol=1e-5),
    OpSpec("sum_dim", lambda lib, a: a.sum(1), RED_DIM_EMPTY, ALL,
           ref=lambda np_, a: np.sum(a, 1), rtol=1e-5),
    OpSpec("sum_dim_neg_keepdim", lambda lib, a: lib.sum(a, dim=-1, keepdim=True), RED_DIM_EMPTY,
           NUM, ref=lambda np_, a: np.sum(a, -1, keepdims=True), rtol=1e-5),
    OpSpec("sum_dims_tuple", lambda lib, a: a.sum((0, 1)), RED_DIM, NUM,
           ref=lambda np_, a: np.sum(a, (0, 1)), rtol=1e-5),
    OpSpec("sum_dim_empty_tuple", lambda lib, a: a.sum(dim=()), RED_DIM, FLOAT,
           ref=lambda np_, a: np.sum(a), rtol=1e-5),
    OpSpec("sum_dtype", lambda lib, a: a.sum(dtype=lib.float64), RED_ALL, ALL,
           ref=lambda np_, a: np.sum(a.astype(np.float64)), gradcheck=True),
    OpSpec("sum_dim_dtype", lambda lib, a: a.sum(0, dtype=lib.int32), RED_DIM, INTB,
           ref=lambda np_, a: np.sum(a.astype(np.int32), 0), differentiable=False),
    OpSpec("mean", lambda lib, a: a.mean(), RED_ALL_EMPTY, FLOAT, ref=_mean_ref, rtol=1e-5),
    OpSpec("mean_fn_dim", lambda lib, a: lib.mean(a, 0), RED_DIM_EMPTY, FLOAT,
           ref=lambda np_, a: _mean_ref(np_, a, 0), rtol=1e-5),
    OpSpec("mean_dims_keepdim", lambda lib, a: a.mean((0, 1), keepdim=True), RED_DIM, FLOAT,
           ref=lambda np_, a: _mean_ref(np_, a, (0, 1), keepdims=True), rtol=1e-5),
    OpSpec("mean_dtype", lambda lib, a: a.mean(dtype=lib.float64), RED_ALL, NUM,
           ref=lambda np_, a: np.mean(a.astype(np.float64))),
    OpSpec("max", lambda lib, a: a.max(), RED_ALL, ALL, DISTINCT, ref=lambda np_, a: np.max(a)),
    OpSpec("min_fn", lambda lib, a: lib.min(a), RED_ALL, ALL, DISTINCT,
           ref=lambda np_, a: np.min(a)),
    OpSpec("max_dim", lambda lib, a: a.max(1), RED_DIM, NUM, DISTINCT,
           ref=lambda np_, a: _max_dim(np_, a, 1)),
    OpSpec("max_dim_keepdim_fn", lambda lib, a: lib.max(a, 0, keepdim=True), RED_DIM, NUM,
           DISTINCT, ref=lambda np_, a: _max_dim(np_, a, 0, True)),
    OpSpec("max_dim_kw", lambda lib, a: a.max(dim=-1), RED_DIM, FLOAT, DISTINCT,
           ref=lambda np_, a: _max_dim(np_, a, -1)),
    OpSpec("min_dim", lambda lib, a: a.min(0), RED_DIM, NUM, DISTINCT,
           ref=lambda np_, a: _max_dim(np_, a, 0, largest=False)),
    OpSpec("max_dim_values_attr", lambda lib, a: a.max(1).values, RED_DIM, FLOAT, DISTINCT,
           ref=lambda np_, a: np.max(a, 1)),
    OpSpec("min_dim_indices_attr", lambda lib, a: a.min(1).indices, RED_DIM, FLOAT, DISTINCT,
           ref=lambda np_, a: np.argmin(a, 1), differentiable=False),
    OpSpec("argmax", lambda lib, a: a.argmax(), RED_ALL, NUM, DISTINCT,
           ref=lambda np_, a: np.argmax(a), differentiable=False),
    OpSpec("argmax_dim", lambda lib, a: lib.argmax(a, 1), RED_DIM, NUM, DISTINCT,
           ref=lambda np_, a: np.argmax(a, 1), differentiable=False),
    OpSpec("argmax_dim_keepdim", lambda lib, a: a.argmax(dim=0, keepdim=True), RED_DIM, NUM,
           DISTINCT, ref=lambda np_, a: np.argmax(a, 0, keepdims=True), differentiable=False),
    OpSpec("argmin", lambda lib, a: lib.argmin(a), RED_ALL, NUM, DISTINCT,
           ref=lambda np_, a: np.argmin(a), differentiable=False),
    OpSpec("argmin_dim_keepdim", lambda lib, a: a.argmin(-1, keepdim=True), RED_DIM, NUM,
           DISTINCT, ref=lambda np_, a: np.argmin(a, -1, keepdims=True), differentiable=False),
    OpSpec("amax", lambda lib, a: a.amax(), RED_ALL, ALL, DISTINCT,
           ref=lambda np_, a: np.max(a)),
    OpSpec("amax_dim", lambda lib, a: lib.amax(a, 1), RED_DIM, ALL, DISTINCT,
           ref=lambda np_, a: np.max(a, 1)),
    OpSpec("amax_dims_keepdim", lambda lib, a: a.amax((0, -1), keepdim=True), RED_DIM, NUM,
           DISTINCT, ref=lambda np_, a: np.max(a, (0, -1), keepdims=True)),
    # ties: the gradient is split evenly among the maxima (no finite differences there)
    OpSpec("amax_ties", lambda lib, a: a.amax(1),
           (S("ties", Fixed([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]])),), FLOAT,
           ref=lambda np_, a: np.max(a, 1), gradcheck=False),
    OpSpec("max_ties_all", lambda lib, a: a.max(),
           (S("ties", Fixed([[1.0, 3.0, 3.0], [2.0, 0.0, 3.0]])),), FLOAT,
           ref=lambda np_, a: np.max(a), gradcheck=False),
    OpSpec("any", lambda lib, a: a.any(), RED_ALL_EMPTY, ALL, SMALL,
           ref=lambda np_, a: np.any(a), differentiable=False),
    OpSpec("any_dim", lambda lib, a: lib.any(a, 1), RED_DIM_EMPTY, ALL, SMALL,
           ref=lambda np_, a: np.any(a, 1), differentiable=False),
    OpSpec("all", lambda lib, a: lib.all(a), RED_ALL_EMPTY, ALL, SMALL,
           ref=lambda np_, a: np.all(a), differentiable=False),
    OpSpec("all_dim_keepdim", lambda lib, a: a.all(0, keepdim=True), RED_DIM_EMPTY, ALL, SMALL,
           ref=lambda np_, a: np.all(a, 0, keepdims=True), differentiable=False),
    OpSpec("prod", lambda lib, a: a.prod(), RED_ALL_EMPTY, ALL, ref=lambda np_, a: np.prod(a),
           rtol=1e-5),
    OpSpec("prod_zeros", lambda lib, a: lib.prod(a),
           (S("one_zero", Fixed([[1.5, 0.0, -2.0], [0.5, 3.0, 1.25]])),
            S("two_zeros", Fixed([[1.5, 0.0, -2.0], [0.5, 0.0, 1.25]]))), FLOAT,
           ref=lambda np_, a: np.prod(a)),
    OpSpec("prod_dim", lambda lib, a: a.prod(1), RED_DIM, NUM, ref=lambda np_, a: np.prod(a, 1),
           rtol=1e-5),
]

# ---- matmul family ---------------------------------------------------------------------------

MATMUL = (
    S("1d_1d", A(3), A(3)),
    S("2d_1d", A(2, 3), A(3)),
    S("1d_2d", A(3), A(3, 2)),
    S("2d_2d", A(2, 3), A(3, 4)),
    S("3d_2d", A(2, 2, 3), A(3, 4)),
    S("2d_3d", A(2, 3), A(2, 3, 4)),
    S("3d_3d", A(2, 2, 3), A(2, 3, 4)),
    S("1d_3d", A(3), A(2, 3, 4)),
    S("3d_1d", A(2, 2, 3), A(3)),
    S("4d_3d_bcast", A(2, 1, 2, 3), A(3, 3, 2)),
    S("t_t", T(2, 3), T(3, 4)),
    S("3d_tr_step", Tr((2, 2, 3), 1, 2), Step(3, 2)),
    S("empty_rows", A(0, 3), A(3, 2)),
    S("empty_inner", A(2, 0), A(0, 3)),
)
_MM_TOL = dict(rtol=1e-5, atol=1e-5)
OPS += [
    OpSpec("matmul", lambda lib, a, b: lib.matmul(a, b), MATMUL, FLOAT + ("int64",),
           ref=_matmul, gradgrad=True, **_MM_TOL),
    OpSpec("matmul_operator", lambda lib, a, b: a @ b, MATMUL[:6], FLOAT + ("int32",),
           ref=_matmul, **_MM_TOL),
    OpSpec("mm", lambda lib, a, b: lib.mm(a, b),
           (S("2d", A(2, 3), A(3, 4)), S("t_t", T(2, 3), T(3, 4)), S("step", Step(2, 3), A(3, 1)),
            S("empty", A(2, 0), A(0, 3))), FLOAT + ("int64",), ref=_matmul, **_MM_TOL),
    OpSpec("Tensor.mm", lambda lib, a, b: a.mm(b), (S("2d", A(2, 3), A(3, 4)),), FLOAT,
           ref=_matmul, **_MM_TOL),
    OpSpec("bmm", lambda lib, a, b: lib.bmm(a, b),
           (S("3d", A(2, 2, 3), A(2, 3, 4)), S("tr", Tr((2, 2, 3), 1, 2), Tr((2, 3, 4), 0, 1)),
            S("empty_batch", A(0, 2, 3), A(0, 3, 1))), FLOAT + ("int64",), ref=_matmul, **_MM_TOL),
    OpSpec("mv", lambda lib, a, b: lib.mv(a, b),
           (S("2d_1d", A(2, 3), A(3)), S("t_step", T(2, 3), Step(3))), FLOAT + ("int64",),
           ref=_matmul, **_MM_TOL),
    OpSpec("dot", lambda lib, a, b: lib.dot(a, b),
           (S("1d", A(4), A(4)), S("step", Step(3), A(3)), S("empty", A(0), A(0))),
           FLOAT + ("int64",), ref=lambda np_, a, b: np.dot(a, b), **_MM_TOL),
    OpSpec("Tensor.dot", lambda lib, a, b: a.dot(b), (S("1d", A(4), A(4)),), FLOAT,
           ref=lambda np_, a, b: np.dot(a, b), **_MM_TOL),
    OpSpec("outer", lambda lib, a, b: lib.outer(a, b),
           (S("1d", A(3), A(4)), S("step", Step(2), A(3)), S("empty", A(0), A(2))),
           NUM, ref=lambda np_, a, b: np.outer(a, b)),
]

# ---- views, shape ops, joins -----------------------------------------------------------------

V23 = (S("2x3", A(2, 3)), S("t", T(2, 3)), S("step", Step(2, 3)), S("expand", E((1, 3), (2, 3))))
V23C = (S("2x3", A(2, 3)),)
V234 = (S("2x3x4", A(2, 3, 4)), S("tr", Tr((2, 3, 4), 0, 2)))
_np_t = lambda a: a.T if a.ndim == 2 else a  # noqa: E731
OPS += [
    OpSpec("view", lambda lib, a: a.view(3, 2), V23C + (S("2x3x1", A(2, 3, 1)),), ALL,
           ref=lambda np_, a: a.reshape(3, 2)),
    OpSpec("view_infer", lambda lib, a: a.view(-1), V23C + (S("0d", A()), S("empty", A(0, 3))),
           ALL, ref=lambda np_, a: a.reshape(-1)),
    OpSpec("view_tuple", lambda lib, a: a.view((1, 6, 1)), V23C, ALL,
           ref=lambda np_, a: a.reshape(1, 6, 1)),
    OpSpec("view_0d_to_1", lambda lib, a: a.view(1, 1), (S("0d", A()),), ALL,
           ref=lambda np_, a: a.reshape(1, 1)),
    OpSpec("view_empty", lambda lib, a: a.view(3, 0, 2), (S("empty", A(0, 3)),), FLOAT,
           ref=lambda np_, a: a.reshape(3, 0, 2)),
    OpSpec("view_as", lambda lib, a, b: a.view_as(b), (S("2x3", A(2, 3), A(3, 2)),), FLOAT,
           ref=lambda np_, a, b: a.reshape(b.shape)),
    OpSpec("view_expand_split_dim", lambda lib, a: a.view(2, 1, 3), (S("expand", E((3,), (2, 3))),),
           FLOAT, ref=lambda np_, a: a.reshape(2, 1, 3)),
    OpSpec("reshape", lambda lib, a: a.reshape(3, 2), V23, ALL,
           ref=lambda np_, a: a.reshape(3, 2)),
    OpSpec("reshape_fn_infer", lambda lib, a: lib.reshape(a, (-1,)), V23 + (S("0d", A()),), ALL,
           ref=lambda np_, a: a.reshape(-1)),
    OpSpec("reshape_as", lambda lib, a, b: a.reshape_as(b), (S("t", T(2, 3), A(6)),), FLOAT,
           ref=lambda np_, a, b: a.reshape(b.shape)),
    OpSpec("t", lambda lib, a: a.t(), V23 + (S("1d", A(3)), S("0d", A())), ALL,
           ref=lambda np_, a: _np_t(a)),
    OpSpec("t_fn", lambda lib, a: lib.t(a), V23C, ALL, ref=lambda np_, a: a.T),
    OpSpec("T_property", lambda lib, a: a.T, V23C + V234[:1], FLOAT,
           ref=lambda np_, a: a.T),
    OpSpec("mT_property", lambda lib, a: a.mT, V234, FLOAT,
           ref=lambda np_, a: np.swapaxes(a, -1, -2)),
    OpSpec("transpose", lambda lib, a: a.transpose(0, 1), V23 + V234, ALL,
           ref=lambda np_, a: np.swapaxes(a, 0, 1)),
    OpSpec("transpose_neg_fn", lambda lib, a: lib.transpose(a, -1, 0), V234, ALL,
           ref=lambda np_, a: np.swapaxes(a, -1, 0)),
    OpSpec("swapaxes", lambda lib, a: lib.swapaxes(a, 0, 2), V234, FLOAT),
    OpSpec("permute", lambda lib, a: a.permute(2, 0, 1), V234, ALL,
           ref=lambda np_, a: np.transpose(a, (2, 0, 1))),
    OpSpec("permute_tuple_neg", lambda lib, a: a.permute((1, -1, 0)), V234, FLOAT,
           ref=lambda np_, a: np.transpose(a, (1, 2, 0))),
    OpSpec("permute_fn", lambda lib, a: lib.permute(a, (1, 0)), V23, ALL,
           ref=lambda np_, a: a.T),
    OpSpec("unsqueeze", lambda lib, a: a.unsqueeze(0), V23 + (S("0d", A()),), ALL,
           ref=lambda np_, a: np.expand_dims(a, 0)),
    OpSpec("unsqueeze_neg_fn", lambda lib, a: lib.unsqueeze(a, -1), V23 + (S("empty", A(0, 3)),),
           ALL, ref=lambda np_, a: np.expand_dims(a, -1)),
    OpSpec("unsqueeze_mid", lambda lib, a: a.unsqueeze(1), V23, FLOAT,
           ref=lambda np_, a: np.expand_dims(a, 1)),
    OpSpec("squeeze", lambda lib, a: a.squeeze(), (S("2x1x3x1", A(2, 1, 3, 1)), S("1x1", A(1, 1)),
                                                   S("0d", A()), S("2x3", A(2, 3))), ALL,
           ref=lambda np_, a: np.squeeze(a)),
    OpSpec("squeeze_dim", lambda lib, a: a.squeeze(1), (S("2x1x3", A(2, 1, 3)),
                                                        S("noop", A(2, 3))), ALL,
           ref=lambda np_, a: np.squeeze(a, 1) if a.shape[1] == 1 else a),
    OpSpec("squeeze_fn_neg", lambda lib, a: lib.squeeze(a, -1), (S("2x3x1", A(2, 3, 1)),), FLOAT,
           ref=lambda np_, a: np.squeeze(a, -1)),
    OpSpec("squeeze_dims_tuple", lambda lib, a: a.squeeze((1, 3)), (S("2x1x3x1", A(2, 1, 3, 1)),),
           FLOAT, ref=lambda np_, a: np.squeeze(a, (1, 3))),
    OpSpec("expand", lambda lib, a: a.expand(2, 3), (S("1x3", A(1, 3)), S("3", A(3)),
                                                    S("0d", A())), ALL,
           ref=lambda np_, a: np.broadcast_to(a, (2, 3))),
    OpSpec("expand_new_dims_keep", lambda lib, a: a.expand(4, -1, 3), (S("2x1", A(2, 1)),), ALL,
           ref=lambda np_, a: np.broadcast_to(a, (4, 2, 3))),
    OpSpec("expand_tuple", lambda lib, a: a.expand((2, 2, 3)), (S("t_1", T(1, 3)),), FLOAT,
           ref=lambda np_, a: np.broadcast_to(a, (2, 2, 3))),
    OpSpec("expand_as", lambda lib, a, b: a.expand_as(b), (S("bcast", A(3, 1), A(3, 4)),), FLOAT,
           ref=lambda np_, a, b: np.broadcast_to(a, b.shape)),
    OpSpec("flatten", lambda lib, a: a.flatten(), V23 + V234 + (S("0d", A()),), ALL,
           ref=lambda np_, a: a.reshape(-1)),
    OpSpec("flatten_start", lambda lib, a: a.flatten(1), V234, ALL,
           ref=lambda np_, a: a.reshape(a.shape[0], -1)),
    OpSpec("flatten_fn_range", lambda lib, a: lib.flatten(a, 0, 1), V234, FLOAT,
           ref=lambda np_, a: a.reshape(-1, a.shape[2])),
    OpSpec("select", lambda lib, a: a.select(1, -1), V23 + V234, ALL,
           ref=lambda np_, a: a[:, -1]),
    OpSpec("select_fn", lambda lib, a: lib.select(a, 0, 1), V23, ALL,
           ref=lambda np_, a: a[1]),
    OpSpec("narrow", lambda lib, a: a.narrow(1, 1, 2), V23 + V234, ALL,
           ref=lambda np_, a: a[:, 1:3]),
    OpSpec("narrow_fn_neg_start", lambda lib, a: lib.narrow(a, 0, -1, 1), V23, FLOAT,
           ref=lambda np_, a: a[-1:]),
    OpSpec("split", lambda lib, a: a.split(2), (S("5x2", A(5, 2)), S("t", T(3, 2))), ALL,
           ref=lambda np_, a: _split(a, 2, 0)),
    OpSpec("split_dim", lambda lib, a: a.split(2, dim=1), V23 + V234, ALL,
           ref=lambda np_, a: _split(a, 2, 1)),
    OpSpec("split_sizes", lambda lib, a: a.split([1, 2], 1), V23, ALL,
           ref=lambda np_, a: _split(a, [1, 2], 1)),
    OpSpec("split_fn", lambda lib, a: lib.split(a, 1), V23, FLOAT,
           ref=lambda np_, a: _split(a, 1, 0)),
    OpSpec("chunk", lambda lib, a: a.chunk(2), (S("3x2", A(3, 2)), S("4x2", A(4, 2)),
                                               S("t", T(3, 2))), ALL,
           ref=lambda np_, a: _chunk(a, 2, 0)),
    OpSpec("chunk_dim_fn", lambda lib, a: lib.chunk(a, 3, 1), V23 + V234, ALL,
           ref=lambda np_, a: _chunk(a, 3, 1)),
    OpSpec("chunk_uneven", lambda lib, a: a.chunk(4, 1), (S("1x6", A(1, 6)),), FLOAT,
           ref=lambda np_, a: _chunk(a, 4, 1)),
    OpSpec("unbind", lambda lib, a: a.unbind(), V23 + V234, ALL,
           ref=lambda np_, a: _unbind(a, 0)),
    OpSpec("unbind_fn_dim", lambda lib, a: lib.unbind(a, 1), V23, ALL,
           ref=lambda np_, a: _unbind(a, 1)),
    OpSpec("cat", lambda lib, a, b: lib.cat([a, b]),
           (S("2x3_1x3", A(2, 3), A(1, 3)), S("t_step", T(2, 3), Step(2, 3)),
            S("empty", A(0, 3), A(2, 3)), S("1d", A(2), A(3))), ALL,
           ref=lambda np_, a, b: np.concatenate([a, b])),
    OpSpec("cat_dim_tuple", lambda lib, a, b: lib.cat((a, b), dim=1),
           (S("2x1_2x3", A(2, 1), A(2, 3)), S("expand", E((1, 3), (2, 3)), T(2, 2))), ALL,
           ref=lambda np_, a, b: np.concatenate([a, b], 1)),
    OpSpec("cat_neg_dim_three", lambda lib, a, b, c: lib.cat([a, b, c], -1),
           (S("3d", A(2, 1, 2), A(2, 1, 1), A(2, 1, 3)),), FLOAT,
           ref=lambda np_, a, b, c: np.concatenate([a, b, c], -1)),
    OpSpec("cat_legacy_empty_1d", lambda lib, a, b: lib.cat([a, b]),
           (S("2x3_0", A(2, 3), A(0)),), FLOAT, ref=lambda np_, a, b: a),
    OpSpec("cat_promotes", lambda lib, a, b: lib.cat([a, b]),
           (S("f_i64", A(2, 3), A(1, 3, dtype="int64")),), FLOAT,
           ref=lambda np_, a, b: np.concatenate([a, b.astype(a.dtype)])),
    OpSpec("concat", lambda lib, a, b: lib.concat([a, b], 1), (S("2x3", A(2, 3), A(2, 2)),), FLOAT,
           ref=lambda np_, a, b: np.concatenate([a, b], 1)),
    OpSpec("stack", lambda lib, a, b: lib.stack([a, b]),
           (S("2x3", A(2, 3), A(2, 3)), S("t_step", T(2, 3), Step(2, 3)), S("0d", A(), A()),
            S("empty", A(0, 3), A(0, 3))), ALL, ref=lambda np_, a, b: np.stack([a, b])),
    OpSpec("stack_dim", lambda lib, a, b, c: lib.stack((a, b, c), dim=2),
           (S("2x3", A(2, 3), A(2, 3), A(2, 3)),), ALL,
           ref=lambda np_, a, b, c: np.stack([a, b, c], 2)),
    OpSpec("stack_neg_dim", lambda lib, a, b: lib.stack([a, b], -1), (S("3", A(3), A(3)),), FLOAT,
           ref=lambda np_, a, b: np.stack([a, b], -1)),
    OpSpec("contiguous", lambda lib, a: a.contiguous(), V23 + (S("0d", A()),), ALL,
           ref=lambda np_, a: a.copy()),
    OpSpec("clone", lambda lib, a: a.clone(), V23 + (S("0d", A()), S("empty", A(0, 3))), ALL,
           ref=lambda np_, a: a.copy()),
    OpSpec("clone_fn", lambda lib, a: lib.clone(a), V23C, FLOAT, ref=lambda np_, a: a.copy()),
    OpSpec("as_strided", lambda lib, a: a.as_strided((2, 2), (1, 2)), (S("2x3", A(2, 3)),), FLOAT,
           ref=lambda np_, a: np.lib.stride_tricks.as_strided(
               a, (2, 2), (a.itemsize, 2 * a.itemsize))),
]

# ---- indexing --------------------------------------------------------------------------------

X34 = (S("3x4", A(3, 4)), S("t", T(3, 4)))
X234 = (S("2x3x4", A(2, 3, 4)), S("tr", Tr((2, 3, 4), 0, 2)))


def _ix(name, fn, samples=X34, dtypes=ALL, **kw):
    return OpSpec("getitem_" + name, fn, samples, dtypes, **kw)


OPS += [
    _ix("int", lambda lib, a: a[0]),
    _ix("neg_int", lambda lib, a: a[-1]),
    _ix("int_int", lambda lib, a: a[1, 2]),
    _ix("chained_int", lambda lib, a: a[0][-1], dtypes=FLOAT),
    _ix("colon_int", lambda lib, a: a[:, 1]),
    _ix("slice", lambda lib, a: a[1:3]),
    _ix("slice_neg", lambda lib, a: a[-2:, :-1]),
    _ix("slice_step", lambda lib, a: a[::2, 1::2]),
    _ix("slice_clamped", lambda lib, a: a[1:100, -100:2]),
    _ix("slice_empty", lambda lib, a: a[2:1]),
    _ix("ellipsis", lambda lib, a: a[..., 1], X34 + X234),
    _ix("ellipsis_only", lambda lib, a: a[...]),
    _ix("none", lambda lib, a: a[None]),
    _ix("none_mid", lambda lib, a: a[:, None, 1:]),
    _ix("none_ellipsis", lambda lib, a: a[..., None], dtypes=FLOAT),
    _ix("combo", lambda lib, a: a[1, None, ..., ::2], X234),
    _ix("0d_ellipsis", lambda lib, a: a[...], (S("0d", A()),)),
    _ix("0d_none", lambda lib, a: a[None], (S("0d", A()),)),
    _ix("list", lambda lib, a: a[[0, 2]]),
    _ix("list_dup", lambda lib, a: a[[1, 1, 0]], dtypes=FLOAT),
    _ix("list_neg", lambda lib, a: a[[-1, 0]], dtypes=FLOAT),
    _ix("two_lists", lambda lib, a: a[[0, 2], [1, 3]]),
    _ix("tensor", lambda lib, a, i: a[i], (S("3x4", A(3, 4), Idx([2, 0, 2])),
                                           S("t", T(3, 4), Idx([-1, 1])))),
    _ix("tensor_2d", lambda lib, a, i: a[i], (S("3x4", A(3, 4), Idx([[0, 1], [2, 0]])),)),
    _ix("tensor_0d", lambda lib, a, i: a[i], (S("3x4", A(3, 4), Idx(1)),)),
    _ix("tensor_int32", lambda lib, a, i: a[i], (S("3x4", A(3, 4), Idx([2, 0], dtype="int32")),),
        dtypes=FLOAT),
    _ix("slice_tensor", lambda lib, a, i: a[1:, i], (S("3x4", A(3, 4), Idx([3, 0, 3])),)),
    _ix("tensor_tensor", lambda lib, a, i, j: a[i, j],
        (S("3x4", A(3, 4), Idx([0, 2, 2]), Idx([1, 1, 3])),
         S("bcast", A(3, 4), Idx([[0], [2]]), Idx([1, 3, 0])))),
    _ix("nonadjacent", lambda lib, a, i, j: a[i, :, j],
        (S("2x3x4", A(2, 3, 4), Idx([1, 0]), Idx([3, 2])),)),
    _ix("adjacent_after_slice", lambda lib, a, i, j: a[:, i, j],
        (S("2x3x4", A(2, 3, 4), Idx([1, 0]), Idx([3, 2])),)),
    _ix("ellipsis_tensor", lambda lib, a, i: a[..., i], (S("2x3x4", A(2, 3, 4), Idx([0, 3])),)),
    _ix("none_tensor", lambda lib, a, i: a[None, i], (S("3x4", A(3, 4), Idx([1, 2])),)),
    _ix("int_tensor", lambda lib, a, i: a[1, i], (S("2x3x4", A(2, 3, 4), Idx([0, 2])),)),
    _ix("mask_full", lambda lib, a, m: a[m],
        (S("3x4", A(3, 4), Mask([[1, 0, 0, 1], [0, 0, 0, 0], [1, 1, 1, 0]])),
         S("t", T(3, 4), Mask([[0, 1, 0, 1], [1, 0, 0, 0], [0, 0, 1, 0]])))),
    _ix("mask_rows", lambda lib, a, m: a[m], (S("3x4", A(3, 4), Mask([True, False, True])),)),
    _ix("mask_cols", lambda lib, a, m: a[:, m],
        (S("3x4", A(3, 4), Mask([False, True, True, False])),)),
    _ix("mask_none_selected", lambda lib, a, m: a[m], (S("3x4", A(3, 4), Mask([0, 0, 0])),),
        dtypes=FLOAT),
    _ix("mask_from_compare", lambda lib, a: a[a > 0], X34, dtypes=FLOAT),
    _ix("mask_and_tensor", lambda lib, a, m, i: a[m, i],
        (S("3x4", A(3, 4), Mask([True, False, True]), Idx([3, 0])),), dtypes=FLOAT),
    _ix("bool_scalar", lambda lib, a: a[True], (S("3x4", A(3, 4)),), dtypes=FLOAT),
]

# ---- gather / scatter_add / index_select / masked_fill ---------------------------------------

OPS += [
    OpSpec("gather", lambda lib, a, i: a.gather(1, i),
           (S("3x4", A(3, 4), Idx([[0, 3], [1, 1], [2, 0]])),
            S("t_smaller", T(3, 4), Idx([[3, 3, 0], [0, 1, 2]]))), ALL,
           ref=lambda np_, a, i: _gather(a, 1, i)),
    OpSpec("gather_fn_dim0", lambda lib, a, i: lib.gather(a, 0, i),
           (S("3x4", A(3, 4), Idx([[2, 0, 1, 1], [0, 0, 2, 1]])),), FLOAT,
           ref=lambda np_, a, i: _gather(a, 0, i)),
    OpSpec("scatter_add", lambda lib, a, i, s: a.scatter_add(1, i, s),
           (S("dups", A(3, 4), Idx([[0, 0], [3, 1], [2, 2]]), A(3, 2)),
            S("t", T(3, 4), Idx([[1, 1, 1], [0, 2, 3]]), A(2, 3))), NUM,
           ref=lambda np_, a, i, s: _scatter_add(a, 1, i, s)),
    OpSpec("scatter_add_fn", lambda lib, a, i, s: lib.scatter_add(a, 0, i, s),
           (S("dups", A(3, 2), Idx([[0, 2], [0, 2]]), A(2, 2)),), FLOAT,
           ref=lambda np_, a, i, s: _scatter_add(a, 0, i, s)),
    OpSpec("index_select", lambda lib, a, i: a.index_select(1, i),
           (S("3x4", A(3, 4), Idx([3, 0, 3])), S("t", T(3, 4), Idx([1])),
            S("empty_index", A(3, 4), Idx(np.zeros(0, dtype=np.int64)))), ALL,
           ref=lambda np_, a, i: np.take(a, i, 1)),
    OpSpec("index_select_fn", lambda lib, a, i: lib.index_select(a, 0, i),
           (S("3x4", A(3, 4), Idx([2, 2, 0])), S("int32_index", A(3, 4), Idx([1, 0], "int32"))),
           FLOAT, ref=lambda np_, a, i: np.take(a, i, 0)),
    OpSpec("masked_fill", lambda lib, a, m: a.masked_fill(m, 0.5),
           (S("same", A(2, 3), Mask([[1, 0, 1], [0, 0, 1]])),
            S("bcast", A(2, 3), Mask([True, False, True])),
            S("t", T(2, 3), Mask([[0], [1]]))), FLOAT,
           ref=lambda np_, a, m: np.where(m, np.asarray(0.5, a.dtype), a)),
    OpSpec("masked_fill_int", lambda lib, a, m: lib.masked_fill(a, m, 7),
           (S("bcast", A(2, 3), Mask([True, False, True])),), ALL,
           ref=lambda np_, a, m: np.where(m, np.asarray(7).astype(a.dtype), a)),
    OpSpec("masked_fill_tensor_value", lambda lib, a, m, v: a.masked_fill(m, v),
           (S("0d_value", A(2, 3), Mask([True, False, True]), A()),), FLOAT,
           ref=lambda np_, a, m, v: np.where(m, v, a)),
]

# ---- softmax ---------------------------------------------------------------------------------

_SM = (S("2x3", A(2, 3)), S("t", T(2, 3)), S("3d", A(2, 3, 2)), S("expand", E((1, 3), (2, 3))))
OPS += [
    OpSpec("log_softmax", lambda lib, a: lib.log_softmax(a, dim=-1), _SM + (S("1d", A(4)),), FLOAT,
           ref=lambda np_, a: _log_softmax(a, -1), gradgrad=True, rtol=1e-5),
    OpSpec("Tensor.log_softmax_dim0", lambda lib, a: a.log_softmax(0), _SM, FLOAT,
           ref=lambda np_, a: _log_softmax(a, 0), gradgrad=True, rtol=1e-5),
    OpSpec("softmax", lambda lib, a: lib.softmax(a, 1), _SM, FLOAT,
           ref=lambda np_, a: _softmax(a, 1), gradgrad=True, rtol=1e-5),
    OpSpec("Tensor.softmax_neg", lambda lib, a: a.softmax(dim=-1), _SM + (S("0d", A()),), FLOAT,
           ref=lambda np_, a: _softmax(a, -1) if a.ndim else np.ones((), a.dtype), rtol=1e-5),
    OpSpec("softmax_empty", lambda lib, a: a.softmax(1), (S("empty", A(0, 3)),), FLOAT,
           ref=lambda np_, a: a.copy()),
    OpSpec("softmax_dtype", lambda lib, a: a.softmax(-1, dtype=lib.float64), _SM[:1], ("float32",),
           ref=lambda np_, a: _softmax(a.astype(np.float64), -1), rtol=1e-5),
    OpSpec("log_softmax_large", lambda lib, a: a.log_softmax(-1),
           (S("large", Fixed([[1000.0, 0.0, -1000.0], [50.0, 50.0, 50.0]])),), FLOAT,
           ref=lambda np_, a: _log_softmax(a, -1)),
]

# ---- casts -----------------------------------------------------------------------------------

_CAST_SAMPLES = (S("2x3", A(2, 3)), S("t", T(2, 3)), S("0d", A()), S("empty", A(0, 3)))
# (name, fn, numpy dtype (None: unchanged), domain, differentiable, gradcheck)
for _name, _call, _np_dtype, _dom, _diff, _gc in (
        ("to_float64", lambda lib, a: a.to(lib.float64), np.float64, CASTABLE, True, True),
        ("to_dtype_kw_float32", lambda lib, a: a.to(dtype=lib.float32), np.float32, CASTABLE,
         True, False),
        ("to_int32", lambda lib, a: a.to(lib.int32), np.int32, CASTABLE, False, False),
        ("to_uint8", lambda lib, a: a.to(lib.uint8), np.uint8, NONNEG, False, False),
        ("to_bool", lambda lib, a: a.to(lib.bool), np.bool_, SMALL, False, False),
        ("float", lambda lib, a: a.float(), np.float32, CASTABLE, True, False),
        ("double", lambda lib, a: a.double(), np.float64, CASTABLE, True, True),
        ("long", lambda lib, a: a.long(), np.int64, CASTABLE, False, False),
        ("int", lambda lib, a: a.int(), np.int32, CASTABLE, False, False),
        ("bool", lambda lib, a: a.bool(), np.bool_, SMALL, False, False),
        ("to_copy_true", lambda lib, a: a.to(a.dtype, copy=True), None, CASTABLE, True, True),
        ("to_other_tensor", lambda lib, a, b: a.to(b), np.float64, CASTABLE, True, True),
        ("type_as", lambda lib, a, b: a.type_as(b), np.float64, CASTABLE, True, True),
        ("type_dtype", lambda lib, a: a.type(lib.int64), np.int64, CASTABLE, False, False),
):
    _samples = _CAST_SAMPLES
    if _name in ("to_other_tensor", "type_as"):
        _samples = (S("2x3", A(2, 3), A(1, dtype="float64")),)
    OPS.append(OpSpec(
        "cast_" + _name, _call, _samples, ALL, _dom,
        (lambda np_, a, *rest, _d=_np_dtype: a.astype(_d if _d is not None else a.dtype)),
        differentiable=_diff, gradcheck=_gc))

# view(dtype): the same bytes read as another dtype, detached (no grad_fn, requires_grad False)
OPS += [
    OpSpec("view_dtype_same_size",
           lambda lib, a: a.view(lib.int32 if a.dtype == lib.float32 else lib.int64),
           _CAST_SAMPLES, FLOAT,
           ref=lambda np_, a: a.view(np.int32 if a.dtype == np.float32 else np.int64),
           differentiable=False),
    OpSpec("view_dtype_half_size",
           lambda lib, a: a.view(lib.int16 if a.dtype == lib.float32 else lib.float32),
           (S("2x3", A(2, 3)), S("2x2x4", A(2, 2, 4))), FLOAT,
           ref=lambda np_, a: np.ascontiguousarray(a).view(
               np.int16 if a.dtype == np.float32 else np.float32),
           differentiable=False),
]

# ---- factories -------------------------------------------------------------------------------

CREATION = [
    CreationSpec("zeros_varargs", lambda lib: lib.zeros(2, 3),
                 lambda: np.zeros((2, 3), np.float32)),
    CreationSpec("zeros_tuple_dtype", lambda lib: lib.zeros((2, 3), dtype=lib.int64),
                 lambda: np.zeros((2, 3), np.int64)),
    CreationSpec("zeros_list", lambda lib: lib.zeros([3]), lambda: np.zeros(3, np.float32)),
    CreationSpec("zeros_0d", lambda lib: lib.zeros(()), lambda: np.zeros((), np.float32)),
    CreationSpec("zeros_empty", lambda lib: lib.zeros(0, 2), lambda: np.zeros((0, 2), np.float32)),
    CreationSpec("zeros_size", lambda lib: lib.zeros(lib.zeros(2, 1).shape),
                 lambda: np.zeros((2, 1), np.float32)),
    CreationSpec("ones_bool", lambda lib: lib.ones(3, dtype=lib.bool), lambda: np.ones(3, bool)),
    CreationSpec("ones_float64", lambda lib: lib.ones(2, 2, dtype=lib.float64),
                 lambda: np.ones((2, 2))),
    CreationSpec("ones_uint8", lambda lib: lib.ones((2,), dtype=lib.uint8),
                 lambda: np.ones(2, np.uint8)),
    CreationSpec("full_float", lambda lib: lib.full((2, 2), 1.5),
                 lambda: np.full((2, 2), 1.5, np.float32)),
    CreationSpec("full_int_infers_long", lambda lib: lib.full((2,), 7),
                 lambda: np.full(2, 7, np.int64)),
    CreationSpec("full_bool_infers_bool", lambda lib: lib.full((2,), True),
                 lambda: np.full(2, True)),
    CreationSpec("full_dtype", lambda lib: lib.full([1, 3], 2, dtype=lib.float64),
                 lambda: np.full((1, 3), 2.0)),
    CreationSpec("full_0d", lambda lib: lib.full((), -1.25),
                 lambda: np.full((), -1.25, np.float32)),
    CreationSpec("empty_shape", lambda lib: lib.empty(2, 3), None),
    CreationSpec("empty_tuple_dtype", lambda lib: lib.empty((0, 2), dtype=lib.int32), None),
    CreationSpec("empty_0", lambda lib: lib.empty(0), None),
    CreationSpec("arange_end", lambda lib: lib.arange(5), lambda: np.arange(5)),
    CreationSpec("arange_start_end", lambda lib: lib.arange(1, 4), lambda: np.arange(1, 4)),
    CreationSpec("arange_float_step", lambda lib: lib.arange(0, 1, 0.25),
                 lambda: np.arange(0, 1, 0.25, dtype=np.float32)),
    CreationSpec("arange_float_end", lambda lib: lib.arange(5.0),
                 lambda: np.arange(5.0, dtype=np.float32)),
    CreationSpec("arange_dtype", lambda lib: lib.arange(0, 5, 2, dtype=lib.float64),
                 lambda: np.arange(0, 5, 2, dtype=np.float64)),
    CreationSpec("arange_negative_step", lambda lib: lib.arange(10, 0, -3),
                 lambda: np.arange(10, 0, -3)),
    CreationSpec("arange_negative_float", lambda lib: lib.arange(-1.5, 1.5, 0.5),
                 lambda: np.arange(-1.5, 1.5, 0.5, dtype=np.float32)),
    CreationSpec("arange_empty", lambda lib: lib.arange(3, 3), lambda: np.arange(3, 3)),
    CreationSpec("arange_kw_int32", lambda lib: lib.arange(4, dtype=lib.int32),
                 lambda: np.arange(4, dtype=np.int32)),
    CreationSpec("linspace", lambda lib: lib.linspace(0, 1, 5),
                 lambda: np.linspace(0, 1, 5, dtype=np.float32)),
    CreationSpec("linspace_one", lambda lib: lib.linspace(-1, 1, 1),
                 lambda: np.array([-1.0], np.float32)),
    CreationSpec("linspace_zero", lambda lib: lib.linspace(0, 10, 0),
                 lambda: np.zeros(0, np.float32)),
    CreationSpec("linspace_kw_dtype", lambda lib: lib.linspace(2, -2, steps=4, dtype=lib.float64),
                 lambda: np.linspace(2, -2, 4)),
    CreationSpec("linspace_int_dtype", lambda lib: lib.linspace(0, 10, 4, dtype=lib.int64),
                 lambda: np.array([0, 3, 6, 10])),
    CreationSpec("eye", lambda lib: lib.eye(3), lambda: np.eye(3, dtype=np.float32)),
    CreationSpec("eye_rect", lambda lib: lib.eye(2, 4), lambda: np.eye(2, 4, dtype=np.float32)),
    CreationSpec("eye_m_kw_dtype", lambda lib: lib.eye(3, m=2, dtype=lib.int64),
                 lambda: np.eye(3, 2, dtype=np.int64)),
    CreationSpec("eye_0", lambda lib: lib.eye(0), lambda: np.eye(0, dtype=np.float32)),
    CreationSpec("zeros_like", lambda lib: lib.zeros_like(lib.ones(2, 3, dtype=lib.int32)),
                 lambda: np.zeros((2, 3), np.int32)),
    CreationSpec("ones_like_dtype", lambda lib: lib.ones_like(lib.zeros(2), dtype=lib.float64),
                 lambda: np.ones(2)),
    CreationSpec("ones_like_of_view", lambda lib: lib.ones_like(lib.zeros(2, 3).t()),
                 lambda: np.ones((3, 2), np.float32)),
    CreationSpec("full_like_float", lambda lib: lib.full_like(lib.zeros(2, 2), 2.5),
                 lambda: np.full((2, 2), 2.5, np.float32)),
    CreationSpec("full_like_int_truncates",
                 lambda lib: lib.full_like(lib.zeros(3, dtype=lib.int64), 2.5),
                 lambda: np.full(3, 2, np.int64)),
    CreationSpec("empty_like", lambda lib: lib.empty_like(lib.zeros(2, 3, dtype=lib.float64)),
                 None),
    CreationSpec("tensor_ints", lambda lib: lib.tensor([1, 2, 3]), lambda: np.array([1, 2, 3])),
    CreationSpec("tensor_floats", lambda lib: lib.tensor([1.0, 2.0]),
                 lambda: np.array([1, 2], np.float32)),
    CreationSpec("tensor_mixed_int_float", lambda lib: lib.tensor([1, 2.5]),
                 lambda: np.array([1, 2.5], np.float32)),
    CreationSpec("tensor_mixed_bool_int", lambda lib: lib.tensor([True, 2]),
                 lambda: np.array([1, 2])),
    CreationSpec("tensor_bools", lambda lib: lib.tensor([True, False]),
                 lambda: np.array([True, False])),
    CreationSpec("tensor_nested", lambda lib: lib.tensor([[1, 2], [3, 4]]),
                 lambda: np.array([[1, 2], [3, 4]])),
    CreationSpec("tensor_nested_mixed", lambda lib: lib.tensor([[1, 2], [3.5, 4]]),
                 lambda: np.array([[1, 2], [3.5, 4]], np.float32)),
    CreationSpec("tensor_tuple", lambda lib: lib.tensor((1.5, (2.5))),
                 lambda: np.array([1.5, 2.5], np.float32)),
    CreationSpec("tensor_0d_float", lambda lib: lib.tensor(3.5), lambda: np.array(3.5, np.float32)),
    CreationSpec("tensor_0d_int", lambda lib: lib.tensor(-7), lambda: np.array(-7)),
    CreationSpec("tensor_0d_bool", lambda lib: lib.tensor(False), lambda: np.array(False)),
    CreationSpec("tensor_big_int", lambda lib: lib.tensor([2 ** 40, -(2 ** 62)]),
                 lambda: np.array([2 ** 40, -(2 ** 62)])),
    CreationSpec("tensor_empty_list", lambda lib: lib.tensor([]), lambda: np.zeros(0, np.float32)),
    CreationSpec("tensor_empty_nested", lambda lib: lib.tensor([[], []]),
                 lambda: np.zeros((2, 0), np.float32)),
    CreationSpec("tensor_dtype_from_ints", lambda lib: lib.tensor([1, 2], dtype=lib.float64),
                 lambda: np.array([1.0, 2.0])),
    CreationSpec("tensor_dtype_truncates", lambda lib: lib.tensor([1.7, -2.7], dtype=lib.int64),
                 lambda: np.array([1, -2])),
    CreationSpec("tensor_of_0d_tensors", lambda lib: lib.tensor([lib.tensor(1.5), lib.tensor(2.5)]),
                 lambda: np.array([1.5, 2.5], np.float32)),
    CreationSpec("tensor_numpy_int64", lambda lib: lib.tensor(np.arange(6).reshape(2, 3)),
                 lambda: np.arange(6).reshape(2, 3)),
    CreationSpec("tensor_numpy_float32", lambda lib: lib.tensor(np.array([1.5, -2], np.float32)),
                 lambda: np.array([1.5, -2], np.float32)),
    CreationSpec("tensor_numpy_float64", lambda lib: lib.tensor(np.linspace(0, 1, 3)),
                 lambda: np.linspace(0, 1, 3)),
    CreationSpec("tensor_numpy_uint8", lambda lib: lib.tensor(np.array([0, 255], np.uint8)),
                 lambda: np.array([0, 255], np.uint8)),
    CreationSpec("tensor_numpy_int32", lambda lib: lib.tensor(np.array([[-3], [4]], np.int32)),
                 lambda: np.array([[-3], [4]], np.int32)),
    CreationSpec("tensor_numpy_bool", lambda lib: lib.tensor(np.array([True, False])),
                 lambda: np.array([True, False])),
    CreationSpec("tensor_numpy_0d", lambda lib: lib.tensor(np.array(2.0)), lambda: np.array(2.0)),
    CreationSpec("tensor_numpy_scalar", lambda lib: lib.tensor(np.float64(2.5)),
                 lambda: np.array(2.5)),
    CreationSpec("tensor_numpy_noncontiguous",
                 lambda lib: lib.tensor(np.arange(12.0).reshape(3, 4)[:, ::2].T),
                 lambda: np.arange(12.0).reshape(3, 4)[:, ::2].T.copy()),
    CreationSpec("tensor_numpy_dtype", lambda lib: lib.tensor(np.arange(3), dtype=lib.float32),
                 lambda: np.arange(3, dtype=np.float32)),
    CreationSpec("as_tensor_list", lambda lib: lib.as_tensor([1, 2]), lambda: np.array([1, 2])),
    CreationSpec("from_numpy_int32", lambda lib: lib.from_numpy(np.array([1, 2], np.int32)),
                 lambda: np.array([1, 2], np.int32)),
    CreationSpec("from_numpy_float64_2d", lambda lib: lib.from_numpy(np.ones((2, 3))),
                 lambda: np.ones((2, 3))),
    CreationSpec("from_numpy_noncontiguous",
                 lambda lib: lib.from_numpy(np.arange(12.0).reshape(3, 4)[:, ::2]),
                 lambda: np.arange(12.0).reshape(3, 4)[:, ::2].copy()),
    CreationSpec("from_numpy_bool_0d", lambda lib: lib.from_numpy(np.array(True)),
                 lambda: np.array(True)),
]


# ---- convolution and pooling -----------------------------------------------------------------

def _two(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def _conv2d_ref(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    """Direct convolution: one einsum per kernel position and group."""
    (s0, s1), (p0, p1), (d0, d1) = _two(stride), _two(padding), _two(dilation)
    x = np.pad(x, ((0, 0), (0, 0), (p0, p0), (p1, p1)))
    n, _, h, wd = x.shape
    o, cg, kh, kw = w.shape
    oh, ow = (h - d0 * (kh - 1) - 1) // s0 + 1, (wd - d1 * (kw - 1) - 1) // s1 + 1
    out = np.zeros((n, o, oh, ow), dtype=np.result_type(x, w))
    og = o // groups
    for i in range(kh):
        for j in range(kw):
            patch = x[:, :, i * d0:i * d0 + s0 * (oh - 1) + 1:s0, j * d1:j * d1 + s1 * (ow - 1) + 1:s1]
            for g in range(groups):
                out[:, g * og:(g + 1) * og] += np.einsum(
                    "nchw,oc->nohw", patch[:, g * cg:(g + 1) * cg], w[g * og:(g + 1) * og, :, i, j])
    return out if b is None else out + b.reshape(1, -1, 1, 1)


def _pool_ref(x, k, reduce):
    """Non-overlapping k x k windows (stride k, no padding) reduced with ``reduce``."""
    n, c, h, w = x.shape
    v = x[:, :, :h // k * k, :w // k * k].reshape(n, c, h // k, k, w // k, k)
    return reduce(v, axis=(3, 5))


_CONV_X = (S("2x3x6x5", A(2, 3, 6, 5), A(4, 3, 3, 2), A(4)),
           S("transposed_input", Tr((2, 3, 5, 6), 2, 3), A(4, 3, 3, 2), A(4)))
OPS += [
    OpSpec("nn.functional.conv2d", lambda lib, x, w, b: lib.nn.functional.conv2d(
        x, w, b, stride=(2, 1), padding=1, dilation=(1, 2)), _CONV_X, FLOAT,
        ref=lambda np_, x, w, b: _conv2d_ref(x, w, b, (2, 1), 1, (1, 2)), gradgrad=True,
        rtol=1e-5),
    OpSpec("nn.functional.conv2d_groups", lambda lib, x, w: lib.nn.functional.conv2d(
        x, w, groups=2), (S("groups", A(2, 4, 5, 5), A(6, 2, 2, 2)),), FLOAT,
        ref=lambda np_, x, w: _conv2d_ref(x, w, groups=2), rtol=1e-5),
    OpSpec("nn.functional.max_pool2d", lambda lib, x: lib.nn.functional.max_pool2d(x, 2),
           (S("2x3x6x5", A(2, 3, 6, 5)), S("transposed", Tr((2, 3, 5, 6), 2, 3))), FLOAT,
           ref=lambda np_, x: _pool_ref(x, 2, np.max), gradgrad=True),
    OpSpec("nn.functional.avg_pool2d", lambda lib, x: lib.nn.functional.avg_pool2d(x, 2),
           (S("2x3x6x5", A(2, 3, 6, 5)),), FLOAT,
           ref=lambda np_, x: _pool_ref(x, 2, np.mean), gradgrad=True, rtol=1e-5),
    OpSpec("nn.functional.adaptive_avg_pool2d",
           lambda lib, x: lib.nn.functional.adaptive_avg_pool2d(x, (3, 2)),
           (S("2x3x6x4", A(2, 3, 6, 4)),), FLOAT,
           ref=lambda np_, x: _pool_ref(x, 2, np.mean), rtol=1e-5),
]


def spec_by_name(name):
    for spec in OPS:
        if spec.name == name:
            return spec
    raise KeyError(name)


_names = [s.name for s in OPS]
assert len(_names) == len(set(_names)), "duplicate op spec names"


# ---- scans, sorts, statistics, shape ops -------------------------------------------------------

def _acc_dtype(a):
    """cumsum/cumprod accumulate integers (and bools) in int64, as torch."""
    return a.dtype if a.dtype.kind == "f" else np.int64


def _sort(a, dim=-1, descending=False, k=None):
    order = np.argsort(-a if descending else a, axis=dim, kind="stable")
    if k is not None:
        order = np.take(order, np.arange(k), axis=dim)
    return np.take_along_axis(a, order, axis=dim), order


def _logsumexp(a, dim, keepdim=False):
    a = _f(a)
    return np.log(np.sum(np.exp(a), axis=dim, keepdims=keepdim))


SCAN = (S("2x3", A(2, 3)), S("t", T(2, 3)), S("3d", A(2, 3, 2)), S("step", Step(2, 3)),
        S("empty", A(0, 3)))
SORTABLE = (S("2x3", A(2, 3)), S("t", T(3, 4)), S("3d", A(2, 4, 3)), S("step", Step(2, 5)))
STAT = (S("2x3", A(2, 3)), S("t", T(3, 4)), S("3d", A(2, 3, 4)), S("step", Step(3, 4)))
MATRIX = (S("3x4", A(3, 4)), S("t", T(4, 3)), S("batch", A(2, 3, 3)), S("step", Step(3, 4)))
SHAPE = (S("2x3", A(2, 3)), S("t", T(3, 4)), S("3d", A(2, 3, 2)), S("expand", E((1, 3), (2, 3))))
SIGNED = ("float32", "float64", "int64", "int32")

OPS += [
    OpSpec("cumsum", lambda lib, a: lib.cumsum(a, 1), SCAN, ALL,
           ref=lambda np_, a: np.cumsum(a, axis=1, dtype=_acc_dtype(a))),
    OpSpec("Tensor.cumsum_neg_dim", lambda lib, a: a.cumsum(dim=-1), SCAN[:3], NUM,
           ref=lambda np_, a: np.cumsum(a, axis=-1, dtype=_acc_dtype(a))),
    OpSpec("cumsum_dtype", lambda lib, a: lib.cumsum(a, 0, dtype=lib.float64), SCAN[:2], NUM,
           ref=lambda np_, a: np.cumsum(a.astype(np.float64), axis=0), gradcheck=False),
    OpSpec("cumsum_0d", lambda lib, a: lib.cumsum(a, 0), (S("0d", A()),), FLOAT,
           ref=lambda np_, a: a.copy()),
    OpSpec("cumprod", lambda lib, a: lib.cumprod(a, 1), SCAN, NUM, gradgrad=True,
           ref=lambda np_, a: np.cumprod(a, axis=1, dtype=_acc_dtype(a))),
    # zeros in the line: the gradient of the first zero skips it; after it, zero
    OpSpec("cumprod_zeros", lambda lib, a: lib.cumprod(a, -1),
           (S("zeros", Fixed([[1.5, 0.0, 2.0, 0.0, 3.0], [2.0, -1.0, 0.0, 0.5, 1.0]])),
            S("zero_first", Fixed([[0.0, 2.0, 3.0]]))), FLOAT, gradgrad=True,
           ref=lambda np_, a: np.cumprod(a, axis=-1)),
    OpSpec("sort", lambda lib, a: tuple(lib.sort(a)), SORTABLE, NUM, DISTINCT,
           ref=lambda np_, a: _sort(a)),
    OpSpec("Tensor.sort_desc_dim0", lambda lib, a: tuple(a.sort(0, descending=True)),
           SORTABLE, SIGNED, DISTINCT, ref=lambda np_, a: _sort(a, 0, True)),
    OpSpec("sort_stable_kw", lambda lib, a: tuple(lib.sort(a, dim=1, stable=True)),
           (S("ties", A(3, 5, domain=SMALL)),), FLOAT, differentiable=False,
           ref=lambda np_, a: _sort(a, 1)),
    OpSpec("argsort", lambda lib, a: lib.argsort(a, dim=1, descending=True), SORTABLE, SIGNED,
           DISTINCT, ref=lambda np_, a: _sort(a, 1, True)[1], differentiable=False),
    OpSpec("topk", lambda lib, a: tuple(lib.topk(a, 2)), SORTABLE, SIGNED, DISTINCT,
           ref=lambda np_, a: _sort(a, -1, True, 2)),
    OpSpec("Tensor.topk_smallest", lambda lib, a: tuple(a.topk(2, dim=0, largest=False)),
           SORTABLE, SIGNED, DISTINCT, ref=lambda np_, a: _sort(a, 0, False, 2)),
    OpSpec("var", lambda lib, a: lib.var(a), STAT, FLOAT, ref=lambda np_, a: np.var(a, ddof=1)),
    OpSpec("var_dim_keepdim", lambda lib, a: lib.var(a, 1, keepdim=True), STAT, FLOAT,
           ref=lambda np_, a: np.var(a, axis=1, ddof=1, keepdims=True)),
    OpSpec("Tensor.var_unbiased_false", lambda lib, a: a.var((0, -1), False), STAT, FLOAT,
           ref=lambda np_, a: np.var(a, axis=(0, -1))),
    OpSpec("var_correction", lambda lib, a: lib.var(a, -1, correction=2), STAT, FLOAT,
           ref=lambda np_, a: np.var(a, axis=-1, ddof=2), gradgrad=True),
    OpSpec("std", lambda lib, a: lib.std(a, dim=1), STAT, FLOAT,
           ref=lambda np_, a: np.std(a, axis=1, ddof=1), gradgrad=True),
    OpSpec("Tensor.std_all", lambda lib, a: a.std(), STAT, FLOAT,
           ref=lambda np_, a: np.std(a, ddof=1)),
    OpSpec("var_mean", lambda lib, a: lib.var_mean(a, 1), STAT, FLOAT,
           ref=lambda np_, a: (np.var(a, axis=1, ddof=1), np.mean(a, axis=1))),
    OpSpec("std_mean_correction0", lambda lib, a: lib.std_mean(a, (0, 1), correction=0), STAT,
           FLOAT, ref=lambda np_, a: (np.std(a, axis=(0, 1)), np.mean(a, axis=(0, 1)))),
    OpSpec("logsumexp", lambda lib, a: lib.logsumexp(a, 1), STAT, FLOAT + INT, gradgrad=True,
           ref=lambda np_, a: _logsumexp(a, 1).astype(a.dtype if a.dtype.kind == "f"
                                                      else np.float32)),
    OpSpec("Tensor.logsumexp_dims_keepdim", lambda lib, a: a.logsumexp((0, 1), keepdim=True),
           STAT, FLOAT, ref=lambda np_, a: _logsumexp(a, (0, 1), True)),
    OpSpec("tril", lambda lib, a: lib.tril(a), MATRIX, ALL, ref=lambda np_, a: np.tril(a),
           inplace="tril_"),
    OpSpec("Tensor.tril_offset", lambda lib, a: a.tril(-1), MATRIX, FLOAT,
           ref=lambda np_, a: np.tril(a, -1)),
    OpSpec("triu", lambda lib, a: lib.triu(a, diagonal=1), MATRIX, ALL,
           ref=lambda np_, a: np.triu(a, 1), inplace="triu_", inplace_kw=(("diagonal", 1),)),
    OpSpec("flip", lambda lib, a: lib.flip(a, (0, -1)), SHAPE, ALL,
           ref=lambda np_, a: np.flip(a, (0, -1)).copy()),
    OpSpec("Tensor.flip_varargs", lambda lib, a: a.flip(1), SHAPE, FLOAT,
           ref=lambda np_, a: np.flip(a, 1).copy()),
    OpSpec("roll", lambda lib, a: lib.roll(a, 1, 1), SHAPE, ALL,
           ref=lambda np_, a: np.roll(a, 1, 1)),
    OpSpec("roll_flat", lambda lib, a: lib.roll(a, -4), SHAPE, FLOAT,
           ref=lambda np_, a: np.roll(a, -4)),
    OpSpec("Tensor.roll_dims", lambda lib, a: a.roll((2, -1), (0, 1)), SHAPE, FLOAT,
           ref=lambda np_, a: np.roll(a, (2, -1), (0, 1))),
    OpSpec("Tensor.repeat", lambda lib, a: a.repeat(2, 1, 3), SHAPE, ALL,
           ref=lambda np_, a: np.tile(a, (2, 1, 3))),
    OpSpec("Tensor.repeat_tuple", lambda lib, a: a.repeat((1, 2)), SHAPE[:2], FLOAT,
           ref=lambda np_, a: np.tile(a, (1, 2))),
    OpSpec("tile", lambda lib, a: lib.tile(a, (2,)), SHAPE, FLOAT,
           ref=lambda np_, a: np.tile(a, (2,))),
]


# ---- nn layers: activations and normalization (nn.functional) --------------------------------

def _softplus_np(a):
    return np.where(a > 20, a, np.log1p(np.exp(np.minimum(a, 20))))


def _layer_norm_np(a, eps=1e-5):
    mean = a.mean(axis=-1, keepdims=True)
    var = a.var(axis=-1, keepdims=True)
    return (a - mean) / np.sqrt(var + eps)


def _nnf(name, *args, **kw):
    return lambda lib, a: getattr(lib.nn.functional, name)(a, *args, **kw)


OPS += [
    OpSpec("nn.functional.gelu", _nnf("gelu"), UNARY, FLOAT,
           ref=lambda np_, a: a * 0.5 * (1 + _erf(a / np.sqrt(2.0))), gradgrad=True,
           rtol=2e-6),
    OpSpec("nn.functional.gelu_tanh", _nnf("gelu", approximate="tanh"), UNARY, FLOAT,
           ref=lambda np_, a: 0.5 * a * (1 + np.tanh(np.sqrt(2 / np.pi) * (a + 0.044715 * a**3))),
           rtol=2e-6),
    OpSpec("nn.functional.silu", _nnf("silu"), UNARY, FLOAT,
           ref=lambda np_, a: a * _sigmoid(np_, a), gradgrad=True, rtol=2e-6),
    OpSpec("nn.functional.leaky_relu", _nnf("leaky_relu", 0.1), UNARY, FLOAT,
           ref=lambda np_, a: np.where(a > 0, a, 0.1 * a)),
    OpSpec("nn.functional.elu", _nnf("elu"), UNARY, FLOAT,
           ref=lambda np_, a: np.where(a > 0, a, np.expm1(a)), rtol=2e-6),
    OpSpec("nn.functional.softplus", _nnf("softplus"), UNARY, FLOAT,
           ref=lambda np_, a: _softplus_np(a), rtol=2e-6),
    OpSpec("nn.functional.hardtanh", _nnf("hardtanh"), UNARY, FLOAT,
           ref=lambda np_, a: np.clip(a, -1, 1)),
    OpSpec("nn.functional.mish", _nnf("mish"), UNARY, FLOAT,
           ref=lambda np_, a: a * np.tanh(_softplus_np(a)), rtol=2e-6),
    OpSpec("nn.functional.hardswish", _nnf("hardswish"), UNARY, FLOAT,
           ref=lambda np_, a: a * np.clip(a + 3, 0, 6) / 6, rtol=2e-6),
    OpSpec("nn.functional.logsigmoid", _nnf("logsigmoid"), UNARY, FLOAT,
           ref=lambda np_, a: -_softplus_np(-a), rtol=2e-6),
    OpSpec("nn.functional.layer_norm", lambda lib, a: lib.nn.functional.layer_norm(a, (3,)),
           (S("2x3", A(2, 3)), S("t", T(2, 3))), FLOAT,
           ref=lambda np_, a: _layer_norm_np(a), gradgrad=True, rtol=1e-5, atol=1e-5),
]


# ---- nn layers: batch/group norm, embedding, dropout and the losses --------------------------

UNIT = Domain("unit", 0.05, 0.95, 0, 2)      # probabilities (binary cross entropy)


def _channels(v, ndim):
    """A per-channel vector shaped to broadcast over (N, C, *)."""
    return v.reshape((1, -1) + (1,) * (ndim - 2))


def _batch_norm_np(a, w=None, b=None, eps=1e-5):
    axes = (0,) + tuple(range(2, a.ndim))
    out = (a - a.mean(axis=axes, keepdims=True)) / np.sqrt(a.var(axis=axes, keepdims=True) + eps)
    if w is not None:
        out = out * _channels(w, a.ndim) + _channels(b, a.ndim)
    return out


def _group_norm_np(a, groups, w=None, b=None, eps=1e-5):
    g = a.reshape(a.shape[0], groups, -1)
    out = ((g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + eps))
    out = out.reshape(a.shape)
    if w is not None:
        out = out * _channels(w, a.ndim) + _channels(b, a.ndim)
    return out


def _reduce(loss, reduction):
    return {"mean": np.mean, "sum": np.sum, "none": lambda x: x}[reduction](loss)


def _smooth_l1_np(a, t, beta):
    d = np.abs(a - t)
    return np.mean(np.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta))


def _huber_np(a, t, delta):
    d = np.abs(a - t)
    return np.mean(np.where(d <= delta, 0.5 * d * d, delta * (d - 0.5 * delta)))


def _bce_np(p, t, w=None):
    loss = -(t * np.log(p) + (1 - t) * np.log1p(-p))
    return np.mean(loss if w is None else loss * w)


def _bce_logits_np(a, t, pos_weight=None):
    pw = 1.0 if pos_weight is None else pos_weight
    log_sig, log_one_minus = -_softplus_np(-a), -_softplus_np(a)
    return np.mean(-(pw * t * log_sig + (1 - t) * log_one_minus))


def _nll_np(logp, target, weight=None, ignore_index=-100, reduction="mean"):
    rows = np.arange(logp.shape[0])
    keep = target != ignore_index
    safe = np.where(keep, target, 0)
    w = np.ones(logp.shape[1], logp.dtype) if weight is None else weight
    wi = w[safe] * keep
    loss = -logp[rows, safe] * wi
    if reduction == "mean":
        return loss.sum() / wi.sum()
    return _reduce(loss, reduction)


def _cross_entropy_np(a, target, smoothing=0.0):
    logp = _log_softmax(a, 1)
    nll = -logp[np.arange(a.shape[0]), target]
    smooth = -logp.mean(axis=1)
    return np.mean((1 - smoothing) * nll + smoothing * smooth)


def _kl_div_np(a, t, reduction, log_target=False):
    loss = np.exp(t) * (t - a) if log_target else np.where(t > 0, t * (np.log(t) - a), 0.0)
    return loss.sum() / a.shape[0] if reduction == "batchmean" else _reduce(loss, reduction)


def _F(lib):
    return lib.nn.functional


LOSS_PAIR = (S("3x4", A(3, 4), A(3, 4)), S("t", T(3, 4), A(3, 4)),
             S("bcast_0d", A(), A()))
NORM_CH = (S("4x3", A(4, 3)), S("2x3x5", A(2, 3, 5)), S("t", T(4, 3)))

OPS += [
    OpSpec("nn.functional.batch_norm",
           lambda lib, a: _F(lib).batch_norm(a, None, None, training=True), NORM_CH, FLOAT,
           ref=lambda np_, a: _batch_norm_np(a), rtol=1e-5, atol=1e-5, gradgrad=True),
    OpSpec("nn.functional.batch_norm_affine",
           lambda lib, a, w, b: _F(lib).batch_norm(a, None, None, w, b, training=True),
           (S("2x3x4", A(2, 3, 4), A(3), A(3)),), FLOAT,
           ref=lambda np_, a, w, b: _batch_norm_np(a, w, b), rtol=1e-5, atol=1e-5),
    OpSpec("nn.functional.group_norm", lambda lib, a: _F(lib).group_norm(a, 2),
           (S("2x4x3", A(2, 4, 3)), S("3x4", A(3, 4))), FLOAT,
           ref=lambda np_, a: _group_norm_np(a, 2), rtol=1e-5, atol=1e-5),
    OpSpec("nn.functional.group_norm_affine",
           lambda lib, a, w, b: _F(lib).group_norm(a, 2, w, b),
           (S("2x4x3", A(2, 4, 3), A(4), A(4)),), FLOAT,
           ref=lambda np_, a, w, b: _group_norm_np(a, 2, w, b), rtol=1e-5, atol=1e-5),
    OpSpec("nn.functional.embedding", lambda lib, w, i: _F(lib).embedding(i, w),
           (S("5x3", A(5, 3), Idx([[0, 2], [4, 2]])), S("t", T(5, 3), Idx([1, 1, 3]))), FLOAT,
           ref=lambda np_, w, i: w[i]),
    OpSpec("nn.functional.embedding_padding_idx",
           lambda lib, w, i: _F(lib).embedding(i, w, padding_idx=0),
           (S("5x3", A(5, 3), Idx([0, 2, 0, 4])),), FLOAT, ref=lambda np_, w, i: w[i],
           gradcheck=False),  # the padding row's gradient is zero by definition
    OpSpec("nn.functional.dropout_eval", lambda lib, a: _F(lib).dropout(a, 0.5, training=False),
           UNARY_SMALL, FLOAT, ref=lambda np_, a: a),
    OpSpec("nn.functional.mse_loss", lambda lib, a, t: _F(lib).mse_loss(a, t), LOSS_PAIR, FLOAT,
           ref=lambda np_, a, t: np.mean((a - t) ** 2), gradgrad=True),
    OpSpec("nn.functional.mse_loss_sum",
           lambda lib, a, t: _F(lib).mse_loss(a, t, reduction="sum"), LOSS_PAIR[:1], FLOAT,
           ref=lambda np_, a, t: np.sum((a - t) ** 2)),
    OpSpec("nn.functional.l1_loss_none",
           lambda lib, a, t: _F(lib).l1_loss(a, t, reduction="none"), LOSS_PAIR, FLOAT,
           ref=lambda np_, a, t: np.abs(a - t)),
    OpSpec("nn.functional.smooth_l1_loss",
           lambda lib, a, t: _F(lib).smooth_l1_loss(a, t, beta=0.5), LOSS_PAIR, FLOAT,
           ref=lambda np_, a, t: _smooth_l1_np(a, t, 0.5)),
    OpSpec("nn.functional.huber_loss",
           lambda lib, a, t: _F(lib).huber_loss(a, t, delta=0.5), LOSS_PAIR, FLOAT,
           ref=lambda np_, a, t: _huber_np(a, t, 0.5)),
    OpSpec("nn.functional.binary_cross_entropy",
           lambda lib, p, t: _F(lib).binary_cross_entropy(p, t),
           (S("3x4", A(3, 4, domain=UNIT), A(3, 4, domain=UNIT)),), FLOAT,
           ref=lambda np_, p, t: _bce_np(p, t), rtol=1e-5),
    OpSpec("nn.functional.binary_cross_entropy_weight",
           lambda lib, p, t, w: _F(lib).binary_cross_entropy(p, t, w),
           (S("3x4", A(3, 4, domain=UNIT), A(3, 4, domain=UNIT), A(4, requires_grad=False)),),
           FLOAT, ref=lambda np_, p, t, w: _bce_np(p, t, w), rtol=1e-5),
    OpSpec("nn.functional.binary_cross_entropy_with_logits",
           lambda lib, a, t: _F(lib).binary_cross_entropy_with_logits(a, t),
           (S("3x4", A(3, 4), A(3, 4, domain=UNIT)), S("t", T(3, 4), A(3, 4, domain=UNIT))),
           FLOAT, ref=lambda np_, a, t: _bce_logits_np(a, t), rtol=1e-5),
    OpSpec("nn.functional.binary_cross_entropy_with_logits_pos_weight",
           lambda lib, a, t, pw: _F(lib).binary_cross_entropy_with_logits(a, t, pos_weight=pw),
           (S("3x4", A(3, 4), A(3, 4, domain=UNIT),
                      A(4, domain=POS, requires_grad=False)),), FLOAT,
           ref=lambda np_, a, t, pw: _bce_logits_np(a, t, pw), rtol=1e-5),
    OpSpec("nn.functional.nll_loss", lambda lib, a, i: _F(lib).nll_loss(a, i),
           (S("3x4", A(3, 4), Idx([1, 0, 3])), S("t", T(3, 4), Idx([2, 2, 0]))), FLOAT,
           ref=lambda np_, a, i: _nll_np(a, i)),
    OpSpec("nn.functional.nll_loss_weight_ignore",
           lambda lib, a, w, i: _F(lib).nll_loss(a, i, w, ignore_index=1),
           (S("4x3", A(4, 3), A(3, domain=POS, requires_grad=False), Idx([1, 0, 2, 2])),),
           FLOAT,
           ref=lambda np_, a, w, i: _nll_np(a, i, w, 1)),
    OpSpec("nn.functional.nll_loss_none",
           lambda lib, a, i: _F(lib).nll_loss(a, i, reduction="none"),
           (S("3x4", A(3, 4), Idx([1, 0, 3])),), FLOAT,
           ref=lambda np_, a, i: _nll_np(a, i, reduction="none")),
    OpSpec("nn.functional.cross_entropy", lambda lib, a, i: _F(lib).cross_entropy(a, i),
           (S("3x4", A(3, 4), Idx([1, 0, 3])), S("t", T(3, 4), Idx([3, 3, 0]))), FLOAT,
           ref=lambda np_, a, i: _cross_entropy_np(a, i), gradgrad=True),
    OpSpec("nn.functional.cross_entropy_label_smoothing",
           lambda lib, a, i: _F(lib).cross_entropy(a, i, label_smoothing=0.1),
           (S("3x4", A(3, 4), Idx([1, 0, 3])),), FLOAT,
           ref=lambda np_, a, i: _cross_entropy_np(a, i, 0.1)),
    OpSpec("nn.functional.cross_entropy_probs",
           lambda lib, a, p: _F(lib).cross_entropy(a, p),
           (S("3x4", A(3, 4), A(3, 4, domain=UNIT)),), FLOAT,
           ref=lambda np_, a, p: np.mean(-(p * _log_softmax(a, 1)).sum(axis=1))),
    OpSpec("nn.functional.kl_div_batchmean",
           lambda lib, a, t: _F(lib).kl_div(a, t, reduction="batchmean"),
           (S("3x4", A(3, 4), A(3, 4, domain=UNIT)),), FLOAT,
           ref=lambda np_, a, t: _kl_div_np(a, t, "batchmean")),
    OpSpec("nn.functional.kl_div_log_target",
           lambda lib, a, t: _F(lib).kl_div(a, t, reduction="sum", log_target=True),
           (S("3x4", A(3, 4), A(3, 4)),), FLOAT,
           ref=lambda np_, a, t: _kl_div_np(a, t, "sum", True)),
]


# ---- tensor ops composed in Python or bound through _C._ops ------------------------------

def _kth(a, k, dim=-1, keepdim=False):
    order = np.argsort(a, axis=dim, kind="stable")
    idx = np.take(order, [k - 1], axis=dim)
    values = np.take_along_axis(a, idx, axis=dim)
    if not keepdim:
        values, idx = np.squeeze(values, dim), np.squeeze(idx, dim)
    return values, idx


def _diag_embed_np(a):
    out = np.zeros(a.shape + (a.shape[-1],), a.dtype)
    idx = np.arange(a.shape[-1])
    out[..., idx, idx] = a
    return out


def _cross_np(a, b):
    return np.cross(a, b, axis=-1)


ODD_ROWS = (S("3x5", A(3, 5)), S("t", T(3, 5)), S("step", Step(2, 5)))

OPS += [
    OpSpec("kthvalue", lambda lib, a: tuple(lib.kthvalue(a, 2)), ODD_ROWS, SIGNED, DISTINCT,
           ref=lambda np_, a: _kth(a, 2)),
    OpSpec("Tensor.kthvalue_dim0_keepdim", lambda lib, a: tuple(a.kthvalue(1, 0, True)),
           ODD_ROWS[:2], FLOAT, DISTINCT, ref=lambda np_, a: _kth(a, 1, 0, True)),
    OpSpec("median_all", lambda lib, a: lib.median(a), ODD_ROWS, SIGNED, DISTINCT,
           ref=lambda np_, a: np.sort(a, axis=None)[(a.size - 1) // 2]),
    OpSpec("median_dim", lambda lib, a: tuple(lib.median(a, 1)), ODD_ROWS, FLOAT, DISTINCT,
           ref=lambda np_, a: _kth(a, (a.shape[1] + 1) // 2, 1)),
    OpSpec("diagonal", lambda lib, a: lib.diagonal(a), MATRIX, ALL,
           ref=lambda np_, a: np.diagonal(a, 0, 0, 1)),
    OpSpec("Tensor.diagonal_offset_dims", lambda lib, a: a.diagonal(1, -2, -1), MATRIX, FLOAT,
           ref=lambda np_, a: np.diagonal(a, 1, -2, -1)),
    OpSpec("diag_embed", lambda lib, a: lib.diag_embed(a), SHAPE, FLOAT,
           ref=lambda np_, a: _diag_embed_np(a)),
    OpSpec("diag_vector", lambda lib, a: lib.diag(a, 1), (S("4", A(4)), S("step", Step(3))),
           NUM, ref=lambda np_, a: np.diag(a, 1)),
    OpSpec("diag_matrix", lambda lib, a: lib.diag(a), MATRIX[:2], NUM,
           ref=lambda np_, a: np.diag(a)),
    OpSpec("trace", lambda lib, a: lib.trace(a), MATRIX[:2], FLOAT,
           ref=lambda np_, a: np.trace(a)),
    OpSpec("nan_to_num", lambda lib, a: lib.nan_to_num(a, nan=0.5, posinf=2.0),
           (S("specials", Fixed([[np.nan, 1.0, np.inf], [-np.inf, -2.0, 0.25]])),), FLOAT,
           ref=lambda np_, a: np.nan_to_num(a, nan=0.5, posinf=2.0,
                                            neginf=np.finfo(a.dtype).min)),
    OpSpec("lerp_scalar", lambda lib, a, b: lib.lerp(a, b, 0.3), LOSS_PAIR, FLOAT,
           ref=lambda np_, a, b: a + 0.3 * (b - a), rtol=2e-6),
    OpSpec("lerp_tensor", lambda lib, a, b, w: lib.lerp(a, b, w),
           (S("3x4", A(3, 4), A(3, 4), A(4)),), FLOAT,
           ref=lambda np_, a, b, w: a + w * (b - a), rtol=2e-6),
    OpSpec("baddbmm", lambda lib, c, a, b: lib.baddbmm(c, a, b, beta=0.5, alpha=2),
           (S("2x3x4", A(2, 3, 2), A(2, 3, 4), A(2, 4, 2)),
            S("bcast", A(3, 2), A(2, 3, 4), Tr((2, 4, 2), 1, 2))), FLOAT,
           ref=lambda np_, c, a, b: 0.5 * c + 2 * (a @ b), rtol=1e-5),
    OpSpec("addmv", lambda lib, c, m, v: lib.addmv(c, m, v),
           (S("3x4", A(3), A(3, 4), A(4)), S("t", A(3), T(3, 4), A(4))), FLOAT,
           ref=lambda np_, c, m, v: c + m @ v, rtol=1e-5),
    OpSpec("cross", lambda lib, a, b: lib.cross(a, b, dim=-1),
           (S("2x3", A(2, 3), A(2, 3)), S("t", T(4, 3), A(4, 3))), FLOAT,
           ref=lambda np_, a, b: _cross_np(a, b), rtol=1e-5),
    OpSpec("norm_fro", lambda lib, a: lib.norm(a), MATRIX, FLOAT,
           ref=lambda np_, a: np.sqrt(np.sum(a * a)), rtol=1e-5),
    OpSpec("norm_p1_dim", lambda lib, a: lib.norm(a, 1, dim=1), MATRIX, FLOAT, AWAY0,
           ref=lambda np_, a: np.sum(np.abs(a), axis=1), rtol=1e-5),
    OpSpec("isclose", lambda lib, a, b: lib.isclose(a, b, rtol=0.1, atol=0.5), LOSS_PAIR, FLOAT,
           ref=lambda np_, a, b: np.isclose(a, b, rtol=0.1, atol=0.5), differentiable=False),
    OpSpec("one_hot", lambda lib, i: lib.nn.functional.one_hot(i, 5),
           (S("idx", Idx([[0, 4], [2, 2]])),), ("int64",),
           ref=lambda np_, i: np.eye(5, dtype=np.int64)[i], differentiable=False),
    OpSpec("repeat_interleave", lambda lib, a: lib.repeat_interleave(a, 2, dim=0), SHAPE,
           FLOAT, ref=lambda np_, a: np.repeat(a, 2, axis=0)),
    OpSpec("Tensor.repeat_interleave_flat", lambda lib, a: a.repeat_interleave(3),
           SHAPE[:2], NUM, ref=lambda np_, a: np.repeat(a, 3)),
    OpSpec("einsum_matmul", lambda lib, a, b: lib.einsum("ij,jk->ik", a, b),
           (S("3x4", A(3, 4), A(4, 2)), S("t", T(3, 4), A(4, 2))), FLOAT,
           ref=lambda np_, a, b: np.einsum("ij,jk->ik", a, b), rtol=1e-5),
    OpSpec("einsum_bmm", lambda lib, a, b: lib.einsum("bij,bjk->bik", a, b),
           (S("2x3x4", A(2, 3, 4), A(2, 4, 2)),), FLOAT,
           ref=lambda np_, a, b: np.einsum("bij,bjk->bik", a, b), rtol=1e-5),
    # (a diagonal with an outer product, "bii,bj->bj", computes the same values and
    # gradients but ends in MulBackward0 where torch's graph ends in ViewBackward0)
    OpSpec("einsum_implicit", lambda lib, a, b: lib.einsum("ij,kj", a, b),
           (S("2x3", A(2, 3), A(4, 3)),), FLOAT,
           ref=lambda np_, a, b: np.einsum("ij,kj", a, b), rtol=1e-5),
    OpSpec("tensordot", lambda lib, a, b: lib.tensordot(a, b, dims=([1, 2], [0, 1])),
           (S("2x3x4", A(2, 3, 4), A(3, 4, 2)),), FLOAT,
           ref=lambda np_, a, b: np.tensordot(a, b, axes=([1, 2], [0, 1])), rtol=1e-5),
    OpSpec("tensordot_int_dims", lambda lib, a, b: lib.tensordot(a, b, 1),
           (S("2x3", A(2, 3), A(3, 4)), S("t", T(2, 3), A(3, 4))), FLOAT,
           ref=lambda np_, a, b: np.tensordot(a, b, 1), rtol=1e-5),
]


# ---- shape and combination ops composed like torch's (_shape_ops.py) -----------------------

def _np_meshgrid_ij(a, b):
    return tuple(np.meshgrid(a, b, indexing="ij"))


OPS += [
    OpSpec("broadcast_to", lambda lib, a: lib.broadcast_to(a, (2, 3, 4)),
           (S("3x4", A(3, 4)), S("t", T(3, 4)), S("1x4", A(1, 4))), ALL,
           ref=lambda np_, a: np.broadcast_to(a, (2, 3, 4))),
    OpSpec("broadcast_tensors", lambda lib, a, b: lib.broadcast_tensors(a, b),
           (S("3x1_4", A(3, 1), A(4)),), FLOAT,
           ref=lambda np_, a, b: tuple(np.broadcast_arrays(a, b))),
    OpSpec("movedim", lambda lib, a: lib.movedim(a, (0, 1), (2, 0)), (S("2x3x4", A(2, 3, 4)),),
           ALL, ref=lambda np_, a: np.moveaxis(a, (0, 1), (2, 0))),
    OpSpec("Tensor.moveaxis", lambda lib, a: a.moveaxis(-1, 0), SHAPE, FLOAT,
           ref=lambda np_, a: np.moveaxis(a, -1, 0)),
    OpSpec("atleast_3d", lambda lib, a: lib.atleast_3d(a), UNARY_SMALL + (S("1d", A(4)),), FLOAT,
           ref=lambda np_, a: np.atleast_3d(a) if a.ndim != 2 else a[..., None]),
    OpSpec("hstack", lambda lib, a, b: lib.hstack([a, b]), LOSS_PAIR[:2], ALL,
           ref=lambda np_, a, b: np.hstack([a, b])),
    OpSpec("vstack_1d", lambda lib, a, b: lib.vstack((a, b)), (S("4", A(4), A(4)),), FLOAT,
           ref=lambda np_, a, b: np.vstack([a, b])),
    OpSpec("dstack", lambda lib, a, b: lib.dstack([a, b]), LOSS_PAIR[:2], FLOAT,
           ref=lambda np_, a, b: np.dstack([a, b])),
    OpSpec("column_stack", lambda lib, a, b: lib.column_stack([a, b]),
           (S("3_3x2", A(3), A(3, 2)),), FLOAT, ref=lambda np_, a, b: np.column_stack([a, b])),
    OpSpec("meshgrid_ij", lambda lib, a, b: lib.meshgrid(a, b, indexing="ij"),
           (S("3_4", A(3), A(4)),), ALL, ref=lambda np_, a, b: _np_meshgrid_ij(a, b)),
    OpSpec("meshgrid_xy", lambda lib, a, b: lib.meshgrid(a, b, indexing="xy"),
           (S("3_4", A(3), A(4)),), FLOAT,
           ref=lambda np_, a, b: tuple(np.meshgrid(a, b, indexing="xy"))),
    OpSpec("cartesian_prod", lambda lib, a, b: lib.cartesian_prod(a, b),
           (S("3_2", A(3), A(2)),), FLOAT,
           ref=lambda np_, a, b: np.stack([g.ravel() for g in _np_meshgrid_ij(a, b)], 1)),
    OpSpec("fliplr", lambda lib, a: lib.fliplr(a), MATRIX, ALL, ref=lambda np_, a: np.fliplr(a)),
    OpSpec("Tensor.flipud", lambda lib, a: a.flipud(), SHAPE, FLOAT,
           ref=lambda np_, a: np.flipud(a)),
    OpSpec("ravel", lambda lib, a: lib.ravel(a), SHAPE, ALL, ref=lambda np_, a: np.ravel(a)),
    OpSpec("Tensor.unflatten", lambda lib, a: a.unflatten(1, (2, -1)),
           (S("3x4", A(3, 4)), S("t", T(3, 4))), FLOAT,
           ref=lambda np_, a: a.reshape(3, 2, 2)),
    OpSpec("tensor_split_sections", lambda lib, a: lib.tensor_split(a, 3, dim=1),
           (S("2x5", A(2, 5)), S("t", T(2, 5))), ALL,
           ref=lambda np_, a: tuple(np.array_split(a, 3, axis=1))),
    OpSpec("Tensor.tensor_split_indices", lambda lib, a: a.tensor_split([1, 3], 1),
           (S("2x5", A(2, 5)),), FLOAT, ref=lambda np_, a: tuple(np.split(a, [1, 3], axis=1))),
    OpSpec("hsplit", lambda lib, a: lib.hsplit(a, 2), (S("3x4", A(3, 4)),), FLOAT,
           ref=lambda np_, a: tuple(np.hsplit(a, 2))),
    OpSpec("take_along_dim", lambda lib, a, i: lib.take_along_dim(a, i, 1),
           (S("3x4", A(3, 4), Idx([[0], [3], [1]])), S("bcast", A(3, 4), Idx([[2, 0]]))), ALL,
           ref=lambda np_, a, i: np.take_along_axis(a, np.broadcast_to(i, (3, i.shape[1])), 1)),
    OpSpec("take_along_dim_flat", lambda lib, a, i: lib.take_along_dim(a, i),
           (S("3x4", A(3, 4), Idx([0, 5, 11])),), FLOAT,
           ref=lambda np_, a, i: a.ravel()[i]),
    OpSpec("diff", lambda lib, a: lib.diff(a), SHAPE, SIGNED, ref=lambda np_, a: np.diff(a)),
    OpSpec("Tensor.diff_n2_dim0_prepend",
           lambda lib, a, p: a.diff(2, 0, prepend=p), (S("3x4", A(3, 4), A(1, 4)),), FLOAT,
           ref=lambda np_, a, p: np.diff(a, 2, 0, prepend=p)),
    OpSpec("inner", lambda lib, a, b: lib.inner(a, b), (S("3x4_2x4", A(3, 4), A(2, 4)),
                                                        S("vec", A(4), A(4))), FLOAT,
           ref=lambda np_, a, b: np.inner(a, b), rtol=1e-5),
    OpSpec("float_power", lambda lib, a: lib.float_power(a, 2), UNARY_SMALL, ("float32", "int64"),
           ref=lambda np_, a: np.power(a.astype(np.float64), 2)),
    OpSpec("cosine_similarity", lambda lib, a, b: lib.cosine_similarity(a, b),
           (S("3x4", A(3, 4), A(3, 4)), S("bcast", A(3, 4), A(4))), FLOAT,
           ref=lambda np_, a, b: (a * b).sum(1) / (np.linalg.norm(a, axis=1)
                                                  * np.linalg.norm(np.broadcast_to(b, a.shape),
                                                                   axis=1)), rtol=1e-5),
    OpSpec("Tensor.where", lambda lib, a, m: a.where(m, 0.5),
           (S("3x4", A(3, 4), Mask([[True, False, True, True]] * 3)),), FLOAT,
           ref=lambda np_, a, m: np.where(m, a, 0.5).astype(a.dtype)),
]


# ---- more unary math and the float predicates ----------------------------------------------

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

OPS += _unary("erfc", _vec(math.erfc), ALL)
OPS += _unary("erfinv", _vec(_erfinv_scalar), FLOAT + INT, OPEN_UNIT, rtol=4e-6)
OPS += _unary("asinh", lambda a: np.arcsinh(_f(a)).astype(_fdt(a)), ALL)
OPS += _unary("acosh", lambda a: np.arccosh(_f(a)).astype(_fdt(a)), FLOAT + INT, ABOVE_ONE)
OPS += _unary("atanh", lambda a: np.arctanh(_f(a)).astype(_fdt(a)), FLOAT + INT, OPEN_UNIT)
OPS += _unary("sinc", _vec(_sinc_scalar), ALL, rtol=4e-6)
OPS += _unary("deg2rad", lambda a: (_f(a) * (np.pi / 180)).astype(_fdt(a)), NUM)
OPS += _unary("rad2deg", lambda a: (_f(a) * (180 / np.pi)).astype(_fdt(a)), NUM)
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


# ---- amin, masked_select, nonzero, count_nonzero ----------------------------------------------

OPS += [
    OpSpec("amin", lambda lib, a: lib.amin(a), RED_DIM, ALL, DISTINCT,
           ref=lambda np_, a: np.min(a)),
    OpSpec("Tensor.amin_dims_keepdim", lambda lib, a: a.amin((0, -1), keepdim=True), RED_DIM,
           NUM, DISTINCT, ref=lambda np_, a: np.min(a, (0, -1), keepdims=True)),
    OpSpec("amin_ties", lambda lib, a: lib.amin(a, 1),
           (S("ties", Fixed([[1.0, -3.0, -3.0], [2.0, 2.0, 2.0]])),), FLOAT,
           ref=lambda np_, a: np.min(a, 1), gradcheck=False),  # a kink at ties: torch's split
    OpSpec("masked_select", lambda lib, a, m: lib.masked_select(a, m),
           (S("3x4", A(3, 4), Mask([[True, False, True, True]] * 3)),
            S("bcast_mask", T(3, 4), Mask([[True], [False], [True]])),
            S("bcast_input", A(4), Mask([[True, False, False, True], [False] * 4]))), ALL,
           ref=lambda np_, a, m: np.broadcast_to(a, np.broadcast_shapes(a.shape, m.shape))[
               np.broadcast_to(m, np.broadcast_shapes(a.shape, m.shape))]),
    OpSpec("nonzero", lambda lib, a: lib.nonzero(a), (S("specials", Fixed([[0.0, 1.5], [-0.0, 2.0]])),
                                                      S("2x3", A(2, 3, domain=SMALL))),
           ALL, ref=lambda np_, a: np.argwhere(a), differentiable=False),
    OpSpec("Tensor.nonzero_as_tuple", lambda lib, a: a.nonzero(as_tuple=True),
           (S("2x3", A(2, 3, domain=SMALL)),), NUM, ref=lambda np_, a: np.nonzero(a),
           differentiable=False),
    OpSpec("count_nonzero_dim", lambda lib, a: lib.count_nonzero(a, dim=0),
           (S("2x3", A(2, 3, domain=SMALL)), S("t", T(2, 3, domain=SMALL))), ALL,
           ref=lambda np_, a: np.count_nonzero(a, axis=0), differentiable=False),
]


# ---- padding, interpolation, cdist, searchsorted -------------------------------------------

def _np_pad(a, pad, mode, value=0.0):
    widths = [(0, 0)] * a.ndim
    for i in range(len(pad) // 2):
        widths[a.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    kind = {"constant": "constant", "reflect": "reflect", "replicate": "edge",
            "circular": "wrap"}[mode]
    extra = {"constant_values": value} if kind == "constant" else {}
    return np.pad(a, widths, mode=kind, **extra)


def _pad_spec(mode, pad, samples):
    return OpSpec(f"nn.functional.pad_{mode}",
                  lambda lib, a: lib.nn.functional.pad(a, pad, mode=mode), samples, FLOAT,
                  ref=lambda np_, a: _np_pad(a, pad, mode))


def _np_linear_corners(a, n):
    """1-D linear interpolation with align_corners=True along the last dim."""
    x = np.linspace(0, a.shape[-1] - 1, n)
    return np.apply_along_axis(lambda r: np.interp(x, np.arange(a.shape[-1]), r), -1, a)


def _np_cdist(a, b, p):
    d = np.abs(a[..., :, None, :] - b[..., None, :, :])
    return d.max(-1) if p == np.inf else (d ** p).sum(-1) ** (1 / p)


PAD_SAMPLES = (S("3d", A(2, 3, 5)), S("2d", A(3, 5)), S("t", T(3, 5)))
PAD2_SAMPLES = (S("4d", A(1, 2, 4, 5)), S("3d", A(2, 4, 5)))
OPS += [
    _pad_spec("constant", (1, 2), PAD_SAMPLES),
    _pad_spec("reflect", (2, 1), PAD_SAMPLES),
    _pad_spec("replicate", (3, 1), PAD_SAMPLES),
    _pad_spec("circular", (2, 1), PAD_SAMPLES),
    _pad_spec("reflect", (1, 2, 3, 0), PAD2_SAMPLES),
    _pad_spec("replicate", (1, 2, 3, 0), PAD2_SAMPLES),
    OpSpec("nn.functional.pad_negative", lambda lib, a: lib.nn.functional.pad(a, (-1, 2), value=3.),
           PAD_SAMPLES, FLOAT, ref=lambda np_, a: np.pad(a[..., 1:], [(0, 0)] * (a.ndim - 1)
                                                          + [(0, 2)], constant_values=3.)),
    OpSpec("nn.functional.interpolate_nearest",
           lambda lib, a: lib.nn.functional.interpolate(a, scale_factor=2),
           (S("3d", A(2, 3, 4)), S("4d", A(1, 2, 3, 4))), FLOAT,
           ref=lambda np_, a: np.repeat(a, 2, -1) if a.ndim == 3
           else np.repeat(np.repeat(a, 2, -1), 2, -2)),
    OpSpec("nn.functional.interpolate_linear_corners",
           lambda lib, a: lib.nn.functional.interpolate(a, size=7, mode="linear",
                                                        align_corners=True),
           (S("3d", A(2, 3, 4)),), FLOAT, ref=lambda np_, a: _np_linear_corners(a, 7)),
    OpSpec("cdist_p2", lambda lib, a, b: lib.cdist(a, b), (S("2d", A(3, 4), A(5, 4)),
                                                          S("batch", A(2, 3, 4), A(5, 4))),
           FLOAT, ref=lambda np_, a, b: _np_cdist(a, b, 2), rtol=1e-5),
    OpSpec("cdist_p1", lambda lib, a, b: lib.cdist(a, b, p=1), (S("2d", A(3, 4), A(5, 4)),),
           FLOAT, ref=lambda np_, a, b: _np_cdist(a, b, 1), rtol=1e-5),
    OpSpec("cdist_pinf", lambda lib, a, b: lib.cdist(a, b, p=float("inf")),
           (S("2d", A(3, 4), A(5, 4)),), FLOAT, ref=lambda np_, a, b: _np_cdist(a, b, np.inf)),
    OpSpec("cdist_p3", lambda lib, a, b: lib.cdist(a, b, p=3), (S("2d", A(3, 4), A(5, 4)),),
           FLOAT, ref=lambda np_, a, b: _np_cdist(a, b, 3), rtol=1e-5),
    OpSpec("searchsorted",
           lambda lib, a: lib.searchsorted(lib.tensor([-1.0, 0.0, 0.5, 1.0]), a),
           (S("2x3", A(2, 3)), S("t", T(2, 3))), FLOAT,
           ref=lambda np_, a: np.searchsorted([-1.0, 0.0, 0.5, 1.0], a), differentiable=False),
    OpSpec("bucketize_right",
           lambda lib, a: lib.bucketize(a, lib.tensor([-1.0, 0.0, 0.5, 1.0]), right=True),
           (S("2x3", A(2, 3)),), FLOAT,
           ref=lambda np_, a: np.searchsorted([-1.0, 0.0, 0.5, 1.0], a, side="right"),
           differentiable=False),
]
