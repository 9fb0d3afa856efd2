"""Small utilities (hook handles), ``utils.dlpack``, ``utils.data`` (datasets, DataLoader)
and ``utils.checkpoint`` (activation checkpointing).

``gradtrack.utils.data`` and ``utils.checkpoint`` are imported on first use, so ``import gradtrack``
does not pay for ``multiprocessing``.
"""

from . import dlpack  # noqa: F401


def __getattr__(name):
    if name in ("data", "checkpoint"):
        import importlib
        return importlib.import_module("." + name, __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
