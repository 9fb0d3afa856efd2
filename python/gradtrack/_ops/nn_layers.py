"""The layer functions torch also has at the top level, with the parameters of its ATen
ops (``torch.batch_norm(input, weight, bias, running_mean, running_var, training,
momentum, eps, cudnn_enabled)``, ``torch.embedding(weight, indices, ...)``,
``torch.dropout(input, p, train)``): each calls the ``nn.functional`` function that
computes the same thing, so values, gradients, ``grad_fn`` names and random draws are
that function's. ``cudnn_enabled``/``cudnn_enable`` choose a GPU kernel in torch and
change nothing on the CPU.

>>> import gradtrack
>>> gradtrack.selu(gradtrack.tensor([-1.0, 1.0]))
tensor([-1.1113,  1.0507])
"""

from .. import _C
from .._lazy import LazyModule
from . import methods

# nn.functional, imported when one of these is first called: NOTE [Loaded on first use]
F = LazyModule("gradtrack.nn.functional", __name__, "F")  # noqa: N816 - torch's spelling

# ---- convolutions --------------------------------------------------------------------------


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    """:func:`gradtrack.nn.functional.conv1d`.

    >>> import gradtrack
    >>> gradtrack.conv1d(gradtrack.ones(1, 1, 3), gradtrack.ones(1, 1, 2))
    tensor([[[2., 2.]]])
    """
    return F.conv1d(input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    """:func:`gradtrack.nn.functional.conv2d`.

    >>> import gradtrack
    >>> gradtrack.conv2d(gradtrack.ones(1, 1, 2, 2), gradtrack.ones(1, 1, 2, 2))
    tensor([[[[4.]]]])
    """
    return F.conv2d(input, weight, bias, stride, padding, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    """:func:`gradtrack.nn.functional.conv3d`.

    >>> import gradtrack
    >>> gradtrack.conv3d(gradtrack.ones(1, 1, 2, 2, 2), gradtrack.ones(1, 1, 2, 2, 2))
    tensor([[[[[8.]]]]])
    """
    return F.conv3d(input, weight, bias, stride, padding, dilation, groups)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0,  # noqa: A002
                     output_padding=0, groups=1, dilation=1):
    """:func:`gradtrack.nn.functional.conv_transpose1d`.

    >>> import gradtrack
    >>> gradtrack.conv_transpose1d(gradtrack.ones(1, 1, 2), gradtrack.ones(1, 1, 2))
    tensor([[[1., 2., 1.]]])
    """
    return F.conv_transpose1d(input, weight, bias, stride, padding, output_padding, groups,
                              dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0,  # noqa: A002
                     output_padding=0, groups=1, dilation=1):
    """:func:`gradtrack.nn.functional.conv_transpose2d`.

    >>> import gradtrack
    >>> gradtrack.conv_transpose2d(gradtrack.ones(1, 1, 1, 1), gradtrack.ones(1, 1, 2, 2))
    tensor([[[[1., 1.],
              [1., 1.]]]])
    """
    return F.conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups,
                              dilation)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0,  # noqa: A002
                     output_padding=0, groups=1, dilation=1):
    """:func:`gradtrack.nn.functional.conv_transpose3d`.

    >>> import gradtrack
    >>> gradtrack.conv_transpose3d(gradtrack.ones(1, 1, 1, 1, 1),
    ...                            gradtrack.ones(1, 1, 1, 1, 2)).shape
    gradtrack.Size([1, 1, 1, 1, 2])
    """
    return F.conv_transpose3d(input, weight, bias, stride, padding, output_padding, groups,
                              dilation)


