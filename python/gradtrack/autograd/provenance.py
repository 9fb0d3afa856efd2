"""Provenance: which in-place write broke a backward, and where.

NOTE [Write provenance] (csrc/autograd/provenance.h) explains what is
recorded. Errors keep PyTorch's message word for word; the extra knowledge is
attached as an exception note, which Python prints after the message:

    RuntimeError: one of the variables needed for gradient computation has been
    modified by an inplace operation: [gradtrack.FloatTensor [3]] is at version 1;
    expected version 0 instead. Hint: ...
    It was saved by PowBackward0 for the call at train.py:12, then changed in place
    by add_ (through a detach() alias) at train.py:13.
"""

from .. import _C
from ._graph_text import _dot, _saved_lines, _walk

__all__ = ["set_provenance", "is_provenance_enabled", "explain"]


class set_provenance:
    """Turns provenance recording on or off now; restores it when used as a context manager.

    >>> import gradtrack
    >>> with gradtrack.autograd.set_provenance(False):
    ...     gradtrack.autograd.is_provenance_enabled()
    False
    """

    def __init__(self, mode):
        self.prev = _C._is_provenance_enabled()
        _C._set_provenance(bool(mode))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _C._set_provenance(self.prev)


def is_provenance_enabled():
    """Whether nodes and in-place writes record the user's source line.

    >>> import gradtrack
    >>> isinstance(gradtrack.autograd.is_provenance_enabled(), bool)
    True
    """
    return _C._is_provenance_enabled()


def explain(tensor, format="text"):  # noqa: A002 - mirrors common tool flags
    """A readable tree of the graph behind ``tensor``; Graphviz dot text; or a picture.

    Each node shows its forward call's source line (when provenance is on) and
    every tensor it saved with its saved and current version; the ones that
    would make backward fail are marked (in red in a picture, with the writes
    that changed them). ``format`` is ``"text"``, ``"dot"``, ``"svg"`` (a string
    Jupyter shows inline) or ``"png"`` (bytes); the last two need Graphviz's
    ``dot`` program.

    >>> import gradtrack
    >>> x = gradtrack.ones(2, requires_grad=True)
    >>> print(gradtrack.autograd.explain((x * 2).sum()).splitlines()[0])
    SumBackward0
    """
    if format not in ("text", "dot", "svg", "png"):
        raise ValueError(f"format must be 'text', 'dot', 'svg' or 'png', got {format!r}")
    if format in ("svg", "png"):
        from .viz import render

        return render(explain(tensor, "dot"), format)
    root = tensor.grad_fn
    if root is None:
        kind = "a leaf" if tensor.requires_grad else "not part of a graph"
        text = f"(no graph: the tensor is {kind})"
        return f'digraph gradtrack {{\n  label="{text}";\n}}' if format == "dot" else text
    nodes = _walk(root)
    if format == "dot":
        return _dot(nodes)
    out = []
    for node, depth in nodes:
        pad = "    " * depth
        where = node._location()
        out.append(f"{pad}{type(node).__name__}" + (f"  <- {where}" if where else ""))
        lines, _, _ = _saved_lines(node)
        out.extend(f"{pad}  | {line}" for line in lines)
    return "\n".join(out)
