"""``torch.special``: the special functions, by torch's names.

Most are gradtrack's own functions under another name (``expit`` is ``sigmoid``,
``gammaln`` is ``lgamma``, ``psi`` is ``digamma``), the same objects, so their
``grad_fn`` names are the ones torch records. torch.special's own elementwise functions
(``i0e``, ``i1``, ``i1e``, ``ndtri``, ``log_ndtr``, ``erfcx``, ``entr``, ``xlog1py``) are
rows of the op list (``_declarations/pointwise.py``, ``special=True``), bound in
``_C._special``; ``ndtr`` is composed as torch composes it.

>>> import gradtrack
>>> gradtrack.special.expit(gradtrack.tensor([0.0]))
tensor([0.5000])
"""

import sys as _sys

from . import _C, _out
from ._declarations import pointwise_ops as _pointwise_ops
from ._registry import INSTALLED as _INSTALLED


def _row_function(op):
    fn = _out.elementwise(getattr(_C._special, op.name), op.name)
    self_arg, rest = op.example[0], ", ".join(op.example[1:])
    doc = (f"{op.doc}\n\n>>> x = {self_arg}\n"
           f">>> gradtrack.special.{op.public_name}(x{', ' + rest if rest else ''})\n"
           f"{op.prints}\n")
    return fn, doc


_DOCS = {}
for _op in _pointwise_ops():
    if _op.special:
        globals()[_op.public_name], _DOCS[_op.public_name] = _row_function(_op)
del _op


def _alias(name):
    return _INSTALLED[name]


# torch.special's names for gradtrack's functions: the same objects.
expit = _alias("sigmoid")
erf = _alias("erf")
erfc = _alias("erfc")
erfinv = _alias("erfinv")
exp2 = _alias("exp2")
expm1 = _alias("expm1")
log1p = _alias("log1p")
round = _alias("round")  # noqa: A001 - torch's name
sinc = _alias("sinc")
softmax = _alias("softmax")
log_softmax = _alias("log_softmax")
logsumexp = _alias("logsumexp")
i0 = _alias("i0")
digamma = _alias("digamma")
psi = digamma
gammaln = _alias("lgamma")
polygamma = _alias("polygamma")
xlogy = _alias("xlogy")
logit = _alias("logit")
multigammaln = _alias("mvlgamma")
gammainc = _alias("igamma")
gammaincc = _alias("igammac")


def _ndtr(input):  # noqa: A002 - torch's argument name
    """The standard normal distribution function, ``(1 + erf(x / sqrt(2))) / 2``, recorded
    as torch composes it (its ``grad_fn`` is ``MulBackward1``).

    >>> import gradtrack
    >>> gradtrack.special.ndtr(gradtrack.tensor([-1.0, 0.0, 1.96]))
    tensor([0.1587, 0.5000, 0.9750])
    """
    return _C._ops.special_ndtr(input)


_ndtr.__name__ = _ndtr.__qualname__ = "ndtr"
ndtr = _out.elementwise(_ndtr, "special_ndtr")


# ---- the value-only functions: Bessel, Airy, orthogonal polynomials ----------------------------
# NOTE [Value-only special functions] (csrc/kernels/special_functions.h): torch records no
# node for these, whatever requires grad; the kernels take float32/float64 tensors of one
# shape (laid out as torch lays out an elementwise result), so the arguments are promoted
# and broadcast here, by torch's rules
# (measured on torch 2.13): integer and bool inputs give the default dtype, float16 and
# bfloat16 are refused, and a polynomial's (x, n) promote as a binary op's operands.

