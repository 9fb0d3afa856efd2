"""``nn.functional``: the stateless functions behind the layers and losses.

Each function validates its arguments the way PyTorch does (same exception
types and words) and then makes one call into the C++ core, which records the
grad_fn PyTorch records (``AddmmBackward0``, ``MseLossBackward0``,
``NllLossBackward0`` after ``LogSoftmaxBackward0``, ...).

>>> import gradtrack
>>> import gradtrack.nn.functional as F
>>> logits = gradtrack.tensor([[2.0, 0.5, -1.0]], requires_grad=True)
>>> loss = F.cross_entropy(logits, gradtrack.tensor([0]))
>>> loss.grad_fn.name(), loss.grad_fn.next_functions[0][0].name()
('NllLossBackward0', 'LogSoftmaxBackward0')
"""

import warnings

from .. import _batched_tensor as _batched
from .. import _C
from .._autocast import runs_in_float32, warn_level
from ._arguments import (  # noqa: F401 - _legacy_reduction: nn/modules/loss.py reads it here
    _broadcast_pair, _implicit_dim, _legacy_reduction, _reduction_enum,
)

_Tensor = _C.Tensor
_int64 = _C.int64
_c_linear = _C._nn.linear
_BatchedTensor = _batched.BatchedTensor
_c_log_softmax = _C.log_softmax
_c_softmax = _C.softmax
_c_nll_loss = _C._nn.nll_loss
_c_nll_loss2d = _C._nn.nll_loss2d
_c_mse_loss = _C._nn.mse_loss

_SCALAR_TYPE = {"float32": "Float", "float64": "Double", "int64": "Long", "int32": "Int",
                "uint8": "Byte", "bool": "Bool",
                "float16": "Half", "bfloat16": "BFloat16", "int8": "Char", "int16": "Short"}

__all__ = ["linear", "relu", "relu_", "sigmoid", "tanh", "softmax", "log_softmax", "mse_loss",
           "cross_entropy", "nll_loss"]


# ---- layers and activations ---------------------------------------------------------------

def linear(input, weight, bias=None):  # noqa: A002 - PyTorch's argument names
    """``input @ weight.T + bias``.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.linear(gradtrack.ones(1, 2), gradtrack.ones(3, 2), gradtrack.zeros(3))
    tensor([[2., 2., 2.]])
    """
    # NOTE [vmap batching rules]: checked before the core is called, whose TypeError
    # would spell out the other (possibly large) tensors
    if type(input) is _BatchedTensor or type(weight) is _BatchedTensor:
        return _batched.apply("linear", input, weight, bias)
    try:
        return _c_linear(input, weight, bias)
    except TypeError:  # a batched bias
        return _batched.call("linear", input, weight, bias)


def relu(input, inplace=False):  # noqa: A002
    """``max(input, 0)``; with ``inplace=True`` writes ``input`` (``relu_``).

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.relu(gradtrack.tensor([-2.0, 0.0, 1.5]))
    tensor([0.0000, 0.0000, 1.5000])
    """
    try:
        return input.relu_() if inplace else _C.relu(input)
    except TypeError:  # NOTE [vmap batching rules]
        return _batched.call("relu", input)


def relu_(input):  # noqa: A002
    """In-place :func:`relu`.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> x = gradtrack.tensor([-2.0, 0.0, 1.5])
    >>> F.relu_(x)
    tensor([0.0000, 0.0000, 1.5000])
    >>> x
    tensor([0.0000, 0.0000, 1.5000])
    """
    return input.relu_()


def sigmoid(input):  # noqa: A002
    """``1 / (1 + exp(-input))``.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.sigmoid(gradtrack.tensor([-2.0, 0.0, 1.5]))
    tensor([0.1192, 0.5000, 0.8176])
    """
    try:
        return _C.sigmoid(input)
    except TypeError:  # NOTE [vmap batching rules]
        return _batched.call("sigmoid", input)


def tanh(input):  # noqa: A002
    """Hyperbolic tangent.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.tanh(gradtrack.tensor([-2.0, 0.0, 1.5]))
    tensor([-0.9640,  0.0000,  0.9051])
    """
    try:
        return _C.tanh(input)
    except TypeError:  # NOTE [vmap batching rules]
        return _batched.call("tanh", input)


