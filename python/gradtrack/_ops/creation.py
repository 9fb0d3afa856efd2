"""Making tensors: the factories (bound in C++), ``*_like``, ``as_tensor``,
``Tensor.new_*``, and ``layout=``/``pin_memory=`` as torch's CPU build takes them.

``gradtrack.strided`` is the one layout, and ``pin_memory=True`` raises torch's error
(a CPU-only torch 2.13 has no pinned-memory allocator: measured, it raises the
RuntimeError below from every factory). :func:`wrap` gives every factory those two
keywords when the registry assembles ``gradtrack`` (NOTE [One registry] in
``_registry.py``), before ``out=`` (``_out.py``); a call without them is the factory
itself (``_wrappers.fast_path``).

>>> import gradtrack
>>> gradtrack.zeros_like(gradtrack.ones(2, 3), dtype=gradtrack.int64)
tensor([[0, 0, 0],
        [0, 0, 0]])
"""

import builtins
import functools

from .. import _C, _memory_format
from .._dtype_names import SCALAR_NAME, dtype_key
from .._wrappers import fast_path, insert_keywords, lazy_signature, param_names, parameters

BOUND = ("tensor", "from_numpy", "zeros", "ones", "empty", "full", "arange", "linspace", "eye",
         "empty_strided")


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

    if name == "empty":
        @functools.wraps(fn)
        def factory(*args, layout=None, pin_memory=False, memory_format=None, **kwargs):
            check(name, layout, pin_memory)
            if memory_format is None:
                return fn(*args, **kwargs)
            return _memory_format.empty_in_format(fn, args, kwargs, memory_format)
    elif layout_too:
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
    if name == "empty":
        added += (("memory_format", None),)
    if device_too:
        added = (("device", None), *added)
    return lazy_signature(factory, lambda: insert_keywords(parameters(fn), added))


FACTORIES = ("zeros", "ones", "empty", "empty_strided", "full", "arange", "eye", "linspace", "rand", "randn",
             "randint", "randperm", "zeros_like", "ones_like", "empty_like", "full_like",
             "rand_like", "randn_like", "randint_like", "tril_indices", "triu_indices",
             "logspace", "range", "hann_window", "hamming_window", "bartlett_window",
             "blackman_window", "kaiser_window", "scalar_tensor", "empty_permuted")


# ---- *_like and as_tensor --------------------------------------------------------------

def _like(kind):
    if kind in ("rand", "randn"):
        def factory(input, *, generator=None, dtype=None, layout=None, device=None,  # noqa: A002
                    requires_grad=False, memory_format=None):
            _C._ops.check_device(device)
            input = _memory_format.like_input(input, memory_format)  # noqa: A001
            return _C._like(kind, input, dtype, requires_grad, None, generator)
    else:
        def factory(input, *, dtype=None, layout=None, device=None,  # noqa: A002
                    requires_grad=False, memory_format=None):
            _C._ops.check_device(device)
            input = _memory_format.like_input(input, memory_format)  # noqa: A001
            return _C._like(kind, input, dtype, requires_grad, None)
    factory.__name__ = kind + "_like"
    factory.__doc__ = f"A new tensor shaped like ``input``, filled as by ``{kind}``."
    return factory


zeros_like = _like("zeros")
ones_like = _like("ones")
empty_like = _like("empty")
rand_like = _like("rand")
randn_like = _like("randn")


def full_like(input, fill_value, *, dtype=None, layout=None, device=None,  # noqa: A002
              requires_grad=False, memory_format=None):
    """A new tensor shaped like ``input`` filled with ``fill_value``."""
    _C._ops.check_device(device)
    input = _memory_format.like_input(input, memory_format)  # noqa: A001
    return _C._like("full", input, dtype, requires_grad, fill_value, None)


def as_tensor(data, dtype=None, device=None):
    """``data`` as a tensor, sharing memory when it already is a tensor or a
    NumPy array of that dtype (as ``torch.as_tensor`` does)."""
    if isinstance(data, _C.Tensor):
        return data if dtype is None or data.dtype is dtype else data.to(dtype)
    if type(data).__module__ == "numpy" and type(data).__name__ == "ndarray":
        try:
            aliased = _C.from_numpy(data)
        except (TypeError, ValueError):
            aliased = None
        if aliased is not None and (dtype is None or aliased.dtype is dtype):
            return aliased
    return _C.tensor(data, dtype=dtype)


