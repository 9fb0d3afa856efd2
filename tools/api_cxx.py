"""The API reference of the names bound in C++, rendered from their live docstrings.

mkdocstrings reads the Python sources, where a pybind11 function has no docstring;
its docstring is attached at import (``gradtrack/_docs``). The documentation build
(``tools/mkdocs_hooks.py``) replaces ``<!-- generated: cxx-api gradtrack -->`` and
``<!-- generated: cxx-api Tensor -->`` with the section this module renders.
"""

import importlib
import re

# which tables of gradtrack/_docs each page lists
PAGES = {
    "gradtrack": ["torch_functions", "torch_functions2"],
    "Tensor": ["tensor_core", "tensor_methods", "tensor_methods2", "tensor_inplace"],
}
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
    names = set()
    for table in PAGES[page]:
        names |= set(importlib.import_module(f"gradtrack._docs.{table}").DOCS)
    functions, methods = importlib.import_module("gradtrack._docs").op_list_docs()
    names |= set(functions if page == "gradtrack" else methods)
    out = []
    for name in sorted(n for n in names if hasattr(owner, n)):
        out += entry(prefix + name, getattr(owner, name).__doc__)
    return "\n".join(out) + "\n"
