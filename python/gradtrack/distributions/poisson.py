"""``Poisson``: the number of events of a Poisson process of rate ``rate`` in unit
time (``torch.distributions.Poisson``).

>>> import gradtrack
>>> from gradtrack.distributions import Poisson
>>> Poisson(2.0).log_prob(gradtrack.tensor([0.0, 2.0]))
tensor([-2.0000, -1.3069])
"""

import gradtrack

from . import constraints
from .exp_family import ExponentialFamily
from .utils import _batch_shape, broadcast_all

__all__ = ["Poisson"]


class Poisson(ExponentialFamily):
    """The Poisson distribution of nonnegative rate ``rate`` (a number or a tensor).

    >>> import gradtrack
    >>> from gradtrack.distributions import Poisson
    >>> _ = gradtrack.manual_seed(0)
    >>> Poisson(gradtrack.tensor([1.0, 20.0])).sample()
    tensor([ 2., 28.])
    """

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(_batch_shape(self.rate, rate), validate_args=validate_args)

    @property
    def mean(self):
        """``rate``.

        >>> from gradtrack.distributions import Poisson
        >>> Poisson(3.5).mean
        tensor(3.5000)
        """
        return self.rate

    @property
    def mode(self):
        """``floor(rate)``.

        >>> from gradtrack.distributions import Poisson
        >>> Poisson(3.5).mode
        tensor(3.)
        """
        return self.rate.floor()

    @property
    def variance(self):
        """``rate``.

        >>> from gradtrack.distributions import Poisson
        >>> Poisson(3.5).variance
        tensor(3.5000)
        """
        return self.rate

    def expand(self, batch_shape, _instance=None):
        """This distribution with ``rate`` expanded to ``batch_shape``.

        >>> from gradtrack.distributions import Poisson
        >>> Poisson(3.0).expand([2]).rate
        tensor([3., 3.])
        """
        new = self._get_checked_instance(Poisson, _instance)
        batch_shape = gradtrack.Size(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        super(Poisson, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=gradtrack.Size()):
        """Draws without gradient: one ``gradtrack.poisson`` of the expanded ``rate``
        (torch's draw).

        >>> import gradtrack
        >>> from gradtrack.distributions import Poisson
        >>> _ = gradtrack.manual_seed(0)
        >>> Poisson(4.0).sample((3,))
        tensor([7., 3., 5.])
        """
        shape = self._extended_shape(sample_shape)
        with gradtrack.no_grad():
            return gradtrack.poisson(self.rate.expand(shape))

    def log_prob(self, value):
        """``value * log(rate) - rate - log(value!)`` (``0 * log(0)`` taken as 0).

        >>> import gradtrack
        >>> from gradtrack.distributions import Poisson
        >>> Poisson(gradtrack.tensor([0.0, 1.0])).log_prob(gradtrack.tensor([0.0, 1.0]))
        tensor([ 0., -1.])
        """
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return value.xlogy(rate) - rate - (value + 1).lgamma()

    @property
    def _natural_params(self):
        return (gradtrack.log(self.rate),)

    def _log_normalizer(self, x):
        return gradtrack.exp(x)
