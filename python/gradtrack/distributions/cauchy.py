"""``Cauchy``: the Lorentz distribution of median ``loc`` and half width ``scale``
(``torch.distributions.Cauchy``); it has no mean and an infinite variance.

>>> import gradtrack
>>> from gradtrack.distributions import Cauchy
>>> Cauchy(0.0, 1.0).cdf(gradtrack.tensor([-1.0, 0.0, 1.0]))
tensor([0.2500, 0.5000, 0.7500])
"""

import math

import gradtrack

from . import constraints
from .distribution import Distribution
from .utils import _batch_shape, broadcast_all

__all__ = ["Cauchy"]


class Cauchy(Distribution):
    """The Cauchy distribution of location ``loc`` and scale ``scale`` (numbers or
    tensors, broadcast together).

    >>> import gradtrack
    >>> from gradtrack.distributions import Cauchy
    >>> _ = gradtrack.manual_seed(0)
    >>> Cauchy(gradtrack.tensor([0.0, 10.0]), 0.5).sample()
    tensor([ 5.2989, 10.3824])
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        batch_shape = _batch_shape(self.loc, loc, scale)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with ``loc`` and ``scale`` expanded to ``batch_shape``.

        >>> from gradtrack.distributions import Cauchy
        >>> Cauchy(1.0, 2.0).expand([2]).loc
        tensor([1., 1.])
        """
        new = self._get_checked_instance(Cauchy, _instance)
        batch_shape = gradtrack.Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        super(Cauchy, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        """NaN: the mean does not exist.

        >>> import gradtrack
        >>> from gradtrack.distributions import Cauchy
        >>> Cauchy(gradtrack.zeros(2), 1.0).mean
        tensor([nan, nan])
        """
        return gradtrack.full(self._extended_shape(), gradtrack.nan, dtype=self.loc.dtype,
                              device=self.loc.device)

    @property
    def mode(self):
        """``loc``.

        >>> from gradtrack.distributions import Cauchy
        >>> Cauchy(2.0, 1.0).mode
        tensor(2.)
        """
        return self.loc

    @property
    def variance(self):
        """Infinity.

        >>> from gradtrack.distributions import Cauchy
        >>> Cauchy(0.0, 1.0).variance
        tensor(inf)
        """
        return gradtrack.full(self._extended_shape(), gradtrack.inf, dtype=self.loc.dtype,
                              device=self.loc.device)

    def rsample(self, sample_shape=gradtrack.Size()):
        """``loc + eps * scale`` with standard Cauchy ``eps`` (one ``cauchy_`` over a
        new tensor, torch's draw): differentiable in ``loc`` and ``scale``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Cauchy
        >>> _ = gradtrack.manual_seed(0)
        >>> Cauchy(0.0, 1.0).rsample((2,))
        tensor([10.5977,  0.7648])
        """
        shape = self._extended_shape(sample_shape)
        eps = self.loc.new(shape).cauchy_()
        return self.loc + eps * self.scale

    def log_prob(self, value):
        """``-log(pi) - log(scale) - log(1 + ((value - loc) / scale) ** 2)``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Cauchy
        >>> Cauchy(0.0, 1.0).log_prob(gradtrack.tensor([0.0, 1.0]))
        tensor([-1.1447, -1.8379])
        """
        if self._validate_args:
            self._validate_sample(value)
        return (-math.log(math.pi) - self.scale.log()
                - (((value - self.loc) / self.scale) ** 2).log1p())

    def cdf(self, value):
        """``atan((value - loc) / scale) / pi + 1 / 2``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Cauchy
        >>> Cauchy(0.0, 2.0).cdf(gradtrack.tensor(2.0))
        tensor(0.7500)
        """
        if self._validate_args:
            self._validate_sample(value)
        return gradtrack.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        """``tan(pi * (value - 1 / 2)) * scale + loc``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Cauchy
        >>> Cauchy(1.0, 1.0).icdf(gradtrack.tensor(0.5))
        tensor(1.)
        """
        return gradtrack.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self):
        """``log(4 pi) + log(scale)``.

        >>> from gradtrack.distributions import Cauchy
        >>> Cauchy(0.0, 1.0).entropy()
        tensor(2.5310)
        """
        return math.log(4 * math.pi) + self.scale.log()
