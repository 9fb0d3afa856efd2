"""``out=`` with torch's rules, for the functions that take it.

NOTE [out= rules] (measured on torch 2.13)
- with grad mode on, any tensor argument (out included) that requires grad
  is refused: "<name>(): functions with out=... arguments don't support
  automatic differentiation, but one of the arguments requires grad.";
- the result is written into ``out`` in place: its ``_version`` bumps once
  and views of it see the write (the elementwise functions compute straight
  into it: NOTE [out= written in place] in csrc/ops/common.h);
- an ``out`` of another shape is resized first, with torch's deprecation
  warning when it had elements; it keeps its storage when that holds the new
  shape, and a resized ``out`` takes the result's layout;
- a forward-AD tangent on any argument, or on ``out``, is refused;
- elementwise ops refuse a result dtype that cannot be cast to ``out``'s
  ("result type Float can't be cast to the desired output type Long");
  reductions and scans cast freely;
- ops returning (values, indices) take a tuple of two tensors.
"""

import functools
import os
import sys
import warnings

from . import _C
from ._dtype_names import SCALAR_NAME as _NAME
from ._dtype_names import dtype_key as _key

_RESIZED = ("An output with one or more elements was resized since it had shape {old}, which does "
            "not match the required output shape {new}. This behavior is deprecated, and in a "
            "future PyTorch release outputs will not be resized unless they have zero elements. "
            "You can explicitly reuse an out tensor t by resizing it, inplace, to zero elements "
            "with t.resize_(0).")
_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep
_KIND = {"bool": 0, "uint8": 1, "int32": 1, "int64": 1, "float32": 2, "float64": 2,
         "int8": 1, "int16": 1, "float16": 2, "bfloat16": 2}


def _shape(t):
    return "[" + ", ".join(str(s) for s in t.shape) + "]"


def check_grad(name, args, out, differentiable=True):
    """torch's refusals before an out= write: a forward-AD tangent on any
    argument (or out), and, for a ``differentiable`` function with grad mode
    on, an argument (or out) that requires grad."""
    _C._inplace.check_out_tangents(name, out, tuple(args))
    if not differentiable or not _C.is_grad_enabled():
        return
    if _any_requires_grad(args) or _any_requires_grad((out,)):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support "
                           "automatic differentiation, but one of the arguments requires grad.")


def _any_requires_grad(items):
    """True if a tensor in ``items``, or in a tuple/list in it (cat's), requires grad."""
    tensor = _C.Tensor
    for a in items:
        if isinstance(a, tensor):
            if a.requires_grad:
                return True
        elif isinstance(a, (tuple, list)) and _any_requires_grad(a):
            return True
    return False


def _caller_level():
    """The ``stacklevel`` that makes a warning raised in the calling function
    name the first frame outside gradtrack, however many of the package's
    wrappers lie between (the out= paths go through two to four)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level


def write(out, result, strict_cast):
    """Writes ``result`` into ``out`` (resized if needed); returns ``out``."""
    if strict_cast and _KIND[_key(result.dtype)] > _KIND[_key(out.dtype)]:
        raise RuntimeError(f"result type {_NAME[_key(result.dtype)]} can't be cast to the desired "
                           f"output type {_NAME[_key(out.dtype)]}")
    if tuple(out.shape) != tuple(result.shape):
        if out.numel() != 0:
            warnings.warn(_RESIZED.format(old=_shape(out), new=_shape(result)), UserWarning,
                          stacklevel=_caller_level())
        _C._inplace.resize_out(out, result)
    with _no_grad():
        out.copy_(result)
    return out


class _GradOff:
    """Grad mode off for a ``with`` block: ``no_grad`` without its decorator
    machinery and import. Every out= call enters two (the op, the write); with
    ``no_grad`` they were half of out='s ~10 us fixed cost."""

    __slots__ = ("prev",)

    def __enter__(self):
        self.prev = _C.is_grad_enabled()
        _C._set_grad_enabled(False)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)


_no_grad = _GradOff


def call(name, fn, args, kwargs, out, strict_cast=False):
    """``fn(*args, **kwargs)`` written into ``out`` (a tensor, or a tuple of
    tensors for a tuple result)."""
    check_grad(name, (*args, *kwargs.values()), out)
    with _no_grad():
        result = fn(*args, **kwargs)
    return write_result(name, out, result, strict_cast)


def write_result(name, out, result, strict_cast=False, refusal=None):
    """Writes ``result`` (a tensor, or a tuple of them) into ``out`` (a tensor,
    or a tuple of as many); returns what the op returns. ``refusal(o, r)``, if
    given, returns torch's error for writing r into o, or None: every pair is
    checked before the first write."""
    if isinstance(result, tuple):
        if not isinstance(out, (tuple, list)) or len(out) != len(result):
            raise TypeError(f"{name}(): argument 'out' must be tuple of Tensors")
        pairs = tuple(zip(out, result))
    else:
        pairs = ((out, result),)
    for o, r in pairs if refusal is not None else ():
        error = refusal(o, r)
        if error is not None:
            raise error
    for o, r in pairs:
        write(o, r, strict_cast)
    return type(result)(tuple(out)) if isinstance(result, tuple) else out


def accepts_out(name, strict_cast=False):
    """Decorates ``fn`` so that ``out=`` routes through :func:`call`."""
    def wrap(fn):
        @functools.wraps(fn)
        def with_out(*args, out=None, **kwargs):
            if out is None:
                return fn(*args, **kwargs)
            return call(name, fn, args, kwargs, out, strict_cast)

        def signature():
            import inspect

            sig = inspect.signature(fn)
            out_param = inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None)
            return sig.replace(parameters=[*sig.parameters.values(), out_param])
        return fast_path(fn, lazy_signature(with_out, signature), ("out",))
    return wrap


def lazy_signature(wrapper, make):
    """``wrapper``, whose ``__signature__`` ``make()`` builds on first read once
    ``wrapper`` is inside a :func:`fast_path` (NOTE [Lazy signatures] in
    csrc/python/bind_fast_path.cpp): building them all made a tenth of
    ``import gradtrack``."""
    wrapper.__dict__.pop("__wrapped__", None)
    wrapper._gt_signature = make
    return wrapper


def fast_path(fn, wrapper, triggers, owner=""):
    """``wrapper``, except that a call given none of the keywords ``triggers``
    calls ``fn`` directly, with no Python frame (NOTE [The out= fast path] in
    csrc/python/bind_fast_path.cpp). ``wrapper`` must do just that itself when
    none of them is given; a ``fn`` that is already a fast path is unwrapped so
    that a plain call skips every layer. It will live at
    ``gradtrack.<owner>.<name>`` (``owner`` "" for the module itself, "Tensor"
    for a method): its name there is how it pickles."""
    from . import _C

    wrapper.__module__ = "gradtrack"
    wrapper.__qualname__ = f"{owner}.{wrapper.__name__}" if owner else wrapper.__name__

    inner = getattr(fn, "_gt_fast", None)
    if inner is not None:
        triggers = tuple(fn._gt_triggers) + tuple(triggers)
        fn = inner
    return _C._fast_path(fn, wrapper, tuple(triggers))
