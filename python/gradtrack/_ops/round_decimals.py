"""``round`` with torch's ``decimals=``: each element rounded to that many decimal
places (halves to even), as torch's kernel computes it; without ``decimals`` the op
list's ``round`` runs as it is.

NOTE [Rounding to decimals]
torch scales, rounds to the nearest integer and scales back, all in the op's math type
(float for float32 and the 16-bit floats, double for float64): ``x * 10^d`` rounded,
divided by ``10^d``, or for a negative ``d`` ``x / 10^-d`` rounded, times ``10^-d``,
with ``10^d`` computed in double and then cast to the math type. So 2.675 rounds to 2.68
in float32 (267.5 is a tie, to even) and to 2.67 in float64, and a ``d`` whose power
overflows gives NaN. Giving ``decimals``, even 0, is torch's other overload: its node is
RoundBackward1 (a zero gradient, as RoundBackward0's).

>>> import gradtrack
>>> gradtrack.round(gradtrack.tensor([1.2345, -2.5551]), decimals=2)
tensor([ 1.2300, -2.5600])
"""

import builtins
import math
import numbers

from .. import _C
from .._dtype_names import SCALAR_NAME, dtype_key
from ..autograd._named_nodes import ZeroGradient, _has_tangent, named_node
from ..autograd.function import Function
from ..autograd.grad_mode import no_grad
from .._wrappers import fast_path, lazy_signature

_Tensor = _C.Tensor
_WHOLE = object()  # no decimals given: the op list's round
_REDUCED = (_C.float16, _C.bfloat16)


def _decimals_arg(decimals, op):
    if isinstance(decimals, numbers.Integral) and not isinstance(decimals, builtins.bool):
        return int(decimals)
    raise TypeError(f"{op}(): argument 'decimals' must be int, not {type(decimals).__name__}")


def _check_floating(x, decimals):
    if not x.is_floating_point():
        kernel = "round_vml_cpu" if decimals == 0 else "round_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                  f"'{SCALAR_NAME[dtype_key(x.dtype)]}'")


def rounded(x, decimals):
    """``x`` (floating, no graph) rounded to ``decimals`` places (NOTE [Rounding to
    decimals]), a new tensor of ``x``'s dtype."""
    math_type = _C.float32 if x.dtype in _REDUCED else x.dtype
    wide = x.to(math_type)
    try:
        power = float(10 ** abs(decimals))
    except OverflowError:
        power = math.inf
    scale = _C.tensor(power, dtype=math_type)
    if decimals < 0:
        out = (wide / scale).round() * scale
    else:
        out = (wide * scale).round() / scale
    return out.to(x.dtype)


class _Round(ZeroGradient):
    @staticmethod
    def forward(ctx, input, decimals):  # noqa: A002 - torch's name
        return rounded(input, decimals)


named_node(_Round, "RoundBackward1")


class _RoundInPlace(Function):
    @staticmethod
    def forward(ctx, input, decimals):  # noqa: A002 - torch's name
        # written through .data, whose counter is its own: marking input dirty is the
        # write's one version, as torch's kernel makes one
        input.data.copy_(rounded(input, decimals))
        ctx.mark_dirty(input)
        return input

    @staticmethod
    def backward(ctx, grad):
        return _C._like("zeros", grad, None, False, None), None


named_node(_RoundInPlace, "RoundBackward1")


_FORMS = ("but expected one of:\n * (Tensor input, *, Tensor out = None)\n * (Tensor input, *, "
          "int decimals, Tensor out = None)\n")


def _label(value):
    return "Tensor" if isinstance(value, _Tensor) else type(value).__name__


def _refused(args, kwargs):
    got = ", ".join([_label(a) for a in args] + [f"{k}={_label(v)}" for k, v in kwargs.items()])
    return TypeError(f"round() received an invalid combination of arguments - got ({got}), "
                     + _FORMS)


def _to_decimals(x, decimals):
    decimals = _decimals_arg(decimals, "round")
    _check_floating(x, decimals)
    if (x.requires_grad and _C.is_grad_enabled()) or _has_tangent((x,)):
        return _Round.apply(x, decimals)
    return rounded(x, decimals)


def _round(input, *extra, decimals=_WHOLE):  # noqa: A002 - torch's name
    """Each element rounded to the nearest integer, halves to even; with ``decimals``,
    to that many decimal places (negative: tens, hundreds, ...; NOTE [Rounding to
    decimals]). Integer tensors come back as they are (without ``decimals``).

    >>> import gradtrack
    >>> gradtrack.round(gradtrack.tensor([0.5, 1.5, -2.7]))
    tensor([ 0.,  2., -3.])
    >>> gradtrack.round(gradtrack.tensor([1234.5678]), decimals=-2)
    tensor([1200.])
    """
    given = {} if decimals is _WHOLE else {"decimals": decimals}
    if extra or (given and (decimals is None or not isinstance(input, _Tensor))):
        raise _refused((input, *extra), given)  # torch's parser lists its two forms
    return _C.round(input) if not given else _to_decimals(input, decimals)


def _round_method(self, *extra, decimals=_WHOLE):
    if extra:
        raise TypeError(f"round() takes from 1 to 0 positional arguments but {len(extra)} were "
                        "given")
    return _C.round(self) if decimals is _WHOLE else _to_decimals(self, decimals)


_round.__name__ = _round_method.__name__ = _round_method.__qualname__ = "round"
_round_method.__doc__ = _round.__doc__


def _signature(first):
    def make():
        import inspect  # on first read of the signature (NOTE [Lazy signatures])

        kind = inspect.Parameter
        return inspect.Signature([kind(first, kind.POSITIONAL_OR_KEYWORD),
                                  kind("decimals", kind.KEYWORD_ONLY, default=0)])
    return make


# A call without decimals= runs the op list's round with no Python frame.
round = fast_path(_C.round, lazy_signature(_round, _signature("input")), ("decimals",))  # noqa: A001
_method = fast_path(_C.Tensor.round, lazy_signature(_round_method, _signature("self")),
                    ("decimals",), "Tensor")


def round_in_place(self, decimals):
    """``self`` rounded to ``decimals`` places in place, recorded as torch records it
    (RoundBackward1, one version); ``self`` is checked by the caller."""
    decimals = _decimals_arg(decimals, "round_")
    _check_floating(self, decimals)
    if _C.is_grad_enabled() and self.requires_grad:
        return _RoundInPlace.apply(self, decimals)
    with no_grad():
        return self.copy_(rounded(self.detach(), decimals))


NAMES = {"round": round}
METHODS = {"round": _method}
