"""``gradtrack.save`` and ``gradtrack.load``: the entry points of the file format.

The format itself is ``serialization.py``, which imports NumPy: it loads on the first
call, so ``import gradtrack`` stays fast.
"""


def save(obj, f):
    """Saves ``obj`` (tensors, numbers, strings, nested dicts/lists) to ``f``
    in a safe format: a zip of ``.npy`` arrays and a JSON structure, no pickle.

    (serialization, and NumPy with it, load on first use: ``import gradtrack``
    stays fast.)
    """
    from .serialization import save as _save
    return _save(obj, f)


def load(f, map_location=None, pickle_module=None, *, weights_only=True, mmap=None):
    """Loads what :func:`save` wrote; a corrupted or foreign file raises RuntimeError."""
    from .serialization import load as _load
    return _load(f, map_location=map_location, weights_only=weights_only)


# What this module gives gradtrack.* (NOTE [One registry] in _registry.py).
FUNCTIONS = (save, load)
