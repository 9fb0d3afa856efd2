"""``torch.cuda.amp``: torch's deprecated aliases of ``torch.amp`` for CUDA, with its
FutureWarnings. On a CPU-only machine both disable themselves, as in torch.

>>> import gradtrack, warnings
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     gradtrack.cuda.amp.GradScaler(enabled=False).is_enabled()
False
"""

import warnings

from .. import amp as _amp


class autocast(_amp.autocast):
    """Deprecated: ``torch.amp.autocast("cuda", ...)``; disabled without CUDA.

    >>> import gradtrack, warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     with gradtrack.cuda.amp.autocast():
    ...         gradtrack.is_autocast_enabled()
    False
    """

    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        warnings.warn("`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cuda', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__("cuda", enabled=enabled, dtype=_amp.autocast_mode._C.float16
                         if dtype is None else dtype, cache_enabled=cache_enabled)


class GradScaler(_amp.GradScaler):
    """Deprecated: ``torch.amp.GradScaler("cuda", ...)``; disabled without CUDA.

    >>> import gradtrack, warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     gradtrack.cuda.amp.GradScaler().is_enabled()
    False
    """

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__("cuda", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval,
                         enabled=enabled)


def custom_fwd(fwd=None, *, cast_inputs=None):
    """Deprecated: ``torch.amp.custom_fwd(device_type="cuda")``.

    >>> import gradtrack, warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     fwd = gradtrack.cuda.amp.custom_fwd(lambda ctx, x: x + 1)
    >>> ctx = gradtrack.autograd.function.FunctionCtx()
    >>> fwd(ctx, 1), ctx._fwd_used_autocast
    (2, False)
    """
    warnings.warn("`torch.cuda.amp.custom_fwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_fwd(args..., device_type='cuda')` instead.", FutureWarning,
                  stacklevel=2)
    return _amp.custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd=None):
    """Deprecated: ``torch.amp.custom_bwd(device_type="cuda")``.

    >>> import gradtrack, warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     bwd = gradtrack.cuda.amp.custom_bwd(lambda ctx, g: g * 2)
    >>> ctx = gradtrack.autograd.function.FunctionCtx()
    >>> ctx._fwd_used_autocast, ctx._dtype = False, gradtrack.float16
    >>> bwd(ctx, 3)
    6
    """
    warnings.warn("`torch.cuda.amp.custom_bwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_bwd(args..., device_type='cuda')` instead.", FutureWarning,
                  stacklevel=2)
    return _amp.custom_bwd(bwd, device_type="cuda")
