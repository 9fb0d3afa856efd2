"""gradtrack.autograd: backward, grad, grad modes, anomaly detection, gradcheck.

>>> import gradtrack
>>> x = gradtrack.tensor([1.0, 2.0, 3.0], requires_grad=True)
>>> gradtrack.autograd.grad((x ** 3).sum(), x)
(tensor([ 3., 12., 27.]),)
"""

import warnings
from collections.abc import Sequence
from typing import Any as _Any

from .. import _C
from .._legacy import Variable  # noqa: F401 - torch's pre-0.4 wrapper, for old tutorials
from .._lazy import submodule_hooks as _submodule_hooks
from . import forward_ad, function, functional, graph
from .anomaly_mode import (detect_anomaly, is_anomaly_check_nan_enabled, is_anomaly_enabled,
                           set_detect_anomaly)
from .function import Function
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .grad_mode import (enable_grad, inference_mode, is_multithreading_enabled,
                        is_view_replay_enabled, no_grad, set_grad_enabled,
                        set_multithreading_enabled)
from .provenance import explain, is_provenance_enabled, set_provenance
from .silent_writes import detect_silent_writes, is_detect_silent_writes_enabled
from .silent_writes import _from_environment as _silent_writes_from_environment
from .viz import make_dot

__all__ = ["Function", "function", "backward", "grad", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
           "detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled", "gradcheck", "gradgradcheck", "GradcheckError", "graph",
           "functional", "forward_ad", "profiler",
           "set_provenance", "is_provenance_enabled", "explain", "make_dot",
           "detect_silent_writes", "is_detect_silent_writes_enabled",
           "is_multithreading_enabled", "set_multithreading_enabled", "is_view_replay_enabled",
           "variable"]

_silent_writes_from_environment()

_Tensor = _C.Tensor

CREATE_GRAPH_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter "
    "and its gradient which can cause a memory leak. We recommend using autograd.grad when "
    "creating the graph to avoid this. If you have to use this function, make sure to reset the "
    ".grad fields of your parameters to None after use to break the cycle and avoid the leak.")


_warned_create_graph = False


def _warn_create_graph():
    """PyTorch warns once per process about backward(create_graph=True)."""
    global _warned_create_graph
    if not _warned_create_graph:
        _warned_create_graph = True
        warnings.warn(CREATE_GRAPH_WARNING, UserWarning, stacklevel=3)


def _as_list(value, none_means_empty=False):
    if value is None:
        return [] if none_means_empty else [None]
    if isinstance(value, _Tensor):
        return [value]
    return list(value)


def _grads_for(tensors, grad_tensors):
    grads = _as_list(grad_tensors)
    if grad_tensors is None:
        grads = [None] * len(tensors)
    if len(grads) != len(tensors):
        raise RuntimeError(f"got {len(grads)} tensors and {len(tensors)} gradients")
    return grads


def backward(tensors: "_C.Tensor | Sequence[_C.Tensor]",
             grad_tensors: "_C.Tensor | Sequence[_C.Tensor | None] | None" = None,
             retain_graph: bool | None = None, create_graph: bool = False,
             grad_variables: _Any = None,
             inputs: "_C.Tensor | Sequence[_C.Tensor] | None" = None) -> None:
    """Accumulates gradients of ``tensors`` into the ``.grad`` of graph leaves.

    Only leaves get ``.grad`` (plus non-leaves that called ``retain_grad()``
    or are listed in ``inputs``). Without ``retain_graph`` the saved tensors
    are freed: a second backward through the same nodes raises.

    >>> import gradtrack
    >>> x = gradtrack.tensor([1.0, 2.0], requires_grad=True)
    >>> gradtrack.autograd.backward([(x * x).sum()])
    >>> x.grad
    tensor([2., 4.])
    """
    if grad_variables is not None:
        grad_tensors = grad_variables
    tensors = _as_list(tensors)
    grads = _grads_for(tensors, grad_tensors)
    if inputs is not None:
        inputs = _as_list(inputs)
        if not inputs:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    if create_graph:
        _warn_create_graph()
        _refuse_forward_over_reverse(tensors + (_as_list(inputs) if inputs is not None else []))
    _C._run_backward(tensors, grads, retain_graph, create_graph, inputs or [])


def grad(outputs: "_C.Tensor | Sequence[_C.Tensor]", inputs: "_C.Tensor | Sequence[_C.Tensor]",
         grad_outputs: "_C.Tensor | Sequence[_C.Tensor | None] | None" = None,
         retain_graph: bool | None = None, create_graph: bool = False, only_inputs: bool = True,
         allow_unused: bool | None = None, is_grads_batched: bool = False,
         materialize_grads: bool = False) -> "tuple[_C.Tensor, ...]":
    """Returns the gradients of ``outputs`` w.r.t. ``inputs`` without touching ``.grad``.

    >>> import gradtrack
    >>> x = gradtrack.tensor([1.0, 2.0], requires_grad=True)
    >>> gradtrack.autograd.grad((x ** 3).sum(), x)
    (tensor([ 3., 12.]),)
    >>> x.grad is None
    True
    """
    outputs = _as_list(outputs)
    single = isinstance(inputs, _Tensor)
    inputs = [inputs] if single else list(inputs)
    for t in inputs:
        if not isinstance(t, _Tensor):
            raise RuntimeError("all inputs have to be Tensors or GradientEdges, but got "
                               f"{type(t).__name__}")
    grads = _grads_for(outputs, grad_outputs)
    if allow_unused is None:
        allow_unused = materialize_grads
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    if not inputs:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if create_graph:
        _refuse_forward_over_reverse(outputs + inputs)
    return _C._run_grad(outputs, grads, inputs, retain_graph, create_graph, bool(allow_unused),
                        bool(materialize_grads))


def variable(*args: _Any, **kwargs: _Any) -> _Any:
    """torch's long-deprecated ``autograd.variable``: it only raises, with torch's message.

    (The ``Variable`` wrapper itself, ``autograd.Variable``, still works.)

    >>> import gradtrack
    >>> gradtrack.autograd.variable(gradtrack.ones(2))
    Traceback (most recent call last):
    ...
    RuntimeError: torch.autograd.variable(...) is deprecated, use torch.tensor(...) instead
    """
    raise RuntimeError("torch.autograd.variable(...) is deprecated, use torch.tensor(...) instead")


def _refuse_forward_over_reverse(tensors):
    """Forward-over-reverse (a create_graph gradient of dual tensors) would come back
    without its tangent: the backward formulas carry no jvp and saved tensors drop their
    tangents. torch computes it; gradtrack refuses rather than answer without it."""
    from . import forward_ad
    if forward_ad._current_level < 0:
        return
    if any(isinstance(t, _Tensor) and forward_ad.unpack_dual(t).tangent is not None
           for t in tensors):
        raise NotImplementedError(
            "gradtrack: differentiating with create_graph=True through tensors that have a "
            "forward-AD tangent (forward-over-reverse) is not implemented; the gradient would "
            "have no tangent.")


# the profiler loads on first use: NOTE [Loaded on first use]
__getattr__, __dir__ = _submodule_hooks(__name__, ("profiler",))
