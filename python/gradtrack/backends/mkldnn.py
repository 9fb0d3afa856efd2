"""``torch.backends.mkldnn`` (oneDNN): the flags torch's CPU build has, read and set as
in torch. ``is_available()`` answers as torch's CPU build (True); gradtrack's own CPU
kernels run whatever the flags say.

>>> import gradtrack
>>> gradtrack.backends.mkldnn.enabled
True
"""

import sys

from ._flags import set_flags as _set_flags

enabled = True
deterministic = False
fp32_precision = "none"


def is_available():
    """True, as torch's CPU build answers.

    >>> import gradtrack
    >>> gradtrack.backends.mkldnn.is_available()
    True
    """
    return True


def flags(enabled=False, deterministic=False, allow_tf32=True, fp32_precision="none"):
    """A context manager that sets the oneDNN flags for a block and restores them after.

    >>> import gradtrack
    >>> with gradtrack.backends.mkldnn.flags(enabled=False):
    ...     print(gradtrack.backends.mkldnn.enabled)
    False
    """
    return _set_flags(sys.modules[__name__], {
        "enabled": enabled, "deterministic": deterministic, "fp32_precision": fp32_precision})
