"""torch's top-level names of in-place methods: ``torch.abs_(x)`` is ``x.abs_()``, with
torch's parameter name ``input``; the write, its checks, ``_version`` and ``grad_fn`` are
the method's (``_inplace.py``), so the two cannot differ.

>>> import gradtrack
>>> x = gradtrack.tensor([-1.0, 2.0])
>>> gradtrack.abs_(x)
tensor([1., 2.])
>>> x
tensor([1., 2.])
"""

# The methods whose only argument is the tensor they write.
UNARY = ("abs_", "acos_", "acosh_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_",
         "arctanh_", "asin_", "asinh_", "atan_", "atanh_", "ceil_", "cos_", "cosh_", "deg2rad_",
         "erf_", "erfc_", "exp2_", "exp_", "expm1_", "fix_", "floor_", "frac_", "i0_", "log10_",
         "log1p_", "log2_", "log_", "neg_", "negative_", "rad2deg_", "reciprocal_", "relu_",
         "rsqrt_", "sigmoid_", "sin_", "sinc_", "sinh_", "sqrt_", "square_", "tan_", "tanh_",
         "trunc_", "zero_", "detach_")


def _unary(name):
    def function(input):  # noqa: A002 - torch's parameter name
        return getattr(input, name)()
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"""``input.{name}()``: writes the result into ``input`` and returns it.

    >>> import gradtrack
    >>> gradtrack.{name}(gradtrack.tensor([0.5, 1.0])).shape
    gradtrack.Size([2])
    """
    return function


def clamp_(input, min=None, max=None):  # noqa: A002 - torch's parameter names
    """``input.clamp_(min, max)``: ``input`` limited to [``min``, ``max``] in place.

    >>> import gradtrack
    >>> gradtrack.clamp_(gradtrack.tensor([-2.0, 0.5, 3.0]), -1, 1)
    tensor([-1.0000,  0.5000,  1.0000])
    """
    return input.clamp_(min, max)


def clip_(input, min=None, max=None):  # noqa: A002 - torch's parameter names
    """``input.clip_(min, max)``, torch's other name of :func:`clamp_`.

    >>> import gradtrack
    >>> gradtrack.clip_(gradtrack.tensor([-2.0, 3.0]), max=1)
    tensor([-2.,  1.])
    """
    return input.clip_(min, max)


def clamp_min_(input, min):  # noqa: A002 - torch's parameter names
    """``input.clamp_min_(min)``: ``input`` limited below at ``min`` in place.

    >>> import gradtrack
    >>> gradtrack.clamp_min_(gradtrack.tensor([-2.0, 3.0]), 0)
    tensor([0., 3.])
    """
    return input.clamp_min_(min)


def clamp_max_(input, max):  # noqa: A002 - torch's parameter names
    """``input.clamp_max_(max)``: ``input`` limited above at ``max`` in place.

    >>> import gradtrack
    >>> gradtrack.clamp_max_(gradtrack.tensor([-2.0, 3.0]), 0)
    tensor([-2.,  0.])
    """
    return input.clamp_max_(max)


def fill_(input, value):  # noqa: A002 - torch's parameter name
    """``input.fill_(value)``: every element of ``input`` set to ``value``.

    >>> import gradtrack
    >>> gradtrack.fill_(gradtrack.zeros(2), 7)
    tensor([7., 7.])
    """
    return input.fill_(value)


def nan_to_num_(input, nan=0.0, posinf=None, neginf=None):  # noqa: A002
    """``input.nan_to_num_(nan, posinf, neginf)``: NaN and infinities replaced in place.

    >>> import gradtrack
    >>> gradtrack.nan_to_num_(gradtrack.tensor([float("nan"), 1.0]))
    tensor([0., 1.])
    """
    return input.nan_to_num_(nan, posinf, neginf)


