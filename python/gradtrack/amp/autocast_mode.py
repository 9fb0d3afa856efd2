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
    # torch's defaults (measured): bfloat16 on cpu, hpu, xla and maia, float16 elsewhere
    return _C.bfloat16 if device_type in ("cpu", "xla", "hpu", "maia") else _C.float16


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
    _check_flagged(device_type)
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
    if device_type not in _dtypes and device_type not in _FLAGGED_DEVICES:
        raise RuntimeError("unsupported scalarType")  # torch's words: no default dtype there
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
    warnings.warn("gradtrack.is_autocast_cpu_enabled() is deprecated. Please use "
                  "gradtrack.is_autocast_enabled('cpu') instead.", DeprecationWarning,
                  stacklevel=2)
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
    warnings.warn("gradtrack.get_autocast_cpu_dtype() is deprecated. Please use "
                  "gradtrack.get_autocast_dtype('cpu') instead.", DeprecationWarning,
                  stacklevel=2)
    return get_autocast_dtype("cpu")


# The devices whose autocast flag torch keeps (the others raise when it is set or read).
_FLAGGED_DEVICES = ("cpu", "cuda", "ipu", "xpu", "maia", "xla", "mps", "hpu", "mtia",
                    "privateuseone")
_UNSET = object()


def _check_flagged(device_type):
    _check_device_type(device_type)
    if device_type not in _FLAGGED_DEVICES:
        raise RuntimeError("unknown device type for autocast in "
                           "get_autocast_dispatch_key_from_device_type")


def _parser_type(value):
    t = type(value)
    if isinstance(value, _C.Tensor):
        return "Tensor"
    if isinstance(value, _C.dtype):
        return "gradtrack.dtype"
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"


def _must_be(op, arg, position, kind, value):
    raise TypeError(f"{op}(): argument '{arg}' (position {position}) must be {kind}, not "
                    f"{_parser_type(value)}")


def set_autocast_enabled(device_type=_UNSET, enabled=_UNSET):
    """Turns autocast of ``device_type`` on or off outside any region; with only
    ``enabled``, CUDA's flag (torch's older form). Nothing is cast until an op runs.

    >>> import gradtrack
    >>> gradtrack.set_autocast_enabled("cpu", True)
    >>> gradtrack.is_autocast_enabled("cpu")
    True
    >>> gradtrack.set_autocast_enabled("cpu", False)
    """
    if enabled is _UNSET:
        if device_type is _UNSET:
            raise TypeError("set_autocast_enabled() received an invalid combination of "
                            "arguments - got (), but expected one of:\n"
                            " * (str device_type, bool enabled)\n * (bool enabled)\n")
        device_type, enabled = "cuda", device_type
        if not isinstance(enabled, bool):
            _must_be("set_autocast_enabled", "enabled", 1, "bool", enabled)
    elif device_type is _UNSET:  # set_autocast_enabled(enabled=...): CUDA's flag
        device_type = "cuda"
        if not isinstance(enabled, bool):
            _must_be("set_autocast_enabled", "enabled", 1, "bool", enabled)
    else:
        if not isinstance(device_type, str):
            _must_be("set_autocast_enabled", "device_type", 1, "str", device_type)
        if not isinstance(enabled, bool):
            _must_be("set_autocast_enabled", "enabled", 2, "bool", enabled)
    _check_flagged(device_type)
    if device_type == "cpu":
        state = _cpu_state()
        _set_cpu_state(enabled, state[1], state[2])
    else:
        _enabled[device_type] = enabled


def set_autocast_dtype(device_type, dtype):
    """Sets the dtype autocast regions of ``device_type`` cast to (torch takes any dtype
    here; ``autocast`` itself checks it).

    >>> import gradtrack
    >>> gradtrack.set_autocast_dtype("cpu", gradtrack.float16)
    >>> gradtrack.get_autocast_dtype("cpu")
    gradtrack.float16
    >>> gradtrack.set_autocast_dtype("cpu", gradtrack.bfloat16)
    """
    if not isinstance(device_type, str):
        _must_be("set_autocast_dtype", "device_type", 1, "str", device_type)
    if not isinstance(dtype, _C.dtype):
        _must_be("set_autocast_dtype", "dtype", 2, "gradtrack.dtype", dtype)
    _check_device_type(device_type)
    if device_type == "cpu":
        state = _cpu_state()
        _set_cpu_state(state[0], dtype, state[2])
    else:
        _dtypes[device_type] = dtype


def _no_keywords(name, kwargs):
    if kwargs:
        raise TypeError(f"gradtrack.{name}() takes no keyword arguments")


def _one_argument(name, args, kwargs):
    _no_keywords(name, kwargs)
    if len(args) != 1:
        raise TypeError(f"gradtrack.{name}() takes exactly one argument ({len(args)} given)")
    return args[0]


