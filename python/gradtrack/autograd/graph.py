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

from .. import _C
from ..utils.hooks import RemovableHandle, check_hook_values
from .function import BackwardCFunction

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks", "Node",
           "increment_version"]

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
    def checked(grad_inputs, grad_outputs):
        return check_hook_values(fn, grad_inputs, fn(grad_inputs, grad_outputs))

    return RemovableHandle(self._register_hook(checked))


def _register_prehook(self, fn):
    """Calls ``fn(grad_outputs)`` before this node runs; may return new grad_outputs."""
    def checked(grad_outputs):
        return check_hook_values(fn, grad_outputs, fn(grad_outputs))

    return RemovableHandle(self._register_prehook(checked))


_CNode.register_hook = _register_hook
_CNode.register_prehook = _register_prehook
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
