"""Factories of one-dimensional sequences: ``logspace``, the deprecated ``range`` (its end
included) and the window functions of signal processing (``hann_window``,
``hamming_window``, ``bartlett_window``, ``blackman_window``, ``kaiser_window``).

Each is computed as torch's kernel computes it, in the result's dtype and in the same
order of operations (an ``arange`` scaled, then its cosines), so values agree to the last
bit where torch's do not go through a special function.

>>> import gradtrack
>>> gradtrack.hann_window(4)
tensor([0.0000, 0.5000, 1.0000, 0.5000])
"""

import math
import warnings

from .. import _C
from .._legacy import get_default_dtype as _default_dtype


def _float_dtype(name, dtype):
    dtype = _default_dtype() if dtype is None else dtype
    if not dtype.is_floating_point:
        raise RuntimeError(
            f"{name} expects floating point dtypes, got: TensorOptions(dtype="
            f"{_CXX_NAMES.get(str(dtype), str(dtype))}, device=cpu, layout=Strided (default), "
            "requires_grad=false (default), pinned_memory=false, memory_format=(nullopt))")
    return dtype


# torch's error prints the dtype by its C++ type name.
_CXX_NAMES = {"torch.int64": "long int", "torch.int32": "int", "torch.int16": "short int",
              "torch.int8": "signed char", "torch.uint8": "unsigned char", "torch.bool": "bool",
              "gradtrack.int64": "long int", "gradtrack.int32": "int",
              "gradtrack.int16": "short int", "gradtrack.int8": "signed char",
              "gradtrack.uint8": "unsigned char", "gradtrack.bool": "bool"}


def _window(name, window_length, periodic, dtype, device, requires_grad, body):
    dtype = _float_dtype(name, dtype)
    _C._ops.check_device(device)
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, "
                           f"got window_length={window_length}")
    if window_length <= 1:
        out = (_C.empty((0,), dtype=dtype) if window_length == 0
               else _C.ones((1,), dtype=dtype))
    else:
        n = window_length + 1 if periodic else window_length
        out = body(n, dtype)
        if periodic:
            out = out.narrow(0, 0, n - 1).contiguous()
    if requires_grad:
        out.requires_grad_(True)
    return out


def _hamming(alpha, beta):
    def body(n, dtype):
        w = _C.arange(n, dtype=dtype) * (math.pi * 2.0 / (n - 1))
        return w.cos() * -beta + alpha
    return body


def hann_window(window_length, periodic=True, *, dtype=None, device=None,
                requires_grad=False):
    """The Hann window, ``0.5 - 0.5 cos(2 pi n / (N - 1))`` with ``N`` one more than
    ``window_length`` when ``periodic``.

    >>> import gradtrack
    >>> gradtrack.hann_window(4, periodic=False)
    tensor([0.0000, 0.7500, 0.7500, 0.0000])
    """
    return _window("hann_window", window_length, periodic, dtype, device, requires_grad,
                   _hamming(0.5, 0.5))


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None,
                   device=None, requires_grad=False):
    """The Hamming window, ``alpha - beta cos(2 pi n / (N - 1))`` with ``N`` one more
    than ``window_length`` when ``periodic``.

    >>> import gradtrack
    >>> gradtrack.hamming_window(5, False, 0.5, 0.4)
    tensor([0.1000, 0.5000, 0.9000, 0.5000, 0.1000])
    """
    return _window("hamming_window", window_length, periodic, dtype, device, requires_grad,
                   _hamming(alpha, beta))


def _bartlett(n, dtype):
    w = _C.arange(n, dtype=dtype) * (2.0 / (n - 1))
    half = ((n - 1) >> 1) + 1
    return _C.cat([w.narrow(0, 0, half), w.narrow(0, half, n - half) * -1 + 2])


def bartlett_window(window_length, periodic=True, *, dtype=None, device=None,
                    requires_grad=False):
    """The Bartlett (triangular) window: ``1 - |2n / (N - 1) - 1|``.

    >>> import gradtrack
    >>> gradtrack.bartlett_window(5, periodic=False)
    tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])
    """
    return _window("bartlett_window", window_length, periodic, dtype, device, requires_grad,
                   _bartlett)


def _blackman(n, dtype):
    w = _C.arange(n, dtype=dtype) * (math.pi / (n - 1))
    return (w * 4).cos() * 0.08 - (w * 2).cos() * 0.5 + 0.42


def blackman_window(window_length, periodic=True, *, dtype=None, device=None,
                    requires_grad=False):
    """The Blackman window: ``0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))``.

    >>> import gradtrack
    >>> gradtrack.blackman_window(3, periodic=False).abs()
    tensor([2.9802e-08, 1.0000e+00, 2.9802e-08])
    """
    return _window("blackman_window", window_length, periodic, dtype, device, requires_grad,
                   _blackman)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, device=None,
                  requires_grad=False):
    """The Kaiser window: ``I0(beta sqrt(1 - ((n - a) / a)^2)) / I0(beta)``, ``a = (N - 1) / 2``,
    with ``I0`` the modified Bessel function of order zero.

    >>> import gradtrack
    >>> gradtrack.kaiser_window(3, periodic=False, beta=0.0)
    tensor([1., 1., 1.])
    """
    def body(n, dtype):
        a = (n - 1) / 2.0
        ratio = (_C.arange(n, dtype=dtype) - a) / a
        return (((ratio * ratio) * -1 + 1).abs().sqrt() * beta).i0() / _C.tensor(
            float(beta), dtype=dtype).i0()
    return _window("kaiser_window", window_length, periodic, dtype, device, requires_grad, body)


def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False):
    """``steps`` numbers from ``base ** start`` to ``base ** end``, their exponents evenly
    spaced.

    >>> import gradtrack
    >>> gradtrack.logspace(0, 2, 3)
    tensor([  1.,  10., 100.])
    """
    _C._ops.check_device(device)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dtype = _default_dtype() if dtype is None else dtype
    work = dtype if dtype.is_floating_point else _C.float64
    exponents = _C.linspace(start, end, steps, dtype=_C.float64)
    out = _C.tensor(float(base), dtype=_C.float64).pow(exponents)
    if not dtype.is_floating_point:
        out = out.round()
    out = out.to(work).to(dtype)
    if requires_grad:
        out.requires_grad_(True)
    return out


_RANGE_WARNING = ("torch.range is deprecated and will be removed in a future release because "
                  "its behavior is inconsistent with Python's range builtin. Instead, use "
                  "torch.arange, which produces values in [start, end).")


def range(start, end, step=1, *, dtype=None, device=None,  # noqa: A001 - torch's name
          requires_grad=False):
    """Deprecated: the numbers from ``start`` to ``end`` **inclusive**, ``step`` apart
    (use :func:`gradtrack.arange`, whose end is excluded).

    >>> import gradtrack, warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     gradtrack.range(1, 4)
    tensor([1., 2., 3., 4.])
    """
    warnings.warn(_RANGE_WARNING, UserWarning, stacklevel=2)
    _C._ops.check_device(device)
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    dtype = _default_dtype() if dtype is None else dtype
    count = int(math.floor((end - start) / step)) + 1
    out = _C.arange(count, dtype=_C.float64) * float(step) + float(start)
    out = out.to(dtype)
    if requires_grad:
        out.requires_grad_(True)
    return out


FUNCTIONS = (logspace, range, hann_window, hamming_window, bartlett_window, blackman_window,
             kaiser_window)
