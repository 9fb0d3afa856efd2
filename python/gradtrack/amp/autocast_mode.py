"""``torch.autocast``: the autocast regions and their per-device state, as torch keeps
them (nesting, ``enabled=False`` sub-regions, the default dtypes, torch's warnings when
a region is disabled).

NOTE [Autocast on the CPU]
Inside an enabled ``torch.autocast("cpu")`` region, the ops torch's CPU autocast runs in
lower precision (matmul, mm, bmm, addmm, baddbmm, addbmm, linear, the convolutions,
prelu, scaled_dot_product_attention) cast their floating inputs other than float64 to the
region's dtype (bfloat16 by default, or float16), and the ops it runs in float32 (the
losses, prod, cdist, trace, the reflection and replication pads) cast bfloat16 and float16
inputs to float32; every other op runs in the dtype of its inputs. The casts are
differentiable copies (ToCopyBackward0), so gradients reach float32 parameters in float32.
The cast of a float32 weight (a leaf that requires grad) is made once per region and
reused until the outermost region closes, as torch's cache. The state is per thread.
Regions that torch disables (``enabled=False``, CUDA on a CPU-only machine, a dtype
torch's CPU autocast refuses) run exactly as in torch.

>>> import gradtrack
>>> with gradtrack.autocast("cpu", enabled=False):
...     gradtrack.is_autocast_enabled("cpu")
False
"""

import functools
import threading
import warnings

from .. import _C

_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
                 "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                 "privateuseone")
_AUTOCAST_DEVICES = ("cpu", "cuda", "ipu", "xpu", "maia", "xla", "mps", "hpu", "mtia",
                     "privateuseone")
# Devices other than the CPU never enable a region here (no CUDA); their flags are kept
# for torch's answers. The CPU's state lives in C++ (_C._autocast), per thread.
_enabled = {}
_dtypes = {}
_nesting = threading.local()
_cpu_state = _C._autocast.state
_set_cpu_state = _C._autocast.set_state


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
    if device_type == "cpu":
        return _cpu_state()[0]
    return _enabled.get(device_type, False)


def get_autocast_dtype(device_type: str):
    """The dtype autocast regions of ``device_type`` cast to (bfloat16 on the CPU).

    >>> import gradtrack
    >>> gradtrack.get_autocast_dtype("cpu")
    gradtrack.bfloat16
    """
    _check_device_type(device_type)
    if device_type == "cpu":
        return _cpu_state()[1]
    return _dtypes.get(device_type) or _default_dtype(device_type)


def is_autocast_cache_enabled() -> bool:
    """Whether autocast keeps its cast weights for the region (torch's default: True).

    >>> import gradtrack
    >>> gradtrack.is_autocast_cache_enabled()
    True
    """
    return _cpu_state()[2]


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

    On the CPU the listed ops run in bfloat16 (or ``dtype``) and the losses in float32
    (NOTE [Autocast on the CPU]); the regions torch disables on a CPU-only machine (CUDA)
    run as in torch.

    >>> import gradtrack
    >>> with gradtrack.autocast("cpu"):
    ...     y = gradtrack.ones(2, 2) @ gradtrack.ones(2, 2)
    >>> y.dtype
    gradtrack.bfloat16
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
        self.prev_cpu = _cpu_state()
        _nesting.depth = getattr(_nesting, "depth", 0) + 1
        if self.device == "cpu":
            _set_cpu_state(self._enabled, self.fast_dtype, self._cache_enabled)
        else:
            self.prev = _enabled.get(self.device, False)
            self.prev_fastdtype = get_autocast_dtype(self.device)
            _enabled[self.device] = self._enabled
            _dtypes[self.device] = self.fast_dtype
            # the cache flag is shared by every device, as torch's
            _set_cpu_state(self.prev_cpu[0], self.prev_cpu[1], self._cache_enabled)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        _nesting.depth -= 1
        if _nesting.depth == 0:
            _C._autocast.clear_cache()
        if self.device != "cpu":
            _enabled[self.device] = self.prev
            _dtypes[self.device] = self.prev_fastdtype
        _set_cpu_state(*self.prev_cpu)
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def decorated(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return decorated


def _cast_floating(value, dtype):
    """``value`` with its floating tensors other than float64 cast to ``dtype``, through
    lists, tuples and dicts."""
    if isinstance(value, _C.Tensor):
        if value.is_floating_point() and value.dtype != _C.float64:
            return value.to(dtype)
        return value
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_floating(v, dtype) for v in value)
    if isinstance(value, dict):
        return {k: _cast_floating(v, dtype) for k, v in value.items()}
    return value


def custom_fwd(fwd=None, *, device_type: str, cast_inputs=None):
    """Decorates a custom Function's ``forward`` for autocast, as torch's: records on the
    context whether autocast was on (for :func:`custom_bwd`); with ``cast_inputs``, inside
    an enabled region, casts the floating inputs to it and runs ``forward`` with autocast
    off.

    >>> import gradtrack
    >>> class Double(gradtrack.autograd.Function):
    ...     @staticmethod
    ...     @gradtrack.amp.custom_fwd(device_type="cpu", cast_inputs=gradtrack.float32)
    ...     def forward(ctx, x):
    ...         return x * 2
    ...     @staticmethod
    ...     @gradtrack.amp.custom_bwd(device_type="cpu")
    ...     def backward(ctx, g):
    ...         return g * 2
    >>> with gradtrack.autocast("cpu"):
    ...     Double.apply(gradtrack.ones(2, dtype=gradtrack.bfloat16)).dtype
    gradtrack.float32
    """
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        ctx = args[0]
        ctx._dtype = get_autocast_dtype(device_type)
        on = is_autocast_enabled(device_type)
        if cast_inputs is None:
            ctx._fwd_used_autocast = on
            return fwd(*args, **kwargs)
        ctx._fwd_used_autocast = False
        if not on:
            return fwd(*args, **kwargs)
        with autocast(device_type=device_type, enabled=False):
            return fwd(*_cast_floating(args, cast_inputs), **_cast_floating(kwargs, cast_inputs))
    return decorate_fwd


def custom_bwd(bwd=None, *, device_type: str):
    """Decorates a custom Function's ``backward`` for autocast, as torch's: it runs in the
    autocast state its ``forward`` ran in (see :func:`custom_fwd`).

    >>> import gradtrack
    >>> gradtrack.amp.custom_bwd(device_type="cpu")  # doctest: +ELLIPSIS
    functools.partial(<function custom_bwd at ...>, device_type='cpu')
    """
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        ctx = args[0]
        with autocast(device_type=device_type, enabled=ctx._fwd_used_autocast, dtype=ctx._dtype):
            return bwd(*args, **kwargs)
    return decorate_bwd


FUNCTIONS = (is_autocast_enabled, get_autocast_dtype, is_autocast_cache_enabled,
             is_autocast_cpu_enabled, get_autocast_cpu_dtype)
NAMES = {"autocast": autocast}
