"""Giving the convolutions of a model a memory format for their weights
(``torch.nn.utils.memory_format``): only the weights of ``Conv2d`` and
``ConvTranspose2d`` (or of the 3-D ones), where a whole ``model.to(memory_format=...)``
would convert every 4-D (5-D) tensor.

>>> import gradtrack
>>> from gradtrack import nn
>>> model = nn.Sequential(nn.Conv2d(2, 4, 3), nn.ReLU())
>>> model = nn.utils.convert_conv2d_weight_memory_format(model, gradtrack.channels_last)
>>> model[0].weight.is_contiguous(memory_format=gradtrack.channels_last)
True
"""

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]


def _convert(module, memory_format, kinds):
    if isinstance(module, kinds):
        # The copy already has the format (torch also resizes it in place to its
        # own size in that format, which changes nothing).
        module.weight.data = module.weight.detach().clone(memory_format=memory_format)
    for child in module.children():
        _convert(child, memory_format, kinds)
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    """Gives the weight of every ``Conv2d`` and ``ConvTranspose2d`` in ``module`` (itself
    included) ``memory_format``; returns ``module``."""
    from ..modules import Conv2d, ConvTranspose2d

    return _convert(module, memory_format, (Conv2d, ConvTranspose2d))


def convert_conv3d_weight_memory_format(module, memory_format):
    """Gives the weight of every ``Conv3d`` and ``ConvTranspose3d`` in ``module`` (itself
    included) ``memory_format``; returns ``module``."""
    from ..modules import Conv3d, ConvTranspose3d

    return _convert(module, memory_format, (Conv3d, ConvTranspose3d))
