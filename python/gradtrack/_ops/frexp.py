"""``torch.frexp``: each element split as ``mantissa * 2 ** exponent`` (C's frexp,
``_C._linalg.frexp``), with torch's named result, ``out=`` checks and node
``FrexpBackward0`` (an autograd Function: the gradient of the mantissa is the
incoming one divided by ``2 ** exponent``, the exponent gets none).

>>> import gradtrack
>>> gradtrack.frexp(gradtrack.tensor([8.0, -0.75])).exponent
tensor([4, 0], dtype=gradtrack.int32)
"""

from .. import _C, _out, return_types
from .._dtype_names import CPP_NAME
from ..autograd.function import Function
from ..autograd._named_nodes import named_node


class _Frexp(Function):
    @staticmethod
    def forward(ctx, x):
        mantissa, exponent = _C._linalg.frexp(x)
        ctx.save_for_backward(exponent)
        ctx.exponent = exponent
        ctx.mark_non_differentiable(exponent)
        return mantissa, exponent

    @staticmethod
    def backward(ctx, grad, _):
        (exponent,) = ctx.saved_tensors
        # torch divides by exp2 of the int32 exponent, a float32 tensor
        return (grad / exponent.exp2()).to(grad.dtype)

    @staticmethod
    def jvp(ctx, tangent):
        return (tangent / ctx.exponent.exp2()).to(tangent.dtype), None


named_node(_Frexp, "FrexpBackward0")


def frexp(input, *, out=None):  # noqa: A002 - torch's name
    """Each element of ``input`` as ``mantissa * 2 ** exponent``, the mantissa's
    magnitude in [0.5, 1) (0, inf and nan keep themselves with exponent 0), the
    exponent int32 (FrexpBackward0).

    >>> import gradtrack
    >>> gradtrack.frexp(gradtrack.tensor([8.0, -0.75]))
    gradtrack.return_types.frexp(
    mantissa=tensor([ 0.5000, -0.7500]),
    exponent=tensor([4, 0], dtype=gradtrack.int32))
    """
    if not input.is_floating_point():
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    if out is None:
        return return_types.frexp(_Frexp.apply(input))
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise TypeError("frexp(): argument 'out' must be tuple of Tensors")
    mantissa, exponent = out
    if mantissa.dtype != input.dtype:
        raise RuntimeError(f"torch.frexp() expects mantissa to have dtype "
                           f"{CPP_NAME[_key(input)]} but got {CPP_NAME[_key(mantissa)]}")
    if exponent.dtype != _C.int32:
        raise RuntimeError(f"torch.frexp() expects exponent to have int dtype but got "
                           f"{CPP_NAME[_key(exponent)]}")
    _out.check_grad("frexp", (input,), out)
    result = _C._linalg.frexp(input)
    return return_types.frexp_out(_out.write_result("frexp", out, result))


def _key(t):
    return repr(t.dtype).split(".", 1)[1]


def _frexp_method(self):
    """Tensor.frexp: :func:`gradtrack.frexp` of this tensor (no ``out=``, as torch's).

    >>> import gradtrack
    >>> gradtrack.tensor([8.0]).frexp().mantissa
    tensor([0.5000])
    """
    return frexp(self)


_frexp_method.__name__ = _frexp_method.__qualname__ = "frexp"
FUNCTIONS = (frexp,)
METHODS = {"frexp": _frexp_method}