# ---- normalizations ------------------------------------------------------------------------


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum,  # noqa: A002
               eps, cudnn_enabled):
    """:func:`gradtrack.nn.functional.batch_norm`, with ATen's order of parameters.

    >>> import gradtrack
    >>> gradtrack.batch_norm(gradtrack.tensor([[1.0], [3.0]]), None, None, None, None,
    ...                      True, 0.1, 1e-5, False)
    tensor([[-1.0000],
            [ 1.0000]])
    """
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input, weight, bias, running_mean, running_var,  # noqa: A002
                  use_input_stats, momentum, eps, cudnn_enabled):
    """:func:`gradtrack.nn.functional.instance_norm`, with ATen's order of parameters.

    >>> import gradtrack
    >>> gradtrack.instance_norm(gradtrack.tensor([[[1.0, 3.0]]]), None, None, None, None,
    ...                         True, 0.1, 1e-5, False)
    tensor([[[-1.0000,  1.0000]]])
    """
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                           momentum, eps)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05,  # noqa: A002
               cudnn_enable=True):
    """:func:`gradtrack.nn.functional.layer_norm`.

    >>> import gradtrack
    >>> gradtrack.layer_norm(gradtrack.tensor([[1.0, 3.0]]), [2])
    tensor([[-1.0000,  1.0000]])
    """
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05,  # noqa: A002
               cudnn_enabled=True):
    """:func:`gradtrack.nn.functional.group_norm`.

    >>> import gradtrack
    >>> gradtrack.group_norm(gradtrack.tensor([[[1.0], [3.0]]]), 1)
    tensor([[[-1.0000],
             [ 1.0000]]])
    """
    return F.group_norm(input, num_groups, weight, bias, eps)


def rms_norm(input, normalized_shape, weight=None, eps=None):  # noqa: A002
    """:func:`gradtrack.nn.functional.rms_norm`.

    >>> import gradtrack
    >>> gradtrack.rms_norm(gradtrack.tensor([[3.0, 4.0]]), [2])
    tensor([[0.8485, 1.1314]])
    """
    return F.rms_norm(input, normalized_shape, weight, eps)


# ---- dropout -------------------------------------------------------------------------------


def dropout(input, p, train):  # noqa: A002
    """:func:`gradtrack.nn.functional.dropout` (``training=train``).

    >>> import gradtrack
    >>> gradtrack.dropout(gradtrack.ones(3), 0.5, False)
    tensor([1., 1., 1.])
    """
    return F.dropout(input, p, train)


def dropout_(input, p, train):  # noqa: A002
    """:func:`dropout` written into ``input``.

    >>> import gradtrack
    >>> gradtrack.dropout_(gradtrack.ones(3), 0.5, False)
    tensor([1., 1., 1.])
    """
    return F.dropout(input, p, train, inplace=True)


def alpha_dropout(input, p, train):  # noqa: A002
    """:func:`gradtrack.nn.functional.alpha_dropout` (``training=train``).

    >>> import gradtrack
    >>> gradtrack.alpha_dropout(gradtrack.ones(3), 0.5, False)
    tensor([1., 1., 1.])
    """
    return F.alpha_dropout(input, p, train)


def alpha_dropout_(input, p, train):  # noqa: A002
    """:func:`alpha_dropout` written into ``input``.

    >>> import gradtrack
    >>> gradtrack.alpha_dropout_(gradtrack.ones(3), 0.5, False)
    tensor([1., 1., 1.])
    """
    return F.alpha_dropout(input, p, train, inplace=True)


def feature_dropout(input, p, train):  # noqa: A002
    """Channel-wise dropout of an ``(N, C, ...)`` input: whole ``(sample, channel)``
    slices zeroed with probability ``p``, the rest scaled by ``1 / (1 - p)`` (the draws
    of :func:`gradtrack.nn.functional.dropout2d`).

    >>> import gradtrack
    >>> gradtrack.feature_dropout(gradtrack.ones(1, 2, 2), 0.5, False)
    tensor([[[1., 1.],
             [1., 1.]]])
    """
    return _feature_dropout(input, p, train, False)


def feature_dropout_(input, p, train):  # noqa: A002
    """:func:`feature_dropout` written into ``input``.

    >>> import gradtrack
    >>> gradtrack.feature_dropout_(gradtrack.ones(1, 2, 2), 0.5, False).shape
    gradtrack.Size([1, 2, 2])
    """
    return _feature_dropout(input, p, train, True)


def _feature_dropout(input, p, train, inplace):  # noqa: A002
    if p < 0 or p > 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
    from ..nn._functional_dropout import _dropout_impl
    return _dropout_impl(input, p, train, inplace, True, False)


