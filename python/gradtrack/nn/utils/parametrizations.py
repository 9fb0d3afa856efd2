"""``nn.utils.parametrizations``: ready-made parametrizations (``orthogonal``,
``weight_norm``, ``spectral_norm``).

>>> import gradtrack
>>> from gradtrack import nn
>>> layer = nn.utils.parametrizations.weight_norm(nn.Linear(3, 2))
>>> list(layer.state_dict())
['bias', 'parametrizations.weight.original0', 'parametrizations.weight.original1']
"""

from ... import _C
from ..modules.module import Module
from ...autograd._named_nodes import composite_node
from . import parametrize
from ._orthogonal import orthogonal

__all__ = ["orthogonal", "weight_norm", "spectral_norm"]


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

    def _weight_norm_compat_hook(state_dict, prefix, local_metadata, strict, missing_keys,
                                 unexpected_keys, error_msgs):
        # A checkpoint of the legacy hook-based weight_norm (``<name>_g``, ``<name>_v``).
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module


def _transposed_conv_types():
    from .. import modules
    return tuple(getattr(modules, name) for name in
                 ("ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d")
                 if hasattr(modules, name))


def _default_spectral_dim(module, dim):
    """PyTorch's choice: dim 1 (the output channels) for a transposed convolution."""
    if dim is None:
        return 1 if isinstance(module, _transposed_conv_types()) else 0
    return dim


def _weight_as_matrix(weight, dim):
    """``weight`` with ``dim`` first and the other dims flattened into columns."""
    if dim != 0:
        weight = weight.permute(dim, *(d for d in range(weight.dim()) if d != dim))
    return weight.flatten(1)


class _SpectralNorm(Module):
    """``weight / sigma``: sigma, the largest singular value, estimated by power
    iteration on the buffers ``_u`` and ``_v`` (one iteration per forward in
    training mode; 15 at creation)."""

    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, "
                             f"{ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            from .. import functional as F
            self.n_power_iterations = n_power_iterations
            weight_mat = _weight_as_matrix(weight, self.dim)
            h, w = weight_mat.size()
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _power_method(self, weight_mat, n_power_iterations):
        from ... import no_grad
        from .. import functional as F
        with no_grad():
            for _ in range(n_power_iterations):
                self._u = F.normalize(weight_mat.mv(self._v), dim=0, eps=self.eps, out=self._u)
                self._v = F.normalize(weight_mat.t().mv(self._u), dim=0, eps=self.eps,
                                      out=self._v)

    def forward(self, weight):
        from .. import functional as F
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = _weight_as_matrix(weight, self.dim)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u = self._u.clone()
        v = self._v.clone()
        sigma = u.dot(weight_mat.mv(v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Reparametrizes ``module.<name>`` as itself divided by its spectral norm
    (largest singular value), estimated by power iteration.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> _ = gradtrack.manual_seed(0)
    >>> layer = nn.utils.parametrizations.spectral_norm(nn.Linear(4, 3))
    >>> sorted(layer.parametrizations.weight[0]._buffers)
    ['_u', '_v']
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, _C.Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    dim = _default_spectral_dim(module, dim)
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
