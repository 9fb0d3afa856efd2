"""Custom differentiable operations: subclass :class:`Function`.

>>> import gradtrack
>>> from gradtrack.autograd import Function
>>> class Cube(Function):
...     @staticmethod
...     def forward(ctx, x):
...         ctx.save_for_backward(x)
...         return x ** 3
...     @staticmethod
...     def backward(ctx, grad):
...         x, = ctx.saved_tensors
...         return 3 * x ** 2 * grad
>>> x = gradtrack.tensor([1.0, 2.0], requires_grad=True)
>>> y = Cube.apply(x)
>>> y.grad_fn.name()
'CubeBackward'
>>> y.sum().backward()
>>> x.grad
tensor([ 3., 12.])

The node recorded for a call is a C++ graph node like any op's (its saved
tensors go through the same version check); its backward calls back into
Python. ``y.grad_fn`` is the ``ctx`` object the forward and backward saw.
"""

import functools
import warnings
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar, cast

from .. import _C
from ..utils.hooks import (RemovableHandle, graph_hook_handle, run_node_hook,
                           run_node_prehook)
from . import _function_transforms as _transforms
from . import forward_ad as _forward_ad
from .grad_mode import no_grad

__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "once_differentiable"]

_Tensor = _C.Tensor
_fw = _C._forward_ad


class FunctionCtx:
    """What ``forward`` (or ``setup_context``) uses to pass state to ``backward``."""

    def save_for_backward(self, *tensors: Any) -> None:
        """Saves tensors (or None) for ``backward``, read back as ``ctx.saved_tensors``.

        Saved tensors are checked like the ones built-in ops save: modifying one
        in place before backward makes backward raise.
        """
        self.to_save = tensors

    def save_for_forward(self, *tensors: Any) -> None:
        """Saves tensors (or None) for ``jvp``, read back there as ``ctx.saved_tensors``.

        >>> import gradtrack
        >>> import gradtrack.autograd.forward_ad as fwAD
        >>> class Square(gradtrack.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         ctx.save_for_forward(x)
        ...         return x * x
        ...     @staticmethod
        ...     def jvp(ctx, t):
        ...         (x,) = ctx.saved_tensors
        ...         return 2 * x * t
        >>> with fwAD.dual_level():
        ...     d = fwAD.make_dual(gradtrack.tensor([3.0]), gradtrack.tensor([1.0]))
        ...     fwAD.unpack_dual(Square.apply(d)).tangent
        tensor([6.])
        """
        if not all(t is None or isinstance(t, _Tensor) for t in tensors):
            raise AssertionError("save_for_forward expects all arguments to be tensors; you "
                                 "should save non-tensors as attributes on ctx.")
        self.saved_for_forward = tensors

    def mark_dirty(self, *args: Any) -> None:
        """Marks input tensors that ``forward`` modified in place (they must be returned)."""
        self.dirty_tensors = args

    def mark_non_differentiable(self, *args: Any) -> None:
        """Marks outputs that get no gradient (``backward`` still receives a zero one)."""
        self.non_differentiable = args

    def set_materialize_grads(self, value: bool) -> None:
        """With False, ``backward`` gets None instead of zeros for outputs that got no gradient."""
        self.materialize_grads = value


