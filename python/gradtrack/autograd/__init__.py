"""gradtrack.autograd: backward, grad, grad modes, anomaly detection, gradcheck.

>>> import gradtrack
>>> x = gradtrack.tensor([1.0, 2.0, 3.0], requires_grad=True)
>>> gradtrack.autograd.grad((x ** 3).sum(), x)
(tensor([ 3., 12., 27.]),)
"""

import functools
import threading
import warnings
from collections.abc import Sequence
from typing import Any as _Any

from .. import _C
from .._legacy import Variable  # noqa: F401 - torch's pre-0.4 wrapper, for old tutorials
from .._lazy import submodule_hooks as _submodule_hooks
from . import _graph_task, forward_ad, function, functional, graph
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
    if isinstance(value, (_Tensor, graph.GradientEdge)):
        return [value]
    return list(value)


def _output_tensors(outputs):
    """``outputs`` with each GradientEdge turned back into its tensor
    (NOTE [Gradient edges as tensors])."""
    return [_edge_output(o) if isinstance(o, graph.GradientEdge) else o for o in outputs]


def _edge_output(edge):
    tensor = graph._edge_tensor(edge)
    if tensor is None:
        raise NotImplementedError(
            "gradtrack: a GradientEdge can be an output of backward() or grad() only while "
            "the tensor it was taken from lives and still has that edge (a leaf's edge always "
            "can); pass the tensor instead.")
    return tensor


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
    tensors = _output_tensors(_as_list(tensors))
    grads = _grads_for(tensors, grad_tensors)
    if inputs is not None:
        inputs = _as_list(inputs)
        if not inputs:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    if create_graph:
        _warn_create_graph()
        _refuse_forward_over_reverse(tensors + (_as_list(inputs) if inputs is not None else []))
    if not inputs:
        _engine_run_backward(tensors, grads, retain_graph, create_graph, [])
        return
    targets = [_edge_input(i) if isinstance(i, graph.GradientEdge) else i for i in inputs]
    with _checkpoint_invalid():
        if not any(t is None for t in targets):
            _engine_run_backward(tensors, grads, retain_graph, create_graph, targets)
        elif all(t is None for t in targets):
            # only edges inside the graph: their part of it runs, nothing accumulates
            _run_grad(tensors, grads, inputs, retain_graph, create_graph, True, False)
        else:
            _engine_run_backward(tensors, grads, retain_graph, create_graph,
                                 [t for t in targets if t is not None])


def _edge_input(edge):
    """What ``backward(inputs=[edge])`` accumulates into: a leaf's edge names the leaf;
    None for an edge inside the graph (nothing accumulates there)."""
    return edge.node.variable if _graph_task.is_accumulator(edge.node) else None


# NOTE [Engine entry]
# A backward pass enters the engine from the two functions below or from Tensor.backward
# (its C++ method, called directly unless anomaly mode is on, `inputs=` is given or a
# multi-grad hook watches). Each entry records the pass as the one running on this thread
# once a multi-grad hook exists (_graph_task.recording, NOTE [Graph tasks]). A warning
# raised from the engine (anomaly mode's) names the entry's line, as torch's names its one
# call into its engine.

def _engine_run_backward(tensors, grads, retain_graph, create_graph, inputs):
    with _graph_task.recording(tensors, inputs or None, False):
        _C._run_backward(tensors, grads, retain_graph, create_graph, inputs)


def _engine_run_grad(outputs, grads, inputs, retain_graph, create_graph, allow_unused,
                     materialize_grads):
    with _graph_task.recording(outputs, inputs, True):
        return _C._run_grad(outputs, grads, inputs, retain_graph, create_graph, allow_unused,
                            materialize_grads)


_native_tensor_backward = _Tensor.backward


def _tensor_backward(self: "_C.Tensor", gradient: "_C.Tensor | None" = None,
                     retain_graph: bool | None = None, create_graph: bool = False,
                     inputs: _Any = None) -> None:
    """Computes the gradient of this tensor w.r.t. graph leaves (accumulated into .grad).

    ``inputs`` limits the leaves (or tensors, or GradientEdges) whose ``.grad`` is written.

    >>> import gradtrack
    >>> x = gradtrack.tensor([1.0, 2.0], requires_grad=True)
    >>> (x * x).sum().backward()
    >>> x.grad
    tensor([2., 4.])
    """
    if inputs is None and not _graph_task.watched[0] and not _C.is_anomaly_enabled():
        return _native_tensor_backward(self, gradient, retain_graph, create_graph, None)
    if inputs is not None and any(isinstance(i, graph.GradientEdge) for i in _as_list(inputs)):
        backward(self, gradient, retain_graph, create_graph, inputs=inputs)
        return
    captured = None if inputs is None else _as_list(inputs)
    with _graph_task.recording([self], captured or None, False):
        _native_tensor_backward(self, gradient, retain_graph, create_graph, inputs)


