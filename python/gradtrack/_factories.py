"""``layout=`` and ``pin_memory=`` on every factory, as torch's CPU build
takes them: ``gradtrack.strided`` is the one layout, and ``pin_memory=True``
raises torch's error (a CPU-only torch 2.13 has no pinned-memory allocator:
measured, it raises the RuntimeError below from every factory).
"""

import functools

from . import _C
from ._wrappers import fast_path, insert_keywords, lazy_signature, param_names, parameters

_PIN = ("pin_memory=True requires a CUDA or other accelerator backend; no pinned memory "
        "allocator is available on this system.")
_ACCEL = "Cannot access accelerator device when none is available."


class layout:  # noqa: N801 - torch's name
    """A tensor memory layout; gradtrack has one, ``gradtrack.strided``.

    >>> import gradtrack
    >>> gradtrack.zeros(2).layout
    gradtrack.strided
    """

    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"gradtrack.{self._name}"

    def __reduce__(self):
        return self._name


strided = layout("strided")


def check(name, layout_arg, pin_memory):
    """torch's refusals of a factory's ``layout`` and ``pin_memory``."""
    if layout_arg is not None:
        if not isinstance(layout_arg, layout):
            raise TypeError(f"{name}(): argument 'layout' must be torch.layout, not "
                            f"{type(layout_arg).__name__}")
        if layout_arg is not strided:
            raise NotImplementedError(f"gradtrack: {name}() supports only layout=gradtrack.strided")
    if pin_memory:
        raise RuntimeError(_PIN)


def with_layout(fn, name, layout_too=True, device_too=False):
    """``fn`` taking (and checking) ``layout=`` and ``pin_memory=`` too
    (only ``pin_memory=`` when not layout_too: ``tensor()``; ``device=`` too
    when device_too: the ``Tensor.new_*`` methods)."""
    passes_layout = "layout" in param_names(fn)
    checks_device = device_too or name == "randint_like"  # their own code does not

    if layout_too:
        @functools.wraps(fn)
        def factory(*args, layout=None, pin_memory=False, **kwargs):
            check(name, layout, pin_memory)
            if checks_device:
                _C._ops.check_device(kwargs.pop("device", None) if device_too
                                       else kwargs.get("device"))
            if passes_layout:
                kwargs["layout"] = layout
            return fn(*args, **kwargs)
    else:
        @functools.wraps(fn)
        def factory(*args, pin_memory=False, **kwargs):
            check(name, None, pin_memory)
            return fn(*args, **kwargs)

    added = (("layout", None), ("pin_memory", False)) if layout_too else (("pin_memory", False),)
    if device_too:
        added = (("device", None), *added)
    return lazy_signature(factory, lambda: insert_keywords(parameters(fn), added))


FACTORIES = ("zeros", "ones", "empty", "full", "arange", "eye", "linspace", "rand", "randn",
             "randint", "randperm", "zeros_like", "ones_like", "empty_like", "full_like",
             "rand_like", "randn_like", "randint_like")
NEW_METHODS = ("new_empty", "new_full", "new_ones", "new_zeros")


def _is_pinned(self, device=None):
    """Always False: gradtrack has no pinned memory (torch's CPU build neither)."""
    return False


def _pin_memory(self, device=None):
    """Raises as torch's CPU-only build does: no accelerator to pin for."""
    raise RuntimeError(_ACCEL)


def install(namespace, tensor_cls):
    """Wraps the factories of ``namespace`` (the gradtrack module's dict) and
    the Tensor's ``new_*`` methods; adds ``Tensor.layout``, ``is_pinned`` and
    ``pin_memory``."""
    for name in FACTORIES:
        if name in namespace:
            fn = namespace[name]
            triggers = ("layout", "pin_memory")
            if name == "randint_like":  # it checks device= in the wrapper
                triggers += ("device",)
            namespace[name] = fast_path(fn, with_layout(fn, name), triggers)
    fn = namespace["tensor"]
    namespace["tensor"] = fast_path(fn, with_layout(fn, "tensor", layout_too=False),
                                    ("pin_memory",))
    for name in NEW_METHODS:
        fn = getattr(tensor_cls, name)
        setattr(tensor_cls, name, fast_path(fn, with_layout(fn, name, device_too=True),
                                            ("device", "layout", "pin_memory"), "Tensor"))
    tensor_cls.layout = property(lambda self: strided, doc="The memory layout: gradtrack.strided.")
    tensor_cls.is_pinned = _is_pinned
    tensor_cls.pin_memory = _pin_memory
    namespace["layout"] = layout
    namespace["strided"] = strided
