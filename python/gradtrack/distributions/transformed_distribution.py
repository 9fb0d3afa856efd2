"""``TransformedDistribution``: a base distribution pushed through a chain of
transforms (``torch.distributions.TransformedDistribution``).

If ``X`` follows the base and ``Y = f(X)``, then
``log p(Y) = log p(X) - log |det dY/dX|``; draws are the base's draws sent
through ``f``.

>>> import gradtrack
>>> from gradtrack.distributions import Normal, TransformedDistribution
>>> from gradtrack.distributions.transforms import ExpTransform
>>> d = TransformedDistribution(Normal(0.0, 1.0), [ExpTransform()])
>>> d.log_prob(gradtrack.tensor([1.0, 2.0]))
tensor([-0.9189, -1.8523])
"""

import gradtrack

from . import constraints
from .distribution import Distribution
from .independent import Independent
from .transform import ComposeTransform, Transform
from .utils import _sum_rightmost

__all__ = ["TransformedDistribution"]


class TransformedDistribution(Distribution):
    """``base_distribution`` sent through ``transforms`` (one transform or a list,
    applied first to last). Its event dims are the most the base and the
    transforms need: a transform of vectors makes the base's batch dim an event dim.

    >>> import gradtrack
    >>> from gradtrack.distributions import TransformedDistribution, Uniform
    >>> from gradtrack.distributions.transforms import AffineTransform, SigmoidTransform
    >>> logistic = TransformedDistribution(Uniform(0.0, 1.0),
    ...                                    [SigmoidTransform().inv, AffineTransform(1.0, 2.0)])
    >>> _ = gradtrack.manual_seed(0)
    >>> logistic.sample((3,))
    tensor([ 0.9701,  3.3966, -3.6647])
    """

    arg_constraints = {}

    def __init__(self, base_distribution, transforms, validate_args=None):
        if isinstance(transforms, Transform):
            self.transforms = [transforms]
        elif isinstance(transforms, list):
            if not all(isinstance(t, Transform) for t in transforms):
                raise ValueError("transforms must be a Transform or a list of Transforms")
            self.transforms = transforms
        else:
            raise ValueError(f"transforms must be a Transform or list, but was {transforms}")
        base_shape = base_distribution.batch_shape + base_distribution.event_shape
        base_event_dim = len(base_distribution.event_shape)
        transform = ComposeTransform(self.transforms)
        if len(base_shape) < transform.domain.event_dim:
            raise ValueError("base_distribution needs to have shape with size at least "
                             f"{transform.domain.event_dim}, but got {base_shape}.")
        forward_shape = transform.forward_shape(base_shape)
        # a transform with parameters of a larger shape widens the base's batch
        expanded_base_shape = transform.inverse_shape(forward_shape)
        if base_shape != expanded_base_shape:
            base_batch_shape = expanded_base_shape[:len(expanded_base_shape) - base_event_dim]
            base_distribution = base_distribution.expand(base_batch_shape)
        reinterpreted_batch_ndims = transform.domain.event_dim - base_event_dim
        if reinterpreted_batch_ndims > 0:
            base_distribution = Independent(base_distribution, reinterpreted_batch_ndims)
        self.base_dist = base_distribution
        change_in_event_dim = transform.codomain.event_dim - transform.domain.event_dim
        event_dim = max(transform.codomain.event_dim, base_event_dim + change_in_event_dim)
        if len(forward_shape) < event_dim:
            raise AssertionError(
                f"forward_shape length {len(forward_shape)} must be >= event_dim {event_dim}")
        cut = len(forward_shape) - event_dim
        super().__init__(forward_shape[:cut], forward_shape[cut:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with the base expanded to the batch shape that gives
        ``batch_shape`` after the transforms.

        >>> from gradtrack.distributions import Normal, TransformedDistribution
        >>> from gradtrack.distributions.transforms import ExpTransform
        >>> TransformedDistribution(Normal(0.0, 1.0), ExpTransform()).expand([2]).base_dist
        Normal(loc: gradtrack.Size([2]), scale: gradtrack.Size([2]))
        """
        new = self._get_checked_instance(TransformedDistribution, _instance)
        batch_shape = gradtrack.Size(batch_shape)
        shape = batch_shape + self.event_shape
        for t in reversed(self.transforms):
            shape = t.inverse_shape(shape)
        base_batch_shape = shape[:len(shape) - len(self.base_dist.event_shape)]
        new.base_dist = self.base_dist.expand(base_batch_shape)
        new.transforms = self.transforms
        super(TransformedDistribution, new).__init__(batch_shape, self.event_shape,
                                                     validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=False)
    def support(self):
        """The last transform's codomain over the event dims (the base's support
        without transforms).

        >>> from gradtrack.distributions import Normal, TransformedDistribution
        >>> from gradtrack.distributions.transforms import ExpTransform
        >>> TransformedDistribution(Normal(0.0, 1.0), [ExpTransform()]).support
        GreaterThan(lower_bound=0.0)
        """
        if not self.transforms:
            return self.base_dist.support
        support = self.transforms[-1].codomain
        if len(self.event_shape) > support.event_dim:
            support = constraints.independent(support, len(self.event_shape) - support.event_dim)
        return support

    @property
    def has_rsample(self):
        """The base distribution's.

        >>> from gradtrack.distributions import Normal, TransformedDistribution
        >>> TransformedDistribution(Normal(0.0, 1.0), []).has_rsample
        True
        """
        return self.base_dist.has_rsample

    def sample(self, sample_shape=gradtrack.Size()):
        """The base's draw sent through the transforms, without gradient.

        >>> import gradtrack
        >>> from gradtrack.distributions import Normal, TransformedDistribution
        >>> from gradtrack.distributions.transforms import ExpTransform
        >>> _ = gradtrack.manual_seed(0)
        >>> TransformedDistribution(Normal(0.0, 1.0), [ExpTransform()]).sample((2,))
        tensor([4.6692, 0.7457])
        """
        with gradtrack.no_grad():
            x = self.base_dist.sample(sample_shape)
            for transform in self.transforms:
                x = transform(x)
            return x

    def rsample(self, sample_shape=gradtrack.Size()):
        """The base's reparameterized draw sent through the transforms.

        >>> import gradtrack
        >>> from gradtrack.distributions import Normal, TransformedDistribution
        >>> from gradtrack.distributions.transforms import AffineTransform
        >>> _ = gradtrack.manual_seed(0)
        >>> TransformedDistribution(Normal(0.0, 1.0), [AffineTransform(1.0, 2.0)]).rsample()
        tensor(4.0820)
        """
        x = self.base_dist.rsample(sample_shape)
        for transform in self.transforms:
            x = transform(x)
        return x

    def log_prob(self, value):
        """The base's log density at the inverted value, minus each transform's
        ``log_abs_det_jacobian`` summed over the event dims.

        >>> import gradtrack
        >>> from gradtrack.distributions import Normal, TransformedDistribution
        >>> from gradtrack.distributions.transforms import AffineTransform
        >>> d = TransformedDistribution(Normal(0.0, 1.0), [AffineTransform(0.0, 2.0)])
        >>> d.log_prob(gradtrack.tensor(0.0))
        tensor(-1.6121)
        """
        if self._validate_args:
            self._validate_sample(value)
        event_dim = len(self.event_shape)
        log_prob = 0.0
        y = value
        for transform in reversed(self.transforms):
            x = transform.inv(y)
            event_dim += transform.domain.event_dim - transform.codomain.event_dim
            log_prob = log_prob - _sum_rightmost(transform.log_abs_det_jacobian(x, y),
                                                 event_dim - transform.domain.event_dim)
            y = x
        return log_prob + _sum_rightmost(self.base_dist.log_prob(y),
                                         event_dim - len(self.base_dist.event_shape))

    def _monotonize_cdf(self, value):
        # a decreasing chain of transforms turns the base's cdf into 1 - cdf
        sign = 1
        for transform in self.transforms:
            sign = sign * transform.sign
        if isinstance(sign, int) and sign == 1:
            return value
        return sign * (value - 0.5) + 0.5

    def cdf(self, value):
        """The base's cdf at the inverted value (flipped when the transforms
        decrease).

        >>> import gradtrack
        >>> from gradtrack.distributions import Normal, TransformedDistribution
        >>> from gradtrack.distributions.transforms import AffineTransform
        >>> d = TransformedDistribution(Normal(0.0, 1.0), [AffineTransform(0.0, -1.0)])
        >>> d.cdf(gradtrack.tensor([-1.0, 1.0]))
        tensor([0.1587, 0.8413])
        """
        for transform in self.transforms[::-1]:
            value = transform.inv(value)
        if self._validate_args:
            self.base_dist._validate_sample(value)
        return self._monotonize_cdf(self.base_dist.cdf(value))

    def icdf(self, value):
        """The base's icdf sent through the transforms.

        >>> import gradtrack
        >>> from gradtrack.distributions import Normal, TransformedDistribution
        >>> from gradtrack.distributions.transforms import ExpTransform
        >>> TransformedDistribution(Normal(0.0, 1.0), [ExpTransform()]).icdf(gradtrack.tensor(0.5))
        tensor(1.)
        """
        value = self.base_dist.icdf(self._monotonize_cdf(value))
        for transform in self.transforms:
            value = transform(value)
        return value
