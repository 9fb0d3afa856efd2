"""Modules that ``import gradtrack`` does not load until they are first used.

NOTE [Loaded on first use]
Importing a Python module costs about as much as reading its bytecode and building its
classes, so ``import gradtrack``'s time grows with the number of modules it loads. The
layers (``nn``: 70 modules), the optimizers, the profiler, ``distributed`` and
``multiprocessing`` are what a program reaches for by name, so ``gradtrack.<name>``
imports them on first access (the package's ``__getattr__``) and they cost nothing
before. Two rules keep that true:

- a module that ``import gradtrack`` loads imports them only inside the function that
  uses them, or through ``LazyModule``, which stands in a module's globals for a module
  and, on first use, imports it and puts it there in its own place;
- ``tests/test_import_cost.py`` imports gradtrack in a fresh interpreter and fails
  when one of them was loaded.

What torch loads eagerly is still all there: ``gradtrack.nn``, ``import gradtrack.nn``,
``from gradtrack import nn`` and ``dir(gradtrack)`` behave as torch's do.
"""

import importlib
import sys

# gradtrack.<name> that load on first access (the package's __getattr__).
SUBMODULES = ("cpu", "distributed", "distributions", "multiprocessing", "nn", "optim",
              "profiler", "testing")


def submodule_hooks(package, names):
    """The module-level ``__getattr__`` and ``__dir__`` of ``package``, under which
    ``package.<name>`` imports the submodule ``name`` (one of ``names``) on first access
    and ``dir(package)`` lists it before that."""

    def __getattr__(name):
        if name in names:
            return importlib.import_module("." + name, package)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__():
        return sorted(set(vars(sys.modules[package])) | set(names))

    return __getattr__, __dir__


class LazyModule:
    """Stands for the module ``name`` as the global ``alias`` of the module ``owner``.

    The first attribute read imports ``name`` and rebinds ``alias`` to it, so later
    reads go to the module directly.
    """

    __slots__ = ("_name", "_owner", "_alias")

    def __init__(self, name, owner, alias):
        self._name, self._owner, self._alias = name, owner, alias

    def __getattr__(self, attr):
        module = importlib.import_module(self._name)
        setattr(sys.modules[self._owner], self._alias, module)
        return getattr(module, attr)

    def __repr__(self):
        return f"<module {self._name!r}, loaded on first use>"
