"""``nn.modules.lazy.LazyModuleMixin``: modules whose parameter shapes come from the
first input, and the lazy forms of Linear, the convolutions and the norms.

NOTE [Lazy modules cost nothing once initialized]
A lazy module registers two hooks when it is built, as torch's does: a forward
pre-hook that infers the shapes from the first call's arguments, materializes the
uninitialized parameters and buffers (the same objects, so an optimizer built before
the first call sees them) and initializes them from the random stream as the non-lazy
layer's ``reset_parameters`` does; and a load-state-dict pre-hook that materializes
them to a checkpoint's shapes. After the first call both hooks are removed and the
object's class becomes the non-lazy one, so the call goes through the ordinary
fast path (NOTE [Module call fast path]); modules that never were lazy read nothing
more than before.
"""

from typing import Any

from ... import _C
from ...autograd.grad_mode import no_grad
from ..parameter import UninitializedBuffer, UninitializedParameter, is_lazy
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d, _BatchNorm
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, _InstanceNorm
from .linear import Linear

__all__ = ["LazyModuleMixin", "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d",
           "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d",
           "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyInstanceNorm1d",
           "LazyInstanceNorm2d", "LazyInstanceNorm3d"]


class LazyModuleMixin:
    """Infers a module's parameter shapes from its first input (NOTE [Lazy modules cost
    nothing once initialized]).

    A subclass defines ``initialize_parameters(*args, **kwargs)`` and names the class
    it becomes in ``cls_to_become``. Until the first call its parameters are
    :class:`~gradtrack.nn.UninitializedParameter` s.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> layer = nn.LazyLinear(3)
    >>> layer, layer.has_uninitialized_params()
    (LazyLinear(in_features=0, out_features=3, bias=True), True)
    >>> _ = layer(gradtrack.ones(2, 5))
    >>> layer
    Linear(in_features=5, out_features=3, bias=True)
    """

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters,
                                                               with_kwargs=True)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        # An uninitialized tensor is saved as itself (detach() would lose what it is).
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = (param if is_lazy(param) or keep_vars
                                              else param.detach())
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if is_lazy(buf) or keep_vars else buf.detach()

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys,
                        unexpected_keys, error_msgs):
        for name, param in (*self._parameters.items(), *self._buffers.items()):
            key = prefix + name
            if key in state_dict and param is not None:
                value = state_dict[key]
                if is_lazy(param) and not is_lazy(value):
                    with no_grad():
                        param.materialize(value.shape)

    def initialize_parameters(self, *args, **kwargs):
        """Materializes and initializes the parameters from the first call's arguments."""
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self):
        """Whether any of this module's own parameters or buffers is still uninitialized.

        >>> from gradtrack import nn
        >>> nn.LazyBatchNorm1d().has_uninitialized_params()
        True
        """
        for tensor in (*self._parameters.values(), *self._buffers.values()):
            if is_lazy(tensor):
                return True
        return False

    def _infer_parameters(self, module, args, kwargs=None):
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        delattr(module, "_initialize_hook")
        delattr(module, "_load_hook")
        module._refresh_hook_flag()  # the next call takes the fast path again
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError("Modules with uninitialized parameters can't be used with "
                           "`DataParallel`. Run a dummy forward pass to correctly initialize "
                           "the modules")


class LazyLinear(LazyModuleMixin, Linear):
    """A :class:`~gradtrack.nn.Linear` whose ``in_features`` is the last dim of its
    first input; it becomes a ``Linear`` on that call.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> layer = nn.LazyLinear(2)
    >>> layer(gradtrack.ones(4, 3)).shape, type(layer).__name__, layer.weight.shape
    (gradtrack.Size([4, 2]), 'Linear', gradtrack.Size([2, 3]))
    """

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(0, 0, False, device=device, dtype=dtype)
        self.weight = UninitializedParameter(dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)

    def reset_parameters(self) -> None:
        """Initializes as ``Linear`` once the shapes are known."""
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input) -> None:  # noqa: A002 - torch's argument name
        """Materializes ``weight`` as ``(out_features, input.shape[-1])`` and initializes it."""
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()


