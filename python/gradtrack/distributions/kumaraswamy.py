"""``Kumaraswamy``: a distribution on the unit interval with two concentrations,
like the beta but with a closed-form cdf (``torch.distributions.Kumaraswamy``),
made from a uniform ``U`` as ``(1 - U ** (1 / concentration0)) ** (1 / concentration1)``.

>>> import gradtrack
>>> from gradtrack.distributions import Kumaraswamy
>>> Kumaraswamy(2.0, 3.0).log_prob(gradtrack.tensor([0.25, 0.5]))
tensor([0.2764, 0.5232])
"""

import gradtrack

from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .uniform import Uniform
from .utils import broadcast_all, euler_constant

__all__ = ["Kumaraswamy"]


def _moments(a, b, n):
    """The ``n``-th raw moment: ``b * B(1 + n / a, b)``, through ``lgamma``."""
    arg1 = 1 + n / a
    log_value = gradtrack.lgamma(arg1) + gradtrack.lgamma(b) - gradtrack.lgamma(arg1 + b)
    return b * gradtrack.exp(log_value)


class Kumaraswamy(TransformedDistribution):
    """The Kumaraswamy distribution of ``concentration1`` (a) and ``concentration0``
    (b), numbers or tensors broadcast together: ``Uniform(0, 1)`` through the power
    ``1 / b``, ``1 - x`` and the power ``1 / a``.

    >>> import gradtrack
    >>> from gradtrack.distributions import Kumaraswamy
    >>> _ = gradtrack.manual_seed(0)
    >>> Kumaraswamy(gradtrack.tensor([1.0, 5.0]), 2.0).sample()
    tensor([0.2955, 0.6582])
    """

    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        base_dist = Uniform(gradtrack.full_like(self.concentration0, 0),
                            gradtrack.full_like(self.concentration0, 1),
                            validate_args=validate_args)
        transforms = [PowerTransform(exponent=self.concentration0.reciprocal()),
                      AffineTransform(loc=1.0, scale=-1.0),
                      PowerTransform(exponent=self.concentration1.reciprocal())]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with both concentrations expanded to ``batch_shape``.

        >>> from gradtrack.distributions import Kumaraswamy
        >>> Kumaraswamy(1.0, 2.0).expand([2]).concentration0
        tensor([2., 2.])
        """
        new = self._get_checked_instance(Kumaraswamy, _instance)
        new.concentration1 = self.concentration1.expand(batch_shape)
        new.concentration0 = self.concentration0.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        """``b * B(1 + 1 / a, b)``.

        >>> from gradtrack.distributions import Kumaraswamy
        >>> Kumaraswamy(2.0, 3.0).mean
        tensor(0.4571)
        """
        return _moments(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        """``exp(log1p(-b) / b - log1p(-a b))``, as torch computes it, and NaN where a
        concentration is below 1; the log of ``1 - b`` makes it NaN for ``b > 1`` too.

        >>> import gradtrack
        >>> from gradtrack.distributions import Kumaraswamy
        >>> Kumaraswamy(gradtrack.tensor([2.0, 0.5]), 3.0).mode
        tensor([nan, nan])
        """
        a, b = self.concentration1, self.concentration0
        log_mode = b.reciprocal() * (-b).log1p() - (-b * a).log1p()
        log_mode[(b < 1) | (a < 1)] = gradtrack.nan
        return log_mode.exp()

    @property
    def variance(self):
        """The second moment minus the squared mean.

        >>> from gradtrack.distributions import Kumaraswamy
        >>> Kumaraswamy(2.0, 3.0).variance
        tensor(0.0410)
        """
        return (_moments(self.concentration1, self.concentration0, 2)
                - gradtrack.pow(self.mean, 2))

    def entropy(self):
        """``(1 - 1 / b) + (1 - 1 / a) * H_b - log a - log b``, ``H_b`` the b-th
        harmonic number (``digamma(b + 1) + euler_constant``).

        >>> from gradtrack.distributions import Kumaraswamy
        >>> Kumaraswamy(2.0, 3.0).entropy()
        tensor(-0.2084)
        """
        t1 = 1 - self.concentration1.reciprocal()
        t0 = 1 - self.concentration0.reciprocal()
        harmonic = gradtrack.digamma(self.concentration0 + 1) + euler_constant
        return (t0 + t1 * harmonic - gradtrack.log(self.concentration1)
                - gradtrack.log(self.concentration0))
