"""``nn.functional``'s activations that draw random numbers: ``rrelu`` and
``gumbel_softmax``.

Both draw from the generator as torch's CPU kernels do, so the same seed gives the
same values: ``rrelu`` in training draws one uniform double per element that is not
positive, in element order (``_C._random.rrelu_noise``); ``gumbel_softmax`` fills an
``exponential_`` tensor, as torch's composite does.

>>> import gradtrack
>>> import gradtrack.nn.functional as F
>>> F.rrelu(gradtrack.tensor([-1.0, 2.0]))
tensor([-0.2292,  2.0000])
"""

import warnings

from .. import _C
from ..autograd.function import Function
from ..autograd._named_nodes import named_node

__all__ = ["rrelu", "rrelu_", "gumbel_softmax"]


def _draw(input, lower, upper):  # noqa: A002
    """The noise of one training call. For float32 input torch's kernel takes the bounds as
    floats first (its ``opmath_t``), then draws a double between them."""
    if input.dtype == _C.float32:
        lower = _C.tensor(lower, dtype=_C.float32).item()
        upper = _C.tensor(upper, dtype=_C.float32).item()
    return _C._random.rrelu_noise(input, lower, upper, None)


def _leaky_grad(grad, input, slope):  # noqa: A002
    """leaky_relu_backward: ``grad`` where the input is positive, ``grad * slope`` elsewhere."""
    return _C.where(input > 0, grad, grad * slope)


class _RreluGrad(Function):
    """rrelu's gradient as a node of its own (``RreluWithNoiseBackwardBackward0``): ``grad``
    times the noise, or leaky_relu's gradient; linear in ``grad``, and a second backward
    reaches the input with zeros, as torch's."""

    @staticmethod
    def forward(ctx, grad, input, noise, slope):  # noqa: A002
        ctx.save_for_backward(input, noise)
        ctx.slope = slope
        return grad * noise if noise is not None else _leaky_grad(grad, input, slope)

    @staticmethod
    def backward(ctx, gg):
        input, noise = ctx.saved_tensors  # noqa: A001
        d_grad = gg * noise if noise is not None else _leaky_grad(gg, input, ctx.slope)
        return d_grad, _C.zeros(input.shape, dtype=input.dtype), None, None


named_node(_RreluGrad, "RreluWithNoiseBackwardBackward0")


def _rrelu_grad(grad, input, noise, noisy, slope):  # noqa: A002
    """rrelu's backward: through :class:`_RreluGrad` when it records a graph."""
    noise = noise if noisy else None
    if _C.is_grad_enabled():
        return _RreluGrad.apply(grad, input, noise, slope)
    return grad * noise if noise is not None else _leaky_grad(grad, input, slope)


class _Rrelu(Function):
    """rrelu_with_noise: ``x * noise`` in training, ``leaky_relu(x, (lower + upper) / 2)``
    in evaluation; the backward is ``grad * noise`` unless the bounds (nearly) meet."""

    @staticmethod
    def forward(ctx, input, lower, upper, training):  # noqa: A002
        ctx.slope = (lower + upper) / 2
        ctx.noisy = training and upper - lower > 1e-6
        ctx.jvp_input = input
        if training:
            noise = _draw(input, lower, upper)
            ctx.save_for_backward(input, noise)
            ctx.jvp_noise = noise
            return input * noise
        ctx.save_for_backward(input, None)
        return _C._nn.activation(_C._nn.activation_kinds["leaky_relu"], input, ctx.slope, 0.0,
                                 0.0).detach()

    @staticmethod
    def backward(ctx, grad):
        input, noise = ctx.saved_tensors  # noqa: A001
        return _rrelu_grad(grad, input, noise, ctx.noisy, ctx.slope), None, None, None

    @staticmethod
    def jvp(ctx, tangent, *_):
        # the backward's formula applied to the tangent (torch's auto_element_wise)
        if ctx.noisy:
            return tangent * ctx.jvp_noise
        return _leaky_grad(tangent, ctx.jvp_input, ctx.slope)


named_node(_Rrelu, "RreluWithNoiseBackward0")


class _RreluInplace(Function):
    """``rrelu_``: the same values written into the input (``RreluWithNoiseBackward1``,
    whose formula reads the result: its sign is the input's)."""

    @staticmethod
    def forward(ctx, input, lower, upper, training):  # noqa: A002
        ctx.slope = (lower + upper) / 2
        ctx.noisy = training and upper - lower > 1e-6
        noise = None
        # written through .data: mark_dirty gives the one version bump torch's rrelu_ gives
        if training:
            noise = _draw(input, lower, upper)
            input.data.mul_(noise)
        else:
            _C._nn.activation_(_C._nn.activation_kinds["leaky_relu"], input.data, ctx.slope, 0.0,
                               0.0)
        ctx.mark_dirty(input)
        ctx.save_for_backward(input, noise)
        ctx.jvp_noise, ctx.jvp_result = noise, input
        return input

    @staticmethod
    def backward(ctx, grad):
        result, noise = ctx.saved_tensors
        return _rrelu_grad(grad, result, noise, ctx.noisy, ctx.slope), None, None, None

    @staticmethod
    def jvp(ctx, tangent, *_):
        # in place, as the input's own tangent
        if ctx.noisy:
            return tangent.mul_(ctx.jvp_noise)
        return tangent.copy_(_leaky_grad(tangent, ctx.jvp_result, ctx.slope))


named_node(_RreluInplace, "RreluWithNoiseBackward1")


def _check_rrelu(input, lower, upper):  # noqa: A002
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if not input.is_floating_point():
        name = repr(input.dtype).split(".", 1)[1]
        scalar = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char",
                  "uint8": "Byte", "bool": "Bool"}.get(name, name)
        raise NotImplementedError(
            f"\"rrelu_with_noise_out_cpu\" not implemented for '{scalar}'")


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):  # noqa: A002
    """Randomized leaky ReLU: in training each non-positive element is scaled by a slope
    drawn uniformly from ``[lower, upper)``; in evaluation by ``(lower + upper) / 2``.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.rrelu(gradtrack.tensor([-1.0, 0.5]), 0.1, 0.3)
    tensor([-0.2000,  0.5000])
    """
    if inplace:
        return rrelu_(input, lower, upper, training)
    _check_rrelu(input, lower, upper)
    return _Rrelu.apply(input, float(lower), float(upper), bool(training))


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):  # noqa: A002
    """In-place :func:`rrelu`.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.rrelu_(gradtrack.tensor([-1.0, 0.5]), 0.1, 0.3)
    tensor([-0.2000,  0.5000])
    """
    from .._inplace import check
    _check_rrelu(input, lower, upper)
    check(input)
    return _RreluInplace.apply(input, float(lower), float(upper), bool(training))


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """Samples from the Gumbel-softmax distribution of ``logits``: ``softmax((logits + g) /
    tau)`` with ``g = -log(Exponential(1))``; ``hard=True`` returns one-hot vectors whose
    gradient is the soft sample's (straight-through).

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> _ = gradtrack.manual_seed(0)
    >>> F.gumbel_softmax(gradtrack.zeros(1, 3), hard=True)
    tensor([[0., 0., 1.]])
    """
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -_C.empty(logits.shape, dtype=logits.dtype).exponential_().log()
    gumbels = (logits + gumbels) / tau
    y_soft = gumbels.softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = _C.zeros(list(logits.shape), dtype=logits.dtype).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
