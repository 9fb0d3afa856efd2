"""Docstrings for the names whose docstring cannot be written where they are defined.

The C++-bound functions and Tensor methods (pybind11), the properties bound in C++
and the functions made in loops get their docstrings here, one file per area: the
areas of ``_ops`` (``pointwise``, ``reduction``, ``views``...) and, for the names of
the other modules, ``tensor``, ``inplace``, ``random``, ``dtypes``, ``legacy``,
``autograd`` and ``runtime``. A file holds up to three tables ``{name: text}``, named
by the owners they document (``OWNERS``): ``FUNCTIONS`` for ``gradtrack.NAME``,
``METHODS`` for ``Tensor.NAME``, ``BOTH`` for a name that is both, with one text. The
op list's functions and methods get theirs from its rows (:func:`op_list_docs`, NOTE
[One declaration per op]).

:func:`attach` runs once, as step 4 of ``import gradtrack`` (NOTE [One registry] in
``_registry.py``). A name whose docstring already has an example (written in place)
keeps it: these tables only fill gaps. Two names of one object (``Tensor.absolute``
is ``Tensor.abs``) share one docstring, the first table text that reaches it.
"""

import importlib

AREAS = ("tensor", "pointwise", "inplace", "reduction", "nn", "views", "shape", "indexing",
         "linalg", "creation", "random", "dtypes", "legacy", "autograd", "runtime")
# The tables an area file may hold, and the owners each documents (paths from gradtrack).
OWNERS = {"FUNCTIONS": ("",), "METHODS": ("Tensor",), "BOTH": ("", "Tensor")}


def tables():
    """(owner path, table) of every area's tables, in the order :func:`attach` reads them."""
    for area in AREAS:
        module = importlib.import_module(f"{__name__}.{area}")
        for table, owners in OWNERS.items():
            if hasattr(module, table):
                for owner in owners:
                    yield owner, getattr(module, table)


def attach():
    """Give every name of the area tables its docstring: its table text,
    cleaned as ``inspect.cleandoc`` does, the first example preceded by
    ``import gradtrack``; a name whose docstring already has an example keeps
    it, and one whose docstring has words of its own gains only the example."""
    import gradtrack
    from gradtrack import _C

    for owner_path, table in tables():
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
        if op.special:  # gradtrack.special gives these their docstrings
            continue
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
