"""ATen's native forms of the normalization and dropout layers, as torch has them at the
top level: each returns its output with what its backward saves (``native_layer_norm``:
the output, the mean and the reciprocal standard deviation; ``native_dropout``: the
output and the mask kept).

The outputs are those of the ``nn.functional`` layers (the same values, ``grad_fn``
names and random draws); the statistics beside them are computed as torch defines
them. As torch: the statistics of layer and batch norm are not differentiable outputs,
and native_group_norm's three outputs all come from one ``NativeGroupNormBackward0``
node (gradients through the mean and rstd flow too); native_dropout's output records
``NativeDropoutBackward0``, whose gradient is ``grad * mask * scale``.

>>> import gradtrack
>>> out, mean, rstd = gradtrack.native_layer_norm(gradtrack.tensor([[1.0, 3.0]]), [2],
...                                               None, None, 1e-5)
>>> mean
tensor([[2.]])
"""

from .. import _C
from .._lazy import LazyModule
from ..autograd.function import Function
from ..autograd.grad_mode import no_grad
from ..autograd._named_nodes import named_node
from . import wrap_dim

# nn.functional, imported when one of these is first called: NOTE [Loaded on first use]
F = LazyModule("gradtrack.nn.functional", __name__, "F")  # noqa: N816 - torch's spelling


def _stats_dtype(input, *params):  # noqa: A002
    """The dtype the statistics are computed and returned in: ``input``'s, or float32 for
    torch's mixed type (a float16/bfloat16 input whose first parameter given is float32)."""
    given = [p for p in params if p is not None]
    if input.dtype in (_C.float16, _C.bfloat16) and given and given[0].dtype != input.dtype:
        return _C.float32
    return input.dtype


def _mean_rstd(x, dims, eps, keepdim):
    """The mean and ``1 / sqrt(biased variance + eps)`` of ``x`` over ``dims``."""
    mean = x.mean(dims, keepdim=keepdim)
    var = x.var(dims, correction=0, keepdim=keepdim)
    return mean, (var + eps).rsqrt()


def native_layer_norm(input, normalized_shape, weight, bias, eps):  # noqa: A002
    """:func:`gradtrack.nn.functional.layer_norm`'s output with the mean and reciprocal
    standard deviation of each normalized slice (shaped to broadcast, not differentiable).

    >>> import gradtrack
    >>> out, mean, rstd = gradtrack.native_layer_norm(gradtrack.tensor([[1.0, 3.0]]), [2],
    ...                                               None, None, 1e-5)
    >>> out
    tensor([[-1.0000,  1.0000]])
    """
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and list(t.shape) != list(normalized_shape):
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but "
                               f"got {name} of shape {list(t.shape)} and normalized_shape = "
                               f"{list(normalized_shape)}")
    out = F.layer_norm(input, list(normalized_shape), weight, bias, eps)
    dims = list(range(input.dim() - len(normalized_shape), input.dim()))
    with no_grad():
        mean, rstd = _mean_rstd(input.detach().to(_stats_dtype(input, weight, bias)), dims,
                                eps, True)
    return out, mean, rstd


def native_batch_norm(input, weight, bias, running_mean, running_var, training,  # noqa: A002
                      momentum, eps):
    """:func:`gradtrack.nn.functional.batch_norm`'s output with the batch's mean and
    ``1 / sqrt(var + eps)`` per channel when ``training`` (empty tensors otherwise); the
    running statistics are updated as ``batch_norm`` updates them.

    >>> import gradtrack
    >>> out, mean, invstd = gradtrack.native_batch_norm(
    ...     gradtrack.tensor([[1.0], [3.0]]), None, None, None, None, True, 0.1, 1e-5)
    >>> mean
    tensor([2.])
    """
    wrap_dim(1, input.dim())  # the channel dim: torch's IndexError for a 1-D input
    dtype = _stats_dtype(input, weight, bias, running_mean, running_var)
    if training:
        dims = [0] + list(range(2, input.dim()))
        with no_grad():
            mean, invstd = _mean_rstd(input.detach().to(dtype), dims, eps, False)
    else:  # (no copy of the input for the dtype of two empty tensors)
        mean = _C.empty((0,), dtype=dtype)
        invstd = _C.empty((0,), dtype=dtype)
    out = F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)
    return out, mean, invstd


def _group_norm(input, weight, bias, n, group, eps):  # noqa: A002
    out = F.group_norm(input, group, weight, bias, eps)
    mean, rstd = _mean_rstd(input.to(_stats_dtype(input, weight, bias)).reshape(n, group, -1),
                            [-1], eps, False)
    return out, mean, rstd


