"""``torch.backends.cudnn``: gradtrack has no cuDNN, as torch's CPU build.

The flags scripts set (``benchmark``, ``deterministic``, ``enabled``, ``allow_tf32``)
exist with torch's defaults and can be set; nothing reads them on the CPU.

>>> import gradtrack
>>> gradtrack.backends.cudnn.is_available(), gradtrack.backends.cudnn.version()
(False, None)
>>> gradtrack.backends.cudnn.benchmark
False
"""

import sys

from ._flags import set_flags as _set_flags

enabled = True
benchmark = False
benchmark_limit = None
deterministic = False
allow_tf32 = True
fp32_precision = "none"


def is_available():
    """False: gradtrack is not built with cuDNN.

    >>> import gradtrack
    >>> gradtrack.backends.cudnn.is_available()
    False
    """
    return False


def version():
    """None: there is no cuDNN library to report a version of.

    >>> import gradtrack
    >>> gradtrack.backends.cudnn.version() is None
    True
    """
    return None


def is_acceptable(tensor):
    """False: cuDNN takes no CPU tensor.

    >>> import gradtrack
    >>> gradtrack.backends.cudnn.is_acceptable(gradtrack.ones(2))
    False
    """
    return False


def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False,
          allow_tf32=True, fp32_precision="none"):
    """A context manager that sets the cuDNN flags for a block and restores them after.

    >>> import gradtrack
    >>> with gradtrack.backends.cudnn.flags(enabled=False):
    ...     print(gradtrack.backends.cudnn.enabled)
    False
    """
    return _set_flags(sys.modules[__name__], {
        "enabled": enabled, "benchmark": benchmark, "benchmark_limit": benchmark_limit,
        "deterministic": deterministic, "allow_tf32": allow_tf32,
        "fp32_precision": fp32_precision})
