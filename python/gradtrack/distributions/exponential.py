"""``Exponential``: the waiting time of a Poisson process of rate ``rate``
(``torch.distributions.Exponential``).

>>> import gradtrack
>>> from gradtrack.distributions import Exponential
>>> Exponential(gradtrack.tensor([1.0, 2.0])).log_prob(gradtrack.tensor([1.0, 1.0]))
tensor([-1.0000, -1.3069])
"""

import gradtrack

from . import constraints
from .exp_family import ExponentialFamily
from .utils import _batch_shape, broadcast_all

__all__ = ["Exponential"]


class Exponential(ExponentialFamily):
    """The exponential distribution of rate ``rate`` (the reciprocal of its mean; a
    number or a tensor).

    >>> import gradtrack
    >>> from gradtrack.distributions import Exponential
    >>> _ = gradtrack.manual_seed(0)
    >>> Exponential(gradtrack.tensor([1.0, 10.0])).sample()
    tensor([3.5083, 0.1230])
    """

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(_batch_shape(self.rate, rate), validate_args=validate_args)

    @property
    def mean(self):
        """``1 / rate``.

        >>> from gradtrack.distributions import Exponential
        >>> Exponential(4.0).mean
        tensor(0.2500)
        """
        return self.rate.reciprocal()

    @property
    def mode(self):
        """0, the density being largest there.

        >>> from gradtrack.distributions import Exponential
        >>> Exponential(4.0).mode
        tensor(0.)
        """
        return gradtrack.zeros_like(self.rate)

    @property
    def stddev(self):
        """``1 / rate``, as the mean.

        >>> from gradtrack.distributions import Exponential
        >>> Exponential(2.0).stddev
        tensor(0.5000)
        """
        return self.rate.reciprocal()

    @property
    def variance(self):
        """``rate ** -2``.

        >>> from gradtrack.distributions import Exponential
        >>> Exponential(2.0).variance
        tensor(0.2500)
        """
        return self.rate.pow(-2)

    def expand(self, batch_shape, _instance=None):
        """This distribution with ``rate`` expanded to ``batch_shape``.

        >>> from gradtrack.distributions import Exponential
        >>> Exponential(2.0).expand([2]).rate
        tensor([2., 2.])
        """
        new = self._get_checked_instance(Exponential, _instance)
        batch_shape = gradtrack.Size(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        super(Exponential, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=gradtrack.Size()):
        """Standard exponential draws (one ``exponential_`` over a new tensor, torch's
        draw) divided by ``rate``: differentiable in ``rate``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Exponential
        >>> _ = gradtrack.manual_seed(0)
        >>> Exponential(2.0).rsample((2,))
        tensor([1.7542, 0.6152])
        """
        shape = self._extended_shape(sample_shape)
        return self.rate.new(shape).exponential_() / self.rate

    def log_prob(self, value):
        """``log(rate) - rate * value``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Exponential
        >>> Exponential(2.0).log_prob(gradtrack.tensor(0.5))
        tensor(-0.3069)
        """
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        """``1 - exp(-rate * value)``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Exponential
        >>> Exponential(1.0).cdf(gradtrack.tensor([0.0, 1.0]))
        tensor([0.0000, 0.6321])
        """
        if self._validate_args:
            self._validate_sample(value)
        return 1 - gradtrack.exp(-self.rate * value)

    def icdf(self, value):
        """``-log(1 - value) / rate``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Exponential
        >>> Exponential(1.0).icdf(gradtrack.tensor(0.5))
        tensor(0.6931)
        """
        return -gradtrack.log1p(-value) / self.rate

    def entropy(self):
        """``1 - log(rate)``.

        >>> from gradtrack.distributions import Exponential
        >>> Exponential(1.0).entropy()
        tensor(1.)
        """
        return 1.0 - gradtrack.log(self.rate)

    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -gradtrack.log(-x)
