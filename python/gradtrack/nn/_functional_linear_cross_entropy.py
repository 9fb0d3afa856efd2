"""``F.linear_cross_entropy``: a linear layer's logits scored by cross entropy.

NOTE [The chunked linear cross entropy]
With ``options=None`` the loss is the composition torch documents, ``cross_entropy``
of ``linear``'s logits, with its graph and ``grad_fn`` names. With options, torch takes
a chunked path that never holds the whole ``(N, C)`` logits: the batch is scored a
chunk of rows at a time and, for the reduced losses, the gradients of the input, the
weight and the bias are computed in the same pass and kept; backward scales them by
the incoming gradient, once (a second backward raises torch's error unless
``allow_retain_graph``). ``reduction="none"`` instead recomputes each chunk's logits
in backward. Both are one node each, named as torch's, opaque to forward mode (no
tangent comes out, as torch's) and to double backward. The chunk size follows the
options (``LinearCrossEntropyOptions``); the values equal the reference path's up to
rounding, whatever the chunking.
"""

import math
import warnings

import gradtrack

from ..autograd.function import Function
from ..autograd.graph import increment_version

__all__ = ["linear_cross_entropy"]


def _check(input, linear_weight, linear_bias):  # noqa: A002 - torch's argument name
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError("expected linear_weight with dimensionality at least 2, got "
                           f"{linear_weight.dim()}")
    in_features = input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions "
                           f"(in_features), got {input.shape[-1]} and "
                           f"{linear_weight.shape[-1]}, respectively")
    classes_and_out = (linear_weight.shape[0], *linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != classes_and_out:
        raise RuntimeError(f"expected linear_bias shape {classes_and_out}, got "
                           f"{tuple(linear_bias.shape)}")
    if len(classes_and_out) > 1 and input.dim() == 1:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape "
                           f"{tuple(linear_weight.shape)} requires batched input, "
                           f"(N, {in_features}), got unbatched input with shape "
                           f"{tuple(input.shape)}")


