"""``Gamma``: the sum of ``concentration`` exponential waiting times of rate ``rate``
(for integer ``concentration``), and its continuous extension
(``torch.distributions.Gamma``).

Its draws are reparameterized: ``gradtrack._standard_gamma`` carries the pathwise
gradient back to ``concentration``, and dividing by ``rate`` carries it to ``rate``.

>>> import gradtrack
>>> from gradtrack.distributions import Gamma
>>> Gamma(gradtrack.tensor([1.0, 3.0]), 2.0).log_prob(gradtrack.tensor([0.5, 0.5]))
tensor([-0.3069, -1.0000])
"""

import gradtrack

from . import constraints
from .exp_family import ExponentialFamily
from .utils import _batch_shape, broadcast_all

__all__ = ["Gamma"]


def _standard_gamma(concentration):
    """Draws of Gamma(``concentration``, 1), differentiable in ``concentration``."""
    return gradtrack._standard_gamma(concentration)


class Gamma(ExponentialFamily):
    """The gamma distribution of shape ``concentration`` (alpha) and ``rate`` (beta,
    the reciprocal of the scale); each a number or a tensor.

    >>> import gradtrack
    >>> from gradtrack.distributions import Gamma
    >>> _ = gradtrack.manual_seed(0)
    >>> Gamma(gradtrack.tensor([0.5, 2.0, 10.0]), 1.0).sample()
    tensor([7.8936e-04, 6.3154e-01, 1.0174e+01])
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(_batch_shape(self.concentration, concentration, rate),
                         validate_args=validate_args)

    @property
    def mean(self):
        """``concentration / rate``.

        >>> from gradtrack.distributions import Gamma
        >>> Gamma(3.0, 2.0).mean
        tensor(1.5000)
        """
        return self.concentration / self.rate

    @property
    def mode(self):
        """``(concentration - 1) / rate``, or 0 when ``concentration < 1``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Gamma
        >>> Gamma(gradtrack.tensor([0.5, 3.0]), 2.0).mode
        tensor([0., 1.])
        """
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        """``concentration / rate ** 2``.

        >>> from gradtrack.distributions import Gamma
        >>> Gamma(3.0, 2.0).variance
        tensor(0.7500)
        """
        return self.concentration / self.rate.pow(2)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its parameters expanded to ``batch_shape``.

        >>> from gradtrack.distributions import Gamma
        >>> Gamma(3.0, 2.0).expand([2]).rate
        tensor([2., 2.])
        """
        new = self._get_checked_instance(Gamma, _instance)
        batch_shape = gradtrack.Size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        super(Gamma, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=gradtrack.Size()):
        """Standard gamma draws of the expanded ``concentration`` divided by ``rate``,
        raised (outside the graph) to at least the dtype's smallest normal number.

        >>> import gradtrack
        >>> from gradtrack.distributions import Gamma
        >>> alpha = gradtrack.tensor(2.0, requires_grad=True)
        >>> _ = gradtrack.manual_seed(0)
        >>> x = Gamma(alpha, 4.0).rsample((2,))
        >>> x
        tensor([1.1382, 0.3290], grad_fn=<DivBackward0>)
        >>> x.sum().backward()
        >>> alpha.grad
        tensor(0.6166)
        """
        shape = self._extended_shape(sample_shape)
        value = _standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        # in place on a detached alias: the graph keeps the division
        value.detach().clamp_(min=gradtrack.finfo(value.dtype).tiny)
        return value

    def log_prob(self, value):
        """``alpha log(beta) + (alpha - 1) log(x) - beta x - lgamma(alpha)``, with
        ``0 * log(0)`` taken as 0; ``value`` may be a number.

        >>> from gradtrack.distributions import Gamma
        >>> Gamma(1.0, 2.0).log_prob(0.0)
        tensor(0.6931)
        """
        value = gradtrack.as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        if self._validate_args:
            self._validate_sample(value)
        return (gradtrack.xlogy(self.concentration, self.rate)
                + gradtrack.xlogy(self.concentration - 1, value)
                - self.rate * value - gradtrack.lgamma(self.concentration))

    def entropy(self):
        """``alpha - log(beta) + lgamma(alpha) + (1 - alpha) digamma(alpha)``.

        >>> from gradtrack.distributions import Gamma
        >>> Gamma(1.0, 1.0).entropy()
        tensor(1.)
        """
        return (self.concentration - gradtrack.log(self.rate)
                + gradtrack.lgamma(self.concentration)
                + (1.0 - self.concentration) * gradtrack.digamma(self.concentration))

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return gradtrack.lgamma(x + 1) + (x + 1) * gradtrack.log(-y.reciprocal())

    def cdf(self, value):
        """The regularized lower incomplete gamma function ``P(alpha, beta x)``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Gamma
        >>> Gamma(1.0, 1.0).cdf(gradtrack.tensor([0.0, 1.0]))
        tensor([0.0000, 0.6321])
        """
        if self._validate_args:
            self._validate_sample(value)
        return gradtrack.special.gammainc(self.concentration, self.rate * value)
