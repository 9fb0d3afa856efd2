"""``nn.functional`` activations built from existing ops: the shrinks, ``threshold``,
``softsign``, ``glu`` and ``prelu``.

Where torch's result has a node of its own (``HardshrinkBackward0``, ``GluBackward0``,
``PreluKernelBackward0``, ...) the function is an ``autograd.Function`` whose backward
class carries torch's name (NOTE [Named composite nodes]); where torch composes the
result from other ops (``softsign``, ``tanhshrink``) so does this module, in torch's
order, so the values, the ``grad_fn`` chain and the gradients are torch's.

>>> import gradtrack
>>> import gradtrack.nn.functional as F
>>> x = gradtrack.tensor([-1.0, 0.2, 2.0], requires_grad=True)
>>> F.hardshrink(x)
tensor([-1.,  0.,  2.], grad_fn=<HardshrinkBackward0>)
"""

from .. import _C
from ..autograd.function import Function
from ..autograd._named_nodes import named_node

__all__ = ["hardshrink", "softshrink", "tanhshrink", "threshold", "threshold_", "softsign",
           "glu", "prelu"]


def _masked_grad(grad, ctx):
    """``grad`` zeroed where ``ctx.mask``; when a graph is being built, written so that it
    depends on the input (with derivative 0), as torch's ``..._backward`` does."""
    (input,) = ctx.saved_tensors  # noqa: A001
    if _C.is_grad_enabled() and input.requires_grad:
        # + 0: a negative input times 0 is -0.0, which prints as "-0." where torch has 0
        return _C.where(ctx.mask, input * 0 + 0, grad)
    return grad.masked_fill(ctx.mask, 0)


class _Hardshrink(Function):
    @staticmethod
    def forward(ctx, input, lambd):  # noqa: A002 - torch's argument name
        inside = (input >= -lambd).logical_and(input <= lambd)
        ctx.save_for_backward(input)
        ctx.mask = inside  # a bool mask: nothing to version-check
        return input.masked_fill(inside, 0)

    @staticmethod
    def backward(ctx, grad):
        return _masked_grad(grad, ctx), None

    @staticmethod
    def jvp(ctx, tangent, _):
        return tangent.masked_fill(ctx.mask, 0)


named_node(_Hardshrink, "HardshrinkBackward0")


def hardshrink(input, lambd=0.5):  # noqa: A002
    """``x`` where ``|x| > lambd``, else 0 (``HardshrinkBackward0``).

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.hardshrink(gradtrack.tensor([-1.0, 0.3, 0.7]))
    tensor([-1.0000,  0.0000,  0.7000])
    """
    return _Hardshrink.apply(input, float(lambd))


class _Softshrink(Function):
    @staticmethod
    def forward(ctx, input, lambd):  # noqa: A002
        inside = (input >= -lambd).logical_and(input <= lambd)
        ctx.save_for_backward(input)
        ctx.mask = inside  # a bool mask: nothing to version-check
        # x - clamp(x, -l, l): x - l above, x + l below, exactly 0 inside, NaN kept.
        return input - input.clamp(-lambd, lambd)

    @staticmethod
    def backward(ctx, grad):
        return _masked_grad(grad, ctx), None

    jvp = _Hardshrink.jvp


named_node(_Softshrink, "SoftshrinkBackward0")

_DTYPE_NAME = {"float32": "Float", "float64": "Double", "float16": "Half",
               "bfloat16": "BFloat16"}
_DTYPE_MAX = {"float32": "3.40282e+38", "float64": "1.79769e+308", "float16": "65504",
              "bfloat16": "3.38953e+38"}


