"""``torch.cuda`` for device-portable scripts: gradtrack has no CUDA, so
``is_available()`` is False and ``device_count()`` is 0.

>>> import gradtrack
>>> gradtrack.cuda.is_available()
False
"""


def is_available():
    """False: gradtrack computes on the CPU only."""
    return False


def device_count():
    """0: no CUDA devices."""
    return 0


def manual_seed(seed):
    """Nothing to seed without CUDA (torch ignores it too when CUDA is absent)."""


def manual_seed_all(seed):
    """Nothing to seed without CUDA."""
