"""torch's global settings a training script sets once: the float32 matmul precision,
deterministic algorithms and the inter-op thread count.

gradtrack's CPU kernels compute float32 in float32 whatever the precision says (TF32
and bfloat16 passes are GPU/oneDNN formats) and are deterministic already; the
settings are kept, read back and checked as torch keeps them, so scripts that set
them run unchanged.

>>> import gradtrack
>>> gradtrack.get_float32_matmul_precision()
'highest'
"""

import builtins

from . import _C

_state = {"matmul_precision": "highest", "deterministic": False, "warn_only": False,
          "interop_threads": None, "fp32_precision_set": False}
_PRECISIONS = ("highest", "high", "medium")


def set_float32_matmul_precision(precision: str) -> None:
    """Sets the internal precision of float32 matrix products: ``"highest"``, ``"high"`` or
    ``"medium"``, as torch. gradtrack's CPU products always compute in float32.

    >>> import gradtrack
    >>> gradtrack.set_float32_matmul_precision("high")
    >>> gradtrack.get_float32_matmul_precision()
    'high'
    >>> gradtrack.set_float32_matmul_precision("highest")
    """
    if not isinstance(precision, str):
        raise RuntimeError("set_float32_matmul_precision expects a str, but got "
                           f"{type(precision).__name__}")
    if precision not in _PRECISIONS:
        import warnings
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    _state["matmul_precision"] = precision
    _state["fp32_precision_set"] = True


def get_float32_matmul_precision() -> str:
    """The float32 matmul precision set by :func:`set_float32_matmul_precision`.

    >>> import gradtrack
    >>> gradtrack.get_float32_matmul_precision()
    'highest'
    """
    return _state["matmul_precision"]


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Asks for deterministic algorithms, as torch; gradtrack's CPU kernels are already.

    >>> import gradtrack
    >>> gradtrack.use_deterministic_algorithms(True)
    >>> gradtrack.are_deterministic_algorithms_enabled()
    True
    >>> gradtrack.use_deterministic_algorithms(False)
    """
    if not isinstance(mode, builtins.bool):
        raise TypeError("_set_deterministic_algorithms(): argument 'mode' (position 1) must be "
                        f"bool, not {type(mode).__name__}")
    _state["deterministic"] = mode
    _state["warn_only"] = builtins.bool(warn_only) if mode else False


def are_deterministic_algorithms_enabled() -> bool:
    """Whether :func:`use_deterministic_algorithms` was turned on.

    >>> import gradtrack
    >>> gradtrack.are_deterministic_algorithms_enabled()
    False
    """
    return _state["deterministic"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """Whether :func:`use_deterministic_algorithms` was given ``warn_only=True``.

    >>> import gradtrack
    >>> gradtrack.is_deterministic_algorithms_warn_only_enabled()
    False
    """
    return _state["warn_only"]


def set_deterministic_debug_mode(debug_mode) -> None:
    """0/"default", 1/"warn" or 2/"error", as torch (sets deterministic algorithms).

    >>> import gradtrack
    >>> gradtrack.set_deterministic_debug_mode("default")
    >>> gradtrack.get_deterministic_debug_mode()
    0
    """
    modes = {"default": 0, "warn": 1, "error": 2}
    if isinstance(debug_mode, str):
        if debug_mode not in modes:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, "
                               f"`error`, but got {debug_mode}")
        debug_mode = modes[debug_mode]
    if not isinstance(debug_mode, builtins.int) or debug_mode not in (0, 1, 2):
        raise RuntimeError("invalid value of debug_mode, expected 0, 1, or 2, but got "
                           f"{debug_mode}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> int:
    """0, 1 (warn only) or 2, from the deterministic-algorithms setting.

    >>> import gradtrack
    >>> gradtrack.get_deterministic_debug_mode()
    0
    """
    if not _state["deterministic"]:
        return 0
    return 1 if _state["warn_only"] else 2


def get_num_interop_threads() -> int:
    """The inter-op thread count torch reports; gradtrack runs ops one after another.

    >>> import gradtrack
    >>> gradtrack.get_num_interop_threads() >= 1
    True
    """
    count = _state["interop_threads"]
    return count if count is not None else _C.get_num_threads()


def set_num_interop_threads(nthreads: int) -> None:
    """Sets the inter-op thread count once, before parallel work starts, as torch.

    >>> import gradtrack
    >>> gradtrack.set_num_interop_threads  # doctest: +ELLIPSIS
    <function set_num_interop_threads at 0x...>
    """
    if _state["interop_threads"] is not None:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work has "
                           "started or set_num_interop_threads called")
    if not isinstance(nthreads, builtins.int):
        raise RuntimeError("set_num_interop_threads expects an int, but got "
                           f"{type(nthreads).__name__}")
    if nthreads <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    _state["interop_threads"] = nthreads


FUNCTIONS = (set_float32_matmul_precision, get_float32_matmul_precision,
             use_deterministic_algorithms, are_deterministic_algorithms_enabled,
             is_deterministic_algorithms_warn_only_enabled, set_deterministic_debug_mode,
             get_deterministic_debug_mode, get_num_interop_threads, set_num_interop_threads)
