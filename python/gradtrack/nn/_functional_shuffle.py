"""``nn.functional``'s rearrangements of channels: ``pixel_shuffle``,
``pixel_unshuffle`` and ``channel_shuffle``, each one node named as torch's
(``PixelShuffleBackward0``, ...; NOTE [Named composite nodes]), and
``native_channel_shuffle``, whose node is torch's ``NotImplemented``.

>>> import gradtrack
>>> import gradtrack.nn.functional as F
>>> F.pixel_shuffle(gradtrack.arange(4.0).reshape(1, 4, 1, 1), 2)
tensor([[[[0., 1.],
          [2., 3.]]]])
"""

from .. import _C
from ..autograd.function import Function
from ..autograd._named_nodes import _not_a_view, composite_node, named_node

__all__ = ["pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "native_channel_shuffle"]


def _shuffle(x, r):
    """(*, C * r * r, H, W) -> (*, C, H * r, W * r)."""
    *batch, c, h, w = x.shape
    oc = c // (r * r)
    n = len(batch)
    order = list(range(n)) + [n, n + 3, n + 1, n + 4, n + 2]
    return x.reshape(batch + [oc, r, r, h, w]).permute(order).reshape(batch + [oc, h * r, w * r])


def _unshuffle(x, r):
    """(*, C, H * r, W * r) -> (*, C * r * r, H, W)."""
    *batch, c, h, w = x.shape
    oh, ow = h // r, w // r
    n = len(batch)
    order = list(range(n)) + [n, n + 2, n + 4, n + 1, n + 3]
    return x.reshape(batch + [c, oh, r, ow, r]).permute(order).reshape(batch + [c * r * r, oh,
                                                                                ow])


_pixel_shuffle = composite_node("PixelShuffleBackward0", _shuffle, linear=True)
_pixel_unshuffle = composite_node("PixelUnshuffleBackward0", _unshuffle, linear=True)


def _check_rank(input, name):  # noqa: A002
    if input.dim() < 3:
        raise RuntimeError(f"{name} expects input to have at least 3 dimensions, but got input "
                           f"with {input.dim()} dimension(s)")


def pixel_shuffle(input, upscale_factor):  # noqa: A002
    """``(*, C * r**2, H, W)`` to ``(*, C, H * r, W * r)``, ``r = upscale_factor``.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.pixel_shuffle(gradtrack.ones(1, 8, 2, 3), 2).shape
    gradtrack.Size([1, 2, 4, 6])
    """
    _check_rank(input, "pixel_shuffle")
    r = int(upscale_factor)
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    c = input.shape[-3]
    if c % (r * r):
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be "
                           "divisible by the square of upscale_factor, but input.size(-3)="
                           f"{c} is not divisible by {r * r}")
    return _C._follow_layout(_pixel_shuffle(input, r), input)


def pixel_unshuffle(input, downscale_factor):  # noqa: A002
    """``(*, C, H * r, W * r)`` to ``(*, C * r**2, H, W)``, ``r = downscale_factor``.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.pixel_unshuffle(gradtrack.ones(1, 2, 4, 6), 2).shape
    gradtrack.Size([1, 8, 2, 3])
    """
    _check_rank(input, "pixel_unshuffle")
    r = int(downscale_factor)
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    h, w = input.shape[-2], input.shape[-1]
    if h % r:
        raise RuntimeError("pixel_unshuffle expects height to be divisible by "
                           f"downscale_factor, but input.size(-2)={h} is not divisible by {r}")
    if w % r:
        raise RuntimeError("pixel_unshuffle expects width to be divisible by "
                           f"downscale_factor, but input.size(-1)={w} is not divisible by {r}")
    return _C._follow_layout(_pixel_unshuffle(input, r), input)


def _channel_shuffle(x, groups):
    n, c = x.shape[0], x.shape[1]
    rest = list(x.shape[2:])
    return x.reshape([n, groups, c // groups] + rest).transpose(1, 2).reshape([n, c] + rest)


_channel_shuffle_node = composite_node("ChannelShuffleBackward0", _channel_shuffle, linear=True)


def _check_channel_shuffle(input, groups):  # noqa: A002
    if input.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with "
                           f"sizes {list(input.shape)}")
    groups = int(groups)
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of "
                           f"groups:{groups}")
    c = input.shape[1]
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels "
                           f"and {groups} groups.")
    return groups


def channel_shuffle(input, groups):  # noqa: A002
    """Interleaves the channels (dim 1) of ``groups`` groups: channel ``g * k + i`` moves to
    ``i * groups + g`` (``ChannelShuffleBackward0``).

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.channel_shuffle(gradtrack.arange(4.0).reshape(1, 4, 1), 2).flatten()
    tensor([0., 2., 1., 3.])
    """
    return _channel_shuffle_node(input, _check_channel_shuffle(input, groups))


class _NativeChannelShuffle(Function):
    # torch's kernel of its own has no derivative: its node is NotImplemented, which
    # raises in backward, and forward-mode AD refuses it.
    @staticmethod
    def forward(ctx, input, groups):  # noqa: A002
        return _not_a_view(_channel_shuffle(input, groups))

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("derivative for aten::native_channel_shuffle is not implemented")

    @staticmethod
    def jvp(ctx, tangent, *_):
        raise NotImplementedError("Trying to use forward AD with aten::native_channel_shuffle "
                                  "that does not support it.")


named_node(_NativeChannelShuffle, "NotImplemented")
_NativeChannelShuffle._backward_cls.name = lambda self: "gradtrack::autograd::NotImplemented"


def native_channel_shuffle(input, groups):  # noqa: A002
    """:func:`channel_shuffle` as torch's kernel of its own, which has no derivative: it
    records ``NotImplemented``, whose backward raises.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.native_channel_shuffle(gradtrack.arange(4.0).reshape(1, 4, 1), 2).flatten()
    tensor([0., 2., 1., 3.])
    """
    return _NativeChannelShuffle.apply(input, _check_channel_shuffle(input, groups))
