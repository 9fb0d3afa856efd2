"""``nn.functional`` for the layers: activations with parameters, normalizations, dropout,
embedding and the losses beyond MSE/NLL/cross entropy.

Argument checks that torch makes in Python are made here with torch's words; each function
then makes one call into ``_C._nn``, which records torch's grad_fn (``GeluBackward0``,
``NativeLayerNormBackward0``, ``EmbeddingBackward0``, ...).

>>> import gradtrack
>>> import gradtrack.nn.functional as F
>>> x = gradtrack.tensor([-1.0, 0.0, 2.0], requires_grad=True)
>>> F.leaky_relu(x, 0.1)
tensor([-0.1000,  0.0000,  2.0000], grad_fn=<LeakyReluBackward0>)
"""

import warnings

from .. import _C
from .._autocast import runs_in_float32, warn_level
from ..autograd._named_nodes import composite_node
from ._arguments import _broadcast_pair, _implicit_dim, _legacy_reduction, _reduction_enum

_nn = _C._nn
_KIND = _nn.activation_kinds
_act = _nn.activation
_act_ = _nn.activation_

# torch's SELU constants.
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _inplace_check(input):  # noqa: A002 - torch's argument name
    from .._inplace import check
    check(input)


def _no_grad_for(tensor, arg, function):
    """torch's check for an argument its backward has no formula for (a loss's class
    weights): a tensor that requires grad is refused instead of getting no gradient."""
    if tensor is not None and tensor.requires_grad and _C.is_grad_enabled():
        raise RuntimeError(f"The function '{function}' is not differentiable with respect to "
                           f"argument '{arg}'. This input cannot have requires_grad True.")


def _apply(kind, input, inplace, a=0.0, b=0.0, c=0.0):  # noqa: A002
    if inplace:
        _inplace_check(input)
        return _act_(_KIND[kind], input, a, b, c)
    return _act(_KIND[kind], input, a, b, c)


# ---- activations ----------------------------------------------------------------------------

def gelu(input, *, approximate="none"):  # noqa: A002
    """Gaussian error linear unit ``x * Phi(x)``; ``approximate='tanh'`` uses the tanh form.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.gelu(gradtrack.tensor([1.0]))
    tensor([0.8413])
    """
    if approximate == "none":
        return _act(_KIND["gelu"], input, 0.0, 0.0, 0.0)
    if approximate == "tanh":
        return _act(_KIND["gelu_tanh"], input, 0.0, 0.0, 0.0)
    raise RuntimeError("approximate argument must be either none or tanh.")


def silu(input, inplace=False):  # noqa: A002
    """``x * sigmoid(x)``.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.silu(gradtrack.tensor([0.0, 1.0]))
    tensor([0.0000, 0.7311])
    """
    return _apply("silu", input, inplace)


def mish(input, inplace=False):  # noqa: A002
    """``x * tanh(softplus(x))``.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.mish(gradtrack.tensor([-2.0, 0.0, 1.5]))
    tensor([-0.2525,  0.0000,  1.4034])
    """
    return _apply("mish", input, inplace)


def hardswish(input, inplace=False):  # noqa: A002
    """``x * relu6(x + 3) / 6``.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.hardswish(gradtrack.tensor([-2.0, 0.0, 1.5]))
    tensor([-0.3333,  0.0000,  1.1250])
    """
    return _apply("hardswish", input, inplace)


def hardsigmoid(input, inplace=False):  # noqa: A002
    """``relu6(x + 3) / 6``: 0 below -3, 1 above 3, linear between.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.hardsigmoid(gradtrack.tensor([-4.0, 0.0, 1.5]))
    tensor([0.0000, 0.5000, 0.7500])
    """
    return _apply("hardsigmoid", input, inplace)


def leaky_relu(input, negative_slope=0.01, inplace=False):  # noqa: A002
    """``x`` where positive, ``negative_slope * x`` elsewhere.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.leaky_relu(gradtrack.tensor([-2.0, 0.0, 1.5]), 0.1)
    tensor([-0.2000,  0.0000,  1.5000])
    """
    return _apply("leaky_relu", input, inplace, negative_slope)


