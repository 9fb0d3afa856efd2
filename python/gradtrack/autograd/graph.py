"""Graph node types. ``type(t.grad_fn).__name__`` is PyTorch's node name
(``MulBackward0``); every node class derives from :class:`Node`."""

from .. import _C

Node = _C.Node
Node.__module__ = "gradtrack.autograd.graph"

__all__ = ["Node"]
