"""``torch.autocast``: the autocast regions and their per-device state, as torch keeps
them (nesting, ``enabled=False`` sub-regions, the default dtypes, torch's warnings when
a region is disabled).

NOTE [Autocast on the CPU]
torch's CPU autocast runs a list of ops (matmul, linear, conv, ...) in bfloat16 and
another list in float32. gradtrack does not cast ops yet, so entering an *enabled*
CPU region raises NotImplementedError instead of computing in float32 where torch would
give bfloat16 results: a different dtype without an error would be a wrong answer.
Regions that torch disables (``enabled=False``, CUDA on a CPU-only machine, a dtype
torch's CPU autocast refuses) run exactly as in torch.

>>> import gradtrack
>>> with gradtrack.autocast("cpu", enabled=False):
...     gradtrack.is_autocast_enabled("cpu")
False
"""

import functools
import warnings

from .. import _C

_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
                 "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                 "privateuseone")
_AUTOCAST_DEVICES = ("cpu", "cuda", "ipu", "xpu", "maia", "xla", "mps", "hpu", "mtia",
                     "privateuseone")
_enabled = {}
_dtypes = {}
_cache = {"enabled": True}


def _default_dtype(device_type):
    return _C.bfloat16 if device_type in ("cpu", "ipu", "xla", "hpu", "mtia") else _C.float16


def _check_device_type(device_type):
    if device_type not in _DEVICE_TYPES:
        raise RuntimeError("Expected one of " + ", ".join(_DEVICE_TYPES)
                           + " device type at start of device string: " + str(device_type))


def is_autocast_available(device_type: str) -> bool:
    """Whether ``torch.autocast`` takes ``device_type``, as torch answers.

    >>> import gradtrack
    >>> gradtrack.amp.is_autocast_available("cpu")
    True
    """
    _check_device_type(device_type)
    return device_type in _AUTOCAST_DEVICES


def is_autocast_enabled(device_type: str = "cuda") -> bool:
    """Whether an enabled autocast region of ``device_type`` is open (torch's default: cuda).

    >>> import gradtrack
    >>> gradtrack.is_autocast_enabled("cpu")
    False
    """
    _check_device_type(device_type)
    return _enabled.get(device_type, False)


def get_autocast_dtype(device_type: str):
    """The dtype autocast regions of ``device_type`` cast to (bfloat16 on the CPU).

    >>> import gradtrack
    >>> gradtrack.get_autocast_dtype("cpu")
    gradtrack.bfloat16
    """
    _check_device_type(device_type)
    return _dtypes.get(device_type) or _default_dtype(device_type)


def is_autocast_cache_enabled() -> bool:
    """Whether autocast keeps its cast weights for the region (torch's default: True).

    >>> import gradtrack
    >>> gradtrack.is_autocast_cache_enabled()
    True
    """
    return _cache["enabled"]


def is_autocast_cpu_enabled() -> bool:
    """Deprecated form of ``is_autocast_enabled("cpu")``, with torch's warning.

    >>> import gradtrack
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     gradtrack.is_autocast_cpu_enabled()
    False
    """
    warnings.warn("torch.is_autocast_cpu_enabled() is deprecated. Please use "
                  "torch.is_autocast_enabled('cpu') instead.", DeprecationWarning, stacklevel=2)
    return is_autocast_enabled("cpu")


def get_autocast_cpu_dtype():
    """Deprecated form of ``get_autocast_dtype("cpu")``, with torch's warning.

    >>> import gradtrack
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     gradtrack.get_autocast_cpu_dtype()
    gradtrack.bfloat16
    """
    warnings.warn("torch.get_autocast_cpu_dtype() is deprecated. Please use "
                  "torch.get_autocast_dtype('cpu') instead.", DeprecationWarning, stacklevel=2)
    return get_autocast_dtype("cpu")


class autocast:
    """An autocast region for ``device_type``: a context manager or a decorator, as torch.

    gradtrack does not cast ops yet (NOTE [Autocast on the CPU]): an enabled CPU region
    raises NotImplementedError; ``enabled=False`` and the regions torch disables on a
    CPU-only machine (CUDA) run as in torch.

    >>> import gradtrack
    >>> with gradtrack.autocast("cpu", enabled=False):
    ...     y = gradtrack.ones(2, 2) @ gradtrack.ones(2, 2)
    >>> y.dtype
    gradtrack.float32
    """

    def __init__(self, device_type: str, dtype=None, enabled: bool = True,
                 cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self.device = device_type
        if not is_autocast_available(device_type):
            raise RuntimeError(
                f"User specified an unsupported autocast device_type '{device_type}'")
        self._cache_enabled = is_autocast_cache_enabled() if cache_enabled is None \
            else cache_enabled
        if enabled:
            if device_type == "cuda":
                warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.",
                              stacklevel=2)
                enabled = False
            elif self.fast_dtype not in (_C.bfloat16, _C.float16):
                name = device_type.upper()
                warnings.warn(f"In {name} autocast, but the target dtype is not supported. "
                              f"Disabling autocast.\n{name} Autocast only supports dtypes of "
                              "torch.bfloat16, torch.float16 currently.", stacklevel=2)
                enabled = False
        self._enabled = enabled

    def __enter__(self):
        if self._enabled and self.device == "cpu":
            raise NotImplementedError(
                "gradtrack does not run ops in lower precision under torch.autocast('cpu') yet; "
                "use autocast('cpu', enabled=False), or cast the model and inputs with "
                ".to(torch.bfloat16).")
        self.prev = _enabled.get(self.device, False)
        self.prev_fastdtype = get_autocast_dtype(self.device)
        self.prev_cache_enabled = _cache["enabled"]
        _enabled[self.device] = self._enabled
        _dtypes[self.device] = self.fast_dtype
        _cache["enabled"] = self._cache_enabled
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        _enabled[self.device] = self.prev
        _dtypes[self.device] = self.prev_fastdtype
        _cache["enabled"] = self.prev_cache_enabled
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def decorated(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return decorated


def custom_fwd(fwd=None, *, device_type: str, cast_inputs=None):
    """Decorates a custom Function's ``forward`` for autocast, as torch; with no CPU
    casting in gradtrack it runs ``forward`` as it is.

    >>> import gradtrack
    >>> gradtrack.amp.custom_fwd(device_type="cpu")(abs)(-2)
    2
    """
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)
    return fwd


def custom_bwd(bwd=None, *, device_type: str):
    """Decorates a custom Function's ``backward`` for autocast, as torch (runs it as it is).

    >>> import gradtrack
    >>> gradtrack.amp.custom_bwd(device_type="cpu")(abs)(-2)
    2
    """
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)
    return bwd


FUNCTIONS = (is_autocast_enabled, get_autocast_dtype, is_autocast_cache_enabled,
             is_autocast_cpu_enabled, get_autocast_cpu_dtype)
NAMES = {"autocast": autocast}
