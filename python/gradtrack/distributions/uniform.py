"""``Uniform``: the continuous uniform distribution on ``[low, high)``
(``torch.distributions.Uniform``).

>>> import gradtrack
>>> from gradtrack.distributions import Uniform
>>> Uniform(0.0, 4.0, validate_args=False).log_prob(gradtrack.tensor([1.0, 5.0]))
tensor([-1.3863,    -inf])
"""

import gradtrack

from . import constraints
from .distribution import Distribution
from .utils import _batch_shape, broadcast_all

__all__ = ["Uniform"]


class Uniform(Distribution):
    """The uniform distribution on ``[low, high)`` (numbers or tensors, broadcast
    together; ``low < high`` is checked when validating).

    >>> import gradtrack
    >>> from gradtrack.distributions import Uniform
    >>> _ = gradtrack.manual_seed(0)
    >>> Uniform(gradtrack.tensor([0.0, 10.0]), 20.0).sample()
    tensor([ 9.9251, 17.6822])
    """

    has_rsample = True

    @property
    def arg_constraints(self):
        """Each bound is constrained by the other.

        >>> from gradtrack.distributions import Uniform
        >>> Uniform(0.0, 1.0).arg_constraints
        {'low': LessThan(upper_bound=1.0), 'high': GreaterThan(lower_bound=0.0)}
        """
        return {"low": constraints.less_than(self.high),
                "high": constraints.greater_than(self.low)}

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = broadcast_all(low, high)
        super().__init__(_batch_shape(self.low, low, high), validate_args=validate_args)

    @property
    def mean(self):
        """The midpoint.

        >>> from gradtrack.distributions import Uniform
        >>> Uniform(1.0, 3.0).mean
        tensor(2.)
        """
        return (self.high + self.low) / 2

    @property
    def mode(self):
        """NaN: every point of the interval is as likely.

        >>> from gradtrack.distributions import Uniform
        >>> Uniform(1.0, 3.0).mode
        tensor(nan)
        """
        return gradtrack.nan * self.high

    @property
    def stddev(self):
        """``(high - low) / sqrt(12)``.

        >>> from gradtrack.distributions import Uniform
        >>> Uniform(0.0, 12 ** 0.5).stddev
        tensor(1.)
        """
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self):
        """``(high - low) ** 2 / 12``.

        >>> from gradtrack.distributions import Uniform
        >>> Uniform(0.0, 6.0).variance
        tensor(3.)
        """
        return (self.high - self.low).pow(2) / 12

    def expand(self, batch_shape, _instance=None):
        """This distribution with ``low`` and ``high`` expanded to ``batch_shape``.

        >>> from gradtrack.distributions import Uniform
        >>> Uniform(0.0, 1.0).expand([2]).high
        tensor([1., 1.])
        """
        new = self._get_checked_instance(Uniform, _instance)
        batch_shape = gradtrack.Size(batch_shape)
        new.low = self.low.expand(batch_shape)
        new.high = self.high.expand(batch_shape)
        super(Uniform, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        """The interval from ``low`` to ``high``.

        >>> from gradtrack.distributions import Uniform
        >>> Uniform(0.0, 2.0).support
        Interval(lower_bound=0.0, upper_bound=2.0)
        """
        return constraints.interval(self.low, self.high)

    def rsample(self, sample_shape=gradtrack.Size()):
        """``low + u * (high - low)`` with ``u`` from ``gradtrack.rand`` (torch's
        draw): differentiable in both bounds.

        >>> import gradtrack
        >>> from gradtrack.distributions import Uniform
        >>> _ = gradtrack.manual_seed(0)
        >>> Uniform(0.0, 2.0).rsample((2,))
        tensor([0.9925, 1.5364])
        """
        shape = self._extended_shape(sample_shape)
        u = gradtrack.rand(shape, dtype=self.low.dtype, device=self.low.device)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value):
        """``-log(high - low)`` inside ``[low, high)``, ``-inf`` outside.

        >>> import gradtrack
        >>> from gradtrack.distributions import Uniform
        >>> Uniform(0.0, 2.0, validate_args=False).log_prob(gradtrack.tensor([1.0, 2.0]))
        tensor([-0.6931,    -inf])
        """
        if self._validate_args:
            self._validate_sample(value)
        inside_low = self.low.le(value).type_as(self.low)
        inside_high = self.high.gt(value).type_as(self.low)
        return gradtrack.log(inside_low.mul(inside_high)) - gradtrack.log(self.high - self.low)

    def cdf(self, value):
        """The fraction of the interval below ``value``, clamped to [0, 1].

        >>> import gradtrack
        >>> from gradtrack.distributions import Uniform
        >>> Uniform(0.0, 4.0).cdf(gradtrack.tensor(1.0))
        tensor(0.2500)
        """
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value):
        """``low + value * (high - low)``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Uniform
        >>> Uniform(2.0, 4.0).icdf(gradtrack.tensor(0.5))
        tensor(3.)
        """
        return value * (self.high - self.low) + self.low

    def entropy(self):
        """``log(high - low)``.

        >>> from gradtrack.distributions import Uniform
        >>> Uniform(0.0, 1.0).entropy()
        tensor(0.)
        """
        return gradtrack.log(self.high - self.low)
