"""``nn.utils.parametrizations``: ready-made parametrizations (``weight_norm``).

>>> import gradtrack
>>> from gradtrack import nn
>>> layer = nn.utils.parametrizations.weight_norm(nn.Linear(3, 2))
>>> list(layer.state_dict())
['bias', 'parametrizations.weight.original0', 'parametrizations.weight.original1']
"""

from ..modules.module import Module
from .._named_nodes import composite_node
from . import parametrize

__all__ = ["weight_norm"]


def _norm_except_dim(v, pow, dim):  # noqa: A002 - torch's argument name
    """The ``pow``-norm of ``v`` over every dim but ``dim`` (over everything for -1)."""
    if dim == -1:
        return v.norm(pow)
    dims = [d for d in range(v.dim()) if d != dim % v.dim()]
    return v.norm(pow, dims, keepdim=True)


def _weight_norm_composite(v, g, dim):
    return v * (g / _norm_except_dim(v, 2, dim))


_weight_norm = composite_node("WeightNormInterfaceBackward0", _weight_norm_composite,
                              differentiable=2)


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        if dim is None:
            dim = -1
        self.dim = dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return _norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """Reparametrizes ``module.<name>`` as ``g * v / ||v||``: the magnitude ``g``
    (``original0``) and the direction ``v`` (``original1``) are the parameters.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> layer = nn.utils.parametrizations.weight_norm(nn.Linear(3, 2))
    >>> layer.weight.grad_fn.name()
    'WeightNormInterfaceBackward0'
    """
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module
