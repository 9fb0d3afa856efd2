"""``Bernoulli``: 1 with probability ``probs``, else 0
(``torch.distributions.Bernoulli``).

>>> import gradtrack
>>> from gradtrack.distributions import Bernoulli
>>> Bernoulli(logits=gradtrack.tensor([0.0, 2.0])).probs
tensor([0.5000, 0.8808])
"""

import gradtrack

from . import constraints
from .exp_family import ExponentialFamily
from .utils import (_expand_probs_or_logits, _probs_or_logits, broadcast_all, lazy_property,
                    logits_to_probs, probs_to_logits)

__all__ = ["Bernoulli"]


class Bernoulli(ExponentialFamily):
    """The Bernoulli distribution, given by ``probs`` or by ``logits`` (log-odds),
    exactly one of them; the other is computed on first use.

    >>> import gradtrack
    >>> from gradtrack.distributions import Bernoulli
    >>> _ = gradtrack.manual_seed(0)
    >>> Bernoulli(gradtrack.tensor([0.1, 0.5, 0.9])).sample()
    tensor([0., 0., 1.])
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args=None):
        batch_shape = _probs_or_logits(self, probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its given parameters expanded to ``batch_shape``.

        >>> from gradtrack.distributions import Bernoulli
        >>> Bernoulli(0.25).expand([3]).probs
        tensor([0.2500, 0.2500, 0.2500])
        """
        new = self._get_checked_instance(Bernoulli, _instance)
        batch_shape = gradtrack.Size(batch_shape)
        _expand_probs_or_logits(self, new, batch_shape)
        super(Bernoulli, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    @property
    def mean(self):
        """``probs``.

        >>> from gradtrack.distributions import Bernoulli
        >>> Bernoulli(0.25).mean
        tensor(0.2500)
        """
        return self.probs

    @property
    def mode(self):
        """1 where ``probs`` is above 0.5, 0 below, NaN at 0.5 (no single mode).

        >>> import gradtrack
        >>> from gradtrack.distributions import Bernoulli
        >>> Bernoulli(gradtrack.tensor([0.2, 0.5, 0.8])).mode
        tensor([0., nan, 1.])
        """
        mode = (self.probs >= 0.5).to(self.probs)
        mode[self.probs == 0.5] = gradtrack.nan
        return mode

    @property
    def variance(self):
        """``probs * (1 - probs)``.

        >>> from gradtrack.distributions import Bernoulli
        >>> Bernoulli(0.5).variance
        tensor(0.2500)
        """
        return self.probs * (1 - self.probs)

    @lazy_property
    def logits(self):
        """The log-odds (computed from ``probs`` on first use when not given).

        >>> from gradtrack.distributions import Bernoulli
        >>> Bernoulli(0.5).logits
        tensor(0.)
        """
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        """The probability of 1 (computed from ``logits`` on first use when not given).

        >>> from gradtrack.distributions import Bernoulli
        >>> Bernoulli(logits=0.0).probs
        tensor(0.5000)
        """
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        """The shape of the parameter given.

        >>> import gradtrack
        >>> from gradtrack.distributions import Bernoulli
        >>> Bernoulli(gradtrack.full((2, 1), 0.5)).param_shape
        gradtrack.Size([2, 1])
        """
        return self._param.size()

    def sample(self, sample_shape=gradtrack.Size()):
        """Draws without gradient: one ``gradtrack.bernoulli`` of the expanded
        ``probs`` (torch's draw).

        >>> import gradtrack
        >>> from gradtrack.distributions import Bernoulli
        >>> _ = gradtrack.manual_seed(0)
        >>> Bernoulli(0.5).sample((4,))
        tensor([1., 0., 1., 1.])
        """
        shape = self._extended_shape(sample_shape)
        with gradtrack.no_grad():
            return gradtrack.bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        """The log probability of ``value`` (0 or 1): minus the binary cross
        entropy of the logits.

        >>> import gradtrack
        >>> from gradtrack.distributions import Bernoulli
        >>> Bernoulli(0.8).log_prob(gradtrack.tensor([0.0, 1.0]))
        tensor([-1.6094, -0.2231])
        """
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -gradtrack.nn.functional.binary_cross_entropy_with_logits(
            logits, value, reduction="none")

    def entropy(self):
        """The entropy: the binary cross entropy of the logits with ``probs``.

        >>> from gradtrack.distributions import Bernoulli
        >>> Bernoulli(0.5).entropy()
        tensor(0.6931)
        """
        return gradtrack.nn.functional.binary_cross_entropy_with_logits(
            self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand=True):
        """0 and 1 along dim 0, in the parameter's dtype.

        >>> from gradtrack.distributions import Bernoulli
        >>> Bernoulli(0.3).enumerate_support()
        tensor([0., 1.])
        """
        values = gradtrack.arange(2, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + self._batch_shape)
        return values

    @property
    def _natural_params(self):
        return (gradtrack.logit(self.probs),)

    def _log_normalizer(self, x):
        return gradtrack.log1p(gradtrack.exp(x))