def addmv_(input, mat, vec, *, beta=1, alpha=1):  # noqa: A002 - torch's parameter names
    """``input.addmv_(mat, vec, beta=beta, alpha=alpha)``: ``beta * input + alpha * (mat @
    vec)`` written into ``input``.

    >>> import gradtrack
    >>> gradtrack.addmv_(gradtrack.ones(2), gradtrack.eye(2), gradtrack.tensor([1.0, 2.0]))
    tensor([2., 3.])
    """
    return input.addmv_(mat, vec, beta=beta, alpha=alpha)


_NO_DECIMALS = object()


def round_(input, *, decimals=_NO_DECIMALS):  # noqa: A002 - torch's parameter name
    """``input.round_()``: each element rounded in place, half to even (torch's
    ``round_``); with ``decimals``, to that many decimal places.

    >>> import gradtrack
    >>> gradtrack.round_(gradtrack.tensor([0.5, 1.5, 2.6]))
    tensor([0., 2., 3.])
    >>> gradtrack.round_(gradtrack.tensor([1.26, 2.5]), decimals=1)
    tensor([1.3000, 2.5000])
    """
    return input.round_() if decimals is _NO_DECIMALS else input.round_(decimals=decimals)


def xlogy_(input, other):  # noqa: A002
    """``input.xlogy_(other)``: ``input * log(other)`` written into ``input`` (0 where
    ``input`` is 0).

    >>> import gradtrack
    >>> gradtrack.xlogy_(gradtrack.tensor([0.0, 2.0]), gradtrack.tensor([0.0, 1.0]))
    tensor([0., 0.])
    """
    return input.xlogy_(other)


def logit_(input, eps=None):  # noqa: A002
    """``input.logit_(eps)``: ``log(p / (1 - p))`` written into ``input``.

    >>> import gradtrack
    >>> gradtrack.logit_(gradtrack.tensor([0.5]))
    tensor([0.])
    """
    return input.logit_(eps)


def ldexp_(input, other):  # noqa: A002
    """``input.ldexp_(other)``: ``input * 2 ** other`` written into ``input``.

    >>> import gradtrack
    >>> gradtrack.ldexp_(gradtrack.tensor([1.0]), gradtrack.tensor([3]))
    tensor([8.])
    """
    return input.ldexp_(other)


def index_put_(input, indices, values, accumulate=False):  # noqa: A002
    """``input.index_put_(indices, values, accumulate)``: ``input[indices] = values`` (or
    ``+=`` when ``accumulate``) in place.

    >>> import gradtrack
    >>> gradtrack.index_put_(gradtrack.zeros(3), (gradtrack.tensor([0, 0]),),
    ...                      gradtrack.tensor(1.0), accumulate=True)
    tensor([2., 0., 0.])
    """
    return input.index_put_(indices, values, accumulate)


def gcd_(input, other):  # noqa: A002 - torch's parameter name
    """``input.gcd_(other)``: the greatest common divisors written into ``input``.

    >>> import gradtrack
    >>> gradtrack.gcd_(gradtrack.tensor([4, 9]), gradtrack.tensor([6, 6]))
    tensor([2, 3])
    """
    return input.gcd_(other)


def lcm_(input, other):  # noqa: A002 - torch's parameter name
    """``input.lcm_(other)``: the least common multiples written into ``input``.

    >>> import gradtrack
    >>> gradtrack.lcm_(gradtrack.tensor([4, 9]), gradtrack.tensor([6, 6]))
    tensor([12, 18])
    """
    return input.lcm_(other)


def as_strided_(input, size, stride, storage_offset=None):  # noqa: A002
    """``input.as_strided_(size, stride, storage_offset)``: ``input`` itself takes the
    given sizes, strides and offset over its memory.

    >>> import gradtrack
    >>> gradtrack.as_strided_(gradtrack.arange(6.0), (2, 2), (1, 2), 1)
    tensor([[1., 3.],
            [2., 4.]])
    """
    return input.as_strided_(size, stride, storage_offset)


FUNCTIONS = (*(_unary(name) for name in UNARY), clamp_, clip_, clamp_min_, clamp_max_, fill_,
             nan_to_num_, addmv_, round_, xlogy_, logit_, ldexp_, index_put_, gcd_, lcm_, as_strided_)