# ---- the indices of a triangle -----------------------------------------------------------

def _triangle_indices(name, lower):
    def indices(row, col, offset=0, *, dtype=None, device=None):
        _C._ops.check_device(device)
        dtype = _C.int64 if dtype is None else dtype
        scalar_name = SCALAR_NAME[dtype_key(dtype)]
        if scalar_name in ("Float", "Double", "Half", "BFloat16", "Bool"):
            raise NotImplementedError(f"\"{name}\" not implemented for '{scalar_name}'")
        if row < 0:
            raise RuntimeError(f"row must be non-negative, got{row}")
        if col < 0:
            raise RuntimeError(f"col must be non-negative, got{col}")
        # numpy lists a triangle's positions row by row, as torch does
        import numpy

        pick = numpy.tril_indices if lower else numpy.triu_indices
        rows, cols = pick(row, offset, col)
        if rows.size == 0:  # torch's contiguous strides of an empty (2, 0)
            return _C.empty((2, 0), dtype=dtype)
        return _C.tensor(numpy.stack([rows, cols]).reshape(2, -1).astype(numpy.int64),
                         dtype=dtype)
    indices.__name__ = name
    return indices


tril_indices = _triangle_indices("tril_indices", True)
tril_indices.__doc__ = """The row and column indices (a 2 x N tensor) of the lower triangle of a
``row`` x ``col`` matrix, on and below the ``offset``-th diagonal.

>>> import gradtrack
>>> gradtrack.tril_indices(3, 3)
tensor([[0, 1, 1, 2, 2, 2],
        [0, 0, 1, 0, 1, 2]])
"""
triu_indices = _triangle_indices("triu_indices", False)
triu_indices.__doc__ = """The row and column indices (a 2 x N tensor) of the upper triangle of a
``row`` x ``col`` matrix, on and above the ``offset``-th diagonal.

>>> import gradtrack
>>> gradtrack.triu_indices(3, 3, 1)
tensor([[0, 0, 1],
        [1, 2, 2]])
"""


# ---- Tensor.new_* -----------------------------------------------------------------------

def _sizes(name, args, size):
    """The size of ``x.NAME(*args)`` or ``x.NAME(size=size)``: the ints themselves or
    one sequence of them, with torch's errors for what its parser refuses."""
    if size is not None:
        if args:
            raise TypeError(f"{name}() got multiple values for argument 'size'")
        if not isinstance(size, (builtins.tuple, builtins.list)):
            raise TypeError(f"{name}(): argument 'size' must be tuple of ints, not "
                            f"{builtins.type(size).__name__}")
        args = (size,)
    elif not args:
        raise TypeError(f'{name}() missing 1 required positional arguments: "size"')
    return _C._ops.sizes_arg(name, *args)


def _one_size(name, size):
    """A size that is one argument among others (``new_full``'s), never a bare int."""
    if not isinstance(size, (builtins.tuple, builtins.list)):
        raise TypeError(f"{name}(): argument 'size' (position 1) must be tuple of ints, not "
                        f"{builtins.type(size).__name__}")
    return _C._ops.sizes_arg(name, size)


def _new_factory(kind):
    fill = {"zeros": 0, "ones": 1}.get(kind)
    name = "new_" + kind

    def method(self, *args, size=None, dtype=None, requires_grad=False):
        size = _sizes(name, args, size)
        dtype = dtype or self.dtype
        if fill is None:
            return _C.empty(size, dtype=dtype, requires_grad=requires_grad)
        # full() gives PyTorch's message for negative sizes (new_zeros is not zeros()).
        return _C.full(size, fill, dtype=dtype, requires_grad=requires_grad)
    method.__name__ = method.__qualname__ = name
    return method


def new_full(self, size, fill_value, *, dtype=None, requires_grad=False):
    return _C.full(_one_size("new_full", size), fill_value, dtype=dtype or self.dtype,
                   requires_grad=requires_grad)


