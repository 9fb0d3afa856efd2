"""The gradients of a convolution with respect to its input and its weight, given
the gradient of its output (``torch.nn.grad``).

Each is one call of the convolution's backward, the one autograd runs: so the
result is what ``backward()`` would accumulate, and it is differentiable again
(its ``grad_fn`` is ``ConvolutionBackwardBackward0`` when ``grad_output`` or the
other operand requires grad).

>>> import gradtrack
>>> import gradtrack.nn.functional as F
>>> x = gradtrack.ones(1, 1, 4, 4, requires_grad=True)
>>> w = gradtrack.ones(1, 1, 3, 3)
>>> F.conv2d(x, w).sum().backward()
>>> g = gradtrack.ones(1, 1, 2, 2)
>>> bool((gradtrack.nn.grad.conv2d_input(x.shape, w, g) == x.grad).all())
True
>>> gradtrack.nn.grad.conv2d_weight(x.detach(), w.shape, g)
tensor([[[[4., 4., 4.],
          [4., 4., 4.],
          [4., 4., 4.]]]])
"""

from .. import _C
from ._conv_functional import _ints

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight", "conv3d_input",
           "conv3d_weight"]


def _backward(ndim, grad_output, input, weight, stride, padding, dilation, groups,  # noqa: A002
              which):
    need = (which == 0, which == 1, False)
    return _C._conv.convolution_backward(
        grad_output, input, weight, _ints(stride, ndim), _ints(padding, ndim),
        _ints(dilation, ndim), int(groups), need)[which]


def _stand_in(grad_output, size):
    # The operand whose gradient is asked for: the backward reads only its size
    # (and dtype), so one zero expanded to it.
    return grad_output.new_zeros(1).expand(size)


def conv1d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of :func:`~gradtrack.nn.functional.conv1d` with respect to an input
    of shape ``input_size`` (minibatch x in_channels x iW)."""
    return _backward(1, grad_output, _stand_in(grad_output, input_size), weight, stride,
                     padding, dilation, groups, 0)


def conv1d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1,  # noqa: A002
                  groups=1):
    """The gradient of :func:`~gradtrack.nn.functional.conv1d` with respect to a weight
    of shape ``weight_size`` (out_channels x in_channels/groups x kW)."""
    return _backward(1, grad_output, input, _stand_in(grad_output, weight_size), stride,
                     padding, dilation, groups, 1)


def conv2d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of :func:`~gradtrack.nn.functional.conv2d` with respect to an input
    of shape ``input_size`` (minibatch x in_channels x iH x iW)."""
    return _backward(2, grad_output, _stand_in(grad_output, input_size), weight, stride,
                     padding, dilation, groups, 0)


def conv2d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1,  # noqa: A002
                  groups=1):
    """The gradient of :func:`~gradtrack.nn.functional.conv2d` with respect to a weight
    of shape ``weight_size`` (out_channels x in_channels/groups x kH x kW)."""
    return _backward(2, grad_output, input, _stand_in(grad_output, weight_size), stride,
                     padding, dilation, groups, 1)


def conv3d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of :func:`~gradtrack.nn.functional.conv3d` with respect to an input
    of shape ``input_size`` (minibatch x in_channels x iT x iH x iW)."""
    return _backward(3, grad_output, _stand_in(grad_output, input_size), weight, stride,
                     padding, dilation, groups, 0)


def conv3d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1,  # noqa: A002
                  groups=1):
    """The gradient of :func:`~gradtrack.nn.functional.conv3d` with respect to a weight
    of shape ``weight_size`` (out_channels x in_channels/groups x kT x kH x kW)."""
    return _backward(3, grad_output, input, _stand_in(grad_output, weight_size), stride,
                     padding, dilation, groups, 1)
