"""``torch.cpu.amp.GradScaler``: deprecated, ``torch.amp.GradScaler("cpu", ...)``.

>>> import gradtrack, warnings
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     gradtrack.cpu.amp.GradScaler().get_scale()
65536.0
"""

import warnings

from ... import amp as _amp

__all__ = ["GradScaler"]


class GradScaler(_amp.GradScaler):
    """Deprecated: ``torch.amp.GradScaler("cpu", ...)``, with torch's FutureWarning.

    >>> import gradtrack, warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     gradtrack.cpu.amp.GradScaler(init_scale=8.0).get_scale()
    8.0
    """

    def __init__(self, init_scale: float = 2.0 ** 16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000,
                 enabled: bool = True) -> None:
        warnings.warn("`torch.cpu.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cpu', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__("cpu", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval,
                         enabled=enabled)
