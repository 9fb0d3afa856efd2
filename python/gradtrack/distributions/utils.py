"""What the distributions share: broadcasting their parameters, converting between
probabilities and logits, and parameters computed on first use
(``torch.distributions.utils``).

>>> import gradtrack
>>> from gradtrack.distributions.utils import probs_to_logits, logits_to_probs
>>> logits_to_probs(probs_to_logits(gradtrack.tensor([0.25, 0.75])))
tensor([0.2500, 0.7500])
"""

import gradtrack

__all__ = ["broadcast_all", "clamp_probs", "lazy_property", "logits_to_probs",
           "probs_to_logits", "tril_matrix_to_vec", "vec_to_tril_matrix"]

# The Euler-Mascheroni constant.
euler_constant = 0.57721566490153286060

# What torch counts as a number parameter (complex is not one).
_NUMBER = (int, float, bool)


def _batch_shape(broadcast, *given):
    """The batch shape of parameters given as ``given`` and broadcast (by broadcast_all)
    to tensors like ``broadcast``: () when every one was a Python number, as torch's."""
    if all(isinstance(g, _NUMBER) for g in given):
        return gradtrack.Size()
    return broadcast.size()


def _expand_probs_or_logits(source, new, shape):
    """Gives ``new`` the ``probs`` and ``logits`` of ``source`` that it holds (given or
    already computed), expanded to ``shape``; ``_param`` is the last of them, as the
    distributions of a probs/logits pair keep it."""
    if "probs" in source.__dict__:
        new.probs = source.probs.expand(shape)
        new._param = new.probs
    if "logits" in source.__dict__:
        new.logits = source.logits.expand(shape)
        new._param = new.logits


def _check_one_of(probs, logits):
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")


def _probs_or_logits(dist, probs, logits):
    """Sets ``dist.probs`` or ``dist.logits`` (exactly one given) as a tensor, and
    ``dist._param`` to it; returns the batch shape (() for a Python number), as the
    Bernoulli-like constructors take them."""
    _check_one_of(probs, logits)
    if probs is not None:
        (dist.probs,) = broadcast_all(probs)
    else:
        (dist.logits,) = broadcast_all(logits)
    dist._param = dist.probs if probs is not None else dist.logits
    return _batch_shape(dist._param, probs if probs is not None else logits)


def _count_with_probs_or_logits(dist, total_count, probs, logits):
    """Sets ``dist.total_count`` and ``dist.probs`` or ``dist.logits`` (exactly one given)
    broadcast together, the count in the parameter's dtype, and ``dist._param``; returns
    the batch shape (Binomial's and NegativeBinomial's constructors)."""
    _check_one_of(probs, logits)
    if probs is not None:
        dist.total_count, dist.probs = broadcast_all(total_count, probs)
        dist.total_count = dist.total_count.type_as(dist.probs)
    else:
        dist.total_count, dist.logits = broadcast_all(total_count, logits)
        dist.total_count = dist.total_count.type_as(dist.logits)
    dist._param = dist.probs if probs is not None else dist.logits
    return dist._param.size()


def _is_tensor_like(value):
    return isinstance(value, gradtrack.Tensor) or hasattr(type(value), "__torch_function__")


def broadcast_all(*values):
    """The arguments as tensors of one broadcast shape.

    Numbers become tensors of the first tensor argument's dtype and device, or of
    the default dtype when all are numbers.

    >>> import gradtrack
    >>> from gradtrack.distributions.utils import broadcast_all
    >>> loc, scale = broadcast_all(gradtrack.zeros(2, dtype=gradtrack.float64), 1.0)
    >>> scale
    tensor([1., 1.], dtype=gradtrack.float64)
    """
    if not all(_is_tensor_like(v) or isinstance(v, _NUMBER) for v in values):
        raise ValueError("Input arguments must all be instances of Number, gradtrack.Tensor "
                         "or objects implementing __torch_function__.")
    if all(_is_tensor_like(v) for v in values):
        return gradtrack.broadcast_tensors(*values)
    like = next((v for v in values if isinstance(v, gradtrack.Tensor)), None)
    options = ({"dtype": gradtrack.get_default_dtype()} if like is None
               else {"dtype": like.dtype, "device": like.device})
    return gradtrack.broadcast_tensors(
        *[v if _is_tensor_like(v) else gradtrack.tensor(v, **options) for v in values])


def _standard_normal(shape, dtype, device):
    """Standard normal draws of ``shape``: one ``normal_`` over a new tensor, the
    draw torch's reparameterized samples make."""
    return gradtrack.empty(shape, dtype=dtype, device=device).normal_()