class _LazyConvXdMixin(LazyModuleMixin):
    """The lazy convolutions: ``in_channels`` from the first input's channel dim."""

    _spatial_dims = 2

    def _make_uninitialized(self, out_channels, bias, dtype):
        self.weight = UninitializedParameter(dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)

    def reset_parameters(self) -> None:
        """Initializes as the convolution does once the shapes are known."""
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs) -> None:  # noqa: A002
        """Materializes ``weight`` and ``bias`` for the input's channels and initializes them."""
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            if self.transposed:
                shape = (self.in_channels, self.out_channels // self.groups)
            else:
                shape = (self.out_channels, self.in_channels // self.groups)
            self.weight.materialize((*shape, *self.kernel_size))
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()

    def _get_in_channels(self, input):  # noqa: A002
        no_batch = self._spatial_dims + 1
        if input.dim() not in (no_batch, no_batch + 1):
            raise RuntimeError(
                f"Expected {no_batch}D (unbatched) or {no_batch + 1}D (batched) input to "
                f"{self.__class__.__name__}, but got input of size: {input.shape}")
        return input.shape[1] if input.dim() == no_batch + 1 else input.shape[0]




class LazyConv1d(_LazyConvXdMixin, Conv1d):
    """A :class:`~gradtrack.nn.Conv1d` whose ``in_channels`` is the channel dim of its
    first input; it becomes a ``Conv1d`` on that call.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> conv = nn.LazyConv1d(3, 3)
    >>> conv
    LazyConv1d(0, 3, kernel_size=(3,), stride=(1,))
    >>> list(conv(gradtrack.randn(2, 4, 9)).shape), list(conv.weight.shape)
    ([2, 3, 7], [3, 4, 3])
    """

    cls_to_become = Conv1d
    _spatial_dims = 1

    def __init__(self, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False,
                         padding_mode, device=device, dtype=dtype)
        self._make_uninitialized(out_channels, bias, dtype)


class LazyConv2d(_LazyConvXdMixin, Conv2d):
    """A :class:`~gradtrack.nn.Conv2d` whose ``in_channels`` is the channel dim of its
    first input; it becomes a ``Conv2d`` on that call.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> conv = nn.LazyConv2d(3, 3)
    >>> conv
    LazyConv2d(0, 3, kernel_size=(3, 3), stride=(1, 1))
    >>> list(conv(gradtrack.randn(2, 4, 9, 9)).shape), list(conv.weight.shape)
    ([2, 3, 7, 7], [3, 4, 3, 3])
    """

    cls_to_become = Conv2d
    _spatial_dims = 2

    def __init__(self, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False,
                         padding_mode, device=device, dtype=dtype)
        self._make_uninitialized(out_channels, bias, dtype)


class LazyConv3d(_LazyConvXdMixin, Conv3d):
    """A :class:`~gradtrack.nn.Conv3d` whose ``in_channels`` is the channel dim of its
    first input; it becomes a ``Conv3d`` on that call.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> conv = nn.LazyConv3d(3, 3)
    >>> conv
    LazyConv3d(0, 3, kernel_size=(3, 3, 3), stride=(1, 1, 1))
    >>> list(conv(gradtrack.randn(1, 4, 5, 5, 5)).shape), list(conv.weight.shape)
    ([1, 3, 3, 3, 3], [3, 4, 3, 3, 3])
    """

    cls_to_become = Conv3d
    _spatial_dims = 3

    def __init__(self, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False,
                         padding_mode, device=device, dtype=dtype)
        self._make_uninitialized(out_channels, bias, dtype)


class LazyConvTranspose1d(_LazyConvXdMixin, ConvTranspose1d):
    """A :class:`~gradtrack.nn.ConvTranspose1d` whose ``in_channels`` is the channel dim
    of its first input; it becomes a ``ConvTranspose1d`` on that call.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> conv = nn.LazyConvTranspose1d(3, 3)
    >>> _ = conv(gradtrack.randn(2, 4, 9))
    >>> conv
    ConvTranspose1d(4, 3, kernel_size=(3,), stride=(1,))
    """

    cls_to_become = ConvTranspose1d
    _spatial_dims = 1

    def __init__(self, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 output_padding: Any = 0, groups: int = 1, bias: bool = True,
                 dilation: Any = 1, padding_mode: str = "zeros", device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False,
                         dilation, padding_mode, device=device, dtype=dtype)
        self._make_uninitialized(out_channels, bias, dtype)


class LazyConvTranspose2d(_LazyConvXdMixin, ConvTranspose2d):
    """A :class:`~gradtrack.nn.ConvTranspose2d` whose ``in_channels`` is the channel dim
    of its first input; it becomes a ``ConvTranspose2d`` on that call.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> conv = nn.LazyConvTranspose2d(3, 3)
    >>> _ = conv(gradtrack.randn(2, 4, 9, 9))
    >>> conv
    ConvTranspose2d(4, 3, kernel_size=(3, 3), stride=(1, 1))
    """

    cls_to_become = ConvTranspose2d
    _spatial_dims = 2

    def __init__(self, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 output_padding: Any = 0, groups: int = 1, bias: bool = True,
                 dilation: Any = 1, padding_mode: str = "zeros", device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False,
                         dilation, padding_mode, device=device, dtype=dtype)
        self._make_uninitialized(out_channels, bias, dtype)


class LazyConvTranspose3d(_LazyConvXdMixin, ConvTranspose3d):
    """A :class:`~gradtrack.nn.ConvTranspose3d` whose ``in_channels`` is the channel dim
    of its first input; it becomes a ``ConvTranspose3d`` on that call.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> conv = nn.LazyConvTranspose3d(3, 3)
    >>> _ = conv(gradtrack.randn(1, 4, 5, 5, 5))
    >>> conv
    ConvTranspose3d(4, 3, kernel_size=(3, 3, 3), stride=(1, 1, 1))
    """

    cls_to_become = ConvTranspose3d
    _spatial_dims = 3

    def __init__(self, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 output_padding: Any = 0, groups: int = 1, bias: bool = True,
                 dilation: Any = 1, padding_mode: str = "zeros", device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False,
                         dilation, padding_mode, device=device, dtype=dtype)
        self._make_uninitialized(out_channels, bias, dtype)


class _LazyNormBase(LazyModuleMixin):
    """The lazy norms: ``num_features`` from the first input's dim 1."""

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None, *, bias=True) -> None:
        super().__init__(0, eps, momentum, False, False, device=device, dtype=dtype, bias=False)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = UninitializedParameter(dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(dtype=dtype)
            self.running_var = UninitializedBuffer(dtype=dtype)
            self.num_batches_tracked = _C.tensor(0, dtype=_C.int64)

    def reset_parameters(self) -> None:
        """Initializes as the norm does once the shapes are known."""
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input) -> None:  # noqa: A002
        """Materializes the affine parameters and running statistics as ``(input.shape[1],)``."""
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            shape = (self.num_features,)
            if self.affine:
                self.weight.materialize(shape)
                if self.bias is not None:
                    self.bias.materialize(shape)
            if self.track_running_stats:
                self.running_mean.materialize(shape)
                self.running_var.materialize(shape)
                # torch's module then holds plain tensors; these are aliases of the buffers
                self._buffers["running_mean"] = self.running_mean.detach()
                self._buffers["running_var"] = self.running_var.detach()
            self.reset_parameters()


class LazyBatchNorm1d(_LazyNormBase, _BatchNorm):
    """A :class:`~gradtrack.nn.BatchNorm1d` whose ``num_features`` is dim 1 of its first
    input; it becomes a ``BatchNorm1d`` on that call.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> norm = nn.LazyBatchNorm1d()
    >>> _ = norm(gradtrack.randn(2, 3))
    >>> norm
    BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    """

    cls_to_become = BatchNorm1d
    _dims = BatchNorm1d._dims
    _dim_message = BatchNorm1d._dim_message


class LazyBatchNorm2d(_LazyNormBase, _BatchNorm):
    """A :class:`~gradtrack.nn.BatchNorm2d` whose ``num_features`` is dim 1 of its first
    input; it becomes a ``BatchNorm2d`` on that call.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> norm = nn.LazyBatchNorm2d()
    >>> _ = norm(gradtrack.randn(2, 3, 4, 4))
    >>> norm
    BatchNorm2d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    """

    cls_to_become = BatchNorm2d
    _dims = BatchNorm2d._dims
    _dim_message = BatchNorm2d._dim_message


class LazyBatchNorm3d(_LazyNormBase, _BatchNorm):
    """A :class:`~gradtrack.nn.BatchNorm3d` whose ``num_features`` is dim 1 of its first
    input; it becomes a ``BatchNorm3d`` on that call.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> norm = nn.LazyBatchNorm3d()
    >>> _ = norm(gradtrack.randn(2, 3, 2, 2, 2))
    >>> norm
    BatchNorm3d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    """

    cls_to_become = BatchNorm3d
    _dims = BatchNorm3d._dims
    _dim_message = BatchNorm3d._dim_message


class LazyInstanceNorm1d(_LazyNormBase, _InstanceNorm):
    """A :class:`~gradtrack.nn.InstanceNorm1d` whose ``num_features`` is dim 1 of its first
    input; it becomes a ``InstanceNorm1d`` on that call.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> norm = nn.LazyInstanceNorm1d()
    >>> _ = norm(gradtrack.randn(2, 3, 4))
    >>> norm
    InstanceNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    """

    cls_to_become = InstanceNorm1d
    _dims = InstanceNorm1d._dims
    _dim_message = InstanceNorm1d._dim_message
    _no_batch_dim = InstanceNorm1d._no_batch_dim


class LazyInstanceNorm2d(_LazyNormBase, _InstanceNorm):
    """A :class:`~gradtrack.nn.InstanceNorm2d` whose ``num_features`` is dim 1 of its first
    input; it becomes a ``InstanceNorm2d`` on that call.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> norm = nn.LazyInstanceNorm2d()
    >>> _ = norm(gradtrack.randn(2, 3, 4, 4))
    >>> norm
    InstanceNorm2d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    """

    cls_to_become = InstanceNorm2d
    _dims = InstanceNorm2d._dims
    _dim_message = InstanceNorm2d._dim_message
    _no_batch_dim = InstanceNorm2d._no_batch_dim


class LazyInstanceNorm3d(_LazyNormBase, _InstanceNorm):
    """A :class:`~gradtrack.nn.InstanceNorm3d` whose ``num_features`` is dim 1 of its first
    input; it becomes a ``InstanceNorm3d`` on that call.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> norm = nn.LazyInstanceNorm3d()
    >>> _ = norm(gradtrack.randn(2, 3, 2, 2, 2))
    >>> norm
    InstanceNorm3d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    """

    cls_to_become = InstanceNorm3d
    _dims = InstanceNorm3d._dims
    _dim_message = InstanceNorm3d._dim_message
    _no_batch_dim = InstanceNorm3d._no_batch_dim
