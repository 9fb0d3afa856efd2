"""``StudentT``: Student's t-distribution of ``df`` degrees of freedom, shifted by
``loc`` and scaled by ``scale`` (``torch.distributions.StudentT``).

Draws are ``loc + scale * X / sqrt(Z / df)`` for a standard normal ``X`` and a
chi-squared ``Z`` of ``df`` degrees of freedom, both reparameterized.

>>> import gradtrack
>>> from gradtrack.distributions import StudentT
>>> StudentT(gradtrack.tensor([1.0, 30.0])).log_prob(gradtrack.tensor([0.0, 0.0]))
tensor([-1.1447, -0.9273])
"""

import math

import gradtrack

from . import constraints
from .chi2 import Chi2
from .distribution import Distribution
from .utils import _standard_normal, broadcast_all

__all__ = ["StudentT"]


class StudentT(Distribution):
    """Student's t-distribution of ``df`` degrees of freedom, location ``loc`` and
    scale ``scale`` (numbers or tensors, broadcast together).

    >>> import gradtrack
    >>> from gradtrack.distributions import StudentT
    >>> _ = gradtrack.manual_seed(0)
    >>> StudentT(gradtrack.tensor([2.0, 50.0])).sample()
    tensor([ 1.3801, -0.2838])
    """

    arg_constraints = {"df": constraints.positive, "loc": constraints.real,
                       "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    @property
    def mean(self):
        """``loc``, or NaN where ``df <= 1`` (no mean there).

        >>> import gradtrack
        >>> from gradtrack.distributions import StudentT
        >>> StudentT(gradtrack.tensor([1.0, 3.0]), 2.0).mean
        tensor([nan, 2.])
        """
        m = self.loc.clone(memory_format=gradtrack.contiguous_format)
        m[self.df <= 1] = math.nan
        return m

    @property
    def mode(self):
        """``loc``.

        >>> from gradtrack.distributions import StudentT
        >>> StudentT(3.0, 2.0).mode
        tensor(2.)
        """
        return self.loc

    @property
    def variance(self):
        """``scale ** 2 df / (df - 2)`` where ``df > 2``, infinite where
        ``1 < df <= 2``, NaN where ``df <= 1``.

        >>> import gradtrack
        >>> from gradtrack.distributions import StudentT
        >>> StudentT(gradtrack.tensor([1.0, 2.0, 4.0])).variance
        tensor([nan, inf, 2.])
        """
        m = self.df.clone(memory_format=gradtrack.contiguous_format)
        above_two = self.df > 2
        m[above_two] = (self.scale[above_two].pow(2) * self.df[above_two]
                        / (self.df[above_two] - 2))
        m[(self.df <= 2) & (self.df > 1)] = math.inf
        m[self.df <= 1] = math.nan
        return m

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its parameters expanded to ``batch_shape``.

        >>> from gradtrack.distributions import StudentT
        >>> StudentT(3.0).expand([2]).df
        tensor([3., 3.])
        """
        new = self._get_checked_instance(StudentT, _instance)
        batch_shape = gradtrack.Size(batch_shape)
        new.df = self.df.expand(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new._chi2 = self._chi2.expand(batch_shape)
        super(StudentT, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=gradtrack.Size()):
        """Standard normal draws first, then chi-squared draws, combined as
        ``loc + scale * X * rsqrt(Z / df)``.

        >>> import gradtrack
        >>> from gradtrack.distributions import StudentT
        >>> _ = gradtrack.manual_seed(0)
        >>> StudentT(gradtrack.tensor(5.0, requires_grad=True)).rsample((2,))
        tensor([ 4.5907, -0.2628], grad_fn=<AddBackward0>)
        """
        shape = self._extended_shape(sample_shape)
        x = _standard_normal(shape, dtype=self.df.dtype, device=self.df.device)
        z = self._chi2.rsample(sample_shape)
        y = x * gradtrack.rsqrt(z / self.df)
        return self.loc + self.scale * y

    def log_prob(self, value):
        """The log density of the standardized ``value``, less the log of the
        normalizing constant.

        >>> import gradtrack
        >>> from gradtrack.distributions import StudentT
        >>> StudentT(1.0).log_prob(gradtrack.tensor(1.0))
        tensor(-1.8379)
        """
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        log_norm = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi)
                    + gradtrack.lgamma(0.5 * self.df) - gradtrack.lgamma(0.5 * (self.df + 1.0)))
        return -0.5 * (self.df + 1.0) * gradtrack.log1p(y ** 2.0 / self.df) - log_norm

    def entropy(self):
        """``log(scale) + (df + 1) / 2 (digamma((df + 1) / 2) - digamma(df / 2))
        + log(df) / 2 + log B(df / 2, 1 / 2)``.

        >>> from gradtrack.distributions import StudentT
        >>> StudentT(1.0).entropy()
        tensor(2.5310)
        """
        half_df = 0.5 * self.df
        half_df1 = 0.5 * (self.df + 1)
        lbeta = gradtrack.lgamma(half_df) + math.lgamma(0.5) - gradtrack.lgamma(half_df1)
        return (self.scale.log()
                + half_df1 * (gradtrack.digamma(half_df1) - gradtrack.digamma(half_df))
                + 0.5 * self.df.log() + lbeta)
