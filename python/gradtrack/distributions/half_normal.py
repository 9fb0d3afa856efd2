"""``HalfNormal``: the distribution of ``|X|`` for a normal ``X`` of mean 0
(``torch.distributions.HalfNormal``).

>>> import gradtrack
>>> from gradtrack.distributions import HalfNormal
>>> HalfNormal(1.0).log_prob(gradtrack.tensor([0.0, 1.0]))
tensor([-0.2258, -0.7258])
"""

import math

import gradtrack

from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform

__all__ = ["HalfNormal"]


class HalfNormal(TransformedDistribution):
    """The half-normal distribution of the normal of scale ``scale``:
    ``Normal(0, scale)`` through ``AbsTransform``.

    >>> import gradtrack
    >>> from gradtrack.distributions import HalfNormal
    >>> _ = gradtrack.manual_seed(0)
    >>> HalfNormal(gradtrack.tensor([1.0, 10.0])).sample()
    tensor([1.5410, 2.9343])
    """

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        # scale is validated once, by this distribution
        base_dist = Normal(0, scale, validate_args=False)
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with ``scale`` expanded to ``batch_shape``.

        >>> from gradtrack.distributions import HalfNormal
        >>> HalfNormal(2.0).expand([2]).scale
        tensor([2., 2.])
        """
        new = self._get_checked_instance(HalfNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def scale(self):
        """The scale of the normal folded.

        >>> from gradtrack.distributions import HalfNormal
        >>> HalfNormal(2.0).scale
        tensor(2.)
        """
        return self.base_dist.scale

    @property
    def mean(self):
        """``scale * sqrt(2 / pi)``.

        >>> from gradtrack.distributions import HalfNormal
        >>> HalfNormal(1.0).mean
        tensor(0.7979)
        """
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def mode(self):
        """0.

        >>> from gradtrack.distributions import HalfNormal
        >>> HalfNormal(1.0).mode
        tensor(0.)
        """
        return gradtrack.zeros_like(self.scale)

    @property
    def variance(self):
        """``scale ** 2 * (1 - 2 / pi)``.

        >>> from gradtrack.distributions import HalfNormal
        >>> HalfNormal(1.0).variance
        tensor(0.3634)
        """
        return self.scale.pow(2) * (1 - 2 / math.pi)

    def log_prob(self, value):
        """The normal's log density doubled (``+ log 2``) from 0 up, ``-inf`` below.

        >>> import gradtrack
        >>> from gradtrack.distributions import HalfNormal
        >>> HalfNormal(1.0, validate_args=False).log_prob(gradtrack.tensor([-1.0, 1.0]))
        tensor([   -inf, -0.7258])
        """
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return gradtrack.where(value >= 0, log_prob, -gradtrack.inf)

    def cdf(self, value):
        """``2 * normal_cdf(value) - 1``.

        >>> import gradtrack
        >>> from gradtrack.distributions import HalfNormal
        >>> HalfNormal(1.0).cdf(gradtrack.tensor([0.0, 1.0]))
        tensor([0.0000, 0.6827])
        """
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        """The normal's icdf at ``(prob + 1) / 2``.

        >>> import gradtrack
        >>> from gradtrack.distributions import HalfNormal
        >>> HalfNormal(1.0).icdf(gradtrack.tensor(0.5))
        tensor(0.6745)
        """
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        """The normal's entropy minus ``log 2``.

        >>> from gradtrack.distributions import HalfNormal
        >>> HalfNormal(1.0).entropy()
        tensor(0.7258)
        """
        return self.base_dist.entropy() - math.log(2)
