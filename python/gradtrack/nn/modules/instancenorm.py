"""``nn.InstanceNorm1d``, ``InstanceNorm2d`` and ``InstanceNorm3d``: each channel of each
sample normalized over its spatial dims; torch's defaults (no affine parameters, no
running statistics) and its parameter and buffer names."""

import warnings
from typing import Any

from .. import functional as F
from .batchnorm import _BatchNorm


class _InstanceNorm(_BatchNorm):
    """The shared part: ``_BatchNorm``'s parameters and buffers, instance norm's forward."""

    _no_batch_dim = 0

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1,
                 affine: bool = False, track_running_stats: bool = False, device: Any = None,
                 dtype: Any = None, *, bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)

    def _apply_instance_norm(self, input):  # noqa: A002
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight,
                               self.bias, self.training or not self.track_running_stats,
                               self.momentum if self.momentum is not None else 0.0, self.eps)

    def forward(self, input):  # noqa: A002
        self._check_input_dim(input)
        feature_dim = input.dim() - self._no_batch_dim
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match "
                                 f"num_features ({self.num_features}), but got: "
                                 f"{input.size(feature_dim)}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You "
                          "can silence this warning by not passing in num_features, which is "
                          "not used because affine=False", stacklevel=2)
        if input.dim() == self._no_batch_dim:
            return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._apply_instance_norm(input)


class InstanceNorm1d(_InstanceNorm):
    """Instance normalization over ``(N, C, L)`` or ``(C, L)`` input.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.InstanceNorm1d(2)
    InstanceNorm1d(2, eps=1e-05, momentum=0.1, affine=False, bias=False, track_running_stats=False)
    >>> nn.InstanceNorm1d(1)(gradtrack.tensor([[[1.0, 3.0]]]))
    tensor([[[-1.0000,  1.0000]]])
    """

    _dims = (2, 3)
    _dim_message = "expected 2D or 3D input (got {}D input)"
    _no_batch_dim = 2


class InstanceNorm2d(_InstanceNorm):
    """Instance normalization over ``(N, C, H, W)`` or ``(C, H, W)`` input.

    >>> from gradtrack import nn
    >>> list(nn.InstanceNorm2d(3, affine=True).state_dict())
    ['weight', 'bias']
    """

    _dims = (3, 4)
    _dim_message = "expected 3D or 4D input (got {}D input)"
    _no_batch_dim = 3


class InstanceNorm3d(_InstanceNorm):
    """Instance normalization over ``(N, C, D, H, W)`` or ``(C, D, H, W)`` input.

    >>> from gradtrack import nn
    >>> list(nn.InstanceNorm3d(3, track_running_stats=True).state_dict())
    ['running_mean', 'running_var', 'num_batches_tracked']
    """

    _dims = (4, 5)
    _dim_message = "expected 4D or 5D input (got {}D input)"
    _no_batch_dim = 4
