"""``ContinuousBernoulli``: the density on [0, 1] proportional to
``p^x (1 - p)^(1 - x)``, the Bernoulli likelihood made a proper density over the
interval (``torch.distributions.ContinuousBernoulli``).

Near ``p = 1/2`` the closed forms divide 0 by 0; inside ``lims`` (by default
(0.499, 0.501)) the log normalizer, mean and variance are Taylor expansions.

>>> import gradtrack
>>> from gradtrack.distributions import ContinuousBernoulli
>>> d = ContinuousBernoulli(gradtrack.tensor([0.2, 0.5]))
>>> d.mean, d.log_prob(gradtrack.tensor([0.25, 0.25]))
(tensor([0.3880, 0.5000]), tensor([0.2677, 0.0000]))
"""

import math

import gradtrack

from . import constraints
from .exp_family import ExponentialFamily
from .utils import (_batch_shape, _check_one_of, _expand_probs_or_logits, broadcast_all,
                    clamp_probs, lazy_property, logits_to_probs, probs_to_logits)

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(ExponentialFamily):
    """The continuous Bernoulli of ``probs`` (in (0, 1), clamped away from its
    ends) or ``logits`` (``probs``' log-odds), exactly one of them. Unlike the
    Bernoulli's, ``probs`` is not the probability of anything, nor the mean.

    >>> import gradtrack
    >>> from gradtrack.distributions import ContinuousBernoulli
    >>> _ = gradtrack.manual_seed(0)
    >>> ContinuousBernoulli(gradtrack.tensor([0.1, 0.9])).sample()
    tensor([0.2648, 0.8950])
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        _check_one_of(probs, logits)
        if probs is None:
            (self.logits,) = broadcast_all(logits)
            self._param, given = self.logits, logits
        else:
            (p,) = broadcast_all(probs)
            # checked before clamping, which would hide values outside [0, 1]
            if validate_args is not None and not self.arg_constraints["probs"].check(p).all():
                raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(p)
            self._param, given = self.probs, probs
        self._lims = lims
        super().__init__(_batch_shape(self._param, given), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """This distribution with its given parameter expanded to ``batch_shape``.

        >>> from gradtrack.distributions import ContinuousBernoulli
        >>> ContinuousBernoulli(0.25).expand([2]).probs
        tensor([0.2500, 0.2500])
        """
        new = self._get_checked_instance(ContinuousBernoulli, _instance)
        new._lims = self._lims
        batch_shape = gradtrack.Size(batch_shape)
        _expand_probs_or_logits(self, new, batch_shape)
        super(ContinuousBernoulli, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    def _outside_unstable_region(self):
        return gradtrack.max(gradtrack.le(self.probs, self._lims[0]),
                             gradtrack.gt(self.probs, self._lims[1]))

    def _cut_probs(self):
        # probs, with those in the unstable region moved to its lower end, so that
        # the closed forms (whose results there are discarded) stay finite
        return gradtrack.where(self._outside_unstable_region(), self.probs,
                               self._lims[0] * gradtrack.ones_like(self.probs))

    def _cont_bern_log_norm(self):
        """The log normalizer as a function of ``probs``."""
        cut = self._cut_probs()
        below_half = gradtrack.where(gradtrack.le(cut, 0.5), cut, gradtrack.zeros_like(cut))
        above_half = gradtrack.where(gradtrack.ge(cut, 0.5), cut, gradtrack.ones_like(cut))
        log_norm = gradtrack.log(gradtrack.abs(gradtrack.log1p(-cut) - gradtrack.log(cut))) \
            - gradtrack.where(gradtrack.le(cut, 0.5), gradtrack.log1p(-2.0 * below_half),
                              gradtrack.log(2.0 * above_half - 1.0))
        x = gradtrack.pow(self.probs - 0.5, 2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return gradtrack.where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self):
        """``p / (2p - 1) + 1 / (log(1 - p) - log(p))`` (a Taylor expansion near
        1/2).

        >>> from gradtrack.distributions import ContinuousBernoulli
        >>> ContinuousBernoulli(0.8).mean
        tensor(0.6120)
        """
        cut = self._cut_probs()
        mus = cut / (2.0 * cut - 1.0) + 1.0 / (gradtrack.log1p(-cut) - gradtrack.log(cut))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * gradtrack.pow(x, 2)) * x
        return gradtrack.where(self._outside_unstable_region(), mus, taylor)

    @property
    def stddev(self):
        """The square root of the variance.

        >>> from gradtrack.distributions import ContinuousBernoulli
        >>> ContinuousBernoulli(0.5).stddev
        tensor(0.2887)
        """
        return gradtrack.sqrt(self.variance)

    @property
    def variance(self):
        """``p (p - 1) / (1 - 2p)^2 + 1 / (log(1 - p) - log(p))^2`` (a Taylor
        expansion near 1/2).

        >>> from gradtrack.distributions import ContinuousBernoulli
        >>> ContinuousBernoulli(0.5).variance
        tensor(0.0833)
        """
        cut = self._cut_probs()
        var = cut * (cut - 1.0) / gradtrack.pow(1.0 - 2.0 * cut, 2) \
            + 1.0 / gradtrack.pow(gradtrack.log1p(-cut) - gradtrack.log(cut), 2)
        x = gradtrack.pow(self.probs - 0.5, 2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return gradtrack.where(self._outside_unstable_region(), var, taylor)

    @lazy_property
    def logits(self):
        """The log-odds of ``probs`` (computed on first use when not given).

        >>> from gradtrack.distributions import ContinuousBernoulli
        >>> ContinuousBernoulli(0.5).logits
        tensor(0.)
        """
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        """The sigmoid of ``logits``, clamped away from 0 and 1 (computed on first
        use when not given).

        >>> from gradtrack.distributions import ContinuousBernoulli
        >>> ContinuousBernoulli(logits=0.0).probs
        tensor(0.5000)
        """
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self):
        """The shape of the parameter given.

        >>> import gradtrack
        >>> from gradtrack.distributions import ContinuousBernoulli
        >>> ContinuousBernoulli(gradtrack.full((2, 1), 0.3)).param_shape
        gradtrack.Size([2, 1])
        """
        return self._param.size()

    def sample(self, sample_shape=gradtrack.Size()):
        """The icdf, without gradient, of one ``gradtrack.rand``.

        >>> import gradtrack
        >>> from gradtrack.distributions import ContinuousBernoulli
        >>> _ = gradtrack.manual_seed(0)
        >>> ContinuousBernoulli(0.5).sample((2,))
        tensor([0.4963, 0.7682])
        """
        u = self._uniforms(sample_shape)
        with gradtrack.no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape=gradtrack.Size()):
        """The icdf of one ``gradtrack.rand``, differentiable in the parameters.

        >>> import gradtrack
        >>> from gradtrack.distributions import ContinuousBernoulli
        >>> _ = gradtrack.manual_seed(0)
        >>> ContinuousBernoulli(gradtrack.tensor(0.2, requires_grad=True)).rsample()
        tensor(0.3358, grad_fn=<WhereBackward0>)
        """
        return self.icdf(self._uniforms(sample_shape))

    def _uniforms(self, sample_shape):
        """One ``gradtrack.rand`` of the sample's shape, in the parameters' dtype."""
        p = self.probs
        return gradtrack.rand(self._extended_shape(sample_shape), dtype=p.dtype, device=p.device)

    def log_prob(self, value):
        """The log density at ``value``: minus the binary cross entropy of the
        logits, plus the log normalizer.

        >>> import gradtrack
        >>> from gradtrack.distributions import ContinuousBernoulli
        >>> ContinuousBernoulli(0.8).log_prob(gradtrack.tensor([0.0, 1.0]))
        tensor([-0.7720,  0.6143])
        """
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        bce = gradtrack.nn.functional.binary_cross_entropy_with_logits(logits, value,
                                                                       reduction="none")
        return -bce + self._cont_bern_log_norm()

    def cdf(self, value):
        """``(p^x (1 - p)^(1 - x) + p - 1) / (2p - 1)`` (``x`` itself near
        ``p = 1/2``), 0 below 0 and 1 above 1.

        >>> import gradtrack
        >>> from gradtrack.distributions import ContinuousBernoulli
        >>> ContinuousBernoulli(0.8).cdf(gradtrack.tensor([0.0, 0.5, 1.0]))
        tensor([0.0000, 0.3333, 1.0000])
        """
        if self._validate_args:
            self._validate_sample(value)
        cut = self._cut_probs()
        cdfs = (gradtrack.pow(cut, value) * gradtrack.pow(1.0 - cut, 1.0 - value) + cut - 1.0) \
            / (2.0 * cut - 1.0)
        unbounded = gradtrack.where(self._outside_unstable_region(), cdfs, value)
        return gradtrack.where(gradtrack.le(value, 0.0), gradtrack.zeros_like(value),
                               gradtrack.where(gradtrack.ge(value, 1.0),
                                               gradtrack.ones_like(value), unbounded))

    def icdf(self, value):
        """``(log1p(-p + u (2p - 1)) - log1p(-p)) / (log(p) - log1p(-p))`` (``u``
        itself near ``p = 1/2``).

        >>> import gradtrack
        >>> from gradtrack.distributions import ContinuousBernoulli
        >>> ContinuousBernoulli(0.8).icdf(gradtrack.tensor([0.0, 1.0 / 3.0, 1.0]))
        tensor([0.0000, 0.5000, 1.0000])
        """
        cut = self._cut_probs()
        inverted = (gradtrack.log1p(-cut + value * (2.0 * cut - 1.0)) - gradtrack.log1p(-cut)) \
            / (gradtrack.log(cut) - gradtrack.log1p(-cut))
        return gradtrack.where(self._outside_unstable_region(), inverted, value)

    def entropy(self):
        """``mean * (log(1 - p) - log(p)) - log_normalizer - log(1 - p)``.

        >>> from gradtrack.distributions import ContinuousBernoulli
        >>> ContinuousBernoulli(0.5).entropy()
        tensor(0.)
        """
        log_q = gradtrack.log1p(-self.probs)  # log(1 - p)
        log_p = gradtrack.log(self.probs)
        return self.mean * (log_q - log_p) - self._cont_bern_log_norm() - log_q

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        """The log normalizer as a function of the natural parameter ``x``:
        ``log|expm1(x)| - log|x|`` (a Taylor expansion near 0)."""
        unstable_low, unstable_high = self._lims[0] - 0.5, self._lims[1] - 0.5
        outside = gradtrack.max(gradtrack.le(x, unstable_low), gradtrack.gt(x, unstable_high))
        cut = gradtrack.where(outside, x, unstable_low * gradtrack.ones_like(x))
        log_norm = gradtrack.log(gradtrack.abs(gradtrack.special.expm1(cut))) \
            - gradtrack.log(gradtrack.abs(cut))
        taylor = 0.5 * x + gradtrack.pow(x, 2) / 24.0 - gradtrack.pow(x, 4) / 2880.0
        return gradtrack.where(outside, log_norm, taylor)
