"""``nn.Flatten`` and ``nn.Unflatten``."""

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


class Unflatten(Module):
    """Splits dim ``dim`` into ``unflattened_size``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.Unflatten(1, (2, 5))(gradtrack.ones(3, 10)).shape
    gradtrack.Size([3, 2, 5])
    """

    def __init__(self, dim: int, unflattened_size) -> None:
        super().__init__()
        if not isinstance(unflattened_size, (tuple, list)):
            raise TypeError(f"unflattened_size must be a tuple of ints, but found type "
                            f"{type(unflattened_size).__name__}")
        for idx, elem in enumerate(unflattened_size):
            if not isinstance(elem, int):
                raise TypeError("unflattened_size must be tuple of ints, but found element of "
                                f"type {type(elem).__name__} at pos {idx}")
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input):  # noqa: A002
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
