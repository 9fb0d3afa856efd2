"""``LogNormal``: the distribution of ``exp(X)`` for a normal ``X``
(``torch.distributions.LogNormal``).

>>> import gradtrack
>>> from gradtrack.distributions import LogNormal
>>> LogNormal(0.0, 1.0).log_prob(gradtrack.tensor([1.0, 2.0]))
tensor([-0.9189, -1.8523])
"""

from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform

__all__ = ["LogNormal"]


class LogNormal(TransformedDistribution):
    """The log-normal distribution whose log has mean ``loc`` and standard
    deviation ``scale``: ``Normal(loc, scale)`` through ``ExpTransform``.

    >>> import gradtrack
    >>> from gradtrack.distributions import LogNormal
    >>> _ = gradtrack.manual_seed(0)
    >>> LogNormal(gradtrack.tensor([0.0, 1.0]), 0.5).sample()
    tensor([2.1608, 2.3473])
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base_dist = Normal(loc, scale, validate_args=validate_args)
        super().__init__(base_dist, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with ``loc`` and ``scale`` expanded to ``batch_shape``.

        >>> from gradtrack.distributions import LogNormal
        >>> LogNormal(0.0, 1.0).expand([2]).loc
        tensor([0., 0.])
        """
        new = self._get_checked_instance(LogNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def loc(self):
        """The mean of the log.

        >>> from gradtrack.distributions import LogNormal
        >>> LogNormal(1.0, 2.0).loc
        tensor(1.)
        """
        return self.base_dist.loc

    @property
    def scale(self):
        """The standard deviation of the log.

        >>> from gradtrack.distributions import LogNormal
        >>> LogNormal(1.0, 2.0).scale
        tensor(2.)
        """
        return self.base_dist.scale

    @property
    def mean(self):
        """``exp(loc + scale ** 2 / 2)``.

        >>> from gradtrack.distributions import LogNormal
        >>> LogNormal(0.0, 1.0).mean
        tensor(1.6487)
        """
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self):
        """``exp(loc - scale ** 2)``.

        >>> from gradtrack.distributions import LogNormal
        >>> LogNormal(1.0, 1.0).mode
        tensor(1.)
        """
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self):
        """``(exp(scale ** 2) - 1) * exp(2 loc + scale ** 2)``.

        >>> from gradtrack.distributions import LogNormal
        >>> LogNormal(0.0, 1.0).variance
        tensor(4.6708)
        """
        scale_sq = self.scale.pow(2)
        return scale_sq.expm1() * (2 * self.loc + scale_sq).exp()

    def entropy(self):
        """The normal's entropy plus ``loc``.

        >>> from gradtrack.distributions import LogNormal
        >>> LogNormal(1.0, 1.0).entropy()
        tensor(2.4189)
        """
        return self.base_dist.entropy() + self.loc
