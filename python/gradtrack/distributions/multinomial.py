"""``Multinomial``: the counts of each of ``K`` categories in ``total_count``
independent categorical draws (``torch.distributions.Multinomial``).

>>> import gradtrack
>>> from gradtrack.distributions import Multinomial
>>> Multinomial(3, gradtrack.tensor([0.2, 0.3, 0.5])).log_prob(gradtrack.tensor([1.0, 0.0, 2.0]))
tensor(-1.8971)
"""

import gradtrack

from . import constraints
from .binomial import Binomial
from .categorical import Categorical
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Multinomial"]


class Multinomial(Distribution):
    """The multinomial of ``total_count`` trials (one Python int for the whole
    batch) over the categories of ``probs`` or ``logits`` (normalized over the last
    dim, exactly one of them). ``log_prob`` takes the number of trials from the
    counts it is given, so it works for any ``total_count``.

    >>> import gradtrack
    >>> from gradtrack.distributions import Multinomial
    >>> _ = gradtrack.manual_seed(0)
    >>> Multinomial(10, gradtrack.tensor([1.0, 1.0, 2.0])).sample()
    tensor([1., 3., 6.])
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    @property
    def mean(self):
        """``total_count * probs``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Multinomial
        >>> Multinomial(4, gradtrack.tensor([1.0, 3.0])).mean
        tensor([1., 3.])
        """
        return self.probs * self.total_count

    @property
    def variance(self):
        """``total_count * probs * (1 - probs)``, per category.

        >>> import gradtrack
        >>> from gradtrack.distributions import Multinomial
        >>> Multinomial(4, gradtrack.tensor([1.0, 1.0])).variance
        tensor([1., 1.])
        """
        return self.total_count * self.probs * (1 - self.probs)

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its categorical expanded to ``batch_shape``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Multinomial
        >>> Multinomial(2, gradtrack.ones(3)).expand([4]).batch_shape
        gradtrack.Size([4])
        """
        new = self._get_checked_instance(Multinomial, _instance)
        batch_shape = gradtrack.Size(batch_shape)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        super(Multinomial, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._categorical._new(*args, **kwargs)

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        """Nonnegative count vectors summing to at most ``total_count``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Multinomial
        >>> Multinomial(3, gradtrack.ones(2)).support.check(gradtrack.tensor([1.0, 2.0]))
        tensor(True)
        """
        return constraints.multinomial(self.total_count)

    @property
    def logits(self):
        """The categories' normalized log probabilities.

        >>> import gradtrack
        >>> from gradtrack.distributions import Multinomial
        >>> Multinomial(1, gradtrack.tensor([1.0, 1.0])).logits
        tensor([-0.6931, -0.6931])
        """
        return self._categorical.logits

    @property
    def probs(self):
        """The categories' normalized probabilities.

        >>> import gradtrack
        >>> from gradtrack.distributions import Multinomial
        >>> Multinomial(1, logits=gradtrack.zeros(2)).probs
        tensor([0.5000, 0.5000])
        """
        return self._categorical.probs

    @property
    def param_shape(self):
        """The shape of the parameter given.

        >>> import gradtrack
        >>> from gradtrack.distributions import Multinomial
        >>> Multinomial(1, gradtrack.ones(2, 3)).param_shape
        gradtrack.Size([2, 3])
        """
        return self._categorical.param_shape

    def sample(self, sample_shape=gradtrack.Size()):
        """Counts in the parameter's dtype: ``total_count`` categorical draws (one
        ``gradtrack.multinomial`` per batch entry), tallied with ``scatter_add_``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Multinomial
        >>> _ = gradtrack.manual_seed(0)
        >>> Multinomial(5, gradtrack.tensor([0.5, 0.5])).sample((2,))
        tensor([[2., 3.],
                [2., 3.]])
        """
        sample_shape = gradtrack.Size(sample_shape)
        draws = self._categorical.sample(gradtrack.Size((self.total_count,)) + sample_shape)
        # the trials' dim moves last, next to the categories it is tallied into
        order = list(range(1, draws.dim())) + [0]
        draws = draws.permute(*order)
        counts = draws.new(self._extended_shape(sample_shape)).zero_()
        counts.scatter_add_(-1, draws, gradtrack.ones_like(draws))
        return counts.type_as(self.probs)

    def entropy(self):
        """The entropy: ``n H(categorical) - lgamma(n + 1)`` plus, for each category,
        the expectation of ``lgamma(x + 1)`` under its binomial marginal.

        >>> import gradtrack
        >>> from gradtrack.distributions import Multinomial
        >>> Multinomial(2, gradtrack.tensor([0.5, 0.5])).entropy()
        tensor(1.0397)
        """
        n = gradtrack.tensor(self.total_count)
        # each count x_k is Binomial(n, p_k); sum_k E[log x_k!] skips x = 0 (log 0! = 0)
        ks = self._binomial.enumerate_support(expand=False)[1:]
        pmf = self._binomial.log_prob(ks).exp()
        expected_log_fact = (pmf * gradtrack.lgamma(ks + 1)).sum([0, -1])
        return n * self._categorical.entropy() - gradtrack.lgamma(n + 1) + expected_log_fact

    def log_prob(self, value):
        """``lgamma(n + 1) - sum(lgamma(x + 1)) + sum(x * logits)`` with
        ``n = sum(x)``; a category of probability 0 adds nothing where its count is 0.

        >>> import gradtrack
        >>> from gradtrack.distributions import Multinomial
        >>> Multinomial(2, gradtrack.tensor([0.0, 0.5, 0.5])).log_prob(gradtrack.tensor([0.0, 1.0, 1.0]))
        tensor(-0.6931)
        """
        if self._validate_args:
            self._validate_sample(value)
        logits, counts = broadcast_all(self.logits, value)
        # log of the multinomial coefficient n! / prod(x_k!)
        log_coef = gradtrack.lgamma(counts.sum(-1) + 1) - gradtrack.lgamma(counts + 1).sum(-1)
        # a category of probability 0 counted 0 times contributes 0 * log(0) := 0
        unused_impossible = (counts == 0) & (logits == -gradtrack.inf)
        logits = logits.masked_fill(unused_impossible, 0)
        return log_coef + (logits * counts).sum(-1)
