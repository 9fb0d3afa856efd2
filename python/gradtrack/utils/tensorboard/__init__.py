"""``torch.utils.tensorboard``: ``SummaryWriter`` writing TensorBoard event files
through the ``tensorboard`` package's event writer, as torch does (and, as in torch,
an ImportError when that package is missing).

>>> from gradtrack.utils.tensorboard import SummaryWriter
>>> SummaryWriter.__name__
'SummaryWriter'
"""

try:
    import tensorboard
except ImportError as e:
    raise ImportError("TensorBoard logging requires TensorBoard version 1.15 or above") from e


def _version(text):
    return tuple(int(part) for part in text.split(".")[:2] if part.isdigit())


if not hasattr(tensorboard, "__version__") or _version(tensorboard.__version__) < (1, 15):
    raise ImportError("TensorBoard logging requires TensorBoard version 1.15 or above")

del tensorboard

from .writer import FileWriter, SummaryWriter  # noqa: E402

__all__ = ["FileWriter", "SummaryWriter"]
