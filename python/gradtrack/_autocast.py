"""The float32 list of CPU autocast: the functions torch runs in float32 inside an enabled
``torch.autocast("cpu")`` region, whatever the dtype of their inputs (losses, ``prod``,
``cdist``, ``trace``, the reflection and replication pads). The lower-precision list
(matmul, linear, conv, ...) casts in the C++ bindings: NOTE [Autocast at the Python
boundary] in csrc/ops/autocast.cpp.

This module imports nothing of gradtrack but ``_C``: the functional modules import it.
"""

import functools
import sys

from . import _C

_enabled = _C._autocast.enabled
_to_float32 = _C._autocast.to_float32
_Tensor = _C.Tensor


def _widen(x):
    if isinstance(x, _Tensor):
        return _to_float32(x)
    if isinstance(x, (list, tuple)) and any(isinstance(v, _Tensor) for v in x):
        return type(x)(_widen(v) for v in x)
    return x


def runs_in_float32(fn):
    """``fn``, with its bfloat16 and float16 tensor arguments cast to float32 while a CPU
    autocast region is open (torch's "fp32" op list); outside one, ``fn`` as it is.

    >>> import gradtrack
    >>> from gradtrack._autocast import runs_in_float32
    >>> twice = runs_in_float32(lambda x: x * 2)
    >>> with gradtrack.autocast("cpu"):
    ...     twice(gradtrack.ones(2, dtype=gradtrack.bfloat16)).dtype
    gradtrack.float32
    """
    @functools.wraps(fn)
    def in_float32(*args, **kwargs):
        if _enabled():
            args = tuple(_widen(a) for a in args)
            kwargs = {k: _widen(v) for k, v in kwargs.items()}
        return fn(*args, **kwargs)
    return in_float32


# NOTE [Warnings see through runs_in_float32]
# The decorator puts a frame between a function and its caller that torch's function does
# not have, so a warning raised with torch's fixed stacklevel would name the decorator's
# line (and, under the "default" filter, count every caller as that one line). A warning
# raised anywhere below a decorated function takes stacklevel=warn_level(n) instead of
# stacklevel=n: the frame n names when the decorator's frames are not counted.
_WRAPPER_CODE = runs_in_float32(len).__code__


def warn_level(stacklevel=2):
    """The ``stacklevel`` for a ``warnings.warn`` in the calling function that names the
    frame torch's ``stacklevel`` names: NOTE [Warnings see through runs_in_float32].

    >>> from gradtrack._autocast import runs_in_float32, warn_level
    >>> runs_in_float32(lambda: warn_level(2))()
    3
    """
    frame, level = sys._getframe(1), 1
    while stacklevel > 1 and frame.f_back is not None:
        frame, level = frame.f_back, level + 1
        if frame.f_code is not _WRAPPER_CODE:
            stacklevel -= 1
    return level


class without_autocast:
    """A region with CPU autocast off: an op that torch runs as one kernel but gradtrack
    composes of ops on the lower-precision list (matmul) must not cast inside.

    >>> import gradtrack
    >>> from gradtrack._autocast import without_autocast
    >>> with gradtrack.autocast("cpu"), without_autocast():
    ...     (gradtrack.ones(2, 2) @ gradtrack.ones(2, 2)).dtype
    gradtrack.float32
    """

    __slots__ = ("prev",)

    def __enter__(self):
        self.prev = _C._autocast.state()
        if self.prev[0]:
            _C._autocast.set_state(False, self.prev[1], self.prev[2])
        return self

    def __exit__(self, *exc):
        if self.prev[0]:
            _C._autocast.set_state(*self.prev)
        return False
