"""``Categorical``: one of ``K`` categories, drawn by index
(``torch.distributions.Categorical``).

The last dim of ``probs`` or ``logits`` runs over the categories; the dims before
it are the batch.

>>> import gradtrack
>>> from gradtrack.distributions import Categorical
>>> Categorical(logits=gradtrack.zeros(4)).log_prob(gradtrack.tensor(2))
tensor(-1.3863)
"""

import gradtrack

from . import constraints
from .distribution import Distribution
from .utils import (_check_one_of, _expand_probs_or_logits, lazy_property, logits_to_probs,
                    probs_to_logits)

__all__ = ["Categorical"]


class Categorical(Distribution):
    """The categorical distribution over ``0 .. K-1``, given by ``probs`` (made to
    sum to 1) or by ``logits`` (made to log-sum-exp to 0), exactly one of them.

    >>> import gradtrack
    >>> from gradtrack.distributions import Categorical
    >>> _ = gradtrack.manual_seed(0)
    >>> Categorical(gradtrack.tensor([0.1, 0.2, 0.7])).sample((5,))
    tensor([2, 2, 2, 2, 2])
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        _check_one_of(probs, logits)
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = self._param.size()[-1]
        batch_shape = (self._param.size()[:-1] if self._param.ndimension() > 1
                       else gradtrack.Size())
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its batch expanded to ``batch_shape``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Categorical
        >>> Categorical(gradtrack.ones(3)).expand([2]).probs.shape
        gradtrack.Size([2, 3])
        """
        new = self._get_checked_instance(Categorical, _instance)
        batch_shape = gradtrack.Size(batch_shape)
        param_shape = batch_shape + gradtrack.Size((self._num_events,))
        _expand_probs_or_logits(self, new, param_shape)
        new._num_events = self._num_events
        super(Categorical, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        """The integers ``0 .. K-1``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Categorical
        >>> Categorical(gradtrack.ones(3)).support
        IntegerInterval(lower_bound=0, upper_bound=2)
        """
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self):
        """The normalized log probabilities (from ``probs`` on first use when not given).

        >>> import gradtrack
        >>> from gradtrack.distributions import Categorical
        >>> Categorical(gradtrack.tensor([1.0, 1.0])).logits
        tensor([-0.6931, -0.6931])
        """
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self):
        """The normalized probabilities (from ``logits`` on first use when not given).

        >>> import gradtrack
        >>> from gradtrack.distributions import Categorical
        >>> Categorical(logits=gradtrack.tensor([0.0, 0.0])).probs
        tensor([0.5000, 0.5000])
        """
        return logits_to_probs(self.logits)

    @property
    def param_shape(self):
        """The shape of the parameter given: ``batch_shape + (K,)``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Categorical
        >>> Categorical(gradtrack.ones(2, 5)).param_shape
        gradtrack.Size([2, 5])
        """
        return self._param.size()

    @property
    def mean(self):
        """NaN: categories have no order, so no mean.

        >>> import gradtrack
        >>> from gradtrack.distributions import Categorical
        >>> Categorical(gradtrack.ones(3)).mean
        tensor(nan)
        """
        return gradtrack.full(self._extended_shape(), gradtrack.nan, dtype=self.probs.dtype,
                              device=self.probs.device)

    @property
    def mode(self):
        """The most likely category.

        >>> import gradtrack
        >>> from gradtrack.distributions import Categorical
        >>> Categorical(gradtrack.tensor([0.1, 0.6, 0.3])).mode
        tensor(1)
        """
        return self.probs.argmax(dim=-1)

    @property
    def variance(self):
        """NaN, as the mean.

        >>> import gradtrack
        >>> from gradtrack.distributions import Categorical
        >>> Categorical(gradtrack.ones(2, 3)).variance
        tensor([nan, nan])
        """
        return gradtrack.full(self._extended_shape(), gradtrack.nan, dtype=self.probs.dtype,
                              device=self.probs.device)

    def sample(self, sample_shape=gradtrack.Size()):
        """Category indices (int64): one ``gradtrack.multinomial`` draw with
        replacement per batch entry (torch's draw).

        >>> import gradtrack
        >>> from gradtrack.distributions import Categorical
        >>> _ = gradtrack.manual_seed(0)
        >>> Categorical(gradtrack.tensor([[0.5, 0.5], [0.0, 1.0]])).sample((2,))
        tensor([[1, 1],
                [1, 1]])
        """
        if not isinstance(sample_shape, gradtrack.Size):
            sample_shape = gradtrack.Size(sample_shape)
        flat = self.probs.reshape(-1, self._num_events)
        # all draws of one batch entry come from one row, then go to the front
        draws = gradtrack.multinomial(flat, sample_shape.numel(), True).T
        return draws.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value):
        """The log probability of each category index in ``value``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Categorical
        >>> Categorical(gradtrack.tensor([0.25, 0.75])).log_prob(gradtrack.tensor([0, 1]))
        tensor([-1.3863, -0.2877])
        """
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = gradtrack.broadcast_tensors(value, self.logits)
        return log_pmf.gather(-1, value[..., :1]).squeeze(-1)

    def entropy(self):
        """The entropy, ``-sum(p log p)``, with the logits of zero probabilities
        clamped to the dtype's lowest finite value so they add 0, not NaN.

        >>> import gradtrack
        >>> from gradtrack.distributions import Categorical
        >>> Categorical(gradtrack.tensor([0.5, 0.5, 0.0])).entropy()
        tensor(0.6931)
        """
        lowest = gradtrack.finfo(self.logits.dtype).min
        logits = gradtrack.clamp(self.logits, min=lowest)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        """The categories ``0 .. K-1`` along dim 0.

        >>> import gradtrack
        >>> from gradtrack.distributions import Categorical
        >>> Categorical(gradtrack.ones(2, 3)).enumerate_support(expand=False)
        tensor([[0],
                [1],
                [2]])
        """
        values = gradtrack.arange(self._num_events, dtype=gradtrack.long,
                                  device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + self._batch_shape)
        return values
