"""Grad modes: ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``inference_mode``.

All are thread-local (the flag lives in C++ per thread), usable as context
managers and as decorators, like PyTorch's.
"""

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from .. import _C

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "is_inference_mode_enabled"]

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
