"""Graph nodes and saved-tensor hooks.

``type(t.grad_fn).__name__`` is PyTorch's node name (``MulBackward0``);
``isinstance(t.grad_fn, Node)`` holds for every node, built-in or custom.

>>> import gradtrack
>>> from gradtrack.autograd.graph import Node, saved_tensors_hooks
>>> x = gradtrack.tensor([1.0, 2.0], requires_grad=True)
>>> isinstance((x * x).grad_fn, Node)
True
>>> with saved_tensors_hooks(lambda t: t.detach(), lambda t: t * 10):
...     y = x.sin()
>>> y.sum().backward()  # backward uses what unpack returned: cos(10 * x)
>>> x.grad
tensor([-0.8391,  0.4081])
"""

import abc
import contextlib
import functools
import threading
import weakref
from typing import NamedTuple

from .. import _C
from ..utils import hooks as _hook_handles
from ..utils.hooks import RemovableHandle, check_hook_values  # noqa: F401 - importable here
from . import _graph_task
from .function import BackwardCFunction
from .grad_mode import no_grad

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks",
           "register_multi_grad_hook", "allow_mutation_on_saved_tensors", "Node", "GradientEdge",
           "get_gradient_edge", "increment_version"]

_hooks = _C._saved_hooks


class Node(abc.ABC):
    """A node of the backward graph (abstract: every ``grad_fn`` is an instance).

    >>> import gradtrack
    >>> y = (gradtrack.ones(2, requires_grad=True) * 2).sum()
    >>> isinstance(y.grad_fn, gradtrack.autograd.graph.Node), y.grad_fn.name()
    (True, 'SumBackward0')
    """

    @abc.abstractmethod
    def name(self):
        """The node's name, e.g. ``'MulBackward0'``."""

    @property
    @abc.abstractmethod
    def next_functions(self):
        """``((node, input_nr), ...)``: where this node sends each gradient."""

    @property
    @abc.abstractmethod
    def metadata(self):
        """A dict kept with the node for the user's own data."""

    @property
    @abc.abstractmethod
    def _input_metadata(self):
        """Shapes and dtypes of the node's inputs."""

    @abc.abstractmethod
    def _register_hook_dict(self, tensor):
        """Registers the tensor hooks of ``tensor`` (PyTorch internal)."""

    @abc.abstractmethod
    def register_hook(self, fn):
        """Calls ``fn(grad_inputs, grad_outputs)`` after the node ran."""

    @abc.abstractmethod
    def register_prehook(self, fn):
        """Calls ``fn(grad_outputs)`` before the node runs."""

    @abc.abstractmethod
    def _sequence_nr(self):
        """The node's creation order."""


_CNode = _C.Node


def _register_hook(self, fn):
    """Calls ``fn(grad_inputs, grad_outputs)`` after this node ran; may return new grad_inputs."""
    return _hook_handles.graph_hook_handle(self._register_hook, _hook_handles.run_node_hook, fn)


def _register_prehook(self, fn):
    """Calls ``fn(grad_outputs)`` before this node runs; may return new grad_outputs."""
    return _hook_handles.graph_hook_handle(self._register_prehook,
                                         _hook_handles.run_node_prehook, fn)


# NOTE [Saved tensors by name]
# torch's nodes show what they saved as attributes named after the op's arguments
# (``_saved_self``, ``_saved_other``, ``_saved_result``). An elementwise op's node reads its
# names from the op list (self, other; pow's tensor exponent is ``exponent``), and the
# saved slot (inputs by position, then the result) is unpacked as backward would unpack
# it: None where nothing was saved, torch's errors once freed or written in place. Not
# yet: the number operand torch saves as a wrapped tensor (``(x * 2)._saved_other``), the
# ``_raw_saved_*`` objects, scalar arguments (``_saved_alpha``), and nodes of other ops.
_SAVED_NAMES = None
_ARGUMENT_NAMES = {"PowBackward1": ("self", "exponent")}



