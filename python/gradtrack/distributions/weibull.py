"""``Weibull``: the two-parameter Weibull distribution of scale ``scale`` and shape
``concentration`` (``torch.distributions.Weibull``), made from a unit exponential
``E`` as ``scale * E ** (1 / concentration)``.

>>> import gradtrack
>>> from gradtrack.distributions import Weibull
>>> Weibull(1.0, 2.0).log_prob(gradtrack.tensor([0.5, 1.0]))
tensor([-0.2500, -0.3069])
"""

import gradtrack

from . import constraints
from .exponential import Exponential
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .utils import broadcast_all, euler_constant

__all__ = ["Weibull"]


class Weibull(TransformedDistribution):
    """The Weibull distribution of ``scale`` (lambda) and ``concentration`` (k),
    numbers or tensors broadcast together: ``Exponential(1)`` through the power
    ``1 / concentration`` and the scaling by ``scale``.

    >>> import gradtrack
    >>> from gradtrack.distributions import Weibull
    >>> _ = gradtrack.manual_seed(0)
    >>> Weibull(gradtrack.tensor([1.0, 10.0]), 2.0).sample()
    tensor([ 1.8731, 11.0923])
    """

    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive

    def __init__(self, scale, concentration, validate_args=None):
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        base_dist = Exponential(gradtrack.ones_like(self.scale), validate_args=validate_args)
        transforms = [PowerTransform(exponent=self.concentration_reciprocal),
                      AffineTransform(loc=0, scale=self.scale)]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with ``scale`` and ``concentration`` expanded to
        ``batch_shape``.

        >>> from gradtrack.distributions import Weibull
        >>> Weibull(1.0, 2.0).expand([2]).concentration
        tensor([2., 2.])
        """
        new = self._get_checked_instance(Weibull, _instance)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.concentration_reciprocal = new.concentration.reciprocal()
        base_dist = self.base_dist.expand(batch_shape)
        transforms = [PowerTransform(exponent=new.concentration_reciprocal),
                      AffineTransform(loc=0, scale=new.scale)]
        super(Weibull, new).__init__(base_dist, transforms, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        """``scale * Gamma(1 + 1 / concentration)``.

        >>> from gradtrack.distributions import Weibull
        >>> Weibull(1.0, 2.0).mean
        tensor(0.8862)
        """
        return self.scale * gradtrack.exp(gradtrack.lgamma(1 + self.concentration_reciprocal))

    @property
    def mode(self):
        """``scale * ((k - 1) / k) ** (1 / k)`` for ``k = concentration`` (NaN for
        ``k < 1``, where the density has no peak).

        >>> from gradtrack.distributions import Weibull
        >>> Weibull(1.0, 2.0).mode
        tensor(0.7071)
        """
        k = self.concentration
        return self.scale * ((k - 1) / k) ** k.reciprocal()

    @property
    def variance(self):
        """``scale ** 2 * (Gamma(1 + 2 / k) - Gamma(1 + 1 / k) ** 2)``.

        >>> from gradtrack.distributions import Weibull
        >>> Weibull(1.0, 2.0).variance
        tensor(0.2146)
        """
        lgamma = gradtrack.lgamma
        return self.scale.pow(2) * (
            gradtrack.exp(lgamma(1 + 2 * self.concentration_reciprocal))
            - gradtrack.exp(2 * lgamma(1 + self.concentration_reciprocal)))

    def entropy(self):
        """``euler_constant * (1 - 1 / k) + log(scale / k) + 1``.

        >>> from gradtrack.distributions import Weibull
        >>> Weibull(1.0, 2.0).entropy()
        tensor(0.5955)
        """
        return (euler_constant * (1 - self.concentration_reciprocal)
                + gradtrack.log(self.scale * self.concentration_reciprocal) + 1)
