"""``NegativeBinomial``: the number of successes before ``total_count`` failures in
Bernoulli trials of success probability ``probs``
(``torch.distributions.NegativeBinomial``).

Draws are Poisson draws of a gamma-distributed rate (the gamma-Poisson mixture).

>>> import gradtrack
>>> from gradtrack.distributions import NegativeBinomial
>>> NegativeBinomial(2.0, gradtrack.tensor(0.5)).log_prob(gradtrack.tensor([0.0, 1.0, 2.0]))
tensor([-1.3863, -1.3863, -1.6740])
"""

import gradtrack

from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from .utils import (_count_with_probs_or_logits, _expand_probs_or_logits, lazy_property,
                    logits_to_probs, probs_to_logits)

__all__ = ["NegativeBinomial"]


class NegativeBinomial(Distribution):
    """The negative binomial distribution of ``total_count`` failures (a nonnegative
    real, a number or a tensor), given by ``probs`` (in [0, 1)) or by ``logits``,
    exactly one of them; the other is computed on first use.

    >>> import gradtrack
    >>> from gradtrack.distributions import NegativeBinomial
    >>> _ = gradtrack.manual_seed(0)
    >>> NegativeBinomial(5.0, gradtrack.tensor([0.1, 0.5, 0.9])).sample()
    tensor([ 0.,  3., 22.])
    """

    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        batch_shape = _count_with_probs_or_logits(self, total_count, probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with ``total_count`` and its given parameter expanded to
        ``batch_shape``.

        >>> import gradtrack
        >>> from gradtrack.distributions import NegativeBinomial
        >>> NegativeBinomial(3.0, gradtrack.tensor(0.5)).expand([2]).total_count
        tensor([3., 3.])
        """
        new = self._get_checked_instance(NegativeBinomial, _instance)
        batch_shape = gradtrack.Size(batch_shape)
        new.total_count = self.total_count.expand(batch_shape)
        _expand_probs_or_logits(self, new, batch_shape)
        super(NegativeBinomial, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    @property
    def mean(self):
        """``total_count * exp(logits)``: ``total_count * probs / (1 - probs)``.

        >>> import gradtrack
        >>> from gradtrack.distributions import NegativeBinomial
        >>> NegativeBinomial(4.0, logits=gradtrack.tensor(0.0)).mean
        tensor(4.)
        """
        return self.total_count * gradtrack.exp(self.logits)

    @property
    def mode(self):
        """``floor((total_count - 1) * exp(logits))``, at least 0.

        >>> import gradtrack
        >>> from gradtrack.distributions import NegativeBinomial
        >>> NegativeBinomial(gradtrack.tensor([0.5, 4.0]), logits=gradtrack.tensor(0.0)).mode
        tensor([0., 3.])
        """
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        """``mean / (1 - probs)``.

        >>> import gradtrack
        >>> from gradtrack.distributions import NegativeBinomial
        >>> NegativeBinomial(4.0, logits=gradtrack.tensor(0.0)).variance
        tensor(8.)
        """
        return self.mean / gradtrack.sigmoid(-self.logits)

    @lazy_property
    def logits(self):
        """The log-odds of a success (computed from ``probs`` on first use when not
        given).

        >>> import gradtrack
        >>> from gradtrack.distributions import NegativeBinomial
        >>> NegativeBinomial(2.0, gradtrack.tensor(0.5)).logits
        tensor(0.)
        """
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        """The probability of a success (computed from ``logits`` on first use when
        not given).

        >>> import gradtrack
        >>> from gradtrack.distributions import NegativeBinomial
        >>> NegativeBinomial(2.0, logits=gradtrack.tensor(0.0)).probs
        tensor(0.5000)
        """
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        """The shape of the parameter given.

        >>> import gradtrack
        >>> from gradtrack.distributions import NegativeBinomial
        >>> NegativeBinomial(2.0, gradtrack.full((3,), 0.5)).param_shape
        gradtrack.Size([3])
        """
        return self._param.size()

    @lazy_property
    def _gamma(self):
        # not validated: a total_count of 0 is allowed here, though no gamma's shape
        return Gamma(concentration=self.total_count, rate=gradtrack.exp(-self.logits),
                     validate_args=False)

    def sample(self, sample_shape=gradtrack.Size()):
        """Draws without gradient: a gamma draw of shape ``total_count`` and rate
        ``(1 - probs) / probs``, then a Poisson draw of that rate.

        >>> import gradtrack
        >>> from gradtrack.distributions import NegativeBinomial
        >>> _ = gradtrack.manual_seed(0)
        >>> NegativeBinomial(3.0, gradtrack.tensor(0.5)).sample((3,))
        tensor([5., 3., 0.])
        """
        with gradtrack.no_grad():
            rate = self._gamma.sample(sample_shape=sample_shape)
            return gradtrack.poisson(rate)

    def log_prob(self, value):
        """``r log(1 - p) + k log(p) + lgamma(r + k) - lgamma(k + 1) - lgamma(r)``
        from the logits; 0 where ``r + k == 0``.

        >>> import gradtrack
        >>> from gradtrack.distributions import NegativeBinomial
        >>> NegativeBinomial(gradtrack.tensor([0.0, 1.0]), gradtrack.tensor(0.5)).log_prob(
        ...     gradtrack.tensor(0.0))
        tensor([-0.0000, -0.6931])
        """
        if self._validate_args:
            self._validate_sample(value)
        logsigmoid = gradtrack.nn.functional.logsigmoid
        log_unnormalized_prob = (self.total_count * logsigmoid(-self.logits)
                                 + value * logsigmoid(self.logits))
        log_normalization = (-gradtrack.lgamma(self.total_count + value)
                             + gradtrack.lgamma(1.0 + value) + gradtrack.lgamma(self.total_count))
        # r = k = 0 has probability 1, though lgamma(0) is infinite
        log_normalization = log_normalization.masked_fill(self.total_count + value == 0.0, 0.0)
        return log_unnormalized_prob - log_normalization
