"""Elementwise math: the op list, and the elementwise functions written in Python.

Every row of the op list (``_declarations/pointwise.py``) is bound in C++ as
``gradtrack.NAME`` and ``Tensor.NAME`` and taken as it is, with ``clamp`` and
``rsub``. Here are the ones torch composes or parses in Python: ``nan_to_num``,
``lerp``, ``isclose``/``allclose``, ``float_power``, ``logit`` and ``mvlgamma`` (their
``eps`` and ``p`` checked here), ``positive``, ``fix``, and the
aliases (``true_divide``, ``clip``, ``Tensor.absolute``, ``Tensor.multiply``, ...).

>>> import gradtrack
>>> gradtrack.lerp(gradtrack.tensor([0.]), gradtrack.tensor([10.]), 0.25)
tensor([2.5000])
"""

import builtins
import math
import numbers

from .. import _C
from .._declarations import pointwise_ops
from . import methods, number

_E = _C._ops
_Tensor = _C.Tensor

# (round takes torch's decimals= in Python: _ops/round_decimals.py)
BOUND = tuple(op.name for op in pointwise_ops() if not op.special and op.name != "round") + (
    "clamp", "clamp_min", "clamp_max", "rsub", "polygamma")


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):  # noqa: A002
    """NaN, +inf and -inf replaced by ``nan``, ``posinf`` and ``neginf``
    (by default 0 and the dtype's largest and lowest finite values).

    >>> import gradtrack
    >>> gradtrack.nan_to_num(gradtrack.tensor([float('nan'), 1.]))
    tensor([0., 1.])
    """
    return _E.nan_to_num(input, nan, posinf, neginf)


def lerp(input, end, weight):  # noqa: A002
    """``input + weight * (end - input)``; ``weight`` a number or a tensor.

    >>> import gradtrack
    >>> gradtrack.lerp(gradtrack.tensor([0.]), gradtrack.tensor([10.]), 0.25)
    tensor([2.5000])
    """
    # a 0-dim weight may have another dtype (the C++ op reads it in input's); with three
    # 0-dim tensors torch computes in their promoted dtype
    if type(weight) is _C.Tensor and weight.dtype is not input.dtype and weight.dim() == 0 \
            and input.dim() == 0 and end.dim() == 0 and end.dtype is input.dtype:
        dtype = _C._promote_types(input.dtype, weight.dtype)
        if dtype is not input.dtype:
            input, end = input.to(dtype), end.to(dtype)  # noqa: A001
    return _E.lerp(input, end, weight)


def addcmul(input, tensor1, tensor2, *, value=1):  # noqa: A002
    """``input + value * tensor1 * tensor2``, broadcasting (AddcmulBackward0).

    >>> import gradtrack
    >>> gradtrack.addcmul(gradtrack.ones(2), gradtrack.tensor([1., 2.]), gradtrack.tensor([3., 4.]), value=0.5)
    tensor([2.5000, 5.0000])
    """
    return _E.addcmul(input, tensor1, tensor2, number(value, "addcmul", "value"))


def addcdiv(input, tensor1, tensor2, *, value=1):  # noqa: A002
    """``input + value * tensor1 / tensor2``, broadcasting (AddcdivBackward0); torch
    refuses integer tensor1 and tensor2.

    >>> import gradtrack
    >>> gradtrack.addcdiv(gradtrack.ones(2), gradtrack.tensor([1., 2.]), gradtrack.tensor([4., 4.]), value=2)
    tensor([1.5000, 2.0000])
    """
    return _E.addcdiv(input, tensor1, tensor2, number(value, "addcdiv", "value"))


def _isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):  # noqa: A002
    if input.dtype is not other.dtype:
        from .._dtype_names import SCALAR_NAME, dtype_key
        raise RuntimeError(f"{SCALAR_NAME[dtype_key(input.dtype)]} did not match "
                           f"{SCALAR_NAME[dtype_key(other.dtype)]}")
    equal = input == other
    if input.dtype is _C.bool:
        return _isclose_version(equal, rtol, atol, False)
    a, b = (input, other) if input.dtype.is_floating_point else (input.double(), other.double())
    from ..autograd.grad_mode import no_grad
    with no_grad():
        error = (a - b).abs()  # an infinite error is never within tolerance (inf vs 1.5)
        close = equal | (error.isfinite() & (error <= atol + rtol * b.abs()))
        if equal_nan:
            close = close | (a.isnan() & b.isnan())
    return _isclose_version(close, rtol, atol, equal_nan and input.dtype.is_floating_point)


def _isclose_version(close, rtol, atol, equal_nan):
    """``close`` with torch's _version: its isclose ORs into ``self == other`` in place, once
    for equal_nan (float inputs) and once for the tolerance test (skipped when both tolerances are 0)."""
    view = close.detach().unsqueeze(0)[:0]  # an empty view of any layout: counts, writes nothing
    for _ in range(builtins.int(builtins.bool(equal_nan)) + builtins.int(rtol != 0 or atol != 0)):
        view.zero_()
    return close


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):  # noqa: A002
    """Elementwise ``|input - other| <= atol + rtol * |other|`` (or equal;
    NaNs equal only with ``equal_nan``).

    >>> import gradtrack
    >>> gradtrack.isclose(gradtrack.tensor([1., 2.]), gradtrack.tensor([1., 2.1]))
    tensor([ True, False])
    """
    return _isclose(input, other, rtol, atol, equal_nan)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):  # noqa: A002
    """True if every element of :func:`isclose` is.

    >>> import gradtrack
    >>> gradtrack.allclose(gradtrack.tensor([1.]), gradtrack.tensor([1. + 1e-9]))
    True
    """
    return builtins.bool(_isclose(input, other, rtol, atol, equal_nan).all())