class _NodeMixin:
    """The graph-node side of ``ctx`` (``y.grad_fn is ctx``), backed by the C++ node."""

    def _cdata(self):
        ref = getattr(self, "_node_ref", None)
        if ref is None:
            raise RuntimeError("this Function's backward node was not recorded (nothing required "
                               "grad, or grad mode was off)")
        return ref.node()

    def name(self):
        return type(self).__name__

    @property
    def next_functions(self):
        kept = self.__dict__.get("_next_functions_after_death")
        if kept is not None:
            return kept
        return self._cdata().next_functions

    @property
    def metadata(self):
        if "_metadata" not in self.__dict__:
            self._metadata = {}
        return self._metadata

    def _sequence_nr(self):
        return self._cdata()._sequence_nr()

    def _node_gone(self):
        # Every output died and took the node along: a hook registered now can
        # never run, and PyTorch still hands back a handle.
        return "_next_functions_after_death" in self.__dict__

    def register_hook(self, fn):
        """Calls ``fn(grad_inputs, grad_outputs)`` after the backward ran."""
        if self._node_gone():
            return RemovableHandle(OrderedDict())
        return graph_hook_handle(self._cdata()._register_hook, run_node_hook, fn)

    def register_prehook(self, fn):
        """Calls ``fn(grad_outputs)`` before the backward runs."""
        if self._node_gone():
            return RemovableHandle(OrderedDict())
        return graph_hook_handle(self._cdata()._register_prehook, run_node_prehook, fn)


class BackwardCFunction(FunctionCtx, _NodeMixin):
    """The ``ctx`` of one call: also the ``grad_fn`` of its outputs.

    >>> import gradtrack
    >>> class Double(gradtrack.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         return x * 2
    ...     @staticmethod
    ...     def backward(ctx, grad):
    ...         return grad * 2
    >>> y = Double.apply(gradtrack.ones(1, requires_grad=True))
    >>> isinstance(y.grad_fn, gradtrack.autograd.graph.BackwardCFunction), y.grad_fn.name()
    (True, 'DoubleBackward')
    """

    _forward_cls = None
    materialize_grads = True  # until set_materialize_grads
    _node_ref = None  # until a node is recorded for the call
    _in_jvp = False  # while jvp runs

    @property
    def saved_tensors(self):
        if self._in_jvp:
            return tuple(self.__dict__.get("saved_for_forward") or ())
        ref = self._node_ref
        if ref is None:
            return tuple(getattr(self, "to_save", None) or ())
        return ref.saved_tensors()

    def apply(self, *args):
        """Runs the user's backward (what the engine calls)."""
        cls = self._forward_cls
        if _transforms.in_second_pass() and cls.jvp is not _BASE_JVP:
            # NOTE [Custom Functions under transforms]
            found = _transforms.jvp_transposed(self, args)
            if found is not None:
                return found
        vjp_fn = cls.vjp
        if vjp_fn is _BASE_VJP:
            return cls.backward(self, *args)
        if cls.backward is not _BASE_BACKWARD:
            raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function is "
                               "not allowed. You should only implement one of them.")
        return vjp_fn(self, *args)


class FunctionMeta(type):
    """Gives each Function subclass its backward class, ``<Name>Backward``."""

    def __init__(cls, name, bases, attrs):
        backward_cls = type(name + "Backward", (BackwardCFunction,),
                            {"_forward_cls": cls, "__module__": __name__})
        backward_cls.__qualname__ = name + "Backward"
        cls._backward_cls = backward_cls
        cls._forward_params = None
        super().__init__(name, bases, attrs)


