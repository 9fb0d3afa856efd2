"""``nn.BatchNorm1d/2d/3d`` and ``nn.SyncBatchNorm``."""

from typing import Any

from ... import _C
from .. import functional as F
from .module import Module
from .normalization import add_affine_parameters, reset_affine_parameters


class _BatchNorm(Module):
    """The shared part: parameters, running statistics and the forward."""

    _dims = ()
    _version = 2

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device: Any = None, dtype: Any = None, *,
                 bias: bool = True) -> None:
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        add_affine_parameters(self, affine, bias, (num_features,), dtype)
        if track_running_stats:
            self.register_buffer("running_mean", _C.zeros(num_features, dtype=dtype))
            self.register_buffer("running_var", _C.ones(num_features, dtype=dtype))
            self.register_buffer("num_batches_tracked", _C.tensor(0, dtype=_C.int64))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self):
        """Zeroes the running mean and the batch count, fills the running variance with ones."""
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self):
        """Resets the running statistics, ``weight`` to ones and ``bias`` to zeros."""
        self.reset_running_stats()
        reset_affine_parameters(self, self.affine)

    def _check_input_dim(self, input):  # noqa: A002
        if input.dim() not in self._dims:
            raise ValueError(self._dim_message.format(input.dim()))

    def forward(self, input):  # noqa: A002 - torch's argument name
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:  # the cumulative moving average
                factor = 1.0 / float(self.num_batches_tracked.item())
        # Batch statistics in training, and always without running statistics.
        use_batch = self.training or (self.running_mean is None and self.running_var is None)
        track = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if track else None,
                            self.running_var if track else None, self.weight, self.bias,
                            use_batch, factor, self.eps)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Batch normalization over ``(N, C)`` or ``(N, C, L)`` input.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> bn = nn.BatchNorm1d(2)
    >>> list(bn.state_dict())
    ['weight', 'bias', 'running_mean', 'running_var', 'num_batches_tracked']
    >>> bn(gradtrack.tensor([[1.0, 2.0], [3.0, 6.0]]))
    tensor([[-1.0000, -1.0000],
            [ 1.0000,  1.0000]], grad_fn=<NativeBatchNormBackward0>)
    """

    _dims = (2, 3)
    _dim_message = "expected 2D or 3D input (got {}D input)"


class BatchNorm2d(_BatchNorm):
    """Batch normalization over ``(N, C, H, W)`` input.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> bn = nn.BatchNorm2d(2)
    >>> x = gradtrack.arange(8.).reshape(1, 2, 2, 2)
    >>> bn(x)[0, 0]
    tensor([[-1.3416, -0.4472],
            [ 0.4472,  1.3416]], grad_fn=<SelectBackward0>)
    >>> bn.running_mean
    tensor([0.1500, 0.5500])
    """

    _dims = (4,)
    _dim_message = "expected 4D input (got {}D input)"


class BatchNorm3d(_BatchNorm):
    """Batch normalization over ``(N, C, D, H, W)`` input.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> bn = nn.BatchNorm3d(2)
    >>> bn
    BatchNorm3d(2, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    >>> bn(gradtrack.randn(2, 2, 3, 4, 5)).shape
    gradtrack.Size([2, 2, 3, 4, 5])
    """

    _dims = (5,)
    _dim_message = "expected 5D input (got {}D input)"


class SyncBatchNorm(_BatchNorm):
    """Batch normalization whose statistics would be shared across the processes of a
    distributed job, over ``(N, C, ...)`` input.

    As in torch's CPU build: without an initialized process group (or in eval mode) it is
    a plain batch norm; synchronizing needs a GPU, so training it inside an initialized
    process group raises torch's ``ValueError``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> net = nn.SyncBatchNorm.convert_sync_batchnorm(nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3)))
    >>> net[1]
    SyncBatchNorm(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    >>> net(gradtrack.randn(4, 2)).shape
    gradtrack.Size([4, 3])
    """

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True,
                 process_group: Any = None, device: Any = None, dtype: Any = None, *,
                 bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input):  # noqa: A002
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def forward(self, input):  # noqa: A002
        self._check_input_dim(input)
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        use_batch = self.training or (self.running_mean is None and self.running_var is None)
        if use_batch and self.training:
            from ... import distributed
            if distributed.is_available() and distributed.is_initialized():
                raise ValueError("SyncBatchNorm expected input tensor to be on GPU or XPU or "
                                 "privateuseone")
        return super().forward(input)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """Replaces every ``BatchNorm*d`` in ``module`` by a ``SyncBatchNorm`` sharing its
        parameters and buffers; returns the new module when ``module`` itself is one.

        >>> from gradtrack import nn
        >>> bn = nn.BatchNorm2d(4)
        >>> sync = nn.SyncBatchNorm.convert_sync_batchnorm(bn)
        >>> type(sync).__name__, sync.weight is bn.weight
        ('SyncBatchNorm', True)
        """
        from ...autograd.grad_mode import no_grad
        output = module
        if isinstance(module, _BatchNorm):
            output = SyncBatchNorm(module.num_features, module.eps, module.momentum,
                                   module.affine, module.track_running_stats, process_group,
                                   bias=module.bias is not None)
            if module.affine:
                with no_grad():
                    output.weight = module.weight
                    output.bias = module.bias
            output.running_mean = module.running_mean
            output.running_var = module.running_var
            output.num_batches_tracked = module.num_batches_tracked
            output.training = module.training
            if hasattr(module, "qconfig"):
                output.qconfig = module.qconfig
        for name, child in module.named_children():
            output.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        del module
        return output
