"""Autograd graphs as pictures, through Graphviz's ``dot`` program.

``explain(loss, format="svg")`` draws the graph gradtrack's provenance knows about: each
node with its forward call's source line, each saved tensor with its saved and current
version, and a stale one in red with the write that changed it. ``make_dot`` takes what
torchviz's ``make_dot`` takes, so notebooks written for it work here.
"""

from ._graph_text import _dot, _walk

__all__ = ["make_dot", "Graph"]

_INSTALL = ("needs Graphviz's dot program, which was not found on PATH: install it with "
            "'apt install graphviz' (Debian/Ubuntu), 'brew install graphviz' or "
            "'conda install graphviz'. format='dot' gives the graph as text without it.")


class SVG(str):
    """An SVG document as a string that Jupyter displays as a picture."""

    def _repr_svg_(self):
        return str(self)


def render(dot_source, format):  # noqa: A002 - Graphviz's own word
    """Runs ``dot -T<format>`` on ``dot_source``: an :class:`SVG` string or PNG bytes."""
    if format not in ("svg", "png"):
        raise ValueError(f"format must be 'svg' or 'png', got {format!r}")
    # Imported here: subprocess costs `import gradtrack` milliseconds nobody else needs.
    import shutil
    import subprocess

    exe = shutil.which("dot")
    if exe is None:
        raise RuntimeError(f"rendering an autograd graph as {format} {_INSTALL}")
    proc = subprocess.run([exe, f"-T{format}"], input=dot_source.encode(), capture_output=True,
                          timeout=120)
    if proc.returncode != 0:
        raise RuntimeError(f"dot failed: {proc.stderr.decode(errors='replace').strip()}")
    return SVG(proc.stdout.decode()) if format == "svg" else proc.stdout


class Graph:
    """The graph ``make_dot`` returns: ``source`` (dot text), ``pipe``, ``render``.

    It answers the calls notebooks make on torchviz's ``graphviz.Digraph`` result and is
    shown inline by Jupyter.
    """

    def __init__(self, source):
        self.source = source

    def pipe(self, format="svg"):  # noqa: A002
        """The picture as bytes (``"svg"`` or ``"png"``)."""
        out = render(self.source, format)
        return out.encode() if isinstance(out, str) else out

    def render(self, filename, format="svg"):  # noqa: A002
        """Writes ``<filename>.<format>`` and returns that path."""
        path = f"{filename}.{format}"
        with open(path, "wb") as f:
            f.write(self.pipe(format))
        return path

    def _repr_svg_(self):
        return str(render(self.source, "svg"))

    def __str__(self):
        return self.source


def make_dot(var, params=None, show_attrs=False, show_saved=False, max_attr_chars=50):
    """The autograd graph behind ``var`` (a tensor or a tuple of them), as torchviz draws it.

    ``params`` (e.g. ``dict(model.named_parameters())``) names the leaves;
    ``show_saved`` adds each node's saved tensors with their versions (stale ones in
    red, with the write that changed them). ``show_attrs`` and ``max_attr_chars`` are
    accepted for torchviz's signature; gradtrack nodes have no other attributes to show.

    >>> import gradtrack
    >>> w = gradtrack.ones(2, requires_grad=True)
    >>> g = gradtrack.autograd.make_dot((w * 3).sum(), params={"w": w})
    >>> "w (2,)" in g.source
    True
    """
    outputs = var if isinstance(var, (tuple, list)) else (var,)
    names = {id(p): name for name, p in (params or {}).items()}
    nodes, seen = [], set()
    for out in outputs:
        if out.grad_fn is None:
            continue
        for node, depth in _walk(out.grad_fn):
            if id(node) not in seen:
                seen.add(id(node))
                nodes.append((node, depth))
    return Graph(_dot(nodes, leaf_names=names, show_saved=show_saved))
