"""``Distribution``, the base class of the distributions: their shapes, argument
validation and the methods every distribution answers
(``torch.distributions.Distribution``).

A distribution has a ``batch_shape`` (independent, differently parameterized copies)
and an ``event_shape`` (the shape of one draw); ``sample(sample_shape)`` returns
``sample_shape + batch_shape + event_shape``.

>>> import gradtrack
>>> from gradtrack.distributions import Normal
>>> d = Normal(gradtrack.zeros(3), 1.0)
>>> d.batch_shape, d.event_shape, d.sample((2,)).shape
(gradtrack.Size([3]), gradtrack.Size([]), gradtrack.Size([2, 3]))
"""

import warnings

import gradtrack

from . import constraints
from .utils import lazy_property

__all__ = ["Distribution"]


class Distribution:
    """The base class of probability distributions.

    ``validate_args`` (default: the class-wide setting, on unless Python runs with
    ``-O``) checks the parameters against ``arg_constraints`` here, and the values
    given to ``log_prob``, ``cdf`` and the like against ``support``.

    >>> import gradtrack
    >>> from gradtrack.distributions import Distribution
    >>> d = Distribution(gradtrack.Size([2]), validate_args=False)
    >>> d.batch_shape, d.event_shape
    (gradtrack.Size([2]), gradtrack.Size([]))
    """

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value):
        """Turns argument validation on or off for every distribution made later
        without an explicit ``validate_args``.

        >>> from gradtrack.distributions import Distribution, Normal
        >>> Distribution.set_default_validate_args(False)
        >>> Normal(0.0, -1.0).scale
        tensor(-1.)
        >>> Distribution.set_default_validate_args(True)
        """
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=gradtrack.Size(), event_shape=gradtrack.Size(),
                 validate_args=None):
        self._batch_shape = batch_shape
        self._event_shape = event_shape
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            self._check_parameters()
        super().__init__()

    def _check_parameters(self):
        try:
            arg_constraints = self.arg_constraints
        except NotImplementedError:
            arg_constraints = {}
            warnings.warn(f"{self.__class__} does not define `arg_constraints`. Please set "
                          "`arg_constraints = {}` or initialize the distribution with "
                          "`validate_args=False` to turn off validation.", stacklevel=3)
        for param, constraint in arg_constraints.items():
            if constraints.is_dependent(constraint):
                continue
            # probs given, logits not computed yet: computing it here would be wasted
            if param not in self.__dict__ and isinstance(getattr(type(self), param),
                                                         lazy_property):
                continue
            value = getattr(self, param)
            if not bool(constraint.check(value).all()):
                raise ValueError(
                    f"Expected parameter {param} ({type(value).__name__} of shape "
                    f"{tuple(value.shape)}) of distribution {self!r} to satisfy the "
                    f"constraint {constraint!r}, but found invalid values:\n{value}")

    def expand(self, batch_shape, _instance=None):
        """A distribution of the same kind with its parameters expanded (as views,
        without copying or validating again) to ``batch_shape``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Normal
        >>> Normal(0.0, 1.0).expand([2, 3]).batch_shape
        gradtrack.Size([2, 3])
        """
        raise NotImplementedError

    @property
    def batch_shape(self):
        """The shape over which the parameters are batched.

        >>> import gradtrack
        >>> from gradtrack.distributions import Bernoulli
        >>> Bernoulli(gradtrack.full((2, 3), 0.5)).batch_shape
        gradtrack.Size([2, 3])
        """
        return self._batch_shape

    @property
    def event_shape(self):
        """The shape of a single draw, without the batch.

        >>> import gradtrack
        >>> from gradtrack.distributions import OneHotCategorical
        >>> OneHotCategorical(gradtrack.ones(4)).event_shape
        gradtrack.Size([4])
        """
        return self._event_shape

    @property
    def arg_constraints(self):
        """The constraint each tensor parameter must satisfy, by parameter name.

        >>> from gradtrack.distributions import Normal
        >>> Normal.arg_constraints
        {'loc': Real(), 'scale': GreaterThan(lower_bound=0.0)}
        """
        raise NotImplementedError

    @property
    def support(self):
        """The constraint a value must satisfy to have a nonzero probability.

        >>> from gradtrack.distributions import Bernoulli
        >>> Bernoulli(0.5).support
        Boolean()
        """
        raise NotImplementedError

    @property
    def mean(self):
        """The mean of the distribution.

        >>> from gradtrack.distributions import Normal
        >>> Normal(2.0, 1.0).mean
        tensor(2.)
        """
        raise NotImplementedError

    @property
    def mode(self):
        """The mode (the most likely value) of the distribution.

        >>> import gradtrack
        >>> from gradtrack.distributions import Categorical
        >>> Categorical(gradtrack.tensor([0.2, 0.7, 0.1])).mode
        tensor(1)
        """
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self):
        """The variance of the distribution.

        >>> from gradtrack.distributions import Normal
        >>> Normal(0.0, 2.0).variance
        tensor(4.)
        """
        raise NotImplementedError

    @property
    def stddev(self):
        """The standard deviation: the square root of the variance.

        >>> from gradtrack.distributions import Bernoulli
        >>> Bernoulli(0.5).stddev
        tensor(0.5000)
        """
        return self.variance.sqrt()

    def sample(self, sample_shape=gradtrack.Size()):
        """A draw of shape ``sample_shape + batch_shape + event_shape``, without
        gradient.

        >>> import gradtrack
        >>> from gradtrack.distributions import Normal
        >>> _ = gradtrack.manual_seed(0)
        >>> Normal(gradtrack.zeros(2), 1.0).sample((3,)).shape
        gradtrack.Size([3, 2])
        """
        with gradtrack.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=gradtrack.Size()):
        """A reparameterized draw: gradients flow from it back to the parameters.

        >>> import gradtrack
        >>> from gradtrack.distributions import Normal
        >>> loc = gradtrack.zeros(2, requires_grad=True)
        >>> Normal(loc, 1.0).rsample().sum().backward()
        >>> loc.grad
        tensor([1., 1.])
        """
        raise NotImplementedError

    def sample_n(self, n):
        """``n`` draws (deprecated: ``sample((n,))`` is the same).

        >>> import warnings
        >>> from gradtrack.distributions import Normal
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     Normal(0.0, 1.0).sample_n(3).shape
        gradtrack.Size([3])
        """
        warnings.warn("`sample_n(n)` will be deprecated. Use `sample((n,))` instead.",
                      FutureWarning, stacklevel=2)
        return self.sample(gradtrack.Size((n,)))

    def log_prob(self, value):
        """The log of the probability density (or mass) at ``value``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Bernoulli
        >>> Bernoulli(0.5).log_prob(gradtrack.tensor(1.0))
        tensor(-0.6931)
        """
        raise NotImplementedError

    def cdf(self, value):
        """The cumulative distribution function at ``value``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Normal
        >>> Normal(0.0, 1.0).cdf(gradtrack.tensor(0.0))
        tensor(0.5000)
        """
        raise NotImplementedError

    def icdf(self, value):
        """The inverse of the cumulative distribution function at ``value``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Uniform
        >>> Uniform(0.0, 4.0).icdf(gradtrack.tensor(0.25))
        tensor(1.)
        """
        raise NotImplementedError

    def enumerate_support(self, expand=True):
        """All values of a discrete distribution, along dim 0: of shape
        ``(cardinality,) + batch_shape + event_shape``, or with the batch dims of
        size 1 when not ``expand``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Bernoulli
        >>> Bernoulli(gradtrack.tensor([0.1, 0.9])).enumerate_support()
        tensor([[0., 0.],
                [1., 1.]])
        """
        raise NotImplementedError

    def entropy(self):
        """The entropy, one per batch entry.

        >>> from gradtrack.distributions import Bernoulli
        >>> Bernoulli(0.5).entropy()
        tensor(0.6931)
        """
        raise NotImplementedError

    def perplexity(self):
        """The exponential of the entropy, one per batch entry.

        >>> import gradtrack
        >>> from gradtrack.distributions import Categorical
        >>> Categorical(gradtrack.ones(4)).perplexity()
        tensor(4.)
        """
        return gradtrack.exp(self.entropy())

    def _extended_shape(self, sample_shape=gradtrack.Size()):
        """``sample_shape + batch_shape + event_shape``: the shape of a draw.

        >>> from gradtrack.distributions import Normal
        >>> Normal(0.0, 1.0)._extended_shape((4,))
        gradtrack.Size([4])
        """
        if not isinstance(sample_shape, gradtrack.Size):
            sample_shape = gradtrack.Size(sample_shape)
        return gradtrack.Size(sample_shape + self._batch_shape + self._event_shape)

    def _validate_sample(self, value):
        """Raises ``ValueError`` unless ``value`` is a tensor whose rightmost dims
        broadcast with ``batch_shape + event_shape`` and whose entries are in the
        support.

        >>> import gradtrack
        >>> from gradtrack.distributions import Bernoulli
        >>> Bernoulli(0.5)._validate_sample(gradtrack.tensor(2.0))
        Traceback (most recent call last):
        ...
        ValueError: Expected value argument (Tensor of shape ()) to be within the support ...
        2.0
        """
        if not isinstance(value, gradtrack.Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_start = len(value.size()) - len(self._event_shape)
        if value.size()[event_start:] != self._event_shape:
            raise ValueError("The right-most size of value must match event_shape: "
                             f"{value.size()} vs {self._event_shape}.")
        actual = value.size()
        expected = self._batch_shape + self._event_shape
        for i, j in zip(reversed(actual), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError("Value is not broadcastable with batch_shape+event_shape: "
                                 f"{actual} vs {expected}.")
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(f"{self.__class__} does not define `support` to enable sample "
                          "validation. Please initialize the distribution with "
                          "`validate_args=False` to turn off validation.", stacklevel=2)
            return
        if support is None:
            raise AssertionError("support is unexpectedly None")
        if not bool(support.check(value).all()):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape "
                f"{tuple(value.shape)}) to be within the support ({support!r}) of the "
                f"distribution {self!r}, but found invalid values:\n{value}")

    def _get_checked_instance(self, cls, _instance=None):
        """The object ``expand`` fills: ``_instance``, else a new, uninitialized
        instance of this type, which needs this type's ``__init__`` to be ``cls``'s
        (a subclass with its own ``__init__`` must bring its own ``expand``)."""
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                "__init__ method must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    def __repr__(self):
        # a parameter with one element prints its value, a larger one its size
        params = [p for p in self.arg_constraints if p in self.__dict__]
        shown = []
        for p in params:
            value = self.__dict__[p]
            shown.append(f"{p}: {value if value.numel() == 1 else value.size()}")
        return f"{self.__class__.__name__}({', '.join(shown)})"
