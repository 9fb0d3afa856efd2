"""``Normal``: the Gaussian distribution of mean ``loc`` and standard deviation
``scale`` (``torch.distributions.Normal``).

>>> import gradtrack
>>> from gradtrack.distributions import Normal
>>> Normal(gradtrack.tensor([0.0, 1.0]), 1.0).log_prob(gradtrack.tensor([0.0, 0.0]))
tensor([-0.9189, -1.4189])
"""

import math

import gradtrack

from . import constraints
from .exp_family import ExponentialFamily
from .utils import _NUMBER, _batch_shape, _standard_normal, broadcast_all

__all__ = ["Normal"]


class Normal(ExponentialFamily):
    """The normal distribution of mean ``loc`` and standard deviation ``scale``
    (numbers or tensors, broadcast together).

    >>> import gradtrack
    >>> from gradtrack.distributions import Normal
    >>> _ = gradtrack.manual_seed(0)
    >>> Normal(gradtrack.tensor([0.0, 10.0]), gradtrack.tensor([1.0, 0.1])).sample()
    tensor([1.5410, 9.9707])
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        batch_shape = _batch_shape(self.loc, loc, scale)
        super().__init__(batch_shape, validate_args=validate_args)

    @property
    def mean(self):
        """``loc``.

        >>> from gradtrack.distributions import Normal
        >>> Normal(3.0, 1.0).mean
        tensor(3.)
        """
        return self.loc

    @property
    def mode(self):
        """``loc``.

        >>> from gradtrack.distributions import Normal
        >>> Normal(3.0, 1.0).mode
        tensor(3.)
        """
        return self.loc

    @property
    def stddev(self):
        """``scale``.

        >>> from gradtrack.distributions import Normal
        >>> Normal(0.0, 2.0).stddev
        tensor(2.)
        """
        return self.scale

    @property
    def variance(self):
        """``scale`` squared.

        >>> from gradtrack.distributions import Normal
        >>> Normal(0.0, 3.0).variance
        tensor(9.)
        """
        return self.stddev.pow(2)

    def expand(self, batch_shape, _instance=None):
        """This normal with ``loc`` and ``scale`` expanded to ``batch_shape``.

        >>> from gradtrack.distributions import Normal
        >>> Normal(0.0, 1.0).expand((2,)).loc
        tensor([0., 0.])
        """
        new = self._get_checked_instance(Normal, _instance)
        batch_shape = gradtrack.Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        super(Normal, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=gradtrack.Size()):
        """Draws without gradient: one ``gradtrack.normal`` of the expanded
        parameters (torch's draw, so a seeded program gets torch's numbers).

        >>> import gradtrack
        >>> from gradtrack.distributions import Normal
        >>> _ = gradtrack.manual_seed(0)
        >>> Normal(0.0, 1.0).sample((2,))
        tensor([ 1.5410, -0.2934])
        """
        shape = self._extended_shape(sample_shape)
        with gradtrack.no_grad():
            return gradtrack.normal(self.loc.expand(shape), self.scale.expand(shape))

    def rsample(self, sample_shape=gradtrack.Size()):
        """``loc + eps * scale`` with standard normal ``eps``: differentiable in
        ``loc`` and ``scale``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Normal
        >>> _ = gradtrack.manual_seed(0)
        >>> scale = gradtrack.tensor(2.0, requires_grad=True)
        >>> x = Normal(0.0, scale).rsample()
        >>> x.backward()
        >>> x, scale.grad
        (tensor(3.0820, grad_fn=<AddBackward0>), tensor(1.5410))
        """
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + eps * self.scale

    def log_prob(self, value):
        """The log density at ``value``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Normal
        >>> Normal(0.0, 2.0).log_prob(gradtrack.tensor(2.0))
        tensor(-2.1121)
        """
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale ** 2
        log_scale = (math.log(self.scale) if isinstance(self.scale, _NUMBER)
                     else self.scale.log())
        return -((value - self.loc) ** 2) / (2 * var) - log_scale \
            - math.log(math.sqrt(2 * math.pi))

    def cdf(self, value):
        """The probability of a draw at most ``value``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Normal
        >>> Normal(0.0, 1.0).cdf(gradtrack.tensor([-1.0, 1.0]))
        tensor([0.1587, 0.8413])
        """
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + gradtrack.erf((value - self.loc) * self.scale.reciprocal()
                                        / math.sqrt(2)))

    def icdf(self, value):
        """The value below which a draw falls with probability ``value``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Normal
        >>> Normal(1.0, 1.0).icdf(gradtrack.tensor(0.5))
        tensor(1.)
        """
        return self.loc + self.scale * gradtrack.erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self):
        """``0.5 + 0.5 * log(2 pi) + log(scale)``.

        >>> from gradtrack.distributions import Normal
        >>> Normal(0.0, 1.0).entropy()
        tensor(1.4189)
        """
        return 0.5 + 0.5 * math.log(2 * math.pi) + gradtrack.log(self.scale)

    @property
    def _natural_params(self):
        return (self.loc / self.scale.pow(2), -0.5 * self.scale.pow(2).reciprocal())

    def _log_normalizer(self, x, y):
        return -0.25 * x.pow(2) / y + 0.5 * gradtrack.log(-math.pi / y)