def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None,  # noqa: A002
                         weight=None, reduction="mean", ignore_index=None,
                         label_smoothing=0.0, options=None):
    """``cross_entropy(linear(input, linear_weight, linear_bias), target, ...)``.

    ``linear_weight`` is ``(C, in_features)``, or ``(C, d1, ..., dK, in_features)`` for a
    K-dimensional loss over ``(N, C, d1, ..., dK)`` logits. ``ignore_index=None`` means
    -100 for class-index targets. ``options`` (a :class:`LinearCrossEntropyOptions`)
    scores the batch in chunks without holding all the logits (NOTE [The chunked
    linear cross entropy]).

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> x, w = gradtrack.ones(2, 3), gradtrack.zeros(4, 3)
    >>> F.linear_cross_entropy(x, w, gradtrack.tensor([0, 3]))
    tensor(1.3863)
    """
    _check(input, linear_weight, linear_bias)
    batch, in_features = tuple(input.shape[:-1]), input.shape[-1]
    num_classes, out_features = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    logits_shape = (*batch, num_classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    ignore_index = -100 if ignore_index is None else ignore_index
    if options is not None:
        chunked = (not out_features and reduction in ("mean", "sum", "none")
                   and label_smoothing == 0.0 and target.dtype is gradtrack.int64)
        if not chunked:
            bias_shape = None if linear_bias is None else tuple(linear_bias.shape)
            warnings.warn(
                "linear_cross_entropy: ``options`` ignored; chunked path needs reduction in "
                "{'mean','sum','none'}, label_smoothing == 0, target.dtype == int64, "
                f"out_features == (). Got reduction={reduction!r}, "
                f"label_smoothing={label_smoothing}, target.dtype={target.dtype}, "
                f"out_features={out_features}, tracing=False, "
                f"linear_bias.shape={bias_shape}.", stacklevel=2)
        else:
            return _chunked(input, linear_weight, target, linear_bias, weight, reduction,
                            ignore_index, options)
    if out_features:
        flat = math.prod(out_features, start=num_classes)
        linear_weight = linear_weight.reshape(flat, in_features)
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(flat)
    logits = gradtrack.nn.functional.linear(input, linear_weight, linear_bias)
    return gradtrack.nn.functional.cross_entropy(
        logits.reshape(logits_shape), target, weight=weight, reduction=reduction,
        ignore_index=ignore_index, label_smoothing=label_smoothing)


def _chunked(input, linear_weight, target, linear_bias, weight, reduction,  # noqa: A002
             ignore_index, options):
    unbatched = input.dim() == 1
    if unbatched:
        input, target = input.unsqueeze(0), target.unsqueeze(0)  # noqa: A001
    options = options._adjust(num_batches=input.shape[0], in_features=input.shape[-1],
                              num_classes=linear_weight.shape[0], dtype=input.dtype,
                              device=input.device)
    plan = _Plan(target, weight, ignore_index, options.batch_chunk_size, options.acc_dtype)
    # The node's edges are torch's: input, weight, target, then the bias and the class
    # weights where given.
    if reduction == "none":
        result = _ChunkedNoReduction.apply(input, linear_weight, target, linear_bias, weight,
                                           plan)
    else:
        result = _ChunkedReduced.apply(input, linear_weight, target, linear_bias, weight, plan,
                                       reduction == "mean", options.allow_retain_graph)
    # torch's op writes its result in place once per chunk (twice when reduced): the
    # same _version here.
    chunks = len(plan.chunks(input.shape[0]))
    increment_version([result] * max(0, chunks * (1 if reduction == "none" else 2)
                                     - result._version))
    return result.squeeze(0) if unbatched else result


class _Plan:
    """What both chunked nodes know besides their tensor inputs."""

    def __init__(self, target, weight, ignore_index, chunk, acc_dtype):
        self.target, self.weight, self.ignore_index = target, weight, ignore_index
        self.chunk, self.acc_dtype = chunk, acc_dtype

    def row_weights(self, rows):
        """Each row's class weight (0 where its target is ignored), in acc_dtype."""
        target = self.target[rows]
        kept = target != self.ignore_index
        classes = target.masked_fill(~kept, 0)
        if self.weight is None:
            return kept.to(self.acc_dtype)
        return self.weight.to(self.acc_dtype)[classes] * kept.to(self.acc_dtype)

    def scores(self, input, linear_weight, linear_bias, rows):  # noqa: A002
        """One chunk's per-row losses and the gradient of their sum by the logits."""
        acc = self.acc_dtype
        logits = input[rows].to(acc) @ linear_weight.to(acc).t()
        if linear_bias is not None:
            logits = logits + linear_bias.to(acc)
        target = self.target[rows]
        classes = target.masked_fill(target == self.ignore_index, 0)
        size = logits.shape[1]
        if classes.numel() and (classes.min() < 0 or classes.max() >= size):
            bad = classes[(classes < 0) | (classes >= size)][0].item()
            raise RuntimeError(f"index {bad} is out of bounds for dimension 1 with size {size}")
        logp = logits.log_softmax(1)
        w = self.row_weights(rows)
        losses = -logp.gather(1, classes.unsqueeze(1)).squeeze(1) * w
        dlogits = logp.exp()
        dlogits[gradtrack.arange(dlogits.shape[0]), classes] -= 1
        return losses, dlogits * w.unsqueeze(1)

    def chunks(self, n):
        return [slice(s, min(n, s + self.chunk)) for s in range(0, n, self.chunk)]

    def gradient_buffers(self, ctx, tensors):
        """Zeros in acc_dtype for each of (input, weight, bias) whose gradient is asked."""
        wants = (*ctx.needs_input_grad[:2], ctx.needs_input_grad[3])
        return [gradtrack.zeros(t.shape, dtype=self.acc_dtype) if need and t is not None
                else None for need, t in zip(wants, tensors)]

    def add_gradients(self, grads, dlogits, input, linear_weight, rows):  # noqa: A002
        """One chunk's share of the input's, the weight's and the bias's gradients."""
        if grads[0] is not None:
            grads[0][rows] = dlogits @ linear_weight.to(self.acc_dtype)
        if grads[1] is not None:
            grads[1] += dlogits.t() @ input[rows].to(self.acc_dtype)
        if grads[2] is not None:
            grads[2] += dlogits.sum(0)


class GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked_default(Function):  # noqa: N801
    """The mean or sum over the chunks; the gradients are made in forward (NOTE [The
    chunked linear cross entropy])."""

    @staticmethod
    def forward(ctx, input, linear_weight, target, linear_bias, weight, plan, mean,  # noqa: A002
                allow_retain_graph):
        total = gradtrack.zeros((), dtype=plan.acc_dtype)
        grads = plan.gradient_buffers(ctx, (input, linear_weight, linear_bias))
        for rows in plan.chunks(input.shape[0]):
            losses, dlogits = plan.scores(input, linear_weight, linear_bias, rows)
            total += losses.sum()
            plan.add_gradients(grads, dlogits, input, linear_weight, rows)
        if mean:
            denominator = plan.row_weights(slice(None)).sum()
            total = total / denominator
            grads = [None if g is None else g / denominator for g in grads]
        ctx.grads = [None if g is None else g.to(t.dtype)
                     for g, t in zip(grads, (input, linear_weight, linear_bias))]
        ctx.allow_retain_graph = allow_retain_graph
        return total.to(input.dtype)

    @staticmethod
    def jvp(ctx, *tangents):
        return None  # as torch's chunked op: forward mode passes no tangent through it

    @staticmethod
    def backward(ctx, grad):
        grads = ctx.grads
        if grads is None:
            raise RuntimeError("linear_cross_entropy chunked backward called twice; "
                               "retain_graph=True / double backward are not supported.")
        if not ctx.allow_retain_graph:
            ctx.grads = None
        # the stored gradients are constants; scaling them by an incoming gradient that
        # has a graph records the product, as torch's does (a double backward then reaches
        # this node again and is refused above)
        grads = [None if g is None else g * grad for g in grads]
        return grads[0], grads[1], None, grads[2], None, None, None, None


class GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked_no_reduction_default(  # noqa: N801
        Function):
    """Each row's loss; backward scores the chunks again (NOTE [The chunked linear cross
    entropy])."""

    @staticmethod
    def forward(ctx, input, linear_weight, target, linear_bias, weight, plan):  # noqa: A002
        parts = [plan.scores(input, linear_weight, linear_bias, rows)[0]
                 for rows in plan.chunks(input.shape[0])]
        ctx.save_for_backward(input, linear_weight, linear_bias)
        ctx.plan = plan
        losses = gradtrack.cat(parts) if parts else gradtrack.zeros(0, dtype=plan.acc_dtype)
        return losses.to(input.dtype)

    @staticmethod
    def jvp(ctx, *tangents):
        return None  # as torch's chunked op: forward mode passes no tangent through it

    @staticmethod
    def backward(ctx, grad):
        input, linear_weight, linear_bias = ctx.saved_tensors  # noqa: A001
        plan = ctx.plan
        grads = plan.gradient_buffers(ctx, (input, linear_weight, linear_bias))
        with gradtrack.no_grad():
            for rows in plan.chunks(input.shape[0]):
                dlogits = plan.scores(input, linear_weight, linear_bias, rows)[1]
                dlogits = dlogits * grad[rows].to(plan.acc_dtype).unsqueeze(1)
                plan.add_gradients(grads, dlogits, input, linear_weight, rows)
        grads = [None if g is None else g.to(t.dtype)
                 for g, t in zip(grads, (input, linear_weight, linear_bias))]
        return grads[0], grads[1], None, grads[2], None, None


_ChunkedReduced = GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked_default
_ChunkedNoReduction = \
    GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked_no_reduction_default