_tensor_backward.__name__ = "backward"
_tensor_backward.__qualname__ = "Tensor.backward"
_tensor_backward.__module__ = "gradtrack"  # pickled by name as gradtrack.Tensor.backward
_Tensor.backward = _tensor_backward


def _run_grad(outputs, grads, inputs, retain_graph, create_graph, allow_unused,
              materialize_grads):
    """One ``grad`` pass; ``inputs`` may hold GradientEdges (NOTE [Gradient edges as
    tensors])."""
    if not any(isinstance(i, graph.GradientEdge) for i in inputs):
        return _engine_run_grad(outputs, grads, inputs, retain_graph, create_graph,
                                allow_unused, materialize_grads)
    resolved = [graph._edge_tensor(i) if isinstance(i, graph.GradientEdge) else i
                for i in inputs]
    captured, handles, extra = {}, [], []
    for k, (given, tensor) in enumerate(zip(inputs, resolved)):
        if tensor is not None:
            continue
        leaf = graph._leaf_below(given.node)
        if leaf is None:
            raise NotImplementedError(
                "gradtrack: grad() with respect to a GradientEdge whose tensor is gone and "
                "below which no leaf that requires grad lives is not supported.")
        extra.append(leaf)
        node = given.node
        register = (node._register_prehook if isinstance(node, _C.Node)
                    else node._cdata()._register_prehook)  # a custom Function's node
        handles.append(register(functools.partial(_capture_edge_grad, captured, k,
                                                  given.output_nr)))
    try:
        found = _engine_run_grad(outputs, grads, [t for t in resolved if t is not None] + extra,
                                 retain_graph, create_graph, True, False)
    finally:
        for handle in handles:
            handle.remove()
    found = iter(found)
    result = [next(found) if t is not None else captured.get(k) for k, t in enumerate(resolved)]
    for k, (given, grad) in enumerate(zip(inputs, result)):
        if grad is not None:
            continue
        if materialize_grads:
            if isinstance(given, graph.GradientEdge):
                raise RuntimeError("materialize_grads cannot be used when the given input is a "
                                   "GradientEdge")
            result[k] = _C._like("zeros", given, None, create_graph, None)
        elif not allow_unused:
            raise RuntimeError(f"The differentiated Tensor at index {k} appears to not have "
                               "been used in the graph. Set allow_unused=True if this is the "
                               "desired behavior.")
    return tuple(result)


def _capture_edge_grad(captured, index, output_nr, grad_outputs):
    captured.setdefault(index, grad_outputs[output_nr])


# NOTE [Checkpoint validity]
# A reentrant checkpoint's backward runs a nested backward that writes .grad; under
# grad() (which captures instead) or backward(inputs=...) that would write gradients the
# caller did not ask for, so the checkpoint refuses, as torch's does, by asking
# _is_checkpoint_valid(). The answer is per thread (the engine runs nodes on the caller's
# thread) and stays False for nested backward calls inside such a pass; Tensor.backward,
# bound in C++, sets it the same way for an `inputs=` pass.
_engine_state = threading.local()


def _is_checkpoint_valid() -> bool:
    """Whether the backward pass running on this thread may write ``.grad`` (False inside
    ``grad()`` and ``backward(inputs=...)``).

    >>> import gradtrack
    >>> gradtrack.autograd._is_checkpoint_valid()
    True
    """
    return getattr(_engine_state, "checkpoint_valid", True)


class _checkpoint_invalid:
    """Marks the backward pass run inside it as one a reentrant checkpoint refuses."""

    def __enter__(self):
        self.previous = _is_checkpoint_valid()
        _engine_state.checkpoint_valid = False

    def __exit__(self, *exc):
        _engine_state.checkpoint_valid = self.previous


def grad(outputs: "_C.Tensor | Sequence[_C.Tensor]", inputs: "_C.Tensor | Sequence[_C.Tensor]",
         grad_outputs: "_C.Tensor | Sequence[_C.Tensor | None] | None" = None,
         retain_graph: bool | None = None, create_graph: bool = False, only_inputs: bool = True,
         allow_unused: bool | None = None, is_grads_batched: bool = False,
         materialize_grads: bool = False) -> "tuple[_C.Tensor, ...]":
    """Returns the gradients of ``outputs`` w.r.t. ``inputs`` without touching ``.grad``.

    With ``is_grads_batched=True`` the first dim of each grad_output is a batch: one
    gradient per row, stacked (NOTE [Batched gradients]).

    >>> import gradtrack
    >>> x = gradtrack.tensor([1.0, 2.0], requires_grad=True)
    >>> gradtrack.autograd.grad((x ** 3).sum(), x)
    (tensor([ 3., 12.]),)
    >>> x.grad is None
    True
    >>> gradtrack.autograd.grad(x ** 3, x, gradtrack.eye(2), is_grads_batched=True)
    (tensor([[ 3.,  0.],
            [ 0., 12.]]),)

    ``inputs`` may be a dict of tensors: the gradients come back under the same keys.
    """
    if isinstance(inputs, dict):
        found = grad(outputs, list(inputs.values()), grad_outputs, retain_graph, create_graph,
                     only_inputs, allow_unused, is_grads_batched, materialize_grads)
        return dict(zip(inputs.keys(), found))
    outputs = _output_tensors(_as_list(outputs))
    inputs = _as_list(inputs)
    for t in inputs:
        if not isinstance(t, (_Tensor, graph.GradientEdge)):
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
    with _checkpoint_invalid():
        if is_grads_batched:
            return _grad_batched(outputs, grads, inputs, retain_graph, create_graph,
                                 bool(allow_unused), bool(materialize_grads))
        return _run_grad(outputs, grads, inputs, retain_graph, create_graph,
                         bool(allow_unused), bool(materialize_grads))


