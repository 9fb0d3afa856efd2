"""``Geometric``: the number of failures before the first success of Bernoulli
trials of success probability ``probs`` (``torch.distributions.Geometric``).

Its draws start at 0, where ``Tensor.geometric_`` counts the trials (from 1).

>>> import gradtrack
>>> from gradtrack.distributions import Geometric
>>> Geometric(0.5).log_prob(gradtrack.tensor([0.0, 1.0, 2.0]))
tensor([-0.6931, -1.3863, -2.0794])
"""

import gradtrack

from . import constraints
from .distribution import Distribution
from .utils import (_batch_shape, _check_one_of, broadcast_all, lazy_property, logits_to_probs,
                    probs_to_logits)

__all__ = ["Geometric"]


class Geometric(Distribution):
    """The geometric distribution, given by ``probs`` (in (0, 1]) or by ``logits``,
    exactly one of them; the other is computed on first use.

    >>> import gradtrack
    >>> from gradtrack.distributions import Geometric
    >>> _ = gradtrack.manual_seed(0)
    >>> Geometric(gradtrack.tensor([0.1, 0.5, 0.9])).sample()
    tensor([6., 0., 1.])
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        _check_one_of(probs, logits)
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
            batch_shape = _batch_shape(self.probs, probs)
        else:
            (self.logits,) = broadcast_all(logits)
            batch_shape = _batch_shape(self.logits, logits)
        super().__init__(batch_shape, validate_args=validate_args)
        # the unit interval lets in 0, where no trial ever succeeds
        if self._validate_args and probs is not None:
            value = self.probs
            valid = value > 0
            if not valid.all():
                raise ValueError(
                    f"Expected parameter probs ({type(value).__name__} of shape "
                    f"{tuple(value.shape)}) of distribution {self!r} to be positive but "
                    f"found invalid values:\n{value.data[~valid]}")

    def expand(self, batch_shape, _instance=None):
        """This distribution with its given parameters expanded to ``batch_shape``.

        >>> from gradtrack.distributions import Geometric
        >>> Geometric(0.25).expand([2]).probs
        tensor([0.2500, 0.2500])
        """
        new = self._get_checked_instance(Geometric, _instance)
        batch_shape = gradtrack.Size(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
        super(Geometric, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        """``1 / probs - 1``.

        >>> from gradtrack.distributions import Geometric
        >>> Geometric(0.25).mean
        tensor(3.)
        """
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        """0, the most likely count for any ``probs``.

        >>> from gradtrack.distributions import Geometric
        >>> Geometric(0.25).mode
        tensor(0.)
        """
        return gradtrack.zeros_like(self.probs)

    @property
    def variance(self):
        """``(1 / probs - 1) / probs``.

        >>> from gradtrack.distributions import Geometric
        >>> Geometric(0.5).variance
        tensor(2.)
        """
        return (1.0 / self.probs - 1.0) / self.probs

    @lazy_property
    def logits(self):
        """The log-odds of a success (computed from ``probs`` on first use when not
        given).

        >>> from gradtrack.distributions import Geometric
        >>> Geometric(0.5).logits
        tensor(0.)
        """
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        """The probability of a success (computed from ``logits`` on first use when
        not given).

        >>> from gradtrack.distributions import Geometric
        >>> Geometric(logits=0.0).probs
        tensor(0.5000)
        """
        return logits_to_probs(self.logits, is_binary=True)

    def sample(self, sample_shape=gradtrack.Size()):
        """Draws without gradient: ``floor(log(u) / log(1 - probs))`` with ``u`` from
        ``uniform_(tiny, 1)`` over a new tensor (torch's draw; ``tiny``, the smallest
        normal number of the dtype, keeps the log finite).

        >>> import gradtrack
        >>> from gradtrack.distributions import Geometric
        >>> _ = gradtrack.manual_seed(0)
        >>> Geometric(0.5).sample((4,))
        tensor([1., 0., 3., 2.])
        """
        shape = self._extended_shape(sample_shape)
        tiny = gradtrack.finfo(self.probs.dtype).tiny
        with gradtrack.no_grad():
            u = self.probs.new(shape).uniform_(tiny, 1)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        """``value * log(1 - probs) + log(probs)``, with ``0 * log(0)`` taken as 0
        where ``probs`` is 1.

        >>> import gradtrack
        >>> from gradtrack.distributions import Geometric
        >>> Geometric(gradtrack.tensor([0.5, 1.0])).log_prob(gradtrack.tensor([1.0, 0.0]))
        tensor([-1.3863,  0.0000])
        """
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        probs = probs.clone(memory_format=gradtrack.contiguous_format)
        probs[(probs == 1) & (value == 0)] = 0
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        """The binary cross entropy of the logits with ``probs``, over ``probs``.

        >>> from gradtrack.distributions import Geometric
        >>> Geometric(0.5).entropy()
        tensor(1.3863)
        """
        bce = gradtrack.nn.functional.binary_cross_entropy_with_logits(
            self.logits, self.probs, reduction="none")
        return bce / self.probs
