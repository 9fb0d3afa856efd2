"""Graph node types. ``type(t.grad_fn).__name__`` is PyTorch's node name
(``MulBackward0``); every node class derives from :class:`Node`."""

from .. import _C

from ..utils.hooks import RemovableHandle, check_hook_values

Node = _C.Node
Node.__module__ = "gradtrack.autograd.graph"


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


Node.register_hook = _register_hook
Node.register_prehook = _register_prehook

__all__ = ["Node"]