class _NativeGroupNorm(Function):
    """The three outputs on one node; its backward differentiates :func:`_group_norm`
    again (NOTE [Named composite nodes] in ``autograd/_named_nodes.py``)."""

    @staticmethod
    def forward(ctx, input, weight, bias, n, group, eps):  # noqa: A002
        ctx.save_for_backward(input, weight, bias)
        ctx.rest = (n, group, eps)
        return _group_norm(input, weight, bias, n, group, eps)

    @staticmethod
    def backward(ctx, *grads):
        from ..autograd import grad as autograd_grad
        from ..autograd.grad_mode import enable_grad
        create = _C.is_grad_enabled()
        needs = ctx.needs_input_grad[:3]
        saved = ctx.saved_tensors
        with enable_grad():
            sources = [None if s is None else
                       (s if create and s.requires_grad else s.detach().requires_grad_(need))
                       for s, need in zip(saved, needs)]
            outs = _group_norm(*sources, *ctx.rest)
        # the statistics depend on the input alone: with only a weight or bias wanted
        # they have no graph, and their gradients go nowhere
        pairs = [(o, g) for o, g in zip(outs, grads) if g is not None and o.requires_grad]
        wanted = [s for s, need in zip(sources, needs) if need]
        found = iter(autograd_grad([o for o, _ in pairs], wanted, [g for _, g in pairs],
                                   create_graph=create, allow_unused=True) if pairs
                     else [None] * len(wanted))
        result = []
        for s, need in zip(saved, needs):
            g = next(found) if need else None
            result.append(g if g is not None or not need else _C.zeros(list(s.shape),
                                                                        dtype=s.dtype))
        return (*result, None, None, None)


named_node(_NativeGroupNorm, "NativeGroupNormBackward0")


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):  # noqa: A002, N803
    """:func:`gradtrack.nn.functional.group_norm` of ``input`` (``N`` samples, ``C``
    channels, ``HxW`` elements per channel) with the mean and reciprocal standard
    deviation of each group, shaped ``(N, group)``.

    >>> import gradtrack
    >>> out, mean, rstd = gradtrack.native_group_norm(
    ...     gradtrack.tensor([[[1.0], [3.0]]]), None, None, 1, 2, 1, 1, 1e-5)
    >>> mean
    tensor([[2.]])
    """
    if input.numel() != N * C * HxW:
        raise RuntimeError("Expected X.numel() == N * C * HxW to be true, but got false.  "
                           "(Could this error message be improved?  If so, please report an "
                           "enhancement request to PyTorch.)")
    tensors = [t for t in (input, weight, bias) if t is not None]
    if _C.is_grad_enabled() and any(t.requires_grad for t in tensors):
        return _NativeGroupNorm.apply(input, weight, bias, N, group, eps)
    with no_grad():
        return _group_norm(input, weight, bias, N, group, eps)


class _NativeDropout(Function):
    @staticmethod
    def forward(ctx, input, mask, scale):  # noqa: A002
        ctx.mark_non_differentiable(mask)
        ctx.save_for_backward(mask)
        ctx.scale = scale
        return input * mask * scale, mask.clone()

    @staticmethod
    def backward(ctx, grad, _):
        (mask,) = ctx.saved_tensors
        return grad * mask * ctx.scale, None, None


named_node(_NativeDropout, "NativeDropoutBackward0")


def native_dropout(input, p, train):  # noqa: A002
    """Dropout returning the output and the boolean mask of the elements kept (all True
    when not ``train``; ``train=None`` trains). The draws are
    :func:`gradtrack.nn.functional.dropout`'s.

    >>> import gradtrack
    >>> gradtrack.native_dropout(gradtrack.ones(2), 0.5, False)
    (tensor([1., 1.]), tensor([True, True]))
    """
    train = train is None or train
    if not train or p == 0:
        mask, scale = _C.ones(tuple(input.shape), dtype=_C.bool), 1.0
    elif p == 1:
        mask, scale = _C.zeros(tuple(input.shape), dtype=_C.bool), 0.0
    else:
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={1 - p}")
        from ..nn._functional_layers import _dropout_noise
        mask, scale = _dropout_noise(input, float(p)) != 0, 1.0 / (1.0 - p)
    if _C.is_grad_enabled() and input.requires_grad:
        return _NativeDropout.apply(input, mask, scale)
    return input * mask * scale, mask


FUNCTIONS = (native_layer_norm, native_batch_norm, native_group_norm, native_dropout)
