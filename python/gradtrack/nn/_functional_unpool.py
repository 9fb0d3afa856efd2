"""``F.max_unpool1d/2d/3d``: each pooled value written back at the position its max pool
recorded, zeros elsewhere.

The work is one ``scatter`` per call over the flattened planes, recorded as one node with
torch's name (``MaxUnpool2DBackward0`` / ``MaxUnpool3DBackward0``, NOTE [Named composite
nodes]); its gradient is the matching ``gather``. ``max_unpool1d`` is the 2-D op on a
trailing dim of 1, as torch's (``SqueezeBackward1`` on top).

>>> import gradtrack
>>> import gradtrack.nn.functional as F
>>> x = gradtrack.tensor([[[[1.0, 3.0], [4.0, 2.0]]]])
>>> y, i = F.max_pool2d(x, 2, return_indices=True)
>>> F.max_unpool2d(y, i, 2)
tensor([[[[0., 0.],
          [4., 0.]]]])
"""

from .. import _C
from .._autocast import runs_in_float32
from ..autograd._named_nodes import composite_node

__all__ = ["max_unpool1d", "max_unpool2d", "max_unpool3d"]


def _tuple(value, n):
    if isinstance(value, int):
        return (value,) * n
    value = tuple(value)
    return value * n if len(value) == 1 else value


def _output_size(input, kernel, stride, padding, output_size):  # noqa: A002
    """torch's _unpool_output_size: the pool's input size, or a checked ``output_size``."""
    k = len(kernel)
    default = [(input.shape[-k + d] - 1) * stride[d] + kernel[d] - 2 * padding[d]
               for d in range(k)]
    if output_size is None:
        return default
    if len(output_size) == k + 2:
        output_size = output_size[2:]
    if len(output_size) != k:
        raise ValueError(f"output_size should be a sequence containing {k} or {k + 2} elements, "
                         f"but it has a length of '{len(output_size)}'")
    for d in range(k):
        low, high = default[d] - stride[d], default[d] + stride[d]
        if not low < output_size[d] < high:
            raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between '
                             f"{low} and {high})")
    return list(output_size)


def _unpool(input, indices, size):  # noqa: A002
    k = len(size)
    planes = list(input.shape[:-k])
    volume = 1
    for s in size:
        volume *= s
    flat = input.reshape(_numel(planes), _numel(input.shape[-k:]))
    out = _C.zeros(flat.shape[0], volume, dtype=input.dtype)
    out = out.scatter(1, indices.reshape(flat.shape), flat)
    return out.reshape(*planes, *size)


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


_unpool2d = composite_node("MaxUnpool2DBackward0", _unpool, linear=True)
_unpool3d = composite_node("MaxUnpool3DBackward0", _unpool, linear=True)


def _check(input, indices, size, dims):  # noqa: A002
    name = "max_unpooling2d" if dims == 2 else "max_unpooling3d"
    if indices.dtype != _C.int64:
        scalar = {"int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
                  "float32": "Float", "float64": "Double", "bool": "Bool"}
        key = repr(indices.dtype).split(".", 1)[1]
        raise RuntimeError(f"elements in indices should be type int64 but got: "
                           f"{scalar.get(key, key)}")
    if input.dim() not in (dims + 1, dims + 2):
        raise RuntimeError(f"Input to {name} should be a {dims + 1}d or {dims + 2}d Tensor, but "
                           f"got a tensor with {input.dim()} dimensions.")
    if list(input.shape) != list(indices.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({list(input.shape)}) but got indices tensor with shape: "
                           f"{list(indices.shape)}")
    volume = _numel(size)
    if indices.numel():
        bad = (indices < 0).logical_or(indices >= volume).reshape(-1)
        if bool(bad.any()):
            first = int(indices.reshape(-1)[bad.nonzero()[0, 0]])
            sizes = "x".join(str(s) for s in size)
            raise RuntimeError(f"Found an invalid max index: {first} (output volumes are of size "
                               f"{sizes})")


@runs_in_float32
def max_unpool2d(input, indices, kernel_size, stride=None, padding=0,  # noqa: A002
                 output_size=None):
    """The inverse of :func:`max_pool2d`: the values at their ``indices``, zeros elsewhere.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.max_unpool2d(gradtrack.tensor([[[[5.0]]]]), gradtrack.tensor([[[[3]]]]), 2)
    tensor([[[[0., 0.],
              [0., 5.]]]])
    """
    kernel = _tuple(kernel_size, 2)
    stride = kernel if stride is None else _tuple(stride, 2)
    size = _output_size(input, kernel, stride, _tuple(padding, 2), output_size)
    _check(input, indices, size, 2)
    return _unpool2d(input, indices, size)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0,  # noqa: A002
                 output_size=None):
    """The inverse of :func:`max_pool1d`.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.max_unpool1d(gradtrack.tensor([[[5.0, 6.0]]]), gradtrack.tensor([[[1, 2]]]), 2)
    tensor([[[0., 5., 6., 0.]]])
    """
    kernel = _tuple(kernel_size, 1)
    stride = kernel if stride is None else _tuple(stride, 1)
    size = _output_size(input, kernel, stride, _tuple(padding, 1), output_size) + [1]
    x, i = input.unsqueeze(-1), indices.unsqueeze(-1)
    _check(x, i, size, 2)
    return _unpool2d(x, i, size).squeeze(-1)


@runs_in_float32
def max_unpool3d(input, indices, kernel_size, stride=None, padding=0,  # noqa: A002
                 output_size=None):
    """The inverse of :func:`max_pool3d`.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> F.max_unpool3d(gradtrack.tensor([[[[[5.0]]]]]), gradtrack.tensor([[[[[7]]]]]), 2).sum()
    tensor(5.)
    """
    kernel = _tuple(kernel_size, 3)
    stride = kernel if stride is None else _tuple(stride, 3)
    size = _output_size(input, kernel, stride, _tuple(padding, 3), output_size)
    _check(input, indices, size, 3)
    return _unpool3d(input, indices, size)