class Function(FunctionCtx, metaclass=FunctionMeta):
    """Base class of custom autograd operations.

    Subclasses define ``forward`` and ``backward`` as static methods, either
    ``forward(ctx, *args)`` or ``forward(*args)`` with a separate
    ``setup_context(ctx, inputs, output)``, and are called as ``Cls.apply(*args)``.

    >>> import gradtrack
    >>> class Cube(gradtrack.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x ** 3
    ...     @staticmethod
    ...     def backward(ctx, grad):
    ...         x, = ctx.saved_tensors
    ...         return grad * 3 * x ** 2
    >>> x = gradtrack.tensor([1.0, 2.0], requires_grad=True)
    >>> Cube.apply(x).sum().backward()
    >>> x.grad
    tensor([ 3., 12.])
    """

    def __init__(self, *args, **kwargs):
        warnings.warn(
            f"{self.__class__} should not be instantiated. Methods on autograd functions are all "
            "static, so you should invoke them on the class itself. Instantiating an autograd "
            "function will raise an error in a future version of PyTorch.",
            DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use "
            "new-style autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(*args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your "
                                  "custom autograd.Function to use it with backward mode AD.")

    vjp = backward

    # Under vmap: True runs forward on the batch as it is; else ``vmap`` is the rule.
    generate_vmap_rule = False

    @staticmethod
    def vmap(info, in_dims, *args):
        """The batching rule: ``(output, out_dims)`` from the physical ``args``
        (NOTE [Custom Functions under transforms])."""
        raise NotImplementedError("To use autograd.Function with vmap, you must either override "
                                  "the vmap staticmethod or set generate_vmap_rule=True.")

    @staticmethod
    def jvp(ctx, *grad_inputs):
        """The forward-mode derivative: the outputs' tangents from the inputs' ones."""
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function "
                                  "to use it with forward mode AD.")

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        """Runs ``forward`` without recording, then records one node for the call."""
        separate_setup = cls.setup_context is not _BASE_SETUP_CONTEXT
        if separate_setup:
            import inspect  # not at import: NOTE [Lazy signatures]

            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args = bound.args
        elif kwargs:
            args = cls._kwargs_as_positional(args, kwargs)
        if _transforms.active():
            return _apply_under_transforms(cls, args, separate_setup)
        if _forward_ad._current_level >= 0:
            return _apply_with_tangents(cls, args, separate_setup)
        return _C._function_apply(cls, args, separate_setup)

    @classmethod
    def _kwargs_as_positional(cls, args, kwargs):
        # Keyword arguments count as inputs at their position in forward's
        # signature (after ctx), as PyTorch's apply does; defaults are not
        # filled in, so every earlier position must be given.
        if cls._forward_params is None:
            import inspect

            params = list(inspect.signature(cls.forward).parameters)[1:]
            cls._forward_params = params
        params = cls._forward_params
        slots = list(args)
        for key, value in kwargs.items():
            if key not in params:
                raise TypeError(f"forward() got an unexpected keyword argument '{key}'")
            i = params.index(key)
            if i < len(args):
                raise TypeError(f"forward() got multiple values for argument '{key}'")
            slots.extend([_MISSING] * (i + 1 - len(slots)))
            slots[i] = value
        for i, value in enumerate(slots):
            if value is _MISSING:
                raise TypeError(f"forward() missing required argument: '{params[i]}' "
                                f"(position {i})")
        return tuple(slots)


_MISSING = object()
_BASE_SETUP_CONTEXT = Function.setup_context
_BASE_BACKWARD = Function.backward
_BASE_VJP = Function.vjp
_BASE_JVP = Function.jvp
_BASE_VMAP = Function.vmap


def _apply_under_transforms(cls, args, separate_setup):
    # NOTE [Custom Functions under transforms]
    _transforms.check_apply(cls, args, _BASE_SETUP_CONTEXT, _BASE_VMAP, _BASE_JVP)
    from .._batched_tensor import BatchedTensor
    if cls.vmap is not _BASE_VMAP and any(type(a) is BatchedTensor for a in args):
        return _transforms.call_vmap_rule(cls, args)
    if _forward_ad._current_level >= 0:
        outputs = _apply_with_tangents(cls, args, separate_setup)
    else:
        outputs = _C._function_apply(cls, args, separate_setup)
    _transforms.remember_inputs(outputs, args)
    return outputs


def _apply_with_tangents(cls, args, separate_setup):
    # Forward AD: forward runs without propagation, then the user's jvp gives
    # the outputs their tangents (as PyTorch's). The call itself is the one
    # every Function takes (NOTE [Function.apply in C++]).
    if not any(isinstance(a, _Tensor) and _fw.tangent(a) is not None for a in args):
        return _C._function_apply(cls, args, separate_setup)
    tangents = [(_fw.tangent(a) if _fw.tangent(a) is not None else _zeros_like(a))
                if isinstance(a, _Tensor) else None for a in args]
    prev = _fw._set_propagation_off(True)
    try:
        ctx, outputs, wrapped = _C._function_forward(cls, args, separate_setup)
    finally:
        _fw._set_propagation_off(prev)
    _run_jvp(cls, ctx, args, tangents, outputs, wrapped)
    if not isinstance(outputs, tuple):
        return wrapped[0] if wrapped else outputs
    it = iter(wrapped)
    return tuple(next(it) if isinstance(o, _Tensor) else o for o in outputs)