def softmax(input, dim=None, _stacklevel=3, dtype=None):  # noqa: A002
    """``exp(input) / exp(input).sum(dim)``, computed stably.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.softmax(gradtrack.zeros(1, 2), dim=1)
    tensor([[0.5000, 0.5000]])
    """
    if dim is None:
        dim = _implicit_dim("softmax", input.dim(), _stacklevel)
    if dtype is not None:
        input = input.to(dtype)
    try:
        return _c_softmax(input, dim)
    except TypeError:  # NOTE [vmap batching rules]
        return _batched.call("softmax", input, dim)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):  # noqa: A002
    """``log(softmax(input, dim))``, computed stably.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.log_softmax(gradtrack.tensor([[0.0, 0.0]]), dim=1)
    tensor([[-0.6931, -0.6931]])
    """
    if dim is None:
        dim = _implicit_dim("log_softmax", input.dim(), _stacklevel)
    if dtype is not None:
        input = input.to(dtype)
    try:
        return _c_log_softmax(input, dim)
    except TypeError:  # NOTE [vmap batching rules]
        return _batched.call("log_softmax", input, dim)


# ---- losses --------------------------------------------------------------------------------

@runs_in_float32
def mse_loss(input, target, size_average=None, reduce=None,  # noqa: A002
             reduction="mean", weight=None):
    """Mean squared error ``(input - target) ** 2``, reduced.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.mse_loss(gradtrack.tensor([1.0, 2.0]), gradtrack.tensor([1.0, 4.0]))
    tensor(2.)
    """
    if target.size() != input.size():
        warnings.warn(f"Using a target size ({target.size()}) that is different to the input size "
                      f"({input.size()}). This will likely lead to incorrect results due to "
                      "broadcasting. Please ensure they have the same size.",
                      stacklevel=warn_level(2))
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    # As PyTorch: both broadcast first (an expanded operand is an ExpandBackward0 view, and
    # dtypes promote as between two tensors of the result's shape).
    input, target = _broadcast_pair(input, target)  # noqa: A001
    if weight is not None:
        return _weighted_mse(input, target, reduction, weight)
    if type(input) is _BatchedTensor or type(target) is _BatchedTensor:
        return _batched.apply("mse_loss", input, target, reduction=reduction)
    return _c_mse_loss(input, target, _reduction_enum(reduction))


def _weighted_mse(input, target, reduction, weight):  # noqa: A002
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    weighted = (input - target).pow(2) * weight
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return weighted.sum()
    if reduction == "mean":
        return weighted.sum() / weight.sum()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', "
                     "'sum'.")


@runs_in_float32
def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100,  # noqa: A002
             reduce=None, reduction="mean"):
    """Negative log-likelihood of class indices ``target`` under log-probabilities ``input``.

    ``input`` is ``(C,)``, ``(N, C)`` or ``(N, C, d1, ...)``; ``target`` holds class
    indices (int64 or uint8); entries equal to ``ignore_index`` do not count.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.nll_loss(gradtrack.tensor([[-1.0, -2.0]]), gradtrack.tensor([1]))
    tensor(2.)
    """
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    return _nll(input, target, weight, _reduction_enum(reduction), ignore_index)


def _nll(input, target, weight, reduction, ignore_index):  # noqa: A002
    ndim = input.dim()
    _no_grad_for(weight, "weight", "nll_loss_forward" if ndim < 3 else "nll_loss2d_forward")
    if weight is not None and weight.dtype is not input.dtype:
        raise RuntimeError(f"expected scalar type {_scalar_type(input)} but found "
                           f"{_scalar_type(weight)}")
    if ndim == 2 or ndim == 1:
        return _c_nll_loss(input, target, weight, reduction, ignore_index)
    if ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {ndim})")
    return _nll_spatial(input, target, weight, reduction, ignore_index)


