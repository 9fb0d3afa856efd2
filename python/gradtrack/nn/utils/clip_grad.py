"""Gradient clipping: ``clip_grad_norm_`` and ``clip_grad_value_`` (PyTorch 2.13's).

The total norm is the ``norm_type``-norm of the per-gradient norms, returned
as a 0-d tensor; every gradient is then scaled in place by
``min(1, max_norm / (total_norm + 1e-6))``. ``foreach`` is accepted for
compatibility: gradtrack has one (per-tensor) path, whose numbers are the same.
"""

import functools
import math
import types
import warnings

from ... import _C
from ...autograd.grad_mode import no_grad

_Tensor = _C.Tensor

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_",
           "get_total_norm"]


def _no_grad(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with no_grad():
            return func(*args, **kwargs)
    return wrapper


def _vector_norm(t, norm_type):
    """``linalg.vector_norm(t, norm_type)`` of a whole tensor, in ``t``'s dtype."""
    if norm_type == math.inf:
        return t.abs().amax()
    if norm_type == -math.inf:
        return t.abs().min()
    if norm_type == 0:
        return (t != 0).sum().to(t.dtype)
    if norm_type == 1:
        return t.abs().sum()
    if norm_type == 2:
        return (t * t).sum().sqrt()
    return t.abs().pow(norm_type).sum().pow(1.0 / norm_type)


def _stack_norms(norms):
    # Norms of float32 and float64 gradients meet in the wider dtype (torch.stack promotes).
    dtypes = {n.dtype for n in norms}
    if len(dtypes) > 1:
        wide = _C.float64 if _C.float64 in dtypes else next(iter(dtypes))
        norms = [n.to(wide) for n in norms]
    return _C.stack(norms)


@_no_grad
def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The ``norm_type``-norm of the tensors' norms (the first half of ``clip_grad_norm_``).

    >>> import gradtrack
    >>> from gradtrack.nn.utils import get_total_norm
    >>> get_total_norm([gradtrack.tensor([3.0]), gradtrack.tensor([4.0])])
    tensor(5.)
    """
    tensors = [tensors] if isinstance(tensors, _Tensor) else list(tensors)
    norm_type = float(norm_type)
    if len(tensors) == 0:
        return _C.tensor(0.0)
    norms = [_vector_norm(t, norm_type) for t in tensors]
    total_norm = _vector_norm(_stack_norms(norms), norm_type)
    if error_if_nonfinite and not math.isfinite(total_norm.item()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the "
            "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`")
    return total_norm


@_no_grad
def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scales the gradients by ``min(1, max_norm / (total_norm + 1e-6))`` in place.

    >>> import gradtrack
    >>> from gradtrack.nn.utils import clip_grads_with_norm_
    >>> w = gradtrack.zeros(2, requires_grad=True)
    >>> w.grad = gradtrack.tensor([3.0, 4.0])
    >>> clip_grads_with_norm_([w], 2.5, gradtrack.tensor(5.0))
    >>> w.grad
    tensor([1.5000, 2.0000])
    """
    if isinstance(parameters, _Tensor):
        parameters = [parameters]
    grads = [p.grad for p in parameters if p.grad is not None]
    max_norm = float(max_norm)
    if len(grads) == 0:
        return
    clip_coef = (max_norm / (total_norm + 1e-6)).clamp(max=1.0)
    for grad in grads:
        grad.mul_(clip_coef if grad.dtype == clip_coef.dtype else clip_coef.to(grad.dtype))


@_no_grad
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None):
    """Scales the gradients in place so their total ``norm_type``-norm is at most ``max_norm``.

    Returns the total norm (before clipping) as a 0-d tensor.

    >>> import gradtrack
    >>> from gradtrack.nn.utils import clip_grad_norm_
    >>> w = gradtrack.zeros(2, requires_grad=True)
    >>> w.grad = gradtrack.tensor([3.0, 4.0])
    >>> clip_grad_norm_([w], max_norm=1.0)
    tensor(5.)
    >>> w.grad
    tensor([0.6000, 0.8000])
    """
    if isinstance(parameters, _Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and len(parameters) == 0:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.",
                          stacklevel=3)
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated alias of :func:`clip_grad_norm_` (warns, as torch does)."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@_no_grad
def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamps every gradient in place to ``[-clip_value, clip_value]``.

    >>> import gradtrack
    >>> from gradtrack.nn.utils import clip_grad_value_
    >>> w = gradtrack.zeros(3, requires_grad=True)
    >>> w.grad = gradtrack.tensor([-2.0, 0.5, 3.0])
    >>> clip_grad_value_(w, 1.0)
    >>> w.grad
    tensor([-1.0000,  0.5000,  1.0000])
    """
    if isinstance(parameters, _Tensor):
        parameters = [parameters]
    clip_value = float(clip_value)
    # torch's foreach path (its default on the CPU) clamps in two writes, min then max, so
    # each gradient's _version moves by 2; foreach=False clamps in one.
    for grad in [p.grad for p in parameters if p.grad is not None]:
        if foreach is False:
            grad.clamp_(min=-clip_value, max=clip_value)
        else:
            grad.clamp_min_(-clip_value)
            grad.clamp_max_(clip_value)