def feature_alpha_dropout(input, p, train):  # noqa: A002
    """:func:`gradtrack.nn.functional.feature_alpha_dropout` (``training=train``).

    >>> import gradtrack
    >>> gradtrack.feature_alpha_dropout(gradtrack.ones(1, 2, 2), 0.5, False)
    tensor([[[1., 1.],
             [1., 1.]]])
    """
    return F.feature_alpha_dropout(input, p, train)


def feature_alpha_dropout_(input, p, train):  # noqa: A002
    """:func:`feature_alpha_dropout` written into ``input``.

    >>> import gradtrack
    >>> gradtrack.feature_alpha_dropout_(gradtrack.ones(1, 2, 2), 0.5, False).shape
    gradtrack.Size([1, 2, 2])
    """
    return F.feature_alpha_dropout(input, p, train, inplace=True)


# ---- activations ---------------------------------------------------------------------------


def selu(input):  # noqa: A002
    """:func:`gradtrack.nn.functional.selu`.

    >>> import gradtrack
    >>> gradtrack.selu(gradtrack.tensor([-1.0, 1.0]))
    tensor([-1.1113,  1.0507])
    """
    return F.selu(input)


def selu_(input):  # noqa: A002
    """:func:`selu` written into ``input``.

    >>> import gradtrack
    >>> gradtrack.selu_(gradtrack.tensor([-1.0, 1.0]))
    tensor([-1.1113,  1.0507])
    """
    return F.selu(input, inplace=True)


def celu(input, alpha=1.0):  # noqa: A002
    """:func:`gradtrack.nn.functional.celu`.

    >>> import gradtrack
    >>> gradtrack.celu(gradtrack.tensor([-1.0, 1.0]))
    tensor([-0.6321,  1.0000])
    """
    return F.celu(input, alpha)


def celu_(input, alpha=1.0):  # noqa: A002
    """:func:`celu` written into ``input``.

    >>> import gradtrack
    >>> gradtrack.celu_(gradtrack.tensor([-1.0, 1.0]))
    tensor([-0.6321,  1.0000])
    """
    return F.celu(input, alpha, inplace=True)


def threshold(input, threshold, value):  # noqa: A002
    """:func:`gradtrack.nn.functional.threshold`.

    >>> import gradtrack
    >>> gradtrack.threshold(gradtrack.tensor([0.5, 2.0]), 1.0, -1.0)
    tensor([-1.,  2.])
    """
    return F.threshold(input, threshold, value)


def threshold_(input, threshold, value):  # noqa: A002
    """:func:`threshold` written into ``input``.

    >>> import gradtrack
    >>> gradtrack.threshold_(gradtrack.tensor([0.5, 2.0]), 1.0, -1.0)
    tensor([-1.,  2.])
    """
    return F.threshold_(input, threshold, value)


def hardshrink(input, lambd=0.5):  # noqa: A002
    """:func:`gradtrack.nn.functional.hardshrink`.

    >>> import gradtrack
    >>> gradtrack.hardshrink(gradtrack.tensor([0.2, -1.0]))
    tensor([ 0., -1.])
    """
    return F.hardshrink(input, lambd)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):  # noqa: A002
    """:func:`gradtrack.nn.functional.rrelu`, with ATen's parameters (no ``generator``
    other than the default one: gradtrack's kernel draws from it).

    >>> import gradtrack
    >>> gradtrack.rrelu(gradtrack.tensor([-1.0, 0.5]), 0.1, 0.3)
    tensor([-0.2000,  0.5000])
    """
    _check_default_generator(generator, "rrelu")
    return F.rrelu(input, lower, upper, training)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):  # noqa: A002
    """:func:`rrelu` written into ``input``.

    >>> import gradtrack
    >>> gradtrack.rrelu_(gradtrack.tensor([-1.0, 0.5]), 0.1, 0.3)
    tensor([-0.2000,  0.5000])
    """
    _check_default_generator(generator, "rrelu_")
    return F.rrelu_(input, lower, upper, training)


def _check_default_generator(generator, name):
    if generator is not None:
        raise NotImplementedError(f"gradtrack: {name}(generator=...) is not implemented; "
                                  "seed the default generator instead")