def _nll_spatial(input, target, weight, reduction, ignore_index):  # noqa: A002
    # (N, C, d1, ...): move the class dim last, flatten to (N*d1*..., C), and
    # fold the per-element losses back when reduction='none'. The gradient
    # flows through the permute/reshape views.
    n, c = input.shape[0], input.shape[1]
    if n != target.shape[0]:
        raise ValueError(f"Expected input batch_size ({n}) to match target batch_size "
                         f"({target.shape[0]}).")
    expected = [n] + list(input.shape[2:])
    if list(target.shape) != expected:
        raise RuntimeError(f"Expected target size {expected}, got {list(target.shape)}")
    # torch's node for every spatial shape is NllLoss2DBackward0 over (N, C, H, W): 3-D
    # input is viewed as (N, C, d, 1) and 5-D or more as (N, C, 1, -1), the losses of
    # reduction='none' viewed back.
    if input.dim() == 4:
        return _c_nll_loss2d(input, target, weight, reduction, ignore_index)
    if input.dim() == 3:
        d = input.shape[2]
        planes, target_planes = input.reshape(n, c, d, 1), target.reshape(n, d, 1)
    else:
        planes, target_planes = input.reshape(n, c, 1, -1), target.reshape(n, 1, -1)
    out = _c_nll_loss2d(planes, target_planes, weight, reduction, ignore_index)
    return out.reshape(expected) if reduction == 0 else out


def _scalar_type(t):
    return _SCALAR_TYPE[repr(t.dtype).split(".", 1)[1]]


@runs_in_float32
def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,  # noqa: A002
                  reduce=None, reduction="mean", label_smoothing=0.0):
    """``nll_loss(log_softmax(input, class_dim), target)``.

    ``target`` holds class indices (the grad_fn chain is then
    ``NllLossBackward0 -> LogSoftmaxBackward0``) or, with a floating dtype and
    ``input``'s shape, class probabilities.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.cross_entropy(gradtrack.zeros(2, 4), gradtrack.tensor([0, 3]))
    tensor(1.3863)
    """
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    enum = _reduction_enum(reduction)
    ndim = input.dim()
    class_dim = 0 if ndim == 1 else 1
    if target.dtype is not _int64 and target.dtype.is_floating_point \
            and target.shape == input.shape:
        return _soft_cross_entropy(input, target, weight, enum, label_smoothing, class_dim)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    try:
        logp = _c_log_softmax(input, class_dim)
    except TypeError:  # NOTE [vmap batching rules]
        return _batched.call("cross_entropy", input, target, weight, ignore_index=ignore_index,
                             reduction=reduction, label_smoothing=label_smoothing)
    if weight is None and ndim == 2:  # the training-loop case: straight to C++
        loss = _c_nll_loss(logp, target, None, enum, ignore_index)
    else:
        loss = _nll(logp, target, weight, enum, ignore_index)
    if label_smoothing > 0.0:
        smooth = _smoothing_term(logp, target, weight, enum, ignore_index, class_dim)
        # Scalar products (MulBackward1), as torch's C++ composition.
        scale = _C._ops.mul_by_scalar
        loss = scale(loss, 1 - label_smoothing) + \
            scale(smooth, label_smoothing / input.shape[class_dim])
    return loss


def _class_shape(logp, class_dim):
    shape = [1] * logp.dim()
    shape[class_dim] = logp.shape[class_dim]
    return shape


def _smoothing_term(logp, target, weight, reduction, ignore_index, class_dim):
    """The uniform-target part of label smoothing, as PyTorch computes it."""
    if weight is not None:
        smooth = -(logp * weight.reshape(_class_shape(logp, class_dim))).sum(class_dim)
    else:
        smooth = -logp.sum(class_dim)
    ignored = target == ignore_index
    smooth = smooth.masked_fill(ignored, 0.0)
    if reduction == 0:
        return smooth
    if reduction == 2:
        return smooth.sum()
    kept = ignored.logical_not()
    if weight is not None:
        return smooth.sum() / weight.index_select(0, target[kept].flatten()).sum()
    return smooth.sum() / kept.sum()


