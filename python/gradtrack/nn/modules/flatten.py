"""``nn.Flatten``."""

from .module import Module


class Flatten(Module):
    """Flattens dims ``start_dim..end_dim`` (by default all but the batch dim).

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.Flatten()(gradtrack.zeros(2, 3, 4)).shape
    gradtrack.Size([2, 12])
    """

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):  # noqa: A002 - PyTorch's argument name
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"
