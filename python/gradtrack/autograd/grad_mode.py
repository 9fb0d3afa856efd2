"""Grad modes: ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``inference_mode``,
and the backward-threading switch ``set_multithreading_enabled``.

All are thread-local (the grad flags live in C++ per thread), usable as context
managers and as decorators, like PyTorch's.
"""

import functools
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from .. import _C

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "is_inference_mode_enabled", "is_multithreading_enabled", "set_multithreading_enabled",
           "is_view_replay_enabled"]

_CO_GENERATOR = 0x20  # inspect.CO_GENERATOR, without importing inspect (import time)

is_grad_enabled = _C.is_grad_enabled
is_inference_mode_enabled = _C.is_inference_mode_enabled


_F = TypeVar("_F", bound=Callable[..., Any])  # a decorated function keeps its type


class _DecoratorContextManager:
    """A context manager that can also decorate functions and generators."""

    def __call__(self, func: _F) -> _F:
        if getattr(getattr(func, "__code__", None), "co_flags", 0) & _CO_GENERATOR:
            return self._wrap_generator(func)

        @functools.wraps(func)
        def decorated(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return decorated

    def _wrap_generator(self, func):
        @functools.wraps(func)
        def generator(*args, **kwargs):
            gen = func(*args, **kwargs)
            try:
                with self.clone():
                    response = gen.send(None)
                while True:
                    request = yield response
                    with self.clone():
                        response = gen.send(request)
            except StopIteration as e:
                return e.value
        return generator

    def clone(self):
        return self.__class__()


class _NoParamDecoratorContextManager(_DecoratorContextManager):
    """Allows ``@no_grad`` as well as ``@no_grad()``."""

    def __new__(cls, orig_func: Any = None) -> Any:
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamDecoratorContextManager):
    """Results computed inside do not require grad (in-place writes still bump versions).

    >>> import gradtrack
    >>> x = gradtrack.ones(2, requires_grad=True)
    >>> with gradtrack.no_grad():
    ...     y = x * 2
    >>> y.requires_grad
    False
    """

    def __enter__(self):
        self.prev = _C.is_grad_enabled()
        _C._set_grad_enabled(False)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)


class enable_grad(_NoParamDecoratorContextManager):
    """Turns grad mode back on inside a ``no_grad`` block."""

    def __enter__(self):
        self.prev = _C.is_grad_enabled()
        _C._set_grad_enabled(True)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)


class set_grad_enabled(_DecoratorContextManager):
    """Sets grad mode now; as a context manager, restores it on exit.

    >>> import gradtrack
    >>> with gradtrack.set_grad_enabled(False):
    ...     gradtrack.is_grad_enabled()
    False
    """

    def __init__(self, mode: bool) -> None:
        self.prev = _C.is_grad_enabled()
        self.mode = bool(mode)
        _C._set_grad_enabled(self.mode)

    def __call__(self, func):
        _C._set_grad_enabled(self.prev)
        return super().__call__(func)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)

    def clone(self):
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):
    """Like ``no_grad`` (gradtrack has no separate inference tensors).

    Views created inside are remembered as inference-mode views, so writing
    them in place outside raises PyTorch's error.
    """

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode

    def __new__(cls, mode: Any = True) -> Any:
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)

    def __enter__(self) -> None:
        self.prev = (_C.is_grad_enabled(), _C.is_inference_mode_enabled())
        if self.mode:
            _C._set_grad_enabled(False)
            _C._set_inference_mode(True)

    def __exit__(self, *exc: object) -> None:
        _C._set_grad_enabled(self.prev[0])
        _C._set_inference_mode(self.prev[1])

    def clone(self):
        return self.__class__(self.mode)


# NOTE [Backward threading switch]: torch runs backward on per-device worker threads only
# for accelerator devices; CPU graphs always run on the calling thread, whatever the flag.
# gradtrack's engine is CPU-only and never starts threads, so the flag is kept (per
# thread, default True, as torch's) and changes nothing, exactly as on torch's CPU build.
_multithreading = threading.local()


def is_multithreading_enabled() -> bool:
    """Returns True if multithreading is currently enabled.

    The flag is per thread and True by default. gradtrack's engine always runs backward on
    the calling thread (as torch does for CPU tensors), so the flag has no effect on it.

    >>> import gradtrack
    >>> gradtrack.autograd.is_multithreading_enabled()
    True
    """
    return getattr(_multithreading, "enabled", True)


class set_multithreading_enabled(_DecoratorContextManager):
    """Context-manager that enables or disables multithreaded backward.

    As torch's: the flag is set when the object is created (so a plain call sets it),
    and restored on leaving a ``with`` block; it is per thread. Backward in gradtrack
    always runs on the calling thread (torch's behaviour for CPU tensors), so only the
    flag changes.

    >>> import gradtrack
    >>> with gradtrack.autograd.set_multithreading_enabled(False):
    ...     gradtrack.autograd.is_multithreading_enabled()
    False
    >>> gradtrack.autograd.is_multithreading_enabled()
    True
    """

    def __init__(self, mode: bool) -> None:
        if not isinstance(mode, bool):
            raise TypeError("set_multithreading_enabled(): argument 'enabled' (position 1) must "
                            f"be bool, not {type(mode).__name__}")
        self.prev = is_multithreading_enabled()
        _multithreading.enabled = mode
        self.mode = mode

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        _multithreading.enabled = self.prev

    def clone(self) -> "set_multithreading_enabled":
        """A copy of this context manager, with the same mode.

        >>> import gradtrack
        >>> manager = gradtrack.autograd.set_multithreading_enabled(True)
        >>> manager.clone().mode
        True
        """
        return self.__class__(self.mode)


def is_view_replay_enabled() -> bool:
    """Returns True if view-replay is currently enabled.

    Always False in gradtrack: a view whose base was written in place gets its gradient
    through ``as_strided`` (``AsStridedBackward0``), torch's default; gradtrack has no
    switch to replay the chain of views instead.

    >>> import gradtrack
    >>> gradtrack.autograd.is_view_replay_enabled()
    False
    """
    return False
