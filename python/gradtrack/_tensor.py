"""The Tensor class's Python side: the autograd fields and their rules, hooks,
printing, conversions, copies and pickling, and the module functions that only ask a
tensor about itself (``is_tensor``, ``numel``). The registry attaches ``METHODS`` to
the C++ class (NOTE [One registry] in ``_registry.py``).

Everything numeric is bound in C++; what lives here is argument handling and
the semantics PyTorch gives in words (errors, warnings).
"""

import builtins
import functools
import warnings

from . import _C, _memory_format, _tensor_str
from ._dtype_names import CPP_NAME, SCALAR_NAME, dtype_key
from .utils.hooks import check_hook_value, graph_hook_handle

_Tensor = _C.Tensor
_requires_grad_get = _Tensor.requires_grad.fget
_grad_get = _Tensor._grad.fget

NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information.")
CHANGE_FLAGS_ERROR = "you can only change requires_grad flags of leaf variables."
DETACH_HINT = (" If you want to use a computed variable in a subgraph that doesn't require "
               "differentiation use var_no_grad = var.detach().")


# ---- requires_grad, grad, data -------------------------------------------------------------

def _set_requires_grad(self, value):
    if not self.is_leaf:
        raise RuntimeError(CHANGE_FLAGS_ERROR + ("" if value else DETACH_HINT))
    if value and not self.dtype.is_floating_point:
        raise RuntimeError("only Tensors of floating point and complex dtype can require "
                           "gradients")
    _C._set_requires_grad(self, builtins.bool(value))


def _type_name(value):
    """A value's type as PyTorch's messages print it: ``int``, ``numpy.bool``."""
    t = type(value)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"


def requires_grad_(self, requires_grad=True):
    """Sets the leaf flag; a no-op ``True`` on a non-leaf, as in PyTorch."""
    if requires_grad is not True and requires_grad is not False:
        raise TypeError("requires_grad_(): argument 'requires_grad' (position 1) must be bool, "
                        f"not {_type_name(requires_grad)}")
    if not self.is_leaf:
        if requires_grad:
            return self
        raise RuntimeError(CHANGE_FLAGS_ERROR + DETACH_HINT)
    if requires_grad and not self.dtype.is_floating_point:
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    _C._set_requires_grad(self, builtins.bool(requires_grad))
    return self


