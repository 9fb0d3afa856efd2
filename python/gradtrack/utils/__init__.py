"""Small utilities (hook handles), ``utils.dlpack`` and ``utils.data`` (datasets, DataLoader).

``gradtrack.utils.data`` is imported on first use, so ``import gradtrack``
does not pay for ``multiprocessing``.
"""

from . import dlpack  # noqa: F401


def __getattr__(name):
    if name == "data":
        import importlib
        return importlib.import_module(".data", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
