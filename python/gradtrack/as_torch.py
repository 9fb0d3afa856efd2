"""Run unchanged torch code on gradtrack: ``import torch`` (and every ``torch.X``)
is served by gradtrack, and real torch is never loaded.

- ``python -m gradtrack.as_torch script.py [args]`` runs a script as ``__main__``;
  ``python -m gradtrack.as_torch -m package.module [args]`` runs a module.
- ``python -m pytest -p gradtrack.as_torch`` runs a project's torch-based tests on
  gradtrack (the alias is installed before the project's conftest files load).

``torch.X`` is ``gradtrack.X``; a submodule gradtrack does not have raises
``ModuleNotFoundError`` naming both, so a script stops at the first part of torch
gradtrack lacks rather than half-working.

>>> import gradtrack.as_torch
>>> callable(gradtrack.as_torch.install)
True
"""

import importlib
import importlib.abc
import importlib.util
import os
import sys


class _TorchAlias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``torch.X`` as ``gradtrack.X``, and nothing else."""

    def __init__(self):
        self._own_specs = {}

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "torch" and not fullname.startswith("torch."):
            return None
        served = "gradtrack" + fullname[len("torch"):]
        try:
            found = importlib.util.find_spec(served)
        except ModuleNotFoundError:
            found = None
        if found is None:
            raise ModuleNotFoundError(
                f"No module named '{fullname}' (gradtrack.as_torch serves torch from gradtrack, "
                f"which has no '{served}')", name=fullname)
        return importlib.util.spec_from_loader(fullname, self)

    # NOTE [The served module keeps its own spec]
    # The import system sets ``__spec__`` of the module create_module returns to the
    # ``torch.X`` spec, while its ``__package__`` stays ``gradtrack...``; a relative import
    # run later inside that module then warns "__package__ != __spec__.parent"
    # (ImportWarning). The module is gradtrack's, so exec_module gives it its spec back.
    def create_module(self, spec):
        module = importlib.import_module("gradtrack" + spec.name[len("torch"):])
        self._own_specs[spec.name] = module.__spec__
        return module

    def exec_module(self, module):
        """The gradtrack module is imported already (``create_module``); it gets back
        its own ``__spec__``."""
        own = self._own_specs.pop(module.__spec__.name, None)
        if own is not None:
            module.__spec__ = own


def install():
    """Serves ``import torch`` from gradtrack in this process (idempotent); refuses if
    real torch is already imported, since the two would then mix.

    >>> import gradtrack.as_torch
    >>> gradtrack.as_torch.install  # doctest: +ELLIPSIS
    <function install at 0x...>
    """
    import gradtrack
    loaded = sys.modules.get("torch")
    if loaded is gradtrack:
        return
    if loaded is not None:
        raise RuntimeError("gradtrack.as_torch: real torch is already imported in this process; "
                           "install the alias before anything imports torch.")
    sys.modules["torch"] = gradtrack
    sys.meta_path.insert(0, _TorchAlias())


def pytest_load_initial_conftests(early_config, parser, args):
    """pytest hook (``-p gradtrack.as_torch``): the alias, before the conftest files load."""
    install()


def pytest_configure(config):
    """pytest hook: the alias, also when the plugin is registered late."""
    install()


def main(argv=None):
    """``python -m gradtrack.as_torch [-m module | script.py] [args...]``."""
    import runpy
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python -m gradtrack.as_torch script.py [args...]\n"
              "       python -m gradtrack.as_torch -m module [args...]\n"
              "Runs torch code with `import torch` served by gradtrack.")
        return 0 if argv else 2
    install()
    if argv[0] == "-m":
        if len(argv) < 2:
            print("gradtrack.as_torch: -m needs a module name", file=sys.stderr)
            return 2
        sys.argv = argv[1:]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    else:
        # As `python script.py`: argv[0] as given, the script's directory first on the path,
        # and an absolute __file__ (which warnings and tracebacks print).
        script = os.path.abspath(argv[0])
        sys.argv = argv
        sys.path.insert(0, os.path.dirname(script))
        runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
