"""``torch.cuda`` as torch's CPU build has it: ``is_available()`` is False,
``device_count()`` is 0, the seeding calls do nothing, and the calls that need a
device (``synchronize``, ``current_device``, ``.cuda()``, ``device="cuda"``) raise
torch's ``AssertionError: Torch not compiled with CUDA enabled``.

>>> import gradtrack
>>> gradtrack.cuda.is_available()
False
"""

from .._legacy import OutOfMemoryError  # noqa: F401 - torch.cuda.OutOfMemoryError is it
from . import amp  # noqa: F401

_NOT_COMPILED = "Torch not compiled with CUDA enabled"


def _not_compiled(*args, **kwargs):
    raise AssertionError(_NOT_COMPILED)


def is_available():
    """False: gradtrack computes on the CPU only.

    >>> import gradtrack
    >>> gradtrack.cuda.is_available()
    False
    """
    return False


def device_count():
    """0: no CUDA devices.

    >>> import gradtrack
    >>> gradtrack.cuda.device_count()
    0
    """
    return 0


def is_initialized():
    """False: CUDA is never initialized.

    >>> import gradtrack
    >>> gradtrack.cuda.is_initialized()
    False
    """
    return False


def is_bf16_supported(including_emulation=True):
    """False: no CUDA device to compute bfloat16 on.

    >>> import gradtrack
    >>> gradtrack.cuda.is_bf16_supported()
    False
    """
    return False


def manual_seed(seed):
    """Nothing to seed without CUDA (torch ignores it too when CUDA is absent).

    >>> import gradtrack
    >>> gradtrack.cuda.manual_seed(0)
    """


def manual_seed_all(seed):
    """Nothing to seed without CUDA.

    >>> import gradtrack
    >>> gradtrack.cuda.manual_seed_all(0)
    """


def seed_all():
    """Nothing to seed without CUDA.

    >>> import gradtrack
    >>> gradtrack.cuda.seed_all()
    """


def get_rng_state_all():
    """[]: one state per CUDA device, and there are none.

    >>> import gradtrack
    >>> gradtrack.cuda.get_rng_state_all()
    []
    """
    return []


def empty_cache():
    """Nothing to free without CUDA.

    >>> import gradtrack
    >>> gradtrack.cuda.empty_cache()
    """


def memory_allocated(device=None):
    """0 bytes: no CUDA memory.

    >>> import gradtrack
    >>> gradtrack.cuda.memory_allocated()
    0
    """
    return 0


def max_memory_allocated(device=None):
    """0 bytes: no CUDA memory.

    >>> import gradtrack
    >>> gradtrack.cuda.max_memory_allocated()
    0
    """
    return 0


def memory_reserved(device=None):
    """0 bytes: no CUDA memory.

    >>> import gradtrack
    >>> gradtrack.cuda.memory_reserved()
    0
    """
    return 0


def max_memory_reserved(device=None):
    """0 bytes: no CUDA memory.

    >>> import gradtrack
    >>> gradtrack.cuda.max_memory_reserved()
    0
    """
    return 0


def synchronize(device=None):
    """Raises torch's CPU-build AssertionError: there is no device to wait for.

    >>> import gradtrack
    >>> gradtrack.cuda.synchronize()
    Traceback (most recent call last):
    AssertionError: Torch not compiled with CUDA enabled
    """
    _not_compiled()


def current_device():
    """Raises torch's CPU-build AssertionError.

    >>> import gradtrack
    >>> gradtrack.cuda.current_device()
    Traceback (most recent call last):
    AssertionError: Torch not compiled with CUDA enabled
    """
    _not_compiled()


def get_device_name(device=None):
    """Raises torch's CPU-build AssertionError.

    >>> import gradtrack
    >>> gradtrack.cuda.get_device_name()
    Traceback (most recent call last):
    AssertionError: Torch not compiled with CUDA enabled
    """
    _not_compiled()


def get_device_capability(device=None):
    """Raises torch's CPU-build AssertionError.

    >>> import gradtrack
    >>> gradtrack.cuda.get_device_capability()
    Traceback (most recent call last):
    AssertionError: Torch not compiled with CUDA enabled
    """
    _not_compiled()


def get_rng_state(device="cuda"):
    """Raises torch's CPU-build AssertionError.

    >>> import gradtrack
    >>> gradtrack.cuda.get_rng_state()
    Traceback (most recent call last):
    AssertionError: Torch not compiled with CUDA enabled
    """
    _not_compiled()


def init():
    """Raises torch's CPU-build AssertionError.

    >>> import gradtrack
    >>> gradtrack.cuda.init()
    Traceback (most recent call last):
    AssertionError: Torch not compiled with CUDA enabled
    """
    _not_compiled()
