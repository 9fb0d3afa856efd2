"""``Binomial``: the number of successes in ``total_count`` Bernoulli trials of
success probability ``probs`` (``torch.distributions.Binomial``).

>>> import gradtrack
>>> from gradtrack.distributions import Binomial
>>> Binomial(4, gradtrack.tensor(0.5)).log_prob(gradtrack.tensor([0.0, 2.0]))
tensor([-2.7726, -0.9808])
"""

import gradtrack

from . import constraints
from .distribution import Distribution
from .utils import (_count_with_probs_or_logits, _expand_probs_or_logits, lazy_property,
                    logits_to_probs, probs_to_logits)

__all__ = ["Binomial"]


def _clamp_by_zero(x):
    # max(x, 0) whose gradient at 0 is 1/2, as torch's
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(Distribution):
    """The binomial distribution of ``total_count`` trials (an int or a tensor,
    broadcast with the other parameter), given by ``probs`` or by ``logits``, exactly
    one of them; the other is computed on first use.

    >>> import gradtrack
    >>> from gradtrack.distributions import Binomial
    >>> _ = gradtrack.manual_seed(0)
    >>> Binomial(100, gradtrack.tensor([0.0, 0.2, 0.8, 1.0])).sample()
    tensor([  0.,  20.,  78., 100.])
    """

    arg_constraints = {"total_count": constraints.nonnegative_integer,
                       "probs": constraints.unit_interval, "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        batch_shape = _count_with_probs_or_logits(self, total_count, probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with ``total_count`` and its given parameter expanded to
        ``batch_shape``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Binomial
        >>> Binomial(3, gradtrack.tensor(0.5)).expand([2]).total_count
        tensor([3., 3.])
        """
        new = self._get_checked_instance(Binomial, _instance)
        batch_shape = gradtrack.Size(batch_shape)
        new.total_count = self.total_count.expand(batch_shape)
        _expand_probs_or_logits(self, new, batch_shape)
        super(Binomial, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        """The integers from 0 to ``total_count``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Binomial
        >>> Binomial(3, gradtrack.tensor(0.5)).support
        IntegerInterval(lower_bound=0, upper_bound=3.0)
        """
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        """``total_count * probs``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Binomial
        >>> Binomial(10, gradtrack.tensor(0.25)).mean
        tensor(2.5000)
        """
        return self.total_count * self.probs

    @property
    def mode(self):
        """``floor((total_count + 1) * probs)``, at most ``total_count``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Binomial
        >>> Binomial(10, gradtrack.tensor([0.25, 1.0])).mode
        tensor([ 2., 10.])
        """
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        """``total_count * probs * (1 - probs)``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Binomial
        >>> Binomial(10, gradtrack.tensor(0.5)).variance
        tensor(2.5000)
        """
        return self.total_count * self.probs * (1 - self.probs)

    @lazy_property
    def logits(self):
        """The log-odds of a success (computed from ``probs`` on first use when not
        given).

        >>> import gradtrack
        >>> from gradtrack.distributions import Binomial
        >>> Binomial(2, gradtrack.tensor(0.5)).logits
        tensor(0.)
        """
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        """The probability of a success (computed from ``logits`` on first use when
        not given).

        >>> import gradtrack
        >>> from gradtrack.distributions import Binomial
        >>> Binomial(2, logits=gradtrack.tensor(0.0)).probs
        tensor(0.5000)
        """
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        """The shape of the parameter given.

        >>> import gradtrack
        >>> from gradtrack.distributions import Binomial
        >>> Binomial(2, gradtrack.full((3,), 0.5)).param_shape
        gradtrack.Size([3])
        """
        return self._param.size()

    def sample(self, sample_shape=gradtrack.Size()):
        """Draws without gradient: one ``gradtrack.binomial`` of the expanded
        parameters (torch's draw).

        >>> import gradtrack
        >>> from gradtrack.distributions import Binomial
        >>> _ = gradtrack.manual_seed(0)
        >>> Binomial(10, gradtrack.tensor(0.5)).sample((3,))
        tensor([7., 5., 5.])
        """
        shape = self._extended_shape(sample_shape)
        with gradtrack.no_grad():
            return gradtrack.binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value):
        """The log probability of ``value`` successes, from the logits (stable for
        large log-odds of either sign).

        >>> import gradtrack
        >>> from gradtrack.distributions import Binomial
        >>> Binomial(2, gradtrack.tensor(0.5)).log_prob(gradtrack.tensor([0.0, 1.0, 2.0]))
        tensor([-1.3863, -0.6931, -1.3863])
        """
        if self._validate_args:
            self._validate_sample(value)
        log_factorial_n = gradtrack.lgamma(self.total_count + 1)
        log_factorial_k = gradtrack.lgamma(value + 1)
        log_factorial_nmk = gradtrack.lgamma(self.total_count - value + 1)
        # n * log(1 + exp(logits)), written so that exp never overflows
        normalizer = (self.total_count * _clamp_by_zero(self.logits)
                      + self.total_count * gradtrack.log1p(gradtrack.exp(-gradtrack.abs(self.logits)))
                      - log_factorial_n)
        return value * self.logits - log_factorial_k - log_factorial_nmk - normalizer

    def entropy(self):
        """``-sum(p log p)`` over the support; ``total_count`` must be the same for
        the whole batch.

        >>> import gradtrack
        >>> from gradtrack.distributions import Binomial
        >>> Binomial(1, gradtrack.tensor(0.5)).entropy()
        tensor(0.6931)
        """
        total_count = int(self.total_count.max())
        if not self.total_count.min() == total_count:
            raise NotImplementedError("Inhomogeneous total count not supported by `entropy`.")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(gradtrack.exp(log_prob) * log_prob).sum(0)

    def enumerate_support(self, expand=True):
        """0 to ``total_count`` along dim 0 (the same ``total_count`` for the whole
        batch).

        >>> import gradtrack
        >>> from gradtrack.distributions import Binomial
        >>> Binomial(2, gradtrack.tensor([0.5, 0.5])).enumerate_support()
        tensor([[0., 0.],
                [1., 1.],
                [2., 2.]])
        """
        total_count = int(self.total_count.max())
        if not self.total_count.min() == total_count:
            raise NotImplementedError(
                "Inhomogeneous total count not supported by `enumerate_support`.")
        values = gradtrack.arange(1 + total_count, dtype=self._param.dtype,
                                  device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + self._batch_shape)
        return values