def _saved_names():
    """{grad_fn name: ({argument name: input position}, saves a result, a number form
    records it too)}."""
    global _SAVED_NAMES
    if _SAVED_NAMES is None:
        from .. import _declarations
        table = {}
        ops = _declarations.pointwise_ops()
        # the tensor forms first; a number form that shares a node name (x * 2 records
        # MulBackward0) leaves its number unsaved, so there an empty slot is not "nothing
        # saved" and the attribute is not given
        for d, arity in [(op.derivative, op.arity) for op in ops] + [(op.number, 1) for op in ops]:
            if not isinstance(d, _declarations.Derivative):
                continue
            if d.grad_fn in table:
                table[d.grad_fn] = (table[d.grad_fn][0], table[d.grad_fn][1], True)
                continue
            names = _ARGUMENT_NAMES.get(d.grad_fn, ("self", "other")[:arity])
            table[d.grad_fn] = ({names[i]: i for i in d.saves if i < len(names)},
                                d.saves_result, False)
        _SAVED_NAMES = table
    return _SAVED_NAMES


def _saved_attribute(self, name):
    if name.startswith("_saved_"):
        entry = _saved_names().get(type(self).__name__)
        if entry is not None:
            positions, saves_result, shared = entry
            argument = name[len("_saved_"):]
            if argument in positions:
                value = self._saved_slot(positions[argument])
                if value is not None or not shared or positions[argument] == 0:
                    return value
            if argument == "result" and saves_result:
                return self._saved_slot(self._saved_input_count())
    raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")


_CNode.register_hook = _register_hook
_CNode.register_prehook = _register_prehook
_CNode.__getattr__ = _saved_attribute
Node.register(_CNode)
Node.register(BackwardCFunction)  # a custom Function's node is its ctx object


def increment_version(tensor):
    """Bumps the version counter of ``tensor`` (or of each tensor of an iterable),
    as an in-place write would: for memory changed behind autograd's back, so that
    backward refuses values it saved before the change.

    >>> import gradtrack
    >>> from gradtrack.autograd.graph import increment_version
    >>> x = gradtrack.zeros(2)
    >>> increment_version(x)
    >>> increment_version([x, x])
    >>> x._version
    3
    """
    if isinstance(tensor, _C.Tensor):
        tensor = (tensor,)
    for t in tensor:
        # An in-place write to an empty view shares the counter of its base
        # and touches no memory, so only the version moves.
        view = t.detach()
        if view.dim() == 0:
            view = view.unsqueeze(0)
        view.narrow(0, 0, 0).zero_()


class saved_tensors_hooks:
    """Within this context, every tensor saved for backward goes through
    ``pack_hook(tensor)``; backward uses ``unpack_hook(packed)`` instead.

    ``pack_hook`` runs once per saved tensor, when it is saved; ``unpack_hook``
    runs each time the saved tensor is read. Only the innermost pair applies.

    >>> import gradtrack
    >>> from gradtrack.autograd.graph import saved_tensors_hooks
    >>> x = gradtrack.ones(2, requires_grad=True)
    >>> with saved_tensors_hooks(lambda t: (print("pack"), t.detach())[1], lambda t: t):
    ...     y = x * x
    pack
    pack
    """

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        _hooks.push(self.pack_hook, self.unpack_hook)

    def __exit__(self, *args):
        _hooks.pop()


class save_on_cpu(saved_tensors_hooks):
    """Saves tensors for backward on the CPU. Everything here already lives
    on the CPU, so this keeps a copy-free ``(device, tensor)`` pair.

    >>> import gradtrack
    >>> x = gradtrack.ones(2, requires_grad=True)
    >>> with gradtrack.autograd.graph.save_on_cpu():
    ...     y = (x * x).sum()
    >>> y.backward()
    >>> x.grad
    tensor([2., 2.])
    """

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack_to_cpu(tensor):
            return (tensor.device, tensor.cpu())

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device)

        super().__init__(pack_to_cpu, unpack_from_cpu)


class disable_saved_tensors_hooks:
    """Within this context, entering :class:`saved_tensors_hooks` raises
    ``RuntimeError(error_message)`` (so does entering this context while a pair
    of hooks is in effect).

    >>> import gradtrack
    >>> from gradtrack.autograd import graph
    >>> with graph.disable_saved_tensors_hooks("no hooks here"):
    ...     with graph.save_on_cpu():
    ...         pass
    Traceback (most recent call last):
    ...
    RuntimeError: no hooks here
    """

    def __init__(self, error_message):
        self.error_message = error_message
        self._previous = None

    def __enter__(self):
        self._previous = _hooks.get_disabled_error_message()
        try:
            _hooks.disable(self.error_message)
        except BaseException:
            self._restore()
            raise

    def _restore(self):
        if self._previous is None:
            _hooks.enable()
        else:
            _hooks.disable(self._previous)

    def __exit__(self, *args):
        self._restore()

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with disable_saved_tensors_hooks(self.error_message):
                return fn(*args, **kwargs)

        return wrapper


