"""``nn.functional``'s channel-wise and alpha dropouts: ``dropout1d/2d/3d``,
``alpha_dropout`` and ``feature_alpha_dropout``.

As torch: one Bernoulli draw per element (alpha dropout) or per ``(sample, channel)``
(the feature forms: the noise is shaped ``(N, C, 1, ...)`` and broadcasts), drawn as
``bernoulli_(1 - p)`` from the default generator, so seeded masks are torch's. The result
is ``input * noise`` (``MulBackward0``), plus the affine shift for the alpha forms
(``AddBackward0``, added in place as torch does).

>>> import gradtrack
>>> import gradtrack.nn.functional as F
>>> F.dropout2d(gradtrack.ones(1, 2, 2, 2), 0.5, training=False).shape
gradtrack.Size([1, 2, 2, 2])
"""

import math
import warnings

from .. import _C

__all__ = ["dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"]

# torch's SELU alpha times its scale: the value a dropped unit takes under alpha dropout.
_ALPHA = 1.7580993408473766


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _bernoulli(shape, dtype, p):
    return _C.empty(shape, dtype=dtype).bernoulli_(1 - p)


def _noise_shape(input, feature):  # noqa: A002 - torch's argument name
    if not feature:
        return tuple(input.shape)
    return tuple(input.shape[:2]) + (1,) * (input.dim() - 2)


def _dropout_impl(input, p, train, inplace, feature, alpha):  # noqa: A002
    """torch's shared dropout path (``feature_dropout``, ``alpha_dropout`` and
    ``feature_alpha_dropout``)."""
    if inplace:
        from .._inplace import check
        check(input)
    if p == 0 or not train or input.numel() == 0:
        return input
    if feature and input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if p == 1:
        zero = _C.zeros((), dtype=input.dtype)
        return input.mul_(zero) if inplace else input * zero
    noise = _bernoulli(_noise_shape(input, feature), input.dtype, float(p))
    if alpha:
        a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
        shift = noise.add(-1).mul_(_ALPHA * a).add_(_ALPHA * a * p)
        noise.mul_(a)
        out = input.mul_(noise) if inplace else input * noise
        return out.add_(shift)
    noise.div_(1 - p)
    return input.mul_(noise) if inplace else input * noise


def _feature_dropout(input, p, training, inplace, batched_dim, name, spatial):  # noqa: A002
    batched = input.dim() == batched_dim
    if not batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)  # noqa: A001
    result = _dropout_impl(input, p, training, inplace, True, False)
    if not batched:
        result = result.squeeze_(0) if inplace else result.squeeze(0)
    return result


def dropout1d(input, p=0.5, training=True, inplace=False):  # noqa: A002
    """Zeroes whole channels of ``(N, C, L)`` or ``(C, L)`` input with probability ``p``,
    scaling the rest by ``1 / (1 - p)``.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> _ = gradtrack.manual_seed(0)
    >>> F.dropout1d(gradtrack.ones(4, 3), 0.5)
    tensor([[0., 0., 0.],
            [0., 0., 0.],
            [2., 2., 2.],
            [0., 0., 0.]])
    """
    _check_p(p)
    ndim = input.dim()
    if ndim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {ndim}D input. Note that "
            "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
            "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D "
            "inputs).")
    return _feature_dropout(input, p, training, inplace, 3, "dropout1d", 1)


def dropout2d(input, p=0.5, training=True, inplace=False):  # noqa: A002
    """Zeroes whole channels of ``(N, C, H, W)`` input with probability ``p``, scaling the
    rest by ``1 / (1 - p)``; a 3-D input is taken as ``(N, C, L)`` with torch's warning.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.dropout2d(gradtrack.ones(1, 2, 1, 1), 0.5, training=False)
    tensor([[[[1.]],
    <BLANKLINE>
             [[1.]]]])
    """
    _check_p(p)
    ndim = input.dim()
    if ndim not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {ndim}-D input to dropout2d, which is deprecated and will "
            "result in an error in a future release. To retain the behavior and silence this "
            "warning, please use dropout instead. Note that dropout2d exists to provide "
            "channel-wise dropout on inputs with 2 spatial dimensions, a channel dimension, "
            "and an optional batch dimension (i.e. 3D or 4D inputs).", stacklevel=2)
    if ndim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2)
    return _dropout_impl(input, p, training, inplace, True, False)


def dropout3d(input, p=0.5, training=True, inplace=False):  # noqa: A002
    """Zeroes whole channels of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` input with
    probability ``p``, scaling the rest by ``1 / (1 - p)``.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.dropout3d(gradtrack.ones(1, 1, 1, 1, 2), 0.5, training=False)
    tensor([[[[[1., 1.]]]]])
    """
    _check_p(p)
    ndim = input.dim()
    if ndim not in (4, 5):
        warnings.warn(
            f"dropout3d: Received a {ndim}-D input to dropout3d, which is deprecated and will "
            "result in an error in a future release. To retain the behavior and silence this "
            "warning, please use dropout instead. Note that dropout3d exists to provide "
            "channel-wise dropout on inputs with 3 spatial dimensions, a channel dimension, "
            "and an optional batch dimension (i.e. 4D or 5D inputs).", stacklevel=2)
    if ndim not in (4, 5):
        return _dropout_impl(input, p, training, inplace, True, False)
    return _feature_dropout(input, p, training, inplace, 5, "dropout3d", 3)


def alpha_dropout(input, p=0.5, training=False, inplace=False):  # noqa: A002
    """Dropout that keeps a SELU network's mean and variance: dropped units take the value
    SELU saturates to and the result is scaled and shifted back.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.alpha_dropout(gradtrack.ones(3), 0.5)
    tensor([1., 1., 1.])
    """
    _check_p(p)
    return _dropout_impl(input, p, training, inplace, False, True)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):  # noqa: A002
    """:func:`alpha_dropout` of whole channels (one draw per sample and channel).

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.feature_alpha_dropout(gradtrack.ones(1, 2, 2), 0.5).shape
    gradtrack.Size([1, 2, 2])
    """
    _check_p(p)
    return _dropout_impl(input, p, training, inplace, True, True)