def new_empty_strided(self, size, stride, *, dtype=None, requires_grad=False):
    return _C.empty_strided(_one_size("new_empty_strided", size), stride,
                            dtype=dtype or self.dtype, requires_grad=requires_grad)


def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
    _C._ops.check_device(device)
    return _C.tensor(data, dtype=dtype or self.dtype, requires_grad=requires_grad)


def _new_method(name, fn):
    """``Tensor.NAME``, taking (and checking) ``device=``, ``layout=`` and ``pin_memory=``."""
    return fast_path(fn, with_layout(fn, name, device_too=True),
                     ("device", "layout", "pin_memory"), "Tensor")


def _is_pinned(self, device=None):
    """Always False: gradtrack has no pinned memory (torch's CPU build neither)."""
    return False


def _pin_memory(self, device=None):
    """Raises as torch's CPU-only build does: no accelerator to pin for."""
    raise RuntimeError(_ACCEL)


def empty_permuted(size, physical_layout, *, dtype=None, device=None, requires_grad=False):
    """An uninitialised tensor of ``size`` whose dims lie in memory in the order
    ``physical_layout`` (outermost first): ``empty_strided`` with the strides that order
    gives, so the result is no view.

    >>> import gradtrack
    >>> gradtrack.empty_permuted((2, 3, 4), (0, 2, 1)).stride()
    (12, 1, 3)
    """
    size, layout_ = tuple(size), tuple(physical_layout)
    if len(size) != len(layout_):
        raise RuntimeError("Number of dimensions in size does not match the length of the "
                           f"physical_layout; i.e. len(size) = {len(size)} is not equal to "
                           f"len(physical_layout) = {len(layout_)}")
    seen = set()
    for i, d in enumerate(layout_):
        if not 0 <= d < len(size):
            raise RuntimeError(f"Dimension out of range (expected to be between 0 and "
                               f"{len(size) - 1}, but got {d} at index {i}).  NB: negative "
                               "dims not currently supported; file an issue if you want it.")
        if d in seen:
            raise RuntimeError("Duplicate dim not allowed")
        seen.add(d)
    stride, step = [0] * len(size), 1
    for d in reversed(layout_):
        stride[d] = step
        step *= builtins.max(size[d], 1)
    return _C.empty_strided(size, tuple(stride), dtype=dtype, device=device,
                            requires_grad=requires_grad)


def wrap(namespace):
    """Gives the factories of ``namespace`` (gradtrack's) ``layout=`` and ``pin_memory=``
    (``tensor()`` only ``pin_memory=``)."""
    for name in FACTORIES:
        if name in namespace:
            fn = namespace[name]
            triggers = ("layout", "pin_memory")
            if name == "empty":
                triggers += ("memory_format",)
            if name == "randint_like":  # it checks device= in the wrapper
                triggers += ("device",)
            namespace[name] = fast_path(fn, with_layout(fn, name), triggers)
    fn = namespace["tensor"]
    namespace["tensor"] = fast_path(fn, with_layout(fn, "tensor", layout_too=False),
                                    ("pin_memory",))


FUNCTIONS = (as_tensor, zeros_like, ones_like, empty_like, full_like, rand_like, randn_like,
             tril_indices, triu_indices, empty_permuted)
NAMES = {"layout": layout, "strided": strided}
# The Tensor.new_* that take device=, layout= and pin_memory= (new_tensor only device=).
NEW_METHODS = ("new_empty", "new_empty_strided", "new_full", "new_ones", "new_zeros")
_NEW = {"new_empty": _new_factory("empty"), "new_empty_strided": new_empty_strided,
        "new_full": new_full,
        "new_ones": _new_factory("ones"), "new_zeros": _new_factory("zeros")}
METHODS = {
    **{name: _new_method(name, _NEW[name]) for name in NEW_METHODS},
    "new_tensor": new_tensor,
    "layout": property(lambda self: strided, doc="The memory layout: gradtrack.strided."),
    "is_pinned": _is_pinned,
    "pin_memory": _pin_memory,
}
