"""``nn.init``: in-place initializers for parameters.

Each initializer runs under ``no_grad`` (so it may write a leaf that requires
grad, which ``param.normal_()`` alone may not), performs exactly one in-place
write (so the tensor's ``_version`` goes up by exactly one, as in PyTorch) and
returns the tensor.

>>> import gradtrack
>>> from gradtrack import nn
>>> w = nn.Parameter(gradtrack.empty(3, 4))
>>> nn.init.zeros_(w) is w, w._version, w.is_leaf
(True, 1, True)
"""

import math
import warnings
from typing import TYPE_CHECKING as _TYPE_CHECKING
from typing import Any as _Any

if _TYPE_CHECKING:
    from .._C import Tensor

from ..autograd.grad_mode import no_grad as _no_grad

__all__ = ["calculate_gain", "uniform_", "normal_", "constant_", "zeros_", "ones_",
           "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_",
           "trunc_normal_", "eye_", "dirac_", "orthogonal_", "sparse_", "uniform", "normal",
           "constant", "eye", "dirac", "xavier_uniform", "xavier_normal", "kaiming_uniform",
           "kaiming_normal", "orthogonal", "sparse"]

_LINEAR_FNS = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
               "conv_transpose3d")


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for a nonlinearity (``relu``: sqrt(2), ``tanh``: 5/3, ...).

    >>> from gradtrack import nn
    >>> round(nn.init.calculate_gain("leaky_relu", 0.2), 4)
    1.3868
    """
    if nonlinearity in _LINEAR_FNS or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif (not isinstance(param, bool) and isinstance(param, int)) or isinstance(param, float):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    """``(fan_in, fan_out)`` of a weight: ``size(1)`` and ``size(0)`` times the receptive field."""
    dimensions = tensor.dim()
    if dimensions < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    receptive_field = 1
    for s in tensor.shape[2:]:
        receptive_field *= s
    return tensor.size(1) * receptive_field, tensor.size(0) * receptive_field


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fills ``tensor`` from U(a, b).

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> bool((nn.init.uniform_(gradtrack.empty(100), -1, 1).abs() <= 1).all())
    True
    """
    with _no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor: "Tensor", mean: float = 0.0, std: float = 1.0, generator: _Any = None) -> "Tensor":
    """Fills ``tensor`` from N(mean, std^2).

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.init.normal_(gradtrack.empty(2, 3), std=0.01).shape
    gradtrack.Size([2, 3])
    """
    with _no_grad():
        return tensor.normal_(mean, std, generator=generator)


def constant_(tensor, val):
    """Fills ``tensor`` with ``val``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.init.constant_(gradtrack.empty(2), 0.5)
    tensor([0.5000, 0.5000])
    """
    with _no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    """Fills ``tensor`` with ones.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> _ = gradtrack.manual_seed(0)
    >>> w = gradtrack.empty(2, 3)
    >>> nn.init.ones_(w)
    tensor([[1., 1., 1.],
            [1., 1., 1.]])
    """
    with _no_grad():
        return tensor.fill_(1.0)


def zeros_(tensor):
    """Fills ``tensor`` with zeros.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> _ = gradtrack.manual_seed(0)
    >>> w = gradtrack.empty(2, 3)
    >>> nn.init.zeros_(w)
    tensor([[0., 0., 0.],
            [0., 0., 0.]])
    """
    with _no_grad():
        return tensor.zero_()


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """Glorot uniform: U(-a, a) with ``a = gain * sqrt(6 / (fan_in + fan_out))``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> _ = gradtrack.manual_seed(0)
    >>> w = gradtrack.empty(2, 3)
    >>> nn.init.xavier_uniform_(w, gain=nn.init.calculate_gain('relu'))
    tensor([[-0.0116,  0.8311, -1.2751],
            [-1.1401, -0.5967,  0.4154]])
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """Glorot normal: N(0, std^2) with ``std = gain * sqrt(2 / (fan_in + fan_out))``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> _ = gradtrack.manual_seed(0)
    >>> w = gradtrack.empty(2, 3)
    >>> nn.init.xavier_normal_(w)
    tensor([[ 0.9746, -0.1856, -1.3780],
            [ 0.3595, -0.6859, -0.8845]])
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He uniform: U(-bound, bound) with ``bound = gain * sqrt(3 / fan)``.

    ``nn.Linear`` uses ``kaiming_uniform_(weight, a=math.sqrt(5))``.

    >>> import math, gradtrack
    >>> from gradtrack import nn
    >>> w = nn.init.kaiming_uniform_(gradtrack.empty(4, 9), a=math.sqrt(5))
    >>> bool((w.abs() <= 1 / 3).all())
    True
    """
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He normal: N(0, std^2) with ``std = gain / sqrt(fan)``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> _ = gradtrack.manual_seed(0)
    >>> w = gradtrack.empty(2, 3)
    >>> nn.init.kaiming_normal_(w)
    tensor([[ 1.2582, -0.2396, -1.7790],
            [ 0.4641, -0.8855, -1.1419]])
    """
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return normal_(tensor, 0.0, std, generator)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """N(mean, std^2) truncated to [a, b], by rejection (torch 2.13's sampler, same draws).

    When [a, b] holds more than 30% of the mass, normal draws outside it are
    redrawn; otherwise uniform candidates on [a, b] are accepted against the
    normal density.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> w = nn.init.trunc_normal_(gradtrack.empty(1000), std=3.0, a=-1.0, b=1.0)
    >>> bool((w.abs() <= 1).all())
    True
    """
    def norm_cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.", stacklevel=2)
    with _no_grad():
        if norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std) > 0.3:
            _redraw_outside(tensor, mean, std, a, b, generator)
        else:
            _accept_uniform(tensor, mean, std, a, b, generator)
        return tensor