def conv_tbc(input, weight, bias, pad=0):  # noqa: A002
    """:func:`gradtrack.nn.functional.conv_tbc`: a 1-D convolution over (time, batch,
    channels).

    >>> import gradtrack
    >>> gradtrack.conv_tbc(gradtrack.ones(3, 1, 2), gradtrack.ones(2, 2, 1),
    ...                    gradtrack.zeros(1)).flatten()
    tensor([4., 4.])
    """
    return F.conv_tbc(input, weight, bias, pad)


def constant_pad_nd(input, pad, value=0):  # noqa: A002
    """``input`` padded with ``value`` (:func:`gradtrack.nn.functional.pad`, constant mode).

    >>> import gradtrack
    >>> gradtrack.constant_pad_nd(gradtrack.ones(2), [1, 1], 3.0)
    tensor([3., 1., 1., 3.])
    """
    return F.pad(input, pad, "constant", value)


def prelu(input, weight):  # noqa: A002
    """:func:`gradtrack.nn.functional.prelu`.

    >>> import gradtrack
    >>> gradtrack.prelu(gradtrack.tensor([-2.0, 1.0]), gradtrack.tensor([0.25]))
    tensor([-0.5000,  1.0000])
    """
    return F.prelu(input, weight)


# ---- rearrangements, distances, products ---------------------------------------------------


def pixel_shuffle(input, upscale_factor):  # noqa: A002
    """:func:`gradtrack.nn.functional.pixel_shuffle`.

    >>> import gradtrack
    >>> gradtrack.pixel_shuffle(gradtrack.ones(1, 4, 1, 1), 2).shape
    gradtrack.Size([1, 1, 2, 2])
    """
    return F.pixel_shuffle(input, upscale_factor)


def pixel_unshuffle(input, downscale_factor):  # noqa: A002
    """:func:`gradtrack.nn.functional.pixel_unshuffle`.

    >>> import gradtrack
    >>> gradtrack.pixel_unshuffle(gradtrack.ones(1, 1, 2, 2), 2).shape
    gradtrack.Size([1, 4, 1, 1])
    """
    return F.pixel_unshuffle(input, downscale_factor)


def channel_shuffle(input, groups):  # noqa: A002
    """:func:`gradtrack.nn.functional.channel_shuffle`.

    >>> import gradtrack
    >>> gradtrack.channel_shuffle(gradtrack.arange(4.0).reshape(1, 4, 1), 2).flatten()
    tensor([0., 2., 1., 3.])
    """
    return F.channel_shuffle(input, groups)


def native_channel_shuffle(input, groups):  # noqa: A002
    """:func:`gradtrack.nn.functional.native_channel_shuffle`.

    >>> import gradtrack
    >>> gradtrack.native_channel_shuffle(gradtrack.arange(4.0).reshape(1, 4, 1), 2).flatten()
    tensor([0., 2., 1., 3.])
    """
    return F.native_channel_shuffle(input, groups)


def pdist(input, p=2):  # noqa: A002
    """:func:`gradtrack.nn.functional.pdist`.

    >>> import gradtrack
    >>> gradtrack.pdist(gradtrack.tensor([[0.0, 0.0], [3.0, 4.0]]))
    tensor([5.])
    """
    return F.pdist(input, p)


def pairwise_distance(x1, x2, p=2, eps=1e-06, keepdim=False):
    """:func:`gradtrack.nn.functional.pairwise_distance`.

    >>> import gradtrack
    >>> gradtrack.pairwise_distance(gradtrack.tensor([[0.0, 0.0]]), gradtrack.tensor([[3.0, 4.0]]))
    tensor([5.0000])
    """
    return F.pairwise_distance(x1, x2, p, eps, keepdim)


