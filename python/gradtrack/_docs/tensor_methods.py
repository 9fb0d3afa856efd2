"""Docstrings of the Tensor's elementwise, reduction and shape methods (and their in-place forms)."""

DOCS = {
    "abs": """The absolute value of each element.

    >>> gradtrack.tensor([-1.5, 0.0, 2.0]).abs()
    tensor([1.5000, 0.0000, 2.0000])
    """,
    "acos": """The arccosine (in radians) of each element.

    >>> gradtrack.tensor([-1.0, 0.0, 0.5]).acos()
    tensor([3.1416, 1.5708, 1.0472])
    """,
    "asin": """The arcsine (in radians) of each element.

    >>> gradtrack.tensor([-1.0, 0.0, 0.5]).asin()
    tensor([-1.5708,  0.0000,  0.5236])
    """,
    "atan": """The arctangent (in radians) of each element.

    >>> gradtrack.tensor([-1.0, 0.0, 0.5]).atan()
    tensor([-0.7854,  0.0000,  0.4636])
    """,
    "ceil": """The smallest integer not below each element (rounding up).

    >>> gradtrack.tensor([-1.5, 0.2, 2.0]).ceil()
    tensor([-1.,  1.,  2.])
    """,
    "cos": """The cosine of each element (in radians).

    >>> gradtrack.tensor([0.0, 1.0, 3.1416]).cos()
    tensor([ 1.0000,  0.5403, -1.0000])
    """,
    "cosh": """The hyperbolic cosine of each element.

    >>> gradtrack.tensor([-1.0, 0.0, 2.0]).cosh()
    tensor([1.5431, 1.0000, 3.7622])
    """,
    "erf": """The Gauss error function of each element.

    >>> gradtrack.tensor([-1.0, 0.0, 0.5]).erf()
    tensor([-0.8427,  0.0000,  0.5205])
    """,
    "exp": """e raised to each element.

    >>> gradtrack.tensor([0.0, 1.0, 2.0]).exp()
    tensor([1.0000, 2.7183, 7.3891])
    """,
    "exp2": """2 raised to each element.

    >>> gradtrack.tensor([0.0, 1.0, 3.0]).exp2()
    tensor([1., 2., 8.])
    """,
    "expm1": """``exp(x) - 1``, accurate for small ``x``.

    >>> gradtrack.tensor([0.0, 1e-05, 1.0]).expm1()
    tensor([0.0000e+00, 1.0000e-05, 1.7183e+00])
    """,
    "floor": """The largest integer not above each element (rounding down).

    >>> gradtrack.tensor([-1.5, 0.2, 2.0]).floor()
    tensor([-2.,  0.,  2.])
    """,
    "frac": """The fractional part of each element (keeps the sign).

    >>> gradtrack.tensor([-1.5, 0.25, 2.0]).frac()
    tensor([-0.5000,  0.2500,  0.0000])
    """,
    "isnan": """A bool tensor, True where an element is NaN.

    >>> gradtrack.tensor([1.0, float('nan'), 2.0]).isnan()
    tensor([False,  True, False])
    """,
    "log": """The natural logarithm of each element.

    >>> gradtrack.tensor([1.0, 2.0, 10.0]).log()
    tensor([0.0000, 0.6931, 2.3026])
    """,
    "log10": """The base-10 logarithm of each element.

    >>> gradtrack.tensor([1.0, 100.0, 0.1]).log10()
    tensor([ 0.,  2., -1.])
    """,
    "log1p": """``log(1 + x)``, accurate for small ``x``.

    >>> gradtrack.tensor([0.0, 1e-05, 1.0]).log1p()
    tensor([0.0000e+00, 9.9999e-06, 6.9315e-01])
    """,
    "log2": """The base-2 logarithm of each element.

    >>> gradtrack.tensor([1.0, 8.0, 0.5]).log2()
    tensor([ 0.,  3., -1.])
    """,
    "logical_not": """A bool tensor, True where an element is zero.

    >>> gradtrack.tensor([0.0, 1.0, -2.0]).logical_not()
    tensor([ True, False, False])
    """,
    "neg": """Each element with its sign flipped.

    >>> gradtrack.tensor([-1.5, 0.0, 2.0]).neg()
    tensor([ 1.5000, -0.0000, -2.0000])
    """,
    "reciprocal": """``1 / x`` for each element.

    >>> gradtrack.tensor([1.0, 2.0, 4.0]).reciprocal()
    tensor([1.0000, 0.5000, 0.2500])
    """,
    "relu": """Zero where an element is negative, the element otherwise.

    >>> gradtrack.tensor([-1.5, 0.0, 2.0]).relu()
    tensor([0., 0., 2.])
    """,
    "round": """Rounds each element to the nearest integer (halves to even).

    >>> gradtrack.tensor([0.5, 1.5, -2.7]).round()
    tensor([ 0.,  2., -3.])
    """,
    "rsqrt": """``1 / sqrt(x)`` for each element.

    >>> gradtrack.tensor([1.0, 4.0, 16.0]).rsqrt()
    tensor([1.0000, 0.5000, 0.2500])
    """,
    "sgn": """The sign of each element (for real tensors the same as ``sign``).

    >>> gradtrack.tensor([-1.5, 0.0, 2.0]).sgn()
    tensor([-1.,  0.,  1.])
    """,
    "sigmoid": """The logistic function ``1 / (1 + exp(-x))`` of each element.

    >>> gradtrack.tensor([-1.0, 0.0, 2.0]).sigmoid()
    tensor([0.2689, 0.5000, 0.8808])
    """,
    "sign": """-1, 0 or 1 by the sign of each element.

    >>> gradtrack.tensor([-1.5, 0.0, 2.0]).sign()
    tensor([-1.,  0.,  1.])
    """,
    "sin": """The sine of each element (in radians).

    >>> gradtrack.tensor([0.0, 1.0, 3.1416]).sin()
    tensor([ 0.0000e+00,  8.4147e-01, -7.2400e-06])
    """,
    "sinh": """The hyperbolic sine of each element.

    >>> gradtrack.tensor([-1.0, 0.0, 2.0]).sinh()
    tensor([-1.1752,  0.0000,  3.6269])
    """,
    "sqrt": """The square root of each element.

    >>> gradtrack.tensor([0.0, 4.0, 2.0]).sqrt()
    tensor([0.0000, 2.0000, 1.4142])
    """,
    "square": """Each element times itself.

    >>> gradtrack.tensor([-1.5, 0.0, 2.0]).square()
    tensor([2.2500, 0.0000, 4.0000])
    """,
    "tan": """The tangent of each element (in radians).

    >>> gradtrack.tensor([0.0, 1.0, -0.5]).tan()
    tensor([ 0.0000,  1.5574, -0.5463])
    """,
    "tanh": """The hyperbolic tangent of each element.

    >>> gradtrack.tensor([-1.0, 0.0, 2.0]).tanh()
    tensor([-0.7616,  0.0000,  0.9640])
    """,
    "trunc": """Rounds each element toward zero.

    >>> gradtrack.tensor([-1.5, 0.2, 2.7]).trunc()
    tensor([-1.,  0.,  2.])
    """,
    "bitwise_not": """The bitwise NOT of each element of an integer or bool tensor.

    >>> gradtrack.tensor([0, 5, -3]).bitwise_not()
    tensor([-1, -6,  2])
    """,
    "add": """``input + alpha * other``, broadcasting.

    >>> gradtrack.tensor([1.0, 2.0, 3.0]).add(gradtrack.tensor([10.0, 20.0, 30.0]), alpha=2)
    tensor([21., 42., 63.])
    """,
    "sub": """``input - alpha * other``, broadcasting.

    >>> gradtrack.tensor([1.0, 2.0, 3.0]).sub(gradtrack.tensor([0.5, 0.5, 0.5]))
    tensor([0.5000, 1.5000, 2.5000])
    """,
    "mul": """The elementwise product, broadcasting.

    >>> gradtrack.tensor([1.0, 2.0, 3.0]).mul(gradtrack.tensor([2.0, 0.5, -1.0]))
    tensor([ 2.,  1., -3.])
    """,
    "div": """The elementwise quotient; ``rounding_mode`` may be ``'trunc'`` or ``'floor'``.

    >>> gradtrack.tensor([7.0, -7.0, 3.0]).div(2.0, rounding_mode='floor')
    tensor([ 3., -4.,  1.])
    """,
    "atan2": """The angle of the point (other, input): arctangent of ``input / other`` by quadrant.

    >>> gradtrack.tensor([1.0, -1.0, 0.0]).atan2(gradtrack.tensor([1.0, 1.0, -1.0]))
    tensor([ 0.7854, -0.7854,  3.1416])
    """,
    "hypot": """``sqrt(input**2 + other**2)`` elementwise.

    >>> gradtrack.tensor([3.0, 5.0, 1.0]).hypot(gradtrack.tensor([4.0, 12.0, 1.0]))
    tensor([ 5.0000, 13.0000,  1.4142])
    """,
    "fmod": """The remainder of division with the sign of the dividend (C's fmod).

    >>> gradtrack.tensor([-3.0, 3.0, 5.5]).fmod(2.0)
    tensor([-1.0000,  1.0000,  1.5000])
    """,
    "remainder": """The remainder of division with the sign of the divisor (Python's %).

    >>> gradtrack.tensor([-3.0, 3.0, 5.5]).remainder(2.0)
    tensor([1.0000, 1.0000, 1.5000])
    """,
    "floor_divide": """The quotient rounded down, elementwise.

    >>> gradtrack.tensor([7.0, -7.0, 3.0]).floor_divide(2.0)
    tensor([ 3., -4.,  1.])
    """,
    "pow": """Each element raised to ``exponent`` (a number or a tensor).

    >>> gradtrack.tensor([1.0, 2.0, 3.0]).pow(2)
    tensor([1., 4., 9.])
    """,
    "maximum": """The larger of two elements, elementwise (NaN wins).

    >>> gradtrack.tensor([1.0, 5.0, -2.0]).maximum(gradtrack.tensor([3.0, 4.0, -1.0]))
    tensor([ 3.,  5., -1.])
    """,
    "minimum": """The smaller of two elements, elementwise (NaN wins).

    >>> gradtrack.tensor([1.0, 5.0, -2.0]).minimum(gradtrack.tensor([3.0, 4.0, -1.0]))
    tensor([ 1.,  4., -2.])
    """,
    "eq": """A bool tensor, True where the elements are equal.

    >>> gradtrack.tensor([1.0, 2.0, 3.0]).eq(gradtrack.tensor([1.0, 0.0, 3.0]))
    tensor([ True, False,  True])
    """,
    "ne": """A bool tensor, True where the elements differ.

    >>> gradtrack.tensor([1.0, 2.0, 3.0]).ne(gradtrack.tensor([1.0, 0.0, 3.0]))
    tensor([False,  True, False])
    """,
    "lt": """A bool tensor, True where ``input < other``.

    >>> gradtrack.tensor([1.0, 2.0, 3.0]).lt(2.0)
    tensor([ True, False, False])
    """,
    "le": """A bool tensor, True where ``input <= other``.

    >>> gradtrack.tensor([1.0, 2.0, 3.0]).le(2.0)
    tensor([ True,  True, False])
    """,
    "gt": """A bool tensor, True where ``input > other``.

    >>> gradtrack.tensor([1.0, 2.0, 3.0]).gt(2.0)
    tensor([False, False,  True])
    """,
    "ge": """A bool tensor, True where ``input >= other``.

    >>> gradtrack.tensor([1.0, 2.0, 3.0]).ge(2.0)
    tensor([False,  True,  True])
    """,
    "logical_and": """A bool tensor, True where both elements are nonzero.

    >>> gradtrack.tensor([0.0, 1.0, 2.0]).logical_and(gradtrack.tensor([1.0, 0.0, 3.0]))
    tensor([False, False,  True])
    """,
    "logical_or": """A bool tensor, True where either element is nonzero.

    >>> gradtrack.tensor([0.0, 1.0, 0.0]).logical_or(gradtrack.tensor([0.0, 0.0, 3.0]))
    tensor([False,  True,  True])
    """,
    "logical_xor": """A bool tensor, True where exactly one element is nonzero.

    >>> gradtrack.tensor([0.0, 1.0, 2.0]).logical_xor(gradtrack.tensor([0.0, 0.0, 3.0]))
    tensor([False,  True, False])
    """,
    "bitwise_and": """The bitwise AND of integer or bool tensors.

    >>> gradtrack.tensor([12, 10, 7]).bitwise_and(gradtrack.tensor([10, 6, 1]))
    tensor([8, 2, 1])
    """,
    "bitwise_or": """The bitwise OR of integer or bool tensors.

    >>> gradtrack.tensor([12, 10, 7]).bitwise_or(gradtrack.tensor([10, 6, 1]))
    tensor([14, 14,  7])
    """,
    "bitwise_xor": """The bitwise XOR of integer or bool tensors.

    >>> gradtrack.tensor([12, 10, 7]).bitwise_xor(gradtrack.tensor([10, 6, 1]))
    tensor([ 6, 12,  6])
    """,
    "true_divide": """Division without rounding; the same as ``div`` with no rounding_mode.

    >>> gradtrack.tensor([1.0, 2.0, 3.0]).true_divide(2)
    tensor([0.5000, 1.0000, 1.5000])
    """,
    "clamp_min": """Raises every element below ``min`` to ``min``.

    >>> gradtrack.tensor([-1.0, 0.5, 2.0]).clamp_min(0.0)
    tensor([0.0000, 0.5000, 2.0000])
    """,
    "clamp_max": """Lowers every element above ``max`` to ``max``.

    >>> gradtrack.tensor([-1.0, 0.5, 2.0]).clamp_max(1.0)
    tensor([-1.0000,  0.5000,  1.0000])
    """,
    "clamp": """Limits every element to ``[min, max]``.

    >>> gradtrack.tensor([-1.0, 0.5, 2.0]).clamp(min=0.0, max=1.0)
    tensor([0.0000, 0.5000, 1.0000])
    """,
    "dot": """The dot product of two 1-D tensors.

    >>> gradtrack.tensor([1.0, 2.0, 3.0]).dot(gradtrack.tensor([4.0, 5.0, 6.0]))
    tensor(32.)
    """,
    "outer": """The outer product of two 1-D tensors.

    >>> gradtrack.tensor([1.0, 2.0]).outer(gradtrack.tensor([1.0, 10.0, 100.0]))
    tensor([[  1.,  10., 100.],
            [  2.,  20., 200.]])
    """,
    "sum": """The sum of all elements, or along ``dim``.

    >>> gradtrack.tensor([[1.0, 2.0], [3.0, 4.0]]).sum(dim=0)
    tensor([4., 6.])
    """,
    "mean": """The mean of all elements, or along ``dim``.

    >>> gradtrack.tensor([[1.0, 2.0], [3.0, 4.0]]).mean(dim=1)
    tensor([1.5000, 3.5000])
    """,
    "prod": """The product of all elements, or along ``dim``.

    >>> gradtrack.tensor([[1.0, 2.0], [3.0, 4.0]]).prod(dim=1)
    tensor([ 2., 12.])
    """,
    "amax": """The largest values along ``dim`` (all dims by default).

    >>> gradtrack.tensor([[1.0, 5.0], [3.0, 4.0]]).amax(dim=0)
    tensor([3., 5.])
    """,
    "argmax": """The index of the largest value (of the flattened tensor, or along ``dim``).

    >>> gradtrack.tensor([[1.0, 5.0], [3.0, 4.0]]).argmax(dim=1)
    tensor([1, 1])
    """,
    "argmin": """The index of the smallest value (of the flattened tensor, or along ``dim``).

    >>> gradtrack.tensor([[1.0, 5.0], [3.0, 4.0]]).argmin(dim=1)
    tensor([0, 0])
    """,
    "all": """True if every element is nonzero (of the whole tensor, or along ``dim``).

    >>> gradtrack.tensor([[1.0, 0.0], [3.0, 4.0]]).all(dim=1)
    tensor([False,  True])
    """,
    "any": """True if some element is nonzero (of the whole tensor, or along ``dim``).

    >>> gradtrack.tensor([[0.0, 0.0], [3.0, 0.0]]).any(dim=1)
    tensor([False,  True])
    """,
    "var": """The variance over ``dim`` (all by default), dividing by N - correction.

    >>> gradtrack.tensor([[1.0, 2.0], [3.0, 5.0]]).var(dim=1)
    tensor([0.5000, 2.0000])
    """,
    "std": """The standard deviation over ``dim`` (all by default), dividing by N - correction.

    >>> gradtrack.tensor([[1.0, 2.0], [3.0, 5.0]]).std(dim=1)
    tensor([0.7071, 1.4142])
    """,
    "softmax": """Exponentials normalised to sum to one along ``dim``.

    >>> gradtrack.tensor([[1.0, 2.0, 3.0]]).softmax(dim=1)
    tensor([[0.0900, 0.2447, 0.6652]])
    """,
    "log_softmax": """The logarithm of ``softmax``, computed stably.

    >>> gradtrack.tensor([[1.0, 2.0, 3.0]]).log_softmax(dim=1)
    tensor([[-2.4076, -1.4076, -0.4076]])
    """,
    "flatten": """The dims from ``start_dim`` to ``end_dim`` merged into one.

    >>> gradtrack.tensor([[[1, 2], [3, 4]]]).flatten(start_dim=1)
    tensor([[1, 2, 3, 4]])
    """,
    "squeeze": """The tensor without dims of size one (or only ``dim``).

    >>> gradtrack.tensor([[[1.0], [2.0]]]).squeeze()
    tensor([1., 2.])
    """,
    "unsqueeze": """A view with a new dim of size one at ``dim``.

    >>> gradtrack.tensor([1.0, 2.0]).unsqueeze(1)
    tensor([[1.],
            [2.]])
    """,
    "t": """The transpose of a matrix (a 1-D tensor is returned as it is).

    >>> gradtrack.tensor([[1, 2, 3], [4, 5, 6]]).t()
    tensor([[1, 4],
            [2, 5],
            [3, 6]])
    """,
    "transpose": """A view with ``dim0`` and ``dim1`` swapped.

    >>> gradtrack.tensor([[1, 2, 3], [4, 5, 6]]).transpose(0, 1)
    tensor([[1, 4],
            [2, 5],
            [3, 6]])
    """,
    "swapaxes": """Alias of ``transpose``: a view with two dims swapped.

    >>> gradtrack.tensor([[1, 2, 3], [4, 5, 6]]).swapaxes(0, 1)
    tensor([[1, 4],
            [2, 5],
            [3, 6]])
    """,
    "narrow": """A view of ``length`` entries of ``dim`` starting at ``start``.

    >>> gradtrack.tensor([[1, 2, 3], [4, 5, 6]]).narrow(1, 1, 2)
    tensor([[2, 3],
            [5, 6]])
    """,
    "select": """A view of the slice ``index`` of ``dim`` (the dim is removed).

    >>> gradtrack.tensor([[1, 2, 3], [4, 5, 6]]).select(1, 2)
    tensor([3, 6])
    """,
    "chunk": """Splits into ``chunks`` views of (nearly) equal size along ``dim``.

    >>> gradtrack.tensor([1, 2, 3, 4, 5]).chunk(2)
    (tensor([1, 2, 3]), tensor([4, 5]))
    """,
    "unbind": """The slices along ``dim`` as a tuple of views (the dim removed).

    >>> gradtrack.tensor([[1, 2], [3, 4]]).unbind()
    (tensor([1, 2]), tensor([3, 4]))
    """,
    "clone": """A copy with its own memory; gradients flow back to ``input``.

    >>> gradtrack.tensor([1.0, 2.0]).clone()
    tensor([1., 2.])
    """,
    "trace": """The sum of a matrix's main diagonal.

    >>> gradtrack.tensor([[1.0, 2.0], [3.0, 4.0]]).trace()
    tensor(5.)
    """,
    "absolute": """Alias of ``abs``: the absolute value of each element.

    >>> gradtrack.tensor([-1.5, 0.0, 2.0]).absolute()
    tensor([1.5000, 0.0000, 2.0000])
    """,
    "divide": """Alias of ``div``: the elementwise quotient; ``rounding_mode`` may be ``'trunc'`` or ``'floor'``.

    >>> gradtrack.tensor([7.0, -7.0, 3.0]).divide(2.0, rounding_mode='floor')
    tensor([ 3., -4.,  1.])
    """,
    "multiply": """Alias of ``mul``: the elementwise product, broadcasting.

    >>> gradtrack.tensor([1.0, 2.0, 3.0]).multiply(gradtrack.tensor([2.0, 0.5, -1.0]))
    tensor([ 2.,  1., -3.])
    """,
    "negative": """Alias of ``neg``: each element with its sign flipped.

    >>> gradtrack.tensor([-1.5, 0.0, 2.0]).negative()
    tensor([ 1.5000, -0.0000, -2.0000])
    """,
    "subtract": """Alias of ``sub``: ``input - alpha * other``, broadcasting.

    >>> gradtrack.tensor([1.0, 2.0, 3.0]).subtract(gradtrack.tensor([0.5, 0.5, 0.5]))
    tensor([0.5000, 1.5000, 2.5000])
    """,
    "greater": """Alias of ``gt``: a bool tensor, True where ``input > other``.

    >>> gradtrack.tensor([1.0, 2.0, 3.0]).greater(2.0)
    tensor([False, False,  True])
    """,
    "less": """Alias of ``lt``: a bool tensor, True where ``input < other``.

    >>> gradtrack.tensor([1.0, 2.0, 3.0]).less(2.0)
    tensor([ True, False, False])
    """,
    "clip": """Alias of ``clamp``: limits every element to ``[min, max]``.

    >>> gradtrack.tensor([-1.0, 0.5, 2.0]).clip(min=0.0, max=1.0)
    tensor([0.0000, 0.5000, 1.0000])
    """,
}