def leaky_relu_(input, negative_slope=0.01):  # noqa: A002
    """In-place :func:`leaky_relu` (its node saves the result: ``LeakyReluBackward1``).

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> x = gradtrack.tensor([-2.0, 0.0, 1.5])
    >>> F.leaky_relu_(x, 0.1)
    tensor([-0.2000,  0.0000,  1.5000])
    >>> x
    tensor([-0.2000,  0.0000,  1.5000])
    """
    return _apply("leaky_relu", input, True, negative_slope)


def elu(input, alpha=1.0, inplace=False):  # noqa: A002
    """``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.elu(gradtrack.tensor([-2.0, 0.0, 1.5]))
    tensor([-0.8647,  0.0000,  1.5000])
    """
    return _apply("elu", input, inplace, alpha, 1.0, 1.0)


def elu_(input, alpha=1.0):  # noqa: A002
    """In-place :func:`elu` (``EluBackward1``).

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> x = gradtrack.tensor([-2.0, 0.0, 1.5])
    >>> F.elu_(x)
    tensor([-0.8647,  0.0000,  1.5000])
    >>> x
    tensor([-0.8647,  0.0000,  1.5000])
    """
    return _apply("elu", input, True, alpha, 1.0, 1.0)


def selu(input, inplace=False):  # noqa: A002
    """``scale * elu(x, alpha)`` with the self-normalizing constants (``EluBackward0``).

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.selu(gradtrack.tensor([-2.0, 0.0, 1.5]))
    tensor([-1.5202,  0.0000,  1.5761])
    """
    return _apply("elu", input, inplace, _SELU_ALPHA, _SELU_SCALE, 1.0)


def selu_(input):  # noqa: A002
    """In-place :func:`selu`.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> x = gradtrack.tensor([-2.0, 0.0, 1.5])
    >>> F.selu_(x)
    tensor([-1.5202,  0.0000,  1.5761])
    >>> x
    tensor([-1.5202,  0.0000,  1.5761])
    """
    return _apply("elu", input, True, _SELU_ALPHA, _SELU_SCALE, 1.0)


