"""``F.ctc_loss``: the connectionist temporal classification loss (Graves et al., 2006).

The forward variables (alpha) and, in the backward, the backward variables (beta) run the
recursion of torch's CPU kernel over the extended label sequence ``l'`` (a blank between
and around the labels), in log space, one time step at a time for the whole batch and
every position of ``l'`` at once. The node is torch's ``CtcLossBackward0``, with torch's
gradient: ``exp(log_probs) - exp(log(sum of alpha * beta over the positions of a class) +
nll - log_probs)``, which assumes ``log_probs`` come from ``log_softmax`` (its first term
is the softmax part of the gradient to the logits); steps past an input length get 0.
``reduction`` and ``zero_infinity`` are then torch's ops on the per-sample losses.

>>> import gradtrack
>>> import gradtrack.nn.functional as F
>>> log_probs = gradtrack.full((2, 1, 2), 0.5).log()
>>> F.ctc_loss(log_probs, gradtrack.tensor([[1]]), [2], [1], reduction="sum")
tensor(0.2877)
"""

import math

from .. import _C
from .._autocast import runs_in_float32
from ..autograd.function import Function
from ..autograd.grad_mode import no_grad
from ._arguments import _reduction_enum
from ..autograd._named_nodes import named_node

__all__ = ["ctc_loss"]

_NEG_INF = -math.inf


def _logsumexp3(a, b, c):
    """log(exp(a - m) + exp(b - m) + exp(c - m)) + m with m their maximum (0 if -inf),
    summed in the kernel's order."""
    m = _C.maximum(_C.maximum(a, b), c)
    m = _C.where(m == _NEG_INF, _C.zeros((), dtype=m.dtype), m)
    return ((a - m).exp() + (b - m).exp() + (c - m).exp()).log() + m


def _shift(t, k):
    """t[..., s - k] (``-inf`` where s < k) along the last dim."""
    if k == 0:
        return t
    pad = _C.full((*t.shape[:-1], k), _NEG_INF, dtype=t.dtype)
    return _C.cat([pad, t[..., :-k]], -1)


def _unshift(t, k):
    """t[..., s + k] (``-inf`` past the end) along the last dim."""
    if k == 0:
        return t
    pad = _C.full((*t.shape[:-1], k), _NEG_INF, dtype=t.dtype)
    return _C.cat([t[..., k:], pad], -1)


class _Problem:
    """The extended label sequences of a batch: ``labels`` [N, 2S+1] (class of each
    position), which positions may skip the one before (``skip``), which exist
    (``live``), and the lengths."""

    def __init__(self, targets, input_lengths, target_lengths, blank):
        n = len(input_lengths)
        longest = max(target_lengths) if target_lengths else 0
        width = 2 * longest + 1
        rows = []
        flat = targets.tolist()
        offset = 0
        for b in range(n):
            if targets.dim() == 1:
                labels = flat[offset:offset + target_lengths[b]]
                offset += target_lengths[b]
            else:
                labels = flat[b][:target_lengths[b]]
            row = [blank] * width
            for i, label in enumerate(labels):
                row[2 * i + 1] = label
            rows.append(row)
        self.labels = _C.tensor(rows, dtype=_C.int64).reshape(n, width)
        skip = [[s > 1 and s % 2 == 1 and row[s - 2] != row[s] for s in range(width)]
                for row in rows]
        self.skip = _C.tensor(skip, dtype=_C.bool).reshape(n, width)
        self.live = _C.tensor([[s <= 2 * target_lengths[b] for s in range(width)]
                               for b in range(n)], dtype=_C.bool).reshape(n, width)
        self.input_lengths = input_lengths
        self.target_lengths = target_lengths
        self.width = width


def _emissions(log_probs, problem):
    """log_probs[t, b, l'(s)]: [T, N, 2S+1]."""
    t, n, _ = log_probs.shape
    index = problem.labels.unsqueeze(0).expand(t, n, problem.width)
    return log_probs.gather(2, index)


def _alphas(emit, problem):
    """log alpha [T, N, 2S+1]."""
    steps, n, width = emit.shape
    neg = _C.full((n, width), _NEG_INF, dtype=emit.dtype)
    first = neg.clone()
    first[:, 0] = emit[0, :, 0]
    if width > 1:
        has_label = _C.tensor([tl > 0 for tl in problem.target_lengths], dtype=_C.bool)
        first[:, 1] = _C.where(has_label, emit[0, :, 1], neg[:, 1])
    alphas = [first]
    for t in range(1, steps):
        prev = alphas[-1]
        skip = _C.where(problem.skip, _shift(prev, 2), neg)
        new = _logsumexp3(prev, _shift(prev, 1), skip) + emit[t]
        alphas.append(_C.where(problem.live, new, neg))
    return _C.stack(alphas)


def _nll(alphas, problem):
    out = []
    for b, (il, tl) in enumerate(zip(problem.input_lengths, problem.target_lengths)):
        last = alphas[il - 1, b]
        if tl == 0:
            out.append(-last[0])
            continue
        l1, l2 = last[2 * tl], last[2 * tl - 1]
        m = _C.maximum(l1, l2)
        m = _C.where(m == _NEG_INF, _C.zeros((), dtype=m.dtype), m)
        out.append(-(((l1 - m).exp() + (l2 - m).exp()).log() + m))
    return _C.stack(out)


