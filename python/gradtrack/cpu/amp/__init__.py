"""``torch.cpu.amp``: torch's deprecated aliases of ``torch.amp`` for the CPU, with its
FutureWarnings.

>>> import gradtrack, warnings
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     with gradtrack.cpu.amp.autocast():
...         (gradtrack.ones(2, 2) @ gradtrack.ones(2, 2)).dtype
gradtrack.bfloat16
"""

from . import autocast_mode, grad_scaler  # noqa: F401
from .autocast_mode import autocast  # noqa: F401
from .grad_scaler import GradScaler  # noqa: F401
