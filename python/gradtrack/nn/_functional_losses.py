"""``nn.functional``'s embedding, ranking and margin losses and the Poisson and Gaussian
negative log-likelihoods.

torch composes most of them from other ops (the result's node is that of the last op,
``MeanBackward0`` for the default reduction); so does this module, in torch's order. The
three with a kernel of their own (``soft_margin_loss``, ``multi_margin_loss``,
``multilabel_margin_loss``) are one node named as torch's (NOTE [Named composite nodes]).

>>> import gradtrack
>>> import gradtrack.nn.functional as F
>>> F.margin_ranking_loss(gradtrack.tensor([1.0, 2.0]), gradtrack.tensor([2.0, 0.0]),
...                       gradtrack.tensor([1.0, 1.0]))
tensor(0.5000)
"""

import math

from .. import _C
from .._autocast import runs_in_float32
from ._arguments import _legacy_reduction, _reduction_enum
from ._functional_distance import pairwise_distance
from ._functional_layers import logsigmoid
from ..autograd._named_nodes import composite_node

__all__ = ["cosine_embedding_loss", "margin_ranking_loss", "hinge_embedding_loss",
           "poisson_nll_loss", "gaussian_nll_loss", "multi_margin_loss", "soft_margin_loss",
           "multilabel_soft_margin_loss", "triplet_margin_loss",
           "triplet_margin_with_distance_loss", "multilabel_margin_loss"]


def _zeros_like(t, dtype=None):
    return _C.zeros(tuple(t.shape), dtype=t.dtype if dtype is None else dtype)


def _enum(size_average, reduce, reduction):
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    return _reduction_enum(reduction)


def _reduce(loss, enum):
    if enum == 1:
        return loss.mean()
    if enum == 2:
        return loss.sum()
    return loss


@runs_in_float32
def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                          reduction="mean"):
    """``1 - cos(x1, x2)`` where ``target == 1``, ``max(0, cos(x1, x2) - margin)`` where
    ``target == -1``.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.cosine_embedding_loss(gradtrack.tensor([[1.0, 0.0]]), gradtrack.tensor([[0.0, 1.0]]),
    ...                         gradtrack.tensor([1.0]))
    tensor(1.)
    """
    enum = _enum(size_average, reduce, reduction)
    dim = target.dim()
    if dim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if dim == 1 and (input1.dim() != 2 or input2.dim() != 2):
        raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with "
                           f"sizes {list(input1.shape)} and {list(input2.shape)}.")
    if dim == 0 and (input1.dim() != 1 or input2.dim() != 1):
        raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with "
                           f"sizes {list(input1.shape)} and {list(input2.shape)}.")
    prod_sum = (input1 * input2).sum(dim)
    mag1 = (input1 * input1).sum(dim) + 1e-12
    mag2 = (input2 * input2).sum(dim) + 1e-12
    cos = prod_sum / (mag1 * mag2).sqrt_()
    zeros = _zeros_like(cos)
    pos = 1 - cos
    neg = (cos - margin).clamp_min_(0)
    out = _C.where(target == 1, pos, zeros) + _C.where(target == -1, neg, zeros)
    return _reduce(out, enum)


@runs_in_float32
def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                        reduction="mean"):
    """``max(0, -target * (x1 - x2) + margin)``.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.margin_ranking_loss(gradtrack.tensor([3.0]), gradtrack.tensor([1.0]),
    ...                       gradtrack.tensor([-1.0]))
    tensor(2.)
    """
    enum = _enum(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension "
                           f"but got sizes: input1: {input1.size()}, input2: {input2.size()}, "
                           f"target: {target.size()} ")
    return _reduce((-target * (input1 - input2) + margin).clamp_min_(0), enum)


@runs_in_float32
def hinge_embedding_loss(input, target, margin=1.0, size_average=None,  # noqa: A002
                         reduce=None, reduction="mean"):
    """``x`` where ``target == 1``, ``max(0, margin - x)`` where ``target == -1``.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.hinge_embedding_loss(gradtrack.tensor([0.3, 2.0]), gradtrack.tensor([1.0, -1.0]))
    tensor(0.1500)
    """
    enum = _enum(size_average, reduce, reduction)
    zeros = _zeros_like(input)
    margin_clamp = (margin - input).clamp_min_(0)
    out_margin = _C.where(target != 1, margin_clamp, zeros)
    out_self = _C.where(target != -1, input, zeros)
    return _reduce(out_margin + out_self, enum)


