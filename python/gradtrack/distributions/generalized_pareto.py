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

    def _safe_concentration(self):
        # a concentration of (nearly) 0 takes the exponential's formula; 1 stands in
        # for it in the other branch, which where() then discards
        eq_zero = gradtrack.isclose(self.concentration, gradtrack.tensor(0.0))
        return eq_zero, gradtrack.where(eq_zero, gradtrack.ones_like(self.concentration),
                                        self.concentration)

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
        eq_zero, safe_conc = self._safe_concentration()
        y = 1 / safe_conc + gradtrack.ones_like(z)
        where_nonzero = gradtrack.where(y == 0, y, y * gradtrack.log1p(safe_conc * z))
        return -self.scale.log() - gradtrack.where(eq_zero, z, where_nonzero)

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
        eq_zero, safe_conc = self._safe_concentration()
        where_nonzero = -gradtrack.log1p(safe_conc * z) / safe_conc
        return gradtrack.where(eq_zero, -z, where_nonzero)

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
        loc, scale, concentration = self.loc, self.scale, self.concentration
        eq_zero = gradtrack.isclose(concentration, gradtrack.zeros_like(concentration))
        safe_conc = gradtrack.where(eq_zero, gradtrack.ones_like(concentration), concentration)
        logu = gradtrack.log1p(-value)
        where_nonzero = loc + scale / safe_conc * gradtrack.expm1(-safe_conc * logu)
        where_zero = loc - scale * logu
        return gradtrack.where(eq_zero, where_zero, where_nonzero)

    @property
    def mean(self):
        """``loc + scale / (1 - c)`` for ``c < 1``, else NaN.

        >>> import gradtrack
        >>> from gradtrack.distributions import GeneralizedPareto
        >>> GeneralizedPareto(0.0, 1.0, gradtrack.tensor([0.5, 1.0])).mean
        tensor([2., nan])
        """
        valid = self.concentration < 1
        safe_conc = gradtrack.where(valid, self.concentration, 0.5)
        return gradtrack.where(valid, self.loc + self.scale / (1 - safe_conc), gradtrack.nan)

    @property
    def variance(self):
        """``scale ** 2 / ((1 - c) ** 2 (1 - 2 c))`` for ``c < 1 / 2``, else NaN.

        >>> import gradtrack
        >>> from gradtrack.distributions import GeneralizedPareto
        >>> GeneralizedPareto(0.0, 1.0, gradtrack.tensor([0.0, 0.5])).variance
        tensor([1., nan])
        """
        valid = self.concentration < 0.5
        safe_conc = gradtrack.where(valid, self.concentration, 0.25)
        result = self.scale ** 2 / ((1 - safe_conc) ** 2 * (1 - 2 * safe_conc))
        return gradtrack.where(valid, result, gradtrack.nan)

    def entropy(self):
        """``log(scale) + c + 1``, in the batch shape.

        >>> from gradtrack.distributions import GeneralizedPareto
        >>> GeneralizedPareto(0.0, 1.0, 0.5).entropy()
        tensor(1.5000)
        """
        ans = gradtrack.log(self.scale) + self.concentration + 1
        return gradtrack.broadcast_to(ans, self._batch_shape)

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
        lower = self.loc
        upper = gradtrack.where(self.concentration < 0, lower - self.scale / self.concentration,
                                gradtrack.inf)
        return constraints.interval(lower, upper)
