"""``Laplace``: the double exponential distribution of center ``loc`` and scale
``scale`` (``torch.distributions.Laplace``).

>>> import gradtrack
>>> from gradtrack.distributions import Laplace
>>> Laplace(0.0, 1.0).log_prob(gradtrack.tensor([0.0, 1.0]))
tensor([-0.6931, -1.6931])
"""

import gradtrack

from . import constraints
from .distribution import Distribution
from .utils import _batch_shape, broadcast_all

__all__ = ["Laplace"]


class Laplace(Distribution):
    """The Laplace distribution of location ``loc`` and scale ``scale`` (numbers or
    tensors, broadcast together).

    >>> import gradtrack
    >>> from gradtrack.distributions import Laplace
    >>> _ = gradtrack.manual_seed(0)
    >>> Laplace(gradtrack.tensor([0.0, 10.0]), 1.0).sample()
    tensor([-7.5149e-03,  1.0769e+01])
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        batch_shape = _batch_shape(self.loc, loc, scale)
        super().__init__(batch_shape, validate_args=validate_args)

    @property
    def mean(self):
        """``loc``.

        >>> from gradtrack.distributions import Laplace
        >>> Laplace(1.5, 1.0).mean
        tensor(1.5000)
        """
        return self.loc

    @property
    def mode(self):
        """``loc``.

        >>> from gradtrack.distributions import Laplace
        >>> Laplace(1.5, 1.0).mode
        tensor(1.5000)
        """
        return self.loc

    @property
    def variance(self):
        """``2 * scale ** 2``.

        >>> from gradtrack.distributions import Laplace
        >>> Laplace(0.0, 3.0).variance
        tensor(18.)
        """
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        """``sqrt(2) * scale``.

        >>> from gradtrack.distributions import Laplace
        >>> Laplace(0.0, 1.0).stddev
        tensor(1.4142)
        """
        return (2 ** 0.5) * self.scale

    def expand(self, batch_shape, _instance=None):
        """This distribution with ``loc`` and ``scale`` expanded to ``batch_shape``.

        >>> from gradtrack.distributions import Laplace
        >>> Laplace(0.0, 1.0).expand([2]).scale
        tensor([1., 1.])
        """
        new = self._get_checked_instance(Laplace, _instance)
        batch_shape = gradtrack.Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        super(Laplace, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=gradtrack.Size()):
        """The inverse cdf at ``u`` drawn by ``uniform_(eps - 1, 1)`` over a new tensor
        (torch's draw; ``eps`` keeps ``|u|`` below 1, so the log is finite):
        differentiable in ``loc`` and ``scale``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Laplace
        >>> _ = gradtrack.manual_seed(0)
        >>> Laplace(0.0, 1.0).rsample((3,))
        tensor([-0.0075,  0.7688, -1.7319])
        """
        shape = self._extended_shape(sample_shape)
        eps = gradtrack.finfo(self.loc.dtype).eps
        u = self.loc.new(shape).uniform_(eps - 1, 1)
        return self.loc - self.scale * u.sign() * gradtrack.log1p(-u.abs())

    def log_prob(self, value):
        """``-log(2 * scale) - |value - loc| / scale``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Laplace
        >>> Laplace(0.0, 2.0).log_prob(gradtrack.tensor(2.0))
        tensor(-2.3863)
        """
        if self._validate_args:
            self._validate_sample(value)
        return -gradtrack.log(2 * self.scale) - gradtrack.abs(value - self.loc) / self.scale

    def cdf(self, value):
        """The probability of a draw at most ``value``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Laplace
        >>> Laplace(0.0, 1.0).cdf(gradtrack.tensor([-1.0, 0.0, 1.0]))
        tensor([0.1839, 0.5000, 0.8161])
        """
        if self._validate_args:
            self._validate_sample(value)
        centered = value - self.loc
        return 0.5 - 0.5 * centered.sign() * gradtrack.expm1(-centered.abs() / self.scale)

    def icdf(self, value):
        """The value below which a draw falls with probability ``value``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Laplace
        >>> Laplace(1.0, 1.0).icdf(gradtrack.tensor([0.5, 0.75]))
        tensor([1.0000, 1.6931])
        """
        term = value - 0.5
        return self.loc - self.scale * term.sign() * gradtrack.log1p(-2 * term.abs())

    def entropy(self):
        """``1 + log(2 * scale)``.

        >>> from gradtrack.distributions import Laplace
        >>> Laplace(0.0, 0.5).entropy()
        tensor(1.)
        """
        return 1 + gradtrack.log(2 * self.scale)
