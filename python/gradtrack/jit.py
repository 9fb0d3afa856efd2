"""``torch.jit`` for code written to be scriptable: gradtrack has no TorchScript
compiler, so ``script`` and ``trace`` give back what they were given, which then runs
eagerly with the same results (with torch's deprecation warning for each, no other).
``is_scripting()``/``is_tracing()`` answer False; ``ignore``, ``unused``, ``export``,
``annotate`` and ``Final`` are what they are in eager torch.

>>> import gradtrack
>>> @gradtrack.jit.script
... def double(x):
...     return x * 2
>>> double(gradtrack.ones(2))
tensor([2., 2.])
"""

import typing
import warnings

Final = typing.Final


def _deprecated(name):
    warnings.warn(f"`torch.jit.{name}` is deprecated. Please switch to `torch.compile` or "
                  "`torch.export`.", DeprecationWarning, stacklevel=3)


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """Gives ``obj`` (a function or a Module) back unchanged: gradtrack runs it eagerly.

    >>> import gradtrack
    >>> gradtrack.jit.script(abs)(-1)
    1
    """
    _deprecated("script")
    return obj


def trace(func, example_inputs=None, *args, **kwargs):
    """Gives ``func`` back unchanged (no tracing: it runs eagerly, as it was written).

    >>> import gradtrack
    >>> gradtrack.jit.trace(abs, (gradtrack.ones(1),))(-1)
    1
    """
    _deprecated("trace")
    return func


def is_scripting() -> bool:
    """False: code never runs under TorchScript in gradtrack.

    >>> import gradtrack
    >>> gradtrack.jit.is_scripting()
    False
    """
    return False


def is_tracing() -> bool:
    """False: nothing is traced in gradtrack.

    >>> import gradtrack
    >>> gradtrack.jit.is_tracing()
    False
    """
    return False


def ignore(drop=False, **kwargs):
    """Marks a function for the compiler to leave as Python; here, returns it as it is.

    >>> import gradtrack
    >>> gradtrack.jit.ignore(abs) is abs
    True
    """
    if callable(drop):
        return drop
    if drop:
        warnings.warn("ignore(True) has been deprecated. TorchScript will now drop the function "
                      "call on compilation. Use torch.jit.unused now. {}", FutureWarning,
                      stacklevel=2)
    return lambda fn: fn


def unused(fn):
    """Marks a function the compiler skips; here, returns it as it is.

    >>> import gradtrack
    >>> gradtrack.jit.unused(abs) is abs
    True
    """
    return fn


def export(fn):
    """Marks a method for the compiler to compile; here, returns it as it is.

    >>> import gradtrack
    >>> gradtrack.jit.export(abs) is abs
    True
    """
    return fn


def annotate(the_type, the_value):
    """Gives a value a type for the compiler; here, returns ``the_value``.

    >>> import gradtrack
    >>> gradtrack.jit.annotate(list, [1])
    [1]
    """
    return the_value