def _soft_cross_entropy(input, target, weight, reduction, label_smoothing, class_dim):  # noqa: A002
    """Cross entropy against class probabilities (a target shaped like ``input``)."""
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    n_classes = input.shape[class_dim]
    if label_smoothing > 0.0:
        target = target * (1 - label_smoothing) + label_smoothing / n_classes
    logp = _c_log_softmax(input, class_dim)
    if weight is not None:
        logp = logp * weight.reshape(_class_shape(logp, class_dim))
    # torch's order: sum, then negate, then (mean) divide by the batch count as a number.
    if reduction == 0:
        return -(logp * target).sum(class_dim)
    total = -(logp * target).sum()
    if reduction == 2:
        return total
    return _C._ops.div_by_scalar(total, input.numel() // n_classes)


# ---- convolution and pooling (_conv_functional.py) ----------------------------------------
from ._conv_functional import (  # noqa: E402,F401 - re-exported
    adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_max_pool2d,
    adaptive_max_pool2d_with_indices, avg_pool1d, avg_pool2d, conv1d, conv2d, conv_transpose2d,
    max_pool1d, max_pool1d_with_indices, max_pool2d, max_pool2d_with_indices,
)

__all__ += ["conv1d", "conv2d", "conv_transpose2d", "max_pool1d", "max_pool2d",
            "max_pool1d_with_indices", "max_pool2d_with_indices", "avg_pool1d", "avg_pool2d",
            "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_max_pool2d",
            "adaptive_max_pool2d_with_indices"]
# ---- nn layers: activations, norms, dropout, embedding, more losses ------------------------
from ._functional_layers import _no_grad_for  # noqa: E402
from ._functional_layers import (binary_cross_entropy, binary_cross_entropy_with_logits,  # noqa: E402,I001
                                 batch_norm, celu, celu_, dropout, elu, elu_, embedding,
                                 embedding_bag, gelu,
                                 group_norm, hardswish, hardtanh, hardtanh_, huber_loss, kl_div,
                                 l1_loss, layer_norm, leaky_relu, leaky_relu_, logsigmoid, mish,
                                 relu6, selu, selu_, silu, smooth_l1_loss, softmin, softplus)

__all__ += ["gelu", "silu", "mish", "hardswish", "leaky_relu", "leaky_relu_", "elu", "elu_",
            "selu", "selu_", "celu", "celu_", "softplus", "hardtanh", "hardtanh_", "relu6",
            "logsigmoid", "softmin", "layer_norm", "group_norm", "batch_norm", "dropout",
            "embedding", "embedding_bag", "binary_cross_entropy", "binary_cross_entropy_with_logits", "l1_loss",
            "smooth_l1_loss", "huber_loss", "kl_div"]
# ---- tensor ops that torch lists in nn.functional too ---------------------------------------
from .._ops.nn import cosine_similarity, one_hot  # noqa: E402,F401

__all__ += ["cosine_similarity"]
# ---- attention ----------------------------------------------------------------------------
from ._attention_functional import (  # noqa: E402,F401 - re-exported
    _canonical_mask, _in_projection, _in_projection_packed, _mha_shape_check, _none_or_dtype,
    multi_head_attention_forward, scaled_dot_product_attention,
)

__all__ += ["scaled_dot_product_attention", "multi_head_attention_forward"]
# ---- padding and interpolation ------------------------------------------------------------
from ._resample import (interpolate, pad, upsample, upsample_bilinear,  # noqa: E402,F401
                        upsample_nearest)

__all__ += ["pad", "interpolate", "upsample", "upsample_nearest", "upsample_bilinear"]
# ---- activations, dropouts, norms, distances, rearrangements and losses built from ops ------
from ._functional_activations import (glu, hardshrink, prelu, softshrink, softsign,  # noqa: E402
                                      tanhshrink, threshold, threshold_)
from ._functional_distance import bilinear, pairwise_distance, pdist  # noqa: E402
from ._functional_dropout import (alpha_dropout, dropout1d, dropout2d, dropout3d,  # noqa: E402
                                  feature_alpha_dropout)
from ._functional_losses import (cosine_embedding_loss, gaussian_nll_loss,  # noqa: E402
                                 hinge_embedding_loss, margin_ranking_loss,
                                 multi_margin_loss, multilabel_margin_loss,
                                 multilabel_soft_margin_loss, poisson_nll_loss,
                                 soft_margin_loss, triplet_margin_loss,
                                 triplet_margin_with_distance_loss)
from ._functional_norms import (instance_norm, local_response_norm, normalize,  # noqa: E402
                                rms_norm)
from ._conv_functional import conv3d, conv_transpose1d, conv_transpose3d  # noqa: E402
from ._functional_pooling import (adaptive_max_pool1d,  # noqa: E402
                                  adaptive_max_pool1d_with_indices, lp_pool1d, lp_pool2d)
from ._functional_shuffle import (channel_shuffle, native_channel_shuffle,  # noqa: E402
                                  pixel_shuffle, pixel_unshuffle)

__all__ += ["glu", "hardshrink", "prelu", "softshrink", "softsign", "tanhshrink", "threshold",
            "threshold_", "bilinear", "pairwise_distance", "pdist", "alpha_dropout", "dropout1d",
            "dropout2d", "dropout3d", "feature_alpha_dropout", "cosine_embedding_loss",
            "gaussian_nll_loss", "hinge_embedding_loss", "margin_ranking_loss",
            "multi_margin_loss", "multilabel_margin_loss", "multilabel_soft_margin_loss",
            "poisson_nll_loss", "soft_margin_loss", "triplet_margin_loss",
            "triplet_margin_with_distance_loss", "instance_norm", "local_response_norm",
            "normalize", "rms_norm", "channel_shuffle", "native_channel_shuffle", "pixel_shuffle",
            "pixel_unshuffle", "conv_transpose1d", "conv3d", "conv_transpose3d",
            "adaptive_max_pool1d",
            "adaptive_max_pool1d_with_indices", "lp_pool1d", "lp_pool2d"]
# ---- volumetric convolutions, sliding blocks, unpooling, random activations ------------------
from ._functional_ctc import ctc_loss  # noqa: E402
from ._functional_grid import affine_grid, grid_sample  # noqa: E402
from ._functional_layers import hardsigmoid  # noqa: E402
from ._functional_pooling3d import (adaptive_avg_pool3d, adaptive_max_pool3d,  # noqa: E402
                                    adaptive_max_pool3d_with_indices, avg_pool3d, lp_pool3d,
                                    max_pool3d, max_pool3d_with_indices)
from ._functional_stochastic import gumbel_softmax, rrelu, rrelu_  # noqa: E402
from ._functional_unfold import fold, unfold  # noqa: E402
from ._functional_unpool import max_unpool1d, max_unpool2d, max_unpool3d  # noqa: E402

__all__ += ["hardsigmoid", "rrelu", "rrelu_", "gumbel_softmax", "unfold", "fold", "max_unpool1d",
            "max_unpool2d", "max_unpool3d", "affine_grid", "grid_sample", "ctc_loss", "max_pool3d",
            "max_pool3d_with_indices", "avg_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool3d",
            "adaptive_max_pool3d_with_indices", "lp_pool3d"]
# ---- fractional max pooling -------------------------------------------------------------------
from ._functional_fractional import (fractional_max_pool2d,  # noqa: E402
                                     fractional_max_pool2d_with_indices, fractional_max_pool3d,
                                     fractional_max_pool3d_with_indices)

__all__ += ["fractional_max_pool2d", "fractional_max_pool2d_with_indices",
            "fractional_max_pool3d", "fractional_max_pool3d_with_indices"]
# ---- time-batch-channel convolution, argument helpers, grid_sample's mode tables -------------
from ._arguments import assert_int_or_pair, boolean_dispatch  # noqa: E402
from ._conv_functional import conv_tbc  # noqa: E402

# grid_sample's modes and the numbers its kernel knows them by (torch's tables).
GRID_SAMPLE_INTERPOLATION_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
GRID_SAMPLE_PADDING_MODES = {"zeros": 0, "border": 1, "reflection": 2}

__all__ += ["conv_tbc", "assert_int_or_pair", "boolean_dispatch",
            "GRID_SAMPLE_INTERPOLATION_MODES", "GRID_SAMPLE_PADDING_MODES"]
# ---- a linear layer scored by cross entropy ---------------------------------------------------
from ._functional_linear_cross_entropy import linear_cross_entropy  # noqa: E402

__all__ += ["linear_cross_entropy"]
# ---- torch's functional module carries torch.nn.grad as an attribute ---------------------------
from . import grad  # noqa: E402,F401
