"""``torch.autograd.profiler``: ``record_function`` marks a region of code, as in torch,
so annotated models run unchanged; gradtrack has no profiler yet, so ``profile``
raises NotImplementedError saying so (rather than reporting an empty table).

>>> import gradtrack
>>> with gradtrack.autograd.profiler.record_function("forward"):
...     y = gradtrack.ones(2) * 2
>>> y
tensor([2., 2.])
"""

import functools


class record_function:
    """A named region (a context manager or a decorator); nothing records it in gradtrack.

    >>> import gradtrack
    >>> @gradtrack.autograd.profiler.record_function("step")
    ... def step():
    ...     return 3
    >>> step()
    3
    """

    def __init__(self, name: str, args=None):
        self.name = name
        self.args = args

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        return wrapped


_NO_PROFILER = ("gradtrack has no profiler yet: it does not collect per-op times, so there is "
                "no table or trace to show; time regions with time.perf_counter() instead.")


class profile:
    """Raises NotImplementedError: gradtrack has no profiler yet.

    >>> import gradtrack
    >>> gradtrack.autograd.profiler.profile()  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    NotImplementedError: gradtrack has no profiler yet: ...
    """

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(_NO_PROFILER)
