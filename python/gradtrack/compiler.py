"""``torch.compile`` and ``torch.compiler``: gradtrack has no compiler. ``compile``
gives back the model or function it was given, which runs eagerly with the same
results; ``is_compiling()`` answers False.

>>> import gradtrack
>>> model = gradtrack.compile(gradtrack.nn.Linear(2, 2))
>>> type(model).__name__
'Linear'
"""


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None,  # noqa: A001
            options=None, disable=False, **kwargs):
    """Gives ``model`` back unchanged (gradtrack has no compiler: it runs eagerly); with no
    ``model``, a decorator that does the same.

    >>> import gradtrack
    >>> @gradtrack.compile(mode="reduce-overhead")
    ... def f(x):
    ...     return x + 1
    >>> f(gradtrack.zeros(1))
    tensor([1.])
    """
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified "
                           "at the same time.")
    if model is None:
        return lambda fn: compile(fn, fullgraph=fullgraph, dynamic=dynamic, backend=backend,
                                  mode=mode, options=options, disable=disable, **kwargs)
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    return model


def is_compiling() -> bool:
    """False: nothing is compiled in gradtrack.

    >>> import gradtrack
    >>> gradtrack.compiler.is_compiling()
    False
    """
    return False


def is_dynamo_compiling() -> bool:
    """False: nothing is compiled in gradtrack.

    >>> import gradtrack
    >>> gradtrack.compiler.is_dynamo_compiling()
    False
    """
    return False


def disable(fn=None, recursive=True, *, reason=None):
    """Keeps ``fn`` out of compilation; here, returns it as it is.

    >>> import gradtrack
    >>> gradtrack.compiler.disable(abs) is abs
    True
    """
    if fn is None:
        return lambda f: f
    return fn


def reset() -> None:
    """Clears compilation caches; there are none.

    >>> import gradtrack
    >>> gradtrack.compiler.reset()
    """


FUNCTIONS = (compile,)
