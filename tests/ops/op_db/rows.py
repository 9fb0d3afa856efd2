"""How a row of the op table is written: dtype groups, value domains, inputs, the spec.

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
SIGNED = ("float32", "float64", "int64", "int32")


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