def bilinear(input1, input2, weight, bias=None):
    """:func:`gradtrack.nn.functional.bilinear`.

    >>> import gradtrack
    >>> gradtrack.bilinear(gradtrack.ones(1, 2), gradtrack.ones(1, 2), gradtrack.ones(1, 2, 2))
    tensor([[4.]])
    """
    return F.bilinear(input1, input2, weight, bias)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """:func:`gradtrack.nn.functional.embedding` with ATen's order: the table first, and
    ``padding_idx=-1`` for none.

    >>> import gradtrack
    >>> gradtrack.embedding(gradtrack.tensor([[1.0], [2.0]]), gradtrack.tensor([1, 0]))
    tensor([[2.],
            [1.]])
    """
    return F.embedding(indices, weight, None if padding_idx < 0 else padding_idx,
                       scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


_BAG_MODES = ("sum", "mean", "max")


def _bag_output(weight, indices, offsets, scale_grad_by_freq, mode, sparse, include_last_offset,
                padding_idx, per_sample_weights=None):
    # nn.functional's, which records torch's EmbeddingBagBackward0
    return F.embedding_bag(indices, weight, offsets, None, 2, scale_grad_by_freq, _BAG_MODES[mode],
                           sparse, per_sample_weights, include_last_offset, padding_idx)


def _bag_extras(indices, offsets, mode, padding_idx, bags, dim, dtype):
    """torch's three other outputs, from the offsets without the last one (when
    ``include_last_offset``) and the input's end: each element's bag, the bags' sizes
    (padding left out), and the row that gave each maximum (``mode`` 2; the sizes again for
    ``mode`` 1, zeros for ``mode`` 0)."""
    values = [int(v) for v in indices.tolist()]
    starts = [int(v) for v in offsets.tolist()][:bags]
    owner = [0] * len(values)
    for b, start in enumerate(starts):
        for i in range(start, len(values)):
            owner[i] = b
    keep = [padding_idx is None or v != padding_idx for v in values]
    long = _C.int64
    if mode == 0:
        # torch's fast path for sums (float32 and the 16-bit floats, no padding) leaves
        # offset2bag empty: nothing reads it there
        fast = dtype in (_C.float32, _C.float16, _C.bfloat16) and padding_idx is None
        offset2bag = _C.zeros(0, dtype=long) if fast else _C.tensor(owner, dtype=long)
        zeros = _C.zeros(bags, dtype=long)
        return offset2bag, zeros, zeros.clone()
    size = [0] * bags
    best = [None] * bags
    for i, (b, k) in enumerate(zip(owner, keep)):
        if k:
            size[b] += 1
            best[b] = (best[b] or []) + [values[i]]
    offset2bag, bag_size = _C.tensor(owner, dtype=long), _C.tensor(size, dtype=long)
    if mode == 1:
        return offset2bag, bag_size, bag_size.clone()
    return offset2bag, bag_size, (best, bags, dim)


def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """:func:`gradtrack.nn.functional.embedding_bag` with ATen's order and its four outputs:
    ``(output, offset2bag, bag_size, max_indices)``; ``mode`` is 0 (sum), 1 (mean) or 2
    (max), ``indices`` 1-D with its ``offsets``.

    >>> import gradtrack
    >>> w = gradtrack.tensor([[1.0], [2.0], [4.0]])
    >>> gradtrack.embedding_bag(w, gradtrack.tensor([0, 1, 2]), gradtrack.tensor([0, 2]))[0]
    tensor([[3.],
            [4.]])
    """
    if not isinstance(offsets, _C.Tensor):
        raise TypeError(f"embedding_bag(): argument 'offsets' (position 3) must be Tensor, not "
                        f"{type(offsets).__name__}")
    mode = int(mode)
    rest = (indices, offsets, scale_grad_by_freq, mode, sparse, include_last_offset, padding_idx)
    output = _bag_output(weight, *rest, per_sample_weights=per_sample_weights)
    bags = output.shape[0]
    extras = _bag_extras(indices, offsets, mode, padding_idx, bags,
                         weight.shape[1], weight.dtype)
    if mode == 2:
        extras = extras[:2] + (_bag_argmax(weight, *extras[2]),)
    return (output,) + extras


def _bag_argmax(weight, members, bags, dim):
    """Per bag and column, the row of ``weight`` holding the bag's first greatest value (0
    for an empty bag), as torch's max_indices."""
    rows = []
    table = weight.detach()
    for b in range(bags):
        if not members[b]:
            rows.append([0] * dim)
            continue
        picked = table.index_select(0, _C.tensor(members[b], dtype=_C.int64))
        first = picked.argmax(0).tolist()  # the first greatest, as torch's
        rows.append([members[b][k] for k in first])
    return _C.tensor(rows, dtype=_C.int64).reshape(bags, dim)


# ---- pools ---------------------------------------------------------------------------------
# ATen's pools take ``stride=[]`` for "the kernel size", nn.functional's ``stride=None``.


def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1,  # noqa: A002
               ceil_mode=False):
    """:func:`gradtrack.nn.functional.max_pool1d`.

    >>> import gradtrack
    >>> gradtrack.max_pool1d(gradtrack.tensor([[1.0, 3.0, 2.0, 0.0]]), 2)
    tensor([[3., 2.]])
    """
    return F.max_pool1d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1,  # noqa: A002
               ceil_mode=False):
    """:func:`gradtrack.nn.functional.max_pool2d`.

    >>> import gradtrack
    >>> gradtrack.max_pool2d(gradtrack.arange(4.0).reshape(1, 2, 2), 2)
    tensor([[[3.]]])
    """
    return F.max_pool2d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1,  # noqa: A002
               ceil_mode=False):
    """:func:`gradtrack.nn.functional.max_pool3d`.

    >>> import gradtrack
    >>> gradtrack.max_pool3d(gradtrack.arange(8.0).reshape(1, 2, 2, 2), 2)
    tensor([[[[7.]]]])
    """
    return F.max_pool3d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1,  # noqa: A002
                            ceil_mode=False):
    """:func:`max_pool1d` and the position of each maximum (a tuple).

    >>> import gradtrack
    >>> gradtrack.max_pool1d_with_indices(gradtrack.tensor([[1.0, 3.0, 2.0, 0.0]]), 2)[1]
    tensor([[1, 2]])
    """
    return F.max_pool1d(input, kernel_size, stride or None, padding, dilation, ceil_mode,
                        return_indices=True)


