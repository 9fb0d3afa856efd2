"""``gradtrack.save`` and ``gradtrack.load``, from ``serialization.py`` (which keeps NumPy and
the format's machinery for the first call, so ``import gradtrack`` stays fast)."""

from .serialization import load, save

# What this module gives gradtrack.* (NOTE [One registry] in _registry.py).
FUNCTIONS = (save, load)
