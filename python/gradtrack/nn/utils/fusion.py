"""Folding an eval-mode batch norm into the convolution or linear layer before it:
one layer whose output is what the pair gave (``torch.nn.utils.fusion``).

With the batch norm's running statistics, scale ``s = weight / sqrt(var + eps)``:
the layer's weight is multiplied by ``s`` per output channel and its bias becomes
``(bias - mean) * s + bn_bias``.

>>> import gradtrack
>>> from gradtrack import nn
>>> conv, bn = nn.Conv2d(2, 3, 3).eval(), nn.BatchNorm2d(3).eval()
>>> fused = nn.utils.fuse_conv_bn_eval(conv, bn)
>>> x = gradtrack.randn(1, 2, 5, 5)
>>> bool(gradtrack.allclose(fused(x), bn(conv(x)), atol=1e-6))
True
"""

import copy

from ..parameter import Parameter

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
           "fuse_linear_bn_weights"]


def _check_eval(layer, bn):
    if layer.training or bn.training:
        raise AssertionError("Fusion only for eval!")


def _check_statistics(bn):
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")


def fuse_conv_bn_eval(conv, bn, transpose=False):
    """A copy of ``conv`` (eval mode) with ``bn`` (eval mode, with running statistics)
    folded into its weight and bias; ``transpose`` for a transposed convolution, whose
    output channels are the weight's second dim."""
    _check_eval(conv, bn)
    fused = copy.deepcopy(conv)
    _check_statistics(bn)
    fused.weight, fused.bias = fuse_conv_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias,
        transpose)
    return fused


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False):
    """The folded convolution's ``(weight, bias)`` as Parameters, in the conv's dtypes;
    a missing conv bias counts as zeros, a missing batch norm weight as ones and its
    bias as zeros. Each Parameter requires grad as the conv's tensor did."""
    from ... import ones_like, zeros_like

    w_dtype = conv_w.dtype
    b_dtype = conv_b.dtype if conv_b is not None else w_dtype
    conv_b = zeros_like(bn_rm) if conv_b is None else conv_b
    bn_w = ones_like(bn_rm) if bn_w is None else bn_w
    bn_b = zeros_like(bn_rm) if bn_b is None else bn_b
    rsqrt = (bn_rv + bn_eps).rsqrt()
    channels = [1, -1] if transpose else [-1, 1]
    shape = channels + [1] * (conv_w.dim() - 2)
    weight = (conv_w * (bn_w * rsqrt).reshape(shape)).to(dtype=w_dtype)
    bias = ((conv_b - bn_rm) * rsqrt * bn_w + bn_b).to(dtype=b_dtype)
    return Parameter(weight, conv_w.requires_grad), Parameter(bias, conv_b.requires_grad)


def fuse_linear_bn_eval(linear, bn):
    """A copy of ``linear`` (eval mode) with ``bn`` (eval mode, with running statistics,
    as many features as the layer's outputs or one) folded into its weight and bias."""
    _check_eval(linear, bn)
    fused = copy.deepcopy(linear)
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError("To fuse, linear.out_features == bn.num_features or "
                             "bn.num_features == 1, got linear.out_features="
                             f"{linear.out_features} and bn.num_features={bn.num_features}")
    _check_statistics(bn)
    fused.weight, fused.bias = fuse_linear_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias)
    return fused


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    """The folded linear layer's ``(weight, bias)`` as Parameters, in the layer's dtypes
    (a missing bias counts as zeros). Each requires grad as the layer's tensor did."""
    from ... import zeros_like

    w_dtype = linear_w.dtype
    b_dtype = linear_b.dtype if linear_b is not None else w_dtype
    linear_b = zeros_like(bn_rm) if linear_b is None else linear_b
    scale = bn_w * (bn_rv + bn_eps).rsqrt()
    weight = linear_w * scale.unsqueeze(-1).to(dtype=w_dtype)
    bias = ((linear_b - bn_rm) * scale + bn_b).to(dtype=b_dtype)
    return Parameter(weight, linear_w.requires_grad), Parameter(bias, linear_b.requires_grad)
