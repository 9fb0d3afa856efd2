"""``nn.functional`` pools composed from the core's pools: ``lp_pool1d``, ``lp_pool2d``
and ``adaptive_max_pool1d``, in torch's order of operations (values, node names and
gradients are torch's).

>>> import gradtrack
>>> import gradtrack.nn.functional as F
>>> F.lp_pool1d(gradtrack.tensor([[[3.0, 4.0]]]), 2, 2)
tensor([[[5.]]])
"""

from .. import _C
from ._conv_functional import (_check_dims, adaptive_max_pool2d_with_indices, avg_pool1d,
                               avg_pool2d, max_pool1d, max_pool2d)

__all__ = ["lp_pool1d", "lp_pool2d", "adaptive_max_pool1d", "adaptive_max_pool1d_with_indices"]


def _root(out, count, norm_type):
    return (out.sign() * _C.relu(out.abs())).mul(count).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):  # noqa: A002
    """The ``norm_type``-norm of each window: ``(sum x**p) ** (1/p)``.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.lp_pool1d(gradtrack.tensor([[[1.0, 1.0, 2.0, 2.0]]]), 1, 2)
    tensor([[[2., 4.]]])
    """
    if norm_type == float("inf"):
        return max_pool1d(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if norm_type == -float("inf"):
        return -max_pool1d(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is not None:
        out = avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool1d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return _root(out, kernel_size, norm_type)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):  # noqa: A002
    """The ``norm_type``-norm of each 2-D window.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.lp_pool2d(gradtrack.ones(1, 1, 2, 2), 2, 2)
    tensor([[[[2.]]]])
    """
    kw, kh = (kernel_size, kernel_size) if isinstance(kernel_size, int) else kernel_size
    if norm_type == float("inf"):
        return max_pool2d(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if norm_type == -float("inf"):
        return -max_pool2d(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is not None:
        out = avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool2d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return _root(out, kw * kh, norm_type)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):  # noqa: A002
    """:func:`adaptive_max_pool1d` returning ``(values, indices)``.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.adaptive_max_pool1d_with_indices(gradtrack.tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2)
    (tensor([[[3., 2.]]]), tensor([[[1, 2]]]))
    """
    _check_dims(input, "adaptive_max_pool1d")
    if not isinstance(output_size, int):
        size = list(output_size)
        if len(size) != 1:
            raise RuntimeError("adaptive_max_pool1d() argument 'output_size' should contain one "
                               f"int (got {len(size)})")
        output_size = int(size[0])
    out, indices = adaptive_max_pool2d_with_indices(input.unsqueeze(-2), (1, output_size))
    return out.squeeze(-2), indices.squeeze(-2)


def adaptive_max_pool1d(input, output_size, return_indices=False):  # noqa: A002
    """Maximum over windows chosen so the output has length ``output_size``.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.adaptive_max_pool1d(gradtrack.tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2)
    tensor([[[3., 2.]]])
    """
    out, indices = adaptive_max_pool1d_with_indices(input, output_size)
    return (out, indices) if return_indices else out
