"""``RelaxedOneHotCategorical``: a continuous, reparameterizable stand-in for a
one-hot categorical draw, a point of the simplex that approaches a corner as the
``temperature`` falls (the Concrete or Gumbel-softmax distribution,
``torch.distributions.RelaxedOneHotCategorical``), and ``ExpRelaxedCategorical``,
the distribution of that point's logs.

A draw is ``softmax((logits + g) / temperature)`` for standard Gumbel noise ``g``.

>>> import gradtrack
>>> from gradtrack.distributions import RelaxedOneHotCategorical
>>> _ = gradtrack.manual_seed(0)
>>> RelaxedOneHotCategorical(gradtrack.tensor(0.5), gradtrack.tensor([0.2, 0.3, 0.5])).rsample()
tensor([0.0574, 0.9126, 0.0300])
"""

import gradtrack

from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform
from .utils import broadcast_all, clamp_probs

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]


def _log_normalize(scores):
    """``scores`` shifted along the last dim so their exponentials sum to 1."""
    return scores - scores.logsumexp(dim=-1, keepdim=True)


class ExpRelaxedCategorical(Distribution):
    """The log of a ``RelaxedOneHotCategorical`` draw, given by ``temperature`` (a
    tensor) and ``probs`` or ``logits`` over the last dim, exactly one of them.
    Its support is taken as all real vectors (the draws lie on a surface of them).

    >>> import gradtrack
    >>> from gradtrack.distributions.relaxed_categorical import ExpRelaxedCategorical
    >>> d = ExpRelaxedCategorical(gradtrack.tensor(1.0), logits=gradtrack.zeros(2))
    >>> d.log_prob(gradtrack.tensor([-0.5, -1.0]).log_softmax(-1))
    tensor(-1.4482)
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its batch expanded to ``batch_shape`` (the
        temperature is shared).

        >>> import gradtrack
        >>> from gradtrack.distributions.relaxed_categorical import ExpRelaxedCategorical
        >>> ExpRelaxedCategorical(gradtrack.tensor(1.0), gradtrack.ones(3)).expand([2]).probs.shape
        gradtrack.Size([2, 3])
        """
        new = self._get_checked_instance(ExpRelaxedCategorical, _instance)
        batch_shape = gradtrack.Size(batch_shape)
        new.temperature = self.temperature
        new._categorical = self._categorical.expand(batch_shape)
        super(ExpRelaxedCategorical, new).__init__(batch_shape, self.event_shape,
                                                   validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._categorical._new(*args, **kwargs)

    @property
    def param_shape(self):
        """The shape of the parameter given.

        >>> import gradtrack
        >>> from gradtrack.distributions.relaxed_categorical import ExpRelaxedCategorical
        >>> ExpRelaxedCategorical(gradtrack.tensor(1.0), gradtrack.ones(2, 3)).param_shape
        gradtrack.Size([2, 3])
        """
        return self._categorical.param_shape

    @property
    def logits(self):
        """The categories' normalized log probabilities.

        >>> import gradtrack
        >>> from gradtrack.distributions.relaxed_categorical import ExpRelaxedCategorical
        >>> ExpRelaxedCategorical(gradtrack.tensor(1.0), gradtrack.tensor([1.0, 1.0])).logits
        tensor([-0.6931, -0.6931])
        """
        return self._categorical.logits

    @property
    def probs(self):
        """The categories' normalized probabilities.

        >>> import gradtrack
        >>> from gradtrack.distributions.relaxed_categorical import ExpRelaxedCategorical
        >>> ExpRelaxedCategorical(gradtrack.tensor(1.0), gradtrack.tensor([1.0, 3.0])).probs
        tensor([0.2500, 0.7500])
        """
        return self._categorical.probs

    def rsample(self, sample_shape=gradtrack.Size()):
        """``log_softmax((logits + g) / temperature)``, the Gumbel noise ``g`` made
        as ``-log(-log(u))`` from one ``gradtrack.rand`` (clamped away from 0 and 1).

        >>> import gradtrack
        >>> from gradtrack.distributions.relaxed_categorical import ExpRelaxedCategorical
        >>> _ = gradtrack.manual_seed(0)
        >>> ExpRelaxedCategorical(gradtrack.tensor(1.0), gradtrack.ones(2)).rsample()
        tensor([-1.2967, -0.3194])
        """
        logits = self.logits
        u = gradtrack.rand(self._extended_shape(sample_shape), dtype=logits.dtype,
                           device=logits.device)
        gumbel = -((-(clamp_probs(u).log())).log())
        return _log_normalize((logits + gumbel) / self.temperature)

    def log_prob(self, value):
        """The log density of a log-simplex point ``value`` at temperature ``t`` over
        ``K`` categories: ``lgamma(K) + (K - 1) log(t)`` plus the sum of
        ``log_softmax(logits - t x)``.

        >>> import gradtrack
        >>> from gradtrack.distributions.relaxed_categorical import ExpRelaxedCategorical
        >>> d = ExpRelaxedCategorical(gradtrack.tensor(0.5), gradtrack.ones(2))
        >>> d.log_prob(gradtrack.tensor([0.5, 0.5]).log())
        tensor(-2.0794)
        """
        if self._validate_args:
            self._validate_sample(value)
        n_cats = self._categorical._num_events
        temp = self.temperature
        logits, x = broadcast_all(self.logits, value)
        # the constant: log((K - 1)!) and the temperature's power
        log_const = gradtrack.full_like(temp, float(n_cats)).lgamma() - temp.log().mul(-(n_cats - 1))
        return _log_normalize(logits - x.mul(temp)).sum(-1) + log_const


class RelaxedOneHotCategorical(TransformedDistribution):
    """The relaxed one-hot categorical of ``temperature`` (a tensor) and ``probs`` or
    ``logits``: an ``ExpRelaxedCategorical`` sent through ``exp``. Its draws lie on
    the simplex and carry gradients to the parameters.

    >>> import gradtrack
    >>> from gradtrack.distributions import RelaxedOneHotCategorical
    >>> d = RelaxedOneHotCategorical(gradtrack.tensor(0.5), gradtrack.tensor([0.25, 0.75]))
    >>> d.log_prob(gradtrack.tensor([0.2, 0.8]))
    tensor(-0.2877)
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base_dist = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base_dist, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its base expanded to ``batch_shape``.

        >>> import gradtrack
        >>> from gradtrack.distributions import RelaxedOneHotCategorical
        >>> RelaxedOneHotCategorical(gradtrack.tensor(1.0), gradtrack.ones(3)).expand([2]).batch_shape
        gradtrack.Size([2])
        """
        new = self._get_checked_instance(RelaxedOneHotCategorical, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def temperature(self):
        """The relaxation temperature.

        >>> import gradtrack
        >>> from gradtrack.distributions import RelaxedOneHotCategorical
        >>> RelaxedOneHotCategorical(gradtrack.tensor(2.0), gradtrack.ones(2)).temperature
        tensor(2.)
        """
        return self.base_dist.temperature

    @property
    def logits(self):
        """The base's normalized log probabilities.

        >>> import gradtrack
        >>> from gradtrack.distributions import RelaxedOneHotCategorical
        >>> RelaxedOneHotCategorical(gradtrack.tensor(1.0), gradtrack.ones(2)).logits
        tensor([-0.6931, -0.6931])
        """
        return self.base_dist.logits

    @property
    def probs(self):
        """The base's normalized probabilities.

        >>> import gradtrack
        >>> from gradtrack.distributions import RelaxedOneHotCategorical
        >>> RelaxedOneHotCategorical(gradtrack.tensor(1.0), logits=gradtrack.zeros(2)).probs
        tensor([0.5000, 0.5000])
        """
        return self.base_dist.probs
