"""``InverseGamma``: the reciprocal of a gamma variable
(``torch.distributions.InverseGamma``), a ``Gamma`` sent through
``PowerTransform(-1)``.

>>> import gradtrack
>>> from gradtrack.distributions import InverseGamma
>>> InverseGamma(3.0, 2.0).mean
tensor(1.)
"""

import gradtrack

from . import constraints
from .gamma import Gamma
from .transformed_distribution import TransformedDistribution
from .transforms import PowerTransform

__all__ = ["InverseGamma"]


class InverseGamma(TransformedDistribution):
    """The distribution of ``1 / X`` for ``X ~ Gamma(concentration, rate)`` (numbers
    or tensors).

    >>> import gradtrack
    >>> from gradtrack.distributions import InverseGamma
    >>> _ = gradtrack.manual_seed(0)
    >>> InverseGamma(gradtrack.tensor([2.0, 10.0]), 3.0).sample()
    tensor([0.6590, 0.3416])
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        base_dist = Gamma(concentration, rate, validate_args=validate_args)
        neg_one = -base_dist.rate.new_ones(())
        super().__init__(base_dist, PowerTransform(neg_one), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with the base gamma expanded to ``batch_shape``.

        >>> from gradtrack.distributions import InverseGamma
        >>> InverseGamma(3.0, 2.0).expand([2]).rate
        tensor([2., 2.])
        """
        new = self._get_checked_instance(InverseGamma, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def concentration(self):
        """The base gamma's concentration.

        >>> from gradtrack.distributions import InverseGamma
        >>> InverseGamma(3.0, 2.0).concentration
        tensor(3.)
        """
        return self.base_dist.concentration

    @property
    def rate(self):
        """The base gamma's rate.

        >>> from gradtrack.distributions import InverseGamma
        >>> InverseGamma(3.0, 2.0).rate
        tensor(2.)
        """
        return self.base_dist.rate

    @property
    def mean(self):
        """``rate / (concentration - 1)``, infinite where ``concentration <= 1``.

        >>> import gradtrack
        >>> from gradtrack.distributions import InverseGamma
        >>> InverseGamma(gradtrack.tensor([0.5, 3.0]), 2.0).mean
        tensor([inf, 1.])
        """
        result = self.rate / (self.concentration - 1)
        return gradtrack.where(self.concentration > 1, result, gradtrack.inf)

    @property
    def mode(self):
        """``rate / (concentration + 1)``.

        >>> from gradtrack.distributions import InverseGamma
        >>> InverseGamma(3.0, 2.0).mode
        tensor(0.5000)
        """
        return self.rate / (self.concentration + 1)

    @property
    def variance(self):
        """``rate ** 2 / ((concentration - 1) ** 2 (concentration - 2))``, infinite
        where ``concentration <= 2``.

        >>> import gradtrack
        >>> from gradtrack.distributions import InverseGamma
        >>> InverseGamma(gradtrack.tensor([2.0, 3.0]), 2.0).variance
        tensor([inf, 1.])
        """
        result = self.rate.square() / ((self.concentration - 1).square()
                                       * (self.concentration - 2))
        return gradtrack.where(self.concentration > 2, result, gradtrack.inf)

    def entropy(self):
        """``alpha + log(beta) + lgamma(alpha) - (1 + alpha) digamma(alpha)``.

        >>> from gradtrack.distributions import InverseGamma
        >>> InverseGamma(1.0, 1.0).entropy()
        tensor(2.1544)
        """
        return (self.concentration + self.rate.log() + self.concentration.lgamma()
                - (1 + self.concentration) * self.concentration.digamma())