def celu(input, alpha=1.0, inplace=False):  # noqa: A002
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.celu(gradtrack.tensor([-2.0, 0.0, 1.5]), alpha=0.5)
    tensor([-0.4908,  0.0000,  1.5000])
    """
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return _apply("celu", input, inplace, alpha, 1.0, 1.0 / alpha)


def celu_(input, alpha=1.0):  # noqa: A002
    """In-place :func:`celu`.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> x = gradtrack.tensor([-2.0, 0.0, 1.5])
    >>> F.celu_(x)
    tensor([-0.8647,  0.0000,  1.5000])
    >>> x
    tensor([-0.8647,  0.0000,  1.5000])
    """
    return celu(input, alpha, True)


def softplus(input, beta=1.0, threshold=20.0):  # noqa: A002
    """``log(1 + exp(beta * x)) / beta``, linear where ``beta * x > threshold``.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.softplus(gradtrack.tensor([-2.0, 0.0, 1.5]), beta=2.0)
    tensor([0.0091, 0.3466, 1.5243])
    """
    return _act(_KIND["softplus"], input, float(beta), float(threshold), 0.0)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):  # noqa: A002
    """``x`` clamped to ``[min_val, max_val]`` (``HardtanhBackward0``).

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.hardtanh(gradtrack.tensor([-2.0, 0.0, 1.5]), -1.0, 1.0)
    tensor([-1.,  0.,  1.])
    """
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if not input.dtype.is_floating_point:  # torch clamps integers, keeping their dtype
        lo, hi = int(min_val), int(max_val)
        return input.clamp_(lo, hi) if inplace else input.clamp(lo, hi)
    return _apply("hardtanh", input, inplace, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):  # noqa: A002
    """In-place :func:`hardtanh`.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> x = gradtrack.tensor([-2.0, 0.0, 1.5])
    >>> F.hardtanh_(x)
    tensor([-1.,  0.,  1.])
    >>> x
    tensor([-1.,  0.,  1.])
    """
    return hardtanh(input, min_val, max_val, True)


def relu6(input, inplace=False):  # noqa: A002
    """``min(max(x, 0), 6)``: hardtanh on ``[0, 6]``.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.relu6(gradtrack.tensor([-2.0, 0.0, 1.5]))
    tensor([0.0000, 0.0000, 1.5000])
    """
    return hardtanh(input, 0.0, 6.0, inplace)


def logsigmoid(input):  # noqa: A002
    """``log(sigmoid(x))``, computed without overflow.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.logsigmoid(gradtrack.tensor([-2.0, 0.0, 1.5]))
    tensor([-2.1269, -0.6931, -0.2014])
    """
    return _act(_KIND["log_sigmoid"], input, 0.0, 0.0, 0.0)


def softmin(input, dim=None, _stacklevel=3, dtype=None):  # noqa: A002
    """``softmax(-input, dim)``.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.softmin(gradtrack.tensor([[1.0, 2.0, 3.0]]), dim=1)
    tensor([[0.6652, 0.2447, 0.0900]])
    """
    if dim is None:
        dim = _implicit_dim("softmin", input.dim(), _stacklevel + 1)
    if dtype is not None:
        input = input.to(dtype)  # noqa: A001
    return _C.softmax(-input, dim)


# ---- normalization --------------------------------------------------------------------------

def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):  # noqa: A002
    """Normalizes over the trailing ``normalized_shape`` dims, then scales and shifts.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.layer_norm(gradtrack.tensor([[1.0, 3.0]]), [2])
    tensor([[-1.0000,  1.0000]])
    """
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    return _nn.layer_norm(input, list(normalized_shape), weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):  # noqa: A002
    """Normalizes each of ``num_groups`` channel groups of each sample.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> x = gradtrack.arange(8.).reshape(1, 4, 2)
    >>> F.group_norm(x, 2)[0, 0]
    tensor([-1.3416, -0.4472])
    """
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{input.dim()}")
    channels = input.shape[1]
    if num_groups <= 0 or channels % num_groups:
        raise RuntimeError("Expected number of channels in input to be divisible by num_groups, "
                           f"but got input of shape {list(input.shape)} and "
                           f"num_groups={num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.dim() != 1 or t.numel() != channels):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of "
                               f"channels in input, but got {name} of shape {list(t.shape)} and "
                               f"input of shape {list(input.shape)}")
    return _nn.group_norm(input, num_groups, weight, bias, eps)


def _verify_batch_size(shape):
    size = shape[0]
    for s in shape[2:]:
        size *= s
    if size == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                         f"{shape}")


def batch_norm(input, running_mean, running_var, weight=None, bias=None,  # noqa: A002
               training=False, momentum=0.1, eps=1e-5):
    """Normalizes each channel (dim 1) by the batch's statistics (``training``) or the
    running ones, which training updates in place.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> x = gradtrack.tensor([[1.0, 2.0], [3.0, 6.0]])
    >>> F.batch_norm(x, None, None, training=True)
    tensor([[-1.0000, -1.0000],
            [ 1.0000,  1.0000]])
    """
    if training:
        _verify_batch_size(input.size())
    elif running_mean is None or running_var is None:
        raise RuntimeError("running_mean must be defined in evaluation mode")
    channels = input.shape[1] if input.dim() > 1 else 1
    for name, t in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):
        if t is not None and t.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {t.numel()}")
    return _nn.batch_norm(input, weight, bias, running_mean, running_var, training,
                          momentum, eps)


# ---- dropout and embedding --------------------------------------------------------------------

def dropout(input, p=0.5, training=True, inplace=False):  # noqa: A002
    """Zeroes each element with probability ``p`` and scales the rest by ``1 / (1 - p)``.

    As torch: the input itself when ``p == 0`` or not training; otherwise ``input * noise``
    (``MulBackward0``), the noise drawn as ``bernoulli_(1 - p)`` divided by ``1 - p``.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.dropout(gradtrack.ones(3), 0.5, training=False)
    tensor([1., 1., 1.])
    """
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        noise = _C.zeros((), dtype=input.dtype)
    else:
        noise = _dropout_noise(input, float(p))
    return input.mul_(noise) if inplace else input * noise


def _dropout_noise(input, p):  # noqa: A002
    """The mask drawn in ``input``'s memory order: torch draws into ``empty_like(input)``,
    which keeps a transposed/permuted input's layout, so its draws follow the strides."""
    if input.is_contiguous():
        return _nn.dropout_noise(input, p)
    strides = input.stride()
    order = sorted(range(input.dim()), key=lambda d: -strides[d])
    inverse = sorted(range(input.dim()), key=lambda d: order[d])
    return _nn.dropout_noise(input.permute(order), p).permute(inverse)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,  # noqa: A002
              scale_grad_by_freq=False, sparse=False):
    """Rows of ``weight`` picked by the indices ``input`` (``EmbeddingBackward0``).

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.embedding(gradtrack.tensor([1]), gradtrack.tensor([[0.0, 1.0], [2.0, 3.0]]))
    tensor([[2., 3.]])
    """
    if sparse:
        raise NotImplementedError("gradtrack: embedding with sparse gradients is not supported "
                                  "yet (gradtrack has no sparse tensors)")
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < weight.size(0), "Padding_idx must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -weight.size(0), "Padding_idx must be within num_embeddings"
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        input = input.contiguous()  # noqa: A001
        from ..autograd.grad_mode import no_grad
        with no_grad():
            _nn.embedding_renorm_(weight, input, float(max_norm), float(norm_type))
    return _nn.embedding(weight, input, padding_idx, bool(scale_grad_by_freq))


