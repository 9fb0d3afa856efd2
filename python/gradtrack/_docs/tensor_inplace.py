"""Docstrings of the Tensor's generated in-place methods (``exp_``, ``add_``...)."""

DOCS = {
    "abs_": """In-place ``abs``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([-1.5, 0.0, 2.0])
    >>> x.abs_()
    tensor([1.5000, 0.0000, 2.0000])
    >>> x._version
    1
    """,
    "acos_": """In-place ``acos``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([-1.0, 0.0, 0.5])
    >>> x.acos_()
    tensor([3.1416, 1.5708, 1.0472])
    >>> x._version
    1
    """,
    "asin_": """In-place ``asin``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([-1.0, 0.0, 0.5])
    >>> x.asin_()
    tensor([-1.5708,  0.0000,  0.5236])
    >>> x._version
    1
    """,
    "atan_": """In-place ``atan``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([-1.0, 0.0, 0.5])
    >>> x.atan_()
    tensor([-0.7854,  0.0000,  0.4636])
    >>> x._version
    1
    """,
    "ceil_": """In-place ``ceil``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([-1.5, 0.2, 2.0])
    >>> x.ceil_()
    tensor([-1.,  1.,  2.])
    >>> x._version
    1
    """,
    "cos_": """In-place ``cos``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([0.0, 1.0, 3.1416])
    >>> x.cos_()
    tensor([ 1.0000,  0.5403, -1.0000])
    >>> x._version
    1
    """,
    "cosh_": """In-place ``cosh``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([-1.0, 0.0, 2.0])
    >>> x.cosh_()
    tensor([1.5431, 1.0000, 3.7622])
    >>> x._version
    1
    """,
    "erf_": """In-place ``erf``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([-1.0, 0.0, 0.5])
    >>> x.erf_()
    tensor([-0.8427,  0.0000,  0.5205])
    >>> x._version
    1
    """,
    "exp_": """In-place ``exp``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([0.0, 1.0, 2.0])
    >>> x.exp_()
    tensor([1.0000, 2.7183, 7.3891])
    >>> x._version
    1
    """,
    "exp2_": """In-place ``exp2``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([0.0, 1.0, 3.0])
    >>> x.exp2_()
    tensor([1., 2., 8.])
    >>> x._version
    1
    """,
    "expm1_": """In-place ``expm1``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([0.0, 1e-05, 1.0])
    >>> x.expm1_()
    tensor([0.0000e+00, 1.0000e-05, 1.7183e+00])
    >>> x._version
    1
    """,
    "floor_": """In-place ``floor``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([-1.5, 0.2, 2.0])
    >>> x.floor_()
    tensor([-2.,  0.,  2.])
    >>> x._version
    1
    """,
    "frac_": """In-place ``frac``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([-1.5, 0.25, 2.0])
    >>> x.frac_()
    tensor([-0.5000,  0.2500,  0.0000])
    >>> x._version
    1
    """,
    "log_": """In-place ``log``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([1.0, 2.0, 10.0])
    >>> x.log_()
    tensor([0.0000, 0.6931, 2.3026])
    >>> x._version
    1
    """,
    "log10_": """In-place ``log10``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([1.0, 100.0, 0.1])
    >>> x.log10_()
    tensor([ 0.,  2., -1.])
    >>> x._version
    1
    """,
    "log1p_": """In-place ``log1p``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([0.0, 1e-05, 1.0])
    >>> x.log1p_()
    tensor([0.0000e+00, 9.9999e-06, 6.9315e-01])
    >>> x._version
    1
    """,
    "log2_": """In-place ``log2``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([1.0, 8.0, 0.5])
    >>> x.log2_()
    tensor([ 0.,  3., -1.])
    >>> x._version
    1
    """,
    "neg_": """In-place ``neg``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([-1.5, 0.0, 2.0])
    >>> x.neg_()
    tensor([ 1.5000, -0.0000, -2.0000])
    >>> x._version
    1
    """,
    "reciprocal_": """In-place ``reciprocal``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([1.0, 2.0, 4.0])
    >>> x.reciprocal_()
    tensor([1.0000, 0.5000, 0.2500])
    >>> x._version
    1
    """,
    "relu_": """In-place ``relu``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([-1.5, 0.0, 2.0])
    >>> x.relu_()
    tensor([0., 0., 2.])
    >>> x._version
    1
    """,
    "round_": """In-place ``round``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([0.5, 1.5, -2.7])
    >>> x.round_()
    tensor([ 0.,  2., -3.])
    >>> x._version
    1
    """,
    "rsqrt_": """In-place ``rsqrt``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([1.0, 4.0, 16.0])
    >>> x.rsqrt_()
    tensor([1.0000, 0.5000, 0.2500])
    >>> x._version
    1
    """,
    "sgn_": """In-place ``sgn``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([-1.5, 0.0, 2.0])
    >>> x.sgn_()
    tensor([-1.,  0.,  1.])
    >>> x._version
    1
    """,
    "sigmoid_": """In-place ``sigmoid``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([-1.0, 0.0, 2.0])
    >>> x.sigmoid_()
    tensor([0.2689, 0.5000, 0.8808])
    >>> x._version
    1
    """,
    "sign_": """In-place ``sign``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([-1.5, 0.0, 2.0])
    >>> x.sign_()
    tensor([-1.,  0.,  1.])
    >>> x._version
    1
    """,
    "sin_": """In-place ``sin``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([0.0, 1.0, 3.1416])
    >>> x.sin_()
    tensor([ 0.0000e+00,  8.4147e-01, -7.2400e-06])
    >>> x._version
    1
    """,
    "sinh_": """In-place ``sinh``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([-1.0, 0.0, 2.0])
    >>> x.sinh_()
    tensor([-1.1752,  0.0000,  3.6269])
    >>> x._version
    1
    """,
    "sqrt_": """In-place ``sqrt``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([0.0, 4.0, 2.0])
    >>> x.sqrt_()
    tensor([0.0000, 2.0000, 1.4142])
    >>> x._version
    1
    """,
    "square_": """In-place ``square``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([-1.5, 0.0, 2.0])
    >>> x.square_()
    tensor([2.2500, 0.0000, 4.0000])
    >>> x._version
    1
    """,
    "tan_": """In-place ``tan``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([0.0, 1.0, -0.5])
    >>> x.tan_()
    tensor([ 0.0000,  1.5574, -0.5463])
    >>> x._version
    1
    """,
    "tanh_": """In-place ``tanh``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([-1.0, 0.0, 2.0])
    >>> x.tanh_()
    tensor([-0.7616,  0.0000,  0.9640])
    >>> x._version
    1
    """,
    "trunc_": """In-place ``trunc``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([-1.5, 0.2, 2.7])
    >>> x.trunc_()
    tensor([-1.,  0.,  2.])
    >>> x._version
    1
    """,
    "add_": """In-place ``add``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([1.0, 2.0, 3.0])
    >>> x.add_(gradtrack.tensor([10.0, 20.0, 30.0]), alpha=2)
    tensor([21., 42., 63.])
    >>> x._version
    1
    """,
    "sub_": """In-place ``sub``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([1.0, 2.0, 3.0])
    >>> x.sub_(gradtrack.tensor([0.5, 0.5, 0.5]))
    tensor([0.5000, 1.5000, 2.5000])
    >>> x._version
    1
    """,
    "mul_": """In-place ``mul``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([1.0, 2.0, 3.0])
    >>> x.mul_(gradtrack.tensor([2.0, 0.5, -1.0]))
    tensor([ 2.,  1., -3.])
    >>> x._version
    1
    """,
    "div_": """In-place ``div``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([7.0, -7.0, 3.0])
    >>> x.div_(2.0, rounding_mode='floor')
    tensor([ 3., -4.,  1.])
    >>> x._version
    1
    """,
    "atan2_": """In-place ``atan2``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([1.0, -1.0, 0.0])
    >>> x.atan2_(gradtrack.tensor([1.0, 1.0, -1.0]))
    tensor([ 0.7854, -0.7854,  3.1416])
    >>> x._version
    1
    """,
    "hypot_": """In-place ``hypot``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([3.0, 5.0, 1.0])
    >>> x.hypot_(gradtrack.tensor([4.0, 12.0, 1.0]))
    tensor([ 5.0000, 13.0000,  1.4142])
    >>> x._version
    1
    """,
    "fmod_": """In-place ``fmod``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([-3.0, 3.0, 5.5])
    >>> x.fmod_(2.0)
    tensor([-1.0000,  1.0000,  1.5000])
    >>> x._version
    1
    """,
    "remainder_": """In-place ``remainder``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([-3.0, 3.0, 5.5])
    >>> x.remainder_(2.0)
    tensor([1.0000, 1.0000, 1.5000])
    >>> x._version
    1
    """,
    "floor_divide_": """In-place ``floor_divide``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([7.0, -7.0, 3.0])
    >>> x.floor_divide_(2.0)
    tensor([ 3., -4.,  1.])
    >>> x._version
    1
    """,
    "pow_": """In-place ``pow``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([1.0, 2.0, 3.0])
    >>> x.pow_(2)
    tensor([1., 4., 9.])
    >>> x._version
    1
    """,
    "bitwise_and_": """In-place ``bitwise_and``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([12, 10, 7])
    >>> x.bitwise_and_(gradtrack.tensor([10, 6, 1]))
    tensor([8, 2, 1])
    >>> x._version
    1
    """,
    "bitwise_or_": """In-place ``bitwise_or``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([12, 10, 7])
    >>> x.bitwise_or_(gradtrack.tensor([10, 6, 1]))
    tensor([14, 14,  7])
    >>> x._version
    1
    """,
    "bitwise_xor_": """In-place ``bitwise_xor``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([12, 10, 7])
    >>> x.bitwise_xor_(gradtrack.tensor([10, 6, 1]))
    tensor([ 6, 12,  6])
    >>> x._version
    1
    """,
    "true_divide_": """In-place ``true_divide``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([1.0, 2.0, 3.0])
    >>> x.true_divide_(2)
    tensor([0.5000, 1.0000, 1.5000])
    >>> x._version
    1
    """,
    "clamp_min_": """In-place ``clamp_min``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([-1.0, 0.5, 2.0])
    >>> x.clamp_min_(0.0)
    tensor([0.0000, 0.5000, 2.0000])
    >>> x._version
    1
    """,
    "clamp_max_": """In-place ``clamp_max``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([-1.0, 0.5, 2.0])
    >>> x.clamp_max_(1.0)
    tensor([-1.0000,  0.5000,  1.0000])
    >>> x._version
    1
    """,
    "clamp_": """In-place ``clamp``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([-1.0, 0.5, 2.0])
    >>> x.clamp_(min=0.0, max=1.0)
    tensor([0.0000, 0.5000, 1.0000])
    >>> x._version
    1
    """,
    "squeeze_": """In-place ``squeeze``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([[[1.0], [2.0]]])
    >>> x.squeeze_()
    tensor([1., 2.])
    >>> x._version
    1
    """,
    "unsqueeze_": """In-place ``unsqueeze``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([1.0, 2.0])
    >>> x.unsqueeze_(1)
    tensor([[1.],
            [2.]])
    >>> x._version
    1
    """,
    "t_": """In-place ``t``: writes the result into ``self`` and returns it.

    >>> x = gradtrack.tensor([[1, 2, 3], [4, 5, 6]])
    >>> x.t_()
    tensor([[1, 4],
            [2, 5],
            [3, 6]])
    >>> x._version
    1
    """,
    "absolute_": """In-place ``absolute`` (alias of ``abs_``); returns ``self``.

    >>> x = gradtrack.tensor([-1.5, 0.0, 2.0])
    >>> x.absolute_()
    tensor([1.5000, 0.0000, 2.0000])
    """,
    "divide_": """In-place ``divide`` (alias of ``div_``); returns ``self``.

    >>> x = gradtrack.tensor([7.0, -7.0, 3.0])
    >>> x.divide_(2.0, rounding_mode='floor')
    tensor([ 3., -4.,  1.])
    """,
    "multiply_": """In-place ``multiply`` (alias of ``mul_``); returns ``self``.

    >>> x = gradtrack.tensor([1.0, 2.0, 3.0])
    >>> x.multiply_(gradtrack.tensor([2.0, 0.5, -1.0]))
    tensor([ 2.,  1., -3.])
    """,
    "negative_": """In-place ``negative`` (alias of ``neg_``); returns ``self``.

    >>> x = gradtrack.tensor([-1.5, 0.0, 2.0])
    >>> x.negative_()
    tensor([ 1.5000, -0.0000, -2.0000])
    """,
    "subtract_": """In-place ``subtract`` (alias of ``sub_``); returns ``self``.

    >>> x = gradtrack.tensor([1.0, 2.0, 3.0])
    >>> x.subtract_(gradtrack.tensor([0.5, 0.5, 0.5]))
    tensor([0.5000, 1.5000, 2.5000])
    """,
    "clip_": """In-place ``clip`` (alias of ``clamp_``); returns ``self``.

    >>> x = gradtrack.tensor([-1.0, 0.5, 2.0])
    >>> x.clip_(min=0.0, max=1.0)
    tensor([0.0000, 0.5000, 1.0000])
    """,
}
