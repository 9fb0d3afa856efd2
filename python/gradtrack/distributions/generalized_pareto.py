"""``GeneralizedPareto``: the generalized Pareto distribution of location ``loc``,
scale ``scale`` and shape ``concentration`` (``torch.distributions.GeneralizedPareto``),
the limit law of exceedances over a high threshold. ``concentration`` 0 gives the
shifted exponential, -1 the uniform, and a positive one a Pareto tail.

>>> import gradtrack
>>> from gradtrack.distributions import GeneralizedPareto
>>> GeneralizedPareto(0.0, 1.0, 0.5).log_prob(gradtrack.tensor([0.0, 1.0]))
tensor([-0.0000, -1.2164])
"""

import gradtrack

from . import constraints
from .distribution import Distribution
from .utils import _batch_shape, broadcast_all

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """The generalized Pareto distribution of ``loc``, ``scale`` and
    ``concentration`` (numbers or tensors, broadcast together). Draws are the icdf
    of uniform draws.

    >>> import gradtrack
    >>> from gradtrack.distributions import GeneralizedPareto
    >>> _ = gradtrack.manual_seed(0)
    >>> GeneralizedPareto(gradtrack.tensor([0.0, 1.0]), 2.0, 0.4).sample()
    tensor([1.5779, 4.9731])
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive,
                       "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        batch_shape = _batch_shape(self.loc, loc, scale, concentration)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its parameters expanded to ``batch_shape``.

        >>> from gradtrack.distributions import GeneralizedPareto
        >>> GeneralizedPareto(0.0, 1.0, 0.5).expand([2]).concentration
        tensor([0.5000, 0.5000])
        """
        new = self._get_checked_instance(GeneralizedPareto, _instance)
        batch_shape = gradtrack.Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        super(GeneralizedPareto, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=gradtrack.Size()):
        """The icdf of one ``rand`` draw of the sample's shape.

        >>> import gradtrack
        >>> from gradtrack.distributions import GeneralizedPareto
        >>> _ = gradtrack.manual_seed(0)
        >>> GeneralizedPareto(0.0, 1.0, 0.0).rsample((2,))
        tensor([0.6857, 1.4620])
        """
        shape = self._extended_shape(sample_shape)
        u = gradtrack.rand(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.icdf(u)

    def _z(self, x):
        return (x - self.loc) / self.scale

    def _split_concentration(self, zero):
        """``(near_zero, c)``: where the concentration is close to ``zero`` (those
        entries take the exponential's formula) and the concentration with 1 put in
        there, so the general formula, evaluated everywhere and then discarded by
        ``where`` at those entries, stays finite."""
        conc = self.concentration
        near_zero = gradtrack.isclose(conc, zero)
        return near_zero, gradtrack.where(near_zero, gradtrack.ones_like(conc), conc)

    def log_prob(self, value):
        """``-log(scale) - (1 / c + 1) * log1p(c z)`` for ``z = (value - loc) / scale``
        (``-log(scale) - z`` when ``c = 0``).

        >>> import gradtrack
        >>> from gradtrack.distributions import GeneralizedPareto
        >>> GeneralizedPareto(0.0, 2.0, 0.0).log_prob(gradtrack.tensor(2.0))
        tensor(-1.6931)
        """
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        near_zero, c = self._split_concentration(gradtrack.tensor(0.0))
        exponent = 1 / c + gradtrack.ones_like(z)
        # exponent 0 (c = -1, the uniform): the term is 0 even where log1p is -inf
        general = gradtrack.where(exponent == 0, exponent, exponent * gradtrack.log1p(c * z))
        return -self.scale.log() - gradtrack.where(near_zero, z, general)

    def log_survival_function(self, value):
        """The log of ``1 - cdf``: ``-log1p(c z) / c`` (``-z`` when ``c = 0``).

        >>> import gradtrack
        >>> from gradtrack.distributions import GeneralizedPareto
        >>> GeneralizedPareto(0.0, 1.0, 0.0).log_survival_function(gradtrack.tensor(3.0))
        tensor(-3.)
        """
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        near_zero, c = self._split_concentration(gradtrack.tensor(0.0))
        return gradtrack.where(near_zero, -z, -gradtrack.log1p(c * z) / c)

    def log_cdf(self, value):
        """The log of the cdf, from the log survival function.

        >>> import gradtrack
        >>> from gradtrack.distributions import GeneralizedPareto
        >>> GeneralizedPareto(0.0, 1.0, 0.0).log_cdf(gradtrack.tensor(1.0))
        tensor(-0.4587)
        """
        return gradtrack.log1p(-gradtrack.exp(self.log_survival_function(value)))

    def cdf(self, value):
        """The exponential of ``log_cdf``.

        >>> import gradtrack
        >>> from gradtrack.distributions import GeneralizedPareto
        >>> GeneralizedPareto(0.0, 1.0, -1.0).cdf(gradtrack.tensor(0.25))
        tensor(0.2500)
        """
        return gradtrack.exp(self.log_cdf(value))

    def icdf(self, value):
        """``loc + scale / c * expm1(-c log1p(-value))`` (``loc - scale *
        log1p(-value)`` when ``c = 0``).

        >>> import gradtrack
        >>> from gradtrack.distributions import GeneralizedPareto
        >>> GeneralizedPareto(1.0, 2.0, 0.5).icdf(gradtrack.tensor(0.75))
        tensor(5.)
        """
        # unlike log_prob, the zero compared against has the concentration's dtype
        near_zero, c = self._split_concentration(gradtrack.zeros_like(self.concentration))
        log_tail = gradtrack.log1p(-value)  # log(1 - value)
        exponential = self.loc - self.scale * log_tail
        general = self.loc + self.scale / c * gradtrack.expm1(-c * log_tail)
        return gradtrack.where(near_zero, exponential, general)

    @property
    def mean(self):
        """``loc + scale / (1 - c)`` for ``c < 1``, else NaN.

        >>> import gradtrack
        >>> from gradtrack.distributions import GeneralizedPareto
        >>> GeneralizedPareto(0.0, 1.0, gradtrack.tensor([0.5, 1.0])).mean
        tensor([2., nan])
        """
        finite = self.concentration < 1
        c = gradtrack.where(finite, self.concentration, 0.5)  # 0.5: any value below 1
        return gradtrack.where(finite, self.loc + self.scale / (1 - c), gradtrack.nan)

    @property
    def variance(self):
        """``scale ** 2 / ((1 - c) ** 2 (1 - 2 c))`` for ``c < 1 / 2``, else NaN.

        >>> import gradtrack
        >>> from gradtrack.distributions import GeneralizedPareto
        >>> GeneralizedPareto(0.0, 1.0, gradtrack.tensor([0.0, 0.5])).variance
        tensor([1., nan])
        """
        finite = self.concentration < 0.5
        c = gradtrack.where(finite, self.concentration, 0.25)  # 0.25: any value below 1/2
        denom = (1 - c) ** 2 * (1 - 2 * c)
        return gradtrack.where(finite, self.scale ** 2 / denom, gradtrack.nan)

    def entropy(self):
        """``log(scale) + c + 1``, in the batch shape.

        >>> from gradtrack.distributions import GeneralizedPareto
        >>> GeneralizedPareto(0.0, 1.0, 0.5).entropy()
        tensor(1.5000)
        """
        per_param = gradtrack.log(self.scale) + self.concentration + 1
        return gradtrack.broadcast_to(per_param, self._batch_shape)

    @property
    def mode(self):
        """``loc``.

        >>> from gradtrack.distributions import GeneralizedPareto
        >>> GeneralizedPareto(3.0, 1.0, 0.5).mode
        tensor(3.)
        """
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        """From ``loc`` up, bounded above by ``loc - scale / c`` when ``c < 0``.

        >>> import gradtrack
        >>> from gradtrack.distributions import GeneralizedPareto
        >>> GeneralizedPareto(0.0, 1.0, gradtrack.tensor([0.5, -0.5])).support
        Interval(lower_bound=tensor([0., 0.]), upper_bound=tensor([inf, 2.]))
        """
        bounded = self.concentration < 0
        top = gradtrack.where(bounded, self.loc - self.scale / self.concentration, gradtrack.inf)
        return constraints.interval(self.loc, top)