def avg_pool1d(input, kernel_size, stride=(), padding=0, ceil_mode=False,  # noqa: A002
               count_include_pad=True):
    """:func:`gradtrack.nn.functional.avg_pool1d`.

    >>> import gradtrack
    >>> gradtrack.avg_pool1d(gradtrack.tensor([[1.0, 3.0, 2.0, 0.0]]), 2)
    tensor([[2., 1.]])
    """
    return F.avg_pool1d(input, kernel_size, stride or None, padding, ceil_mode,
                        count_include_pad)


def adaptive_avg_pool1d(input, output_size):  # noqa: A002
    """:func:`gradtrack.nn.functional.adaptive_avg_pool1d`.

    >>> import gradtrack
    >>> gradtrack.adaptive_avg_pool1d(gradtrack.tensor([[1.0, 3.0, 2.0, 0.0]]), 2)
    tensor([[2., 1.]])
    """
    return F.adaptive_avg_pool1d(input, output_size)


def adaptive_max_pool1d(input, output_size):  # noqa: A002
    """:func:`gradtrack.nn.functional.adaptive_max_pool1d` and the position of each maximum
    (a tuple, as ATen's).

    >>> import gradtrack
    >>> gradtrack.adaptive_max_pool1d(gradtrack.tensor([[1.0, 3.0, 2.0, 0.0]]), 2)[0]
    tensor([[3., 2.]])
    """
    return F.adaptive_max_pool1d(input, output_size, return_indices=True)


FUNCTIONS = (conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d, conv_transpose3d,
             batch_norm, instance_norm, layer_norm, group_norm, rms_norm, dropout, dropout_,
             alpha_dropout, alpha_dropout_, feature_dropout, feature_dropout_,
             feature_alpha_dropout, feature_alpha_dropout_, selu,
             selu_, celu, celu_, threshold, threshold_, hardshrink, prelu, rrelu, rrelu_,
             conv_tbc, constant_pad_nd, pixel_shuffle,
             pixel_unshuffle, channel_shuffle, native_channel_shuffle, pdist, pairwise_distance, bilinear, embedding,
             embedding_bag,
             max_pool1d, max_pool2d, max_pool3d, max_pool1d_with_indices, avg_pool1d,
             adaptive_avg_pool1d, adaptive_max_pool1d)
# torch's Tensor has these two as methods too (its other activations are functions only).
METHODS = methods(hardshrink, prelu)
