"""Small utilities (hook handles) and ``utils.data`` (datasets, DataLoader).

``gradtrack.utils.data`` is imported on first use, so ``import gradtrack``
does not pay for ``multiprocessing``.
"""


def __getattr__(name):
    if name == "data":
        import importlib
        return importlib.import_module(".data", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
