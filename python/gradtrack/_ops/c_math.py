"""The C library's math functions, for the samplers that compute as torch's kernels do
(``binomial``'s log1pf, ``poisson``'s lgamma)."""

import functools


@functools.cache
def libm():
    """The C math library, loaded on first use. The usual name is tried first:
    ``ctypes.util``'s search imports subprocess and may start processes, which cost
    ``import gradtrack`` 10 ms when it was imported up front; ctypes itself is imported
    here too, for the same reason (NOTE [Loaded on first use])."""
    import ctypes

    try:
        return ctypes.CDLL("libm.so.6")
    except OSError:
        from ctypes.util import find_library  # noqa: PLC0415 - only where it is missing

        return ctypes.CDLL(find_library("m"))