# ---- losses -------------------------------------------------------------------------------------

def _reduction(size_average, reduce, reduction):
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    return _reduction_enum(reduction)


def _size_warning(input, target):  # noqa: A002
    if target.size() != input.size():
        warnings.warn(f"Using a target size ({target.size()}) that is different to the input size "
                      f"({input.size()}). This will likely lead to incorrect results due to "
                      "broadcasting. Please ensure they have the same size.",
                      stacklevel=warn_level(3))


@runs_in_float32
def binary_cross_entropy(input, target, weight=None, size_average=None,  # noqa: A002
                         reduce=None, reduction="mean"):
    """``-w * (t * log(x) + (1 - t) * log(1 - x))``, the logs clamped at -100.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.binary_cross_entropy(gradtrack.tensor([0.5]), gradtrack.tensor([1.0]))
    tensor(0.6931)
    """
    _no_grad_for(weight, "weight", "binary_cross_entropy")
    enum = _reduction(size_average, reduce, reduction)
    if target.size() != input.size():
        raise ValueError(f"Using a target size ({target.size()}) that is different to the input "
                         f"size ({input.size()}) is deprecated. Please ensure they have the same "
                         "size.")
    if weight is not None and weight.shape != input.shape:
        weight = weight.expand(input.shape)
    return _nn.binary_cross_entropy(input, target, weight, enum)


@runs_in_float32
def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None,  # noqa: A002
                                     reduce=None, reduction="mean", pos_weight=None):
    """Binary cross entropy of ``sigmoid(input)``, computed stably from the logits;
    ``pos_weight`` weighs the positive term per class.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> x = gradtrack.tensor([0.5, 2.0, -1.0])
    >>> y = gradtrack.tensor([0.0, 1.0, 1.0])
    >>> F.binary_cross_entropy_with_logits(x, y)
    tensor(0.8048)
    """
    _no_grad_for(weight, "weight", "binary_cross_entropy_with_logits")
    _no_grad_for(pos_weight, "pos_weight", "binary_cross_entropy_with_logits")
    enum = _reduction(size_average, reduce, reduction)
    if target.size() != input.size():
        raise ValueError(f"Target size ({target.size()}) must be the same as input size "
                         f"({input.size()})")
    return _nn.binary_cross_entropy_with_logits(input, target, weight, pos_weight, enum)


def _weighted(loss, weight, reduction, mean_by_weight):
    """torch's weighted forms: ``loss * weight`` reduced, the mean of l1_loss by the weights'
    sum, the mean of huber_loss by the element count."""
    if weight.size() != loss.size():
        raise ValueError("Weights and input must have the same size.")
    loss = loss * weight
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        return loss.sum() / weight.sum() if mean_by_weight else loss.mean()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', "
                     "'sum'.")


