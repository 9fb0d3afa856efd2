"""``torch.amp``: autocast regions and gradient scaling.

>>> import gradtrack
>>> gradtrack.amp.GradScaler("cpu").get_scale()
65536.0
"""

from . import autocast_mode, grad_scaler  # noqa: F401
from .autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available  # noqa: F401
from .grad_scaler import GradScaler  # noqa: F401

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd", "is_autocast_available"]
