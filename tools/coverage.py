"""Which public torch names gradtrack has, module by module, as Markdown.

Run ``python -m tools.coverage`` for the page's text; the documentation build calls
``coverage_markdown()`` (through ``tools/mkdocs_hooks.py``) so the page is never stale.
Needs torch 2.13 installed (the test extra).
"""

import importlib
import re
import sys
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
    ("torch.linalg", "gradtrack.linalg", None),
    ("torch.distributions", "gradtrack.distributions", None),
    ("torch.testing", "gradtrack.testing", None),
]

# Names of a torch module that are not its functions: torch.special keeps its docstring
# templates (dicts) as public names.
NOT_FUNCTIONS = {"torch.special": {"common_args", "multi_dim_common"}}

# NOTE [Names a torch module only imports]
# dir() of a torch module also shows what its source imported for its own use:
# `from functools import partial`, `from typing import TYPE_CHECKING`, `from math import inf`,
# `from __future__ import annotations`, and `from torch import Tensor` for annotations. Such
# a name is not the module's API and is left out, by one rule: a name is left out when its
# object comes from outside torch -- its `__module__` names a module outside the torch
# package, or it is a constant (no `__module__`) that is the very object a standard-library
# module holds under the same name -- or when it is torch.Tensor seen in a submodule (the
# class is counted in `torch` and on the `torch.Tensor` row). A name the module lists in
# its `__all__` is always counted: that is a deliberate re-export (`torch.inf`, `torch.pi`).

# NOTE [Coverage scope]
# Four families of torch's names are out of gradtrack's scope, and the shares on the page
# are counted over the other names: sparse layouts, quantized tensors, complex numbers, and
# the TorchScript (JIT) compiler's own classes and entry points. A name of one of them that
# gradtrack has anyway still counts as had. Each family is told by its names' patterns.
SCOPE_OUT = {
    "sparse": re.compile(
        r"sparse|^(c?col|c?row|crow)_indices|^(indices|values)(_copy)?$|^ccol_indices_copy$|"
        r"^(col|row|crow)_indices_copy$|^(coalesce|is_coalesced|dense_dim|to_dense|smm|"
        r"sspaddmm|hspmm|dsmm|hsmm|saddmm|spmm)$"),
    "quantized": re.compile(
        r"quant|qint|quint|^q_|qscheme|^int_repr$|^per_(channel|tensor)_|fbgemm|qparams|"
        r"^QU?Int"),
    "complex": re.compile(
        r"complex|conj|^(cfloat|cdouble|chalf|real|imag|angle|polar|isreal|is_neg|"
        r"resolve_neg)$|view_as_real"),
    "JIT": re.compile(
        r"^Script|Type$|^(AliasDb|Argument|ArgumentSpec|Block|CallStack|Capsule|Code|"
        r"CompilationUnit|CompleteArgumentSpec|ConcreteModuleType|ConcreteModuleTypeBuilder|"
        r"ErrorReport|ExecutionPlan|FileCheck|FunctionSchema|Gradient|Graph|"
        r"GraphExecutorState|IODescriptor|JITException|LiteScriptModule|LockingLogger|"
        r"LoggerBase|Node|NoopLogger|StaticModule|TracingState|Use|Value|fork|wait|"
        r"import_ir_module|import_ir_module_from_buffer|merge_type_from_type_comment|"
        r"parse_ir|parse_schema|parse_type_comment|unify_type_list)$"),
}


def out_of_scope(name):
    """The family (``"sparse"``, ``"quantized"``, ``"complex"``, ``"JIT"``) that puts a
    torch name out of gradtrack's scope, or None (NOTE [Coverage scope])."""
    for family, pattern in SCOPE_OUT.items():
        if pattern.search(name):
            return family
    return None


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


def _from_standard_library(name, value):
    """Whether ``value`` is the object a loaded standard-library module holds as ``name``."""
    for module_name in sys.stdlib_module_names:
        module = sys.modules.get(module_name)
        if module is not None and getattr(module, name, _from_standard_library) is value:
            return True
    return False


def _only_imported(obj, name, value):
    """Whether the torch module ``obj`` holds ``name`` only because its source imported it
    (NOTE [Names a torch module only imports])."""
    if name in getattr(obj, "__all__", ()):
        return False
    import torch

    if value is torch.Tensor:
        return obj is not torch
    module = getattr(value, "__module__", None)
    if isinstance(module, str):
        return module != "torch" and not module.startswith("torch.")
    return _from_standard_library(name, value)


def _public_names(obj, is_class):
    """Public names of a torch module or class: no underscores, no submodules, nothing the
    module only imported."""
    names = []
    with warnings.catch_warnings():  # deprecated aliases warn when touched
        warnings.simplefilter("ignore")
        values = {name: getattr(obj, name, None) for name in dir(obj)}
        for name, value in values.items():
            if name.startswith("_"):
                continue
            if isinstance(value, types.ModuleType):
                continue
            if not is_class and _only_imported(obj, name, value):
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
        names = [n for n in _public_names(theirs, isinstance(theirs, type))
                 if n not in NOT_FUNCTIONS.get(torch_name, ())]
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
           "underscore, no submodules). Sparse layouts, quantized tensors, complex numbers "
           "and the TorchScript (JIT) compiler's own names are out of gradtrack's scope: "
           "the share is counted over the other names, the *in scope* column.", "",
           "| torch module | torch names | in scope | gradtrack has (in scope) | share |",
           "|---|---:|---:|---:|---:|"]
    for name, have, lack in rows:
        total = len(have) + len(lack)
        scope = [n for n in have + lack if out_of_scope(n) is None]
        have_in = [n for n in have if out_of_scope(n) is None]
        share = f"{100 * len(have_in) / len(scope):.0f}%" if scope else "-"
        out.append(f"| `{name}` | {total} | {len(scope)} | {len(have_in)} | {share} |")
    for name, have, lack in rows:
        missing = [n for n in lack if out_of_scope(n) is None]
        skipped = [n for n in lack if out_of_scope(n) is not None]
        out += ["", f"## `{name}`", "", f"**Has ({len(have)}):** {_inline(have)}", "",
                f"<details><summary>Missing ({len(missing)})</summary>", "",
                _inline(missing), "", "</details>"]
        if skipped:
            out += ["", f"<details><summary>Out of scope ({len(skipped)})</summary>", "",
                    _inline(skipped), "", "</details>"]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    print(coverage_markdown(), end="")
