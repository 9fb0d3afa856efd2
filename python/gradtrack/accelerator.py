"""``torch.accelerator``: gradtrack has none, so ``is_available()`` is False.

>>> import gradtrack
>>> gradtrack.accelerator.is_available()
False
"""


def is_available():
    """False: gradtrack computes on the CPU only."""
    return False


def device_count():
    """0: no accelerators."""
    return 0


def current_accelerator(check_available=False):
    """None: no accelerator."""
    return None
