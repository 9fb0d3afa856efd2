"""Docstrings for the names whose docstring cannot be written where they are defined.

The C++-bound functions and Tensor methods (pybind11), the properties bound in C++
and the functions generated in loops get their docstrings here, one file per area,
as tables ``{name: text}``. :func:`attach` runs once at the end of
``import gradtrack``. A name whose docstring already has an example (written in
place) keeps it: these tables only fill gaps.
"""

import importlib
import re

_SIGNATURE = re.compile(r"^(\d+\. )?\w+\((.*\) -> |\*args, \*\*kwargs\)$)")

# (the file of this package, the attribute path of the owner its table documents)
AREAS = [
    ("tensor_core", "Tensor"),
    ("tensor_methods", "Tensor"),
    ("tensor_inplace", "Tensor"),
    ("tensor_methods2", "Tensor"),
    ("torch_functions", ""),
    ("torch_functions2", ""),
    ("round2_ops", ""),
    ("round2_ops", "Tensor"),
]


def _clean(text):
    """``text`` as ``inspect.cleandoc`` leaves it (first line stripped, the common
    indent of the others removed, no blank lines at either end), without
    importing inspect at ``import gradtrack`` (NOTE [Lazy signatures])."""
    first, *rest = text.expandtabs().split("\n")
    indents = [len(line) - len(line.lstrip()) for line in rest if line.strip()]
    margin = min(indents, default=0)
    lines = [first.lstrip(), *(line[margin:] for line in rest)]
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    return "\n".join(lines)


def _with_import(text):
    """``text`` cleaned, its first example preceded by ``import gradtrack``."""
    text = _clean(text) + "\n"
    if ">>>" in text and "import gradtrack" not in text:
        head, _, tail = text.partition(">>>")
        text = head + ">>> import gradtrack\n>>>" + tail
    return text


def _stored(owner, name):
    """What ``owner`` (a module, or a class and its bases) stores under ``name``,
    not what reading the attribute makes of it (a method, not a bound one)."""
    for scope in owner.__mro__ if isinstance(owner, type) else (owner,):
        if name in vars(scope):
            return vars(scope)[name]
    return None


def _own_words(doc):
    """True if ``doc`` has more than pybind11's generated signature lines."""
    for line in doc.splitlines():
        line = line.strip()
        if line and not _SIGNATURE.match(line) and line != "Overloaded function.":
            return True
    return False


def _set(owner, name, text):
    from gradtrack import _C

    raw = _stored(owner, name)
    if raw is None:
        return  # the name left the package; the docstring test reports the rest
    current = getattr(owner, name).__doc__ or ""
    if ">>>" in current:
        return
    text = _with_import(text)
    builtin = type(raw).__name__ in ("builtin_function_or_method", "instancemethod")
    if _own_words(current):
        # The docstring written where the name is defined says what it does; add
        # only the example (set_doc keeps what a builtin's docstring had).
        example = text[text.index(">>>"):]
        text = example if builtin else current.rstrip() + "\n\n" + example
    if builtin:
        _C._docs.set_doc(raw, text)
    elif isinstance(raw, (staticmethod, classmethod)):
        raw.__func__.__doc__ = text
    else:
        raw.__doc__ = text


def attach():
    """Give every name of the area tables its docstring."""
    import gradtrack

    for area, owner_path in AREAS:
        table = importlib.import_module(f"{__name__}.{area}").DOCS
        owner = gradtrack
        for part in filter(None, owner_path.split(".")):
            owner = getattr(owner, part)
        for name, text in table.items():
            _set(owner, name, text)