# (name, first argument's name, what it is, example input, what the example prints);
# the order is the kernel's (kernels::special::ValueUnary).
_VALUE_UNARY = (
    ("bessel_j0", "input", "The Bessel function of the first kind of order 0, :math:`J_0`.",
     "[0.0, 1.0, 2.5]", "tensor([ 1.0000,  0.7652, -0.0484])"),
    ("bessel_j1", "input", "The Bessel function of the first kind of order 1, :math:`J_1`.",
     "[0.0, 1.0, 2.5]", "tensor([0.0000, 0.4401, 0.4971])"),
    ("bessel_y0", "input", "The Bessel function of the second kind of order 0, :math:`Y_0` "
     "(``-inf`` at 0, NaN below).", "[0.5, 1.0, 2.5]", "tensor([-0.4445,  0.0883,  0.4981])"),
    ("bessel_y1", "input", "The Bessel function of the second kind of order 1, :math:`Y_1` "
     "(``-inf`` at 0, NaN below).", "[0.5, 1.0, 2.5]", "tensor([-1.4715, -0.7812,  0.1459])"),
    ("modified_bessel_i0", "input", "The modified Bessel function of the first kind of order 0, "
     ":math:`I_0`.", "[0.0, 1.0, 2.5]", "tensor([1.0000, 1.2661, 3.2898])"),
    ("modified_bessel_i1", "input", "The modified Bessel function of the first kind of order 1, "
     ":math:`I_1`.", "[0.0, 1.0, 2.5]", "tensor([0.0000, 0.5652, 2.5167])"),
    ("modified_bessel_k0", "input", "The modified Bessel function of the second kind of order "
     "0, :math:`K_0` (``inf`` at 0, NaN below).", "[0.5, 1.0, 2.5]",
     "tensor([0.9244, 0.4210, 0.0623])"),
    ("modified_bessel_k1", "input", "The modified Bessel function of the second kind of order "
     "1, :math:`K_1` (``inf`` at 0, NaN below).", "[0.5, 1.0, 2.5]",
     "tensor([1.6564, 0.6019, 0.0739])"),
    ("scaled_modified_bessel_k0", "x", "The scaled modified Bessel function of the second kind "
     "of order 0, :math:`e^x K_0(x)`.", "[0.5, 1.0, 2.5]", "tensor([1.5241, 1.1445, 0.7595])"),
    ("scaled_modified_bessel_k1", "x", "The scaled modified Bessel function of the second kind "
     "of order 1, :math:`e^x K_1(x)`.", "[0.5, 1.0, 2.5]", "tensor([2.7310, 1.6362, 0.9002])"),
    ("spherical_bessel_j0", "x", "The spherical Bessel function of the first kind of order 0, "
     ":math:`\\sin(x) / x`.", "[0.0, 1.0, 2.5]", "tensor([1.0000, 0.8415, 0.2394])"),
    ("airy_ai", "x", "The Airy function :math:`\\text{Ai}(x)` (NaN at :math:`\\pm\\infty`).",
     "[-1.0, 0.0, 1.0]", "tensor([0.5356, 0.3550, 0.1353])"),
)