def _redraw_outside(tensor, mean, std, a, b, generator):
    import gradtrack
    # The bounds as the tensor's dtype holds them, so the mask agrees with its values.
    lo = gradtrack.tensor(a, dtype=tensor.dtype).item()
    hi = gradtrack.tensor(b, dtype=tensor.dtype).item()
    result = tensor.normal_(mean, std, generator=generator)
    while True:
        mask = (result < lo) | (result > hi)
        if not mask.any():
            break
        fresh = gradtrack.empty_like(result).normal_(mean, std, generator=generator)
        result = gradtrack.where(mask, fresh, result)
    if result is not tensor:
        tensor.copy_(result)


def _accept_uniform(tensor, mean, std, a, b, generator):
    import gradtrack
    mode = max(a, min(mean, b))
    log_peak = -0.5 * ((mode - mean) / std) ** 2
    candidates = gradtrack.empty_like(tensor)
    accept_buf = gradtrack.empty_like(tensor)

    def rejected(cand):
        # log_pdf = -0.5 * ((c - mean) / std) ** 2, relative to the peak
        cand.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
        return accept_buf.uniform_(generator=generator).log_().gt(cand)

    tensor.uniform_(a, b, generator=generator)
    candidates.copy_(tensor)
    pending = rejected(candidates)
    if not pending.any():
        return
    result = tensor
    while True:
        candidates.uniform_(a, b, generator=generator)
        result = gradtrack.where(pending, candidates, result)
        pending = gradtrack.where(pending, rejected(candidates), pending)
        if not pending.any():
            break
    tensor.copy_(result)


def eye_(tensor):
    """Fills the 2-D ``tensor`` with the identity matrix (ones on the diagonal).

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.init.eye_(gradtrack.empty(2, 3))
    tensor([[1., 0., 0.],
            [0., 1., 0.]])
    """
    import gradtrack
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with _no_grad():
        tensor.copy_(gradtrack.eye(*tensor.shape, dtype=tensor.dtype))
    return tensor


def dirac_(tensor, groups=1):
    """Fills a 3-, 4- or 5-D convolution weight with the Dirac delta: each of the first
    ``min(out, in)`` channels of each group passes its input through unchanged.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> w = nn.init.dirac_(gradtrack.empty(2, 2, 3))
    >>> w[:, :, 1]
    tensor([[1., 0.],
            [0., 1.]])
    """
    dims = tensor.dim()
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.size()
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = sizes[0] // groups
    centre = tuple(size // 2 for size in sizes[2:])
    with _no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min(per_group, sizes[1])):
                tensor[(g * per_group + d, d) + centre] = 1
    return tensor


def orthogonal_(tensor, gain=1, generator=None):
    """Fills ``tensor`` with a (semi-)orthogonal matrix: the Q of the QR factorization of a
    standard normal draw, its columns' signs fixed by R's diagonal, times ``gain``. Tensors
    of more than 2 dims are flattened after dim 0.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> q = nn.init.orthogonal_(gradtrack.empty(3, 3))
    >>> bool(gradtrack.allclose(q @ q.T, gradtrack.eye(3), atol=1e-6))
    True
    """
    # NOTE [QR through NumPy]: gradtrack has no QR factorization of its own yet; the
    # normal draw is torch's (same stream), and NumPy's LAPACK QR of it agrees with
    # torch's to float32 rounding (NumPy factorizes float32 input in double).
    import numpy as np

    import gradtrack
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    flat = tensor.new_empty((rows, cols)).normal_(0, 1, generator=generator)
    matrix = flat.numpy().astype(np.float64)
    if rows < cols:
        matrix = matrix.T
    q, r = np.linalg.qr(matrix)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    with _no_grad():
        tensor.view_as(flat).copy_(gradtrack.tensor(np.ascontiguousarray(q), dtype=tensor.dtype))
        tensor.mul_(gain)
    return tensor


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """Fills the 2-D ``tensor`` from N(0, std^2), then zeroes ``ceil(sparsity * rows)``
    random entries of each column.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> w = nn.init.sparse_(gradtrack.empty(4, 3), sparsity=0.5)
    >>> (w == 0).sum(0)
    tensor([2, 2, 2])
    """
    import gradtrack
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    with _no_grad():
        tensor.normal_(0, std, generator=generator)
        for col in range(cols):
            zero_rows = gradtrack.randperm(rows)[:num_zeros]
            tensor[zero_rows, col] = 0
    return tensor


def _deprecated(initializer):
    """The old name of ``initializer`` (without the underscore), warning as torch's."""
    new_name = initializer.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of "
                      f"`nn.init.{new_name}`.", FutureWarning, stacklevel=2)
        return initializer(*args, **kwargs)

    deprecated_init.__name__ = deprecated_init.__qualname__ = old_name
    shape = _DEPRECATED_SHAPES.get(old_name, "3, 3")
    args = _DEPRECATED_ARGS.get(old_name, ())
    deprecated_init.__doc__ = (
        f"Deprecated: :func:`{new_name}` under its old name, with a ``FutureWarning``.\n\n"
        f"    >>> import warnings, gradtrack\n    >>> from gradtrack import nn\n"
        f"    >>> with warnings.catch_warnings(record=True) as caught:\n"
        f"    ...     warnings.simplefilter('always')\n"
        f"    ...     _ = nn.init.{old_name}(gradtrack.empty({shape}), *{args!r})\n"
        f"    >>> print(caught[0].message)\n"
        f"    `nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.\n")
    return deprecated_init


_DEPRECATED_ARGS = {"constant": (0.5,), "sparse": (0.5,)}
_DEPRECATED_SHAPES = {"dirac": "3, 3, 3"}
uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)
