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
    functions, methods = op_list_docs()
    _C._docs.attach(gradtrack, functions)
    _C._docs.attach(gradtrack.Tensor, methods)


def op_list_docs():
    """The docstrings of the op list's functions, methods and in-place methods,
    made from each row's text and example (NOTE [One declaration per op]): the
    example runs as ``gradtrack.NAME(x, ...)``, ``x.NAME(...)`` and ``x.NAME_(...)``,
    printing the row's ``prints`` each time."""
    from .._declarations import pointwise_ops

    functions, methods = {}, {}
    for op in pointwise_ops():
        self_arg, rest = op.example[0], ", ".join(op.example[1:])
        functions[op.name] = (f"{op.doc}\n\n>>> x = {self_arg}\n"
                              f">>> gradtrack.{op.name}(x{', ' + rest if rest else ''})\n"
                              f"{op.prints}\n")
        methods[op.name] = f"{op.doc}\n\n>>> {self_arg}.{op.name}({rest})\n{op.prints}\n"
        if op.inplace:
            methods[op.name + "_"] = (
                f"In-place ``{op.name}``: writes the result into ``self`` and returns it.\n\n"
                f">>> x = {self_arg}\n>>> x.{op.name}_({rest})\n{op.prints}\n"
                ">>> x._version\n1\n")
    return functions, methods