def float_power(input, exponent):  # noqa: A002
    """``pow`` computed in double precision (the result is float64).

    >>> import gradtrack
    >>> gradtrack.float_power(gradtrack.tensor([2]), 3)
    tensor([8.], dtype=gradtrack.float64)
    """
    base = input.to(_C.float64) if isinstance(input, _Tensor) else input
    exp = exponent.to(_C.float64) if isinstance(exponent, _Tensor) else float(exponent)
    if not isinstance(base, _Tensor):
        base = _C.tensor(float(base), dtype=_C.float64)
    return base.pow(exp)


def _float_or_none(value, op, arg, position):
    """``value`` for torch's ``float? arg``, or its TypeError."""
    if value is None or (isinstance(value, numbers.Real) and not isinstance(value, bool)):
        return None if value is None else float(value)
    raise TypeError(f"{op}(): argument '{arg}' (position {position}) must be float, not "
                    f"{type(value).__name__}")


def _int_arg(value, op, arg, position):
    """``value`` for torch's ``int arg``, or its TypeError."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    raise TypeError(f"{op}(): argument '{arg}' (position {position}) must be int, not "
                    f"{type(value).__name__}")


def logit(input, eps=None):  # noqa: A002
    """``log(x / (1 - x))``; with ``eps``, the input is first clamped to
    ``[eps, 1 - eps]`` (LogitBackward0; its gradient is 0 outside that range).

    >>> import gradtrack
    >>> gradtrack.logit(gradtrack.tensor([0.0, 0.25, 0.5]), eps=1e-6)
    tensor([-13.8155,  -1.0986,   0.0000])
    """
    return _E.logit(input, _float_or_none(eps, "logit", "eps", 2))


def mvlgamma(input, p):  # noqa: A002
    """The multivariate log-gamma function of dimension ``p``:
    ``sum(lgamma(x - j / 2) for j < p) + p (p - 1) / 4 log(pi)`` (MvlgammaBackward0).

    >>> import gradtrack
    >>> gradtrack.mvlgamma(gradtrack.tensor([2.5, 3.0]), 2)
    tensor([0.8570, 1.5502])
    """
    return _E.mvlgamma(input, _int_arg(p, "mvlgamma", "p", 2))


def positive(input):  # noqa: A002
    """Returns ``input`` itself (torch refuses bool tensors).

    >>> import gradtrack
    >>> gradtrack.positive(gradtrack.tensor([-1, 2]))
    tensor([-1,  2])
    """
    if repr(input.dtype).endswith("bool"):
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def fix(input):  # noqa: A002
    """Another name of ``trunc``."""
    return input.trunc()


def true_divide(input, other):  # noqa: A002 - torch's argument names
    """Alias of :func:`div` without rounding."""
    return _C.div(input, other)


def _true_divide(self, other):
    """Alias of :meth:`div` without rounding."""
    return self.div(other)


def clip(input, min=None, max=None):  # noqa: A002
    """Alias of :func:`clamp`."""
    return _C.clamp(input, min, max)


FUNCTIONS = (nan_to_num, lerp, isclose, allclose, float_power, positive, fix, true_divide, clip,
             addcmul, addcdiv, logit, mvlgamma)
# torch's constants (plain Python floats, as torch's; ``newaxis`` is None, as NumPy's).
NAMES = {"pi": math.pi, "e": math.e, "inf": math.inf, "nan": math.nan, "newaxis": None}
# torch's other names of elementwise functions (NumPy's spellings): the same objects,
# out= wrapper included.
ALIASES = {
    "absolute": "abs", "negative": "neg", "subtract": "sub", "multiply": "mul", "divide": "div",
    "greater": "gt", "greater_equal": "ge", "less": "lt", "less_equal": "le", "not_equal": "ne",
    "arccos": "acos", "arcsin": "asin", "arctan": "atan", "arccosh": "acosh", "arcsinh": "asinh",
    "arctanh": "atanh", "arctan2": "atan2",
}
METHODS = {
    **methods(nan_to_num, lerp, isclose, allclose, float_power, positive, fix, addcmul, addcdiv,
              logit, mvlgamma),
    "true_divide": _true_divide,
    # torch's other names of C++ methods: the same objects
    "clip": _Tensor.clamp, "absolute": _Tensor.abs, "negative": _Tensor.neg,
    "multiply": _Tensor.mul, "subtract": _Tensor.sub, "divide": _Tensor.div,
    "greater": _Tensor.gt, "less": _Tensor.lt,
    "greater_equal": _Tensor.ge, "less_equal": _Tensor.le, "not_equal": _Tensor.ne,
    "arccos": _Tensor.acos, "arcsin": _Tensor.asin, "arctan": _Tensor.atan,
    "arccosh": _Tensor.acosh, "arcsinh": _Tensor.asinh, "arctanh": _Tensor.atanh,
    "arctan2": _Tensor.atan2,
}
