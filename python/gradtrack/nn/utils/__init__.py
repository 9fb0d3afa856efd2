"""``nn.utils``: gradient clipping and parameter/vector conversion.

>>> import gradtrack
>>> from gradtrack import nn
>>> model = nn.Linear(3, 2)
>>> nn.utils.parameters_to_vector(model.parameters()).shape
gradtrack.Size([8])
"""

from . import clip_grad, convert_parameters
from .clip_grad import (
    clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm,
)
from .convert_parameters import parameters_to_vector, vector_to_parameters

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_",
           "get_total_norm", "parameters_to_vector", "vector_to_parameters", "clip_grad",
           "convert_parameters"]

# recurrent layers: padding and packing of sequences
from . import rnn  # noqa: E402

__all__ += ["rnn"]

# parametrizations: a module's tensor computed from other tensors
from . import parametrizations, parametrize  # noqa: E402

__all__ += ["parametrize", "parametrizations"]
from . import stateless  # noqa: E402
from .weight_norm_hook import remove_weight_norm, weight_norm  # noqa: E402

__all__ += ["stateless", "weight_norm", "remove_weight_norm"]
from .spectral_norm import remove_spectral_norm, spectral_norm  # noqa: E402

__all__ += ["spectral_norm", "remove_spectral_norm"]
# folding batch norms into layers, construction without initialization, weight layouts
from .fusion import (  # noqa: E402
    fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval, fuse_linear_bn_weights,
)
from .init import skip_init  # noqa: E402
from .memory_format import (  # noqa: E402
    convert_conv2d_weight_memory_format, convert_conv3d_weight_memory_format,
)

__all__ += ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
            "fuse_linear_bn_weights", "skip_init", "convert_conv2d_weight_memory_format",
            "convert_conv3d_weight_memory_format"]