# ---- gradient edges ---------------------------------------------------------------------

class GradientEdge(NamedTuple):
    """Where in the graph a tensor's gradient is computed: the ``node`` it flows into and
    which of the node's inputs (``output_nr``) it is. ``autograd.grad`` and
    ``autograd.backward`` take one wherever they take a tensor.

    >>> import gradtrack
    >>> from gradtrack.autograd.graph import get_gradient_edge
    >>> x = gradtrack.tensor([1.0, 2.0], requires_grad=True)
    >>> y = x * 3
    >>> edge = get_gradient_edge(y)
    >>> edge.node.name(), edge.output_nr
    ('MulBackward0', 0)
    >>> gradtrack.autograd.grad((y * y).sum(), edge)
    (tensor([ 6., 12.]),)
    """

    node: Node
    output_nr: int
    ownership_token: "Node | None" = None


# (id(node), output_nr) -> the tensor an edge was taken from, while it lives: the engine
# is entered with tensors (NOTE [Gradient edges as tensors])
_edge_tensors = weakref.WeakValueDictionary()


def get_gradient_edge(tensor: "_C.Tensor") -> GradientEdge:
    """The :class:`GradientEdge` of ``tensor``'s gradient: ``grad(loss, edge)`` is
    ``grad(loss, tensor)``, and stays so after ``tensor`` is modified in place.

    >>> import gradtrack
    >>> from gradtrack.autograd.graph import get_gradient_edge
    >>> x = gradtrack.ones(2, requires_grad=True)
    >>> get_gradient_edge(x).node.name()
    'gradtrack::autograd::AccumulateGrad'
    """
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does "
                           "not require gradients")
    node = _graph_task.node_of(tensor)
    output_nr = tensor.output_nr if tensor.grad_fn is not None else 0
    if tensor.grad_fn is not None:
        _edge_tensors[(id(node), output_nr)] = tensor
    return GradientEdge(node, output_nr)


# NOTE [Gradient edges as tensors]
# The engine is entered with tensors, so an edge is turned back into one: a leaf's
# AccumulateGrad names its leaf (``variable``); any other edge names the tensor it was
# taken from while that tensor lives and still has the edge's node and slot. An input
# edge without such a tensor is read by a pre-hook on its node, in a pass that runs the
# node by asking for a leaf below it too (the nodes between the edge and that leaf run
# as well, and without retain_graph free what they saved).

def _edge_tensor(edge):
    """The tensor whose gradient ``edge`` names, or None (NOTE [Gradient edges as tensors])."""
    node, output_nr = edge.node, edge.output_nr
    if _graph_task.is_accumulator(node):
        return node.variable
    tensor = _edge_tensors.get((id(node), output_nr))
    if tensor is not None and tensor.grad_fn is node and tensor.output_nr == output_nr:
        return tensor
    return None


def _leaf_below(node):
    """A live leaf that requires grad, reached from ``node`` through ``next_functions``."""
    seen, stack = set(), [node]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if _graph_task.is_accumulator(current):
            if current.variable is not None:
                return current.variable
            continue
        stack.extend(n for n, _ in current.next_functions if n is not None)
    return None


# ---- hooks on several tensors -----------------------------------------------------------

class _MultiHandle(RemovableHandle):
    """The handle of :func:`register_multi_grad_hook`: the per-tensor hooks' handles
    (``handles``, as torch names them), removed together; it pickles as that tuple."""

    def __init__(self, handles):
        vars(self)["handles"] = tuple(handles)

    def remove(self) -> None:
        for one in vars(self)["handles"]:
            one.remove()

    def __reduce__(self):
        return type(self), (vars(self)["handles"],)


