"""Loss modules: ``MSELoss``, ``NLLLoss``, ``CrossEntropyLoss``, ``BCELoss``, ``L1Loss``, ...
"""

from typing import Any

from .. import functional as F
from .module import Module


class _Loss(Module):
    def __init__(self, size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> None:
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
        return F.nll_loss(input, target, self.weight, None, self.ignore_index, None,
                          self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    """``log_softmax`` over the class dim followed by ``nll_loss``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> logits = gradtrack.tensor([[1.0, 1.0]], requires_grad=True)
    >>> nn.CrossEntropyLoss()(logits, gradtrack.tensor([0]))
    tensor(0.6931, grad_fn=<NllLossBackward0>)
    """

    def __init__(self, weight: Any = None, size_average: Any = None, ignore_index: int = -100, reduce: Any = None,
                 reduction: str = "mean", label_smoothing: float = 0.0) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input, target):  # noqa: A002
        # Positional arguments: this runs once per training step. ``weight`` as
        # ``self.weight`` reads it (NOTE [Reading parameters in forward]).
        d = self.__dict__
        if type(self) is CrossEntropyLoss and "weight" not in d \
                and "weight" not in d["_parameters"] and "weight" in d["_buffers"]:
            weight = d["_buffers"]["weight"]
        else:
            weight = self.weight
        return F.cross_entropy(input, target, weight, None, self.ignore_index,
                               None, self.reduction, self.label_smoothing)


# ---- nn layers: more losses --------------------------------------------------------------------

class BCELoss(_WeightedLoss):
    """Binary cross entropy between probabilities ``input`` and ``target``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.BCELoss()(gradtrack.tensor([0.5]), gradtrack.tensor([1.0]))
    tensor(0.6931)
    """

    def forward(self, input, target):  # noqa: A002
        return F.binary_cross_entropy(input, target, weight=self.weight,
                                      reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Binary cross entropy of ``sigmoid(input)``, computed stably; ``pos_weight`` weighs the
    positive term per class.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> x = gradtrack.tensor([0.5, 2.0, -1.0])
    >>> y = gradtrack.tensor([0.0, 1.0, 1.0])
    >>> nn.BCEWithLogitsLoss()(x, y)
    tensor(0.8048)
    """

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean",
                 pos_weight=None):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):  # noqa: A002
        return F.binary_cross_entropy_with_logits(input, target, self.weight,
                                                  pos_weight=self.pos_weight,
                                                  reduction=self.reduction)


class L1Loss(_Loss):
    """Mean absolute error.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> x = gradtrack.tensor([0.5, 2.0, -1.0])
    >>> y = gradtrack.tensor([0.0, 1.0, 1.0])
    >>> nn.L1Loss()(x, y)
    tensor(1.1667)
    """

    def forward(self, input, target):  # noqa: A002
        return F.l1_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """Quadratic below ``beta``, linear above.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> x = gradtrack.tensor([0.5, 2.0, -1.0])
    >>> y = gradtrack.tensor([0.0, 1.0, 1.0])
    >>> nn.SmoothL1Loss(beta=1.0)(x, y)
    tensor(0.7083)
    """

    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):  # noqa: A002
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """Quadratic below ``delta``, ``delta``-scaled linear above.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> x = gradtrack.tensor([0.5, 2.0, -1.0])
    >>> y = gradtrack.tensor([0.0, 1.0, 1.0])
    >>> nn.HuberLoss(delta=0.5)(x, y)
    tensor(0.4583)
    """

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target):  # noqa: A002
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class KLDivLoss(_Loss):
    """KL divergence of ``target`` from the log-probabilities ``input``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> log_q = gradtrack.tensor([[0.25, 0.75]]).log()
    >>> p = gradtrack.tensor([[0.5, 0.5]])
    >>> nn.KLDivLoss(reduction="batchmean")(log_q, p)
    tensor(0.1438)
    """

    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input, target):  # noqa: A002
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)
