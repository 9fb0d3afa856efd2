"""``Gumbel``: the extreme value distribution of location ``loc`` and scale
``scale`` (``torch.distributions.Gumbel``), made from a uniform through
``-log(-log(u))``.

>>> import gradtrack
>>> from gradtrack.distributions import Gumbel
>>> Gumbel(0.0, 1.0).log_prob(gradtrack.tensor([0.0, 1.0]))
tensor([-1.0000, -1.3679])
"""

import math

import gradtrack

from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .uniform import Uniform
from .utils import _NUMBER, broadcast_all, euler_constant

__all__ = ["Gumbel"]


class Gumbel(TransformedDistribution):
    """The Gumbel distribution of ``loc`` and ``scale`` (numbers or tensors,
    broadcast together): ``Uniform(tiny, 1 - eps)`` through ``log``, negation,
    ``log`` again and ``loc - scale * x``.

    >>> import gradtrack
    >>> from gradtrack.distributions import Gumbel
    >>> _ = gradtrack.manual_seed(0)
    >>> Gumbel(gradtrack.tensor([0.0, 10.0]), 2.0).sample()
    tensor([ 0.7115, 12.6661])
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        finfo = gradtrack.finfo(self.loc.dtype)
        # bounds inside (0, 1), so that both logs are finite
        if isinstance(loc, _NUMBER) and isinstance(scale, _NUMBER):
            base_dist = Uniform(finfo.tiny, 1 - finfo.eps, validate_args=validate_args)
        else:
            base_dist = Uniform(gradtrack.full_like(self.loc, finfo.tiny),
                                gradtrack.full_like(self.loc, 1 - finfo.eps),
                                validate_args=validate_args)
        transforms = [ExpTransform().inv,
                      AffineTransform(loc=0, scale=-gradtrack.ones_like(self.scale)),
                      ExpTransform().inv,
                      AffineTransform(loc=loc, scale=-self.scale)]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with ``loc`` and ``scale`` expanded to ``batch_shape``.

        >>> from gradtrack.distributions import Gumbel
        >>> Gumbel(0.0, 1.0).expand([2]).scale
        tensor([1., 1.])
        """
        new = self._get_checked_instance(Gumbel, _instance)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    def log_prob(self, value):
        """``z - exp(z) - log(scale)`` with ``z = (loc - value) / scale``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Gumbel
        >>> Gumbel(1.0, 2.0).log_prob(gradtrack.tensor(1.0))
        tensor(-1.6931)
        """
        if self._validate_args:
            self._validate_sample(value)
        y = (self.loc - value) / self.scale
        return (y - y.exp()) - self.scale.log()

    @property
    def mean(self):
        """``loc + scale * euler_constant``.

        >>> from gradtrack.distributions import Gumbel
        >>> Gumbel(0.0, 1.0).mean
        tensor(0.5772)
        """
        return self.loc + self.scale * euler_constant

    @property
    def mode(self):
        """``loc``.

        >>> from gradtrack.distributions import Gumbel
        >>> Gumbel(2.0, 1.0).mode
        tensor(2.)
        """
        return self.loc

    @property
    def stddev(self):
        """``pi / sqrt(6) * scale``.

        >>> from gradtrack.distributions import Gumbel
        >>> Gumbel(0.0, 1.0).stddev
        tensor(1.2825)
        """
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self):
        """``stddev ** 2``.

        >>> from gradtrack.distributions import Gumbel
        >>> Gumbel(0.0, 1.0).variance
        tensor(1.6449)
        """
        return self.stddev.pow(2)

    def entropy(self):
        """``log(scale) + 1 + euler_constant``.

        >>> from gradtrack.distributions import Gumbel
        >>> Gumbel(0.0, 1.0).entropy()
        tensor(1.5772)
        """
        return self.scale.log() + (1 + euler_constant)
