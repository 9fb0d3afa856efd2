"""``Pareto``: the Pareto type I distribution of minimum ``scale`` and tail index
``alpha`` (``torch.distributions.Pareto``), made from an exponential ``E`` of rate
``alpha`` as ``scale * exp(E)``.

>>> import gradtrack
>>> from gradtrack.distributions import Pareto
>>> Pareto(1.0, 2.0).log_prob(gradtrack.tensor([1.0, 2.0]))
tensor([ 0.6931, -1.3863])
"""

from . import constraints
from .exponential import Exponential
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .utils import broadcast_all

__all__ = ["Pareto"]


class Pareto(TransformedDistribution):
    """The Pareto distribution of ``scale`` and ``alpha`` (numbers or tensors,
    broadcast together): ``Exponential(alpha)`` through ``exp`` and the scaling by
    ``scale``.

    >>> import gradtrack
    >>> from gradtrack.distributions import Pareto
    >>> _ = gradtrack.manual_seed(0)
    >>> Pareto(gradtrack.tensor([1.0, 10.0]), 2.0).sample()
    tensor([ 5.7786, 18.5001])
    """

    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}

    def __init__(self, scale, alpha, validate_args=None):
        self.scale, self.alpha = broadcast_all(scale, alpha)
        base_dist = Exponential(self.alpha, validate_args=validate_args)
        transforms = [ExpTransform(), AffineTransform(loc=0, scale=self.scale)]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with ``scale`` and ``alpha`` expanded to ``batch_shape``.

        >>> from gradtrack.distributions import Pareto
        >>> Pareto(1.0, 3.0).expand([2]).alpha
        tensor([3., 3.])
        """
        new = self._get_checked_instance(Pareto, _instance)
        new.scale = self.scale.expand(batch_shape)
        new.alpha = self.alpha.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        """``alpha * scale / (alpha - 1)``, infinite for ``alpha <= 1``.

        >>> import gradtrack
        >>> from gradtrack.distributions import Pareto
        >>> Pareto(1.0, gradtrack.tensor([0.5, 3.0])).mean
        tensor([   inf, 1.5000])
        """
        a = self.alpha.clamp(min=1)
        return a * self.scale / (a - 1)

    @property
    def mode(self):
        """``scale``.

        >>> from gradtrack.distributions import Pareto
        >>> Pareto(2.0, 3.0).mode
        tensor(2.)
        """
        return self.scale

    @property
    def variance(self):
        """``scale ** 2 * alpha / ((alpha - 1) ** 2 * (alpha - 2))``, infinite for
        ``alpha <= 2``.

        >>> from gradtrack.distributions import Pareto
        >>> Pareto(1.0, 3.0).variance
        tensor(0.7500)
        """
        a = self.alpha.clamp(min=2)
        return self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        """The reals from ``scale`` up.

        >>> from gradtrack.distributions import Pareto
        >>> Pareto(2.0, 1.0).support
        GreaterThanEq(lower_bound=2.0)
        """
        return constraints.greater_than_eq(self.scale)

    def entropy(self):
        """``log(scale / alpha) + 1 + 1 / alpha``.

        >>> from gradtrack.distributions import Pareto
        >>> Pareto(1.0, 2.0).entropy()
        tensor(0.8069)
        """
        return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())
