"""``torch.profiler``: ``record_function`` and ``ProfilerActivity`` exist, so annotated
code runs; ``profile`` raises NotImplementedError (gradtrack has no profiler yet).

>>> import gradtrack
>>> gradtrack.profiler.ProfilerActivity.CPU
<ProfilerActivity.CPU: 0>
"""

import enum

from .autograd.profiler import _NO_PROFILER, record_function  # noqa: F401


class ProfilerActivity(enum.Enum):
    """The kinds of activity torch's profiler can record.

    >>> import gradtrack
    >>> list(gradtrack.profiler.ProfilerActivity.__members__)[:2]
    ['CPU', 'XPU']
    """

    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


class profile:
    """Raises NotImplementedError: gradtrack has no profiler yet.

    >>> import gradtrack
    >>> gradtrack.profiler.profile(activities=[gradtrack.profiler.ProfilerActivity.CPU])
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    NotImplementedError: gradtrack has no profiler yet: ...
    """

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(_NO_PROFILER)
