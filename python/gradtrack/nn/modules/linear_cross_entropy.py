"""``nn.LinearCrossEntropyLoss``: a linear layer and cross entropy as one criterion."""

import math

from .. import functional as F
from .linear import Linear
from .loss import _WeightedLoss


class LinearCrossEntropyLoss(_WeightedLoss):
    """Cross entropy of ``self.linear(input)``'s logits, ``num_classes`` of them (times
    ``out_features`` for a K-dimensional loss); see ``F.linear_cross_entropy``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> _ = gradtrack.manual_seed(0)
    >>> loss = nn.LinearCrossEntropyLoss(3, 4)
    >>> loss
    LinearCrossEntropyLoss(
      in_features=3, num_classes=4, out_features=(), bias=False, reduction=mean, \
ignore_index=None, label_smoothing=0.0, options=None
      (linear): Linear(in_features=3, out_features=4, bias=False)
    )
    >>> loss(gradtrack.zeros(2, 3), gradtrack.tensor([0, 3]))
    tensor(1.3863, grad_fn=<NllLossBackward0>)
    """

    def __init__(self, in_features, num_classes, *, out_features=(), bias=False, device=None,
                 dtype=None, reduction="mean", weight=None, ignore_index=None,
                 label_smoothing=0.0, options=None):
        if weight is not None and weight.shape != (num_classes,):
            raise RuntimeError(f"expected weight shape to be {(num_classes,)}, got "
                               f"{tuple(weight.shape)}")
        if label_smoothing < 0 or label_smoothing > 1.0:
            raise RuntimeError("expected label_smoothing to be in range [0, 1], got "
                               f"{label_smoothing}")
        super().__init__(weight=weight, size_average=None, reduce=None, reduction=reduction)
        self.num_classes = num_classes
        self.out_features = out_features
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing
        self.linear = Linear(in_features, math.prod(out_features, start=num_classes), bias=bias,
                             device=device, dtype=dtype)
        self.options = options

    def forward(self, input, target):  # noqa: A002
        shape = (self.num_classes, *self.out_features)
        bias = None if self.linear.bias is None else self.linear.bias.reshape(shape)
        return F.linear_cross_entropy(
            input, self.linear.weight.reshape((*shape, self.linear.in_features)), target,
            linear_bias=bias, weight=self.weight, reduction=self.reduction,
            ignore_index=self.ignore_index, label_smoothing=self.label_smoothing,
            options=self.options)

    def extra_repr(self):
        return (f"in_features={self.linear.in_features}, num_classes={self.num_classes}, "
                f"out_features={self.out_features}, bias={self.linear.bias is not None}, "
                f"reduction={self.reduction}, ignore_index={self.ignore_index}, "
                f"label_smoothing={self.label_smoothing}, options={self.options}")