@runs_in_float32
def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None,  # noqa: A002
                     eps=1e-8, reduce=None, reduction="mean"):
    """Negative log-likelihood of ``target`` under a Poisson of rate ``input`` (or
    ``exp(input)`` with ``log_input``), with Stirling's term when ``full``.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.poisson_nll_loss(gradtrack.tensor([0.0, 1.0]), gradtrack.tensor([1.0, 2.0]))
    tensor(0.8591)
    """
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        loss += stirling.masked_fill(target <= 1, 0)
    return _reduce(loss, _reduction_enum(reduction))


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6,  # noqa: A002
                      reduction="mean"):
    """Negative log-likelihood of ``target`` under a Gaussian of mean ``input`` and
    variance ``var`` (clamped at ``eps`` without gradient).

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.gaussian_nll_loss(gradtrack.tensor([1.0]), gradtrack.tensor([3.0]),
    ...                     gradtrack.tensor([2.0]))
    tensor(1.3466)
    """
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * _C.ones(tuple(input.shape), dtype=input.dtype)
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            var = var.unsqueeze(-1)
        elif input.dim() == var.dim() and sum(
                y for x, y in zip(input.size(), var.size()) if x != y) == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    from ..autograd.grad_mode import no_grad
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss += 0.5 * math.log(2 * math.pi)
    return _reduce(loss, _reduction_enum(reduction))


def _soft_margin(input, target, enum):  # noqa: A002
    return _reduce((-input * target).exp().log1p(), enum)


_soft_margin_node = composite_node("SoftMarginLossBackward0", _soft_margin)


@runs_in_float32
def soft_margin_loss(input, target, size_average=None, reduce=None,  # noqa: A002
                     reduction="mean"):
    """``log(1 + exp(-target * input))`` (``SoftMarginLossBackward0``).

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.soft_margin_loss(gradtrack.tensor([0.0]), gradtrack.tensor([1.0]))
    tensor(0.6931)
    """
    enum = _enum(size_average, reduce, reduction)
    return _soft_margin_node(input, target, enum)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None,  # noqa: A002
                                reduce=None, reduction="mean"):
    """Per-class logistic loss, averaged over the classes (the last dim).

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.multilabel_soft_margin_loss(gradtrack.tensor([[0.0, 0.0]]),
    ...                               gradtrack.tensor([[1.0, 0.0]]))
    tensor(0.6931)
    """
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.size(class_dim)
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(reduction + " is not valid")


def _multi_margin(input, target, p, margin, weight, enum):  # noqa: A002
    rows = input if input.dim() == 2 else input.reshape(1, -1)
    picked = rows.gather(1, target.reshape(-1, 1))
    z = margin - picked + rows
    # torch's kernel adds the terms with z > 0: a NaN term counts as 0, as a negative one
    z = z.masked_fill((z > 0).logical_not(), 0)
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * weight.index_select(0, target.reshape(-1)).unsqueeze(1)
    z = z.masked_fill(_zeros_like(z, _C.bool).scatter(1, target.reshape(-1, 1), True),
                      0)
    loss = z.sum(1) / rows.shape[1]
    if input.dim() < 2 and enum == 0:
        loss = loss.reshape(())
    return _reduce(loss, enum)


_multi_margin_node = composite_node(
    "MultiMarginLossBackward0", _multi_margin, no_forward_ad="multi_margin_loss",
    no_double_backward=(RuntimeError, "derivative for aten::multi_margin_loss_backward is not "
                                      "implemented"))


@runs_in_float32
def multi_margin_loss(input, target, p=1, margin=1.0, weight=None,  # noqa: A002
                      size_average=None, reduce=None, reduction="mean"):
    """Multi-class hinge loss: ``sum_j max(0, margin - x[y] + x[j]) ** p / C`` over the
    classes ``j != y`` (``MultiMarginLossBackward0``).

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.multi_margin_loss(gradtrack.tensor([[0.1, 0.2, 0.4, 0.8]]), gradtrack.tensor([3]))
    tensor(0.3250)
    """
    enum = _enum(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    ndim = input.dim()
    if ndim > 2 or (ndim == 2 and input.shape[1] == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch "
                           f"size, but got: {list(input.shape)}")
    n = input.shape[0] if ndim == 2 else 1
    classes = input.shape[-1] if ndim else 1
    if target.dim() > 1 or target.numel() != n:
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to "
                           f"the number of input samples (batch size). Expected target size "
                           f"[{n}], but got {list(target.shape)}. Input has shape "
                           f"{list(input.shape)}.")
    if weight is not None and weight.numel() != classes:
        raise RuntimeError(f"inconsistent weight size, expected {classes} but got "
                           f"{list(weight.shape)}")
    if target.numel() and (bool((target < 0).any()) or bool((target >= classes).any())):
        raise RuntimeError("target out of range")
    return _multi_margin_node(input, target, int(p), float(margin), weight, enum)