# (name, what it is, what the example prints at x = [-0.5, 0.25, 1.0], n = 3), in the
# kernel's order (kernels::special::Polynomial).
_POLYNOMIALS = (
    ("chebyshev_polynomial_t", "The Chebyshev polynomial of the first kind, :math:`T_n(x)`.",
     "tensor([ 1.0000, -0.6875,  1.0000])"),
    ("chebyshev_polynomial_u", "The Chebyshev polynomial of the second kind, :math:`U_n(x)`.",
     "tensor([ 1.0000, -0.8750,  4.0000])"),
    ("chebyshev_polynomial_v", "The Chebyshev polynomial of the third kind, :math:`V_n(x)`.",
     "tensor([ 1.0000, -0.1250,  1.0000])"),
    ("chebyshev_polynomial_w", "The Chebyshev polynomial of the fourth kind, :math:`W_n(x)`.",
     "tensor([ 1.0000, -1.6250,  7.0000])"),
    ("shifted_chebyshev_polynomial_t", "The shifted Chebyshev polynomial of the first kind, "
     ":math:`T_n^*(x) = T_n(2x - 1)`.", "tensor([-26.,   1.,   1.])"),
    ("shifted_chebyshev_polynomial_u", "The shifted Chebyshev polynomial of the second kind, "
     ":math:`U_n^*(x) = U_n(2x - 1)`.", "tensor([-56.,   1.,   4.])"),
    ("shifted_chebyshev_polynomial_v", "The shifted Chebyshev polynomial of the third kind, "
     ":math:`V_n^*(x) = V_n(2x - 1)`.", "tensor([-71.,   1.,   1.])"),
    ("shifted_chebyshev_polynomial_w", "The shifted Chebyshev polynomial of the fourth kind, "
     ":math:`W_n^*(x) = W_n(2x - 1)`.", "tensor([-41.,   1.,   7.])"),
    ("hermite_polynomial_h", "The physicist's Hermite polynomial, :math:`H_n(x)` (NaN above "
     "degree 128 in float32, 512 in float64, as torch).", "tensor([ 5.0000, -2.8750, -4.0000])"),
    ("hermite_polynomial_he", "The probabilist's Hermite polynomial, :math:`He_n(x)` (NaN "
     "above degree 128 in float32, 512 in float64, as torch).",
     "tensor([ 1.3750, -0.7344, -2.0000])"),
    ("laguerre_polynomial_l", "The Laguerre polynomial, :math:`L_n(x)`.",
     "tensor([ 2.8958,  0.3411, -0.6667])"),
    ("legendre_polynomial_p", "The Legendre polynomial, :math:`P_n(x)`.",
     "tensor([ 0.4375, -0.3359,  1.0000])"),
)

_POLYNOMIAL_DEGREE = ("\n\nThe degree ``n`` (a tensor or a number, broadcast with ``x``) is "
                      "truncated to an integer in the result's dtype; a negative degree gives "
                      "0. No gradient is recorded.")
_POLYNOMIAL_OVERLOADS = (" * (Tensor x, Tensor n, *, Tensor out = None)\n"
                         " * (Number x, Tensor n, *, Tensor out = None)\n"
                         " * (Tensor x, Number n, *, Tensor out = None)\n")
_KERNEL_DTYPE_NAMES = {"float16": "Half", "bfloat16": "BFloat16"}


def _type_name(value):
    return "Tensor" if isinstance(value, _C.Tensor) else type(value).__name__


def _kernel_dtype(dtype, name):
    """The dtype a value-only function computes in for a promoted ``dtype``."""
    if dtype in (_C.float32, _C.float64):
        return dtype
    short = str(dtype).rsplit(".", 1)[-1]
    if short in _KERNEL_DTYPE_NAMES:
        raise NotImplementedError(f'"{name}_cpu" not implemented for '
                                  f"'{_KERNEL_DTYPE_NAMES[short]}'")
    return _INSTALLED["get_default_dtype"]()


def _write_out(aten, args, out, result):
    if not isinstance(out, _C.Tensor):
        raise TypeError(f"{aten}(): argument 'out' must be Tensor, not {_type_name(out)}")
    _out.check_grad(aten, args, out, differentiable=False)
    return _out.write(out, result, True)


# The signatures the value-only functions show (inspect.signature follows __wrapped__):
# their bodies read *args to give torch's messages for wrong arguments, and building a
# Signature here would import inspect with gradtrack.
def _takes_input(input, *, out=None):  # noqa: A002 - torch's argument name
    raise NotImplementedError


def _takes_x(x, *, out=None):
    raise NotImplementedError


def _takes_x_n(x, n, *, out=None):
    raise NotImplementedError


_SIGNATURES = {("input",): _takes_input, ("x",): _takes_x, ("x", "n"): _takes_x_n}


def _parameters(function, *names):
    function.__wrapped__ = _SIGNATURES[names]


