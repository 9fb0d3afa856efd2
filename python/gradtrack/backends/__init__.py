"""``torch.backends``: the backend switches device-portable scripts query."""

from . import mps  # noqa: F401
