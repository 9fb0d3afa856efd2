"""Questions about objects and about the build that torch answers at the top level:
``typename``, ``is_storage``, ``get_device``, ``is_inference``, the ``has_*`` flags of
torch's CPU build, ``compiled_with_cxx11_abi`` and the warn-always switch.

>>> import gradtrack
>>> gradtrack.typename(gradtrack.ones(2))
'gradtrack.FloatTensor'
"""

from . import _C

# torch 2.13's CPU build answers True to each (measured): gradtrack has LAPACK (OpenBLAS),
# OpenMP and the spectral functions' place; MKL is torch's BLAS, gradtrack's matching
# products stand in for it.
NAMES = {"has_lapack": True, "has_mkl": True, "has_openmp": True, "has_spectral": True}

_warn_always = [False]


def typename(obj, /) -> str:
    """The type of ``obj`` as a string: a tensor's legacy type name
    (``gradtrack.FloatTensor``), otherwise the class's module and name.

    >>> import gradtrack
    >>> gradtrack.typename(3)
    'int'
    """
    if isinstance(obj, _C.Tensor):
        return obj.type()
    module = getattr(type(obj), "__module__", "") or ""
    name = type(obj).__qualname__
    return name if module in ("", "builtins") else f"{module}.{name}"


def is_storage(obj, /) -> bool:
    """True if ``obj`` is a storage object; gradtrack's tensors keep theirs inside, so a
    tensor (or anything else) gives False.

    >>> import gradtrack
    >>> gradtrack.is_storage(gradtrack.ones(2))
    False
    """
    return False


def _tensor_arg(name, obj):
    if not isinstance(obj, _C.Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(obj).__name__}")


def get_device(input) -> int:  # noqa: A002 - torch's name
    """The device ordinal of ``input``: -1 for a CPU tensor (every gradtrack tensor).

    >>> import gradtrack
    >>> gradtrack.get_device(gradtrack.ones(2))
    -1
    """
    _tensor_arg("get_device", input)
    return -1


def is_inference(input) -> bool:  # noqa: A002 - torch's name
    """True if ``input`` was made in ``inference_mode``.

    >>> import gradtrack
    >>> gradtrack.is_inference(gradtrack.ones(2))
    False
    """
    _tensor_arg("is_inference", input)
    return input.is_inference()


def compiled_with_cxx11_abi() -> bool:
    """True: gradtrack's C++ core is built with the C++11 ABI of libstdc++, as torch 2.13.

    >>> import gradtrack
    >>> gradtrack.compiled_with_cxx11_abi()
    True
    """
    return True


def set_warn_always(b, /) -> None:
    """Makes the warnings torch gives once per process be given every time (``True``)
    or once again (``False``).

    >>> import gradtrack
    >>> gradtrack.set_warn_always(False)
    >>> gradtrack.is_warn_always_enabled()
    False
    """
    if not isinstance(b, bool):
        raise RuntimeError(f"setWarnOnlyOnce expects a bool, but got {type(b).__name__}")
    _warn_always[0] = b


def is_warn_always_enabled() -> bool:
    """Whether :func:`set_warn_always` turned warn-always on.

    >>> import gradtrack
    >>> gradtrack.is_warn_always_enabled()
    False
    """
    return _warn_always[0]


FUNCTIONS = (typename, is_storage, get_device, is_inference, compiled_with_cxx11_abi,
             set_warn_always, is_warn_always_enabled)


def _get_device_method(self) -> int:
    """The device ordinal: -1 for a CPU tensor.

    >>> import gradtrack
    >>> gradtrack.ones(2).get_device()
    -1
    """
    return -1


_get_device_method.__name__ = _get_device_method.__qualname__ = "get_device"

# Where a tensor lives and what kind it is, as torch's flags: a gradtrack tensor is a
# dense, strided CPU tensor (is_cuda is the C++ class's own).
_KIND_FLAGS = ("is_meta", "is_sparse", "is_sparse_csr", "is_quantized", "is_nested",
               "is_mkldnn", "is_xpu", "is_mps", "is_vulkan", "is_ipu", "is_xla", "is_mtia",
               "is_maia")


def _flag(name, value):
    what = "lives on the CPU" if value else "is never of this kind"
    return property(lambda self: value,
                    doc=f"{value}: a gradtrack tensor {what}.\n\n>>> import gradtrack\n"
                        f">>> gradtrack.ones(2).{name}\n{value}\n")


METHODS = {"get_device": _get_device_method, "is_cpu": _flag("is_cpu", True),
           **{name: _flag(name, False) for name in _KIND_FLAGS}}
