"""Loss modules: ``MSELoss``, ``NLLLoss``, ``CrossEntropyLoss``."""

from .. import functional as F
from .module import Module


class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        if size_average is not None or reduce is not None:
            self.reduction = F._legacy_reduction(size_average, reduce)
        else:
            self.reduction = reduction


class _WeightedLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class MSELoss(_Loss):
    """Mean squared error between ``input`` and ``target``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> loss = nn.MSELoss()(gradtrack.tensor([1.0, 3.0], requires_grad=True),
    ...                     gradtrack.tensor([1.0, 1.0]))
    >>> loss
    tensor(2., grad_fn=<MseLossBackward0>)
    """

    def forward(self, input, target):  # noqa: A002 - PyTorch's argument names
        return F.mse_loss(input, target, None, None, self.reduction)


class NLLLoss(_WeightedLoss):
    """Negative log-likelihood of class indices, given log-probabilities.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.NLLLoss()(gradtrack.tensor([[-0.5, -1.5]]), gradtrack.tensor([1]))
    tensor(1.5000)
    """

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):  # noqa: A002
        return F.nll_loss(input, target, self._buffers["weight"], None, self.ignore_index, None,
                          self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    """``log_softmax`` over the class dim followed by ``nll_loss``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> logits = gradtrack.tensor([[1.0, 1.0]], requires_grad=True)
    >>> nn.CrossEntropyLoss()(logits, gradtrack.tensor([0]))
    tensor(0.6931, grad_fn=<NllLossBackward0>)
    """

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean", label_smoothing=0.0):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input, target):  # noqa: A002
        # Positional arguments: this runs once per training step.
        return F.cross_entropy(input, target, self._buffers["weight"], None, self.ignore_index,
                               None, self.reduction, self.label_smoothing)