def _zeros_like(t):
    from .. import zeros_like
    return zeros_like(t)


def _run_jvp(cls, ctx, args, tangents, outputs, wrapped):
    """Calls the user's ``jvp`` and gives each tensor output its tangent, with
    PyTorch's checks (count, type, size, in-place and view outputs)."""
    prev = _fw._set_propagation_off(True)
    ctx._in_jvp = True
    try:
        result = cls.jvp(ctx, *tangents)
    finally:
        ctx._in_jvp = False
        _fw._set_propagation_off(prev)
    flat = outputs if isinstance(outputs, tuple) else (outputs,)
    result = result if isinstance(result, tuple) else (result,)
    if len(result) != len(flat):
        raise RuntimeError(f"Function's jvp returned an invalid number of forward gradients "
                           f"(expected {len(flat)} but got {len(result)})")
    tangent_of_input = {id(a): tan for a, tan in zip(args, tangents) if tan is not None}
    dirty = ctx.__dict__.get("dirty_tensors", ())
    it = iter(wrapped)
    for i, (o, tan) in enumerate(zip(flat, result)):
        if not isinstance(o, _Tensor):
            continue
        out = next(it)
        if tan is None:
            continue
        if not isinstance(tan, _Tensor):
            raise RuntimeError(f"expected Variable or None (got {type(tan).__name__}) for grad "
                               f"output {i}.")
        if any(o is d for d in dirty):
            if tan is not tangent_of_input.get(id(o)):
                raise RuntimeError("An inplace custom Function is not modifying the forward mode "
                                   "gradients inplace. If the forward is modifying an input "
                                   "inplace, then the jvp function must modify the corresponding "
                                   "gradient inplace.")
        elif id(o) in tangent_of_input and tan._base is None:
            raise RuntimeError("A custom Function's forward is returning a view (or an input "
                               "as-is) but the jvp is not returning a view.")
        if out.is_floating_point() or out.is_complex():
            _fw._set_tangent(out, tan)


_F = TypeVar("_F", bound=Callable[..., Any])  # once_differentiable keeps the signature


def once_differentiable(fn: _F) -> _F:
    """Decorates a ``backward`` that is not itself differentiable: it runs under
    no_grad, and differentiating its result (under ``create_graph=True``)
    raises instead of silently giving a wrong gradient."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            outputs = fn(ctx, *args)
        if not _C.is_grad_enabled():
            return outputs
        requires_grad = any(isinstance(a, _Tensor) and a.requires_grad for a in args)
        if not requires_grad:
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        # Each result gets a node that raises when reached: a detached alias
        # that requires grad is what makes the node be recorded, as PyTorch's.
        wrapped = tuple(_DelayedError.apply(_fake_requires_grad(o)) if isinstance(o, _Tensor)
                        else o for o in outs)
        return wrapped[0] if single else wrapped

    return cast(_F, wrapper)


def _fake_requires_grad(t):
    t = t.detach()
    t.requires_grad = True
    return t


class _DelayedError(Function):
    # Stands where a once_differentiable backward's graph would be.
    @staticmethod
    def forward(ctx, x):
        return x.detach()  # an alias, not a view (an input returned as-is would be)

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("trying to differentiate twice a function that was marked with "
                           "@once_differentiable")


# PyTorch's node for this is its C++ DelayedError, shown as "Error".
_DelayedError._backward_cls.__name__ = _DelayedError._backward_cls.__qualname__ = "Error"
_DelayedError._backward_cls.name = lambda self: "gradtrack::autograd::Error"
