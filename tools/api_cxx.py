"""The API reference of the names bound in C++, rendered from their live docstrings.

mkdocstrings reads the Python sources, where a pybind11 function has no docstring;
its docstring is attached at import (``gradtrack/_docs``). The documentation build
(``tools/mkdocs_hooks.py``) replaces ``<!-- generated: cxx-api gradtrack -->`` and
``<!-- generated: cxx-api Tensor -->`` with the section this module renders.
"""

import importlib
import re

# the owner each page lists the names of: every table of gradtrack/_docs that documents it
PAGES = {"gradtrack": "", "Tensor": "Tensor"}
SIGNATURE = re.compile(r"^(\d+\. )?\w+\((.*\) -> .*|\*args, \*\*kwargs\))$")


def _parts(doc):
    """(signature lines, prose, example lines) of a docstring."""
    lines = doc.strip("\n").split("\n")
    signatures, prose, example = [], [], []
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith(">>>"):
            example = lines[i:]
            break
        if SIGNATURE.match(stripped) or stripped == "Overloaded function.":
            signatures.append(stripped)
        else:
            prose.append(stripped)
    return signatures, "\n".join(prose).strip(), [line.rstrip() for line in example]


def entry(qualname, doc):
    """One name's section in Markdown."""
    signatures, prose, example = _parts(doc or "")
    out = [f"### `{qualname}`", ""]
    if signatures:
        out += ["```text", *[s for s in signatures if s != "Overloaded function."], "```", ""]
    if prose:
        out += [prose, ""]
    if example:
        out += ["```pycon", *example, "```", ""]
    return out


def cxx_markdown(page):
    """The section of ``page`` ('gradtrack' or 'Tensor'): every name of its tables."""
    import gradtrack

    owner = gradtrack if page == "gradtrack" else gradtrack.Tensor
    prefix = "gradtrack." if page == "gradtrack" else "Tensor."
    docs = importlib.import_module("gradtrack._docs")
    names = set()
    for owner_path, table in docs.tables():
        if owner_path == PAGES[page]:
            names |= set(table)
    functions, methods = docs.op_list_docs()
    names |= set(functions if page == "gradtrack" else methods)
    # torch's other names of a listed object (Tensor.clip is Tensor.clamp) share its docstring
    listed = {id(getattr(owner, n)) for n in names if hasattr(owner, n)}
    names |= {n for n in dir(owner) if not n.startswith("__") and id(getattr(owner, n)) in listed}
    out = []
    for name in sorted(n for n in names if hasattr(owner, n)):
        out += entry(prefix + name, getattr(owner, name).__doc__)
    return "\n".join(out) + "\n"
