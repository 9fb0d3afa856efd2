"""The graph behind a tensor as text: its nodes walked depth first, each node's
saved tensors with their saved and current versions, and Graphviz's dot source.

A leaf below ``provenance.py`` (``explain``) and ``viz.py`` (``make_dot``, and the
pictures ``explain`` draws through it), which both write graphs this way.
"""


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
    for tensor, saved, current, is_output, released, note, silent in node._saved_versions():
        what = "its output" if is_output else "an input"
        if released:
            lines.append(f"saved {what}: freed by a backward without retain_graph")
            broken = True
            continue
        shape = list(tensor.shape) if tensor is not None else []
        if saved != current:
            status = "MODIFIED: backward will fail"
        elif silent:  # NOTE [Silent writes]: only with the detector on when saved
            status = f"{silent}: backward would be wrong"
        else:
            status = "ok"
        broken = broken or saved != current or bool(silent)
        lines.append(f"saved {what} {shape}: version {saved} when saved, {current} now ({status})")
        if note:
            notes.append(note)
    return lines, broken, notes


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
