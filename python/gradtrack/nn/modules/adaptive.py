"""``nn.AdaptiveLogSoftmaxWithLoss``: the adaptive softmax of Grave et al. (2017), a head
over the frequent classes and one cluster per tail of rarer classes."""

from collections import namedtuple
from typing import Any

from ... import _C
from .. import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])

_CUTOFFS_ERROR = ("cutoffs should be a sequence of unique, positive integers sorted in an "
                  "increasing order, where each value is between 1 and n_classes-1")


class AdaptiveLogSoftmaxWithLoss(Module):
    """Log-probabilities of targets through a head (the ``cutoffs[0]`` most frequent
    classes plus one entry per cluster) and a two-layer projection per cluster, each
    ``div_value`` times narrower than the last. ``forward(input, target)`` returns
    ``(output, loss)``: each target's log-probability and their negated mean.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> asm = nn.AdaptiveLogSoftmaxWithLoss(16, 10, cutoffs=[4, 7])
    >>> asm
    AdaptiveLogSoftmaxWithLoss(
      (head): Linear(in_features=16, out_features=6, bias=False)
      (tail): ModuleList(
        (0): Sequential(
          (0): Linear(in_features=16, out_features=4, bias=False)
          (1): Linear(in_features=4, out_features=3, bias=False)
        )
        (1): Sequential(
          (0): Linear(in_features=16, out_features=1, bias=False)
          (1): Linear(in_features=1, out_features=3, bias=False)
        )
      )
    )
    >>> out = asm(gradtrack.randn(5, 16), gradtrack.tensor([0, 3, 5, 8, 9]))
    >>> out.output.shape, out.loss.shape
    (gradtrack.Size([5]), gradtrack.Size([]))
    """

    def __init__(self, in_features: int, n_classes: int, cutoffs: Any, div_value: float = 4.0,
                 head_bias: bool = False, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError(_CUTOFFS_ERROR)
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, dtype=dtype)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            width = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, hidden, bias=False, dtype=dtype),
                                        Linear(hidden, width, bias=False, dtype=dtype)))

    def reset_parameters(self) -> None:
        """Re-initializes the head and every cluster's projections."""
        self.head.reset_parameters()
        for i2h, h2o in self.tail:
            i2h.reset_parameters()
            h2o.reset_parameters()

    def forward(self, input_, target_):
        targ_dim = target_.dim()
        if targ_dim == 1:
            if input_.size(0) != target_.size(0):
                raise RuntimeError(
                    "Input and target should have the same size in the batch dimension.")
            if input_.dim() != 2:
                raise RuntimeError("1D target tensor expects 2D input tensors, but found "
                                   f"inputs with size {input_.size()}")
        elif targ_dim == 0:
            if input_.dim() != 1:
                raise RuntimeError("0D target tensor expects 1D input tensors, but found "
                                   f"inputs with size {input_.size()}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        batched = targ_dim > 0
        input = input_ if batched else input_.unsqueeze(0)  # noqa: A001
        target = target_ if batched else target_.unsqueeze(0)
        batch_size = target.size(0)
        output = input.new_zeros(batch_size)
        gather_inds = target.new_empty(batch_size)
        used_rows = 0
        bounds = [0] + self.cutoffs
        for i in range(len(bounds) - 1):
            low, high = bounds[i], bounds[i + 1]
            mask = (target >= low) & (target < high)
            rows = mask.nonzero().squeeze()
            if rows.numel() == 0:
                continue
            if i == 0:
                gather_inds.index_copy_(0, rows, target[mask])
            else:
                cluster_output = self.tail[i - 1](input.index_select(0, rows))
                gather_inds.index_fill_(0, rows, self.shortlist_size + i - 1)
                local = F.log_softmax(cluster_output, dim=1).gather(
                    1, (target[mask] - low).unsqueeze(1))
                output.index_copy_(0, rows, local.squeeze(1))
            used_rows += rows.numel()
        if used_rows != batch_size:
            raise RuntimeError(
                f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                f"[{target.min().item()}, {target.max().item()}] were found. ")
        head_logprob = F.log_softmax(self.head(input), dim=1)
        output += head_logprob.gather(1, gather_inds.unsqueeze(1)).squeeze()
        loss = (-output).mean()
        if not batched:
            output = output.squeeze(0)
        return _ASMoutput(output, loss)

    def _get_full_log_prob(self, input, head_output):  # noqa: A002 - torch's argument name
        out = input.new_empty((head_output.size(0), self.n_classes))
        head_logprob = F.log_softmax(head_output, dim=1)
        out[:, :self.shortlist_size] = head_logprob[:, :self.shortlist_size]
        for i in range(self.n_clusters):
            start, stop = self.cutoffs[i], self.cutoffs[i + 1]
            cluster_logprob = F.log_softmax(self.tail[i](input), dim=1)
            out[:, start:stop] = (cluster_logprob
                                  + head_logprob[:, self.shortlist_size + i].unsqueeze(1))
        return out

    def log_prob(self, input):  # noqa: A002
        """The log-probability of every class, ``(N, n_classes)``.

        >>> import gradtrack
        >>> from gradtrack import nn
        >>> asm = nn.AdaptiveLogSoftmaxWithLoss(4, 6, cutoffs=[3])
        >>> total = asm.log_prob(gradtrack.randn(2, 4)).exp().sum(1)
        >>> bool(gradtrack.allclose(total, gradtrack.ones(2)))
        True
        """
        return self._get_full_log_prob(input, self.head(input))

    def predict(self, input):  # noqa: A002
        """The most likely class of each row (cheaper than ``log_prob(input).argmax(1)``
        when the head alone decides).

        >>> import gradtrack
        >>> from gradtrack import nn
        >>> asm = nn.AdaptiveLogSoftmaxWithLoss(4, 6, cutoffs=[3])
        >>> x = gradtrack.randn(5, 4)
        >>> bool((asm.predict(x) == asm.log_prob(x).argmax(1)).all())
        True
        """
        head_output = self.head(input)
        output = _C.argmax(head_output, dim=1)
        not_in_shortlist = output >= self.shortlist_size
        if not not_in_shortlist.any():
            return output
        if not_in_shortlist.all():
            return _C.argmax(self._get_full_log_prob(input, head_output), dim=1)
        log_prob = self._get_full_log_prob(input[not_in_shortlist],
                                           head_output[not_in_shortlist])
        output[not_in_shortlist] = _C.argmax(log_prob, dim=1)
        return output