@runs_in_float32
def l1_loss(input, target, size_average=None, reduce=None, reduction="mean",  # noqa: A002
            weight=None):
    """Mean absolute error; as torch, ``(input - target).abs()`` then the reduction.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> x = gradtrack.tensor([0.5, 2.0, -1.0])
    >>> y = gradtrack.tensor([0.0, 1.0, 1.0])
    >>> F.l1_loss(x, y, reduction='sum')
    tensor(3.5000)
    """
    _size_warning(input, target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    input, target = _broadcast_pair(input, target)  # noqa: A001
    if weight is not None:
        return _weighted((input - target).abs(), weight, reduction, True)
    enum = _reduction(None, None, reduction)
    loss = (input - target).abs()
    return loss if enum == 0 else loss.sum() if enum == 2 else loss.mean()


@runs_in_float32
def smooth_l1_loss(input, target, size_average=None, reduce=None,  # noqa: A002
                   reduction="mean", beta=1.0):
    """Quadratic below ``beta``, linear above (``SmoothL1LossBackward0``).

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> x = gradtrack.tensor([0.5, 2.0, -1.0])
    >>> y = gradtrack.tensor([0.0, 1.0, 1.0])
    >>> F.smooth_l1_loss(x, y)
    tensor(0.7083)
    """
    _size_warning(input, target)
    enum = _reduction(size_average, reduce, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    input, target = _broadcast_pair(input, target)  # noqa: A001
    if beta == 0.0:  # as torch: the l1 loss itself (MeanBackward0, ...)
        loss = (input - target).abs()
        return loss if enum == 0 else loss.sum() if enum == 2 else loss.mean()
    return _nn.smooth_l1_loss(input, target, enum, float(beta))


@runs_in_float32
def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):  # noqa: A002
    """Quadratic below ``delta``, ``delta``-scaled linear above (``HuberLossBackward0``).

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> x = gradtrack.tensor([0.5, 2.0, -1.0])
    >>> y = gradtrack.tensor([0.0, 1.0, 1.0])
    >>> F.huber_loss(x, y, delta=0.5)
    tensor(0.4583)
    """
    _size_warning(input, target)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    input, target = _broadcast_pair(input, target)  # noqa: A001
    if weight is not None:
        return _weighted(_nn.huber_loss(input, target, 0, float(delta)), weight, reduction, False)
    enum = _reduction(None, None, reduction)
    return _nn.huber_loss(input, target, enum, float(delta))


@runs_in_float32
def kl_div(input, target, size_average=None, reduce=None, reduction="mean",  # noqa: A002
           log_target=False):
    """KL divergence ``target * (log(target) - input)`` with ``input`` a log-probability
    (``log_target=True``: ``target`` one too); ``'batchmean'`` divides by the batch size.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> log_q = gradtrack.tensor([[0.25, 0.75]]).log()
    >>> F.kl_div(log_q, gradtrack.tensor([[0.5, 0.5]]), reduction="batchmean")
    tensor(0.1438)
    """
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    elif reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the "
                      "support size.'batchmean' divides only by the batch size, and aligns with "
                      "the KL div math definition.'mean' will be changed to behave the same as "
                      "'batchmean' in the next major release.", stacklevel=warn_level(2))
    enum = 1 if reduction == "batchmean" else _reduction(None, None, reduction)
    if log_target:
        loss = target.exp() * (target - input)
    else:
        # xlogy(t, t): 0 where t == 0, as torch.
        safe = target.masked_fill(target == 0, 1.0)
        loss = target * safe.log() - target * input
    if enum == 0:
        return loss
    if reduction == "batchmean":
        return loss.sum() / input.size(0) if input.dim() != 0 else loss.sum()
    return loss.sum() if enum == 2 else loss.mean()


def _bag_offsets(input, offsets, include_last_offset):  # noqa: A002
    """(flat indices, the bag of each index, the number of bags) of embedding_bag's input."""
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences. However, found offsets "
                             f"of type {type(offsets)}")
        bags, length = input.shape
        return input.reshape(-1), [b for b in range(bags) for _ in range(length)], bags
    if input.dim() != 1:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.dim()}")
    if offsets is None:
        raise ValueError("offsets has to be a 1D Tensor but got None")
    if offsets.dim() != 1:
        raise ValueError("offsets has to be a 1D Tensor")
    starts = [int(v) for v in offsets.tolist()]
    n = input.numel()
    if starts and starts[0] != 0:
        raise RuntimeError(f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch "
                           f"has to start from position 0. However, got {starts[0]}\n"
                           "[ gradtrack.LongTensor{} ]")
    if starts and starts[-1] > n:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {n} but got "
                           f"offsets[-1] of {starts[-1]}")
    bags = len(starts) - 1 if include_last_offset else len(starts)
    ends = starts[1:] + ([] if include_last_offset else [n])
    owner = [0] * n
    for b in range(bags):
        for i in range(starts[b], min(ends[b], n)):
            owner[i] = b
    if include_last_offset and starts:
        owner = owner[:starts[-1]]
        input = input[:starts[-1]]  # noqa: A001
    return input, owner, bags


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,  # noqa: A002
                  scale_grad_by_freq=False, mode="mean", sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=None):
    """Sums or averages the embeddings of each bag (rows of a 2-D ``input``, or the stretches
    of a 1-D ``input`` that ``offsets`` start); an empty bag gives zeros. The result records
    torch's ``EmbeddingBagBackward0`` (one node over the composition: NOTE [Named composite
    nodes]); values and gradients are torch's.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> w = gradtrack.tensor([[1.0], [2.0], [4.0]])
    >>> F.embedding_bag(gradtrack.tensor([0, 1, 2]), w, gradtrack.tensor([0, 2]), mode="sum")
    tensor([[3.],
            [4.]])
    """
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. "
                                  f"per_sample_weights is only supported for mode='sum' (got "
                                  f"mode='{mode}'). Please open a feature request on GitHub.")
    if max_norm is not None:
        # renormalizes weight's rows in place first (as torch's embedding_renorm_), so the
        # bags are computed from the renormalized weight
        embedding(input.reshape(-1), weight, None, max_norm, norm_type)
    rest = (input, offsets, scale_grad_by_freq, mode, include_last_offset, padding_idx)
    if per_sample_weights is not None:
        return _bag_node_weighted(weight, per_sample_weights, *rest)
    return _bag_node(weight, *rest)


