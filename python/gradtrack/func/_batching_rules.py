"""The batching rules of ``nn.functional``'s functions (and of the layers that call the
core directly): one op on the whole batch (NOTE [vmap batching rules]). A rule refuses
(``NoRule``) what it does not cover, and ``vmap`` then runs the function per sample.

>>> import gradtrack
>>> import gradtrack.nn.functional as F
>>> from gradtrack.func import vmap
>>> vmap(F.linear, in_dims=(0, None))(gradtrack.ones(4, 3), gradtrack.ones(2, 3)).shape
gradtrack.Size([4, 2])
"""

from .. import _C
from .._batched_tensor import FUNCTION_RULES, BatchedTensor, NoRule, aligned, binary, matmul, pdim

__all__ = []

_int64 = _C.int64
_conv = _C._conv
_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _physical(x, size):
    """``x``'s physical value, an unbatched tensor expanded along the batch."""
    if type(x) is BatchedTensor:
        return x.value
    return x.unsqueeze(0).expand(size, *x.shape)


def linear(input, weight, bias=None):  # noqa: A002 - torch's argument names
    if bias is not None and not isinstance(bias, (BatchedTensor, _C.Tensor)):
        raise NoRule("linear")
    aligned(input, weight, *(() if bias is None else (bias,)))  # refuses mixed dtypes
    if input.dim() == 0 or weight.dim() != 2:
        raise NoRule("linear")
    if type(weight) is not BatchedTensor and type(bias) is not BatchedTensor:
        return BatchedTensor(_C._nn.linear(input.value, weight, bias))
    out = matmul(input, weight.mT if type(weight) is BatchedTensor else weight.t())
    return out if bias is None else binary(lambda a, b: a + b, out, bias)


def convolution(x, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups, extra):
    """A convolution of ``(N, C, *spatial)`` samples. With an unbatched weight the batch
    joins ``N``; with a batched one each sample's weight is a group of its own (the
    samples' channels side by side, ``groups`` times the batch)."""
    if transposed or x.dim() < 3:
        raise NoRule("convolution")
    if type(weight) is not BatchedTensor and type(bias) is not BatchedTensor:
        v = x.value
        size, n = v.shape[0], v.shape[1]
        out = _conv.convolution(v.reshape(size * n, *v.shape[2:]), weight, bias, stride, padding,
                                dilation, False, output_padding, groups, extra)
        return BatchedTensor(out.reshape(size, n, *out.shape[1:]))
    size = next(t.value.shape[0] for t in (x, weight, bias) if type(t) is BatchedTensor)
    xv, wv = _physical(x, size), _physical(weight, size)
    n, channels, spatial = xv.shape[1], xv.shape[2], xv.shape[3:]
    outs = wv.shape[1]
    grouped = xv.transpose(0, 1).reshape(n, size * channels, *spatial)
    out = _conv.convolution(grouped, wv.reshape(size * outs, *wv.shape[2:]), None, stride,
                            padding, dilation, False, output_padding, groups * size, extra)
    out = out.reshape(n, size, outs, *out.shape[2:]).transpose(0, 1)
    if bias is not None:
        b = _physical(bias, size)
        out = out + b.reshape(size, 1, outs, *([1] * len(spatial)))
    return BatchedTensor(out)


def max_pool2d_with_indices(x, kernel_size, stride, padding, dilation, ceil_mode):
    """Pooling works plane by plane: the batch joins ``N`` (or is ``N`` for samples
    of ``(C, H, W)``); the indices are within a plane, the same either way."""
    if type(x) is not BatchedTensor or x.dim() not in (3, 4):
        raise NoRule("max_pool2d")
    v = x.value
    flat = v if v.dim() == 4 else v.reshape(-1, *v.shape[2:])
    out, indices = _conv.max_pool2d_with_indices(flat, kernel_size, stride, padding, dilation,
                                                 ceil_mode)
    if v.dim() == 5:
        out = out.reshape(*v.shape[:3], *out.shape[2:])
        indices = indices.reshape(out.shape)
    return BatchedTensor(out), BatchedTensor(indices)


def _unary(fn):
    def rule(input, *args, **kwargs):  # noqa: A002
        if args or kwargs or type(input) is not BatchedTensor:
            raise NoRule(fn.__name__)
        return BatchedTensor(fn(input.value))
    return rule


def _softmax(name):
    def rule(input, dim=None, _stacklevel=3, dtype=None):  # noqa: A002
        if dim is None or dtype is not None or type(input) is not BatchedTensor:
            raise NoRule(name)
        return BatchedTensor(getattr(_C, name)(input.value, pdim(dim, input.dim())))
    return rule


def _reduce(loss, reduction):
    """A per-element loss (physical ``(B, ...)``) reduced over each sample's elements."""
    if reduction == "none":
        return BatchedTensor(loss)
    if loss.dim() == 1:
        return BatchedTensor(loss.clone())
    dims = tuple(range(1, loss.dim()))
    return BatchedTensor(loss.sum(dims) if reduction == "sum" else loss.mean(dims))


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,  # noqa: A002
                  reduce=None, reduction="mean", label_smoothing=0.0):
    """Class-index targets, no weight, no smoothing: the losses of the batch's rows
    (``nll_loss`` with no reduction), reduced per sample."""
    if weight is not None or size_average is not None or reduce is not None \
            or label_smoothing != 0.0 or reduction not in _REDUCTIONS \
            or type(input) is not BatchedTensor or not isinstance(target, (BatchedTensor,
                                                                             _C.Tensor)) \
            or target.dtype is not _int64 or input.dim() not in (1, 2) \
            or target.dim() != input.dim() - 1 or type(ignore_index) is not int:
        raise NoRule("cross_entropy")
    size = input.value.shape[0]
    logits = input.value
    classes = logits.shape[-1]
    logp = _C.log_softmax(logits, logits.dim() - 1)
    labels = _physical(target, size)
    rows = _C._nn.nll_loss(logp.reshape(-1, classes), labels.reshape(-1), None, 0, ignore_index)
    rows = rows.reshape(labels.shape)
    if reduction != "mean" or rows.dim() == 1 and ignore_index < 0:
        return _reduce(rows, reduction)
    if rows.dim() == 1:
        raise NoRule("cross_entropy")  # one row a sample that may be ignored
    counted = labels.ne(ignore_index).sum(1).to(rows.dtype)
    return BatchedTensor(rows.sum(1) / counted)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean",  # noqa: A002
             weight=None):
    if weight is not None or size_average is not None or reduce is not None \
            or reduction not in _REDUCTIONS or not isinstance(target, (BatchedTensor, _C.Tensor)) \
            or tuple(input.shape) != tuple(target.shape):
        raise NoRule("mse_loss")
    pa, pb = aligned(input, target)
    if not isinstance(pa, _C.Tensor) or not pa.is_floating_point():
        raise NoRule("mse_loss")
    diff = pa - pb
    return _reduce(diff * diff, reduction)


FUNCTION_RULES.update({
    "linear": linear,
    "relu": _unary(_C.relu),
    "tanh": _unary(_C.tanh),
    "sigmoid": _unary(_C.sigmoid),
    "softmax": _softmax("softmax"),
    "log_softmax": _softmax("log_softmax"),
    "cross_entropy": cross_entropy,
    "mse_loss": mse_loss,
    "convolution": convolution,
    "max_pool2d_with_indices": max_pool2d_with_indices,
})
