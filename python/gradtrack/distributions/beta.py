"""``Beta``: a distribution on [0, 1], the first coordinate of a two-category
Dirichlet (``torch.distributions.Beta``).

>>> import gradtrack
>>> from gradtrack.distributions import Beta
>>> Beta(2.0, 2.0).log_prob(gradtrack.tensor([0.5, 0.25]))
tensor([0.4055, 0.1178])
"""

import gradtrack

from . import constraints
from .dirichlet import Dirichlet
from .exp_family import ExponentialFamily
from .utils import _NUMBER, broadcast_all

__all__ = ["Beta"]


class Beta(ExponentialFamily):
    """The beta distribution of ``concentration1`` (alpha, the weight of 1) and
    ``concentration0`` (beta, the weight of 0); each a number or a tensor. It keeps
    the Dirichlet of the two stacked along a last dim.

    >>> import gradtrack
    >>> from gradtrack.distributions import Beta
    >>> _ = gradtrack.manual_seed(0)
    >>> Beta(gradtrack.tensor([0.5, 5.0]), gradtrack.tensor([0.5, 1.0])).sample()
    tensor([0.0176, 0.7763])
    """

    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        if isinstance(concentration1, _NUMBER) and isinstance(concentration0, _NUMBER):
            both = gradtrack.tensor([float(concentration1), float(concentration0)])
        else:
            concentration1, concentration0 = broadcast_all(concentration1, concentration0)
            both = gradtrack.stack([concentration1, concentration0], -1)
        self._dirichlet = Dirichlet(both, validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its parameters expanded to ``batch_shape``.

        >>> from gradtrack.distributions import Beta
        >>> Beta(2.0, 3.0).expand([2]).concentration0
        tensor([3., 3.])
        """
        new = self._get_checked_instance(Beta, _instance)
        batch_shape = gradtrack.Size(batch_shape)
        new._dirichlet = self._dirichlet.expand(batch_shape)
        super(Beta, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        """``alpha / (alpha + beta)``.

        >>> from gradtrack.distributions import Beta
        >>> Beta(1.0, 3.0).mean
        tensor(0.2500)
        """
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        """The first coordinate of the Dirichlet's mode.

        >>> import gradtrack
        >>> from gradtrack.distributions import Beta
        >>> Beta(gradtrack.tensor([2.0, 0.5]), gradtrack.tensor([3.0, 0.5])).mode
        tensor([0.3333, 1.0000])
        """
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self):
        """``alpha beta / ((alpha + beta) ** 2 (alpha + beta + 1))``.

        >>> from gradtrack.distributions import Beta
        >>> Beta(1.0, 1.0).variance
        tensor(0.0833)
        """
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=()):
        """The first coordinate of a reparameterized Dirichlet draw.

        >>> import gradtrack
        >>> from gradtrack.distributions import Beta
        >>> _ = gradtrack.manual_seed(0)
        >>> Beta(gradtrack.tensor(2.0, requires_grad=True), 2.0).rsample((2,))
        tensor([0.7758, 0.5887], grad_fn=<SelectBackward0>)
        """
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value):
        """The Dirichlet's log density at ``(value, 1 - value)``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Beta
        >>> Beta(1.0, 1.0).log_prob(gradtrack.tensor(0.3))
        tensor(0.)
        """
        if self._validate_args:
            self._validate_sample(value)
        heads_tails = gradtrack.stack([value, 1.0 - value], -1)
        return self._dirichlet.log_prob(heads_tails)

    def entropy(self):
        """The Dirichlet's entropy.

        >>> from gradtrack.distributions import Beta
        >>> Beta(1.0, 1.0).entropy()
        tensor(0.)
        """
        return self._dirichlet.entropy()

    @property
    def concentration1(self):
        """alpha: the Dirichlet's first concentration.

        >>> import gradtrack
        >>> from gradtrack.distributions import Beta
        >>> Beta(gradtrack.tensor([2.0, 4.0]), 1.0).concentration1
        tensor([2., 4.])
        """
        result = self._dirichlet.concentration[..., 0]
        if isinstance(result, _NUMBER):
            return gradtrack.tensor([result])
        return result

    @property
    def concentration0(self):
        """beta: the Dirichlet's second concentration.

        >>> from gradtrack.distributions import Beta
        >>> Beta(2.0, 5.0).concentration0
        tensor(5.)
        """
        result = self._dirichlet.concentration[..., 1]
        if isinstance(result, _NUMBER):
            return gradtrack.tensor([result])
        return result

    @property
    def _natural_params(self):
        return (self.concentration1, self.concentration0)

    def _log_normalizer(self, x, y):
        return gradtrack.lgamma(x) + gradtrack.lgamma(y) - gradtrack.lgamma(x + y)
