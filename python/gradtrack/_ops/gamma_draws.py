"""``torch._standard_gamma`` and ``torch._sample_dirichlet``, the samplers under
``distributions.Gamma``, ``Beta``, ``Dirichlet`` and their kin, with the gradients
their reparameterized draws use (``_standard_gamma_grad``, ``_dirichlet_grad``).

The draws are torch's, draw for draw, and the gradients torch's to the last bit (NOTE
[Gamma draws] and NOTE [Pathwise gamma gradients] in csrc/kernels/gamma_draws.h).

>>> import gradtrack
>>> _ = gradtrack.manual_seed(0)
>>> gradtrack._standard_gamma(gradtrack.tensor([0.5, 2.0, 10.0]))
tensor([7.8936e-04, 6.3154e-01, 1.0174e+01])
"""

import warnings

from .. import _C
from .._dtype_names import SCALAR_NAME, dtype_key
from .._out import _RESIZED
from ..autograd._named_nodes import _has_tangent, named_node, not_implemented_node
from ..autograd.function import Function
from . import generator_arg, tensor_arg
from .views import _broadcast_pair

_R = _C._random


def _no_forward_ad(aten, tensors):
    if _has_tangent(tensors):
        raise NotImplementedError(
            f"Trying to use forward AD with {aten} that does not support it because it has "
            "not been implemented yet.\nPlease file an issue to PyTorch at "
            "https://github.com/pytorch/pytorch/issues/new?template=feature-request.yml so "
            "that we can prioritize its implementation or submit a PR adding the "
            "implementation to derivatives.yaml")


def _elementwise_operands(first, others, stacklevel):
    """``first`` and ``others`` broadcast together, as torch's elementwise kernels read
    them: the same dtype as ``first`` (else torch's RuntimeError), and the resize warning
    when the result is larger than ``first``, whose shape torch's kernel starts from."""
    shape = tuple(first.shape)
    for t in others:
        shape = _broadcast_pair(shape, tuple(t.shape))
    for t in others:
        if t.dtype != first.dtype:
            raise RuntimeError(f"Found dtype {SCALAR_NAME[dtype_key(t.dtype)]} but expected "
                               f"{SCALAR_NAME[dtype_key(first.dtype)]}")
    if shape != tuple(first.shape) and first.numel():
        warnings.warn(_RESIZED.format(old=list(first.shape), new=list(shape)), UserWarning,
                      stacklevel=stacklevel)
    return [t.detach().expand(shape) for t in (first, *others)]


class _StandardGammaGrad(Function):
    # torch records this function's node, but has no derivative for it
    @staticmethod
    def forward(ctx, input, operands):  # noqa: A002 - input: the edge; operands: the values
        return _R.standard_gamma_grad(*operands)

    @staticmethod
    def backward(ctx, grad):
        raise NotImplementedError("the derivative for '_standard_gamma_grad' is not implemented.")


named_node(_StandardGammaGrad, "StandardGammaGradBackward0")


def _standard_gamma_grad(input, output):  # noqa: A002 - torch's names
    """The derivative of each Gamma(``input``, 1) draw ``output`` for its concentration
    ``input`` (torch's pathwise approximation; NOTE [Pathwise gamma gradients]).

    >>> import gradtrack
    >>> gradtrack._standard_gamma_grad(gradtrack.tensor([2.0]), gradtrack.tensor([1.5]))
    tensor([0.9366])
    """
    tensor_arg(input, "_standard_gamma_grad", "input", 1)
    tensor_arg(output, "_standard_gamma_grad", "output", 2)
    _no_forward_ad("_standard_gamma_grad", (input, output))
    alpha, x = _elementwise_operands(input, (output,), stacklevel=3)
    if input.requires_grad and _C.is_grad_enabled():
        return _StandardGammaGrad.apply(input, (alpha, x))
    return _R.standard_gamma_grad(alpha, x)


class _StandardGamma(Function):
    @staticmethod
    def forward(ctx, alpha, generator):
        out = _R.standard_gamma(alpha, generator)
        ctx.save_for_backward(alpha, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        alpha, out = ctx.saved_tensors
        return grad * _standard_gamma_grad(alpha, out), None


named_node(_StandardGamma, "StandardGammaBackward0")


def _standard_gamma(input, generator=None):  # noqa: A002 - torch's name
    """A draw from Gamma(concentration, 1) for each concentration in ``input``, torch's
    sampler and order of draws (NOTE [Gamma draws]); differentiable for ``input``.

    >>> import gradtrack
    >>> _ = gradtrack.manual_seed(0)
    >>> alpha = gradtrack.tensor([3.0], requires_grad=True)
    >>> x = gradtrack._standard_gamma(alpha)
    >>> x.backward()
    >>> x, alpha.grad
    (tensor([6.0577], grad_fn=<StandardGammaBackward0>), tensor([1.4712]))
    """
    tensor_arg(input, "_standard_gamma", "input", 1)
    generator_arg(generator, "_standard_gamma")
    _no_forward_ad("_standard_gamma", (input,))
    if input.requires_grad and _C.is_grad_enabled():
        return _StandardGamma.apply(input, generator)
    return _R.standard_gamma(input, generator)


def _sample_dirichlet(input, generator=None):  # noqa: A002 - torch's name
    """A draw from Dirichlet(concentration) for each row of ``input``'s last dimension,
    torch's sampler and order of draws (NOTE [Gamma draws]). torch has no derivative for
    it (``distributions.Dirichlet.rsample`` supplies one).

    >>> import gradtrack
    >>> _ = gradtrack.manual_seed(0)
    >>> gradtrack._sample_dirichlet(gradtrack.tensor([1.0, 2.0, 3.0]))
    tensor([0.5282, 0.2411, 0.2307])
    """
    tensor_arg(input, "_sample_dirichlet", "input", 1)
    generator_arg(generator, "_sample_dirichlet")
    return not_implemented_node("_sample_dirichlet", _R.sample_dirichlet(input.detach(), generator),
                                input)


def _dirichlet_grad(x, alpha, total):
    """The gradient torch's Dirichlet reparameterization uses for draw ``x`` of
    concentration ``alpha`` out of the row total ``total`` (NOTE [Pathwise gamma
    gradients]), elementwise after broadcasting.

    >>> import gradtrack
    >>> gradtrack._dirichlet_grad(gradtrack.tensor([0.3]), gradtrack.tensor([1.0]),
    ...                           gradtrack.tensor([3.0]))
    tensor([0.4123])
    """
    for position, (name, t) in enumerate((("x", x), ("alpha", alpha), ("total", total)), 1):
        tensor_arg(t, "_dirichlet_grad", name, position)
    operands = _elementwise_operands(x, (alpha, total), stacklevel=3)
    return not_implemented_node("_dirichlet_grad", _R.dirichlet_grad(*operands), x, alpha, total)


FUNCTIONS = (_standard_gamma, _standard_gamma_grad, _sample_dirichlet, _dirichlet_grad)
