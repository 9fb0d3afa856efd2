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


def _walk(root):
    """Nodes reachable from ``root`` in depth-first order, each once, with depth."""
    seen, order, stack = set(), [], [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        order.append((node, depth))
        for child, _ in reversed(node.next_functions):
            stack.append((child, depth + 1))
    return order


def _saved_lines(node):
    """Per saved tensor a line; whether any is stale; the notes naming the stale ones' writes."""
    lines, notes, broken = [], [], False
    for tensor, saved, current, is_output, released, note in node._saved_versions():
        what = "its output" if is_output else "an input"
        if released:
            lines.append(f"saved {what}: freed by a backward without retain_graph")
            broken = True
            continue
        shape = list(tensor.shape) if tensor is not None else []
        status = "ok" if saved == current else "MODIFIED: backward will fail"
        broken = broken or saved != current
        lines.append(f"saved {what} {shape}: version {saved} when saved, {current} now ({status})")
        if note:
            notes.append(note)
    return lines, broken, notes


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


def _quote(text):
    return text.replace("\\", "\\\\").replace('"', "\\\"")


def _dot(nodes, leaf_names=None, show_saved=True):
    """Dot text for ``nodes``; ``leaf_names`` maps id(tensor) to a name for AccumulateGrad."""
    ids = {id(node): f"n{i}" for i, (node, _) in enumerate(nodes)}
    out = ["digraph gradtrack {", '  node [shape=box, fontname="monospace"];']
    for node, _ in nodes:
        lines, broken, notes = _saved_lines(node)
        where = node._location()
        head = [type(node).__name__] + ([f"at {where}"] if where else [])
        if leaf_names is not None and type(node).__name__ == "AccumulateGrad":
            var = node.variable
            head.insert(0, f"{leaf_names.get(id(var), '')} {tuple(var.shape)}".strip())
        body = (lines + notes) if show_saved else []
        label = "\\n".join(_quote(line) for line in head + body)
        color = ', color=red, fontcolor=red' if broken else ""
        out.append(f'  {ids[id(node)]} [label="{label}"{color}];')
        for child, _ in node.next_functions:
            if child is not None:
                out.append(f"  {ids[id(child)]} -> {ids[id(node)]};")
    out.append("}")
    return "\n".join(out)