def _get_grad(self):
    grad = _grad_get(self)
    if grad is None and not self.retains_grad:
        try:
            leaf = self.is_leaf
        except RuntimeError:
            # A no-grad view whose base changed: grad_fn raises, .grad does not.
            return None
        if not leaf:
            warnings.warn(NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
    return grad


def _set_grad(self, value):
    if value is None:
        _C._set_grad(self, None)
        return
    if not isinstance(value, _Tensor):
        raise TypeError("assigned grad expected to be a Tensor or None but got grad of type "
                        f"{type(value).__name__}")
    if value is self:
        raise RuntimeError("can't assign Variable as its own grad")
    if value.dtype is not self.dtype:
        raise RuntimeError(
            f"attempting to assign a gradient with dtype '{CPP_NAME[dtype_key(value.dtype)]}' "
            f"to a tensor with grad_dtype '{SCALAR_NAME[dtype_key(self.dtype)]}'. The gradient "
            "must match the tensor's grad_dtype (defaults to the tensor's dtype). You can set the "
            "tensor's grad_dtype attribute with a specific dtype, or None to allow any dtype. Set "
            "grad_dtype with caution. Diverging the dtypes of a tensor and its gradient may break "
            "downstream systems that assume they match.")
    if value.shape != self.shape:
        raise RuntimeError(
            f"attempting to assign a gradient of size '{list(value.shape)}' to a tensor of size "
            f"'{list(self.shape)}'. Please ensure that the gradient and the tensor are the same "
            "size")
    _C._set_grad(self, value)


def _del_grad(self):
    _C._set_grad(self, None)


def _get_data(self):
    return self._data()


def _set_data(self, value):
    if not isinstance(value, _Tensor):
        raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
    if self.requires_grad and not value.dtype.is_floating_point:
        raise RuntimeError("data set to a tensor that requires gradients must be floating point "
                           "or complex dtype")
    _C._inplace.set_data(self, value)


def detach_(self):
    """Detaches ``self`` from its graph in place: it becomes a leaf."""
    self._detach_inplace()
    return self


def retain_grad(self):
    """Keeps ``.grad`` of a non-leaf after backward (a no-op on leaves)."""
    if not self.requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    _C._retain_grad(self)


def register_hook(self, hook):
    """Calls ``hook(grad)`` when this tensor's gradient is computed.

    The hook may return a replacement gradient. Returns a handle with
    ``remove()``.
    """
    if not self.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")

    return graph_hook_handle(functools.partial(_C._register_hook, self), _run_tensor_hook, hook)


def _run_tensor_hook(hook, grad):
    result = hook(grad)
    check_hook_value(hook, grad, result)
    return result


def register_post_accumulate_grad_hook(self, hook):
    """Calls ``hook(tensor)`` after a leaf's ``.grad`` was accumulated."""
    if not self.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if not self.is_leaf:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")

    return graph_hook_handle(functools.partial(_C._register_post_accumulate_grad_hook, self),
                             _run_post_accumulate_grad_hook, hook)


def _run_post_accumulate_grad_hook(hook, tensor):
    # The hook has nothing to replace: PyTorch checks what it returns as if
    # it replaced the tensor, then refuses anything but None or the tensor
    # itself, so a hook that meant to return a new gradient is not ignored.
    result = hook(tensor)
    if result is None or result is tensor:
        return
    check_hook_value(hook, tensor, result)
    raise RuntimeError("Tensor post accumulate grad hooks should return None.")


# ---- conversions, copies, printing ----------------------------------------------------------

# NOTE [Tensor.to's forms]
# torch parses ``to``'s arguments against three signatures, in this order, and takes the
# first that fits: (device, dtype, non_blocking, copy), (dtype, non_blocking, copy) and
# (tensor, non_blocking, copy), each with a keyword-only memory_format. A device is a
# torch.device, a string, an index or None; a dtype is a torch.dtype or one of the Python
# types float, int and bool; the flags are bools; the tensor may be a Python number, read
# as a tensor of its type (``x.to(2.5)`` is ``x.to(float64)``). Nothing else fits, and
# torch's TypeError lists the three forms.
_TO_FORMS = (
    (("device", "device"), ("dtype", "dtype"), ("non_blocking", "bool"), ("copy", "bool")),
    (("dtype", "dtype!"), ("non_blocking", "bool"), ("copy", "bool")),
    (("tensor", "tensor"), ("non_blocking", "bool"), ("copy", "bool")),
)
_TO_EXPECTED = (
    " * (gradtrack.device device = None, gradtrack.dtype dtype = None, bool non_blocking = "
    "False, bool copy = False, *, gradtrack.memory_format memory_format = None)\n"
    " * (gradtrack.dtype dtype, bool non_blocking = False, bool copy = False, *, "
    "gradtrack.memory_format memory_format = None)\n"
    " * (Tensor tensor, bool non_blocking = False, bool copy = False, *, "
    "gradtrack.memory_format memory_format = None)\n")
_PYTHON_DTYPES = {builtins.float: "float64", builtins.int: "int64", builtins.bool: "bool"}


def _as_dtype(value):
    if isinstance(value, _C.dtype):
        return value
    if value in _PYTHON_DTYPES:
        return getattr(_C, _PYTHON_DTYPES[value])
    return None


def _fits(kind, value):
    if kind == "device":
        return (value is None or isinstance(value, str) or type(value).__name__ == "device"
                or (isinstance(value, builtins.int) and not isinstance(value, builtins.bool)))
    if kind == "dtype":
        return value is None or _as_dtype(value) is not None
    if kind == "dtype!":
        return _as_dtype(value) is not None
    if kind == "bool":
        return isinstance(value, builtins.bool)
    if kind == "tensor":
        return isinstance(value, (_Tensor, builtins.bool, builtins.int, builtins.float))
    return value is None or isinstance(value, _memory_format.memory_format)


def _arg_label(value):
    if isinstance(value, _Tensor):
        return "Tensor"
    if isinstance(value, (_C.dtype, _memory_format.memory_format)):
        return f"gradtrack.{type(value).__name__}"
    kind = type(value)
    return f"gradtrack.{kind.__name__}" if kind.__module__.startswith("gradtrack") \
        else kind.__name__


def _to_arguments(args, kwargs):
    """``to``'s arguments bound to the first of torch's forms they fit (NOTE [Tensor.to's
    forms]), as a dict; torch's TypeError when none fits."""
    if len(args) > 4:
        raise TypeError(f"to() takes from 0 to 4 positional arguments but {len(args)} were "
                        "given")
    for form in _TO_FORMS:
        names = [name for name, _ in form]
        if len(args) > len(form) or any(k not in names and k != "memory_format" or
                                        k in names[:len(args)] for k in kwargs):
            continue
        bound = dict(zip(names, args), **kwargs)
        kinds = dict(form, memory_format="memory_format")
        if all(_fits(kinds[k], v) for k, v in bound.items()) and \
                (form[0][1] != "dtype!" or "dtype" in bound) and \
                (form[0][1] != "tensor" or "tensor" in bound):
            return bound
    labels = [_arg_label(a) for a in args]
    labels += [f"{k}={_arg_label(v)}" for k, v in reversed(list(kwargs.items()))]
    got = ", ".join(labels) if args or not kwargs else ", ".join(labels) + ", "
    raise TypeError(f"to() received an invalid combination of arguments - got ({got}), but "
                    f"expected one of:\n{_TO_EXPECTED}")


def to(self, *args, **kwargs):
    """``to(dtype)``, ``to(other)``, ``to('cpu')``, ``to(device, dtype)``, with
    ``non_blocking`` and ``copy`` after them; ``memory_format=`` lays the result out in
    that format (a copy only if needed). A result equal to ``self`` is ``self`` unless
    ``copy=True``."""
    if not kwargs and len(args) == 1 and isinstance(args[0], _C.dtype):
        return self._to_dtype(args[0], False)
    for arg in (*args, *kwargs.values()):
        if hasattr(arg, "_no_tensors_message"):  # complex64 & co. (_dtypes.py)
            raise TypeError(arg._no_tensors_message)
    bound = _to_arguments(args, kwargs)
    device = bound.get("device")
    if isinstance(device, builtins.int):
        raise RuntimeError("Cannot access accelerator device when none is available.")
    _C._ops.check_device(device)
    if "tensor" in bound:
        other = bound["tensor"]
        dtype = other.dtype if isinstance(other, _Tensor) else _as_dtype(type(other))
    else:
        dtype = _as_dtype(bound.get("dtype"))
    copy = bound.get("copy", False)
    memory_format = bound.get("memory_format")
    if memory_format is not None:
        return _memory_format.convert(self, dtype, copy, memory_format)
    if dtype is None:
        return self.clone() if copy else self
    return self._to_dtype(dtype, copy)


def __array__(self, dtype=None, copy=None):
    array = self.numpy()
    if dtype is not None and array.dtype != dtype:
        return array.astype(dtype)
    return array.copy() if copy else array


def __iter__(self):
    if self.dim() == 0:
        raise TypeError("iteration over a 0-d tensor")
    return iter(self.unbind(0))


def __contains__(self, element):
    if isinstance(element, (_Tensor, builtins.int, builtins.float, builtins.bool)):
        return builtins.bool((self == element).any().item())
    raise RuntimeError("Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
                       f"{type(element)}.")


def __deepcopy__(self, memo):
    if not self.is_leaf:
        raise RuntimeError(
            "Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
            "protocol at the moment.  If you were attempting to deepcopy a module, this may be "
            "because of a torch.nn.utils.weight_norm usage, see "
            "https://github.com/pytorch/pytorch/pull/103001")
    if id(self) in memo:
        return memo[id(self)]
    from . import no_grad
    with no_grad():
        data = self.clone()
    new = data if type(self) is _Tensor else type(self)(data, requires_grad=self.requires_grad)
    if type(self) is _Tensor:
        new.requires_grad_(self.requires_grad)
    memo[id(self)] = new
    grad = _grad_get(self)
    if grad is not None:
        import copy
        new.grad = copy.deepcopy(grad, memo)
    return new


def __reduce_ex__(self, protocol):
    return (_rebuild_tensor, (self.detach().numpy().copy(), self.requires_grad))


def _rebuild_tensor(array, requires_grad):
    t = _C.tensor(array)
    t.requires_grad_(requires_grad)
    return t


# A pickled tensor names its rebuilder gradtrack._rebuild_tensor, as it always has: which
# file defines the function is not part of the pickle format.
_rebuild_tensor.__module__ = "gradtrack"


def _device_cpu():
    from . import device
    return device("cpu")


def is_tensor(obj):
    """True if ``obj`` is a gradtrack Tensor (or a subclass such as Parameter)."""
    return isinstance(obj, _Tensor)


def numel(input):  # noqa: A002
    """The number of elements of ``input``."""
    return input.numel()


# What this module gives gradtrack.* and Tensor (NOTE [One registry] in _registry.py).
FUNCTIONS = (is_tensor, numel)
NAMES = {"Tensor": _Tensor, "_rebuild_tensor": _rebuild_tensor}
METHODS = {
    # requires_grad replaces the C++ property: its setter applies torch's leaf and dtype rules
    "requires_grad": property(_requires_grad_get, _set_requires_grad),
    "grad": property(_get_grad, _set_grad, _del_grad),
    "data": property(_get_data, _set_data),
    **{fn.__name__: fn for fn in (requires_grad_, detach_, retain_grad, register_hook,
                                  register_post_accumulate_grad_hook, to, __array__, __iter__,
                                  __contains__, __deepcopy__, __reduce_ex__)},
    "__repr__": _tensor_str._tensor_repr,
    "__str__": _tensor_str._tensor_repr,
    "__format__": _tensor_str._tensor_format,
    "__array_priority__": 1000,
    "cpu": lambda self: self,
    "cuda": lambda self, device=None, non_blocking=False: _C._ops.check_device("cuda"),
    "is_inference": lambda self: False,
    "device": property(lambda self: _device_cpu()),
}
