"""Which public torch names gradtrack has, module by module, as Markdown.

Run ``python -m tools.coverage`` for the page's text; the documentation build calls
``coverage_markdown()`` (through ``tools/mkdocs_hooks.py``) so the page is never stale.
Needs torch 2.13 installed (the test extra).
"""

import importlib
import types
import warnings

# (torch's module, gradtrack's module, the object to list names of)
MODULES = [
    ("torch", "gradtrack", None),
    ("torch.Tensor", "gradtrack.Tensor", "Tensor"),
    ("torch.special", "gradtrack.special", None),
    ("torch.nn", "gradtrack.nn", None),
    ("torch.nn.functional", "gradtrack.nn.functional", None),
    ("torch.nn.init", "gradtrack.nn.init", None),
    ("torch.optim", "gradtrack.optim", None),
    ("torch.optim.lr_scheduler", "gradtrack.optim.lr_scheduler", None),
    ("torch.autograd", "gradtrack.autograd", None),
    ("torch.utils.data", "gradtrack.utils.data", None),
    ("torch.distributed", "gradtrack.distributed", None),
]


def _resolve(dotted):
    """The module or class called ``dotted``, or None when it does not exist."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            obj = getattr(obj, name, None)
        return obj
    return None


def _public_names(obj, is_class):
    """Public names of a torch module or class: no underscores, no submodules, no typing."""
    names = []
    with warnings.catch_warnings():  # deprecated aliases warn when touched
        warnings.simplefilter("ignore")
        values = {name: getattr(obj, name, None) for name in dir(obj)}
    for name, value in values.items():
        if name.startswith("_"):
            continue
        if isinstance(value, types.ModuleType):
            continue
        module = getattr(value, "__module__", None) or ""
        if not is_class and module.startswith(("typing", "collections", "abc")):
            continue
        names.append(name)
    return sorted(names)


def coverage():
    """Per module: (torch's dotted name, names gradtrack has, names it lacks)."""
    rows = []
    for torch_name, ours_name, _ in MODULES:
        theirs = _resolve(torch_name)
        if theirs is None:
            continue
        ours = _resolve(ours_name)
        names = _public_names(theirs, isinstance(theirs, type))
        have = [n for n in names if ours is not None and hasattr(ours, n)]
        lack = [n for n in names if n not in set(have)]
        rows.append((torch_name, have, lack))
    return rows


def _inline(names):
    return ", ".join(f"`{n}`" for n in names) if names else "(none)"


def coverage_markdown():
    """The coverage page's generated part: a table of counts, then every name."""
    import torch

    rows = coverage()
    out = [f"Counted against torch {torch.__version__}: its public names (no leading "
           "underscore, no submodules).", "",
           "| torch module | torch names | gradtrack has | share |", "|---|---:|---:|---:|"]
    for name, have, lack in rows:
        total = len(have) + len(lack)
        share = f"{100 * len(have) / total:.0f}%" if total else "-"
        out.append(f"| `{name}` | {total} | {len(have)} | {share} |")
    for name, have, lack in rows:
        out += ["", f"## `{name}`", "", f"**Has ({len(have)}):** {_inline(have)}", "",
                f"<details><summary>Missing ({len(lack)})</summary>", "",
                _inline(lack), "", "</details>"]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    print(coverage_markdown(), end="")
