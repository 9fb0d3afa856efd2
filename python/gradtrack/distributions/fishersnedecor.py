"""``FisherSnedecor``: the F-distribution, the ratio of two chi-squared variables each
divided by its degrees of freedom (``torch.distributions.FisherSnedecor``).

>>> import gradtrack
>>> from gradtrack.distributions import FisherSnedecor
>>> FisherSnedecor(2.0, 2.0).log_prob(gradtrack.tensor([0.5, 1.0]))
tensor([-0.8109, -1.3863])
"""

import math

import gradtrack

from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from .utils import _batch_shape, broadcast_all

__all__ = ["FisherSnedecor"]


class FisherSnedecor(Distribution):
    """The F-distribution of ``df1`` and ``df2`` degrees of freedom (numbers or
    tensors).

    >>> import gradtrack
    >>> from gradtrack.distributions import FisherSnedecor
    >>> _ = gradtrack.manual_seed(0)
    >>> FisherSnedecor(gradtrack.tensor([1.0, 10.0]), gradtrack.tensor([5.0, 20.0])).sample()
    tensor([0.0016, 0.6873])
    """

    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1, df2, validate_args=None):
        self.df1, self.df2 = broadcast_all(df1, df2)
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1)
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2)
        super().__init__(_batch_shape(self.df1, df1, df2), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its parameters expanded to ``batch_shape``.

        >>> from gradtrack.distributions import FisherSnedecor
        >>> FisherSnedecor(3.0, 4.0).expand([2]).df2
        tensor([4., 4.])
        """
        new = self._get_checked_instance(FisherSnedecor, _instance)
        batch_shape = gradtrack.Size(batch_shape)
        new.df1 = self.df1.expand(batch_shape)
        new.df2 = self.df2.expand(batch_shape)
        new._gamma1 = self._gamma1.expand(batch_shape)
        new._gamma2 = self._gamma2.expand(batch_shape)
        super(FisherSnedecor, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        """``df2 / (df2 - 2)``, NaN where ``df2 <= 2``.

        >>> import gradtrack
        >>> from gradtrack.distributions import FisherSnedecor
        >>> FisherSnedecor(1.0, gradtrack.tensor([2.0, 4.0])).mean
        tensor([nan, 2.])
        """
        df2 = self.df2.clone(memory_format=gradtrack.contiguous_format)
        df2[df2 <= 2] = math.nan
        return df2 / (df2 - 2)

    @property
    def mode(self):
        """``(df1 - 2) / df1 * df2 / (df2 + 2)``, NaN where ``df1 <= 2``.

        >>> import gradtrack
        >>> from gradtrack.distributions import FisherSnedecor
        >>> FisherSnedecor(gradtrack.tensor([2.0, 4.0]), 2.0).mode
        tensor([   nan, 0.2500])
        """
        mode = (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2)
        mode[self.df1 <= 2] = math.nan
        return mode

    @property
    def variance(self):
        """``2 df2 ** 2 (df1 + df2 - 2) / (df1 (df2 - 2) ** 2 (df2 - 4))``, NaN where
        ``df2 <= 4``.

        >>> import gradtrack
        >>> from gradtrack.distributions import FisherSnedecor
        >>> FisherSnedecor(2.0, gradtrack.tensor([4.0, 6.0])).variance
        tensor([   nan, 6.7500])
        """
        df2 = self.df2.clone(memory_format=gradtrack.contiguous_format)
        df2[df2 <= 4] = math.nan
        return 2 * df2.pow(2) * (self.df1 + df2 - 2) / (self.df1 * (df2 - 2).pow(2) * (df2 - 4))

    def rsample(self, sample_shape=gradtrack.Size(())):
        """The ratio of a draw of ``Gamma(df1 / 2, df1)`` to one of
        ``Gamma(df2 / 2, df2)`` (drawn in that order), the denominator and the ratio
        raised in place to at least the dtype's smallest normal number.

        >>> import gradtrack
        >>> from gradtrack.distributions import FisherSnedecor
        >>> _ = gradtrack.manual_seed(0)
        >>> FisherSnedecor(gradtrack.tensor(4.0, requires_grad=True), 6.0).rsample((2,))
        tensor([5.4250, 2.0290], grad_fn=<ClampBackward1>)
        """
        shape = self._extended_shape(sample_shape)
        x1 = self._gamma1.rsample(sample_shape).view(shape)
        x2 = self._gamma2.rsample(sample_shape).view(shape)
        tiny = gradtrack.finfo(x2.dtype).tiny
        x2.clamp_(min=tiny)
        y = x1 / x2
        y.clamp_(min=tiny)
        return y

    def log_prob(self, value):
        """The log of the F density at ``value``.

        >>> import gradtrack
        >>> from gradtrack.distributions import FisherSnedecor
        >>> FisherSnedecor(4.0, 4.0).log_prob(gradtrack.tensor(1.0))
        tensor(-0.9808)
        """
        if self._validate_args:
            self._validate_sample(value)
        half1 = self.df1 * 0.5
        half2 = self.df2 * 0.5
        ratio = self.df1 / self.df2
        t1 = (half1 + half2).lgamma() - half1.lgamma() - half2.lgamma()
        t2 = half1 * ratio.log() + (half1 - 1) * gradtrack.log(value)
        t3 = (half1 + half2) * gradtrack.log1p(ratio * value)
        return t1 + t2 - t3
