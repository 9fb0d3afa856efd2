"""What each op is, written once: the op list and the derivative table.

NOTE [One declaration per op]
Every fact about an op that is data lives in one row here: its name, kernel, dtype
rule, whether torch gives it ``out=`` and an in-place form, its docstring, and the
node it records (``grad_fn`` name, backward formula, forward-mode formula, what it
saves). The rows are read twice:

- at build time, ``tools/generate_op_tables.py`` writes them as the C++ tables
  (the ``OpKind`` enum, the formula rows, the op list's X-macros), so the C++ side
  holds only code: kernels, op functions, formulas;
- at import, ``gradtrack`` derives from the op list the out= wrappers, the
  in-place methods' docstrings and the functions' and methods' docstrings.

A row names C++ functions; it never repeats what they compute. An elementwise op's
forward-mode derivative is its backward formula applied to the tangent
(``ELEMENTWISE``, torch's ``auto_element_wise``): the Jacobian is diagonal. Other
ops name a jvp formula written beside their backward.

One module per area, the same words as the C++ files of the area
(``autograd/formulas/<area>.cpp``, ``ops/<area>.cpp``). Nothing here imports
gradtrack: the build reads these files before ``_C`` exists.
"""

import importlib

from .rows import ELEMENTWISE, Derivative, Pointwise, camel  # noqa: F401

AREAS = ("pointwise", "reduction", "views", "shape", "indexing", "scan_sort", "linalg",
         "linalg_factor", "linalg_decompose", "random", "nn", "conv", "resample", "rnn")


def area(name):
    """The module of one area."""
    return importlib.import_module(f"{__name__}.{name}")


def pointwise_ops():
    """The op list: every elementwise op's row."""
    return area("pointwise").OPS


def derivatives():
    """Every node kind, area by area: the op list's own rows first, in list order."""
    rows = []
    for op in pointwise_ops():
        for d in (op.derivative, op.number, op.number_self, op.inplace_derivative):
            if isinstance(d, Derivative):
                rows.append(d)
    for name in AREAS:
        rows += area(name).DERIVATIVES
    kinds = [d.kind for d in rows]
    doubled = sorted({k for k in kinds if kinds.count(k) > 1})
    if doubled:
        raise ValueError(f"node kinds declared twice: {', '.join(doubled)}")
    return rows
