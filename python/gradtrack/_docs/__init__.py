"""Docstrings for the names whose docstring cannot be written where they are defined.

The C++-bound functions and Tensor methods (pybind11), the properties bound in C++
and the functions generated in loops get their docstrings here, one file per area,
as tables ``{name: text}``. :func:`attach` runs once at the end of
``import gradtrack``. A name whose docstring already has an example (written in
place) keeps it: these tables only fill gaps.
"""

import importlib

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


def attach():
    """Give every name of the area tables its docstring: its table text,
    cleaned as ``inspect.cleandoc`` does, the first example preceded by
    ``import gradtrack``; a name whose docstring already has an example keeps
    it, and one whose docstring has words of its own gains only the example."""
    import gradtrack
    from gradtrack import _C

    for area, owner_path in AREAS:
        table = importlib.import_module(f"{__name__}.{area}").DOCS
        owner = gradtrack
        for part in filter(None, owner_path.split(".")):
            owner = getattr(owner, part)
        # the loop over names is in C++ (_C._docs.attach): in Python it was a
        # twelfth of `import gradtrack`
        _C._docs.attach(owner, table)
