"""The tensor ops written in Python, one module per area.

The areas have the words of the op declarations (``_declarations/<area>.py``) and of
the C++ files (``csrc/ops/<area>.cpp``, ``csrc/autograd/formulas/<area>.cpp``), so an
op is found under one name in every layer:

- ``pointwise``: elementwise math (the op list, ``clamp``, ``lerp``, ``isclose``...);
- ``reduction``: ops that reduce dims (sums, extremes, statistics, norms);
- ``statistics``: the NaN-ignoring reductions, ``aminmax``, quantiles, histograms,
  ``cov``/``corrcoef``, ``dist`` and ``renorm``;
- ``views``: results that share their input's storage (movedim, broadcasting, splits,
  diagonals);
- ``shape``: copies that rearrange or join elements (the stack family, triangles,
  flips, rolls, repeats);
- ``indexing``: selecting by index or mask (gather/scatter, ``nonzero``, ``where``);
- ``scan_sort``: ops along a dim whose result depends on the order of its elements
  (cumulative sums, differences, sorts, ``searchsorted``);
- ``linalg``: products and contractions (``einsum``, ``tensordot``, ``cdist``...);
- ``nn``: the functions of ``nn.functional`` that torch also has at the top level;
- ``nn_layers``: the layer functions torch has at the top level with its ATen ops'
  parameters (``torch.conv2d``, ``torch.batch_norm``, ``torch.dropout``...), calling
  ``nn.functional``;
- ``nn_native``: ATen's native layer forms that return what they save
  (``native_layer_norm``, ``native_batch_norm``, ``native_group_norm``, ``native_dropout``);
- ``inplace_functions``: torch's top-level names of in-place methods (``torch.abs_``);
- ``creation``: the factories, ``*_like``, ``as_tensor``, ``Tensor.new_*``, ``layout``;
- ``creation_sequences``: ``logspace``, the deprecated ``range`` and the window functions;
- ``conversion``: ``asarray``, ``frombuffer``, ``scalar_tensor``;
- ``view_copies``: the ``*_copy`` functions (a view op's result copied), ``narrow_copy``
  and the ``unsafe_*`` splits;
- ``nn_losses``: the losses torch has at the top level, ``reduction`` an int;
- ``unique``: ``unique`` and ``unique_consecutive``.

Random numbers live in ``gradtrack/random.py`` (the public ``gradtrack.random``) and
the dtypes in ``gradtrack/_dtypes.py``; they give names to the registry the same way.

Each area says what it gives in tables the registry reads (NOTE [One registry] in
``_registry.py``): ``BOUND`` (names of ``_C`` that ``gradtrack`` takes as they
are), ``FUNCTIONS``, ``NAMES``, ``ALIASES`` and ``METHODS``. An area calls ``_C``
and other areas' functions directly, never ``gradtrack.*``: that namespace is what
the registry builds from the areas.

This file holds what the areas share: a function made a Tensor method, torch's
wrapping of a negative dim, and its checks of int, number, tensor and generator arguments.
"""

import math
import numbers
import sys
import types

from .. import _C
from .._wrappers import fast_path, lazy_signature


def as_method(fn):
    """``fn`` as a Tensor method: the same function with its first parameter
    named ``self``, so that its signature is the method's (no wrapper: a copy
    with the renamed code object)."""
    code = fn.__code__
    first = code.co_varnames[0]
    if first in code.co_cellvars or "__signature__" in vars(fn) or "__wrapped__" in vars(fn):
        # a closure reads the parameter by its name; a decorated function's code is its
        # wrapper's
        return _bound_like(fn)
    method = types.FunctionType(code.replace(co_varnames=("self", *code.co_varnames[1:])),
                                fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    method.__kwdefaults__ = fn.__kwdefaults__
    method.__annotations__ = {("self" if k == first else k): v
                              for k, v in fn.__annotations__.items()}
    method.__doc__ = fn.__doc__
    method.__qualname__ = fn.__name__
    method.__module__ = fn.__module__
    return method


def _bound_like(fn):
    """``fn`` as a Tensor method through a fast path (NOTE [Lazy signatures])."""
    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)
    method.__name__ = method.__qualname__ = fn.__name__
    method.__doc__ = fn.__doc__

    def signature():
        import inspect

        sig = inspect.signature(fn)
        params = list(sig.parameters.values())
        return sig.replace(parameters=[params[0].replace(name="self")] + params[1:])
    return fast_path(fn, lazy_signature(method, signature), (), "Tensor")


