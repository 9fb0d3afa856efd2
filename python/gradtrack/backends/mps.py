"""``torch.backends.mps``: gradtrack has no Metal backend.

>>> import gradtrack
>>> gradtrack.backends.mps.is_available()
False
"""


def is_available():
    """False: gradtrack computes on the CPU only."""
    return False


def is_built():
    """False: gradtrack is not built with MPS."""
    return False
