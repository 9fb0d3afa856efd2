"""``RelaxedBernoulli``: a continuous, reparameterizable stand-in for a Bernoulli
draw, with values in (0, 1) that approach 0 and 1 as the ``temperature`` falls
(the binary Concrete distribution, ``torch.distributions.RelaxedBernoulli``), and
``LogitRelaxedBernoulli``, the distribution of those values' logits.

A draw is ``sigmoid((logit(u) + logits) / temperature)`` for a uniform ``u``.

>>> import gradtrack
>>> from gradtrack.distributions import RelaxedBernoulli
>>> _ = gradtrack.manual_seed(0)
>>> RelaxedBernoulli(gradtrack.tensor(0.5), gradtrack.tensor([0.1, 0.9])).rsample()
tensor([0.0118, 0.9989])
"""

import gradtrack

from . import constraints
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import SigmoidTransform
from .utils import (_expand_probs_or_logits, _probs_or_logits, broadcast_all, clamp_probs,
                    lazy_property, logits_to_probs, probs_to_logits)

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]


class LogitRelaxedBernoulli(Distribution):
    """The logit of a ``RelaxedBernoulli`` draw: ``(logit(u) + logits) / temperature``
    for a uniform ``u``. Given by ``temperature`` (a tensor) and ``probs`` or
    ``logits``, exactly one of them; the other is computed on first use.

    >>> import gradtrack
    >>> from gradtrack.distributions.relaxed_bernoulli import LogitRelaxedBernoulli
    >>> d = LogitRelaxedBernoulli(gradtrack.tensor(1.0), logits=gradtrack.tensor([0.0, 2.0]))
    >>> d.log_prob(gradtrack.tensor([0.0, 0.0]))
    tensor([-1.3863, -2.2539])
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
        batch_shape = _probs_or_logits(self, probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its given parameter expanded to ``batch_shape`` (the
        temperature is shared).

        >>> import gradtrack
        >>> from gradtrack.distributions.relaxed_bernoulli import LogitRelaxedBernoulli
        >>> LogitRelaxedBernoulli(gradtrack.tensor(1.0), 0.5).expand([2]).probs
        tensor([0.5000, 0.5000])
        """
        new = self._get_checked_instance(LogitRelaxedBernoulli, _instance)
        batch_shape = gradtrack.Size(batch_shape)
        new.temperature = self.temperature
        _expand_probs_or_logits(self, new, batch_shape)
        super(LogitRelaxedBernoulli, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    @lazy_property
    def logits(self):
        """The log-odds (computed from ``probs`` on first use when not given).

        >>> import gradtrack
        >>> from gradtrack.distributions.relaxed_bernoulli import LogitRelaxedBernoulli
        >>> LogitRelaxedBernoulli(gradtrack.tensor(1.0), gradtrack.tensor(0.75)).logits
        tensor(1.0986)
        """
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        """The probability of 1 in the limit of zero temperature (computed from
        ``logits`` on first use when not given).

        >>> import gradtrack
        >>> from gradtrack.distributions.relaxed_bernoulli import LogitRelaxedBernoulli
        >>> LogitRelaxedBernoulli(gradtrack.tensor(1.0), logits=gradtrack.tensor(0.0)).probs
        tensor(0.5000)
        """
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        """The shape of the parameter given.

        >>> import gradtrack
        >>> from gradtrack.distributions.relaxed_bernoulli import LogitRelaxedBernoulli
        >>> LogitRelaxedBernoulli(gradtrack.tensor(1.0), gradtrack.full((2, 1), 0.5)).param_shape
        gradtrack.Size([2, 1])
        """
        return self._param.size()

    def rsample(self, sample_shape=gradtrack.Size()):
        """``(logit(u) + logit(probs)) / temperature``, with ``u`` from one
        ``gradtrack.rand`` and both ``u`` and ``probs`` clamped away from 0 and 1.

        >>> import gradtrack
        >>> from gradtrack.distributions.relaxed_bernoulli import LogitRelaxedBernoulli
        >>> _ = gradtrack.manual_seed(0)
        >>> LogitRelaxedBernoulli(gradtrack.tensor(2.0), gradtrack.tensor(0.5)).rsample((2,))
        tensor([-0.0075,  0.5991])
        """
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(shape))
        u = clamp_probs(gradtrack.rand(shape, dtype=probs.dtype, device=probs.device))
        # summed left to right, as torch does, for the same rounding
        return (u.log() - (-u).log1p() + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value):
        """The log density of a logit ``value``:
        ``log(t) + (logits - t x) - 2 log(1 + exp(logits - t x))`` at temperature ``t``.

        >>> import gradtrack
        >>> from gradtrack.distributions.relaxed_bernoulli import LogitRelaxedBernoulli
        >>> LogitRelaxedBernoulli(gradtrack.tensor(2.0), 0.5).log_prob(gradtrack.tensor(1.0))
        tensor(-1.5607)
        """
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        shifted = logits - value.mul(self.temperature)
        return self.temperature.log() + shifted - 2 * shifted.exp().log1p()


class RelaxedBernoulli(TransformedDistribution):
    """The relaxed Bernoulli of ``temperature`` (a tensor) and ``probs`` or
    ``logits``, exactly one of them: a ``LogitRelaxedBernoulli`` sent through the
    sigmoid. Its draws lie in (0, 1) and carry gradients to the parameters.

    >>> import gradtrack
    >>> from gradtrack.distributions import RelaxedBernoulli
    >>> d = RelaxedBernoulli(gradtrack.tensor(0.5), gradtrack.tensor([0.2, 0.7]))
    >>> d.log_prob(gradtrack.tensor([0.1, 0.9]))
    tensor([0.3079, 0.3128])
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base_dist = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base_dist, SigmoidTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its base expanded to ``batch_shape``.

        >>> import gradtrack
        >>> from gradtrack.distributions import RelaxedBernoulli
        >>> RelaxedBernoulli(gradtrack.tensor(1.0), 0.5).expand([3]).batch_shape
        gradtrack.Size([3])
        """
        new = self._get_checked_instance(RelaxedBernoulli, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def temperature(self):
        """The relaxation temperature.

        >>> import gradtrack
        >>> from gradtrack.distributions import RelaxedBernoulli
        >>> RelaxedBernoulli(gradtrack.tensor(0.5), 0.5).temperature
        tensor(0.5000)
        """
        return self.base_dist.temperature

    @property
    def logits(self):
        """The base's log-odds.

        >>> import gradtrack
        >>> from gradtrack.distributions import RelaxedBernoulli
        >>> RelaxedBernoulli(gradtrack.tensor(0.5), gradtrack.tensor(0.5)).logits
        tensor(0.)
        """
        return self.base_dist.logits

    @property
    def probs(self):
        """The base's probability of 1.

        >>> import gradtrack
        >>> from gradtrack.distributions import RelaxedBernoulli
        >>> RelaxedBernoulli(gradtrack.tensor(0.5), logits=gradtrack.tensor(0.0)).probs
        tensor(0.5000)
        """
        return self.base_dist.probs
