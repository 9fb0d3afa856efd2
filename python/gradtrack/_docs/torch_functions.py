"""Docstrings of the elementwise ops, reductions and shape functions bound in C++."""

DOCS = {
    "abs": """The absolute value of each element.

    >>> x = gradtrack.tensor([-1.5, 0.0, 2.0])
    >>> gradtrack.abs(x)
    tensor([1.5000, 0.0000, 2.0000])
    """,
    "acos": """The arccosine (in radians) of each element.

    >>> x = gradtrack.tensor([-1.0, 0.0, 0.5])
    >>> gradtrack.acos(x)
    tensor([3.1416, 1.5708, 1.0472])
    """,
    "asin": """The arcsine (in radians) of each element.

    >>> x = gradtrack.tensor([-1.0, 0.0, 0.5])
    >>> gradtrack.asin(x)
    tensor([-1.5708,  0.0000,  0.5236])
    """,
    "atan": """The arctangent (in radians) of each element.

    >>> x = gradtrack.tensor([-1.0, 0.0, 0.5])
    >>> gradtrack.atan(x)
    tensor([-0.7854,  0.0000,  0.4636])
    """,
    "ceil": """The smallest integer not below each element (rounding up).

    >>> x = gradtrack.tensor([-1.5, 0.2, 2.0])
    >>> gradtrack.ceil(x)
    tensor([-1.,  1.,  2.])
    """,
    "cos": """The cosine of each element (in radians).

    >>> x = gradtrack.tensor([0.0, 1.0, 3.1416])
    >>> gradtrack.cos(x)
    tensor([ 1.0000,  0.5403, -1.0000])
    """,
    "cosh": """The hyperbolic cosine of each element.

    >>> x = gradtrack.tensor([-1.0, 0.0, 2.0])
    >>> gradtrack.cosh(x)
    tensor([1.5431, 1.0000, 3.7622])
    """,
    "erf": """The Gauss error function of each element.

    >>> x = gradtrack.tensor([-1.0, 0.0, 0.5])
    >>> gradtrack.erf(x)
    tensor([-0.8427,  0.0000,  0.5205])
    """,
    "exp": """e raised to each element.

    >>> x = gradtrack.tensor([0.0, 1.0, 2.0])
    >>> gradtrack.exp(x)
    tensor([1.0000, 2.7183, 7.3891])
    """,
    "exp2": """2 raised to each element.

    >>> x = gradtrack.tensor([0.0, 1.0, 3.0])
    >>> gradtrack.exp2(x)
    tensor([1., 2., 8.])
    """,
    "expm1": """``exp(x) - 1``, accurate for small ``x``.

    >>> x = gradtrack.tensor([0.0, 1e-05, 1.0])
    >>> gradtrack.expm1(x)
    tensor([0.0000e+00, 1.0000e-05, 1.7183e+00])
    """,
    "floor": """The largest integer not above each element (rounding down).

    >>> x = gradtrack.tensor([-1.5, 0.2, 2.0])
    >>> gradtrack.floor(x)
    tensor([-2.,  0.,  2.])
    """,
    "frac": """The fractional part of each element (keeps the sign).

    >>> x = gradtrack.tensor([-1.5, 0.25, 2.0])
    >>> gradtrack.frac(x)
    tensor([-0.5000,  0.2500,  0.0000])
    """,
    "isnan": """A bool tensor, True where an element is NaN.

    >>> x = gradtrack.tensor([1.0, float('nan'), 2.0])
    >>> gradtrack.isnan(x)
    tensor([False,  True, False])
    """,
    "log": """The natural logarithm of each element.

    >>> x = gradtrack.tensor([1.0, 2.0, 10.0])
    >>> gradtrack.log(x)
    tensor([0.0000, 0.6931, 2.3026])
    """,
    "log10": """The base-10 logarithm of each element.

    >>> x = gradtrack.tensor([1.0, 100.0, 0.1])
    >>> gradtrack.log10(x)
    tensor([ 0.,  2., -1.])
    """,
    "log1p": """``log(1 + x)``, accurate for small ``x``.

    >>> x = gradtrack.tensor([0.0, 1e-05, 1.0])
    >>> gradtrack.log1p(x)
    tensor([0.0000e+00, 9.9999e-06, 6.9315e-01])
    """,
    "log2": """The base-2 logarithm of each element.

    >>> x = gradtrack.tensor([1.0, 8.0, 0.5])
    >>> gradtrack.log2(x)
    tensor([ 0.,  3., -1.])
    """,
    "logical_not": """A bool tensor, True where an element is zero.

    >>> x = gradtrack.tensor([0.0, 1.0, -2.0])
    >>> gradtrack.logical_not(x)
    tensor([ True, False, False])
    """,
    "neg": """Each element with its sign flipped.

    >>> x = gradtrack.tensor([-1.5, 0.0, 2.0])
    >>> gradtrack.neg(x)
    tensor([ 1.5000, -0.0000, -2.0000])
    """,
    "reciprocal": """``1 / x`` for each element.

    >>> x = gradtrack.tensor([1.0, 2.0, 4.0])
    >>> gradtrack.reciprocal(x)
    tensor([1.0000, 0.5000, 0.2500])
    """,
    "relu": """Zero where an element is negative, the element otherwise.

    >>> x = gradtrack.tensor([-1.5, 0.0, 2.0])
    >>> gradtrack.relu(x)
    tensor([0., 0., 2.])
    """,
    "round": """Rounds each element to the nearest integer (halves to even).

    >>> x = gradtrack.tensor([0.5, 1.5, -2.7])
    >>> gradtrack.round(x)
    tensor([ 0.,  2., -3.])
    """,
    "rsqrt": """``1 / sqrt(x)`` for each element.

    >>> x = gradtrack.tensor([1.0, 4.0, 16.0])
    >>> gradtrack.rsqrt(x)
    tensor([1.0000, 0.5000, 0.2500])
    """,
    "sgn": """The sign of each element (for real tensors the same as ``sign``).

    >>> x = gradtrack.tensor([-1.5, 0.0, 2.0])
    >>> gradtrack.sgn(x)
    tensor([-1.,  0.,  1.])
    """,
    "sigmoid": """The logistic function ``1 / (1 + exp(-x))`` of each element.

    >>> x = gradtrack.tensor([-1.0, 0.0, 2.0])
    >>> gradtrack.sigmoid(x)
    tensor([0.2689, 0.5000, 0.8808])
    """,
    "sign": """-1, 0 or 1 by the sign of each element.

    >>> x = gradtrack.tensor([-1.5, 0.0, 2.0])
    >>> gradtrack.sign(x)
    tensor([-1.,  0.,  1.])
    """,
    "sin": """The sine of each element (in radians).

    >>> x = gradtrack.tensor([0.0, 1.0, 3.1416])
    >>> gradtrack.sin(x)
    tensor([ 0.0000e+00,  8.4147e-01, -7.2400e-06])
    """,
    "sinh": """The hyperbolic sine of each element.

    >>> x = gradtrack.tensor([-1.0, 0.0, 2.0])
    >>> gradtrack.sinh(x)
    tensor([-1.1752,  0.0000,  3.6269])
    """,
    "sqrt": """The square root of each element.

    >>> x = gradtrack.tensor([0.0, 4.0, 2.0])
    >>> gradtrack.sqrt(x)
    tensor([0.0000, 2.0000, 1.4142])
    """,
    "square": """Each element times itself.

    >>> x = gradtrack.tensor([-1.5, 0.0, 2.0])
    >>> gradtrack.square(x)
    tensor([2.2500, 0.0000, 4.0000])
    """,
    "tan": """The tangent of each element (in radians).

    >>> x = gradtrack.tensor([0.0, 1.0, -0.5])
    >>> gradtrack.tan(x)
    tensor([ 0.0000,  1.5574, -0.5463])
    """,
    "tanh": """The hyperbolic tangent of each element.

    >>> x = gradtrack.tensor([-1.0, 0.0, 2.0])
    >>> gradtrack.tanh(x)
    tensor([-0.7616,  0.0000,  0.9640])
    """,
    "trunc": """Rounds each element toward zero.

    >>> x = gradtrack.tensor([-1.5, 0.2, 2.7])
    >>> gradtrack.trunc(x)
    tensor([-1.,  0.,  2.])
    """,
    "bitwise_not": """The bitwise NOT of each element of an integer or bool tensor.

    >>> x = gradtrack.tensor([0, 5, -3])
    >>> gradtrack.bitwise_not(x)
    tensor([-1, -6,  2])
    """,
    "add": """``input + alpha * other``, broadcasting.

    >>> x = gradtrack.tensor([1.0, 2.0, 3.0])
    >>> gradtrack.add(x, gradtrack.tensor([10.0, 20.0, 30.0]), alpha=2)
    tensor([21., 42., 63.])
    """,
    "sub": """``input - alpha * other``, broadcasting.

    >>> x = gradtrack.tensor([1.0, 2.0, 3.0])
    >>> gradtrack.sub(x, gradtrack.tensor([0.5, 0.5, 0.5]))
    tensor([0.5000, 1.5000, 2.5000])
    """,
    "mul": """The elementwise product, broadcasting.

    >>> x = gradtrack.tensor([1.0, 2.0, 3.0])
    >>> gradtrack.mul(x, gradtrack.tensor([2.0, 0.5, -1.0]))
    tensor([ 2.,  1., -3.])
    """,
    "div": """The elementwise quotient; ``rounding_mode`` may be ``'trunc'`` or ``'floor'``.

    >>> x = gradtrack.tensor([7.0, -7.0, 3.0])
    >>> gradtrack.div(x, 2.0, rounding_mode='floor')
    tensor([ 3., -4.,  1.])
    """,
    "atan2": """The angle of the point (other, input): arctangent of ``input / other`` by quadrant.

    >>> x = gradtrack.tensor([1.0, -1.0, 0.0])
    >>> gradtrack.atan2(x, gradtrack.tensor([1.0, 1.0, -1.0]))
    tensor([ 0.7854, -0.7854,  3.1416])
    """,
    "hypot": """``sqrt(input**2 + other**2)`` elementwise.

    >>> x = gradtrack.tensor([3.0, 5.0, 1.0])
    >>> gradtrack.hypot(x, gradtrack.tensor([4.0, 12.0, 1.0]))
    tensor([ 5.0000, 13.0000,  1.4142])
    """,
    "fmod": """The remainder of division with the sign of the dividend (C's fmod).

    >>> x = gradtrack.tensor([-3.0, 3.0, 5.5])
    >>> gradtrack.fmod(x, 2.0)
    tensor([-1.0000,  1.0000,  1.5000])
    """,
    "remainder": """The remainder of division with the sign of the divisor (Python's %).

    >>> x = gradtrack.tensor([-3.0, 3.0, 5.5])
    >>> gradtrack.remainder(x, 2.0)
    tensor([1.0000, 1.0000, 1.5000])
    """,
    "floor_divide": """The quotient rounded down, elementwise.

    >>> x = gradtrack.tensor([7.0, -7.0, 3.0])
    >>> gradtrack.floor_divide(x, 2.0)
    tensor([ 3., -4.,  1.])
    """,
    "pow": """Each element raised to ``exponent`` (a number or a tensor).

    >>> x = gradtrack.tensor([1.0, 2.0, 3.0])
    >>> gradtrack.pow(x, 2)
    tensor([1., 4., 9.])
    """,
    "maximum": """The larger of two elements, elementwise (NaN wins).

    >>> x = gradtrack.tensor([1.0, 5.0, -2.0])
    >>> gradtrack.maximum(x, gradtrack.tensor([3.0, 4.0, -1.0]))
    tensor([ 3.,  5., -1.])
    """,
    "minimum": """The smaller of two elements, elementwise (NaN wins).

    >>> x = gradtrack.tensor([1.0, 5.0, -2.0])
    >>> gradtrack.minimum(x, gradtrack.tensor([3.0, 4.0, -1.0]))
    tensor([ 1.,  4., -2.])
    """,
    "eq": """A bool tensor, True where the elements are equal.

    >>> x = gradtrack.tensor([1.0, 2.0, 3.0])
    >>> gradtrack.eq(x, gradtrack.tensor([1.0, 0.0, 3.0]))
    tensor([ True, False,  True])
    """,
    "ne": """A bool tensor, True where the elements differ.

    >>> x = gradtrack.tensor([1.0, 2.0, 3.0])
    >>> gradtrack.ne(x, gradtrack.tensor([1.0, 0.0, 3.0]))
    tensor([False,  True, False])
    """,
    "lt": """A bool tensor, True where ``input < other``.

    >>> x = gradtrack.tensor([1.0, 2.0, 3.0])
    >>> gradtrack.lt(x, 2.0)
    tensor([ True, False, False])
    """,
    "le": """A bool tensor, True where ``input <= other``.

    >>> x = gradtrack.tensor([1.0, 2.0, 3.0])
    >>> gradtrack.le(x, 2.0)
    tensor([ True,  True, False])
    """,
    "gt": """A bool tensor, True where ``input > other``.

    >>> x = gradtrack.tensor([1.0, 2.0, 3.0])
    >>> gradtrack.gt(x, 2.0)
    tensor([False, False,  True])
    """,
    "ge": """A bool tensor, True where ``input >= other``.

    >>> x = gradtrack.tensor([1.0, 2.0, 3.0])
    >>> gradtrack.ge(x, 2.0)
    tensor([False,  True,  True])
    """,
    "logical_and": """A bool tensor, True where both elements are nonzero.

    >>> x = gradtrack.tensor([0.0, 1.0, 2.0])
    >>> gradtrack.logical_and(x, gradtrack.tensor([1.0, 0.0, 3.0]))
    tensor([False, False,  True])
    """,
    "logical_or": """A bool tensor, True where either element is nonzero.

    >>> x = gradtrack.tensor([0.0, 1.0, 0.0])
    >>> gradtrack.logical_or(x, gradtrack.tensor([0.0, 0.0, 3.0]))
    tensor([False,  True,  True])
    """,
    "logical_xor": """A bool tensor, True where exactly one element is nonzero.

    >>> x = gradtrack.tensor([0.0, 1.0, 2.0])
    >>> gradtrack.logical_xor(x, gradtrack.tensor([0.0, 0.0, 3.0]))
    tensor([False,  True, False])
    """,
    "bitwise_and": """The bitwise AND of integer or bool tensors.

    >>> x = gradtrack.tensor([12, 10, 7])
    >>> gradtrack.bitwise_and(x, gradtrack.tensor([10, 6, 1]))
    tensor([8, 2, 1])
    """,
    "bitwise_or": """The bitwise OR of integer or bool tensors.

    >>> x = gradtrack.tensor([12, 10, 7])
    >>> gradtrack.bitwise_or(x, gradtrack.tensor([10, 6, 1]))
    tensor([14, 14,  7])
    """,
    "bitwise_xor": """The bitwise XOR of integer or bool tensors.

    >>> x = gradtrack.tensor([12, 10, 7])
    >>> gradtrack.bitwise_xor(x, gradtrack.tensor([10, 6, 1]))
    tensor([ 6, 12,  6])
    """,
    "rsub": """``other - alpha * input`` (subtraction with the operands swapped).

    >>> x = gradtrack.tensor([1.0, 2.0, 3.0])
    >>> gradtrack.rsub(x, 10.0)
    tensor([9., 8., 7.])
    """,
    "true_divide": """Division without rounding; the same as ``div`` with no rounding_mode.

    >>> x = gradtrack.tensor([1.0, 2.0, 3.0])
    >>> gradtrack.true_divide(x, 2)
    tensor([0.5000, 1.0000, 1.5000])
    """,
    "clamp_min": """Raises every element below ``min`` to ``min``.

    >>> x = gradtrack.tensor([-1.0, 0.5, 2.0])
    >>> gradtrack.clamp_min(x, 0.0)
    tensor([0.0000, 0.5000, 2.0000])
    """,
    "clamp_max": """Lowers every element above ``max`` to ``max``.

    >>> x = gradtrack.tensor([-1.0, 0.5, 2.0])
    >>> gradtrack.clamp_max(x, 1.0)
    tensor([-1.0000,  0.5000,  1.0000])
    """,
    "clamp": """Limits every element to ``[min, max]``.

    >>> x = gradtrack.tensor([-1.0, 0.5, 2.0])
    >>> gradtrack.clamp(x, min=0.0, max=1.0)
    tensor([0.0000, 0.5000, 1.0000])
    """,
    "equal": """True if both tensors have the same shape and elements (a Python bool).

    >>> x = gradtrack.tensor([1.0, 2.0])
    >>> gradtrack.equal(x, gradtrack.tensor([1.0, 2.0]))
    True
    """,
    "dot": """The dot product of two 1-D tensors.

    >>> x = gradtrack.tensor([1.0, 2.0, 3.0])
    >>> gradtrack.dot(x, gradtrack.tensor([4.0, 5.0, 6.0]))
    tensor(32.)
    """,
    "outer": """The outer product of two 1-D tensors.

    >>> x = gradtrack.tensor([1.0, 2.0])
    >>> gradtrack.outer(x, gradtrack.tensor([1.0, 10.0, 100.0]))
    tensor([[  1.,  10., 100.],
            [  2.,  20., 200.]])
    """,
    "sum": """The sum of all elements, or along ``dim``.

    >>> x = gradtrack.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> gradtrack.sum(x, dim=0)
    tensor([4., 6.])
    """,
    "mean": """The mean of all elements, or along ``dim``.

    >>> x = gradtrack.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> gradtrack.mean(x, dim=1)
    tensor([1.5000, 3.5000])
    """,
    "prod": """The product of all elements, or along ``dim``.

    >>> x = gradtrack.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> gradtrack.prod(x, dim=1)
    tensor([ 2., 12.])
    """,
    "amax": """The largest values along ``dim`` (all dims by default).

    >>> x = gradtrack.tensor([[1.0, 5.0], [3.0, 4.0]])
    >>> gradtrack.amax(x, dim=0)
    tensor([3., 5.])
    """,
    "argmax": """The index of the largest value (of the flattened tensor, or along ``dim``).

    >>> x = gradtrack.tensor([[1.0, 5.0], [3.0, 4.0]])
    >>> gradtrack.argmax(x, dim=1)
    tensor([1, 1])
    """,
    "argmin": """The index of the smallest value (of the flattened tensor, or along ``dim``).

    >>> x = gradtrack.tensor([[1.0, 5.0], [3.0, 4.0]])
    >>> gradtrack.argmin(x, dim=1)
    tensor([0, 0])
    """,
    "all": """True if every element is nonzero (of the whole tensor, or along ``dim``).

    >>> x = gradtrack.tensor([[1.0, 0.0], [3.0, 4.0]])
    >>> gradtrack.all(x, dim=1)
    tensor([False,  True])
    """,
    "any": """True if some element is nonzero (of the whole tensor, or along ``dim``).

    >>> x = gradtrack.tensor([[0.0, 0.0], [3.0, 0.0]])
    >>> gradtrack.any(x, dim=1)
    tensor([False,  True])
    """,
    "var": """The variance over ``dim`` (all by default), dividing by N - correction.

    >>> x = gradtrack.tensor([[1.0, 2.0], [3.0, 5.0]])
    >>> gradtrack.var(x, dim=1)
    tensor([0.5000, 2.0000])
    """,
    "std": """The standard deviation over ``dim`` (all by default), dividing by N - correction.

    >>> x = gradtrack.tensor([[1.0, 2.0], [3.0, 5.0]])
    >>> gradtrack.std(x, dim=1)
    tensor([0.7071, 1.4142])
    """,
    "softmax": """Exponentials normalised to sum to one along ``dim``.

    >>> x = gradtrack.tensor([[1.0, 2.0, 3.0]])
    >>> gradtrack.softmax(x, dim=1)
    tensor([[0.0900, 0.2447, 0.6652]])
    """,
    "log_softmax": """The logarithm of ``softmax``, computed stably.

    >>> x = gradtrack.tensor([[1.0, 2.0, 3.0]])
    >>> gradtrack.log_softmax(x, dim=1)
    tensor([[-2.4076, -1.4076, -0.4076]])
    """,
    "flatten": """The dims from ``start_dim`` to ``end_dim`` merged into one.

    >>> x = gradtrack.tensor([[[1, 2], [3, 4]]])
    >>> gradtrack.flatten(x, start_dim=1)
    tensor([[1, 2, 3, 4]])
    """,
    "squeeze": """The tensor without dims of size one (or only ``dim``).

    >>> x = gradtrack.tensor([[[1.0], [2.0]]])
    >>> gradtrack.squeeze(x)
    tensor([1., 2.])
    """,
    "unsqueeze": """A view with a new dim of size one at ``dim``.

    >>> x = gradtrack.tensor([1.0, 2.0])
    >>> gradtrack.unsqueeze(x, 1)
    tensor([[1.],
            [2.]])
    """,
    "t": """The transpose of a matrix (a 1-D tensor is returned as it is).

    >>> x = gradtrack.tensor([[1, 2, 3], [4, 5, 6]])
    >>> gradtrack.t(x)
    tensor([[1, 4],
            [2, 5],
            [3, 6]])
    """,
    "transpose": """A view with ``dim0`` and ``dim1`` swapped.

    >>> x = gradtrack.tensor([[1, 2, 3], [4, 5, 6]])
    >>> gradtrack.transpose(x, 0, 1)
    tensor([[1, 4],
            [2, 5],
            [3, 6]])
    """,
    "swapaxes": """Alias of ``transpose``: a view with two dims swapped.

    >>> x = gradtrack.tensor([[1, 2, 3], [4, 5, 6]])
    >>> gradtrack.swapaxes(x, 0, 1)
    tensor([[1, 4],
            [2, 5],
            [3, 6]])
    """,
    "narrow": """A view of ``length`` entries of ``dim`` starting at ``start``.

    >>> x = gradtrack.tensor([[1, 2, 3], [4, 5, 6]])
    >>> gradtrack.narrow(x, 1, 1, 2)
    tensor([[2, 3],
            [5, 6]])
    """,
    "select": """A view of the slice ``index`` of ``dim`` (the dim is removed).

    >>> x = gradtrack.tensor([[1, 2, 3], [4, 5, 6]])
    >>> gradtrack.select(x, 1, 2)
    tensor([3, 6])
    """,
    "chunk": """Splits into ``chunks`` views of (nearly) equal size along ``dim``.

    >>> x = gradtrack.tensor([1, 2, 3, 4, 5])
    >>> gradtrack.chunk(x, 2)
    (tensor([1, 2, 3]), tensor([4, 5]))
    """,
    "unbind": """The slices along ``dim`` as a tuple of views (the dim removed).

    >>> x = gradtrack.tensor([[1, 2], [3, 4]])
    >>> gradtrack.unbind(x)
    (tensor([1, 2]), tensor([3, 4]))
    """,
    "clone": """A copy with its own memory; gradients flow back to ``input``.

    >>> x = gradtrack.tensor([1.0, 2.0])
    >>> gradtrack.clone(x)
    tensor([1., 2.])
    """,
    "trace": """The sum of a matrix's main diagonal.

    >>> x = gradtrack.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> gradtrack.trace(x)
    tensor(5.)
    """,
}