def methods(*fns):
    """{name: :func:`as_method` of it} for the functions ``fns``."""
    return {fn.__name__: as_method(fn) for fn in fns}


def wrap_dim(dim, ndim):
    """torch's dim wrapping with its IndexError."""
    lo, hi = (-ndim, ndim - 1) if ndim else (-1, 0)
    if not lo <= dim <= hi:
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], "
                         f"but got {dim})")
    return dim % ndim if ndim else 0


def check_norm_identity(ord, shape, dims):  # noqa: A002 - torch's name for the order
    """The vector norms without an identity (a negative order, or ``inf``) refuse an empty
    reduction with torch's words: over all dims (``dims`` None or empty) when ``shape`` has
    no elements, else at the first of ``dims`` (as given) whose size is 0."""
    if not (ord < 0 or ord == math.inf):
        return
    if not dims:
        if 0 in shape:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {ord:g} norm on an empty "
                               "tensor because the operation does not have an identity")
        return
    for d in dims:
        if shape and shape[wrap_dim(d, len(shape))] == 0:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {ord:g} norm on the "
                               f"dimension {d}because this dimension is empty and the operation "
                               "does not have an identity")


def type_name(value):
    """A value's type as torch's parser prints it: ``int``, ``numpy.bool``, ``Tensor``."""
    t = type(value)
    if isinstance(value, _C.Tensor):
        return "Tensor"
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"


def int_arg(value, op, arg, position):
    """``value`` if torch's parser takes it for an ``int`` argument, else its TypeError.

    A bool is not an int to the parser; numpy integers and one-element integer tensors
    are. ``position`` counts the function's arguments. A Tensor method made by
    :func:`as_method` shares the function's code with its first parameter named
    ``self``, and torch counts a method's arguments after ``self``: the message, only,
    looks at which of the two called."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, _C.Tensor):
        ok = value.numel() == 1 and not (value.dtype.is_floating_point or value.dtype.is_complex
                                         or value.dtype == _C.bool)
    else:
        ok = not isinstance(value, bool) and hasattr(type(value), "__index__")
    if ok:
        return value
    if sys._getframe(1).f_code.co_varnames[:1] == ("self",):
        position -= 1
    raise TypeError(f"{op}(): argument '{arg}' (position {position}) must be int, not "
                    f"{type_name(value)}")


def tensor_arg(value, op, arg, position):
    """``value`` if it is a tensor, else torch's TypeError for a ``Tensor`` argument
    (``poisson(): argument 'input' (position 1) must be Tensor, not list``)."""
    if not isinstance(value, _C.Tensor):
        raise TypeError(f"{op}(): argument '{arg}' (position {position}) must be Tensor, not "
                        f"{type(value).__name__}")
    return value


def generator_arg(value, op):
    """``value`` if it is None or a generator, else torch's TypeError (whose text names
    ``torch.Generator`` as torch's does)."""
    if value is not None and not isinstance(value, _C._random.Generator):
        raise TypeError(f"{op}(): argument 'generator' must be torch.Generator, not "
                        f"{type(value).__name__}")
    return value


def number(value, op, arg):
    """``value`` as a Python number, or torch's TypeError for a ``Scalar`` argument
    (``addcmul(): argument 'value' must be Number, not str``); a 0-dim tensor that
    does not require grad gives its value, as torch's parser takes it."""
    if isinstance(value, numbers.Number):
        return value
    if isinstance(value, _C.Tensor) and value.dim() == 0 and not value.requires_grad:
        return value.item()
    raise TypeError(f"{op}(): argument '{arg}' must be Number, not {type_name(value)}")
