"""``HalfCauchy``: the distribution of ``|X|`` for a Cauchy ``X`` centred at 0
(``torch.distributions.HalfCauchy``).

>>> import gradtrack
>>> from gradtrack.distributions import HalfCauchy
>>> HalfCauchy(1.0).log_prob(gradtrack.tensor([0.0, 1.0]))
tensor([-0.4516, -1.1447])
"""

import math

import gradtrack

from . import constraints
from .cauchy import Cauchy
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform

__all__ = ["HalfCauchy"]


class HalfCauchy(TransformedDistribution):
    """The half-Cauchy distribution of the Cauchy of scale ``scale``:
    ``Cauchy(0, scale)`` through ``AbsTransform``.

    >>> import gradtrack
    >>> from gradtrack.distributions import HalfCauchy
    >>> _ = gradtrack.manual_seed(0)
    >>> HalfCauchy(gradtrack.tensor([1.0, 10.0])).sample()
    tensor([10.5977,  7.6477])
    """

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        # scale is validated once, by this distribution
        base_dist = Cauchy(0, scale, validate_args=False)
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with ``scale`` expanded to ``batch_shape``.

        >>> from gradtrack.distributions import HalfCauchy
        >>> HalfCauchy(2.0).expand([2]).scale
        tensor([2., 2.])
        """
        new = self._get_checked_instance(HalfCauchy, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def scale(self):
        """The scale of the Cauchy folded.

        >>> from gradtrack.distributions import HalfCauchy
        >>> HalfCauchy(2.0).scale
        tensor(2.)
        """
        return self.base_dist.scale

    @property
    def mean(self):
        """Infinite: the tail is too heavy for a finite mean.

        >>> from gradtrack.distributions import HalfCauchy
        >>> HalfCauchy(1.0).mean
        tensor(inf)
        """
        return gradtrack.full(self._extended_shape(), math.inf, dtype=self.scale.dtype,
                              device=self.scale.device)

    @property
    def mode(self):
        """0.

        >>> from gradtrack.distributions import HalfCauchy
        >>> HalfCauchy(1.0).mode
        tensor(0.)
        """
        return gradtrack.zeros_like(self.scale)

    @property
    def variance(self):
        """The Cauchy's: infinite.

        >>> from gradtrack.distributions import HalfCauchy
        >>> HalfCauchy(1.0).variance
        tensor(inf)
        """
        return self.base_dist.variance

    def log_prob(self, value):
        """The Cauchy's log density doubled (``+ log 2``) from 0 up, ``-inf`` below.

        >>> import gradtrack
        >>> from gradtrack.distributions import HalfCauchy
        >>> HalfCauchy(1.0, validate_args=False).log_prob(gradtrack.tensor([-1.0, 2.0]))
        tensor([   -inf, -2.0610])
        """
        if self._validate_args:
            self._validate_sample(value)
        value = gradtrack.as_tensor(value, dtype=self.base_dist.scale.dtype,
                                    device=self.base_dist.scale.device)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return gradtrack.where(value >= 0, log_prob, -gradtrack.inf)

    def cdf(self, value):
        """``2 * cauchy_cdf(value) - 1``.

        >>> import gradtrack
        >>> from gradtrack.distributions import HalfCauchy
        >>> HalfCauchy(1.0).cdf(gradtrack.tensor([0.0, 1.0]))
        tensor([0.0000, 0.5000])
        """
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        """The Cauchy's icdf at ``(prob + 1) / 2``.

        >>> import gradtrack
        >>> from gradtrack.distributions import HalfCauchy
        >>> HalfCauchy(2.0).icdf(gradtrack.tensor(0.5))
        tensor(2.)
        """
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        """The Cauchy's entropy minus ``log 2``.

        >>> from gradtrack.distributions import HalfCauchy
        >>> HalfCauchy(1.0).entropy()
        tensor(1.8379)
        """
        return self.base_dist.entropy() - math.log(2)