_MODES = ("all", "any")


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """Calls ``fn`` once per backward pass that computes gradients of ``tensors``.

    With ``mode="all"``, ``fn(grads)`` runs after the gradients of every tensor of
    ``tensors`` that the pass computes are known: ``grads`` is a list with one entry per
    tensor, None where the pass computes none. With ``mode="any"``, ``fn(grad)`` runs
    with the first gradient of them the pass computes. What ``fn`` returns is ignored.

    >>> import gradtrack
    >>> from gradtrack.autograd.graph import register_multi_grad_hook
    >>> a = gradtrack.ones(2, requires_grad=True)
    >>> b = gradtrack.ones(2, requires_grad=True)
    >>> handle = register_multi_grad_hook((a, b), lambda grads: print(grads))
    >>> (a * 3).sum().backward()
    [tensor([3., 3.]), None]
    >>> handle.remove()
    """
    _graph_task.watched[0] = True
    if mode not in _MODES:
        raise ValueError(f"Expects mode to be one of {_MODES} but got {mode}")
    if mode == "any":
        return _any_grad_hook(tensors, fn)
    tensors = tuple(tensors)
    nodes = []
    for t in tensors:
        if not t.requires_grad:
            raise AssertionError("Expected gradient function to be set")
        nodes.append(_graph_task.node_of(t))
    pending = {}  # id(task) -> [task, grads, hooks still to fire]
    lock = threading.Lock()

    def fire(index, grad):
        task = _graph_task.current()
        with lock:
            entry = pending.get(id(task))
            if entry is None or entry[0] is not task:
                _drop_finished(pending)
                expected = (len(nodes) if task is None
                            else sum(task.will_execute(n) for n in nodes))
                entry = pending[id(task)] = [task, [None] * len(tensors), expected]
            entry[1][index] = grad
            entry[2] -= 1
            if entry[2] > 0:
                return
            del pending[id(task)]
        fn(entry[1])

    handles = tuple(t.register_hook(functools.partial(fire, i)) for i, t in enumerate(tensors))
    return _MultiHandle(handles)


def _drop_finished(pending):
    """Forgets the passes that ended before every expected hook fired."""
    for key in [k for k, entry in pending.items() if not _graph_task.is_running(entry[0])]:
        del pending[key]


def _any_grad_hook(tensors, fn):
    fired = weakref.WeakKeyDictionary()  # the passes that called fn already
    lock = threading.Lock()

    def fire(grad):
        task = _graph_task.current()
        with lock:
            if task is not None:
                if task in fired:
                    return
                fired[task] = True
        fn(grad)

    handles = tuple(t.register_hook(fire) for t in tensors if t.requires_grad)
    return _MultiHandle(handles)


# ---- in-place writes to saved tensors ---------------------------------------------------

_mutation_context = []  # the open allow_mutation_on_saved_tensors context, if any

_OUTSIDE = ("Trying to backward outside of the 'allow_mutation_on_saved_tensors' context"
            "in which the graph was originally recorded.")


class _AllowMutationOnSavedContext:
    """What :func:`allow_mutation_on_saved_tensors` yields: its pack and unpack hooks
    (NOTE [Mutation of saved tensors]), refusing a backward once it closed."""

    def __init__(self):
        self.closed = False

    def pack(self, tensor):
        with no_grad():
            copy = tensor.clone()
        return self, tensor, tensor._version, copy

    @staticmethod
    def unpack(packed):
        context, tensor, version, copy = packed
        if context.closed:
            raise AssertionError(_OUTSIDE)
        return tensor if tensor._version == version else copy


# NOTE [Mutation of saved tensors]
# Inside allow_mutation_on_saved_tensors every tensor saved for backward is saved along
# with a copy of its values. Backward reads the tensor itself while nothing wrote it since
# (so its history, for a double backward, is kept) and the copy otherwise; a write to the
# tensor then no longer fails the saved-version check. torch copies only what is written;
# this copies every saved tensor, which costs memory but no outcome.

@contextlib.contextmanager
def allow_mutation_on_saved_tensors():
    """Within this context, tensors saved for backward may be modified in place: backward
    uses their values from when they were saved. Run backward inside it too.

    >>> import gradtrack
    >>> from gradtrack.autograd.graph import allow_mutation_on_saved_tensors
    >>> a = gradtrack.tensor([1.0, 2.0], requires_grad=True)
    >>> with allow_mutation_on_saved_tensors():
    ...     b = a.clone()
    ...     out = (b * b).sum()
    ...     _ = b.mul_(10)
    ...     out.backward()
    >>> a.grad
    tensor([2., 4.])
    """
    if _mutation_context:
        raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
    context = _AllowMutationOnSavedContext()
    _mutation_context.append(context)
    try:
        with saved_tensors_hooks(context.pack, context.unpack):
            yield context
    finally:
        context.closed = True
        _mutation_context.clear()
