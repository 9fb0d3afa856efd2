"""``Independent``: batch dims of a distribution reinterpreted as event dims
(``torch.distributions.Independent``).

A diagonal Gaussian over vectors is ``Independent(Normal(loc, scale), 1)``: its
``log_prob`` sums the per-coordinate ones.

>>> import gradtrack
>>> from gradtrack.distributions import Independent, Normal
>>> d = Independent(Normal(gradtrack.zeros(3, 2), 1.0), 1)
>>> d.batch_shape, d.event_shape, d.log_prob(gradtrack.zeros(3, 2)).shape
(gradtrack.Size([3]), gradtrack.Size([2]), gradtrack.Size([3]))
"""

import gradtrack

from . import constraints
from .distribution import Distribution
from .utils import _sum_rightmost

__all__ = ["Independent"]


class Independent(Distribution):
    """``base_distribution`` with its ``reinterpreted_batch_ndims`` rightmost batch
    dims made part of the event.

    >>> import gradtrack
    >>> from gradtrack.distributions import Bernoulli, Independent
    >>> Independent(Bernoulli(gradtrack.full((2, 3), 0.5)), 2)
    Independent(Bernoulli(probs: gradtrack.Size([2, 3])), 2)
    """

    arg_constraints = {}

    def __init__(self, base_distribution, reinterpreted_batch_ndims, validate_args=None):
        if reinterpreted_batch_ndims > len(base_distribution.batch_shape):
            raise ValueError(
                "Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), "
                f"actual {reinterpreted_batch_ndims} vs {len(base_distribution.batch_shape)}")
        shape = base_distribution.batch_shape + base_distribution.event_shape
        event_dim = reinterpreted_batch_ndims + len(base_distribution.event_shape)
        batch_shape = shape[:len(shape) - event_dim]
        event_shape = shape[len(shape) - event_dim:]
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its batch (and the base's) expanded to ``batch_shape``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Independent, Normal
        >>> Independent(Normal(gradtrack.zeros(2), 1.0), 1).expand([3]).base_dist.batch_shape
        gradtrack.Size([3, 2])
        """
        new = self._get_checked_instance(Independent, _instance)
        batch_shape = gradtrack.Size(batch_shape)
        new.base_dist = self.base_dist.expand(
            batch_shape + self.event_shape[:self.reinterpreted_batch_ndims])
        new.reinterpreted_batch_ndims = self.reinterpreted_batch_ndims
        super(Independent, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def has_rsample(self):
        """The base distribution's.

        >>> import gradtrack
        >>> from gradtrack.distributions import Independent, Normal
        >>> Independent(Normal(gradtrack.zeros(2), 1.0), 1).has_rsample
        True
        """
        return self.base_dist.has_rsample

    @property
    def has_enumerate_support(self):
        """The base distribution's, but False once dims are reinterpreted (the
        support would be a cartesian product).

        >>> import gradtrack
        >>> from gradtrack.distributions import Bernoulli, Independent
        >>> Independent(Bernoulli(gradtrack.full((2,), 0.5)), 1).has_enumerate_support
        False
        """
        if self.reinterpreted_batch_ndims > 0:
            return False
        return self.base_dist.has_enumerate_support

    @constraints.dependent_property
    def support(self):
        """The base's support, with the reinterpreted dims taken into its events.

        >>> import gradtrack
        >>> from gradtrack.distributions import Independent, Normal
        >>> Independent(Normal(gradtrack.zeros(2), 1.0), 1).support
        IndependentConstraint(Real(), 1)
        """
        result = self.base_dist.support
        if self.reinterpreted_batch_ndims:
            result = constraints.independent(result, self.reinterpreted_batch_ndims)
        return result

    @property
    def mean(self):
        """The base distribution's.

        >>> import gradtrack
        >>> from gradtrack.distributions import Independent, Normal
        >>> Independent(Normal(gradtrack.ones(2), 1.0), 1).mean
        tensor([1., 1.])
        """
        return self.base_dist.mean

    @property
    def mode(self):
        """The base distribution's.

        >>> import gradtrack
        >>> from gradtrack.distributions import Independent, Normal
        >>> Independent(Normal(gradtrack.ones(2), 1.0), 1).mode
        tensor([1., 1.])
        """
        return self.base_dist.mode

    @property
    def variance(self):
        """The base distribution's.

        >>> import gradtrack
        >>> from gradtrack.distributions import Independent, Normal
        >>> Independent(Normal(gradtrack.zeros(2), 2.0), 1).variance
        tensor([4., 4.])
        """
        return self.base_dist.variance

    def sample(self, sample_shape=gradtrack.Size()):
        """The base distribution's draw.

        >>> import gradtrack
        >>> from gradtrack.distributions import Independent, Normal
        >>> Independent(Normal(gradtrack.zeros(2), 1.0), 1).sample((3,)).shape
        gradtrack.Size([3, 2])
        """
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape=gradtrack.Size()):
        """The base distribution's reparameterized draw.

        >>> import gradtrack
        >>> from gradtrack.distributions import Independent, Normal
        >>> Independent(Normal(gradtrack.zeros(2), 1.0), 1).rsample().shape
        gradtrack.Size([2])
        """
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value):
        """The base's log probabilities summed over the reinterpreted dims.

        >>> import gradtrack
        >>> from gradtrack.distributions import Independent, Normal
        >>> Independent(Normal(gradtrack.zeros(2), 1.0), 1).log_prob(gradtrack.zeros(2))
        tensor(-1.8379)
        """
        return _sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self):
        """The base's entropies summed over the reinterpreted dims.

        >>> import gradtrack
        >>> from gradtrack.distributions import Independent, Normal
        >>> Independent(Normal(gradtrack.zeros(2), 1.0), 1).entropy()
        tensor(2.8379)
        """
        return _sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def enumerate_support(self, expand=True):
        """The base distribution's, when no dims are reinterpreted.

        >>> import gradtrack
        >>> from gradtrack.distributions import Bernoulli, Independent
        >>> Independent(Bernoulli(gradtrack.full((2,), 0.5)), 0).enumerate_support()
        tensor([[0., 0.],
                [1., 1.]])
        """
        if self.reinterpreted_batch_ndims > 0:
            raise NotImplementedError("Enumeration over cartesian product is not implemented")
        return self.base_dist.enumerate_support(expand=expand)

    def __repr__(self):
        return f"{self.__class__.__name__}({self.base_dist}, {self.reinterpreted_batch_ndims})"
