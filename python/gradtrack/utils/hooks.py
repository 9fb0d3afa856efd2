"""Handles returned by ``register_hook`` and friends, and the checks of hook results."""

import weakref
from collections import OrderedDict
from typing import Any

from .. import _C
from .._dtype_names import legacy_type_name


class RemovableHandle:
    """Removes the hook it was returned for; usable as a context manager.

    ``hooks_dict`` maps hook ids to hooks (held weakly, as is each dict of
    ``extra_dict``, a dict or a list of dicts); ``remove()`` deletes the handle's id
    from all of them. Every handle takes its id from one counter, ``next_id``, shared
    by tensor, node, module and optimizer hooks.

    >>> import gradtrack
    >>> x = gradtrack.ones(2, requires_grad=True)
    >>> with x.register_hook(lambda g: g * 0):
    ...     (x * 3).sum().backward()
    >>> x.grad
    tensor([0., 0.])
    """

    id: int  # noqa: A003 - torch's name
    next_id: int = 0

    def __init__(self, hooks_dict: Any, *, extra_dict: Any = None) -> None:
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        if isinstance(extra_dict, dict):
            extra_dict = [extra_dict]
        self.extra_dict_ref = (tuple(weakref.ref(d) for d in extra_dict)
                               if isinstance(extra_dict, list) else ())

    def remove(self) -> None:
        """Unregisters the hook (idempotent)."""
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            hooks = ref()
            if hooks is not None and self.id in hooks:
                del hooks[self.id]

    def __getstate__(self) -> tuple:
        # the dicts themselves: in one pickle with their owner, the copy points at the copy's
        return (self.hooks_dict_ref(), self.id, tuple(ref() for ref in self.extra_dict_ref))

    def __setstate__(self, state: tuple) -> None:
        hooks = OrderedDict() if state[0] is None else state[0]
        self.hooks_dict_ref = weakref.ref(hooks)
        self.id = state[1]
        RemovableHandle.next_id = max(RemovableHandle.next_id, self.id + 1)
        self.extra_dict_ref = (tuple(weakref.ref(d) for d in state[2])
                               if len(state) > 2 else ())

    def __enter__(self) -> "RemovableHandle":
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


# NOTE [Hooks kept by the graph]
# Tensor and node hooks live in C++ lists, so their RemovableHandle points at a one-entry
# table kept alive by the function the graph holds. That function looks its hook up in
# the table each time it runs (replacing the entry replaces the hook; a missing entry does
# nothing), and deleting the entry also unregisters the function from the graph.

class _GraphHooks(OrderedDict):
    """A hook table whose entries the C++ graph runs (NOTE [Hooks kept by the graph])."""

    def __init__(self) -> None:
        super().__init__()
        self.unregister = {}

    def __delitem__(self, key: Any) -> None:
        super().__delitem__(key)
        native = self.unregister.pop(key, None)
        if native is not None:
            native.remove()

    def pop(self, key: Any, *default: Any) -> Any:
        if key in self:
            value = self[key]
            del self[key]
            return value
        return super().pop(key, *default)

    def __reduce__(self) -> tuple:
        return (OrderedDict, (list(self.items()),))

    def __repr__(self) -> str:
        return repr(OrderedDict(self))


def graph_hook_handle(register: Any, run_hook: Any, hook: Any) -> RemovableHandle:
    """The handle of ``hook`` kept by the C++ graph: ``register(fn)`` puts ``fn`` in the
    graph and returns what unregisters it; ``fn(*args)`` calls ``run_hook(hook, *args)``
    (NOTE [Hooks kept by the graph])."""
    hooks = _GraphHooks()
    handle = RemovableHandle(hooks)
    key = handle.id
    hooks[key] = hook

    def run(*args):
        current = hooks.get(key)
        return None if current is None else run_hook(current, *args)

    hooks.unregister[key] = register(run)
    return handle


# ---- what a gradient hook may return (PyTorch's check_single_result) ----------------------

def hook_name(hook):
    """The name a hook goes by in messages: its ``__name__``, else ``<unknown>``."""
    name = getattr(hook, "__name__", None)
    return name if isinstance(name, str) else "<unknown>"


def check_hook_value(hook, original, value):
    """Refuses a replacement gradient that is not a tensor, or has another dtype or shape
    than the gradient it replaces (dtype is checked first, as PyTorch does)."""
    if value is None:
        return
    if original is None:
        raise RuntimeError("can't replace a None gradient with a non-None value")
    if not isinstance(value, _C.Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(value).__name__}'")
    if value.dtype is not original.dtype:
        raise RuntimeError(f"hook '{hook_name(hook)}' has changed the type of value (was "
                           f"{legacy_type_name(original)} got {legacy_type_name(value)})")
    if value.shape != original.shape:
        raise RuntimeError(f"hook '{hook_name(hook)}' has changed the size of value")


def check_hook_values(hook, originals, result):
    """A node hook's result: None (keep the gradients) or a tuple with one entry per
    gradient, each None or a tensor that passes :func:`check_hook_value`.

    >>> import gradtrack
    >>> from gradtrack.autograd.graph import check_hook_values
    >>> check_hook_values(print, (gradtrack.ones(2),), None) is None
    True
    """
    if result is None:
        return None
    if not isinstance(result, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(result).__name__}'")
    if len(result) != len(originals):
        raise RuntimeError(f"hook '{hook_name(hook)}' has returned an incorrect number of values "
                           f"(got {len(result)}, but expected {len(originals)})")
    for original, value in zip(originals, result):
        check_hook_value(hook, original, value)
    return result


def run_node_hook(fn, grad_inputs, grad_outputs):
    """Runs a node's hook and checks the grad_inputs it may return."""
    return check_hook_values(fn, grad_inputs, fn(grad_inputs, grad_outputs))


def run_node_prehook(fn, grad_outputs):
    """Runs a node's pre-hook and checks the grad_outputs it may return."""
    return check_hook_values(fn, grad_outputs, fn(grad_outputs))