def set_autocast_cpu_enabled(*args, **kwargs):
    """Deprecated form of ``set_autocast_enabled("cpu", enabled)``, with torch's warning.

    >>> import gradtrack
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     gradtrack.set_autocast_cpu_enabled(False)
    """
    enabled = _one_argument("set_autocast_cpu_enabled", args, kwargs)
    if not isinstance(enabled, bool):
        raise TypeError(f"enabled must be a bool (got {_parser_type(enabled)})")
    warnings.warn("gradtrack.set_autocast_cpu_enabled(enabled) is deprecated. Please use "
                  "gradtrack.set_autocast_enabled('cpu', enabled) instead.", DeprecationWarning,
                  stacklevel=2)
    set_autocast_enabled("cpu", enabled)


def set_autocast_cpu_dtype(*args, **kwargs):
    """Deprecated form of ``set_autocast_dtype("cpu", dtype)``, with torch's warning.

    >>> import gradtrack
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     gradtrack.set_autocast_cpu_dtype(gradtrack.bfloat16)
    """
    dtype = _one_argument("set_autocast_cpu_dtype", args, kwargs)
    if not isinstance(dtype, _C.dtype):
        raise TypeError(f"dtype must be a gradtrack.dtype (got {_parser_type(dtype)})")
    warnings.warn("gradtrack.set_autocast_cpu_dtype(dtype) is deprecated. Please use "
                  "gradtrack.set_autocast_dtype('cpu', dtype) instead.", DeprecationWarning,
                  stacklevel=2)
    set_autocast_dtype("cpu", dtype)


def set_autocast_cache_enabled(*args, **kwargs):
    """Whether autocast keeps its cast weights until the outermost region closes.

    >>> import gradtrack
    >>> gradtrack.set_autocast_cache_enabled(False)
    >>> gradtrack.is_autocast_cache_enabled()
    False
    >>> gradtrack.set_autocast_cache_enabled(True)
    """
    enabled = _one_argument("set_autocast_cache_enabled", args, kwargs)
    if not isinstance(enabled, bool):
        raise TypeError(f"enabled must be a bool (got {_parser_type(enabled)})")
    state = _cpu_state()
    _set_cpu_state(state[0], state[1], enabled)


def _no_arguments(name, args, kwargs):
    _no_keywords(name, kwargs)
    if args:
        raise TypeError(f"gradtrack.{name}() takes no arguments ({len(args)} given)")


def clear_autocast_cache(*args, **kwargs):
    """Drops the cast weights autocast keeps (the outermost region's exit does it too).

    >>> import gradtrack
    >>> gradtrack.clear_autocast_cache()
    """
    _no_arguments("clear_autocast_cache", args, kwargs)
    _C._autocast.clear_cache()


def autocast_increment_nesting(*args, **kwargs):
    """Counts one more open autocast region (what ``autocast.__enter__`` does) and
    returns the count.

    >>> import gradtrack
    >>> gradtrack.autocast_increment_nesting()
    1
    >>> gradtrack.autocast_decrement_nesting()
    0
    """
    _no_arguments("autocast_increment_nesting", args, kwargs)
    _nesting.depth = getattr(_nesting, "depth", 0) + 1
    return _nesting.depth


def autocast_decrement_nesting(*args, **kwargs):
    """Counts one region fewer and returns the count (torch lets it go below zero); the
    caller clears the cache when it reaches 0, as ``autocast.__exit__`` does.

    >>> import gradtrack
    >>> gradtrack.autocast_increment_nesting()
    1
    >>> gradtrack.autocast_decrement_nesting()
    0
    """
    _no_arguments("autocast_decrement_nesting", args, kwargs)
    _nesting.depth = getattr(_nesting, "depth", 0) - 1
    return _nesting.depth


def get_autocast_gpu_dtype(*args, **kwargs):
    """Deprecated form of ``get_autocast_dtype("cuda")``, with torch's warning.

    >>> import gradtrack
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     gradtrack.get_autocast_gpu_dtype()
    gradtrack.float16
    """
    _no_arguments("get_autocast_gpu_dtype", args, kwargs)
    warnings.warn("gradtrack.get_autocast_gpu_dtype() is deprecated. Please use "
                  "gradtrack.get_autocast_dtype('cuda') instead.", DeprecationWarning, stacklevel=2)
    return get_autocast_dtype("cuda")


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
             is_autocast_cpu_enabled, get_autocast_cpu_dtype, set_autocast_enabled,
             set_autocast_dtype, set_autocast_cpu_enabled, set_autocast_cpu_dtype,
             set_autocast_cache_enabled, clear_autocast_cache, autocast_increment_nesting,
             autocast_decrement_nesting, get_autocast_gpu_dtype)
NAMES = {"autocast": autocast}