def _value_unary(kind, name, arg):
    aten = f"special_{name}"

    def function(*args, out=None, **kwargs):
        if len(args) > 1:
            raise TypeError(f"{aten}() takes 1 positional argument but {len(args)} were given")
        for key in kwargs:
            if key != arg or args:
                raise TypeError(f"{aten}() got an unexpected keyword argument '{key}'")
        if not args and not kwargs:
            raise TypeError(f'{aten}() missing 1 required positional arguments: "{arg}"')
        value = args[0] if args else kwargs[arg]
        if not isinstance(value, _C.Tensor):
            raise TypeError(f"{aten}(): argument '{arg}' (position 1) must be Tensor, not "
                            f"{_type_name(value)}")
        dtype = _kernel_dtype(value.dtype, name)
        with _out._no_grad():
            x = value.detach().to(dtype)
            result = _C._special_functions.value_unary(kind, x)
        return result if out is None else _write_out(aten, (value,), out, result)

    function.__name__ = function.__qualname__ = name
    _parameters(function, arg)
    return function


def _polynomial(kind, name):
    aten = f"special_{name}"

    def refuse(args, kwargs):
        got = ", ".join(_type_name(a) for a in args)
        named = [f"{k}={_type_name(v)}" for k, v in reversed(kwargs.items())]
        got += "".join(", " + n for n in named) if args else "".join(n + ", " for n in named)
        raise TypeError(f"{aten}() received an invalid combination of arguments - got ({got}), "
                        f"but expected one of:\n{_POLYNOMIAL_OVERLOADS}")

    def function(*args, **kwargs):
        given = dict(zip(("x", "n"), args))
        if len(args) > 2 or any(k in given or k not in ("x", "n", "out") for k in kwargs):
            refuse(args, kwargs)
        given.update(kwargs)
        x, n, out = given.get("x"), given.get("n"), given.get("out")
        tensors = [isinstance(v, _C.Tensor) for v in (x, n)]
        numbers = [isinstance(v, (bool, int, float, complex)) for v in (x, n)]
        if (not all(t or m for t, m in zip(tensors, numbers)) or not any(tensors)
                or not (out is None or isinstance(out, _C.Tensor))):
            refuse(args, kwargs)
        if any(isinstance(v, complex) for v in (x, n)):
            raise NotImplementedError(f'"{name}_cpu" not implemented for \'ComplexFloat\'')
        dtype = _kernel_dtype(_INSTALLED["result_type"](x, n), name)
        with _out._no_grad():
            operands = [v.detach().to(dtype) if t else _INSTALLED["tensor"](v, dtype=dtype)
                        for v, t in zip((x, n), tensors)]
            x_b, n_b = _INSTALLED["broadcast_tensors"](*operands)
            result = _C._special_functions.polynomial(kind, x_b, n_b)
        return result if out is None else _write_out(aten, (x, n), out, result)

    function.__name__ = function.__qualname__ = name
    _parameters(function, "x", "n")
    return function


for _kind, (_name, _arg, _what, _example, _prints) in enumerate(_VALUE_UNARY):
    globals()[_name] = _value_unary(_kind, _name, _arg)
    _DOCS[_name] = (f"{_what} No gradient is recorded (torch has no derivative for it).\n\n"
                    f">>> gradtrack.special.{_name}(gradtrack.tensor({_example}))\n{_prints}\n")
for _kind, (_name, _what, _prints) in enumerate(_POLYNOMIALS):
    globals()[_name] = _polynomial(_kind, _name)
    _DOCS[_name] = (f"{_what}{_POLYNOMIAL_DEGREE}\n\n"
                    f">>> gradtrack.special.{_name}(gradtrack.tensor([-0.5, 0.25, 1.0]), 3)\n"
                    f"{_prints}\n")
del _kind, _name, _arg, _what, _example, _prints

_C._docs.attach(_sys.modules[__name__], _DOCS)

__all__ = sorted([*_DOCS, "expit", "erf", "erfc", "erfinv", "exp2", "expm1", "log1p", "round",
                  "sinc", "softmax", "log_softmax", "logsumexp", "i0", "digamma", "psi",
                  "gammaln", "polygamma", "xlogy", "logit", "multigammaln", "ndtr", "gammainc",
                  "gammaincc"])