# NOTE [Batched gradients]
# grad(is_grads_batched=True) reads the first dim of each grad_output as a batch and
# returns, per input, the vector-Jacobian product of each row stacked along a new first
# dim. torch maps one backward over the batch (vmap); here the backward runs once per
# row, the graph kept until the last one, so values, shapes, errors and the None of an
# unused input are torch's. What differs: hooks run once per row, and with
# create_graph the result's node is the stack's (torch's is the last op of the batched
# backward). The checks are torch's and in its order: each grad_output's row against its
# output (a None one is ones for a scalar output, as without a batch), then those of the
# map over the batch (a None or 0-dim grad_output cannot be mapped; every batch the same
# size).
_VMAP = "vmap(vjp, in_dims=0, ...)(<inputs>): "


def _position(tensors, tensor):
    """Where torch's message finds ``tensor``: ``list.index``, which compares the
    tensors before it with ``==`` (so a tensor of another shape before it can raise)."""
    return list(tensors).index(tensor)


def _batched_grad_output(outputs, grads, out, grad):
    """One grad_output as the batch uses it (a None for an output without grad gives
    None), else the error torch raises for it."""
    if grad is None:
        if not out.requires_grad:
            return None
        # one implicit gradient for every row, as grad() makes for a scalar output
        if out.numel() != 1:
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
        if not out.is_floating_point():
            raise RuntimeError("grad can be implicitly created only for real scalar "
                               f"outputs but got {out.dtype}")
        return _C._like("ones", out, None, False, None)
    if not isinstance(grad, _Tensor):
        raise TypeError("gradients can be either Tensors or None, but got "
                        f"{type(grad).__name__}")
    first = grad[0]
    if first.shape == out.shape:
        return grad
    # torch reports the first row's trailing dims (shape[1:]) as the grad_output's shape
    raise RuntimeError(
        "If `is_grads_batched=True`, we interpret the first dimension of each "
        "grad_output as the batch dimension. The sizes of the remaining dimensions "
        "are expected to match the shape of corresponding output, but a mismatch was "
        f"detected: grad_output[{_position(grads, grad)}] has a shape of "
        f"{first.shape[1:]} and output[{_position(outputs, out)}] has a shape of "
        f"{out.shape}. If you only want some tensors in `grad_output` to be "
        "considered batched, consider using vmap.")


def _batched_grad_outputs(outputs, grads):
    """(the grad_outputs, the batch size), after every per-output check, then vmap's."""
    made = [_batched_grad_output(outputs, grads, out, grad) for out, grad in zip(outputs, grads)]
    for grad in made:
        if grad is None:
            raise ValueError(f"{_VMAP}Got in_dim=0 for an input but the input is of type "
                             f"{type(grad)}. We cannot vmap over non-Tensor arguments, please "
                             "use None as the respective in_dim")
        if grad.dim() == 0:
            raise ValueError(f"{_VMAP}Got in_dim=0 for some input, but that input is a Tensor of "
                             "dimensionality 0 so expected in_dim to satisfy 0 <= in_dim < 0.")
    sizes = [len(grad) for grad in made]
    if len(set(sizes)) > 1:
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    return made, sizes[0]


def _grad_batched(outputs, grads, inputs, retain_graph, create_graph, allow_unused,
                  materialize_grads):
    """``grad`` with ``is_grads_batched=True`` (NOTE [Batched gradients])."""
    grads, batch = _batched_grad_outputs(outputs, grads)
    rows = []
    for b in range(batch):
        keep = retain_graph if b == batch - 1 else True
        rows.append(_run_grad(outputs, [g[b] for g in grads], inputs, keep, create_graph,
                              allow_unused, False))
    result = tuple(None if found[0] is None else _C.stack(list(found)) for found in zip(*rows))
    if materialize_grads:
        # torch fills an unused input's gradient without the batch dim
        for r, t in zip(result, inputs):
            if r is None and isinstance(t, graph.GradientEdge):
                raise RuntimeError("materialize_grads cannot be used when the given input is a "
                                   "GradientEdge")
        result = tuple(_C._like("zeros", t, None, create_graph, None) if r is None else r
                       for r, t in zip(result, inputs))
    return result


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
