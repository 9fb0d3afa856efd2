"""The hook-based ``nn.utils.weight_norm`` / ``remove_weight_norm`` torch keeps next to
the parametrization (deprecated there, with a FutureWarning): the parameters become
``<name>_g`` and ``<name>_v`` and a forward pre-hook recomputes ``<name>`` as a plain
attribute before each call.

>>> import warnings
>>> from gradtrack import nn
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     layer = nn.utils.weight_norm(nn.Linear(3, 2))
>>> [name for name, _ in layer.named_parameters()]
['bias', 'weight_g', 'weight_v']
"""

import warnings

from ..parameter import Parameter
from .parametrizations import _norm_except_dim, _weight_norm

__all__ = ["weight_norm", "remove_weight_norm"]


class WeightNorm:
    """The forward pre-hook: sets ``module.<name>`` from ``<name>_g`` and ``<name>_v``."""

    def __init__(self, name, dim):
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module):
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return _weight_norm(v, g, self.dim)

    @staticmethod
    def apply(module, name, dim):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter "
                                   f"{name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_g",
                                  Parameter(_norm_except_dim(weight, 2, fn.dim).detach()))
        module.register_parameter(name + "_v", Parameter(weight.detach()))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


_DEPRECATED = ("`torch.nn.utils.weight_norm` is deprecated in favor of "
               "`torch.nn.utils.parametrizations.weight_norm`.")


def weight_norm(module, name="weight", dim=0):
    """Splits ``module.<name>`` into a magnitude ``<name>_g`` and a direction ``<name>_v``
    (deprecated in torch in favour of ``parametrizations.weight_norm``).

    >>> import warnings
    >>> import gradtrack
    >>> from gradtrack import nn
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     layer = nn.utils.weight_norm(nn.Linear(3, 2))
    >>> layer.weight_g.shape
    gradtrack.Size([2, 1])
    """
    # Attributed to this line, as torch's to one of its own: the default filter shows it
    # once per process, whoever calls.
    warnings.warn(_DEPRECATED, FutureWarning, stacklevel=1)
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    """Undoes :func:`weight_norm`: ``<name>`` is one parameter again.

    >>> import warnings
    >>> from gradtrack import nn
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     layer = nn.utils.remove_weight_norm(nn.utils.weight_norm(nn.Linear(3, 2)))
    >>> [name for name, _ in layer.named_parameters()]
    ['bias', 'weight']
    """
    for key, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            module._refresh_hook_flag()
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
