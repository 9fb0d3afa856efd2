"""``nn.functional``'s normalizations beyond layer/group/batch norm: ``normalize``,
``instance_norm``, ``rms_norm`` and ``local_response_norm``, composed from existing ops
in torch's order, so values, ``grad_fn`` chains and gradients are torch's.

>>> import gradtrack
>>> import gradtrack.nn.functional as F
>>> F.normalize(gradtrack.tensor([[3.0, 4.0]]))
tensor([[0.6000, 0.8000]])
"""

import numbers

from .. import _C
from ._conv_functional import avg_pool2d
from ._resample import pad

__all__ = ["normalize", "instance_norm", "rms_norm", "local_response_norm"]

_EPS = {"float32": 1.1920928955078125e-07, "float64": 2.220446049250313e-16,
        "float16": 0.0009765625, "bfloat16": 0.0078125}


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):  # noqa: A002 - torch's names
    """``input / max(||input||_p, eps)`` along ``dim``.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.normalize(gradtrack.tensor([[1.0, 1.0], [0.0, 2.0]]), dim=0)
    tensor([[1.0000, 0.4472],
            [0.0000, 0.8944]])
    """
    if out is None:
        denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
        return input / denom
    denom = input.norm(p, dim, keepdim=True).clamp_min_(eps).expand_as(input)
    from .. import div  # the out= wrapper lives on the assembled namespace
    return div(input, denom, out=out)


def _verify_spatial_size(size):
    count = 1
    for s in size[2:]:
        count *= s
    if count == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                         f"{size}")


def instance_norm(input, running_mean=None, running_var=None, weight=None,  # noqa: A002
                  bias=None, use_input_stats=True, momentum=0.1, eps=1e-5):
    """Normalizes each channel of each sample over its spatial dims: a batch norm of the
    input viewed as one sample of ``N * C`` channels (``ViewBackward0`` over
    ``NativeBatchNormBackward0``, as torch).

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.instance_norm(gradtrack.tensor([[[1.0, 3.0], [2.0, 2.0]]]))
    tensor([[[-1.0000,  1.0000],
             [ 0.0000,  0.0000]]])
    """
    if use_input_stats:
        _verify_spatial_size(input.size())
    n, c = input.shape[0], input.shape[1]
    shaped = input.contiguous().view([1, n * c] + list(input.shape[2:]))

    def repeated(t):
        return None if t is None else t.repeat(n)

    mean_, var_ = repeated(running_mean), repeated(running_var)
    out = _C._nn.batch_norm(shaped, repeated(weight), repeated(bias), mean_, var_,
                            use_input_stats, momentum, eps)
    if running_mean is not None:
        _C.Tensor.copy_(running_mean.detach(), mean_.view(n, c).mean(0))
    if running_var is not None:
        _C.Tensor.copy_(running_var.detach(), var_.view(n, c).mean(0))
    return out.view(input.shape)


def rms_norm(input, normalized_shape, weight=None, eps=None):  # noqa: A002
    """``x / sqrt(mean(x ** 2) + eps)`` over the trailing ``normalized_shape`` dims, times
    ``weight``; ``eps`` defaults to the dtype's machine epsilon.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.rms_norm(gradtrack.tensor([[3.0, 4.0]]), (2,))
    tensor([[0.8485, 1.1314]])
    """
    if isinstance(normalized_shape, numbers.Integral):
        normalized_shape = (normalized_shape,)
    shape = [int(s) for s in normalized_shape]
    k = len(shape)
    tail = list(input.shape[input.dim() - k:]) if k <= input.dim() else None
    if weight is not None and list(weight.shape) != shape:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got "
                           f"weight of shape {list(weight.shape)} and normalized_shape = "
                           f"{shape}")
    if tail != shape:
        expected = "[*" + ", ".join(str(s) for s in shape) + "]"
        raise RuntimeError(f"Given normalized_shape={shape}, expected input with shape "
                           f"{expected}, but got input of size{list(input.shape)}")
    if eps is None:
        eps = _EPS[repr(input.dtype).split(".", 1)[1]]
    dims = list(range(input.dim() - k, input.dim()))
    scale = input.pow(2).mean(dims, keepdim=True)
    scale.add_(eps)
    out = input.mul(scale.rsqrt())
    if weight is not None:
        out = out.mul(weight)
    # torch returns a contiguous result (CloneBackward0 on top when the input was strided)
    return out if out.is_contiguous() else out.contiguous()


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):  # noqa: A002
    """Divides each element by ``(k + alpha * mean of squares over size neighbouring
    channels) ** beta``.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.local_response_norm(gradtrack.ones(1, 2, 1), 2, alpha=1.0, k=0.0, beta=1.0)
    tensor([[[2.],
             [1.]]])
    """
    ndim = input.dim()
    if ndim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          "
                         f"input (got {ndim} dimensions)")
    if input.numel() == 0:
        return input
    if size <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kT: {size} "
                           "kH: 1 kW: 1")
    div = input.mul(input)
    if ndim == 3:
        div = div.unsqueeze(1)
        div = pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        # torch pools a 5-D view over (size, 1, 1); the same window over the channel dim of
        # a 4-D reshape (spatial dims flattened; a copy where the input's layout has them
        # apart, as a transposed input's) gives the same sums.
        sizes = input.size()
        div = div.reshape(sizes[0], 1, sizes[1], -1)
        div = pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
        div = div.reshape(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div