def _sum_rightmost(value, dim):
    """``value`` summed over its ``dim`` rightmost dims (itself for 0)."""
    if dim == 0:
        return value
    return value.reshape(value.shape[:-dim] + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary=False):
    """Probabilities from logits: the softmax over the last dim, or the sigmoid of
    each entry when ``is_binary``.

    >>> import gradtrack
    >>> from gradtrack.distributions.utils import logits_to_probs
    >>> logits_to_probs(gradtrack.tensor([0.0, 0.0])), logits_to_probs(gradtrack.tensor([0.0]), True)
    (tensor([0.5000, 0.5000]), tensor([0.5000]))
    """
    if is_binary:
        return gradtrack.sigmoid(logits)
    return gradtrack.nn.functional.softmax(logits, dim=-1)


def clamp_probs(probs):
    """``probs`` clamped to [eps, 1 - eps] of their dtype, so that their logs and the
    logs of their complements are finite.

    >>> import gradtrack
    >>> from gradtrack.distributions.utils import clamp_probs
    >>> clamp_probs(gradtrack.tensor([0.0, 1.0], dtype=gradtrack.float64))
    tensor([2.2204e-16, 1.0000e+00], dtype=gradtrack.float64)
    """
    eps = gradtrack.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    """Logits from probabilities (clamped first): their logs, or the log-odds of
    each entry when ``is_binary``.

    >>> import gradtrack
    >>> from gradtrack.distributions.utils import probs_to_logits
    >>> probs_to_logits(gradtrack.tensor([0.5]), is_binary=True)
    tensor([0.])
    """
    clamped = clamp_probs(probs)
    if is_binary:
        return gradtrack.log(clamped) - gradtrack.log1p(-clamped)
    return gradtrack.log(clamped)


def _tril_mask(n, diag, device):
    # True at (i, j) for j < i + diag + 1: the triangle kept, read in row order
    arange = gradtrack.arange(n, device=device)
    return arange < arange.view(-1, 1) + (diag + 1)


def tril_matrix_to_vec(mat, diag=0):
    """The entries of the (batched) square ``mat`` on and below its ``diag``-th
    diagonal, row by row, as a vector.

    >>> import gradtrack
    >>> from gradtrack.distributions.utils import tril_matrix_to_vec
    >>> tril_matrix_to_vec(gradtrack.arange(9.0).view(3, 3), diag=-1)
    tensor([3., 6., 7.])
    """
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    return mat[..., _tril_mask(n, diag, mat.device)]


def vec_to_tril_matrix(vec, diag=0):
    """The square matrix (one per vector of a batch) whose entries on and below
    its ``diag``-th diagonal are those of ``vec``, row by row, and zeros elsewhere.

    >>> import gradtrack
    >>> from gradtrack.distributions.utils import vec_to_tril_matrix
    >>> vec_to_tril_matrix(gradtrack.tensor([1.0, 2.0, 3.0]))
    tensor([[1., 0.],
            [2., 3.]])
    """
    # the positive root of n ** 2 + (1 + 2 diag) n - |diag| (diag + 1) = 2 * len(vec)
    b = 1 + 2 * diag
    n = (-b + (b ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if round(n) - n > gradtrack.finfo(vec.dtype).eps:
        raise ValueError(f"The size of last dimension is {vec.shape[-1]} which cannot be "
                         "expressed as the lower triangular part of a square D x D matrix.")
    n = round(n)
    mat = vec.new_zeros(vec.shape[:-1] + gradtrack.Size((n, n)))
    mat[..., _tril_mask(n, diag, vec.device)] = vec
    return mat

class lazy_property:
    """A method computed once, on first read, then stored on the instance under its
    own name (which then hides this descriptor). The value is computed with grad
    enabled, so that a parameter made inside ``no_grad`` still carries its graph.

    Read on the class, it is the descriptor itself, which the distributions' argument
    validation looks for to skip parameters not computed yet.

    >>> from gradtrack.distributions.utils import lazy_property
    >>> class Box:
    ...     @lazy_property
    ...     def area(self):
    ...         print("computed")
    ...         return 6
    >>> box = Box()
    >>> box.area
    computed
    6
    >>> box.area, "area" in vars(box)
    (6, True)
    """

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__
        self.__name__ = wrapped.__name__
        self.__qualname__ = getattr(wrapped, "__qualname__", wrapped.__name__)
        self.__module__ = wrapped.__module__
        self.__wrapped__ = wrapped

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        with gradtrack.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value
