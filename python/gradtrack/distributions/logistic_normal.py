"""``LogisticNormal``: a distribution on the simplex, a normal vector sent through
``StickBreakingTransform`` (``torch.distributions.LogisticNormal``): a ``K - 1``
vector ``loc``, ``scale`` gives points of the ``K``-simplex.

>>> import gradtrack
>>> from gradtrack.distributions import LogisticNormal
>>> LogisticNormal(gradtrack.zeros(2), 1.0).log_prob(gradtrack.tensor([0.2, 0.3, 0.5]))
tensor(1.2980)
"""

from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import StickBreakingTransform

__all__ = ["LogisticNormal"]


class LogisticNormal(TransformedDistribution):
    """The logistic-normal distribution of ``Normal(loc, scale)`` (numbers or
    tensors; a number pair makes a 2-simplex) through ``StickBreakingTransform``:
    the last dim of the normal's batch becomes the event.

    >>> import gradtrack
    >>> from gradtrack.distributions import LogisticNormal
    >>> _ = gradtrack.manual_seed(0)
    >>> d = LogisticNormal(gradtrack.zeros(3), gradtrack.ones(3))
    >>> d.event_shape, d.sample()
    (gradtrack.Size([4]), tensor([0.6088, 0.1062, 0.0290, 0.2560]))
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base_dist = Normal(loc, scale, validate_args=validate_args)
        if not base_dist.batch_shape:
            base_dist = base_dist.expand([1])
        super().__init__(base_dist, StickBreakingTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with the normal expanded to ``batch_shape`` plus the
        event.

        >>> from gradtrack.distributions import LogisticNormal
        >>> LogisticNormal(0.0, 1.0).expand([3]).loc.shape
        gradtrack.Size([3, 1])
        """
        new = self._get_checked_instance(LogisticNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def loc(self):
        """The normal's mean.

        >>> from gradtrack.distributions import LogisticNormal
        >>> LogisticNormal(0.5, 1.0).loc
        tensor([0.5000])
        """
        return self.base_dist.base_dist.loc

    @property
    def scale(self):
        """The normal's standard deviation.

        >>> from gradtrack.distributions import LogisticNormal
        >>> LogisticNormal(0.5, 2.0).scale
        tensor([2.])
        """
        return self.base_dist.base_dist.scale