def softshrink(input, lambd=0.5):  # noqa: A002
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, else 0
    (``SoftshrinkBackward0``).

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.softshrink(gradtrack.tensor([-1.0, 0.3, 0.75]))
    tensor([-0.5000,  0.0000,  0.2500])
    """
    if lambd < 0:
        dtype = repr(input.dtype).split(".", 1)[1]
        raise RuntimeError(f"lambda must be in range [0, {_DTYPE_MAX.get(dtype, '')}] for input "
                           f"dtype {_DTYPE_NAME.get(dtype, dtype)}, but found {lambd:g}")
    return _Softshrink.apply(input, float(lambd))


def tanhshrink(input):  # noqa: A002
    """``x - tanh(x)`` (``SubBackward0``, composed as torch's).

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.tanhshrink(gradtrack.tensor([0.0, 1.0]))
    tensor([0.0000, 0.2384])
    """
    return input - input.tanh()


def softsign(input):  # noqa: A002
    """``x / (1 + |x|)`` (``DivBackward0``, composed as torch's).

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.softsign(gradtrack.tensor([-1.0, 3.0]))
    tensor([-0.5000,  0.7500])
    """
    return input / (input.abs() + 1)


class _Threshold(Function):
    @staticmethod
    def forward(ctx, input, threshold, value):  # noqa: A002
        below = input <= threshold
        ctx.save_for_backward(input)
        ctx.mask = below
        return input.masked_fill(below, value)

    @staticmethod
    def backward(ctx, grad):
        return _masked_grad(grad, ctx), None, None

    @staticmethod
    def jvp(ctx, tangent, *_):
        return tangent.masked_fill(ctx.mask, 0)


named_node(_Threshold, "ThresholdBackward0")


def threshold(input, threshold, value, inplace=False):  # noqa: A002
    """``x`` where ``x > threshold``, else ``value`` (``ThresholdBackward0``).

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.threshold(gradtrack.tensor([-1.0, 0.5, 2.0]), 0.6, 9.0)
    tensor([9., 9., 2.])
    """
    if inplace:
        return threshold_(input, threshold, value)
    return _Threshold.apply(input, threshold, value)


def threshold_(input, threshold, value):  # noqa: A002
    """In-place :func:`threshold`.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> x = gradtrack.tensor([-1.0, 2.0])
    >>> F.threshold_(x, 0.0, 5.0)
    tensor([5., 2.])
    >>> x
    tensor([5., 2.])
    """
    from .._inplace import check
    check(input)
    if input.requires_grad and _C.is_grad_enabled():
        # The values are those of the out-of-place node, copied into ``input`` in place
        # (a CopyBackwards node over ThresholdBackward0 instead of torch's single
        # ThresholdBackward1; the gradients are the same).
        return input.copy_(_Threshold.apply(input.clone(), threshold, value))
    return input.masked_fill_(input <= threshold, value)


class _Glu(Function):
    @staticmethod
    def forward(ctx, input, dim):  # noqa: A002
        a, b = input.chunk(2, dim)
        gate = b.sigmoid()
        ctx.save_for_backward(input)
        ctx.halves = (a, gate)  # for jvp
        ctx.dim = dim
        return a * gate

    @staticmethod
    def backward(ctx, grad):
        (input,) = ctx.saved_tensors  # noqa: A001
        if _C.is_grad_enabled():  # recomputed from the input: differentiable again
            a, b = input.chunk(2, ctx.dim)
            gate = b.sigmoid()
        else:
            a, gate = ctx.halves
        grad_a = grad * gate
        grad_b = grad_a * a * (1 - gate)
        return _C.cat([grad_a, grad_b], ctx.dim), None

    @staticmethod
    def jvp(ctx, tangent, _):
        a, gate = ctx.halves
        ta, tb = tangent.chunk(2, ctx.dim)
        return ta * gate + a * gate * (1 - gate) * tb


named_node(_Glu, "GluBackward0")


def glu(input, dim=-1):  # noqa: A002
    """Gated linear unit: the first half of ``dim`` times the sigmoid of the second
    (``GluBackward0``).

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.glu(gradtrack.tensor([[2.0, 0.0]]))
    tensor([[1.]])
    """
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    size = input.size(dim)  # IndexError with torch's words for a bad dim
    wrapped = dim % input.dim()
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {wrapped} is size "
                           f"{size}")
    return _Glu.apply(input, wrapped)


class _Prelu(Function):
    @staticmethod
    def forward(ctx, input, weight):  # noqa: A002
        positive = input > 0
        ctx.save_for_backward(input, weight, positive)
        ctx.operands = (input, weight, positive)  # for jvp
        return _C.where(positive, input, weight * input)

    @staticmethod
    def backward(ctx, grad):
        input, weight, positive = ctx.saved_tensors  # noqa: A001
        if _C.is_grad_enabled():  # create_graph: the gradients through a node of their own
            grads = _PreluGrad.apply(grad, input, weight)
            return tuple(g if need else None for g, need in zip(grads, ctx.needs_input_grad))
        grad_input = grad_weight = None
        if ctx.needs_input_grad[0]:
            grad_input = _C.where(positive, grad, grad * weight)
        if ctx.needs_input_grad[1]:
            grad_weight = _sum_to((grad * input).masked_fill(positive, 0), weight.shape)
        return grad_input, grad_weight

    @staticmethod
    def jvp(ctx, t_input, t_weight):
        input, weight, positive = ctx.operands  # noqa: A001
        return _C.where(positive, t_input, weight * t_input + t_weight * input)


named_node(_Prelu, "PreluKernelBackward0")


class _PreluGrad(Function):
    """prelu's two gradients as one node (``PreluKernelBackwardBackward0``), so that a
    second backward reaches the input (with zeros: prelu is linear in pieces) as torch's.
    torch's second derivatives treat a zero input as positive, though the first
    derivative takes the slope there; so do these."""

    @staticmethod
    def forward(ctx, grad, input, weight):  # noqa: A002
        positive = input > 0
        ctx.save_for_backward(grad, input, weight)
        return (_C.where(positive, grad, grad * weight),
                _sum_to((grad * input).masked_fill(positive, 0), weight.shape))

    @staticmethod
    def backward(ctx, gg_input, gg_weight):
        grad, input, weight = ctx.saved_tensors  # noqa: A001
        nonnegative = input >= 0
        d_grad = _C.where(nonnegative, gg_input, gg_input * weight + gg_weight * input)
        d_input = (grad * gg_weight).masked_fill(nonnegative, 0)
        d_weight = _sum_to((grad * gg_input).masked_fill(nonnegative, 0), weight.shape)
        return d_grad, d_input, d_weight


named_node(_PreluGrad, "PreluKernelBackwardBackward0")


def _sum_to(t, shape):
    """``t`` summed down to the broadcast ``shape`` it was expanded from."""
    shape = tuple(shape)
    lead = t.dim() - len(shape)
    if lead:
        t = t.sum(tuple(range(lead)))
    dims = tuple(d for d, n in enumerate(shape) if n == 1 and t.shape[d] != 1)
    return t.sum(dims, keepdim=True) if dims else t


def prelu(input, weight):  # noqa: A002
    """``x`` where positive, ``weight * x`` elsewhere, ``weight`` one slope or one per
    channel (dim 1) (``PreluKernelBackward0``).

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.prelu(gradtrack.tensor([-2.0, 3.0]), gradtrack.tensor([0.25]))
    tensor([-0.5000,  3.0000])
    """
    if _C._autocast.enabled():  # on autocast's lower-precision list
        input, weight = _C._autocast.lower(input), _C._autocast.lower(weight)  # noqa: A001
    count = weight.numel()
    ndim = input.dim()
    if count != 1:
        if ndim == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if ndim >= 2 else 1
        if count != channels:
            raise RuntimeError("Mismatch of parameter numbers and input channel size. Found "
                               f"parameter numbers = {count} and channel size = {channels}.")
    if weight.dim() > 1:
        raise RuntimeError("prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.dim()}")
    if ndim == 0:
        shape = []
    elif ndim == 1:
        shape = [count]
    else:
        shape = [1] * ndim
        shape[1] = count
    # torch views the weight to broadcast over the input (a ViewBackward0 under the node)
    # unless it already has that shape.
    shaped = weight if list(weight.shape) == shape else weight.view(shape)
    return _Prelu.apply(input, shaped)