def _bag_compute(weight, input, offsets, scale_grad_by_freq, mode,  # noqa: A002
                 include_last_offset, padding_idx, per_sample_weights=None):
    flat, owner, bags = _bag_offsets(input, offsets, include_last_offset)
    pad = _padding_for(padding_idx, weight.size(0))
    rows = embedding(flat, weight, None, None, 2, scale_grad_by_freq)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.reshape(-1)[:len(owner)].unsqueeze(1).to(rows.dtype)
    keep = [pad is None or int(i) != pad for i in flat.tolist()]
    if not all(keep):
        # the padding rows are left out, not multiplied by 0 (a NaN or inf there is no NaN
        # in its bag, as torch's)
        rows = _C.where(_C.tensor(keep, dtype=_C.bool).unsqueeze(1), rows,
                        _C.zeros((), dtype=rows.dtype))
    dim = weight.size(1)
    if mode == "max":
        return _bag_max(rows, owner, keep, bags, dim)
    index = _C.tensor(owner, dtype=_C.int64).unsqueeze(1).expand(len(owner), dim)
    out = _C.zeros(bags, dim, dtype=weight.dtype).scatter_add(0, index, rows)
    if mode == "sum":
        return out
    counts = [0] * bags
    for b, k in zip(owner, keep):
        counts[b] += k
    return out / _C.tensor([max(c, 1) for c in counts], dtype=weight.dtype).unsqueeze(1)


def _bag_compute_weighted(weight, per_sample_weights, *rest):
    return _bag_compute(weight, *rest, per_sample_weights=per_sample_weights)


# torch's embedding_bag records EmbeddingBagBackward0 for the weight (and the per-sample
# weights): one named node over the composition (NOTE [Named composite nodes]); torch's
# _embedding_bag has no forward-mode derivative
_bag_node = composite_node("EmbeddingBagBackward0", _bag_compute, no_forward_ad="_embedding_bag")
_bag_node_weighted = composite_node("EmbeddingBagBackward0", _bag_compute_weighted,
                                    differentiable=2, no_forward_ad="_embedding_bag")


def _bag_max(rows, owner, keep, bags, dim):
    """Each bag's elementwise maximum (the first greatest row takes the gradient, as
    torch's); an empty bag (or one of padding only) gives zeros."""
    members = [[] for _ in range(bags)]
    for i, (b, k) in enumerate(zip(owner, keep)):
        if k:
            members[b].append(i)
    width = max([len(m) for m in members] + [1])
    filler = len(owner)  # a row of -inf after the real ones
    table = [m + [filler] * (width - len(m)) for m in members]
    padded = _C.cat([rows, _C.full((1, dim), float("-inf"), dtype=rows.dtype)])
    picked = padded.index_select(0, _C.tensor(table, dtype=_C.int64).reshape(-1))
    best = picked.reshape(bags, width, dim).max(1)[0]
    empty = _C.tensor([not m for m in members], dtype=_C.bool).unsqueeze(1)
    return _C.where(empty, _C.zeros((), dtype=rows.dtype), best)


def _padding_for(padding_idx, rows):
    if padding_idx is None:
        return None
    return padding_idx + rows if padding_idx < 0 else padding_idx
