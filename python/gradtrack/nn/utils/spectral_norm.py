"""The legacy hook-based ``nn.utils.spectral_norm`` (PyTorch recommends
``nn.utils.parametrizations.spectral_norm``).

The module keeps ``<name>_orig`` as the parameter and the power-iteration
vectors as buffers ``<name>_u`` and ``<name>_v``; a forward pre-hook writes
``<name> = <name>_orig / sigma`` before every call (updating ``u`` and ``v``
in training mode). The state-dict hooks record the format version in the
metadata and convert checkpoints written before ``_v`` was saved, as PyTorch's
do.

>>> import gradtrack
>>> from gradtrack import nn
>>> _ = gradtrack.manual_seed(0)
>>> layer = nn.utils.spectral_norm(nn.Linear(4, 3))
>>> list(layer.state_dict())
['bias', 'weight_orig', 'weight_u', 'weight_v']
"""

from ...autograd.grad_mode import no_grad
from ..parameter import Parameter
from .parametrizations import _default_spectral_dim

__all__ = ["SpectralNorm", "SpectralNormLoadStateDictPreHook", "SpectralNormStateDictHook",
           "spectral_norm", "remove_spectral_norm"]


class SpectralNorm:
    """The forward pre-hook that divides ``<name>_orig`` by its spectral norm.

    >>> from gradtrack.nn.utils.spectral_norm import SpectralNorm
    >>> hook = SpectralNorm("weight", n_power_iterations=2)
    >>> hook.name, hook.n_power_iterations, hook.dim
    ('weight', 2, 0)
    """

    _version = 1

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        """``weight`` with ``dim`` first, as a (size of ``dim``) x (the rest) matrix."""
        weight_mat = weight
        if self.dim != 0:
            weight_mat = weight_mat.permute(
                self.dim, *[d for d in range(weight_mat.dim()) if d != self.dim])
        return weight_mat.reshape(weight_mat.size(0), -1)

    def compute_weight(self, module, do_power_iteration):
        """``<name>_orig / sigma``, after ``n_power_iterations`` updates of ``u``
        and ``v`` (in place) when ``do_power_iteration``."""
        from .. import functional as F
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    v = F.normalize(weight_mat.t().mv(u), dim=0, eps=self.eps, out=v)
                    u = F.normalize(weight_mat.mv(v), dim=0, eps=self.eps, out=u)
                # Clones, so that backward does not see the next in-place update.
                u = u.clone()
                v = v.clone()
        sigma = u.dot(weight_mat.mv(v))
        return weight / sigma

    def remove(self, module):
        """Puts a plain parameter ``<name>`` (the current normalized weight) back."""
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name,
                self.compute_weight(module, do_power_iteration=module.training))

    def _solve_v_and_rescale(self, weight_mat, u, target_sigma):
        # The v with u = W v / ||W v|| scaled so that u . W v is target_sigma.
        wt = weight_mat.t()
        v = _pinverse(wt.mm(weight_mat)).mm(wt).mm(u.unsqueeze(1)).squeeze(1)
        return v.mul_(target_sigma / u.dot(weight_mat.mv(v)))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        """Installs the hook on ``module``; returns it."""
        from .. import functional as F
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError("Cannot register two spectral_norm hooks on the same "
                                   f"parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        with no_grad():
            weight_mat = fn.reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = F.normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=fn.eps)
            v = F.normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        module._register_state_dict_hook(SpectralNormStateDictHook(fn))
        module._register_load_state_dict_pre_hook(SpectralNormLoadStateDictPreHook(fn))
        return fn


class SpectralNormLoadStateDictPreHook:
    """Converts a checkpoint of the format before version 1 (no ``<name>_v``).

    >>> from gradtrack.nn.utils.spectral_norm import SpectralNormLoadStateDictPreHook
    >>> SpectralNormLoadStateDictPreHook(None).fn is None
    True
    """

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, state_dict, prefix, local_metadata, strict, missing_keys,
                 unexpected_keys, error_msgs):
        fn = self.fn
        version = local_metadata.get("spectral_norm", {}).get(fn.name + ".version", None)
        if version is not None and version >= 1:
            return
        weight_key = prefix + fn.name
        if (version is None and all(weight_key + s in state_dict for s in ("_orig", "_u", "_v"))
                and weight_key not in state_dict):
            return
        has_missing_keys = False
        for suffix in ("_orig", "", "_u"):
            key = weight_key + suffix
            if key not in state_dict:
                has_missing_keys = True
                if strict:
                    missing_keys.append(key)
        if has_missing_keys:
            return
        with no_grad():
            weight_orig = state_dict[weight_key + "_orig"]
            weight = state_dict.pop(weight_key)
            sigma = (weight_orig / weight).mean()
            weight_mat = fn.reshape_weight_to_matrix(weight_orig)
            u = state_dict[weight_key + "_u"]
            state_dict[weight_key + "_v"] = fn._solve_v_and_rescale(weight_mat, u, sigma)


class SpectralNormStateDictHook:
    """Records ``spectral_norm``'s format version in the state dict's metadata.

    >>> from gradtrack.nn.utils.spectral_norm import SpectralNormStateDictHook
    >>> SpectralNormStateDictHook(None).fn is None
    True
    """

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, module, state_dict, prefix, local_metadata):
        if "spectral_norm" not in local_metadata:
            local_metadata["spectral_norm"] = {}
        key = self.fn.name + ".version"
        if key in local_metadata["spectral_norm"]:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        local_metadata["spectral_norm"][key] = self.fn._version


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divides ``module.<name>`` by its spectral norm before every forward
    (the legacy hook form).

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> _ = gradtrack.manual_seed(0)
    >>> layer = nn.utils.spectral_norm(nn.Linear(4, 3))
    >>> layer.weight_orig.shape, layer.weight_u.shape, layer.weight_v.shape
    (gradtrack.Size([3, 4]), gradtrack.Size([3]), gradtrack.Size([4]))
    """
    SpectralNorm.apply(module, name, n_power_iterations, _default_spectral_dim(module, dim), eps)
    return module


def remove_spectral_norm(module, name="weight"):
    """Removes the hook: ``module.<name>`` becomes a plain parameter again.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> layer = nn.utils.remove_spectral_norm(nn.utils.spectral_norm(nn.Linear(4, 3)))
    >>> list(layer.state_dict())
    ['bias', 'weight']
    """
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            module._refresh_hook_flag()
            break
    else:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    for k, hook in module._state_dict_hooks.items():
        if isinstance(hook, SpectralNormStateDictHook) and hook.fn.name == name:
            del module._state_dict_hooks[k]
            break
    for k, hook in module._load_state_dict_pre_hooks.items():
        if isinstance(hook, SpectralNormLoadStateDictPreHook) and hook.fn.name == name:
            del module._load_state_dict_pre_hooks[k]
            break
    return module


def _pinverse(a, rcond=1e-15):
    """The Moore-Penrose inverse of matrix ``a`` from its SVD (singular values at or
    below ``rcond`` times the largest count as zero), as ``torch.pinverse``."""
    from ... import linalg
    u, s, vh = linalg.svd(a, full_matrices=False)
    keep = s > rcond * s.max()
    s_inv = (1 / s).masked_fill(keep.logical_not(), 0)
    return vh.t().mm(s_inv.unsqueeze(1) * u.t())
