"""``OneHotCategorical``: a categorical draw written as a one-hot vector, and its
straight-through variant (``torch.distributions.OneHotCategorical``).

>>> import gradtrack
>>> from gradtrack.distributions import OneHotCategorical
>>> _ = gradtrack.manual_seed(0)
>>> OneHotCategorical(gradtrack.tensor([0.1, 0.2, 0.7])).sample()
tensor([0., 0., 1.])
"""

import gradtrack

from . import constraints
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["OneHotCategorical", "OneHotCategoricalStraightThrough"]


class OneHotCategorical(Distribution):
    """The categorical distribution of ``probs`` or ``logits``, its draws one-hot
    vectors of length ``K`` (the event shape), in the parameter's dtype.

    >>> import gradtrack
    >>> from gradtrack.distributions import OneHotCategorical
    >>> d = OneHotCategorical(logits=gradtrack.zeros(2, 3))
    >>> d.batch_shape, d.event_shape
    (gradtrack.Size([2]), gradtrack.Size([3]))
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its batch expanded to ``batch_shape``.

        >>> import gradtrack
        >>> from gradtrack.distributions import OneHotCategorical
        >>> OneHotCategorical(gradtrack.ones(3)).expand([4]).batch_shape
        gradtrack.Size([4])
        """
        new = self._get_checked_instance(OneHotCategorical, _instance)
        batch_shape = gradtrack.Size(batch_shape)
        new._categorical = self._categorical.expand(batch_shape)
        super(OneHotCategorical, new).__init__(batch_shape, self.event_shape,
                                               validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._categorical._new(*args, **kwargs)

    @property
    def _param(self):
        return self._categorical._param

    @property
    def probs(self):
        """The categories' probabilities.

        >>> import gradtrack
        >>> from gradtrack.distributions import OneHotCategorical
        >>> OneHotCategorical(gradtrack.tensor([1.0, 3.0])).probs
        tensor([0.2500, 0.7500])
        """
        return self._categorical.probs

    @property
    def logits(self):
        """The categories' normalized log probabilities.

        >>> import gradtrack
        >>> from gradtrack.distributions import OneHotCategorical
        >>> OneHotCategorical(gradtrack.tensor([1.0, 1.0])).logits
        tensor([-0.6931, -0.6931])
        """
        return self._categorical.logits

    @property
    def mean(self):
        """``probs``.

        >>> import gradtrack
        >>> from gradtrack.distributions import OneHotCategorical
        >>> OneHotCategorical(gradtrack.tensor([1.0, 1.0])).mean
        tensor([0.5000, 0.5000])
        """
        return self._categorical.probs

    @property
    def mode(self):
        """The one-hot vector of the most likely category.

        >>> import gradtrack
        >>> from gradtrack.distributions import OneHotCategorical
        >>> OneHotCategorical(gradtrack.tensor([0.2, 0.8])).mode
        tensor([0., 1.])
        """
        probs = self._categorical.probs
        index = probs.argmax(dim=-1)
        return gradtrack.nn.functional.one_hot(index, num_classes=probs.shape[-1]).to(probs)

    @property
    def variance(self):
        """``probs * (1 - probs)``, per category.

        >>> import gradtrack
        >>> from gradtrack.distributions import OneHotCategorical
        >>> OneHotCategorical(gradtrack.tensor([1.0, 1.0])).variance
        tensor([0.2500, 0.2500])
        """
        return self._categorical.probs * (1 - self._categorical.probs)

    @property
    def param_shape(self):
        """The shape of the parameter given.

        >>> import gradtrack
        >>> from gradtrack.distributions import OneHotCategorical
        >>> OneHotCategorical(gradtrack.ones(2, 3)).param_shape
        gradtrack.Size([2, 3])
        """
        return self._categorical.param_shape

    def sample(self, sample_shape=gradtrack.Size()):
        """One-hot draws: the categorical's draw (the same random numbers), one-hot
        encoded.

        >>> import gradtrack
        >>> from gradtrack.distributions import OneHotCategorical
        >>> _ = gradtrack.manual_seed(0)
        >>> OneHotCategorical(gradtrack.tensor([0.5, 0.5])).sample((2,))
        tensor([[0., 1.],
                [0., 1.]])
        """
        sample_shape = gradtrack.Size(sample_shape)
        probs = self._categorical.probs
        indices = self._categorical.sample(sample_shape)
        return gradtrack.nn.functional.one_hot(indices, self._categorical._num_events).to(probs)

    def log_prob(self, value):
        """The log probability of the category each one-hot vector marks.

        >>> import gradtrack
        >>> from gradtrack.distributions import OneHotCategorical
        >>> OneHotCategorical(gradtrack.tensor([0.25, 0.75])).log_prob(gradtrack.tensor([0.0, 1.0]))
        tensor(-0.2877)
        """
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(value.max(-1)[1])

    def entropy(self):
        """The categorical's entropy.

        >>> import gradtrack
        >>> from gradtrack.distributions import OneHotCategorical
        >>> OneHotCategorical(gradtrack.ones(2)).entropy()
        tensor(0.6931)
        """
        return self._categorical.entropy()

    def enumerate_support(self, expand=True):
        """The ``K`` one-hot vectors along dim 0.

        >>> import gradtrack
        >>> from gradtrack.distributions import OneHotCategorical
        >>> OneHotCategorical(gradtrack.ones(2)).enumerate_support()
        tensor([[1., 0.],
                [0., 1.]])
        """
        n = self.event_shape[0]
        values = gradtrack.eye(n, dtype=self._param.dtype, device=self._param.device)
        values = values.view((n,) + (1,) * len(self.batch_shape) + (n,))
        if expand:
            values = values.expand((n,) + self.batch_shape + (n,))
        return values


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """A one-hot categorical whose ``rsample`` passes gradients straight through:
    the draw's value, with the gradient it would have were it ``probs``.

    >>> import gradtrack
    >>> from gradtrack.distributions import OneHotCategoricalStraightThrough
    >>> OneHotCategoricalStraightThrough(gradtrack.ones(3)).has_rsample
    True
    """

    has_rsample = True

    def rsample(self, sample_shape=gradtrack.Size()):
        """A one-hot draw plus ``probs - probs.detach()`` (zero in value).

        >>> import gradtrack
        >>> from gradtrack.distributions import OneHotCategoricalStraightThrough
        >>> _ = gradtrack.manual_seed(0)
        >>> logits = gradtrack.zeros(2, requires_grad=True)
        >>> OneHotCategoricalStraightThrough(logits=logits).rsample()
        tensor([0., 1.], grad_fn=<AddBackward0>)
        """
        draws = self.sample(sample_shape)
        probs = self._categorical.probs
        return draws + (probs - probs.detach())
