"""``torch.cpu.amp.autocast``: deprecated, ``torch.amp.autocast("cpu", ...)``.

>>> import gradtrack, warnings
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     gradtrack.cpu.amp.autocast(enabled=False).fast_dtype
gradtrack.bfloat16
"""

import warnings

from ... import _C
from ... import amp as _amp

__all__ = ["autocast"]


class autocast(_amp.autocast):
    """Deprecated: ``torch.amp.autocast("cpu", ...)``, with torch's FutureWarning.

    >>> import gradtrack, warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     with gradtrack.cpu.amp.autocast():
    ...         gradtrack.is_autocast_enabled("cpu")
    True
    """

    def __init__(self, enabled: bool = True, dtype=_C.bfloat16, cache_enabled: bool = True):
        warnings.warn("`torch.cpu.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cpu', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)
