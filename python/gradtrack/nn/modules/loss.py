"""Loss modules: ``MSELoss``, ``NLLLoss``, ``CrossEntropyLoss``, ``BCELoss``, ``L1Loss``, ...
"""

import warnings
from typing import Any

from .. import _functional_ctc as _ctc
from .. import functional as F
from .distance import PairwiseDistance
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


# ---- embedding, ranking and margin losses; Poisson and Gaussian likelihoods ----------------

class CosineEmbeddingLoss(_Loss):
    """``1 - cos(x1, x2)`` for ``target == 1``, ``max(0, cos(x1, x2) - margin)`` for -1.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.CosineEmbeddingLoss()(gradtrack.tensor([[1.0, 0.0]]), gradtrack.tensor([[1.0, 0.0]]),
    ...                          gradtrack.tensor([-1.0]))
    tensor(1.)
    """

    def __init__(self, margin: float = 0.0, size_average: Any = None, reduce: Any = None,
                 reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return F.cosine_embedding_loss(input1, input2, target, margin=self.margin,
                                       reduction=self.reduction)


class MarginRankingLoss(_Loss):
    """``max(0, -target * (x1 - x2) + margin)``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.MarginRankingLoss(0.5)(gradtrack.tensor([1.0]), gradtrack.tensor([1.0]),
    ...                           gradtrack.tensor([1.0]))
    tensor(0.5000)
    """

    def __init__(self, margin: float = 0.0, size_average: Any = None, reduce: Any = None,
                 reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return F.margin_ranking_loss(input1, input2, target, margin=self.margin,
                                     reduction=self.reduction)


class HingeEmbeddingLoss(_Loss):
    """``x`` for ``target == 1``, ``max(0, margin - x)`` for ``target == -1``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.HingeEmbeddingLoss()(gradtrack.tensor([0.25]), gradtrack.tensor([-1.0]))
    tensor(0.7500)
    """

    def __init__(self, margin: float = 1.0, size_average: Any = None, reduce: Any = None,
                 reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input, target):  # noqa: A002
        return F.hinge_embedding_loss(input, target, margin=self.margin,
                                      reduction=self.reduction)


class PoissonNLLLoss(_Loss):
    """Negative log-likelihood of ``target`` under a Poisson distribution.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.PoissonNLLLoss()(gradtrack.tensor([0.0]), gradtrack.tensor([1.0]))
    tensor(1.)
    """

    def __init__(self, log_input: bool = True, full: bool = False, size_average: Any = None,
                 eps: float = 1e-8, reduce: Any = None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_input = log_input
        self.full = full
        self.eps = eps

    def forward(self, log_input, target):
        return F.poisson_nll_loss(log_input, target, log_input=self.log_input, full=self.full,
                                  eps=self.eps, reduction=self.reduction)


class GaussianNLLLoss(_Loss):
    """Negative log-likelihood of ``target`` under a Gaussian of mean ``input`` and variance
    ``var``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.GaussianNLLLoss()(gradtrack.tensor([0.0]), gradtrack.tensor([0.0]),
    ...                      gradtrack.tensor([1.0]))
    tensor(0.)
    """

    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean") -> None:
        super().__init__(None, None, reduction)
        self.full = full
        self.eps = eps

    def forward(self, input, target, var):  # noqa: A002
        return F.gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps,
                                   reduction=self.reduction)


class MultiMarginLoss(_WeightedLoss):
    """Multi-class hinge loss over class scores and a class index per sample.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.MultiMarginLoss()(gradtrack.tensor([[0.0, 1.0]]), gradtrack.tensor([1]))
    tensor(0.)
    """

    def __init__(self, p: int = 1, margin: float = 1.0, weight: Any = None,
                 size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> None:
        super().__init__(weight, size_average, reduce, reduction)
        if p != 1 and p != 2:
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.dim() != 1:
            raise ValueError(f"MultiMarginLoss: expected weight to be None or 1D tensor, got "
                             f"{weight.dim()}D instead")
        self.p = p
        self.margin = margin

    def forward(self, input, target):  # noqa: A002
        return F.multi_margin_loss(input, target, p=self.p, margin=self.margin,
                                   weight=self.weight, reduction=self.reduction)


class SoftMarginLoss(_Loss):
    """``log(1 + exp(-target * input))``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.SoftMarginLoss()(gradtrack.tensor([0.0]), gradtrack.tensor([-1.0]))
    tensor(0.6931)
    """

    def forward(self, input, target):  # noqa: A002
        return F.soft_margin_loss(input, target, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """Per-class logistic loss averaged over the classes.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.MultiLabelSoftMarginLoss()(gradtrack.zeros(1, 2), gradtrack.tensor([[1.0, 0.0]]))
    tensor(0.6931)
    """

    def __init__(self, weight: Any = None, size_average: Any = None, reduce: Any = None,
                 reduction: str = "mean") -> None:
        super().__init__(weight, size_average, reduce, reduction)

    def forward(self, input, target):  # noqa: A002
        return F.multilabel_soft_margin_loss(input, target, weight=self.weight,
                                             reduction=self.reduction)


class MultiLabelMarginLoss(_Loss):
    """Multi-label hinge loss; each row's labels are its target entries up to the first -1.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.MultiLabelMarginLoss()(gradtrack.tensor([[0.0, 2.0]]), gradtrack.tensor([[1, -1]]))
    tensor(0.)
    """

    def forward(self, input, target):  # noqa: A002
        return F.multilabel_margin_loss(input, target, reduction=self.reduction)


class TripletMarginLoss(_Loss):
    """``max(0, margin + d(a, p) - d(a, n))`` with the pairwise ``p``-norm distance.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> a = gradtrack.zeros(1, 2)
    >>> nn.TripletMarginLoss()(a, a, a)
    tensor(1.)
    """

    def __init__(self, margin: float = 1.0, p: float = 2.0, eps: float = 1e-6,
                 swap: bool = False, size_average: Any = None, reduce: Any = None,
                 reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginLoss: expected margin to be greater than 0, got "
                             f"{margin} instead")
        self.margin = margin
        self.p = p
        self.eps = eps
        self.swap = swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=self.p,
                                     eps=self.eps, swap=self.swap, reduction=self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    """:class:`TripletMarginLoss` with any ``distance_function`` (a
    :class:`PairwiseDistance` by default).

    >>> from gradtrack import nn
    >>> nn.TripletMarginWithDistanceLoss()
    TripletMarginWithDistanceLoss(
      (distance_function): PairwiseDistance()
    )
    """

    def __init__(self, *, distance_function: Any = None, margin: float = 1.0,
                 swap: bool = False, reduction: str = "mean") -> None:
        super().__init__(None, None, reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater "
                             f"than 0, got {margin} instead")
        self.distance_function = (distance_function if distance_function is not None
                                  else PairwiseDistance())
        self.margin = margin
        self.swap = swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_with_distance_loss(
            anchor, positive, negative, distance_function=self.distance_function,
            margin=self.margin, swap=self.swap, reduction=self.reduction)


class CTCLoss(_Loss):
    """The connectionist temporal classification loss (:func:`~nn.functional.ctc_loss`).

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> ctc = nn.CTCLoss(blank=0)
    >>> ctc
    CTCLoss()
    >>> log_probs = gradtrack.randn(6, 2, 5).log_softmax(2)
    >>> ctc(log_probs, gradtrack.tensor([[1, 2], [4, 4]]), [6, 5], [2, 2]).shape
    gradtrack.Size([])
    """

    def __init__(self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False) -> None:
        super().__init__(reduction=reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return _ctc.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                             self.reduction, self.zero_infinity)


class NLLLoss2d(NLLLoss):
    """Deprecated: :class:`NLLLoss` under its old name (it warns when built).

    >>> import warnings
    >>> from gradtrack import nn
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     loss = nn.NLLLoss2d()
    >>> caught[0].category.__name__, isinstance(loss, nn.NLLLoss)
    ('FutureWarning', True)
    """

    def __init__(self, weight: Any = None, size_average: Any = None, ignore_index: int = -100,
                 reduce: Any = None, reduction: str = "mean") -> None:
        warnings.warn("`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead as a "
                      "drop-in replacement and see https://pytorch.org/docs/main/nn.html"
                      "#torch.nn.NLLLoss for more details.", FutureWarning, stacklevel=2)
        super().__init__(weight, size_average, ignore_index, reduce, reduction)