def _multilabel_margin(input, target, enum):  # noqa: A002
    rows = input if input.dim() == 2 else input.reshape(1, -1)
    labels = target if target.dim() == 2 else target.reshape(1, -1)
    classes = rows.shape[1]
    # the labels of a row are its entries up to the first -1
    valid = (labels >= 0).to(_C.int64).cumprod(1).to(_C.bool)
    safe = labels.masked_fill(valid.logical_not(), 0)
    is_target = _zeros_like(rows, _C.int64).scatter_add(1, safe, valid.to(_C.int64)) > 0
    picked = rows.gather(1, safe)  # (N, C): x[y_k] for each label slot k
    # hinge over every (label k, non-label j) pair: max(0, 1 - (x[y_k] - x[j]))
    hinge = (1 - picked.unsqueeze(2) + rows.unsqueeze(1)).clamp_min(0)
    keep = valid.unsqueeze(2).logical_and(is_target.logical_not().unsqueeze(1))
    loss = hinge.masked_fill(keep.logical_not(), 0).sum((1, 2)) / classes
    if input.dim() < 2 and enum == 0:
        loss = loss.reshape(())
    return _reduce(loss, enum)


_multilabel_margin_node = composite_node(
    "MultilabelMarginLossBackward0", _multilabel_margin,
    no_forward_ad="multilabel_margin_loss_forward",
    no_double_backward=(RuntimeError, "derivative for aten::multilabel_margin_loss_backward is "
                                      "not implemented"))


@runs_in_float32
def multilabel_margin_loss(input, target, size_average=None, reduce=None,  # noqa: A002
                           reduction="mean"):
    """Multi-label hinge loss: each row's labels are ``target``'s entries up to the first
    -1 (``MultilabelMarginLossBackward0``).

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.multilabel_margin_loss(gradtrack.tensor([[0.1, 0.2, 0.4, 0.8]]),
    ...                          gradtrack.tensor([[3, 0, -1, 1]]))
    tensor(0.8500)
    """
    enum = _enum(size_average, reduce, reduction)
    ndim = input.dim()
    if ndim > 2 or (ndim == 2 and input.shape[1] == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch "
                           f"size, but got: {list(input.shape)}")
    if list(target.shape) != list(input.shape):
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: "
                           f"{list(input.shape)}")
    classes = input.shape[-1] if ndim else 1
    if target.numel() and (bool((target < -1).any()) or bool((target >= classes).any())):
        raise RuntimeError("argument #2 'target' is out of range")
    return _multilabel_margin_node(input, target, enum)


@runs_in_float32
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """``max(0, margin + d(a, p) - d(a, n))`` with the pairwise ``p``-norm distance.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> a = gradtrack.tensor([[0.0, 0.0]])
    >>> F.triplet_margin_loss(a, gradtrack.tensor([[1.0, 0.0]]), gradtrack.tensor([[3.0, 0.0]]))
    tensor(0.)
    """
    enum = _enum(size_average, reduce, reduction)
    _check_triplet_dims(anchor, positive, negative)
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = _C.minimum(dist_neg, pairwise_distance(positive, negative, p, eps))
    return _reduce((margin + dist_pos - dist_neg).clamp_min(0), enum)


def _check_triplet_dims(anchor, positive, negative):
    a, p, n = anchor.dim(), positive.dim(), negative.dim()
    if not (a == p and p == n):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {a}D, positive {p}D, and "
                           f"negative {n}D inputs")


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    """:func:`triplet_margin_loss` with any ``distance_function`` (``pairwise_distance``
    by default).

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> a = gradtrack.tensor([[0.0, 0.0]])
    >>> F.triplet_margin_with_distance_loss(a, gradtrack.tensor([[2.0, 0.0]]),
    ...                                     gradtrack.tensor([[2.5, 0.0]]))
    tensor(0.5000)
    """
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _check_triplet_dims(anchor, positive, negative)
    distance = distance_function if distance_function is not None else pairwise_distance
    dist_pos = distance(anchor, positive)
    dist_neg = distance(anchor, negative)
    if swap:
        dist_neg = _C.minimum(dist_neg, distance(positive, negative))
    loss = (margin + dist_pos - dist_neg).clamp_min(0)
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction")
