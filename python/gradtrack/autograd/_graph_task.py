"""Which backward pass is running on this thread, and which nodes it will run.

NOTE [Graph tasks]
Once a multi-grad hook exists (``watched``), every backward pass is recorded as it enters
the engine (NOTE [Engine entry] in ``autograd/__init__.py``): its roots and, for
``grad()`` or ``backward(inputs=...)``, the nodes whose gradients it captures.
``register_multi_grad_hook`` asks two things of the pass that runs its hooks: which pass
it is (its hooks fire once per pass) and whether the node of a watched tensor will run in
it (mode="all" waits for exactly those). The engine runs a node when the roots reach it
and, if the pass captures, the node is captured or leads to a captured node; the answer
is found by walking ``next_functions`` once per pass, on the first question.
"""

import contextlib
import threading

from .. import _C
from .grad_mode import enable_grad

_Tensor = _C.Tensor

_state = threading.local()

# Set by the first register_multi_grad_hook: until then no one asks which pass runs, and
# a backward pass enters the engine without being recorded (a Python frame and an object
# per pass were a third of a small graph's backward).
watched = [False]

LEAF_IN_GRAD = ("A leaf node was passed to _will_engine_execute_node but we are currently "
                "running autograd.grad(). This is currently not supported.")


class GraphTask:
    """One backward pass: its root tensors, the tensors (or nodes) it captures (None:
    every reachable node runs) and whether it is ``autograd.grad`` (no accumulation).
    Their nodes are looked up on the first question only."""

    def __init__(self, roots, captured, is_grad):
        self._roots = roots
        self._captured = captured
        self.is_grad = is_grad
        self._runs = None

    def will_execute(self, node):
        """Whether ``node`` runs in this pass (NOTE [Graph tasks])."""
        if self.is_grad and is_accumulator(node):
            raise RuntimeError(LEAF_IN_GRAD)
        if self._runs is None:
            self._runs = self._executed_nodes()
        return id(node) in self._runs

    def _executed_nodes(self):
        roots = [node_of(t) for t in self._roots if t.requires_grad]
        order, seen, stack = [], {}, roots
        while stack:  # every node the roots reach, each once
            node = stack.pop()
            if id(node) in seen:
                continue
            seen[id(node)] = node
            order.append(node)
            stack.extend(n for n, _ in node.next_functions if n is not None)
        if self._captured is None:
            return set(seen)
        captured = {id(node_of(n) if isinstance(n, _Tensor) else n) for n in self._captured}
        leads = {}  # id -> leads to a captured node; children are decided first
        for node in _postorder(order):
            leads[id(node)] = id(node) in captured or any(
                leads.get(id(n), False) for n, _ in node.next_functions if n is not None)
        return {key for key, runs in leads.items() if runs}


def _postorder(nodes):
    """``nodes`` ordered so that each comes after the nodes it sends gradients to."""
    done, order = set(), []
    for start in nodes:
        if id(start) in done:
            continue
        stack = [(start, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                order.append(node)
                continue
            if id(node) in done:
                continue
            done.add(id(node))
            stack.append((node, True))
            stack.extend((n, False) for n, _ in node.next_functions
                         if n is not None and id(n) not in done)
    return order


def is_accumulator(node):
    """Whether ``node`` is a leaf's ``AccumulateGrad``."""
    return node.name().endswith("AccumulateGrad")


def node_of(tensor):
    """The node a tensor's gradient flows into: its ``grad_fn``, or its leaf's
    ``AccumulateGrad``."""
    fn = tensor.grad_fn
    if fn is not None:
        return fn
    with enable_grad():
        return tensor.view_as(tensor).grad_fn.next_functions[0][0]


def is_running(task):
    """Whether ``task`` is on this thread's stack of running passes."""
    return any(t is task for t in getattr(_state, "stack", ()))


def current():
    """The innermost pass running on this thread, or None."""
    stack = getattr(_state, "stack", None)
    return stack[-1] if stack else None


class running:
    """Marks a backward pass as the one running on this thread while inside."""

    def __init__(self, task):
        self.task = task

    def __enter__(self):
        stack = getattr(_state, "stack", None)
        if stack is None:
            stack = _state.stack = []
        stack.append(self.task)

    def __exit__(self, *exc):
        _state.stack.pop()


def recording(roots, captured, is_grad):
    """A pass with these roots recorded as the running one while inside, once a multi-grad
    hook watches (``watched``); until then nothing is recorded."""
    if not watched[0]:
        return contextlib.nullcontext()
    return running(GraphTask(roots, captured, is_grad))