def _betas(emit, problem):
    """log beta [T, N, 2S+1], each sample's recursion starting at its last input step."""
    steps, n, width = emit.shape
    neg = _C.full((n, width), _NEG_INF, dtype=emit.dtype)
    start = neg.clone()
    for b, (il, tl) in enumerate(zip(problem.input_lengths, problem.target_lengths)):
        start[b, 2 * tl] = emit[il - 1, b, 2 * tl]
        if tl > 0:
            start[b, 2 * tl - 1] = emit[il - 1, b, 2 * tl - 1]
    lengths = _C.tensor(problem.input_lengths, dtype=_C.int64).unsqueeze(1)
    skip_from = _unshift(problem.skip, 2)  # position s may take beta[s + 2]
    betas = [neg] * steps
    nxt = neg
    for t in range(steps - 1, -1, -1):
        skip = _C.where(skip_from, _unshift(nxt, 2), neg)
        new = _C.where(problem.live, _logsumexp3(nxt, _unshift(nxt, 1), skip) + emit[t], neg)
        cur = _C.where(lengths - 1 == t, start, _C.where(lengths - 1 > t, new, neg))
        betas[t] = cur
        nxt = cur
    return _C.stack(betas)


def _class_sums(log_ab, problem, classes):
    """log of the sum of exp(log_ab) over the positions of each class: [T, N, C]."""
    steps, n, width = log_ab.shape
    top = log_ab.amax(2, keepdim=True)
    top = _C.where(top == _NEG_INF, _C.zeros((), dtype=top.dtype), top)
    sums = _C.zeros(steps, n, classes, dtype=log_ab.dtype)
    index = problem.labels.unsqueeze(0).expand(steps, n, width)
    sums = sums.scatter_add(2, index, (log_ab - top).exp())
    return sums.log() + top


class _CtcLoss(Function):
    @staticmethod
    def forward(ctx, log_probs, problem, zero_infinity):
        emit = _emissions(log_probs, problem)
        alphas = _alphas(emit, problem)
        nll = _nll(alphas, problem)
        ctx.save_for_backward(log_probs, nll)
        ctx.problem, ctx.alphas, ctx.emit = problem, alphas, emit
        ctx.zero_infinity = zero_infinity
        return nll

    @staticmethod
    def backward(ctx, grad):
        log_probs, nll = ctx.saved_tensors
        problem = ctx.problem
        with no_grad():
            betas = _betas(ctx.emit, problem)
            lcab = _class_sums(ctx.alphas + betas, problem, log_probs.shape[2])
            nll_b = nll.reshape(1, -1, 1)
            out = (log_probs.exp() - (lcab + nll_b - log_probs).exp()) * grad.reshape(1, -1, 1)
            steps = _C.arange(log_probs.shape[0]).reshape(-1, 1, 1)
            lengths = _C.tensor(problem.input_lengths, dtype=_C.int64).reshape(1, -1, 1)
            keep = steps < lengths
            if ctx.zero_infinity:
                keep = keep.logical_and((nll != math.inf).reshape(1, -1, 1))
            out = _C.where(keep, out, _C.zeros((), dtype=out.dtype))
        return out, None, None


    @staticmethod
    def jvp(ctx, *tangents):
        raise NotImplementedError(
            "Trying to use forward AD with _ctc_loss that does not support it because it has not "
            "been implemented yet.\nPlease file an issue to PyTorch at https://github.com/pytorch/"
            "pytorch/issues/new?template=feature-request.yml so that we can prioritize its "
            "implementation or submit a PR adding the implementation to derivatives.yaml")


named_node(_CtcLoss, "CtcLossBackward0")


def _lengths(name, value):
    if isinstance(value, _C.Tensor):
        return [int(v) for v in value.reshape(-1).tolist()]
    return [int(v) for v in value]


@runs_in_float32
def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0,  # noqa: A002
             reduction="mean", zero_infinity=False):
    """The CTC loss of ``log_probs`` (``T, N, C`` or unbatched ``T, C``: log-softmax
    outputs) against ``targets`` (``N, S`` padded, or all targets concatenated).

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> log_probs = gradtrack.randn(5, 2, 4).log_softmax(2)
    >>> F.ctc_loss(log_probs, gradtrack.tensor([[1, 2], [3, 3]]), [5, 4], [2, 2]).shape
    gradtrack.Size([])
    """
    enum = _reduction_enum(reduction)
    batched = log_probs.dim() == 3
    lp = log_probs if batched else log_probs.unsqueeze(1)
    tg = targets if batched or targets.dim() != 1 else targets.unsqueeze(0)
    il, tl = _lengths("input_lengths", input_lengths), _lengths("target_lengths", target_lengths)
    _check(lp, tg, il, tl, blank)
    problem = _Problem(tg, il, tl, blank)
    res = _CtcLoss.apply(lp, problem, bool(zero_infinity))
    if zero_infinity:
        res = _C.where(res == math.inf, _C.zeros((), dtype=res.dtype), res)
    if enum == 1:
        lengths = _C.tensor(tl, dtype=res.dtype).clamp_min(1)
        return (res / lengths).mean()
    if enum == 2:
        return res.sum()
    return res if batched else res.squeeze(0)


def _check(log_probs, targets, input_lengths, target_lengths, blank):
    steps, n, classes = log_probs.shape
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    if len(input_lengths) != n:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(target_lengths) != n:
        raise RuntimeError("target_lengths must be of size batch_size")
    for b in range(n):
        if input_lengths[b] < 0 or input_lengths[b] > steps:
            raise RuntimeError(f"Expected input_lengths to have value at most {steps}, but got "
                               f"value {input_lengths[b]} (while checking arguments for "
                               "ctc_loss_allocate_outputs)")
        if targets.dim() != 1 and target_lengths[b] > targets.shape[1]:
            raise RuntimeError(f"Expected tensor to have size at least {target_lengths[b]} at "
                               f"dimension 1, but got size {targets.shape[1]} for argument #2 "
                               "'targets' (while checking arguments for ctc_loss_allocate_outputs)")
    if not log_probs.is_floating_point():
        raise RuntimeError("ctc_loss_cpu: expected floating point log_probs")
