"""``torch.backends.cuda``: gradtrack has no CUDA, as torch's CPU build.

``matmul.allow_tf32`` and the scaled-dot-product-attention switches are read and set
as in torch (``matmul.allow_tf32`` is the float32 matmul precision, as in torch:
True is ``"high"``); nothing on the CPU reads them.

>>> import gradtrack
>>> gradtrack.backends.cuda.is_built()
False
>>> gradtrack.backends.cuda.matmul.allow_tf32
False
"""

from .. import _settings


def is_built():
    """False: gradtrack is not built with CUDA.

    >>> import gradtrack
    >>> gradtrack.backends.cuda.is_built()
    False
    """
    return False


def _check_bool(value, name):
    if not isinstance(value, bool):
        raise RuntimeError(f"{name} expects a bool, but got {type(value).__name__}")


class cuBLASModule:
    """``torch.backends.cuda.matmul``: the cuBLAS switches, kept as torch keeps them.

    >>> import gradtrack
    >>> gradtrack.backends.cuda.matmul.allow_fp16_reduced_precision_reduction
    True
    """

    _reduced = {"allow_fp16_reduced_precision_reduction": True,
                "allow_fp16_reduced_precision_reduction_split_k": True,
                "allow_bf16_reduced_precision_reduction": True,
                "allow_bf16_reduced_precision_reduction_split_k": True,
                "allow_fp16_accumulation": False}

    def __getattr__(self, name):
        state = _settings._state
        if name == "allow_tf32":
            return state["matmul_precision"] != "highest"
        if name == "fp32_precision":
            if not state["fp32_precision_set"]:
                return "none"
            return "ieee" if state["matmul_precision"] == "highest" else "tf32"
        if name in self._reduced:
            return self._reduced[name]
        raise AttributeError("Unknown attribute " + name)

    def __setattr__(self, name, value):
        state = _settings._state
        if name == "allow_tf32":
            _check_bool(value, "set_allow_tf32_cublas")
            state["matmul_precision"] = "high" if value else "highest"
            state["fp32_precision_set"] = True
        elif name == "fp32_precision":
            if value not in ("ieee", "tf32", "none"):
                raise RuntimeError(f"Unknown precision: {value}")
            state["matmul_precision"] = "high" if value == "tf32" else "highest"
            state["fp32_precision_set"] = value != "none"
        elif name in self._reduced:
            self._reduced[name] = value
        else:
            raise AttributeError("Unknown attribute " + name)


matmul = cuBLASModule()

_sdp = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True,
        "fp16_bf16_reduction_math": False}


def flash_sdp_enabled():
    """Whether flash scaled-dot-product attention may be chosen (torch's default: True).

    >>> import gradtrack
    >>> gradtrack.backends.cuda.flash_sdp_enabled()
    True
    """
    return _sdp["flash"]


def enable_flash_sdp(enabled: bool):
    """Sets the flash scaled-dot-product-attention switch.

    >>> import gradtrack
    >>> gradtrack.backends.cuda.enable_flash_sdp(False)
    >>> gradtrack.backends.cuda.flash_sdp_enabled()
    False
    >>> gradtrack.backends.cuda.enable_flash_sdp(True)
    """
    _sdp["flash"] = enabled


def mem_efficient_sdp_enabled():
    """Whether memory-efficient scaled-dot-product attention may be chosen.

    >>> import gradtrack
    >>> gradtrack.backends.cuda.mem_efficient_sdp_enabled()
    True
    """
    return _sdp["mem_efficient"]


def enable_mem_efficient_sdp(enabled: bool):
    """Sets the memory-efficient scaled-dot-product-attention switch.

    >>> import gradtrack
    >>> gradtrack.backends.cuda.enable_mem_efficient_sdp(False)
    >>> gradtrack.backends.cuda.mem_efficient_sdp_enabled()
    False
    >>> gradtrack.backends.cuda.enable_mem_efficient_sdp(True)
    """
    _sdp["mem_efficient"] = enabled


def math_sdp_enabled():
    """Whether the math scaled-dot-product attention may be chosen (the one gradtrack runs).

    >>> import gradtrack
    >>> gradtrack.backends.cuda.math_sdp_enabled()
    True
    """
    return _sdp["math"]


def enable_math_sdp(enabled: bool):
    """Sets the math scaled-dot-product-attention switch.

    >>> import gradtrack
    >>> gradtrack.backends.cuda.enable_math_sdp(False)
    >>> gradtrack.backends.cuda.math_sdp_enabled()
    False
    >>> gradtrack.backends.cuda.enable_math_sdp(True)
    """
    _sdp["math"] = enabled


def cudnn_sdp_enabled():
    """Whether cuDNN scaled-dot-product attention may be chosen.

    >>> import gradtrack
    >>> gradtrack.backends.cuda.cudnn_sdp_enabled()
    True
    """
    return _sdp["cudnn"]


def enable_cudnn_sdp(enabled: bool):
    """Sets the cuDNN scaled-dot-product-attention switch.

    >>> import gradtrack
    >>> gradtrack.backends.cuda.enable_cudnn_sdp(False)
    >>> gradtrack.backends.cuda.cudnn_sdp_enabled()
    False
    >>> gradtrack.backends.cuda.enable_cudnn_sdp(True)
    """
    _sdp["cudnn"] = enabled


def fp16_bf16_reduction_math_sdp_allowed():
    """Whether the math attention may reduce in half precision (torch's default: False).

    >>> import gradtrack
    >>> gradtrack.backends.cuda.fp16_bf16_reduction_math_sdp_allowed()
    False
    """
    return _sdp["fp16_bf16_reduction_math"]


def allow_fp16_bf16_reduction_math_sdp(enabled: bool):
    """Sets whether the math attention may reduce in half precision.

    >>> import gradtrack
    >>> gradtrack.backends.cuda.allow_fp16_bf16_reduction_math_sdp(True)
    >>> gradtrack.backends.cuda.fp16_bf16_reduction_math_sdp_allowed()
    True
    >>> gradtrack.backends.cuda.allow_fp16_bf16_reduction_math_sdp(False)
    """
    _sdp["fp16_bf16_reduction_math"] = enabled


def is_flash_attention_available():
    """False: no flash attention kernels on the CPU.

    >>> import gradtrack
    >>> gradtrack.backends.cuda.is_flash_attention_available()
    False
    """
    return False
